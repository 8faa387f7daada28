//! A rotation seen as where it points the bone and how it twists the bone: the coordinates of
//! the kinds that bound the bone's direction (reach cones, tables).

use glam::{Quat, Vec3};

use crate::contract::{BOUNDARY_TOLERANCE, Limited, near_half_swing, settle};
use crate::rotation::{rotation_about, rotation_between_units};

/// The twist angle of `relative` about the unit `axis` (in its cover) and the direction it points
/// the axis, `q·axis`.
///
/// The twist of `q = (v, w)` about the axis is the normalised `(axis(v·axis), w)`, so its angle
/// needs no normalisation; and `swing · axis = q · axis`.
///
/// Within about 1e-6 rad of a 180° swing (`(v·axis)² + w² < 1e-12`) every twist splits the
/// rotation, and `atan2` of the two rounding errors left would pick any of them (a rotation read
/// from a file at exactly 180° came out with a twist of ±π and was corrected 1.6 rad away instead
/// of 0.2): the twist is then the identity's, as the swing-twist kinds take it
/// ([`crate::rotation::swing_and_twist_angle`]).
#[inline(always)]
pub(crate) fn measure(axis: Vec3, relative: Quat) -> (f32, Vec3) {
    let along = Vec3::new(relative.x, relative.y, relative.z).dot(axis);
    let twist = if along * along + relative.w * relative.w < 1e-12 {
        0.0
    } else {
        2.0 * crate::fast_trig::atan2(along, relative.w)
    };
    (twist, relative * axis)
}

/// Whether two unit axes are one (within f32 rounding).
#[inline]
pub(crate) fn same_axis(a: Vec3, b: Vec3) -> bool {
    a.dot(b) >= 1.0 - 1e-6
}

/// The angle between unit vectors, accurate at both ends (atan2 of sine and cosine).
#[inline(always)]
pub(crate) fn angle(a: Vec3, b: Vec3) -> f32 {
    crate::fast_trig::atan2(a.cross(b).length(), a.dot(b))
}

/// The angles between the unit `d` and each of four unit vectors, computed side by side
/// ([`crate::fast_trig::atan2_upper4`]).
#[inline(always)]
pub(crate) fn angles4(d: Vec3, others: [Vec3; 4]) -> [f32; 4] {
    use glam::Vec4;
    let [a, b, c, e] = others;
    let x = Vec4::new(a.x, b.x, c.x, e.x);
    let y = Vec4::new(a.y, b.y, c.y, e.y);
    let z = Vec4::new(a.z, b.z, c.z, e.z);
    let cross_x = d.y * z - d.z * y;
    let cross_y = d.z * x - d.x * z;
    let cross_z = d.x * y - d.y * x;
    let sine = (cross_x * cross_x + cross_y * cross_y + cross_z * cross_z).sqrt();
    let cosine = d.x * x + d.y * y + d.z * z;
    crate::fast_trig::atan2_upper4(sine, cosine).into()
}

/// The result of moving `relative` (twist `twist`, pointing the axis at `direction`) to the
/// allowed rotation pointing it at `to` with twist `allowed_twist`; `turned` is the turn of the
/// input twist that was measured. The violation is `√(α² + δ²)`.
#[inline(always)]
pub(crate) fn moved(
    axis: Vec3,
    relative: Quat,
    (twist, direction): (f32, Vec3),
    to: Vec3,
    turned: f32,
    allowed_twist: f32,
) -> Limited {
    let swing_distance = angle(direction, to);
    let twist_distance = turned - allowed_twist;
    let violation = (swing_distance * swing_distance + twist_distance * twist_distance).sqrt();
    if violation <= BOUNDARY_TOLERANCE {
        return Limited::unchanged(relative, direction.extend(turned));
    }
    let allowed = if to == direction {
        // swing · twist(allowed) = q · twist(allowed − twist), exact in the input's swing.
        relative * rotation_about(axis, allowed_twist - twist)
    } else {
        rotation_between_units(axis, to) * rotation_about(axis, allowed_twist)
    };
    let limited = Limited {
        relative: allowed,
        inside: false,
        violation,
        measured: to.extend(turned),
    };
    if near_half_swing(relative, axis) {
        return settle(relative, limited);
    }
    limited
}
