//! Enforcing limits on a stream of poses: nearest, without flicker.
//!
//! The nearest allowed rotation jumps where two covers (or twist turns, or boundary points) are
//! equally near, so a rotation swept slowly through such a place would make a purely stateless
//! limiter's output jump there, and a noisy one flicker between the two sides. The limiter keeps,
//! per joint, the cover and turn the previous frame used ([`Limited::measured`]) and continues
//! from them while that answer is at most [`Limiter::margin`] farther than the stateless nearest;
//! past the margin it switches to the nearest's cover and turn, staying in the basin it was in
//! where that is within the margin too ([`RotationLimit::previous_on_nearest_turn`]), and to the
//! nearest itself otherwise. So:
//! - an allowed rotation is returned unchanged, bit for bit, whatever the history, and a
//!   rotation the stateless answer moves is moved (never kept because a continuation finds it
//!   within the tolerance of another stretch of boundary), so the output passes the stateless
//!   inside test;
//! - the output is never more than the margin farther than the nearest allowed rotation;
//! - a slow input switches sides at most once each time it passes an equidistant place, and
//!   between switches the output moves continuously (a convex region's projection is
//!   non-expansive);
//! - at a swing of exactly 180°, where every twist splits the rotation, the remembered twist is
//!   kept whatever the margin ([`RotationLimit::is_degenerate`]).
//!
//! Where a kind can tell cheaply that an input is outside ([`RotationLimit::surely_outside`]),
//! the stream continues first: a continuation within the margin of the boundary is within the
//! margin of the nearest, so the stateless search is skipped with the same answer.
//!
//! The specification, with the switch points of every kind, is `docs/limits.md`.

use glam::{Quat, Vec4};

use crate::contract::{LimitContext, RotationLimit};
use crate::joint_limit::{JointLimit, Limited};

/// The default [`Limiter::margin`]: 0.1 rad (5.7°).
pub const DEFAULT_SWITCH_MARGIN: f32 = 0.1;

/// Applies a skeleton's limits frame after frame, remembering each joint's side.
#[derive(Clone, Debug)]
pub struct Limiter {
    limits: Vec<Option<JointLimit>>,
    /// Each joint's parent, for limits coupled to it (none known: every entry `None`).
    parents: Vec<Option<usize>>,
    previous: Vec<Option<Vec4>>,
    margin: f32,
    path_aware: bool,
}

impl Limiter {
    /// A limiter for a skeleton whose joint `i` is limited by `limits[i]` (if any), with the
    /// default switch margin.
    pub fn new(limits: Vec<Option<JointLimit>>) -> Limiter {
        let previous = vec![None; limits.len()];
        Limiter {
            parents: vec![None; limits.len()],
            limits,
            previous,
            margin: DEFAULT_SWITCH_MARGIN,
            path_aware: false,
        }
    }

    /// The same limiter with another switch margin (radians, clamped to be non-negative; 0 makes
    /// every frame the stateless nearest).
    pub fn with_margin(mut self, margin: f32) -> Limiter {
        self.margin = switch_margin(margin);
        self
    }

    /// The same limiter correcting path-aware where a kind can (tables): a joint that leaves its
    /// limit stops where its motion from the previous frame's answer first meets the boundary,
    /// instead of going to the nearest allowed rotation
    /// ([`JointLimit::limit_relative_path_aware`]). Allowed rotations still come back unchanged;
    /// the first frame, and kinds without it, take the usual answer.
    pub fn with_path_aware(mut self, path_aware: bool) -> Limiter {
        self.path_aware = path_aware;
        self
    }

    /// The same limiter knowing each joint's parent (`parents[i]`, as in
    /// [`crate::Skeleton`]), so that [`Limiter::limit_pose`] gives limits coupled to their
    /// parent the parent's limited rotation ([`crate::coupled`]).
    pub fn with_parents(mut self, parents: Vec<Option<usize>>) -> Limiter {
        self.parents = parents;
        self.parents.resize(self.limits.len(), None);
        self
    }

    /// How much farther than the nearest allowed rotation the continued side may be before the
    /// limiter switches (radians, in each region's metric).
    pub fn margin(&self) -> f32 {
        self.margin
    }

    /// Forgets the history (call at a cut, where motion is not continuous).
    pub fn reset(&mut self) {
        self.previous.fill(None);
    }

    /// The limit of joint `joint`, if it has one.
    pub fn joint_limit(&self, joint: usize) -> Option<&JointLimit> {
        self.limits.get(joint).and_then(Option::as_ref)
    }

    /// The number of joints this limiter was made for.
    pub fn joint_count(&self) -> usize {
        self.limits.len()
    }

    /// Limits joint `joint`'s local rotation, continuing its history (module docs). Returns the
    /// output local rotation and the limit result; unlimited joints report inside.
    #[inline]
    pub fn limit_joint(&mut self, joint: usize, local: Quat) -> (Quat, Limited) {
        self.limit_joint_in(joint, local, &LimitContext::NONE)
    }

