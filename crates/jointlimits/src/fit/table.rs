//! Fitting a lookup table to a joint's motion.
//!
//! 1. Each frame's relative rotation gives the bone direction `d = q·axis` and its twist about
//!    the axis (taken in (−π, π], so clips stored in either cover agree). Frames are gathered
//!    per grid cell: a representative direction and the smallest and largest twist seen there.
//! 2. **Allowed directions**: the vertex values are the angle to the nearest representative minus
//!    a radius `r = padding + 1.5 d`, `d = 2√2·s` the widest a cell's diagonal can be (cells of
//!    side `s = √(4π)/N` on the sphere stretch up to 2:1): `padding + 15/N` radians, 6.7° at 128²
//!    and 27° at 32². It is the signed distance to the union of caps of radius `r` around the
//!    data. So every frame is inside, gaps narrower than `2r` close, and concave and
//!    larger-than-hemisphere regions keep their shape ([`super::super::table::SwingSet`]).
//! 3. **Twist range**: a Lipschitz envelope of the cells' ranges,
//!    `min(v) = min_c (τmin_c + ∠(v, d_c)) − p`, `max(v) = max_c (τmax_c − ∠(v, d_c)) + p`
//!    with `p` the padding plus a cell's diagonal: every frame's twist fits at its direction,
//!    the range narrows smoothly (by at most 1 rad of twist per rad of swing) away from the data
//!    rather than in bands, and it is defined everywhere, so cells without samples need no
//!    painting. Where the envelope crosses (far from the data) both ends take its middle.
//! 4. **Stress** rises from 0 at [`STRESS_DEPTH`] inside the boundary to 1 on it; the **break
//!    margin** is [`BREAK_MARGIN`] everywhere: defaults, not learned from the motion.

use std::f32::consts::PI;

use glam::{Quat, Vec3};

use super::FitError;
use super::swing_twist_margin::SwingTwistPadding;
use crate::rotation::swing_and_twist_angle;
use crate::table::swing_set::{angle, map_around};
use crate::table::{TableLimit, TableValues};
use crate::twist::TwistRange;

/// How far inside the boundary stress falls to zero, radians (20°).
pub const STRESS_DEPTH: f32 = std::f32::consts::PI / 9.0;

/// The break margin a fitted table gets everywhere, radians (15°).
pub const BREAK_MARGIN: f32 = std::f32::consts::PI / 12.0;

/// The resolution `--shape table` uses unless told otherwise.
pub const DEFAULT_RESOLUTION: u32 = 128;

/// The data of one grid cell.
struct CellData {
    direction: Vec3,
    twist: TwistRange,
}

/// A joint's motion gathered per grid cell (module docs, step 1): what a table is fitted from,
/// at any padding.
pub struct TableSamples {
    twist_axis: Vec3,
    resolution: usize,
    /// The sampled cells, in the order of their groups.
    cells: Vec<CellData>,
    /// The cells gathered in nearby groups, so that a vertex's envelope visits only the groups
    /// that can change it.
    groups: Vec<CellGroup>,
}

/// Sampled cells whose directions lie near one another, with what bounds their contribution to
/// any vertex's envelope: every direction of the group lies within `radius` of `centre`, so it is
/// at least `∠(v, centre) − radius` from a vertex `v` (the triangle inequality on the sphere).
struct CellGroup {
    centre: Vec3,
    radius: f32,
    /// The smallest twist minimum of its cells.
    lowest_min: f32,
    /// The largest twist maximum of its cells.
    highest_max: f32,
    /// Its cells' indices in [`TableSamples::cells`].
    cells: std::ops::Range<usize>,
}

/// Rounding allowed for in the groups' angle bounds (the angles are accurate to a few 1e-7).
const GROUP_BOUND_SLACK: f32 = 1e-5;

