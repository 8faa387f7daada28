//! The three channels every limit decision reads (signed distance, twist minimum and maximum)
//! side by side per vertex, so one lookup locates the cell once and fetches one cache line per
//! row instead of one per channel, and interpolates the three together in one SIMD lane set.

use glam::{Vec2, Vec4};

use super::grid::VertexGrid;
use crate::twist::TwistRange;

/// Per vertex `(signed distance, twist min, twist max, 0)`, row-major like [`VertexGrid`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PackedGrid {
    /// Cells per side.
    resolution: usize,
    values: Vec<Vec4>,
}

/// What a table reads at one square point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lookup {
    /// The interpolated signed distance (negative inside), radians.
    pub distance: f32,
    /// The interpolated twist range.
    pub twist: TwistRange,
}

impl From<Vec4> for Lookup {
    #[inline(always)]
    fn from(v: Vec4) -> Lookup {
        Lookup {
            distance: v.x,
            twist: TwistRange { min: v.y, max: v.z },
        }
    }
}

impl PackedGrid {
    /// The packed copy of three grids of one resolution.
    pub fn new(distance: &VertexGrid, twist_min: &VertexGrid, twist_max: &VertexGrid) -> Self {
        let values = distance
            .values
            .iter()
            .zip(&twist_min.values)
            .zip(&twist_max.values)
            .map(|((&d, &low), &high)| Vec4::new(d, low, high, 0.0))
            .collect();
        PackedGrid {
            resolution: distance.resolution,
            values,
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.values.as_slice())
    }

    /// Cells per side.
    #[inline(always)]
    pub fn resolution(&self) -> usize {
        self.resolution
    }

    /// The packed values per vertex, row-major.
    #[inline(always)]
    pub(crate) fn values(&self) -> &[Vec4] {
        &self.values
    }

    /// The four corner values of cell `(column, row)`: bottom-left, bottom-right, top-left,
    /// top-right.
    #[inline(always)]
    pub(crate) fn corners(&self, column: usize, row: usize) -> [Vec4; 4] {
        let side = self.resolution + 1;
        let at = |c: usize, r: usize| self.values[r * side + c];
        [
            at(column, row),
            at(column + 1, row),
            at(column, row + 1),
            at(column + 1, row + 1),
        ]
    }

    /// The three channels interpolated bilinearly at square point `p`, exactly as
    /// [`VertexGrid::sample`] interpolates each.
    #[inline(always)]
    pub fn sample(&self, p: Vec2) -> Lookup {
        let (column, row, t) = VertexGrid::locate_in(self.resolution, p);
        let [a, b, c, d] = self.corners(column, row);
        let bottom = a + (b - a) * t.x;
        let top = c + (d - c) * t.x;
        (bottom + (top - bottom) * t.y).into()
    }

    /// The three channels at the corners of the part `[t0, t1]` (in `[0, 1]²`) of cell
    /// `(column, row)`: bottom-left, bottom-right, top-left, top-right.
    #[inline]
    pub fn part_corners(&self, column: usize, row: usize, t0: Vec2, t1: Vec2) -> [Vec4; 4] {
        let [a, b, c, d] = self.corners(column, row);
        let value = |t: Vec2| {
            let bottom = a + (b - a) * t.x;
            let top = c + (d - c) * t.x;
            bottom + (top - bottom) * t.y
        };
        [
            value(t0),
            value(Vec2::new(t1.x, t0.y)),
            value(Vec2::new(t0.x, t1.y)),
            value(t1),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::SeededRandom;

    #[test]
    fn a_packed_lookup_reads_what_each_grid_reads() {
        let grid = |f: fn(Vec2) -> f32| VertexGrid::from_fn(16, f);
        let distance = grid(|p| p.x * p.x - 0.3 * p.y);
        let low = grid(|p| (3.0 * p.x).sin() - 1.0);
        let high = grid(|p| p.y.exp());
        let packed = PackedGrid::new(&distance, &low, &high);
        let mut random = SeededRandom::new(9);
        for _ in 0..10_000 {
            // Points past the square too: both clamp alike.
            let p = Vec2::new(random.next_unit() as f32, random.next_unit() as f32) * 2.4 - 1.2;
            let lookup = packed.sample(p);
            assert_eq!(lookup.distance, distance.sample(p), "{p}");
            assert_eq!(lookup.twist.min, low.sample(p), "{p}");
            assert_eq!(lookup.twist.max, high.sample(p), "{p}");
        }
    }
}
