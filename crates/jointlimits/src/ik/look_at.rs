//! A look-at chain: spine, neck and head turn toward a target, each as far as its limit allows.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};

use super::chain::Chain;
use super::pattern::{FIRST_NUDGE, pattern_search};
use super::progress::IkOptions;
use super::solve::Shake;
use crate::rotation::{rotation_about, rotation_between};

/// The outcome of [`look_at`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAtReport {
    /// Passes over the chain that were run.
    pub passes: usize,
    /// The angle (radians) left between the aim and the direction to the target.
    pub angle: f32,
}

/// Turns tried per joint, evenly spaced about the direction to the target, when a limit clamps
/// the shortest arc (each is one projection and one pass of forward kinematics).
const AIM_FAMILY: usize = 12;

/// Halvings of the spacing around the best of [`AIM_FAMILY`].
const AIM_REFINEMENTS: usize = 4;

/// Turns `chain` so that its aim points at `target`.
///
/// The chain's end bone is the aim: it runs from the last joint's origin (the eye) along the aim
/// axis (build the chain with [`Chain::from_skeleton_with_end`]). Joints are visited root first;
/// each takes the whole remaining turn (the shortest arc from the aim to the direction from the
/// eye to the target), is projected onto its limit, and leaves what the limit refused to the
/// joints after it, so the spine is exhausted before the head turns. Later passes correct the
/// parallax of the eye moving with the spine; they stop when the angle drops below `1e-4` rad,
/// stops changing, or after `options.max_iterations` passes. When limits stop the chain short,
/// passes go on over the other turns that point the aim at the target: every rotation
/// `rot(want, φ)·arc` does, and where a limit clamps the shortest arc another member may be
/// allowed or clamp less. The members `φ = k·30°` are projected, the best refined by halving the
/// spacing, and the one leaving the least angle (measured on the whole chain, after the
/// projection) kept, never one worse than the joint's current turn. Where that still leaves the
/// aim more than 1e-3 rad off, a pattern search turns each joint a little about each axis
/// (projected, kept when the aim improves; the turn halved from 0.3 rad down to 1e-4 when none
/// does), and up to eight restarts, from the best pose and from the input in turn, shaken at
/// random by up to 0.6, 1.2, 1.8 and 2.4 rad (seeded by the target, so a solve repeats), run the
/// same passes and search; the best pose is kept.
pub fn look_at(chain: &mut Chain, target: Vec3, options: &IkOptions) -> LookAtReport {
    chain.limit_all(options.use_limits);
    let n = chain.len();
    let mut angle = aim_error(chain, target);
    let mut passes = 0;
    if !target.is_finite() {
        return LookAtReport { passes, angle };
    }
    // The chain lends its pose buffers, so a look-at does not allocate once they have grown.
    let [mut input, mut best, mut saved] = chain.take_pose_scratch();
    chain.save(&mut input);
    // The shortest arcs first: the natural turn, spine before head.
    (angle, passes) = run_passes(chain, target, options.max_iterations, |chain, i| {
        let eye = chain.positions()[n - 1];
        let aim = chain.positions()[n] - eye;
        chain.turn_joint(i, rotation_between(aim, target - eye), options.use_limits);
        chain.update();
    });
    if options.use_limits && angle > 1e-4 {
        // Limits stopped them short: other turns pointing the aim there may clamp less.
        let (left, more) = family_passes(chain, target, options.max_iterations, &mut saved);
        (angle, passes) = (left.min(angle), passes + more);
        angle = angle.min(pattern_polish(chain, target, &mut saved));
        // Those passes settle in the first basin they reach: a few restarts from shaken poses.
        chain.save(&mut best);
        let mut shake = Shake::new(target);
        for restart in 0..RESTARTS {
            if angle <= AIMED {
                break;
            }
            // From the best pose and from the input in turn, shaken further each time: the
            // best basin can lie on the far side of a joint's range.
            chain.restore(if restart % 2 == 0 { &best } else { &input });
            chain.perturb(&mut shake, RESTART_SHAKE * (1 + restart / 2) as f32);
            let (_, more) = family_passes(chain, target, options.max_iterations, &mut saved);
            passes += more;
            let left = pattern_polish(chain, target, &mut saved);
            if left < angle {
                angle = left;
                chain.save(&mut best);
            }
        }
        chain.restore(&best);
        // A joint whose limit reads its parent's state is judged against the parent as it
        // ended.
        chain.limit_all(true);
        angle = aim_error(chain, target);
    }
    chain.return_pose_scratch([input, best, saved]);
    LookAtReport { passes, angle }
}