/// The groups of `cells` (reordered so each group's cells are contiguous): cells of the same
/// square of a coarser grid, its side chosen so that groups hold about as many cells as there are
/// groups (`√N` each), which balances the work of bounding the groups and of visiting one.
fn grouped(
    cells: Vec<CellData>,
    map: &crate::table::octahedral::OctahedralMap,
    resolution: usize,
) -> (Vec<CellData>, Vec<CellGroup>) {
    let per_side = ((cells.len() as f64).powf(0.25).round() as usize).clamp(1, resolution);
    let side = resolution.div_ceil(per_side);
    let mut keyed: Vec<(usize, CellData)> = cells
        .into_iter()
        .map(|cell| {
            (
                crate::table::boundary::cell_of(side, map.to_square(cell.direction)),
                cell,
            )
        })
        .collect();
    keyed.sort_by_key(|(key, _)| *key);
    let mut groups = Vec::new();
    let mut start = 0;
    while start < keyed.len() {
        let key = keyed[start].0;
        let end = start + keyed[start..].iter().take_while(|(k, _)| *k == key).count();
        let members = &keyed[start..end];
        let sum: Vec3 = members.iter().map(|(_, c)| c.direction).sum();
        let centre = sum.try_normalize().unwrap_or(members[0].1.direction);
        let radius = members
            .iter()
            .map(|(_, c)| angle(centre, c.direction))
            .fold(0.0, f32::max);
        groups.push(CellGroup {
            centre,
            radius: radius + GROUP_BOUND_SLACK,
            lowest_min: members
                .iter()
                .map(|(_, c)| c.twist.min)
                .fold(f32::INFINITY, f32::min),
            highest_max: members
                .iter()
                .map(|(_, c)| c.twist.max)
                .fold(f32::NEG_INFINITY, f32::max),
            cells: start..end,
        });
        start = end;
    }
    (keyed.into_iter().map(|(_, c)| c).collect(), groups)
}

impl TableSamples {
    /// The `relative` rotations gathered on a grid of `resolution` cells per side about the unit
    /// `twist_axis`.
    pub fn gather(
        relative: &[Quat],
        twist_axis: Vec3,
        resolution: usize,
    ) -> Result<TableSamples, FitError> {
        if relative.is_empty() {
            return Err(FitError::NoSamples);
        }
        if let Some(index) = relative.iter().position(|q| !q.is_finite()) {
            return Err(FitError::NonFinite { index });
        }
        let map = map_around(twist_axis);
        let n = resolution;
        let mut cells: Vec<Option<CellData>> = (0..n * n).map(|_| None).collect();
        for &q in relative {
            let Some((direction, twist)) = direction_and_twist(q, twist_axis) else {
                continue;
            };
            let cell = crate::table::boundary::cell_of(n, map.to_square(direction));
            let slot = cells[cell].get_or_insert(CellData {
                direction,
                twist: TwistRange {
                    min: twist,
                    max: twist,
                },
            });
            slot.twist.min = slot.twist.min.min(twist);
            slot.twist.max = slot.twist.max.max(twist);
        }
        let (cells, groups) = grouped(cells.into_iter().flatten().collect(), &map, resolution);
        Ok(TableSamples {
            twist_axis,
            resolution,
            cells,
            groups,
        })
    }

    /// The angle of a cell of the grid, radians (the side of a cell of equal area).
    fn cell_angle(&self) -> f32 {
        (4.0 * PI).sqrt() / self.resolution as f32
    }

    /// How far the caps reach beyond the padding: a cell and a half's diagonal, so every
    /// sample's direction is inside however the cells interpolate.
    fn cap_slack(&self) -> f32 {
        1.5 * self.cell_diagonal()
    }

    /// How far each twist bound moves beyond the padding: a cell's diagonal.
    fn cell_diagonal(&self) -> f32 {
        std::f32::consts::SQRT_2 * 2.0 * self.cell_angle()
    }

    /// At direction `v`: the angle to the nearest sampled direction, and the twist envelope
    /// (module docs, steps 2 and 3) before any padding.
    ///
    /// The nearest group is visited first, then each other group whose bound could lower the
    /// nearest angle or the envelope's minimum, or raise its maximum: the same minima and maxima
    /// as over every cell, from a few groups' cells.
    fn envelope_at(&self, v: Vec3) -> (f32, f32, f32) {
        let mut envelope = (PI, f32::INFINITY, f32::NEG_INFINITY);
        let bounds: Vec<f32> = self
            .groups
            .iter()
            .map(|g| (angle(v, g.centre) - g.radius).max(0.0))
            .collect();
        let Some(first) = (0..bounds.len()).min_by(|&a, &b| bounds[a].total_cmp(&bounds[b])) else {
            return envelope;
        };
        self.visit(&self.groups[first], v, &mut envelope);
        for (i, (group, &away)) in self.groups.iter().zip(&bounds).enumerate() {
            let (nearest, min, max) = envelope;
            if i != first
                && (away < nearest
                    || group.lowest_min + away < min
                    || group.highest_max - away > max)
            {
                self.visit(group, v, &mut envelope);
            }
        }
        envelope
    }

