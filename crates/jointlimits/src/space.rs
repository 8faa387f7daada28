//! Limit space: where a joint's rotation becomes a point that a limit region can hold.
//!
//! A joint's local rotation `q` is first made relative to its reference rotation,
//! `q_rel = q_ref⁻¹ · q`, so limits describe motion away from a meaningful pose. Then either
//! - **full**: the whole rotation is one scaled angle-axis point `log(q_rel) ∈ ℝ³`; or
//! - **swing-twist**: `q_rel = swing · twist` about the joint's twist axis (towards its children);
//!   the swing is a scaled angle-axis point (perpendicular to the axis) and the twist a signed angle.
//!
//! The cover of `q_rel` (`±q_rel`) gives a different point: the long way round (`w < 0`) maps to
//! angles beyond π. Offline, each clip is unrolled so that its points move continuously; at
//! runtime a rotation is allowed when either cover's point is (see [`crate::region::covers`] and
//! `docs/limits.md`).

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::rotation::{from_scaled_angle_axis, rotation_about, swing_twist, to_scaled_angle_axis};

/// Which limit space a joint limit lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum SpaceKind {
    /// One 3D region over the scaled angle-axis of the whole relative rotation.
    #[default]
    Full,
    /// A 3D region over the swing's scaled angle-axis and an interval of twist angles.
    SwingTwist,
}

/// A relative rotation as swing point and twist angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingTwistPoint {
    /// Scaled angle-axis of the swing (perpendicular to the twist axis), radians.
    pub swing: Vec3,
    /// Signed twist angle about the twist axis, radians in `(−2π, 2π]`.
    pub twist: f32,
}

/// The full limit-space point of a relative rotation: `log(q_rel)` as scaled angle-axis.
#[inline]
pub fn full_point(relative: Quat) -> Vec3 {
    to_scaled_angle_axis(relative)
}

/// The swing-twist limit-space point of a relative rotation about the unit `axis`.
///
/// The swing is always the short way (its `w ≥ 0`); the cover of `relative` is carried by the
/// twist, whose angle therefore runs continuously past ±π when the input is unrolled.
#[inline]
pub fn swing_twist_point(relative: Quat, axis: Vec3) -> SwingTwistPoint {
    let split = swing_twist(relative, axis);
    let sin_half = Vec3::new(split.twist.x, split.twist.y, split.twist.z).dot(axis);
    SwingTwistPoint {
        swing: to_scaled_angle_axis(split.swing),
        twist: 2.0 * crate::fast_trig::atan2(sin_half, split.twist.w),
    }
}

/// The relative rotation of a swing-twist point: `exp(swing) · rotation(axis, twist)`.
#[inline]
pub fn from_swing_twist_point(point: SwingTwistPoint, axis: Vec3) -> Quat {
    from_scaled_angle_axis(point.swing) * rotation_about(axis, point.twist)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn swing_twist_points_rebuild_the_rotation(
            v in prop::array::uniform4(-1.0f32..1.0),
            a in prop::array::uniform3(-1.0f32..1.0),
        ) {
            let q = Quat::from_xyzw(v[0], v[1], v[2], v[3]);
            let axis = Vec3::from(a);
            prop_assume!(q.length() > 0.1 && axis.length() > 0.1);
            let (q, axis) = (q.normalize(), axis.normalize());
            let point = swing_twist_point(q, axis);
            prop_assume!(point.swing.length() < 3.1); // away from the 180° swing singularity
            let back = from_swing_twist_point(point, axis);
            prop_assert!(back.dot(q) > 1.0 - 1e-5, "{q} -> {back}");
            prop_assert!(point.swing.dot(axis).abs() < 1e-4);
        }
    }
}
