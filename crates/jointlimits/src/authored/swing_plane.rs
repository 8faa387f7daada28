//! The swing of a rotation as a point of the plane perpendicular to the bone: what the cone and
//! the spherical ellipse bound.
//!
//! `q = swing · twist(τ)` about the twist axis; the swing's scaled angle-axis `s` (the short way,
//! `|s| ≤ π`) has coordinates `(s·first, s·second)` in a right-handed basis of that plane. Its
//! other cover, the long way `s − 2π·ŝ`, pairs with the twist `τ + 2π`: the same rotation.

use glam::{Quat, Vec2, Vec3, Vec4};

use crate::contract::half_swing;
use crate::contract::{BOUNDARY_TOLERANCE, Limited};
use crate::region::covers::nearest_cover_point;
use crate::region::half_swing::{family_member, nearest_member, settle_near_half_swing};
use crate::rotation::{
    rotation_about, swing_and_twist_angle, swing_and_twist_angle_or, to_scaled_angle_axis,
};

/// A rotation split into swing-plane coordinates and a twist angle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SwingPoint {
    /// The short-way swing in plane coordinates.
    pub swing: Vec2,
    /// The twist angle in the cover of the input.
    pub twist: f32,
}

/// Splits `relative` about the unit `twist_axis`, with `first` and `second = twist_axis × first`
/// spanning the swing plane; at a swing of exactly 180° the twist is `previous` when given.
#[inline]
pub(crate) fn split(
    relative: Quat,
    twist_axis: Vec3,
    first: Vec3,
    previous: Option<f32>,
) -> SwingPoint {
    let (swing, twist) = match previous {
        Some(fallback) => swing_and_twist_angle_or(relative, twist_axis, fallback),
        None => swing_and_twist_angle(relative, twist_axis),
    };
    let s = to_scaled_angle_axis(swing);
    SwingPoint {
        swing: Vec2::new(s.dot(first), s.dot(twist_axis.cross(first))),
        twist,
    }
}

/// `exp(swing) · rotation(twist_axis, twist)` for plane coordinates `swing`.
#[inline]
pub(crate) fn rebuild(swing: Vec2, twist: f32, twist_axis: Vec3, first: Vec3) -> Quat {
    let s = swing.x * first + swing.y * twist_axis.cross(first);
    crate::rotation::from_scaled_angle_axis(s) * rotation_about(twist_axis, twist)
}

/// A limit made of a region of swing-plane points and a twist interval, as the planar kinds see
/// it: the frame of the plane and the nearest allowed swing with its distance.
pub(crate) trait PlanarSwing {
    /// The twist axis (unit).
    fn twist_axis(&self) -> Vec3;
    /// The first axis of the swing plane (unit, perpendicular to the twist axis).
    fn first_axis(&self) -> Vec3;
    /// The allowed twists.
    fn twist(&self) -> crate::twist::TwistRange;
    /// The nearest allowed swing-plane point to `swing` and its distance (0 inside).
    fn nearest_swing(&self, swing: Vec2) -> (Vec2, f32);
}

/// The result of limiting `relative`, measured as the swing-plane point `swing` and the twist
/// `twist`, by the planar limit `limit` (metric `√(d_swing² + d_twist²)`).
pub(crate) fn planar_result(
    limit: &impl PlanarSwing,
    relative: Quat,
    swing: Vec2,
    twist: crate::twist::TwistMeasure,
) -> Limited {
    let (allowed, swing_distance) = limit.nearest_swing(swing);
    let violation = (swing_distance * swing_distance + twist.distance * twist.distance).sqrt();
    let measured = Vec4::new(swing.x, swing.y, 0.0, twist.turned);
    if violation <= BOUNDARY_TOLERANCE {
        return Limited::unchanged(relative, measured);
    }
    let (axis, first) = (limit.twist_axis(), limit.first_axis());
    let limited = Limited {
        relative: rebuild(allowed, twist.allowed, axis, first),
        inside: false,
        violation,
        measured,
    };
    let close = |swing: Vec2, twist: f32| planar_violation(limit, swing, twist);
    settle_near_half_swing(relative, axis, limited, swing, twist.turned, close)
}

