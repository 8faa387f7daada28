//! A pattern search over a chain's joint turns, each projected onto its joint's limit: the
//! polish that slides a chain along its limits where the solvers' passes stop short.

use glam::{Quat, Vec3};

use super::chain::Chain;
use crate::rotation::rotation_about;

/// The first turn a search from a pose far from its best tries, radians.
pub(crate) const FIRST_NUDGE: f32 = 0.3;

/// Sweeps over every joint and axis at one size of turn before it is halved.
const SWEEPS_PER_NUDGE: usize = 8;

/// The least share of the cost a turn must gain to be kept.
const LEAST_GAIN: f32 = 1e-5;

/// Turns each free joint by `±nudge` about each world axis, projects it onto its limit, and
/// keeps the turn when it lowers `cost` by at least a hundred-thousandth; when no turn does (or
/// after eight sweeps at one size), the nudge is halved, from `first_nudge` down to
/// `last_nudge` (radians), or until the cost falls to `good_enough`. Every pose it
/// visits satisfies the limits. Returns the cost left; the chain holds its pose.
pub(crate) fn pattern_search(
    chain: &mut Chain,
    saved: &mut Vec<Quat>,
    (first_nudge, last_nudge): (f32, f32),
    good_enough: f32,
    cost: impl Fn(&Chain) -> f32,
) -> f32 {
    let mut left = cost(chain);
    let mut nudge = first_nudge;
    let mut sweeps = 0;
    while nudge > last_nudge && left > good_enough {
        // A curved valley makes a pattern search crawl: a few sweeps per size of turn.
        sweeps += 1;
        if sweeps > SWEEPS_PER_NUDGE {
            (nudge, sweeps) = (nudge * 0.5, 1);
        }
        let mut improved = false;
        for i in chain.first_free_joint()..chain.len() {
            for axis in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
                chain.save(saved);
                chain.turn_joint(i, rotation_about(axis, nudge), true);
                chain.update();
                let moved = cost(chain);
                // By a share of the cost, so that the search neither cycles on rounding nor
                // crawls on gains nobody sees.
                if moved < left * (1.0 - LEAST_GAIN) {
                    (left, improved) = (moved, true);
                } else {
                    chain.restore(saved);
                }
            }
        }
        if !improved {
            (nudge, sweeps) = (nudge * 0.5, 0);
        }
    }
    left
}