/// [`pattern_search`] on the angle left.
fn pattern_polish(chain: &mut Chain, target: Vec3, saved: &mut Vec<Quat>) -> f32 {
    pattern_search(chain, saved, (FIRST_NUDGE, 1e-4), 1e-4, |chain| {
        aim_error(chain, target)
    })
}

/// Restarts from shaken poses when the aim is still off after the passes over the turns.
const RESTARTS: usize = 8;

/// How far each joint is turned at random for the first two restarts, radians; each pair
/// after turns it further by as much.
const RESTART_SHAKE: f32 = 0.6;

/// An angle left that needs no restart, radians (0.06°).
const AIMED: f32 = 1e-3;

/// [`run_passes`] of [`aim_from_joint`].
fn family_passes(
    chain: &mut Chain,
    target: Vec3,
    max_passes: usize,
    saved: &mut Vec<Quat>,
) -> (f32, usize) {
    run_passes(chain, target, max_passes, |chain, i| {
        aim_from_joint(chain, i, target, saved)
    })
}

/// Passes of `turn` over every joint of the chain, root first, until the angle left drops
/// below `1e-4` rad, stops changing, or after `max_passes`: the angle left and the passes run.
fn run_passes(
    chain: &mut Chain,
    target: Vec3,
    max_passes: usize,
    mut turn: impl FnMut(&mut Chain, usize),
) -> (f32, usize) {
    let mut angle = aim_error(chain, target);
    let mut passes = 0;
    while passes < max_passes && angle > 1e-4 {
        for i in 0..chain.len() {
            turn(chain, i);
        }
        passes += 1;
        let next = aim_error(chain, target);
        let settled = (angle - next).abs() < 1e-6;
        angle = next;
        if settled {
            break;
        }
    }
    (angle, passes)
}

/// Turns joint `i` so that the aim points at `target` as nearly as its limit allows (see
/// [`look_at`]), keeping its current turn when no member of the family does better.
fn aim_from_joint(chain: &mut Chain, i: usize, target: Vec3, saved: &mut Vec<Quat>) {
    let n = chain.len();
    let eye = chain.positions()[n - 1];
    let aim = chain.positions()[n] - eye;
    let want = target - eye;
    let arc = rotation_between(aim, want);
    chain.save(saved);
    let before = aim_error(chain, target);
    // Turns the joint by the family member `φ` from the saved pose; the angle left.
    let try_member = |chain: &mut Chain, phi: f32| {
        chain.restore(saved);
        let spin = want
            .try_normalize()
            .map_or(Quat::IDENTITY, |axis| rotation_about(axis, phi));
        chain.turn_joint(i, spin * arc, true);
        chain.update();
        aim_error(chain, target)
    };
    let shortest = try_member(chain, 0.0);
    let clamped = chain.blocked_direction(i) != Vec3::ZERO;
    let (mut best_phi, mut best) = (0.0, shortest);
    if clamped {
        let spacing = TAU / AIM_FAMILY as f32;
        for k in 1..AIM_FAMILY {
            let phi = k as f32 * spacing;
            let left = try_member(chain, phi);
            if left < best {
                (best_phi, best) = (phi, left);
            }
        }
        let mut step = 0.5 * spacing;
        for _ in 0..AIM_REFINEMENTS {
            let centre = best_phi;
            for phi in [centre - step, centre + step] {
                let left = try_member(chain, phi);
                if left < best {
                    (best_phi, best) = (phi, left);
                }
            }
            step *= 0.5;
        }
    }
    if best <= before {
        try_member(chain, best_phi);
    } else {
        chain.restore(saved);
    }
}

/// The angle between the chain's aim and the direction from its eye to `target` (π when the target
/// is at the eye or not finite).
fn aim_error(chain: &Chain, target: Vec3) -> f32 {
    let n = chain.len();
    let eye = chain.positions()[n - 1];
    let aim = chain.positions()[n] - eye;
    let want = target - eye;
    if !want.is_finite() || want.length_squared() < 1e-20 || aim.length_squared() < 1e-20 {
        return std::f32::consts::PI;
    }
    aim.angle_between(want)
}
