//! One joint's limit: a reference rotation, a limit region in full or swing-twist space, and
//! optional softening. Projects a local rotation onto the nearest allowed one.

use glam::{Mat3, Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::authored::{ConeLimit, EulerLimit, HingeLimit, SphericalEllipseLimit};
use crate::reach_cone::ReachConeLimit;
use crate::rotation::{from_scaled_angle_axis, quat_abs};
use crate::shape::{LimitShape, Shape};
use crate::soften::Softening;
use crate::space::{
    SpaceKind, SwingTwistPoint, from_swing_twist_point, full_point, swing_twist_point,
};

/// An interval of twist angles, radians.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwistRange {
    /// Smallest allowed twist.
    pub min: f32,
    /// Largest allowed twist (`min ≤ max`).
    pub max: f32,
}

impl TwistRange {
    /// Whether `twist` is inside.
    #[inline]
    pub fn contains(&self, twist: f32) -> bool {
        (self.min..=self.max).contains(&twist)
    }

    /// The nearest allowed twist.
    #[inline]
    pub fn clamp(&self, twist: f32) -> f32 {
        twist.clamp(self.min, self.max)
    }

    /// Both ends are finite and `min ≤ max`.
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min <= self.max
    }
}

/// The region of allowed relative rotations, in one of the two limit spaces.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "space", rename_all = "snake_case")]
pub enum LimitRegion {
    /// A region over `log(q_rel)`.
    Full {
        /// The allowed scaled angle-axis points.
        shape: Shape,
    },
    /// A swing region and a twist interval about `twist_axis`.
    ///
    /// Swing points are stored in swing-plane coordinates `swing_basisᵀ · s`, whose third
    /// coordinate (along the twist axis) is zero. Every fitted shape is symmetric in that coordinate,
    /// so projecting a swing point keeps it in the plane: the projection onto the shape is also the
    /// projection onto the shape's slice of allowed swings.
    SwingTwist {
        /// The unit twist axis in the joint's local frame (towards its children).
        twist_axis: Vec3,
        /// Orthonormal, right-handed columns `(u, v, twist_axis)`.
        swing_basis: Mat3,
        /// The allowed swing points in swing-plane coordinates (scaled angle-axis, radians).
        swing: Shape,
        /// The allowed twist angles.
        twist: TwistRange,
    },
    /// A reach cone for the direction of the bone axis, with twist limits that vary across it.
    ReachCone(ReachConeLimit),
    /// A range per Euler angle.
    Euler(EulerLimit),
    /// Rotation about one axis between two angles.
    Hinge(HingeLimit),
    /// A circular swing cone and a twist interval.
    Cone(ConeLimit),
    /// An elliptic swing bound and a twist interval.
    SphericalEllipse(SphericalEllipseLimit),
}

/// A joint's rotation limit.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLimit {
    /// The joint's name in the skeleton.
    pub joint: String,
    /// The rotation limits are measured from: `q_rel = reference⁻¹ · q`.
    pub reference: Quat,
    /// The allowed relative rotations.
    pub region: LimitRegion,
    /// Softening of projections, or `None` for hard limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub softening: Option<Softening>,
}

/// The result of limiting a relative rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limited {
    /// The allowed relative rotation (the input itself when it was inside).
    pub relative: Quat,
    /// Whether the input was inside the limit.
    pub inside: bool,
    /// How far outside the input was, in limit space (radians; 0 inside). For swing-twist it is
    /// `√(swing distance² + twist distance²)`.
    pub violation: f32,
}

impl Limited {
    /// The result for a rotation that was already inside.
    #[inline]
    pub fn unchanged(relative: Quat) -> Limited {
        Limited {
            relative,
            inside: true,
            violation: 0.0,
        }
    }
}

impl LimitRegion {
    /// A short description, such as `ellipsoid` or `reach cone (32 points) + twist`.
    pub fn label(&self) -> String {
        match self {
            LimitRegion::Full { shape } => shape.label(),
            LimitRegion::SwingTwist { swing, .. } => format!("{} swing + twist", swing.label()),
            LimitRegion::ReachCone(limit) => {
                format!(
                    "reach cone ({} points) + twist",
                    limit.cone.boundary().len()
                )
            }
            LimitRegion::Euler(limit) => format!("Euler {} ranges", limit.order),
            LimitRegion::Hinge(_) => "hinge".to_string(),
            LimitRegion::Cone(_) => "swing cone + twist".to_string(),
            LimitRegion::SphericalEllipse(_) => "spherical ellipse + twist".to_string(),
        }
    }
}

impl JointLimit {
    /// The limit space this limit lives in: Euler ranges count as full, every region that
    /// splits off a twist as swing-twist.
    pub fn space(&self) -> SpaceKind {
        match self.region {
            LimitRegion::Full { .. } | LimitRegion::Euler(_) => SpaceKind::Full,
            _ => SpaceKind::SwingTwist,
        }
    }

