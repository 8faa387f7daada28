//! A hinge: rotation about one axis only, between two angles.

use glam::{Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use crate::contract::{BOUNDARY_TOLERANCE, LimitContext, Limited, RotationLimit};
use crate::rotation::{angle_between, rotation_about};
use crate::space::SpaceKind;
use crate::twist::{TwistMeasure, TwistRange};
use crate::validation::{self, InvalidField};

/// Largest off-axis rotation (radians) still counted as on the hinge: f32 rounding of a pure
/// hinge rotation stays far below it.
const OFF_AXIS_SLACK: f32 = 1e-5;

/// A one-axis joint (elbow, knee, finger): relative rotations `rotation(axis, θ)` with
/// `θ ∈ [min, max]` modulo 2π.
///
/// Metric: the rotation angle between the input and the output. The rotation about `axis`
/// nearest to `q = (v, w)` in it has the angle `θ` of `q`'s twist, `θ = 2·atan2(v·axis, w)`:
/// `|⟨q, rotation(axis, θ′)⟩| = N·|cos((θ′ − θ)/2)|` with `N = |(v·axis, w)|`, which is largest for
/// the `θ′` of the interval nearest to `θ` over every turn. `measured` is `(θ turned, 0, 0, 0)`.
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
        let off = 2.0
            * crate::fast_trig::atan2(off_axis, (along * along + relative.w * relative.w).sqrt());
        (hinge, off)
    }

    fn range(&self) -> TwistRange {
        TwistRange {
            min: self.min,
            max: self.max,
        }
    }

    fn result(&self, relative: Quat, off_axis: f32, angle: TwistMeasure) -> Limited {
        let measured = Vec4::new(angle.turned, 0.0, 0.0, 0.0);
        if off_axis <= OFF_AXIS_SLACK && angle.distance <= BOUNDARY_TOLERANCE {
            return Limited::unchanged(relative, measured);
        }
        let limited = rotation_about(self.axis, angle.allowed);
        Limited {
            relative: limited,
            inside: false,
            violation: angle_between(relative, limited),
            measured,
        }
    }
}

impl RotationLimit for HingeLimit {
    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        let (hinge, off_axis) = self.angles(relative);
        self.result(relative, off_axis, self.range().measure(hinge))
    }

    #[inline]
    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        let (mut hinge, off_axis) = self.angles(relative);
        if crate::contract::half_swing(relative, self.axis) {
            // Half a turn off the hinge: every hinge angle is equally near; keep the stream's.
            hinge = previous.x;
        }
        self.result(
            relative,
            off_axis,
            self.range().measure_from(hinge, previous.x),
        )
    }

    fn is_degenerate(&self, relative: Quat) -> bool {
        crate::contract::half_swing(relative, self.axis)
    }

    fn validate(&self) -> Result<(), InvalidField> {
        validation::unit_vector("axis", self.axis)?;
        validation::interval("angle", self.min, self.max)
    }

    fn label(&self) -> String {
        "hinge".to_string()
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::SwingTwist
    }

    fn examples() -> Vec<HingeLimit> {
        let axis = Vec3::new(1.0, 0.1, 0.0).normalize();
        vec![
            HingeLimit {
                axis,
                min: -0.1,
                max: 2.4,
            },
            // Past half a turn: angles near ±π are inside by turning.
            HingeLimit {
                axis: Vec3::Z,
                min: 2.0,
                max: 4.0,
            },
        ]
    }
}
