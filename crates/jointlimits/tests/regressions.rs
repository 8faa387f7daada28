//! One test per defect found by feeding the limiter what users feed it (random poses, slow
//! sweeps through full turns and 180° swings). Each failed before the contract of
//! `docs/limits.md`.

mod common;

use std::f32::consts::{PI, TAU};

use common::joint;
use common::oracle::Rng;
use glam::{Quat, Vec3};
use jointlimits::rotation::angle_between;
use jointlimits::{JointLimit, LimitContext, LimitRegion, Limiter, RotationLimit};

fn example(label: &str) -> LimitRegion {
    LimitRegion::examples()
        .into_iter()
        .find(|r| r.label().starts_with(label))
        .unwrap_or_else(|| panic!("no example {label}"))
}

/// Defect 1: the limiter picked each frame's cover from the previous input, so on
/// discontinuous input it projected the long way about half the time and moved allowed
/// rotations. Now: allowed rotations stay, and every output is within the margin of nearest.
#[test]
fn discontinuous_input_gets_the_nearest_cover_and_keeps_allowed_rotations() {
    let limit = joint(example("box"));
    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
    let mut rng = Rng(1);
    let inside = limit.limit(rng.rotation());
    for _ in 0..500 {
        // A rotation far away (which may leave the limiter on the long cover), then an allowed one
        // given in the other cover.
        limiter.limit_joint(0, rng.rotation());
        let (output, _) = limiter.limit_joint(0, -inside);
        assert_eq!(output, -inside);
        let q = rng.rotation();
        let (_, result) = limiter.limit_joint(0, q);
        let nearest = limit.limit_relative(q);
        assert!(result.violation <= nearest.violation + limiter.margin() + 1e-6);
    }
}

/// Defect 2: `check` re-picked covers from the clip it read and flagged `apply`'s own outputs.
/// Now the violation is per frame and the limiter's outputs are all inside.
#[test]
fn every_output_of_the_limiter_passes_the_per_frame_check() {
    let mut rng = Rng(2);
    for region in LimitRegion::examples() {
        let limit = joint(region);
        let mut limiter = Limiter::new(vec![Some(limit.clone())]);
        for _ in 0..300 {
            let (output, _) = limiter.limit_joint(0, rng.rotation());
            assert!(
                limit.violation(output) <= 1e-5 && limit.violation(-output) <= 1e-5,
                "{}: {output} outside by {}",
                limit.region.label(),
                limit.violation(output)
            );
        }
    }
}

/// Defect 3: a reach cone clamped a long-way twist near ±360° through an angle past 2π, and
/// the rotation helper flipped the sine: the output twist became `2·twist − allowed`.
#[test]
fn reach_cone_twists_near_full_turns_land_inside() {
    let limit = joint(example("reach cone (12"));
    let LimitRegion::ReachCone(cone) = &limit.region else {
        unreachable!()
    };
    let axis = cone.twist_axis;
    for twist in [-TAU - 0.4, -TAU + 0.3, -5.0, 5.0, TAU - 0.3, TAU + 0.4] {
        for sign in [1.0, -1.0] {
            let q = Quat::from_axis_angle(Vec3::X, 0.1) * Quat::from_axis_angle(axis, twist) * sign;
            let out = limit.limit(q);
            assert!(limit.violation(out) <= 1e-5, "twist {twist}: {out}");
        }
    }
}

/// Switch events along a slow 0.5° sweep (runs of frames whose output moved more than 3× the
/// input), and the largest distance of an output from its input where the input was allowed.
fn sweep(limit: &JointLimit, path: impl Fn(f32) -> Quat) -> (usize, f32) {
    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
    let (mut previous, mut events, mut in_event, mut moved_inside) = (None, 0, false, 0.0f32);
    for i in 0..=720 {
        let input = path(i as f32 * TAU / 720.0);
        let (output, result) = limiter.limit_joint(0, input);
        if limit.contains(input) {
            moved_inside = moved_inside.max(angle_between(input, output));
        }
        assert!(result.inside || !limit.contains(input));
        if let Some((a, b)) = previous {
            let jump = angle_between(b, output) > 3.0 * angle_between(a, input).max(1e-4);
            events += usize::from(jump && !in_event);
            in_event = jump;
        }
        previous = Some((input, output));
    }
    (events, moved_inside)
}

/// Defect 4: full space wrapped at 2π: the output jumped up to 179° at the 360° mark, and inputs
/// back inside the short way stayed pinned at the far limit.
#[test]
fn full_space_sweeps_switch_once_and_release_allowed_rotations() {
    for label in ["box", "ellipsoid", "kdop13", "hull"] {
        let limit = joint(example(label));
        for axis in [
            Vec3::X,
            Vec3::Y,
            Vec3::Z,
            Vec3::new(0.5, -0.3, 0.2).normalize(),
        ] {
            let (events, moved_inside) = sweep(&limit, |t| Quat::from_axis_angle(axis, t));
            assert!(events <= 1, "{label} about {axis}: {events} switches");
            assert_eq!(
                moved_inside, 0.0,
                "{label} about {axis}: allowed input moved"
            );
        }
    }
}

/// Defect 5: near a 180° swing the tracked twist became ±2π with its sign set by rounding, and
/// the clamp alternated between the twist limits frame after frame.
#[test]
fn sweeps_through_a_half_swing_do_not_flicker() {
    for label in [
        "ellipsoid swing",
        "box swing",
        "swing cone",
        "reach cone (8",
    ] {
        let limit = joint(example(label));
        let axis = match &limit.region {
            LimitRegion::SwingTwist(l) => l.twist_axis,
            LimitRegion::Cone(l) => l.twist_axis,
            LimitRegion::ReachCone(l) => l.twist_axis,
            _ => unreachable!(),
        };
        let across = axis.any_orthonormal_vector();
        for twist in [0.0, 0.3, -1.0, PI] {
            let (events, _) = sweep(&limit, |t| {
                Quat::from_axis_angle(across, t) * Quat::from_axis_angle(axis, twist)
            });
            assert!(events <= 1, "{label}, twist {twist}: {events} switches");
        }
    }
}

/// Defect 6 (its streaming half): near the antipode of a reach cone's visible point, and along
/// the outside of its notches, the nearest boundary point flipped between edges frame after
/// frame. The limiter now follows the edge it was on.
#[test]
fn reach_cone_streams_keep_their_boundary_edge() {
    let limit = joint(example("reach cone (12"));
    let LimitRegion::ReachCone(cone) = &limit.region else {
        unreachable!()
    };
    let across = cone.twist_axis.any_orthonormal_vector();
    let (events, _) = sweep(&limit, |t| Quat::from_axis_angle(across, t));
    assert!(events <= 1, "{events} switches");
    // The stateless nearest does flip on this path: the test would catch a limiter that
    // ignored its history.
    let mut flips = 0;
    let mut previous: Option<Quat> = None;
    for i in 0..=720 {
        let q = Quat::from_axis_angle(across, i as f32 * TAU / 720.0);
        let out = cone.nearest(q, &LimitContext::NONE).relative;
        if let Some(p) = previous {
            flips += usize::from(angle_between(p, out) > 3.0 * TAU / 720.0);
        }
        previous = Some(out);
    }
    assert!(flips > 1, "{flips}");
}