    /// `reference⁻¹ · local`, in the cover of the input.
    #[inline]
    pub fn relative(&self, local: Quat) -> Quat {
        self.reference.conjugate() * local
    }

    /// `reference · relative`: back to a local rotation.
    #[inline]
    pub fn local(&self, relative: Quat) -> Quat {
        self.reference * relative
    }

    /// Limits a relative rotation given in the cover to measure it in (see [`crate::space`]).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        match &self.region {
            LimitRegion::Full { shape } => {
                let p = full_point(relative);
                let projection = shape.project(p);
                if projection.inside {
                    return Limited::unchanged(relative);
                }
                let target = match self.softening {
                    Some(s) => s.apply(p, projection.point),
                    None => projection.point,
                };
                Limited {
                    relative: from_scaled_angle_axis(target),
                    inside: false,
                    violation: projection.distance,
                }
            }
            LimitRegion::SwingTwist {
                twist_axis,
                swing_basis,
                swing,
                twist,
            } => {
                let point = swing_twist_point(relative, *twist_axis);
                let in_plane = swing_plane_point(swing_basis, point.swing);
                let swing_projection = swing.project(in_plane);
                let twist_inside = twist.contains(point.twist);
                if swing_projection.inside && twist_inside {
                    return Limited::unchanged(relative);
                }
                let mut allowed_in_plane = swing_projection.point;
                let mut allowed_twist = twist.clamp(point.twist);
                if let Some(s) = self.softening {
                    if !swing_projection.inside {
                        allowed_in_plane = s.apply(in_plane, allowed_in_plane);
                    }
                    if !twist_inside {
                        allowed_twist = s.apply_scalar(point.twist, allowed_twist);
                    }
                }
                let allowed = SwingTwistPoint {
                    swing: *swing_basis * allowed_in_plane.with_z(0.0),
                    twist: allowed_twist,
                };
                let twist_distance = (point.twist - twist.clamp(point.twist)).abs();
                Limited {
                    relative: from_swing_twist_point(allowed, *twist_axis),
                    inside: false,
                    violation: swing_projection.distance.hypot(twist_distance),
                }
            }
            LimitRegion::ReachCone(limit) => {
                self.softened(relative, limit.limit_relative(relative))
            }
            LimitRegion::Euler(limit) => self.softened(relative, limit.limit_relative(relative)),
            LimitRegion::Hinge(limit) => self.softened(relative, limit.limit_relative(relative)),
            LimitRegion::Cone(limit) => self.softened(relative, limit.limit_relative(relative)),
            LimitRegion::SphericalEllipse(limit) => {
                self.softened(relative, limit.limit_relative(relative))
            }
        }
    }

    /// `limited` with this limit's softening applied along the geodesic back to `relative`.
    #[inline]
    fn softened(&self, relative: Quat, mut limited: Limited) -> Limited {
        if let (Some(s), false) = (self.softening, limited.inside) {
            limited.relative = s.apply_rotation(relative, limited.relative);
        }
        limited
    }

    /// Limits a local rotation, measuring the short way from the reference (no history: see
    /// [`crate::limiter::Limiter`] for streams of frames).
    #[inline]
    pub fn limit(&self, local: Quat) -> Quat {
        let limited = self.limit_relative(quat_abs(self.relative(local)));
        if limited.inside {
            local
        } else {
            self.local(limited.relative)
        }
    }

    /// Every stored number is finite (and the twist interval is not inverted).
    pub fn is_finite(&self) -> bool {
        let softening_ok = self.softening.is_none_or(|s| s.is_valid());
        let region_ok = match &self.region {
            LimitRegion::Full { shape } => shape.is_finite(),
            LimitRegion::SwingTwist {
                twist_axis,
                swing_basis,
                swing,
                twist,
            } => {
                twist_axis.is_finite()
                    && swing_basis.is_finite()
                    && swing.is_finite()
                    && twist.is_valid()
            }
            LimitRegion::ReachCone(limit) => limit.is_finite(),
            LimitRegion::Euler(limit) => limit.is_finite(),
            LimitRegion::Hinge(limit) => limit.is_finite(),
            LimitRegion::Cone(limit) => limit.is_finite(),
            LimitRegion::SphericalEllipse(limit) => limit.is_finite(),
        };
        self.reference.is_finite() && softening_ok && region_ok
    }
}

/// Orthonormal, right-handed columns `(u, v, axis)` for the unit twist `axis`: the swing-plane
/// coordinates used by [`LimitRegion::SwingTwist`].
pub fn swing_basis(axis: Vec3) -> Mat3 {
    let (u, v) = axis.any_orthonormal_pair();
    Mat3::from_cols(u, v, axis)
}

/// A swing's scaled angle-axis in swing-plane coordinates, with the rounding residue along the
/// twist axis removed.
#[inline]
pub fn swing_plane_point(basis: &Mat3, swing: Vec3) -> Vec3 {
    (basis.transpose() * swing).with_z(0.0)
}
