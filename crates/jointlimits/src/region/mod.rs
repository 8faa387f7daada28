//! Every limit kind, registered once.
//!
//! [`LimitRegion`] is the enum that dispatches [`RotationLimit`] to the kind a joint uses (no
//! trait objects on the hot path). It is generated from one registration list below: adding a
//! kind is its own file implementing [`RotationLimit`] plus one line in that list, and the
//! compiler checks the rest (the dispatch, the file format's `space` tag, the list of examples that
//! every property test iterates).

pub mod covers;
mod full;
pub(crate) mod half_swing;
mod swing_symmetry;
pub(crate) mod swing_twist;

use glam::{DVec3, Quat, Vec4};
use serde::{Deserialize, Serialize};

pub use full::FullLimit;
pub use swing_twist::{SwingTwistLimit, swing_basis, swing_plane_point};

use crate::authored::{ConeLimit, EulerLimit, HingeLimit, SphericalEllipseLimit};
use crate::contract::{LimitContext, Limited, RotationLimit};
use crate::coupled::CoupledLimit;
use crate::fit::{FitOptions, ShapeKind, fit_shape};
use crate::reach_cone::ReachConeLimit;
use crate::shape::Shape;
use crate::space::SpaceKind;
use crate::table::TableLimit;
use crate::validation::InvalidField;

macro_rules! register_limit_kinds {
    ($($(#[$doc:meta])* $variant:ident($kind:ty) = $name:literal,)*) => {
        /// The region of allowed relative rotations: one of the registered limit kinds. In a
        /// limits file its `space` field names the kind.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "space", rename_all = "snake_case")]
        pub enum LimitRegion {
            $($(#[$doc])* $variant($kind),)*
        }

        impl LimitRegion {
            /// The name of every registered kind, as in limits files.
            pub const KIND_NAMES: &[&str] = &[$($name),*];

            /// The name of this region's kind, as in limits files.
            pub fn kind_name(&self) -> &'static str {
                match self {
                    $(LimitRegion::$variant(_) => $name,)*
                }
            }
        }

        $(impl From<$kind> for LimitRegion {
            fn from(kind: $kind) -> LimitRegion {
                LimitRegion::$variant(kind)
            }
        })*

        impl RotationLimit for LimitRegion {
            #[inline]
            fn nearest(&self, relative: Quat, context: &LimitContext) -> Limited {
                match self {
                    $(LimitRegion::$variant(kind) => kind.nearest(relative, context),)*
                }
            }

            #[inline]
            fn nearest_continuing(
                &self,
                relative: Quat,
                previous: Vec4,
                context: &LimitContext,
            ) -> Limited {
                match self {
                    $(LimitRegion::$variant(kind) => {
                        kind.nearest_continuing(relative, previous, context)
                    })*
                }
            }

            #[inline]
            fn continues_as(&self, relative: Quat, nearest: &Limited, previous: Vec4) -> bool {
                match self {
                    $(LimitRegion::$variant(kind) => kind.continues_as(relative, nearest, previous),)*
                }
            }

            #[inline]
            fn surely_outside(&self, relative: Quat, context: &LimitContext) -> bool {
                match self {
                    $(LimitRegion::$variant(kind) => kind.surely_outside(relative, context),)*
                }
            }

            #[inline]
            fn leads_to(
                &self,
                relative: Quat,
                previous: Vec4,
                continued: &Limited,
                nearest: &Limited,
            ) -> bool {
                match self {
                    $(LimitRegion::$variant(kind) => {
                        kind.leads_to(relative, previous, continued, nearest)
                    })*
                }
            }

            #[inline]
            fn previous_on_nearest_turn(&self, previous: Vec4, nearest: &Limited) -> Option<Vec4> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.previous_on_nearest_turn(previous, nearest),)*
                }
            }

            #[inline]
            fn is_degenerate(&self, relative: Quat) -> bool {
                match self {
                    $(LimitRegion::$variant(kind) => kind.is_degenerate(relative),)*
                }
            }

            #[inline]
            fn contains(&self, relative: Quat, context: &LimitContext) -> bool {
                match self {
                    $(LimitRegion::$variant(kind) => kind.contains(relative, context),)*
                }
            }

            fn bone_axis(&self) -> Option<glam::Vec3> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.bone_axis(),)*
                }
            }

            fn reaches_direction(&self, axis: glam::Vec3, direction: glam::Vec3) -> Option<bool> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.reaches_direction(axis, direction),)*
                }
            }

            fn twists_along(
                &self,
                axis: glam::Vec3,
                direction: glam::Vec3,
            ) -> Option<Vec<crate::twist::TwistRange>> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.twists_along(axis, direction),)*
                }
            }

            fn stress(&self, limited: &Limited) -> Option<f32> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.stress(limited),)*
                }
            }

            fn break_margin(&self, limited: &Limited) -> Option<f32> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.break_margin(limited),)*
                }
            }

            fn validate(&self) -> Result<(), InvalidField> {
                match self {
                    $(LimitRegion::$variant(kind) => kind.validate(),)*
                }
            }

            fn label(&self) -> String {
                match self {
                    $(LimitRegion::$variant(kind) => kind.label(),)*
                }
            }

            fn space(&self) -> SpaceKind {
                match self {
                    $(LimitRegion::$variant(kind) => kind.space(),)*
                }
            }

            fn examples() -> Vec<LimitRegion> {
                let mut all = Vec::new();
                $(all.extend(<$kind>::examples().into_iter().map(LimitRegion::$variant));)*
                all
            }
        }
    };
}

