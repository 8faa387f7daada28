//! A pattern search over a chain's joint turns, each projected onto its joint's limit: the
//! polish that slides a chain along its limits where the solvers' passes stop short.

use glam::{Quat, Vec3};

use super::chain::Chain;
use crate::rotation::rotation_about;

/// The first turn the search tries, radians.
pub(crate) const FIRST_NUDGE: f32 = 0.3;

/// The search stops below this turn, radians.
const LAST_NUDGE: f32 = 1e-4;

/// Turns each free joint by `±nudge` about each world axis, projects it onto its limit, and
/// keeps the turn when it lowers `cost`; when no turn does, the nudge is halved, from
/// `first_nudge` down to 1e-4 rad, or until the cost falls to `good_enough`. Every pose it
/// visits satisfies the limits. Returns the cost left; the chain holds its pose.
pub(crate) fn pattern_search(
    chain: &mut Chain,
    saved: &mut Vec<Quat>,
    first_nudge: f32,
    good_enough: f32,
    cost: impl Fn(&Chain) -> f32,
) -> f32 {
    let mut left = cost(chain);
    let mut nudge = first_nudge;
    while nudge > LAST_NUDGE && left > good_enough {
        let mut improved = false;
        for i in chain.first_free_joint()..chain.len() {
            for axis in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
                chain.save(saved);
                chain.turn_joint(i, rotation_about(axis, nudge), true);
                chain.update();
                let moved = cost(chain);
                // By more than rounding, so that the search cannot cycle.
                if moved < left - 1e-7 * left.max(1.0) {
                    (left, improved) = (moved, true);
                } else {
                    chain.restore(saved);
                }
            }
        }
        if !improved {
            nudge *= 0.5;
        }
    }
    left
}
