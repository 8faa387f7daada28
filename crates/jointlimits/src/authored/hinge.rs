//! A hinge: rotation about one axis only, between two angles.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::joint_limit::Limited;
use crate::rotation::{angle_between, rotation_about};

/// Largest off-axis rotation (radians) still counted as on the hinge: f32 rounding of a pure
/// hinge rotation stays far below it.
const OFF_AXIS_SLACK: f32 = 1e-5;

/// A one-axis joint (elbow, knee, finger): relative rotations `rotation(axis, θ)` with
/// `min ≤ θ ≤ max`.
///
/// Projection: the rotation about `axis` nearest to `q = (v, w)` is its twist, angle
/// `θ = 2·atan2(v·axis, w)` (it maximises `|⟨q, r⟩|` over rotations `r` about the axis); the
/// angle, continuous in the cover of `q`, is then clamped to `[min, max]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct HingeLimit {
    /// The hinge axis in the joint's frame (unit length).
    pub axis: Vec3,
    /// The smallest hinge angle, radians.
    pub min: f32,
    /// The largest hinge angle, radians.
    pub max: f32,
}

impl HingeLimit {
    /// The hinge angle of `relative` (in its cover) and the angle of its part off the hinge.
    #[inline]
    pub fn angles(&self, relative: Quat) -> (f32, f32) {
        let v = Vec3::new(relative.x, relative.y, relative.z);
        let along = v.dot(self.axis);
        let off_axis = (v - along * self.axis).length();
        let hinge = 2.0 * crate::fast_trig::atan2(along, relative.w);
        let off = 2.0 * crate::fast_trig::atan2(off_axis, along.hypot(relative.w));
        (hinge, off)
    }

    /// Limits a relative rotation (in the cover to measure its angle in).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        let (hinge, off_axis) = self.angles(relative);
        let allowed = hinge.clamp(self.min, self.max);
        if off_axis <= OFF_AXIS_SLACK && allowed == hinge {
            return Limited::unchanged(relative);
        }
        let limited = rotation_about(self.axis, allowed);
        Limited {
            relative: limited,
            inside: false,
            violation: angle_between(relative, limited),
        }
    }

    /// Every number is finite, the axis is not zero and `min ≤ max`.
    pub fn is_finite(&self) -> bool {
        self.axis.is_finite()
            && self.axis.length() > 0.5
            && self.min.is_finite()
            && self.max.is_finite()
            && self.min <= self.max
    }
}