    /// [`Limiter::limit_joint`] knowing the parent's state (`context`).
    #[inline]
    pub fn limit_joint_in(
        &mut self,
        joint: usize,
        local: Quat,
        context: &LimitContext,
    ) -> (Quat, Limited) {
        let Some(limit) = self.limits.get(joint).and_then(Option::as_ref) else {
            return (local, Limited::unchanged(local, Vec4::ZERO));
        };
        let step = stream_step(
            limit,
            local,
            self.previous[joint],
            self.margin,
            self.path_aware,
            context,
        );
        self.previous[joint] = Some(step.1.measured);
        step
    }

    /// Limits every joint of one pose in place, parents before children (as skeletons order
    /// them), each coupled limit seeing its parent's limited rotation; returns how many joints
    /// were outside.
    pub fn limit_pose(&mut self, rotations: &mut [Quat]) -> usize {
        let mut outside = 0;
        for joint in 0..rotations.len().min(self.limits.len()) {
            let context = LimitContext {
                parent: self.parents[joint].and_then(|p| rotations.get(p).copied()),
            };
            let (limited, result) = self.limit_joint_in(joint, rotations[joint], &context);
            rotations[joint] = limited;
            outside += usize::from(!result.inside);
        }
        outside
    }
}

/// `margin` made a usable switch margin: not negative, and the default where it is not finite.
pub fn switch_margin(margin: f32) -> f32 {
    if margin.is_finite() {
        margin.max(0.0)
    } else {
        DEFAULT_SWITCH_MARGIN
    }
}

/// One frame of one joint's stream (module docs): `local` limited by `limit`, continuing from the
/// `previous` frame's [`Limited::measured`] (none after a cut). Returns the output local rotation
/// and the limit result, whose `measured` the stream keeps for the next frame. The crowd uses it
/// too, so both give the same bits.
#[inline]
pub(crate) fn stream_step(
    limit: &JointLimit,
    local: Quat,
    previous: Option<Vec4>,
    margin: f32,
    path_aware: bool,
    context: &LimitContext,
) -> (Quat, Limited) {
    let relative = limit.relative(local);
    let path_aware = previous
        .filter(|_| path_aware)
        .and_then(|previous| limit.limit_relative_path_aware(relative, previous));
    let limited = match path_aware {
        Some(limited) => limited,
        None => stream_answer(limit, relative, previous, margin, context),
    };
    let output = if limited.kept(relative) {
        local
    } else {
        limit.local(limited.relative)
    };
    (output, limited)
}

/// The stream's answer for `relative` after the frame measured as `previous` (module docs).
#[inline(always)]
fn stream_answer(
    limit: &JointLimit,
    relative: Quat,
    previous: Option<Vec4>,
    margin: f32,
    context: &LimitContext,
) -> Limited {
    let Some(previous) = previous else {
        return limit.limit_relative_in(relative, context);
    };
    let mut continued = None;
    if limit.region.surely_outside(relative, context) {
        // Continued to within the margin of the boundary, so within the margin of the nearest
        // too, whatever that is: the stateless search could only confirm it (the rule below
        // would take it, bit for bit).
        let answer = limit.limit_relative_continuing_in(relative, previous, context);
        if !answer.inside && answer.violation <= margin {
            return answer;
        }
        continued = Some(answer);
    }
    let nearest = limit.limit_relative_in(relative, context);
    // Where the stream's cover and turn are the nearest one's, so is its answer.
    if nearest.inside || limit.region.continues_as(relative, &nearest, previous) {
        return nearest;
    }
    let continued = continued
        .unwrap_or_else(|| limit.limit_relative_continuing_in(relative, previous, context));
    // A continuation that finds the input allowed (within the tolerance of another stretch of
    // boundary, or on another turn) while the stateless answer does not would leave it where
    // `check` rejects it: only moved answers qualify.
    let within_margin = |l: &Limited| !l.inside && l.violation <= nearest.violation + margin;
    if within_margin(&continued) || (!continued.inside && limit.region.is_degenerate(relative)) {
        // A continuation that jumped short of the nearest in its own basin could stop on
        // alternate sides of it frame after frame: continuing leads there.
        if within_margin(&continued)
            && limit
                .region
                .leads_to(relative, previous, &continued, &nearest)
        {
            return nearest;
        }
        return continued;
    }
    // The turn must change; the basin need not (unless continuing in it jumps short of the
    // nearest, as above).
    limit
        .region
        .previous_on_nearest_turn(previous, &nearest)
        .map(|p| limit.limit_relative_continuing_in(relative, p, context))
        .filter(|c| within_margin(c) && !limit.region.leads_to(relative, previous, c, &nearest))
        .unwrap_or(nearest)
}
