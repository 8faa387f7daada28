//! A circular swing cone with a twist interval.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::joint_limit::{Limited, TwistRange};
use crate::rotation::{rotation_about, swing_and_twist_angle};

/// The classic ball-and-socket limit: the bone axis may swing up to `max_swing` away from its
/// reference direction, and twist within `twist`.
///
/// With `q = swing · twist` split about `twist_axis`, the swing is a rotation by `φ ≤ π` about an
/// axis perpendicular to `twist_axis`. Outside, `φ` is clamped to `max_swing` about the same
/// axis (the radial projection, nearest in the swing's scaled angle-axis) and the twist angle is
/// clamped to its interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConeLimit {
    /// The bone axis at the reference rotation (unit length).
    pub twist_axis: Vec3,
    /// The largest swing angle, radians in `[0, π]`.
    pub max_swing: f32,
    /// The allowed twist angles.
    pub twist: TwistRange,
}

impl ConeLimit {
    /// Limits a relative rotation (in the cover to measure its twist in).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        let (swing, twist) = swing_and_twist_angle(relative, self.twist_axis);
        let swing_sin = Vec3::new(swing.x, swing.y, swing.z);
        let swing_angle = 2.0 * crate::fast_trig::atan2(swing_sin.length(), swing.w);
        let allowed_twist = self.twist.clamp(twist);
        let swing_inside = swing_angle <= self.max_swing;
        if swing_inside && allowed_twist == twist {
            return Limited::unchanged(relative);
        }
        let allowed_swing = if swing_inside {
            swing
        } else {
            let swing_axis = swing_sin.normalize_or(self.twist_axis.any_orthonormal_vector());
            rotation_about(swing_axis, self.max_swing)
        };
        Limited {
            relative: allowed_swing * rotation_about(self.twist_axis, allowed_twist),
            inside: false,
            violation: (swing_angle - swing_angle.min(self.max_swing)).hypot(twist - allowed_twist),
        }
    }

    /// Every number is finite, the axis is not zero and the intervals are not inverted.
    pub fn is_finite(&self) -> bool {
        self.twist_axis.is_finite()
            && self.twist_axis.length() > 0.5
            && self.max_swing.is_finite()
            && (0.0..=std::f32::consts::PI).contains(&self.max_swing)
            && self.twist.is_valid()
    }
}
