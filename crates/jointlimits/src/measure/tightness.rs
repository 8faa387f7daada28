//! Tightness: how much of the space of rotations a limit allows, by Monte Carlo over uniformly
//! random inputs, through the contract's membership test only (so it measures what runtime does).
//!
//! - **Rotation acceptance**: the share of Haar-random rotations allowed. A limit that allows
//!   everything scores 1; the natural range of a human knee scores a few percent.
//! - **Direction acceptance**: the share of uniformly random bone directions `d` that some allowed
//!   rotation reaches, `∃t: swing(b→d)·twist(b, t)` allowed, with `b` the bone axis. For a cone of
//!   half-angle θ around `b` it is the cap's share of the sphere, `(1 − cos θ)/2`.
//!
//! Twists are tried at [`TWIST_STEPS`] evenly spaced angles starting at 0, so a direction whose
//! only allowed twists form an interval narrower than `2π / TWIST_STEPS` may be missed.

use crate::golden_section::golden_section;
use std::f32::consts::TAU;

use glam::{Quat, Vec3};
use rayon::prelude::*;

use super::random::SeededRandom;
use crate::contract::{LimitContext, RotationLimit};
use crate::rotation::{rotation_about, rotation_between_units, swing_and_twist_angle};
use crate::twist::TwistRange;

/// How many twist angles are tried per direction (every 7.5°).
pub const TWIST_STEPS: usize = 48;

/// Inputs per parallel chunk, each from its own seeded generator so results do not depend on how
/// many threads run.
const CHUNK: usize = 4096;

/// The seeds of the chunks of `samples` inputs drawn from `seed`.
fn chunk_seeds(seed: u64, samples: usize) -> Vec<(u64, usize)> {
    let mut seeds = SeededRandom::new(seed);
    (0..samples.div_ceil(CHUNK))
        .map(|chunk| (seeds.next_u64(), CHUNK.min(samples - chunk * CHUNK)))
        .collect()
}

/// The share of `samples` Haar-random relative rotations (fixed `seed`) that `limit` allows.
pub fn rotation_acceptance<L: RotationLimit + Sync>(limit: &L, samples: usize, seed: u64) -> f64 {
    random_rotation_share(samples, seed, |q| limit.contains(q, &LimitContext::NONE))
}

/// The share of `samples` Haar-random rotations (fixed `seed`) for which `holds` is true; 0 for
/// no samples. The same rotations whatever the number of threads.
pub(crate) fn random_rotation_share(
    samples: usize,
    seed: u64,
    holds: impl Fn(glam::Quat) -> bool + Sync,
) -> f64 {
    if samples == 0 {
        return 0.0;
    }
    let allowed: usize = chunk_seeds(seed, samples)
        .into_par_iter()
        .map(|(chunk_seed, count)| {
            let mut random = SeededRandom::new(chunk_seed);
            (0..count).filter(|_| holds(random.rotation())).count()
        })
        .sum();
    allowed as f64 / samples as f64
}

/// The relative rotation that swings the bone axis `axis` onto `direction` (shortest arc) and
/// then twists by `twist` about it: `swing(axis→direction) · rotation(axis, twist)`.
#[inline]
pub fn pointing(axis: Vec3, direction: Vec3, twist: f32) -> Quat {
    rotation_between_units(axis, direction) * rotation_about(axis, twist)
}

/// The `step`-th of [`TWIST_STEPS`] twist angles: 0 first, then alternately either side, so an
/// early exit finds small twists first.
#[inline]
fn twist_at(step: usize, steps: usize) -> f32 {
    let k = step.div_ceil(2) as f32;
    let sign = if step % 2 == 1 { 1.0 } else { -1.0 };
    sign * k * TAU / steps as f32
}

/// Golden-section steps refining the least-violating twist (resolution `step · 0.618¹⁶`).
const REFINE_STEPS: usize = 16;

/// Whether a twist the evenly spaced steps all miss lets the bone point along `direction`:
/// the twist of the limit's nearest allowed rotation to the untwisted pointing, and the twist
/// minimising the violation near `best_twist` (the least-violating step, `step` wide), found by
/// golden-section search. Narrow twist ranges (a wrist's, a thin full-space shape's) lie there.
fn twist_between_steps<L: RotationLimit>(
    limit: &L,
    axis: Vec3,
    direction: Vec3,
    best_twist: f32,
    step: f32,
) -> bool {
    let allowed =
        |twist: f32| limit.contains(pointing(axis, direction, twist), &LimitContext::NONE);
    let nearest = limit.nearest(pointing(axis, direction, 0.0), &LimitContext::NONE);
    if allowed(swing_and_twist_angle(nearest.relative, axis).1) {
        return true;
    }
    let violation = |twist: f32| {
        limit
            .nearest(pointing(axis, direction, twist), &LimitContext::NONE)
            .violation
    };
    let bracket = (best_twist - step, best_twist + step);
    let (twist, _) = golden_section(violation, bracket, REFINE_STEPS, |v| v == 0.0);
    allowed(twist)
}