    /// Folds the cells of `group` into `envelope` at direction `v` ([`TableSamples::envelope_at`]).
    fn visit(&self, group: &CellGroup, v: Vec3, envelope: &mut (f32, f32, f32)) {
        for cell in &self.cells[group.cells.clone()] {
            let a = angle(v, cell.direction);
            envelope.0 = envelope.0.min(a);
            envelope.1 = envelope.1.min(cell.twist.min + a);
            envelope.2 = envelope.2.max(cell.twist.max - a);
        }
    }

    /// The table fitted with `padding`.
    pub fn table(&self, padding: SwingTwistPadding) -> TableLimit {
        let radius = padding.swing.max(0.0) as f32 + self.cap_slack();
        let twist_padding = padding.twist.max(0.0) as f32 + self.cell_diagonal();
        TableLimit::from_fn(self.twist_axis, self.resolution, |vertex| {
            let (nearest, min, max) = self.envelope_at(vertex);
            let (mut min, mut max) = (min - twist_padding, max + twist_padding);
            if min > max {
                let middle = 0.5 * (min + max);
                (min, max) = (middle, middle);
            }
            let allowed = nearest - radius;
            TableValues {
                allowed,
                twist: TwistRange { min, max },
                stress: (1.0 + allowed / STRESS_DEPTH).clamp(0.0, 1.0),
                break_margin: BREAK_MARGIN,
            }
        })
    }

    /// The least padding under which the table would allow the relative rotation `q`, as the
    /// exact caps and envelope say (the table interpolates them between vertices, so its answer
    /// differs within about a cell): `None` for a rotation with no bone direction.
    pub fn padding_needed(&self, q: Quat) -> Option<SwingTwistPadding> {
        let (direction, twist) = direction_and_twist(q, self.twist_axis)?;
        let (nearest, min, max) = self.envelope_at(direction);
        // With twist padding `p` the range is `[min − p, max + p]` (its middle when that is
        // empty), on any turn: `p` must reach `max(min − τ, τ − max)` on the best turn `τ`.
        let twist_needed = (-2..=2)
            .map(|turn| {
                let turned = twist + turn as f32 * std::f32::consts::TAU;
                (min - turned).max(turned - max)
            })
            .fold(f32::INFINITY, f32::min);
        Some(SwingTwistPadding {
            swing: f64::from((nearest - self.cap_slack()).max(0.0)),
            twist: f64::from((twist_needed - self.cell_diagonal()).max(0.0)),
        })
    }
}

/// Fits a table of `resolution` cells per side about `twist_axis` to the `relative` rotations,
/// with `padding` radians of room for directions and twists.
pub fn fit_table(
    relative: &[Quat],
    twist_axis: Vec3,
    padding: f64,
    resolution: usize,
) -> Result<TableLimit, FitError> {
    Ok(TableSamples::gather(relative, twist_axis, resolution)?
        .table(SwingTwistPadding::uniform(padding)))
}

/// The bone direction `q·axis` of the relative rotation `q` and its twist about the axis in
/// (−π, π] (so clips stored in either cover agree); `None` where the direction is not finite.
fn direction_and_twist(q: Quat, twist_axis: Vec3) -> Option<(Vec3, f32)> {
    let (swing, twist) = swing_and_twist_angle(q, twist_axis);
    let direction = (swing * twist_axis).try_normalize()?;
    Some((direction, wrap(twist)))
}