/// The distance `√(d_swing² + d_twist²)` of the swing-plane point `swing` with the twist `twist`
/// from a planar limit.
fn planar_violation(limit: &impl PlanarSwing, swing: Vec2, twist: f32) -> f32 {
    let (_, swing) = limit.nearest_swing(swing);
    let twist = limit.twist().measure(twist).distance;
    (swing * swing + twist * twist).sqrt()
}

/// The stateless nearest of a planar limit ([`crate::RotationLimit::nearest`]). At a swing of
/// exactly 180° the split nearest the limit is taken ([`nearest_member`]): any twist splits the
/// rotation there, and the one the split makes may lie far from the allowed twists when another
/// is inside them.
#[inline]
pub(crate) fn planar_nearest(limit: &impl PlanarSwing, relative: Quat) -> Limited {
    let mut point = split(relative, limit.twist_axis(), limit.first_axis(), None);
    if half_swing(relative, limit.twist_axis()) {
        let cost = |t: f32| {
            let (swing, twist) = family_member(point.swing, point.twist, t);
            planar_violation(limit, swing, twist)
        };
        (point.swing, point.twist) = family_member(point.swing, point.twist, nearest_member(cost));
    }
    planar_result(
        limit,
        relative,
        point.swing,
        limit.twist().measure(point.twist),
    )
}

/// Whether a planar limit's continuing answer from `previous` is `nearest` itself
/// ([`crate::RotationLimit::continues_as`]): it continues in the swing's cover and the twist's
/// turn nearest the previous measure, as swing-twist limits do.
#[inline]
pub(crate) fn planar_continues_as(
    limit: &impl PlanarSwing,
    relative: Quat,
    nearest: &Limited,
    previous: Vec4,
) -> bool {
    crate::region::swing_twist::continues_in_swing_plane(
        limit.twist_axis(),
        relative,
        nearest,
        previous,
    )
}

/// The continuing nearest of a planar limit ([`crate::RotationLimit::nearest_continuing`]):
/// the swing's cover and the twist's turn nearest the `previous` measure.
#[inline]
pub(crate) fn planar_continuing(
    limit: &impl PlanarSwing,
    relative: Quat,
    previous: Vec4,
) -> Limited {
    let point = split(
        relative,
        limit.twist_axis(),
        limit.first_axis(),
        Some(previous.w),
    );
    let swing = nearest_cover_point(point.swing.extend(0.0), previous.truncate()).truncate();
    let twist = limit.twist().measure_from(point.twist, previous.w);
    planar_result(limit, relative, swing, twist)
}

/// A planar limit as the [`crate::region::SwingTwistLimit`] whose swing shape is the ellipsoid
/// with semi-axes `semi_axes` in the plane's coordinates `(first, twist_axis × first, twist_axis)`
/// (the third, which swing points never leave, the larger of the other two): the same region in
/// the same metric, for evaluators with swing-twist kernels. `None` when a semi-axis is below
/// the smallest an ellipsoid may have.
pub(crate) fn as_swing_twist_ellipsoid(
    limit: &impl PlanarSwing,
    semi_axes: Vec2,
) -> Option<crate::region::SwingTwistLimit> {
    use crate::shape::{EllipsoidShape, Frame, Shape};
    if semi_axes.min_element() < crate::validation::MIN_SEMI_AXIS || !semi_axes.is_finite() {
        return None;
    }
    let (axis, first) = (limit.twist_axis(), limit.first_axis());
    let basis = glam::Mat3::from_cols(first, axis.cross(first), axis);
    let swing = Shape::Ellipsoid(EllipsoidShape {
        frame: Frame::IDENTITY,
        semi_axes: semi_axes.extend(semi_axes.max_element()),
    });
    Some(crate::region::SwingTwistLimit::new(
        axis,
        basis,
        swing,
        limit.twist(),
    ))
}