/// The twist angles allowed among `steps` evenly spaced ones, and, when none is, the
/// least-violating one (the inside test alone decides the count: a kind's nearest answer can
/// cost a search).
fn twists_allowed<L: RotationLimit>(
    limit: &L,
    axis: Vec3,
    direction: Vec3,
    steps: usize,
    stop_at_first: bool,
) -> (usize, f32) {
    let mut allowed = 0;
    for step in 0..steps {
        if limit.contains(
            pointing(axis, direction, twist_at(step, steps)),
            &LimitContext::NONE,
        ) {
            allowed += 1;
            if stop_at_first {
                break;
            }
        }
    }
    if allowed > 0 {
        return (allowed, 0.0);
    }
    let (mut best, mut best_violation) = (0.0, f32::INFINITY);
    for step in 0..steps {
        let twist = twist_at(step, steps);
        let limited = limit.nearest(pointing(axis, direction, twist), &LimitContext::NONE);
        if limited.violation < best_violation {
            (best, best_violation) = (twist, limited.violation);
        }
    }
    (0, best)
}

/// The share of `steps` evenly spaced twists about the unit bone `axis` with which the bone
/// pointing along the unit `direction` is allowed: 0 when the direction cannot be reached, 1
/// when every twist is allowed there. A direction reached only at twists between the steps
/// counts as one step.
pub fn allowed_twist_share<L: RotationLimit>(
    limit: &L,
    axis: Vec3,
    direction: Vec3,
    steps: usize,
) -> f32 {
    if let Some(runs) = limit.twists_along(axis, direction) {
        return share_of_steps_in(&runs, steps);
    }
    let (allowed, best) = twists_allowed(limit, axis, direction, steps, false);
    let step = TAU / steps as f32;
    if allowed == 0 && twist_between_steps(limit, axis, direction, best, step) {
        return 1.0 / steps as f32;
    }
    allowed as f32 / steps as f32
}

/// The share of `steps` evenly spaced twists that fall within `runs` of allowed twists (any
/// turn), counting one step where runs hold only twists between the steps.
fn share_of_steps_in(runs: &[TwistRange], steps: usize) -> f32 {
    let allowed = (0..steps)
        .filter(|&step| {
            let twist = twist_at(step, steps);
            runs.iter().any(|run| run.measure(twist).distance == 0.0)
        })
        .count();
    allowed.max(usize::from(!runs.is_empty())) as f32 / steps as f32
}

/// Whether some twist (of [`TWIST_STEPS`], or one between them found as above) lets the bone
/// point along `direction`.
pub fn reaches_direction<L: RotationLimit>(limit: &L, axis: Vec3, direction: Vec3) -> bool {
    if let Some(reaches) = limit.reaches_direction(axis, direction) {
        return reaches;
    }
    reaches_by_twists(limit, axis, direction)
}

/// [`reaches_direction`] by trying the twists, whatever the kind.
fn reaches_by_twists<L: RotationLimit>(limit: &L, axis: Vec3, direction: Vec3) -> bool {
    let (allowed, best) = twists_allowed(limit, axis, direction, TWIST_STEPS, true);
    allowed > 0 || twist_between_steps(limit, axis, direction, best, TAU / TWIST_STEPS as f32)
}

