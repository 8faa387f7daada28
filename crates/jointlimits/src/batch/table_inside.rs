//! A lookup table's conservative inside test across lanes (see [`super::SurelyInside`]).
//!
//! Every lane measures its twist and bone direction, maps the direction onto the table's square
//! and reads the three decision channels at the cell's corners, as the one-at-a-time path does,
//! but with the lanes' own operations (a branchless `atan2`, the rotation of the axis written
//! out). So a lane's square point may stray from the scalar path's by a few roundings:
//! [`SQUARE_ERROR`] bounds it with a wide margin (the test measures the real stray). A lane
//! counts as allowed only when its point lies that far inside its cell, so the scalar point
//! shares the cell, and when the interpolated signed distance and twist limits clear the
//! verdict by what the cell's bilinear values can change over that stray (their differences
//! along each side bound the slope), plus [`super::ROUNDING_MARGIN`] for the twist itself.
//!
//! Points near the square's edges (where `(u, 1)` and `(−u, 1)` are one direction) lie near a
//! cell edge and are never passed, nor are swings near 180°, where the twist is ill-conditioned.

// Lane loops index several arrays in lockstep by lane number: the form that vectorises.
#![allow(clippy::needless_range_loop)]

use std::f32::consts::FRAC_PI_4;
use std::sync::Arc;

use glam::{Mat3, Vec3};

use super::{LANES, Lanes, Quats, ROUNDING_MARGIN, atan2, twist_and_direction};
use crate::table::TableLimit;
use crate::table::packed::PackedGrid;
use crate::twist::TwistRange;

/// How far (square units, per coordinate) a lane's square point may lie from the one-at-a-time
/// path's: the measured stray is below 1e-6 (see the test), and a step of 1e-5 in the square
/// moves a direction by at most 3.1e-5 rad.
pub const SQUARE_ERROR: f32 = 1e-5;

/// What the lanes read of a table.
#[derive(Clone, Debug)]
pub(super) struct TableLanes {
    /// The bone's axis at the reference rotation.
    axis: Vec3,
    /// From the joint's frame into the map's (its basis transposed).
    to_map: Mat3,
    /// The signed distance and twist limits per vertex (the table's own).
    packed: Arc<PackedGrid>,
    /// [`SQUARE_ERROR`] in units of a cell's side.
    cell_error: f32,
}

impl TableLanes {
    /// The lanes' view of `table`.
    pub(super) fn of(table: &TableLimit) -> TableLanes {
        TableLanes {
            axis: table.twist_axis,
            to_map: table.swing().map.basis.transpose(),
            packed: Arc::clone(table.packed()),
            cell_error: SQUARE_ERROR * 0.5 * table.resolution() as f32,
        }
    }

    /// Whether each lane's relative rotation (short way, near unit) is surely allowed.
    ///
    /// Three passes, so that two of them vectorise: the cells and the positions within them;
    /// the corner values, gathered lane by lane; the interpolation and the verdict.
    #[inline(always)]
    pub(super) fn holds(&self, relative: &Quats) -> [bool; LANES] {
        let (twist, (u, v), well_conditioned) = self.measure(relative);
        let n = self.packed.resolution();
        let (to_cells, last) = (0.5 * n as f32, n as f32 - 1.0);
        let e = self.cell_error;
        let mut usable = well_conditioned;
        let mut first_corner = [0u32; LANES];
        let (mut tu, mut tv) = ([0.0; LANES], [0.0; LANES]);
        for i in 0..LANES {
            // Unclamped: a point past the square's edge fails the cell test.
            let (su, sv) = ((u[i] + 1.0) * to_cells, (v[i] + 1.0) * to_cells);
            let (column, row) = (su.floor(), sv.floor());
            (tu[i], tv[i]) = (su - column, sv - row);
            let within_cell = (tu[i] >= e) & (tu[i] <= 1.0 - e) & (tv[i] >= e) & (tv[i] <= 1.0 - e);
            let on_grid = (column >= 0.0) & (column <= last) & (row >= 0.0) & (row <= last);
            usable[i] &= within_cell & on_grid;
            // Lanes off the grid (or NaN) read cell 0 and are not passed.
            let (column, row) = if usable[i] { (column, row) } else { (0.0, 0.0) };
            first_corner[i] = (row * (n + 1) as f32 + column) as u32;
        }
        let [distance, low, high] = self.gather_corners(&first_corner);
        let mut inside = [false; LANES];
        for i in 0..LANES {
            let (tu, tv) = (tu[i], tv[i]);
            // Each channel interpolated, and how much it can change over the stray: its largest
            // difference along each side bounds its slope in cell units.
            let read = |corners: &[Lanes; 4]| {
                let [a, b, c, d] = [corners[0][i], corners[1][i], corners[2][i], corners[3][i]];
                let bottom = a + (b - a) * tu;
                let top = c + (d - c) * tu;
                let along_u = (b - a).abs().max((d - c).abs());
                let along_v = (c - a).abs().max((d - b).abs());
                (bottom + (top - bottom) * tv, (along_u + along_v) * e)
            };
            let (outside_by, distance_change) = read(&distance);
            let (low, low_change) = read(&low);
            let (high, high_change) = read(&high);
            let room = low_change.max(high_change) + ROUNDING_MARGIN;
            let twist_inside = TwistRange {
                min: low,
                max: high,
            }
            .holds_within(twist[i], room);
            inside[i] = usable[i] & (outside_by + distance_change <= 0.0) & twist_inside;
        }
        inside
    }

