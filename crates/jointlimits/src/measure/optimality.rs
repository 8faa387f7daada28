//! Optimality: how much farther a limit's projection lands than the nearest allowed rotation,
//! found by brute force with nothing but the limit's membership test.
//!
//! Distances are rotation angles (`2·acos|q₁·q₂|`, the geodesic on SO(3)), the same for every
//! kind, so the gap also shows the price of a kind's own metric: full-space shapes project in
//! scaled angle-axis coordinates and swing-twist kinds in swing and twist, which are close to the
//! rotation angle near the reference and drift from it far away. A ball around the reference is
//! the same in every metric, and its gap is 0.
//!
//! The brute force starts from the nearest members of a pool of allowed rotations (drawn from
//! the limit, never from the projection being judged), walks straight towards the input until it
//! leaves the allowed set (bisection), and then slides along the boundary with a pattern search:
//! steps about 26 axes, each followed by the walk towards the input, halving the step when none
//! gets nearer. It returns an allowed rotation, so its distance is an upper bound of the true
//! nearest distance; the tests check it against analytic nearest points.

use glam::{Quat, Vec3};
use rayon::prelude::*;

use crate::contract::{LimitContext, RotationLimit};
use crate::rotation::{angle_between, from_scaled_angle_axis};

/// Bisection steps of a walk towards the input (resolution `2⁻²⁴` of the walk).
const WALK_STEPS: usize = 24;

/// The pattern search's first and last step, radians.
const FIRST_STEP: f32 = 0.25;
const LAST_STEP: f32 = 2e-5;

/// Pool members a search starts from.
const STARTS: usize = 3;

/// The 26 directions to the neighbours of a cube's centre, unit length.
fn pattern() -> Vec<Vec3> {
    let mut directions = Vec::with_capacity(26);
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                if (x, y, z) != (0, 0, 0) {
                    directions.push(Vec3::new(x as f32, y as f32, z as f32).normalize());
                }
            }
        }
    }
    directions
}

/// The allowed rotation farthest along the geodesic from the allowed `start` towards `target`
/// that bisection finds (`target` itself when it is allowed).
fn walk_towards<L: RotationLimit>(limit: &L, start: Quat, target: Quat) -> Quat {
    let target = if start.dot(target) < 0.0 {
        -target
    } else {
        target
    };
    if limit.contains(target, &LimitContext::NONE) {
        return target;
    }
    let (mut allowed, mut refused) = (0.0f32, 1.0f32);
    for _ in 0..WALK_STEPS {
        let middle = 0.5 * (allowed + refused);
        if limit.contains(start.slerp(target, middle), &LimitContext::NONE) {
            allowed = middle;
        } else {
            refused = middle;
        }
    }
    if allowed == 0.0 {
        start
    } else {
        start.slerp(target, allowed).normalize()
    }
}

/// An allowed rotation as near to `input` as a search from the allowed rotations of `pool` finds
/// (module docs), or `None` when the pool holds no allowed rotation.
///
/// ```
/// use glam::{Quat, Vec3};
/// use jointlimits::authored::ConeLimit;
/// use jointlimits::measure::optimality::brute_force_nearest;
/// use jointlimits::rotation::angle_between;
/// use jointlimits::TwistRange;
///
/// let cone = ConeLimit {
///     twist_axis: Vec3::Z,
///     max_swing: 0.5,
///     twist: TwistRange { min: -3.14, max: 3.14 },
/// };
/// let input = Quat::from_rotation_x(1.5);
/// let nearest = brute_force_nearest(&cone, input, &[Quat::IDENTITY]).unwrap();
/// assert!((angle_between(nearest, input) - 1.0).abs() < 1e-3);
/// ```
pub fn brute_force_nearest<L: RotationLimit>(
    limit: &L,
    input: Quat,
    pool: &[Quat],
) -> Option<Quat> {
    let mut starts: Vec<(f32, Quat)> = pool
        .iter()
        .filter(|&&q| limit.contains(q, &LimitContext::NONE))
        .map(|&q| (angle_between(q, input), q))
        .collect();
    let count = STARTS.min(starts.len());
    if count == 0 {
        return None;
    }
    starts.select_nth_unstable_by(count - 1, |a, b| a.0.total_cmp(&b.0));
    starts.truncate(count);
    let pattern = pattern();
    starts
        .into_iter()
        .map(|(_, start)| {
            let mut best = walk_towards(limit, start, input);
            let mut best_distance = angle_between(best, input);
            let mut step = FIRST_STEP;
            while step > LAST_STEP && best_distance > 0.0 {
                let mut improved = false;
                for &direction in &pattern {
                    let moved = (from_scaled_angle_axis(direction * step) * best).normalize();
                    if !limit.contains(moved, &LimitContext::NONE) {
                        continue;
                    }
                    let candidate = walk_towards(limit, moved, input);
                    let distance = angle_between(candidate, input);
                    if distance < best_distance {
                        (best, best_distance) = (candidate, distance);
                        improved = true;
                    }
                }
                if !improved {
                    step *= 0.5;
                }
            }
            (best_distance, best)
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, best)| best)
}

/// The projection gap of a limit over a set of inputs outside it.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Optimality {
    /// Inputs that were outside the limit (the ones measured).
    pub inputs: usize,
    /// Mean of `max(0, angle(input, projection) − angle(input, brute-force nearest))`, radians.
    pub mean_gap: f64,
    /// The largest such gap, radians.
    pub max_gap: f64,
    /// Projections the limit itself does not allow (a broken contract; should be 0).
    pub projections_not_allowed: usize,
}

/// Measures the projection gap (module docs) of `limit` on the `inputs` it does not allow.
/// `pool` holds rotations to start the brute force from (any; the allowed ones are used), and the
/// projections of the other inputs join it.
pub fn optimality<L: RotationLimit + Sync>(
    limit: &L,
    inputs: &[Quat],
    pool: &[Quat],
) -> Optimality {
    let outside: Vec<(Quat, Quat)> = inputs
        .iter()
        .map(|&q| (q, limit.nearest(q, &LimitContext::NONE)))
        .filter(|(_, limited)| !limited.inside)
        .map(|(q, limited)| (q, limited.relative))
        .collect();
    let allowed_pool: Vec<Quat> = pool
        .iter()
        .copied()
        .filter(|&q| limit.contains(q, &LimitContext::NONE))
        .collect();
    let gaps: Vec<(f64, bool)> = outside
        .par_iter()
        .enumerate()
        .map(|(index, &(input, projection))| {
            let allowed = limit.contains(projection, &LimitContext::NONE);
            // Every other input's projection may start the search; this one's may not.
            let others = outside
                .iter()
                .enumerate()
                .filter(|&(other, _)| other != index)
                .map(|(_, &(_, p))| p);
            let candidates: Vec<Quat> = allowed_pool.iter().copied().chain(others).collect();
            let projected = f64::from(angle_between(projection, input));
            let gap = match brute_force_nearest(limit, input, &candidates) {
                Some(nearest) => projected - f64::from(angle_between(nearest, input)),
                None => 0.0,
            };
            (gap.max(0.0), allowed)
        })
        .collect();
    let inputs = gaps.len();
    Optimality {
        inputs,
        mean_gap: gaps.iter().map(|g| g.0).sum::<f64>() / inputs.max(1) as f64,
        max_gap: gaps.iter().map(|g| g.0).fold(0.0, f64::max),
        projections_not_allowed: gaps.iter().filter(|g| !g.1).count(),
    }
}
