//! A circular swing cone with a twist interval.

use glam::{Quat, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::swing_plane::{
    PlanarSwing, as_swing_twist_ellipsoid, planar_continues_as, planar_continuing, planar_nearest,
};
use crate::contract::{LimitContext, Limited, RotationLimit};
use crate::region::SwingTwistLimit;
use crate::space::SpaceKind;
use crate::twist::TwistRange;
use crate::validation::{self, InvalidField};

/// The classic ball-and-socket limit: the bone axis may swing up to `max_swing` away from its
/// reference direction, and twist within `twist` (modulo 2π).
///
/// Metric: `√(d_swing² + d_twist²)` over the swing's scaled angle-axis (a point of the plane
/// perpendicular to `twist_axis`) and the twist angle. The allowed swings are the disc
/// `|s| ≤ max_swing`, so the nearest swing is the radial clamp, and the short-way swing is
/// always at least as near as the long way (`max_swing ≤ π`). `measured` is
/// `(swing x, swing y, 0, twist)` in the cover and turn used.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ConeLimit {
    /// The bone axis at the reference rotation (unit length).
    pub twist_axis: Vec3,
    /// The largest swing angle, radians in `[0, π]`.
    pub max_swing: f32,
    /// The allowed twist angles.
    pub twist: TwistRange,
}

impl PlanarSwing for ConeLimit {
    fn twist_axis(&self) -> Vec3 {
        self.twist_axis
    }

    fn first_axis(&self) -> Vec3 {
        self.twist_axis.any_orthonormal_vector()
    }

    fn twist(&self) -> TwistRange {
        self.twist
    }

    /// The radial clamp onto the disc.
    fn nearest_swing(&self, swing: Vec2) -> (Vec2, f32) {
        let length = swing.length();
        if length <= self.max_swing {
            return (swing, 0.0);
        }
        (swing * (self.max_swing / length), length - self.max_swing)
    }
}

impl ConeLimit {
    /// The same limit as a swing-twist limit whose swing is a ball of radius `max_swing` in the
    /// swing plane: the same region and metric (a disc is an ellipse), so its answers agree up to
    /// rounding, but for ties: at a swing of 180° both covers of the swing are equally near, and
    /// the cone takes the short one where the swing-twist limit may take either. What the GPU
    /// crowd's swing-twist kernel limits, told to take the short cover. `None` for a swing
    /// cone narrower than the smallest semi-axis an ellipsoid may have.
    pub fn as_swing_twist(&self) -> Option<SwingTwistLimit> {
        as_swing_twist_ellipsoid(self, Vec2::splat(self.max_swing))
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// (`crate::rotation_cells::prove_swing_plane_cells`; `to_relative` unit): a swing point
    /// `s` lies `max_swing − |s|` inside the disc.
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        let first = self.first_axis();
        let basis = glam::Mat3::from_cols(first, self.twist_axis.cross(first), self.twist_axis);
        crate::rotation_cells::prove_swing_plane_cells(
            to_relative,
            &basis,
            [self.twist.min, self.twist.max],
            |point| self.max_swing - point.length(),
        )
    }
}

impl RotationLimit for ConeLimit {
    fn bone_axis(&self) -> Option<Vec3> {
        Some(self.twist_axis)
    }

    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        planar_nearest(self, relative)
    }

    #[inline]
    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        planar_continuing(self, relative, previous)
    }

    #[inline]
    fn continues_as(&self, relative: Quat, nearest: &Limited, previous: Vec4) -> bool {
        planar_continues_as(self, relative, nearest, previous)
    }

    fn is_degenerate(&self, relative: Quat) -> bool {
        crate::contract::half_swing(relative, self.twist_axis)
    }

    fn validate(&self) -> Result<(), InvalidField> {
        validation::unit_vector("twist_axis", self.twist_axis)?;
        let swing = self.max_swing;
        let ok = swing.is_finite() && (0.0..=std::f32::consts::PI).contains(&swing);
        validation::require(ok, "max_swing", || {
            format!("{swing} is not an angle in [0, π]")
        })?;
        self.twist.validate()
    }

    fn label(&self) -> String {
        "swing cone + twist".to_string()
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::SwingTwist
    }

    fn examples() -> Vec<ConeLimit> {
        vec![
            ConeLimit {
                twist_axis: Vec3::new(0.0, 1.0, 0.3).normalize(),
                max_swing: 1.1,
                twist: TwistRange {
                    min: -0.4,
                    max: 0.7,
                },
            },
            ConeLimit {
                twist_axis: Vec3::X,
                max_swing: 2.9,
                twist: TwistRange { min: 2.8, max: 3.5 },
            },
        ]
    }
}