    /// Per channel (signed distance, twist minimum, twist maximum), the packed values at the
    /// four corners of each lane's cell (bottom-left, bottom-right, top-left, top-right), given
    /// the index of its bottom-left vertex.
    #[inline(always)]
    fn gather_corners(&self, first_corner: &[u32; LANES]) -> [[Lanes; 4]; 3] {
        let values = self.packed.values();
        let side = self.packed.resolution() + 1;
        let mut channels = [[[0.0; LANES]; 4]; 3];
        for i in 0..LANES {
            let at = first_corner[i] as usize;
            let mut corners = [0, 1, side, side + 1].map(|offset| values[at + offset]);
            if self.packed.has_turns() {
                // The cell's corners on the turns it reads them on (`PackedGrid` docs).
                let turns = self.packed.turns(at % side, at / side);
                corners = crate::table::packed::on_turns(corners, turns);
            }
            for (corner, value) in corners.into_iter().enumerate() {
                channels[0][corner][i] = value.x;
                channels[1][corner][i] = value.y;
                channels[2][corner][i] = value.z;
            }
        }
        channels
    }

    /// Each lane's twist angle, square point `(u, v)` and whether its swing is well short of 180°.
    #[inline(always)]
    pub(super) fn measure(&self, relative: &Quats) -> (Lanes, (Lanes, Lanes), [bool; LANES]) {
        let (twist, direction, well_conditioned) = twist_and_direction(relative, self.axis);
        let local = direction.transform(&self.to_map, Vec3::ZERO);
        let (mut u, mut v) = ([0.0; LANES], [0.0; LANES]);
        for i in 0..LANES {
            // The equal-area square, as `OctahedralMap::to_square` finds it.
            let (lx, ly, lz) = (local.x[i], local.y[i], local.z[i]);
            let planar = lx * lx + ly * ly;
            let r = (planar / (1.0 + lz.abs())).min(1.0).sqrt();
            let phi = atan2(ly.abs(), lx.abs());
            let spread = phi / FRAC_PI_4 - 1.0;
            let v_near = 0.5 * r * (1.0 + spread);
            let u_near = r - v_near;
            let (u_abs, v_abs) = if lz < 0.0 {
                (1.0 - v_near, 1.0 - u_near)
            } else {
                (u_near, v_near)
            };
            u[i] = u_abs.copysign(lx);
            v[i] = v_abs.copysign(ly);
        }
        (twist, (u, v), well_conditioned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::{load, multiply_left, short_way};
    use crate::measure::SeededRandom;
    use glam::{Quat, Vec2};

    /// The lanes' square points stray from the one-at-a-time path's by far less than
    /// [`SQUARE_ERROR`], on Haar-random rotations, slightly off unit length, about any axis.
    #[test]
    fn the_lanes_square_points_stray_by_far_less_than_the_bound() {
        let mut random = SeededRandom::new(41);
        let mut largest = 0.0f32;
        for axis in [Vec3::Y, Vec3::new(0.3, -0.8, 0.5).normalize(), Vec3::NEG_Z] {
            let table = TableLimit::from_fn(axis, 16, |_| crate::table::TableValues {
                allowed: -0.1,
                twist: crate::twist::TwistRange {
                    min: -1.0,
                    max: 1.0,
                },
                stress: 0.0,
                break_margin: 0.1,
            });
            let lanes = TableLanes::of(&table);
            for _ in 0..2000 {
                let group: [Quat; LANES] = std::array::from_fn(|_| {
                    let scale = 1.0 + 4e-4 * (random.next_unit() as f32 - 0.5);
                    random.rotation() * scale
                });
                let relative = short_way(&multiply_left(Quat::IDENTITY, &load(&group)));
                let (_, (u, v), _) = lanes.measure(&relative);
                for (i, q) in group.iter().enumerate() {
                    let relative = crate::rotation::near_unit(*q);
                    let (_, direction) = crate::direction_twist::measure(axis, relative);
                    let p = table.swing().map.to_square(direction);
                    largest = largest.max((p - Vec2::new(u[i], v[i])).abs().max_element());
                }
            }
        }
        assert!(largest < 0.1 * SQUARE_ERROR, "{largest}");
    }
}