register_limit_kinds! {
    /// A shape over the scaled angle-axis of the whole rotation.
    Full(FullLimit) = "full",
    /// A swing shape and a twist interval.
    SwingTwist(SwingTwistLimit) = "swing_twist",
    /// A reach cone for the bone's direction with twist limits that vary across it.
    ReachCone(ReachConeLimit) = "reach_cone",
    /// A range per Euler angle.
    Euler(EulerLimit) = "euler",
    /// Rotation about one axis between two angles.
    Hinge(HingeLimit) = "hinge",
    /// A circular swing cone and a twist interval.
    Cone(ConeLimit) = "cone",
    /// An elliptic swing bound and a twist interval.
    SphericalEllipse(SphericalEllipseLimit) = "spherical_ellipse",
    /// Lookup tables over the sphere of bone directions: allowed directions, twist range,
    /// stress and break margin per direction.
    Table(TableLimit) = "table",
    /// A box over the child's limit space whose bounds follow the parent bone's direction.
    Coupled(CoupledLimit) = "coupled",
}

/// A deterministic cloud of 400 limit-space points spread around `center` along skewed axes,
/// `spread` times about half a radian: the samples the example shapes are fitted to.
pub(crate) fn example_cloud(center: DVec3, spread: f64) -> Vec<DVec3> {
    (0..400)
        .map(|i| {
            let t = f64::from(i) * 0.173;
            let (a, b, c) = ((1.3 * t).sin(), (0.7 * t).cos(), (2.1 * t).sin());
            let offset = DVec3::new(0.45 * a + 0.1 * b, 0.3 * b - 0.05 * c, 0.2 * c + 0.08 * a);
            center + offset * spread
        })
        .collect()
}

/// The centre and spread of an example cloud whose shapes reach past a full turn (their
/// bounding balls to 7–8 rad) from a nearest point about 4 rad out: regions only hand-written
/// limits have, whose part beyond [`covers::COVER_REACH`] holds no rotation. (Their swings stay
/// clear of 180°, where a swing-twist split is singular.)
pub(crate) const PAST_FULL_TURN: (DVec3, f64) = (DVec3::new(5.0, 3.0, 0.0), 2.5);

/// Every limit-space shape kind fitted to `cloud` with the default options.
pub(crate) fn example_shapes(cloud: &[DVec3]) -> Vec<Shape> {
    let options = FitOptions::default();
    ShapeKind::ALL
        .into_iter()
        .filter(|&kind| !kind.ignores_space())
        .filter_map(|kind| fit_shape(kind, cloud, cloud, &options).ok())
        .collect()
}

/// Probes of the whole input space around `limit`: Haar-random rotations in both covers, the
/// allowed rotations nearest to them (on the boundary, both signs), and rotations halfway there
/// from the identity (mostly inside).
#[cfg(test)]
pub(crate) fn probes_around<L: RotationLimit>(limit: &L, seed: u64) -> Vec<Quat> {
    let mut random = jointlimits_testdata::SplitMix(seed);
    let haar: Vec<Quat> = (0..4000)
        .map(|_| Quat::from_array(random.haar_quaternion()))
        .collect();
    let mut probes = haar.clone();
    for &q in &haar {
        let boundary = limit.nearest(q, &LimitContext::NONE).relative;
        probes.extend([boundary, -boundary, Quat::IDENTITY.slerp(boundary, 0.5)]);
    }
    probes
}
