//! Reach cones fitted on real motion capture, whose twist limits vary across the cone: stateless
//! answers are the nearest allowed rotations in the metric `√(α² + δ²)` (a direction with
//! wider twist limits wins where that is nearer in the sum), and streams along slow paths move
//! continuously between their few switches.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::measure::SeededRandom;
use jointlimits::rotation::swing_and_twist_angle;
use jointlimits::{JointLimit, LimitContext, LimitRegion, Limiter, RotationLimit, SkeletonLimits};
use jointlimits_io::{Bvh, read_bvh_file};
use jointlimits_testdata::fixture;
use jointlimits_testdata::sphere_search::{fibonacci_directions, least_cost, twist_gap};

/// The joints checked: the ball joints, where fitted cones are widest and their twist limits
/// vary most.
const JOINTS: [&str; 4] = ["rShldr", "lShldr", "lThigh", "rThigh"];

/// `martial_04` with reach cones fitted to it at the default options (none without the
/// fixture).
fn martial_cones() -> Option<(Bvh, jointlimits::Motion, SkeletonLimits)> {
    let path = fixture("cmu_daz/martial_04.bvh")?;
    let bvh = read_bvh_file(&path).unwrap();
    let motion = bvh.to_motion();
    let options = FitOptions {
        shape: ShapeKind::ReachCone,
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
    Some((bvh, motion, limits))
}

fn cone_of(limit: &JointLimit) -> &jointlimits::reach_cone::ReachConeLimit {
    match &limit.region {
        LimitRegion::ReachCone(cone) => cone,
        other => panic!("{} is a {}", limit.joint, other.kind_name()),
    }
}

/// A brute force of the least `√(α² + δ²)` from (`d`, `twist`) over the cone: the best of
/// 60,000 directions spread evenly over the sphere (a Fibonacci lattice) that the cone holds,
/// polished by a pattern search.
fn brute_force(cone: &jointlimits::reach_cone::ReachCone, d: Vec3, twist: f32) -> f32 {
    least_cost(fibonacci_directions(60_000), |e| {
        cone.contains(e).then(|| {
            let range = cone.twist_limits(e);
            let a = d.angle_between(e);
            (a * a + twist_gap(twist, range.min, range.max).powi(2)).sqrt()
        })
    })
}

#[test]
fn fitted_reach_cone_answers_are_the_nearest_allowed_rotation() {
    let Some((bvh, motion, limits)) = martial_cones() else {
        return;
    };
    let mut random = SeededRandom::new(41);
    let mut worst = 0.0f32;
    for name in JOINTS {
        let limit = limits.joints.iter().find(|j| j.joint == name).unwrap();
        let cone = cone_of(limit);
        let index = bvh.skeleton.find(name).unwrap();
        for k in 0..40 {
            let q = if k % 2 == 0 {
                random.rotation()
            } else {
                let frame = (k * 131) % motion.frame_count();
                let push = Quat::from_axis_angle(random.direction(), 0.5);
                limit.relative(motion.frame_rotations(frame)[index]) * push
            };
            let answer = cone.nearest(q, &LimitContext::NONE);
            if answer.inside {
                continue;
            }
            assert!(
                cone.nearest(answer.relative, &LimitContext::NONE).inside,
                "{name}: the answer for {q} is not allowed"
            );
            let (swing, twist) = swing_and_twist_angle(q, cone.twist_axis);
            let d = (swing * cone.twist_axis).normalize();
            let best = brute_force(&cone.cone, d, twist);
            let gap = answer.violation - best;
            worst = worst.max(gap);
            assert!(
                gap <= 1e-3,
                "{name}: {q} moved {} rad, the brute force finds {best}",
                answer.violation
            );
        }
    }
    eprintln!("largest excess over the brute force: {worst:.2e} rad");
}

/// Slow paths of a thousand steps through the whole space (a twist run round twice while the
/// bone sweeps a great circle, mostly far outside the cone, where several answers are about as
/// near): the limiter's output jumps at a handful of places per path at most (a switch between
/// answers, or a fast move where a basin ends), and never jumps back within a few steps (no
/// flicker).
#[test]
fn streams_on_fitted_reach_cones_move_continuously_between_switches() {
    let Some((_, _, limits)) = martial_cones() else {
        return;
    };
    let mut random = SeededRandom::new(43);
    for name in JOINTS {
        let limit = limits
            .joints
            .iter()
            .find(|j| j.joint == name)
            .unwrap()
            .clone();
        let axis = cone_of(&limit).twist_axis;
        let mut jumps_total = 0;
        for path in 0..6 {
            let around = random.direction();
            let start = random.rotation();
            let steps = 1000;
            let mut limiter = Limiter::new(vec![Some(limit.clone())]);
            let mut outputs: Vec<Quat> = Vec::new();
            let mut previous: Option<Quat> = None;
            let mut jumps = 0;
            let mut last_jump: Option<usize> = None;
            let mut largest_step = 0.0f32;
            for k in 0..=steps {
                let t = k as f32 / steps as f32;
                let q = Quat::from_axis_angle(around, std::f32::consts::TAU * t)
                    * start
                    * Quat::from_axis_angle(axis, 2.0 * std::f32::consts::TAU * t);
                let mut pose = [limit.local(q)];
                limiter.limit_pose(&mut pose);
                // Within a few degrees of a 180° swing the twist coordinate itself moves fast
                // (the split is singular there), and so does any answer measured in it.
                let (swing, _) = swing_and_twist_angle(q, axis);
                let singular = swing.to_axis_angle().1 > std::f32::consts::PI - 0.1;
                if let Some(p) = previous {
                    let step = jointlimits::rotation::angle_between(p, pose[0]);
                    // The input moves about 0.014 rad a step.
                    if step > 0.1 && !singular {
                        // A switch, not a flicker: the output does not come back within a few
                        // steps to where it was before the last jump.
                        if let Some(j) = last_jump.filter(|&j| k <= j + 3) {
                            let back =
                                jointlimits::rotation::angle_between(outputs[j - 1], pose[0]);
                            assert!(
                                back > 0.1,
                                "{name} path {path}: jumped at step {j} and back at {k}"
                            );
                        }
                        last_jump = Some(k);
                        jumps += 1;
                    } else {
                        largest_step = largest_step.max(step);
                    }
                }
                previous = Some(pose[0]);
                outputs.push(pose[0]);
            }
            assert!(
                jumps <= 12,
                "{name} path {path}: {jumps} jumps (largest other step {largest_step})"
            );
            jumps_total += jumps;
        }
        eprintln!("{name}: {jumps_total} jumps over 6 slow paths");
    }
}
