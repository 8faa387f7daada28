//! Values at the vertices of a regular grid over the square `[−1, 1]²`, read back by bilinear
//! interpolation: so a table's boundary (where an interpolated signed distance crosses zero) is
//! a smooth curve through the cells, not a staircase of whole cells.

use glam::Vec2;
use serde::{Deserialize, Serialize};

/// `(resolution + 1)²` values at the vertices of `resolution × resolution` square cells covering
/// `[−1, 1]²`, row-major from `(−1, −1)`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VertexGrid {
    /// Cells per side.
    pub resolution: usize,
    /// The vertex values.
    pub values: Vec<f32>,
}

/// The corners of the axis-aligned rectangle `[low, high]` in the order cells read theirs:
/// bottom-left, bottom-right, top-left, top-right.
#[inline]
pub fn rectangle_corners(low: Vec2, high: Vec2) -> [Vec2; 4] {
    [
        low,
        Vec2::new(high.x, low.y),
        Vec2::new(low.x, high.y),
        high,
    ]
}

impl VertexGrid {
    /// The grid of `resolution` cells per side whose vertex values are `f` at each vertex.
    pub fn from_fn(resolution: usize, f: impl Fn(Vec2) -> f32) -> VertexGrid {
        let side = resolution + 1;
        let values = (0..side * side)
            .map(|index| {
                f(Self::vertex_position(
                    resolution,
                    index % side,
                    index / side,
                ))
            })
            .collect();
        VertexGrid { resolution, values }
    }

    /// The square point of vertex `(column, row)`.
    pub fn vertex_position(resolution: usize, column: usize, row: usize) -> Vec2 {
        let cell = 2.0 / resolution as f32;
        Vec2::new(-1.0 + column as f32 * cell, -1.0 + row as f32 * cell)
    }

    /// The cell holding `p` (clamped into the square) and `p`'s position within it, in `[0, 1]²`.
    #[inline]
    fn locate(&self, p: Vec2) -> (usize, usize, Vec2) {
        VertexGrid::locate_in(self.resolution, p)
    }

    /// [`VertexGrid::locate`] in a grid of `resolution` cells per side, for values stored
    /// elsewhere in the same layout.
    #[inline]
    pub(crate) fn locate_in(resolution: usize, p: Vec2) -> (usize, usize, Vec2) {
        let n = resolution;
        let scaled = (p.clamp(Vec2::splat(-1.0), Vec2::splat(1.0)) + 1.0) * (0.5 * n as f32);
        let column = (scaled.x as usize).min(n - 1);
        let row = (scaled.y as usize).min(n - 1);
        (column, row, scaled - Vec2::new(column as f32, row as f32))
    }

    /// The four corner values of cell `(column, row)`: bottom-left, bottom-right, top-left,
    /// top-right.
    #[inline]
    fn corners(&self, column: usize, row: usize) -> [f32; 4] {
        let side = self.resolution + 1;
        let at = |c: usize, r: usize| self.values[r * side + c];
        [
            at(column, row),
            at(column + 1, row),
            at(column, row + 1),
            at(column + 1, row + 1),
        ]
    }

    /// The bilinear interpolation at `p`.
    #[inline]
    pub fn sample(&self, p: Vec2) -> f32 {
        let (column, row, t) = self.locate(p);
        let [a, b, c, d] = self.corners(column, row);
        let bottom = a + (b - a) * t.x;
        let top = c + (d - c) * t.x;
        bottom + (top - bottom) * t.y
    }

    /// The gradient of the bilinear interpolation at `p`, per unit of square coordinates.
    #[inline]
    pub fn gradient(&self, p: Vec2) -> Vec2 {
        let (column, row, t) = self.locate(p);
        let [a, b, c, d] = self.corners(column, row);
        let per_unit = 0.5 * self.resolution as f32;
        Vec2::new(
            ((b - a) * (1.0 - t.y) + (d - c) * t.y) * per_unit,
            ((c - a) * (1.0 - t.x) + (d - b) * t.x) * per_unit,
        )
    }

    /// The side of a cell in square coordinates.
    pub fn cell_size(&self) -> f32 {
        2.0 / self.resolution as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bilinear_functions_are_reproduced_exactly() {
        let f = |p: Vec2| 0.3 + 1.5 * p.x - 0.7 * p.y + 0.25 * p.x * p.y;
        let grid = VertexGrid::from_fn(8, f);
        for k in 0..=40 {
            let p = Vec2::new(-1.0 + k as f32 * 0.05, 0.9 - k as f32 * 0.045);
            assert!((grid.sample(p) - f(p)).abs() < 1e-5, "{p}");
        }
    }

    #[test]
    fn gradients_match_differences() {
        let grid = VertexGrid::from_fn(16, |p| (3.0 * p.x).sin() * (2.0 * p.y).cos());
        let h = 1e-3;
        for p in [
            Vec2::new(0.11, -0.37),
            Vec2::new(-0.82, 0.64),
            Vec2::new(0.53, 0.47),
        ] {
            let numeric = Vec2::new(
                grid.sample(p + Vec2::X * h) - grid.sample(p - Vec2::X * h),
                grid.sample(p + Vec2::Y * h) - grid.sample(p - Vec2::Y * h),
            ) / (2.0 * h);
            assert!((grid.gradient(p) - numeric).length() < 2e-2, "{p}");
        }
    }
}