/// The share of `samples` uniformly random bone directions (fixed `seed`) that `limit` lets the
/// bone with unit `axis` point along, with some twist.
pub fn direction_acceptance<L: RotationLimit + Sync>(
    limit: &L,
    axis: Vec3,
    samples: usize,
    seed: u64,
) -> f64 {
    if samples == 0 {
        return 0.0;
    }
    let reached: usize = chunk_seeds(seed, samples)
        .into_par_iter()
        .map(|(chunk_seed, count)| {
            let mut random = SeededRandom::new(chunk_seed);
            (0..count)
                .filter(|_| reaches_direction(limit, axis, random.direction()))
                .count()
        })
        .sum();
    reached as f64 / samples as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables and reach cones answer whether a direction is reached from their stored
    /// directions (a search over twists took about 1.5 ms per unreachable direction on a
    /// table, each step a proven projection): the same answer as the search, except within a
    /// hair of the boundary.
    #[test]
    fn kinds_that_store_their_directions_reach_what_the_twist_search_reaches() {
        use crate::reach_cone::ReachConeLimit;
        use crate::table::TableLimit;
        fn agree<L: RotationLimit>(limit: &L, axis: Vec3) {
            let mut random = SeededRandom::new(4);
            let (mut reached, mut tested) = (0, 0);
            for _ in 0..400 {
                let d = random.direction();
                // A direction a hair outside a table is left to the inside test.
                let Some(fast) = limit.reaches_direction(axis, d) else {
                    continue;
                };
                tested += 1;
                reached += usize::from(fast);
                if fast != reaches_by_twists(limit, axis, d) {
                    // Only where a step of 1e-3 rad flips the direct answer.
                    let nudged = (0..8).any(|_| {
                        let moved = (d + 1e-3 * random.perpendicular(d)).normalize();
                        limit.reaches_direction(axis, moved) != Some(fast)
                    });
                    assert!(nudged, "{} at {d}: direct {fast}", limit.label());
                }
            }
            assert!(reached > 0 && reached < tested, "{}", limit.label());
            // About another axis there is no direct answer.
            assert_eq!(
                limit.reaches_direction(axis.any_orthonormal_vector(), axis),
                None
            );
        }
        for table in TableLimit::examples() {
            agree(&table, table.twist_axis);
        }
        for cone in ReachConeLimit::examples() {
            agree(&cone, cone.twist_axis);
        }
    }

    /// Tables answer which twists are allowed along a direction from its stored twist range (a
    /// search over twists runs a proven projection per twist near a half swing: a picture of a
    /// 128² table's swings took two minutes): each step's twist is in a run exactly when the
    /// inside test allows it, except within a hair of a run's end or of the boundary.
    #[test]
    fn tables_allow_the_twists_the_inside_test_allows() {
        use crate::table::TableLimit;
        let steps = 48;
        for table in TableLimit::examples() {
            let axis = table.twist_axis;
            let mut random = SeededRandom::new(6);
            let (mut allowed, mut tested) = (0, 0);
            for _ in 0..300 {
                let d = random.direction();
                // Near a half swing the inside test also accepts the rotations other splits
                // allow: those the stored range does not hold.
                if d.angle_between(-axis) < 0.3 {
                    continue;
                }
                // A direction a hair outside is left to the inside test (no direct answer).
                let Some(runs) = table.twists_along(axis, d) else {
                    continue;
                };
                let near_edge = (0..8).any(|_| {
                    let moved = (d + 1e-3 * random.perpendicular(d)).normalize();
                    table.twists_along(axis, moved).map(|r| r.len()) != Some(runs.len())
                });
                for step in 0..steps {
                    let twist = twist_at(step, steps);
                    let in_run = runs.iter().any(|r| r.measure(twist).distance == 0.0);
                    let near_end = runs.iter().any(|r| r.measure(twist).distance < 1e-3)
                        && runs.iter().any(|r| {
                            r.measure(twist + 1e-3).distance != r.measure(twist - 1e-3).distance
                        });
                    let by_test = table.contains(pointing(axis, d, twist), &LimitContext::NONE);
                    tested += 1;
                    allowed += usize::from(by_test);
                    assert!(
                        in_run == by_test || near_end || near_edge,
                        "{} at {d}, twist {twist}: runs {runs:?}, inside test {by_test}",
                        table.label()
                    );
                }
            }
            assert!(allowed > 0 && allowed < tested, "{}", table.label());
            assert_eq!(
                table.twists_along(axis.any_orthonormal_vector(), axis),
                None
            );
        }
    }

    use crate::authored::ConeLimit;
    use crate::twist::TwistRange;

    #[test]
    fn pointing_points_the_bone_and_twists_about_it() {
        let axis = Vec3::Y;
        let direction = Vec3::new(1.0, 1.0, 0.0).normalize();
        for twist in [0.0, 1.0, -2.5] {
            let q = pointing(axis, direction, twist);
            assert!((q * axis - direction).length() < 1e-5);
        }
    }

    #[test]
    fn twist_steps_start_at_zero_and_cover_the_turn_once() {
        let mut twists: Vec<f32> = (0..8).map(|s| twist_at(s, 8)).collect();
        assert_eq!(twists[0], 0.0);
        twists.sort_by(f32::total_cmp);
        for pair in twists.windows(2) {
            assert!((pair[1] - pair[0] - TAU / 8.0).abs() < 1e-5);
        }
    }

    #[test]
    fn a_twist_free_cone_reaches_its_cap_whatever_the_twist() {
        let cone = ConeLimit {
            twist_axis: Vec3::Z,
            max_swing: 1.0,
            twist: TwistRange {
                min: -0.5,
                max: 0.5,
            },
        };
        let inside = Vec3::new(0.5f32.sin(), 0.0, 0.5f32.cos());
        let outside = Vec3::new(1.5f32.sin(), 0.0, 1.5f32.cos());
        assert!(reaches_direction(&cone, Vec3::Z, inside));
        assert!(!reaches_direction(&cone, Vec3::Z, outside));
        // Twists in [−0.5, 0.5] of the 48 steps 2π/48 apart: 0 and ±1..±3 steps.
        let share = allowed_twist_share(&cone, Vec3::Z, inside, 48);
        assert!((share - 7.0 / 48.0).abs() < 1e-6, "{share}");
    }

    #[test]
    fn narrow_twist_ranges_between_the_steps_are_found() {
        // Twists in [0.05, 0.06] only: no evenly spaced step lands there.
        let cone = ConeLimit {
            twist_axis: Vec3::Z,
            max_swing: 1.0,
            twist: TwistRange {
                min: 0.05,
                max: 0.06,
            },
        };
        let inside = Vec3::new(0.5f32.sin(), 0.0, 0.5f32.cos());
        assert!(reaches_direction(&cone, Vec3::Z, inside));
        assert!(allowed_twist_share(&cone, Vec3::Z, inside, 48) > 0.0);
        let outside = Vec3::new(1.5f32.sin(), 0.0, 1.5f32.cos());
        assert!(!reaches_direction(&cone, Vec3::Z, outside));
    }
}
