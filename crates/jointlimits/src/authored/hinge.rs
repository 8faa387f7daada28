//! A hinge: rotation about one axis only, between two angles.

use glam::{DQuat, DVec3, Mat4, Quat, Vec3, Vec4};
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

/// A hinge's inside test on local rotations with no trigonometry and no product, its ends' half
/// angles and reference worked out once ([`crate::prepared::PreparedLimit`]): conservative, so
/// a rotation it passes is one [`RotationLimit::nearest`] keeps.
///
/// With the relative rotation `(v, w)`, `a = v·axis` and `u = (w, a)`, the hinge angle is
/// `2·atan2(a, w)`, twice the angle of `u`; a turn of 2π of it is `−u`. So the angle lies in
/// `[min, max]` over some turn when `u` or `−u` lies on the arc of half angles from `min/2` to
/// `max/2` (less than half a circle when `max − min < 2π`): taken on the side of the arc's
/// middle `m` (the sign of `u·m`), both cross products with the ends are non-negative. The ends
/// are widened by `0.4 · BOUNDARY_TOLERANCE` (the exact test accepts hinge angles within the
/// tolerance of the range). The part off the hinge, of length `o = |v − a·axis|`, passes when
/// `o² ≤ 0.99 · (0.4 · OFF_AXIS_SLACK)² · |q|²`: then `|u|² ≥ 0.99 · |q|²`, and
/// `2·atan2(o, |u|) ≤ 2o/|u|`; a rotation off unit length, which the exact test normalises, is
/// measured as it is (every test but that one scales with it). The relative rotation is linear in the local one, so `u·m`, the
/// two cross products and the two coordinates of the part off the hinge are five linear forms
/// of the local rotation's components, worked out in f64: one 4×4 product and one dot product.
/// What rounding costs (about 1e-7 rad) lies far inside the rest of the exact test's tolerances
/// (1e-5 rad), so the exact test keeps every rotation this one passes.
#[derive(Clone, Copy, Debug)]
pub struct HingeInside {
    /// Rows `u·m`, the cross products with the two ends, and the first coordinate off the hinge;
    /// a column per component of the local rotation (x, y, z, w).
    forms: Mat4,
    /// The second coordinate off the hinge.
    off_second: Vec4,
    /// Every hinge angle is allowed (a range of a full turn or more): no arc to test.
    full_turn: bool,
}

impl HingeInside {
    /// The test for `hinge` measured from `reference` (a joint's reference rotation); `None` for
    /// a hinge that allows nothing or is not finite.
    pub fn new(hinge: &HingeLimit, reference: Quat) -> Option<HingeInside> {
        let (min, max) = (f64::from(hinge.min), f64::from(hinge.max));
        let finite = min.is_finite() && max.is_finite() && hinge.axis.is_finite();
        if !(finite && reference.is_finite() && min <= max) {
            return None;
        }
        // Widened by less than half the exact test's tolerance, so a hinge of one angle passes
        // too.
        let widen = 0.4 * f64::from(BOUNDARY_TOLERANCE);
        let (min, max) = (min - widen, max + widen);
        let half = |angle: f64| (0.5 * angle).sin_cos();
        let ((low_sin, low_cos), (high_sin, high_cos)) = (half(min), half(max));
        let (middle_sin, middle_cos) = half(0.5 * (min + max));
        let axis = hinge.axis.as_dvec3().normalize();
        let across = axis.any_orthonormal_vector();
        let across_too = axis.cross(across);
        let to_relative = reference.as_dquat().normalize().conjugate();
        // The relative rotation of each unit component of the local one, and the forms there.
        let columns = [
            DQuat::from_xyzw(1.0, 0.0, 0.0, 0.0),
            DQuat::from_xyzw(0.0, 1.0, 0.0, 0.0),
            DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0),
            DQuat::from_xyzw(0.0, 0.0, 0.0, 1.0),
        ]
        .map(|unit| {
            let relative = to_relative * unit;
            let v = DVec3::new(relative.x, relative.y, relative.z);
            let (w, along) = (relative.w, v.dot(axis));
            [
                w * middle_cos + along * middle_sin,
                low_cos * along - low_sin * w,
                w * high_sin - along * high_cos,
                v.dot(across),
                v.dot(across_too),
            ]
        });
        let column = |k: usize| {
            Vec4::new(
                columns[k][0] as f32,
                columns[k][1] as f32,
                columns[k][2] as f32,
                columns[k][3] as f32,
            )
        };
        let off_second = Vec4::from_array(columns.map(|forms| forms[4] as f32));
        Some(HingeInside {
            forms: Mat4::from_cols(column(0), column(1), column(2), column(3)),
            off_second,
            full_turn: max - min >= std::f64::consts::TAU,
        })
    }

    /// Whether the local rotation `local` surely lies on the hinge within its range; `false`
    /// says nothing. A NaN fails every comparison, and so the test.
    #[inline(always)]
    pub fn surely_allowed(&self, local: Quat) -> bool {
        let q = Vec4::from(local);
        let [middle, low, high, off_first] = (self.forms * q).to_array();
        let off_second = self.off_second.dot(q);
        // The exact test normalises a rotation off unit length first; these tests scale with
        // it, but for the part off the hinge, which is compared with the length.
        let length_squared = q.length_squared();
        let slack = 0.4 * OFF_AXIS_SLACK;
        let on_hinge = off_first * off_first + off_second * off_second
            <= 0.99 * slack * slack * length_squared;
        let fair_length = (0.25..=4.0).contains(&length_squared);
        // ±u on the side of the arc's middle.
        let side = if middle >= 0.0 { 1.0 } else { -1.0 };
        let on_arc = self.full_turn || (side * low >= 0.0 && side * high >= 0.0);
        fair_length && on_hinge && on_arc
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
