//! Enforcing limits on a stream of poses without side switching.
//!
//! A relative rotation and its negation are the same orientation but different limit-space
//! points (the short way and the long way round). Choosing the short way afresh every frame makes a
//! joint that is driven slowly past 180° from its reference jump to the far side of its limit. The
//! limiter instead keeps, per joint, the cover of the previous frame's relative rotation and picks
//! the nearer cover of the next one (runtime unrolling), exactly as fitting unrolls clips. Since
//! every region is convex, its projection is non-expansive, so a small input step gives a small
//! output step.

use glam::Quat;

use crate::joint_limit::{JointLimit, Limited};
use crate::rotation::{nearest_cover, quat_abs};

/// Applies a skeleton's limits frame after frame, remembering each joint's cover.
#[derive(Clone, Debug)]
pub struct Limiter {
    limits: Vec<Option<JointLimit>>,
    previous: Vec<Option<Quat>>,
}

impl Limiter {
    /// A limiter for a skeleton whose joint `i` is limited by `limits[i]` (if any).
    pub fn new(limits: Vec<Option<JointLimit>>) -> Limiter {
        let previous = vec![None; limits.len()];
        Limiter { limits, previous }
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

    /// Limits joint `joint`'s local rotation, continuing its history. Returns the input's relative
    /// rotation limit result; unlimited joints report inside.
    #[inline]
    pub fn limit_joint(&mut self, joint: usize, local: Quat) -> (Quat, Limited) {
        let Some(limit) = self.limits.get(joint).and_then(Option::as_ref) else {
            return (local, Limited::unchanged(local));
        };
        let raw = limit.relative(local);
        let relative = match self.previous[joint] {
            Some(previous) => nearest_cover(raw, previous),
            None => quat_abs(raw),
        };
        self.previous[joint] = Some(relative);
        let limited = limit.limit_relative(relative);
        let output = if limited.inside {
            local
        } else {
            limit.local(limited.relative)
        };
        (output, limited)
    }

    /// Limits every joint of one pose in place; returns how many joints were outside.
    pub fn limit_pose(&mut self, rotations: &mut [Quat]) -> usize {
        let mut outside = 0;
        for (joint, rotation) in rotations.iter_mut().enumerate().take(self.limits.len()) {
            let (limited, result) = self.limit_joint(joint, *rotation);
            *rotation = limited;
            outside += usize::from(!result.inside);
        }
        outside
    }
}
