//! The three channels every limit decision reads (signed distance, twist minimum and maximum)
//! side by side per vertex, so one lookup locates the cell once and fetches one cache line per
//! row instead of one per channel, and interpolates the three together in one SIMD lane set.
//!
//! **Twist turns per cell.** A twist range and the same range moved by a whole turn are one
//! limit, so a cell's corners are interpolated on common turns: each corner's range is read on
//! the turn that brings its middle nearest the bottom-left corner's. Where the stored values
//! already agree (every fitted table, and any table whose neighbouring ranges lie within half a
//! turn of each other) nothing moves. Where they do not, the twist winds: around directions
//! allowing every twist, a limit's twist run can come back a whole turn further than it left
//! (a full-space box reaching past π does), so no one turn per vertex fits every cell, and
//! interpolating a range with its neighbour's a turn away would read a range between the two,
//! allowing what neither allows.

use std::f32::consts::TAU;

use glam::{Vec2, Vec4};

use super::grid::VertexGrid;
use crate::twist::TwistRange;

/// Per vertex `(signed distance, twist min, twist max, 0)`, row-major like [`VertexGrid`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct PackedGrid {
    /// Cells per side.
    resolution: usize,
    values: Vec<Vec4>,
    /// Per cell (row-major), the whole turns its corners' twist ranges move by (bottom-left,
    /// bottom-right, top-left, top-right; the first is always 0); empty when no cell moves any.
    cell_turns: Vec<[i8; 4]>,
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
        let values: Vec<Vec4> = distance
            .values
            .iter()
            .zip(&twist_min.values)
            .zip(&twist_max.values)
            .map(|((&d, &low), &high)| Vec4::new(d, low, high, 0.0))
            .collect();
        let resolution = distance.resolution;
        let cell_turns = turns_per_cell(resolution, &values);
        PackedGrid {
            resolution,
            values,
            cell_turns,
        }
    }

    /// Whether some cell reads a corner's twist range on another turn than the one stored
    /// (module docs).
    #[inline(always)]
    pub(crate) fn has_turns(&self) -> bool {
        !self.cell_turns.is_empty()
    }

    /// The whole turns cell `(column, row)` moves its corners' twist ranges by (module docs).
    #[inline(always)]
    pub(crate) fn turns(&self, column: usize, row: usize) -> [i8; 4] {
        if self.cell_turns.is_empty() {
            return [0; 4];
        }
        self.cell_turns[row * self.resolution + column]
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.values.as_slice())
            + std::mem::size_of_val(self.cell_turns.as_slice())
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
        let corners = [
            at(column, row),
            at(column + 1, row),
            at(column, row + 1),
            at(column + 1, row + 1),
        ];
        if self.cell_turns.is_empty() {
            return corners;
        }
        on_turns(corners, self.turns(column, row))
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

/// `corners` with each twist range moved by its whole `turns`.
#[inline(always)]
pub(crate) fn on_turns(corners: [Vec4; 4], turns: [i8; 4]) -> [Vec4; 4] {
    let mut moved = corners;
    for (value, turns) in moved.iter_mut().zip(turns) {
        let shift = f32::from(turns) * TAU;
        value.y += shift;
        value.z += shift;
    }
    moved
}

/// The middle of a packed value's twist range.
#[inline(always)]
fn twist_middle(value: Vec4) -> f32 {
    0.5 * (value.y + value.z)
}

/// Per cell, the whole turns that bring each corner's twist range's middle nearest the
/// bottom-left corner's; empty when every cell's are all 0. Stored ranges lie within ±2π of 0
/// (the channels' span), so a turn count fits a byte.
fn turns_per_cell(resolution: usize, values: &[Vec4]) -> Vec<[i8; 4]> {
    let side = resolution + 1;
    let mut any = false;
    let turns: Vec<[i8; 4]> = (0..resolution * resolution)
        .map(|cell| {
            let (column, row) = (cell % resolution, cell / resolution);
            let first = row * side + column;
            let reference = twist_middle(values[first]);
            let mut cell_turns = [0i8; 4];
            for (k, offset) in [0, 1, side, side + 1].into_iter().enumerate() {
                let apart = reference - twist_middle(values[first + offset]);
                let whole = (apart / TAU).round();
                if whole.is_finite() {
                    cell_turns[k] = whole.clamp(-4.0, 4.0) as i8;
                }
            }
            any |= cell_turns != [0; 4];
            cell_turns
        })
        .collect();
    if any { turns } else { Vec::new() }
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
