//! Analytic two-bone IK (upper and lower limb) with a pole vector.

use glam::Vec3;

use super::chain::Chain;
use super::progress::{IkOptions, IkReport, StopReason};
use super::solve::{Solver, solve};
use crate::rotation::{rotation_about, rotation_between};

/// Places the end of a two-joint `chain` (upper joint, lower joint, end) on `target` in closed
/// form, with the bend plane turned toward `options.pole` (a world direction from the upper joint)
/// when one is given.
///
/// With upper bone `l₁`, lower bone `l₂` and `d = |target − a|` clamped to `[|l₁−l₂|, l₁+l₂]`, the
/// law of cosines gives the lower joint's interior angle `β = acos((l₁² + l₂² − d²) / 2l₁l₂)`:
/// the lower joint turns the end about the bend axis until the angle is `β`, the upper joint then
/// turns `end − a` onto `target − a` by the shortest arc, and finally twists about `target − a` to
/// bring the middle joint to the pole's side.
///
/// With limits, both joints are then projected onto their limits; if that moved the end off the
/// target, CCD with the limits inside continues from there for the remaining iterations, so the
/// end gets as close as the limits allow. Returns [`StopReason::Stalled`] for a chain that does not
/// have exactly two joints or a non-finite target, leaving it untouched.
pub fn solve_two_bone(chain: &mut Chain, target: Vec3, options: &IkOptions) -> IkReport {
    if !target.is_finite() {
        return IkReport::untouched(f32::INFINITY);
    }
    if chain.len() != 2 {
        return IkReport::untouched(chain.end_effector().distance(target));
    }
    let (l1, l2) = (chain.lengths()[0], chain.lengths()[1]);
    let [a, b, c] = [0, 1, 2].map(|i| chain.positions()[i]);
    let reach = (target - a).length();
    let slack = 1e-6 * (l1 + l2);
    let d = reach.clamp((l1 - l2).abs() + slack, l1 + l2 - slack);

    // Interior angle at the lower joint, now and wanted.
    let (to_upper, to_end) = (a - b, c - b);
    let now = to_upper.angle_between(to_end);
    let wanted = ((l1 * l1 + l2 * l2 - d * d) / (2.0 * l1 * l2))
        .clamp(-1.0, 1.0)
        .acos();
    let pole = options.pole.filter(|p| p.is_finite() && *p != Vec3::ZERO);
    // Turning `to_end` about `to_end × to_upper` closes the angle; a straight limb bends toward the
    // pole (or any side, which the pole step then corrects).
    let bend_axis = to_end
        .cross(to_upper)
        .try_normalize()
        .or_else(|| pole.and_then(|p| to_end.cross(p).try_normalize()))
        .unwrap_or_else(|| to_end.any_orthonormal_vector());
    if now.is_finite() {
        chain.turn_joint(1, rotation_about(bend_axis, now - wanted), false);
        chain.update();
    }
    let end = chain.end_effector();
    chain.turn_joint(0, rotation_between(end - a, target - a), false);
    chain.update();

    if let (Some(pole), Some(axis)) = (pole, (target - a).try_normalize()) {
        let middle = chain.positions()[1] - a;
        let flat_middle = middle - axis * middle.dot(axis);
        let flat_pole = pole - axis * pole.dot(axis);
        if flat_middle.length_squared() > 1e-12 && flat_pole.length_squared() > 1e-12 {
            let angle = flat_middle.angle_between(flat_pole);
            let sign = axis.dot(flat_middle.cross(flat_pole)).signum();
            chain.turn_joint(0, rotation_about(axis, sign * angle), false);
            chain.update();
        }
    }

    chain.limit_all(options.use_limits);
    let distance = chain.end_effector().distance(target);
    if distance <= options.tolerance || options.max_iterations <= 1 {
        let stop = if distance <= options.tolerance {
            StopReason::Reached
        } else {
            StopReason::Iterations
        };
        return IkReport {
            iterations: 1,
            distance,
            stop,
            escapes: 0,
        };
    }
    let refine = IkOptions {
        max_iterations: options.max_iterations - 1,
        ..*options
    };
    let mut report = solve(chain, target, Solver::Ccd, &refine);
    report.iterations += 1;
    report
}
