//! One joint's limit: a reference rotation, a limit region in full or swing-twist space, and
//! optional softening. Projects a local rotation onto the nearest allowed one.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

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
    SwingTwist {
        /// The unit twist axis in the joint's local frame (towards its children).
        twist_axis: Vec3,
        /// The allowed swing points (scaled angle-axis, perpendicular to the axis).
        swing: Shape,
        /// The allowed twist angles.
        twist: TwistRange,
    },
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

impl JointLimit {
    /// The limit space this limit lives in.
    pub fn space(&self) -> SpaceKind {
        match self.region {
            LimitRegion::Full { .. } => SpaceKind::Full,
            LimitRegion::SwingTwist { .. } => SpaceKind::SwingTwist,
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
                    return Limited {
                        relative,
                        inside: true,
                        violation: 0.0,
                    };
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
                swing,
                twist,
            } => {
                let point = swing_twist_point(relative, *twist_axis);
                let swing_projection = swing.project(point.swing);
                let twist_inside = twist.contains(point.twist);
                if swing_projection.inside && twist_inside {
                    return Limited {
                        relative,
                        inside: true,
                        violation: 0.0,
                    };
                }
                let mut allowed = SwingTwistPoint {
                    swing: swing_projection.point,
                    twist: twist.clamp(point.twist),
                };
                if let Some(s) = self.softening {
                    if !swing_projection.inside {
                        allowed.swing = s.apply(point.swing, allowed.swing);
                    }
                    if !twist_inside {
                        allowed.twist = s.apply_scalar(point.twist, allowed.twist);
                    }
                }
                let twist_distance = (point.twist - twist.clamp(point.twist)).abs();
                Limited {
                    relative: from_swing_twist_point(allowed, *twist_axis),
                    inside: false,
                    violation: swing_projection.distance.hypot(twist_distance),
                }
            }
        }
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
                swing,
                twist,
            } => {
                twist_axis.is_finite()
                    && swing.is_finite()
                    && twist.min.is_finite()
                    && twist.max.is_finite()
                    && twist.min <= twist.max
            }
        };
        self.reference.is_finite() && softening_ok && region_ok
    }
}
