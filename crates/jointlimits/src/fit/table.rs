//! Fitting a lookup table to a joint's motion.
//!
//! 1. Each frame's relative rotation gives the bone direction `d = q·axis` and its twist about
//!    the axis (taken in (−π, π], so clips stored in either cover agree). Frames are gathered
//!    per grid cell: a representative direction and the smallest and largest twist seen there.
//! 2. **Allowed directions**: the vertex values are the angle to the nearest representative minus
//!    a radius `r = padding + 1.5 cells`: the signed distance to the union of caps of radius `r`
//!    around the data. So every frame is inside, gaps narrower than `2r` close, and concave and
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
use crate::rotation::swing_and_twist_angle;
use crate::table::swing_set::{angle, map_around};
use crate::table::{TableLimit, TableValues};
use crate::twist::TwistRange;

/// How far inside the boundary stress falls to zero, radians (20°).
pub const STRESS_DEPTH: f32 = 0.35;

/// The break margin a fitted table gets everywhere, radians (15°).
pub const BREAK_MARGIN: f32 = 0.26;

/// The resolution `--shape table` uses unless told otherwise.
pub const DEFAULT_RESOLUTION: u32 = 128;

/// The data of one grid cell.
struct CellData {
    direction: Vec3,
    twist: TwistRange,
}

/// Fits a table of `resolution` cells per side about `twist_axis` to the `relative` rotations,
/// with `padding` radians of room for directions and twists.
pub fn fit_table(
    relative: &[Quat],
    twist_axis: Vec3,
    padding: f64,
    resolution: usize,
) -> Result<TableLimit, FitError> {
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
        let (swing, twist) = swing_and_twist_angle(q, twist_axis);
        let Some(direction) = (swing * twist_axis).try_normalize() else {
            continue;
        };
        let twist = wrap(twist);
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
    let data: Vec<CellData> = cells.into_iter().flatten().collect();
    let cell_angle = (4.0 * PI).sqrt() / n as f32;
    let diagonal = std::f32::consts::SQRT_2 * 2.0 * cell_angle;
    let padding = padding.max(0.0) as f32;
    let radius = padding + 1.5 * diagonal;
    let twist_padding = padding + diagonal;
    Ok(TableLimit::from_fn(twist_axis, resolution, |vertex| {
        let (mut nearest, mut min, mut max) = (PI, f32::INFINITY, f32::NEG_INFINITY);
        for cell in &data {
            let a = angle(vertex, cell.direction);
            nearest = nearest.min(a);
            min = min.min(cell.twist.min + a);
            max = max.max(cell.twist.max - a);
        }
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
    }))
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
    }
}
