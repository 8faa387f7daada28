//! A look-at chain: spine, neck and head turn toward a target, each as far as its limit allows.

use glam::Vec3;

use super::chain::Chain;
use super::progress::IkOptions;
use crate::rotation::rotation_between;

/// The outcome of [`look_at`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LookAtReport {
    /// Passes over the chain that were run.
    pub passes: usize,
    /// The angle (radians) left between the aim and the direction to the target.
    pub angle: f32,
}

/// Turns `chain` so that its aim points at `target`.
///
/// The chain's end bone is the aim: it runs from the last joint's origin (the eye) along the aim
/// axis (build the chain with [`Chain::from_skeleton_with_end`]). Joints are visited root first;
/// each takes the whole remaining turn (the shortest arc from the aim to the direction from the
/// eye to the target), is projected onto its limit, and leaves what the limit refused to the
/// joints after it, so the spine is exhausted before the head turns. Later passes correct the
/// parallax of the eye moving with the spine; they stop when the angle drops below `1e-4` rad, stops
/// changing, or after `options.max_iterations` passes.
pub fn look_at(chain: &mut Chain, target: Vec3, options: &IkOptions) -> LookAtReport {
    chain.limit_all(options.use_limits);
    let n = chain.len();
    let mut angle = aim_error(chain, target);
    let mut passes = 0;
    if !target.is_finite() {
        return LookAtReport { passes, angle };
    }
    while passes < options.max_iterations && angle > 1e-4 {
        for i in 0..n {
            let eye = chain.positions()[n - 1];
            let aim = chain.positions()[n] - eye;
            chain.turn_joint(i, rotation_between(aim, target - eye), options.use_limits);
            chain.update();
        }
        passes += 1;
        let next = aim_error(chain, target);
        let settled = (angle - next).abs() < 1e-6;
        angle = next;
        if settled {
            break;
        }
    }
    LookAtReport { passes, angle }
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