/// `twist` in (−π, π].
fn wrap(twist: f32) -> f32 {
    let wrapped = twist - std::f32::consts::TAU * (twist / std::f32::consts::TAU).round();
    if wrapped <= -PI {
        wrapped + std::f32::consts::TAU
    } else {
        wrapped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::{LimitContext, RotationLimit};
    use crate::measure::SeededRandom;

    #[test]
    fn every_sample_is_inside_and_random_rotations_mostly_are_not() {
        let axis = Vec3::Y;
        let mut random = SeededRandom::new(7);
        // A crescent of swings with twist depending on the swing.
        let samples: Vec<Quat> = (0..3000)
            .map(|i| {
                let a = i as f32 * 0.002;
                let swing = Quat::from_axis_angle(
                    Vec3::new(a.cos(), 0.0, a.sin()),
                    0.9 + 0.2 * (7.0 * a).sin(),
                );
                let twist = Quat::from_axis_angle(axis, 0.5 * a.sin() + 0.1 * random.rotation().x);
                swing * twist
            })
            .collect();
        let table = fit_table(&samples, axis, 0.02, 64).unwrap();
        table.validate().unwrap();
        for &q in &samples {
            assert!(table.contains(q, &LimitContext::NONE), "{q}");
            assert!(table.contains(-q, &LimitContext::NONE), "{q}");
        }
        let accepted = (0..5000)
            .filter(|_| table.contains(random.rotation(), &LimitContext::NONE))
            .count();
        assert!(
            accepted < 150,
            "{accepted} of 5000 random rotations accepted"
        );
        // The documented 15° break margin, to the 16-bit lattice a limits file stores it on
        // (180° / 65535), read back from a written file: it had been 14.90°.
        let written: TableLimit =
            serde_json::from_str(&serde_json::to_string(&table).unwrap()).unwrap();
        let margin = written
            .values_at(samples[0] * axis)
            .break_margin
            .to_degrees();
        assert!((margin - 15.0).abs() < 180.0 / 65535.0, "{margin}°");
    }

    #[test]
    fn the_padding_a_rotation_needs_is_the_one_its_table_allows_it_at() {
        let axis = Vec3::Z;
        let mut random = SeededRandom::new(11);
        let samples: Vec<Quat> = (0..2000)
            .map(|i| {
                let a = i as f32 * 0.003;
                let swing =
                    Quat::from_axis_angle(Vec3::new(a.cos(), a.sin(), 0.0), 0.7 + 0.3 * a.sin());
                swing * Quat::from_axis_angle(axis, 0.4 * (2.0 * a).cos())
            })
            .collect();
        let gathered = TableSamples::gather(&samples, axis, 32).unwrap();
        let cell = gathered.cell_angle() as f64;
        let (mut worst_inside, mut worst_outside) = (0.0f64, 0.0f64);
        for _ in 0..200 {
            // Haar-random rotations in either cover, every one of them somewhere outside.
            let q = random.rotation();
            let need = gathered.padding_needed(q).unwrap();
            let table_at =
                |swing: f64, twist: f64| gathered.table(SwingTwistPadding { swing, twist });
            let at = |slack: f64| table_at(need.swing + slack, need.twist + slack);
            if !at(0.0).contains(q, &LimitContext::NONE) {
                // Left out at its own need: by how little, in padding.
                let slack = (1..=40)
                    .map(|k| k as f64 * 0.002)
                    .find(|&s| at(s).contains(q, &LimitContext::NONE));
                worst_inside = worst_inside.max(slack.unwrap_or(f64::INFINITY));
            }
            for (swing, twist) in [
                (need.swing - cell, need.twist + cell),
                (need.swing + cell, need.twist - cell),
            ] {
                if swing >= 0.0
                    && twist >= 0.0
                    && table_at(swing, twist).contains(q, &LimitContext::NONE)
                {
                    worst_outside = worst_outside.max(1.0);
                }
            }
        }
        // The table interpolates the caps and the envelope between vertices: a rotation right at
        // its need may fall outside by a small part of a cell.
        assert!(
            worst_inside <= cell / 2.0,
            "{worst_inside} rad past the need"
        );
        assert_eq!(worst_outside, 0.0, "allowed a cell short of its need");
    }

    #[test]
    fn grouped_envelopes_equal_the_envelope_over_every_cell() {
        let mut random = SeededRandom::new(23);
        let crescent: Vec<Quat> = (0..3000)
            .map(|i| {
                let a = i as f32 * 0.002;
                Quat::from_axis_angle(Vec3::new(a.cos(), 0.0, a.sin()), 0.9)
                    * Quat::from_axis_angle(Vec3::Y, 2.0 * a.sin())
            })
            .collect();
        let haar: Vec<Quat> = (0..3000).map(|_| random.rotation()).collect();
        let one = vec![Quat::from_rotation_x(0.3); 10];
        for (samples, resolution) in [(&crescent, 64), (&haar, 32), (&haar, 128), (&one, 64)] {
            let gathered = TableSamples::gather(samples, Vec3::Y, resolution).unwrap();
            for _ in 0..2000 {
                let v = random.direction();
                let every = gathered.cells.iter().fold(
                    (PI, f32::INFINITY, f32::NEG_INFINITY),
                    |(nearest, min, max), cell| {
                        let a = angle(v, cell.direction);
                        (
                            nearest.min(a),
                            min.min(cell.twist.min + a),
                            max.max(cell.twist.max - a),
                        )
                    },
                );
                assert_eq!(gathered.envelope_at(v), every, "at {v}");
            }
        }
    }
}
