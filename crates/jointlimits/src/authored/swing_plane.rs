//! The swing of a rotation as a point of the plane perpendicular to the bone: what the cone and
//! the spherical ellipse bound.
//!
//! `q = swing · twist(τ)` about the twist axis; the swing's scaled angle-axis `s` (the short way,
//! `|s| ≤ π`) has coordinates `(s·first, s·second)` in a right-handed basis of that plane. Its
//! other cover, the long way `s − 2π·ŝ`, pairs with the twist `τ + 2π`: the same rotation.

use std::f32::consts::TAU;

use glam::{Quat, Vec2, Vec3};

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

/// The cover of the swing `p` whose point is nearer to `previous`.
#[inline]
pub(crate) fn cover_nearest(p: Vec2, previous: Vec2) -> Vec2 {
    let length = p.length();
    if length <= 1e-6 {
        return p;
    }
    let other = p * (1.0 - TAU / length);
    if other.distance_squared(previous) < p.distance_squared(previous) {
        other
    } else {
        p
    }
}
