//! Quaternion helpers that the rest of the library is built on.
//!
//! Conventions: glam quaternions `(x, y, z, w)`, unit length, right-handed. A rotation and its
//! negation describe the same orientation but different *paths* from the identity: `q` with
//! `w ≥ 0` turns by at most π ("the short way"), `-q` by `2π - angle` ("the long way"). Joint limits
//! work on relative rotations, where this difference matters, so these helpers keep track of it.

use glam::{Quat, Vec3, Vec4};

/// Below this vector-part length a rotation is treated as the identity (or as a full turn).
const TINY: f32 = 1e-12;

/// The cover of `q` that turns the short way: `q` if `w ≥ 0`, else `-q`.
///
/// Both describe the same orientation; the returned one has a rotation angle in `[0, π]`.
#[inline]
pub fn quat_abs(q: Quat) -> Quat {
    if q.w < 0.0 { -q } else { q }
}

/// Unrolls a sequence of rotations in place so that consecutive quaternions have a non-negative
/// dot product, removing the sudden cover switches found in recorded data.
///
/// The first sample is made to take the short way ([`quat_abs`]); every later one takes the cover
/// closest to its predecessor. Rotations of more than π from the identity survive, but only when the
/// sequence actually travels there continuously. Unroll each clip (each contiguous range of frames)
/// separately: a cut between clips is not motion.
pub fn unroll(rotations: &mut [Quat]) {
    let Some((first, rest)) = rotations.split_first_mut() else {
        return;
    };
    *first = quat_abs(*first);
    let mut previous = *first;
    for q in rest {
        if q.dot(previous) < 0.0 {
            *q = -*q;
        }
        previous = *q;
    }
}

/// The cover of `q` nearest to `previous` (dot product ≥ 0): one step of [`unroll`], for runtime
/// use on a stream of frames.
#[inline]
pub fn nearest_cover(q: Quat, previous: Quat) -> Quat {
    if q.dot(previous) < 0.0 { -q } else { q }
}

/// The quaternion logarithm as a scaled angle-axis vector: `axis × angle`, with the full rotation
/// angle in `[0, 2π]` (not the half angle).
///
/// For `q = (sin(θ/2)·n, cos(θ/2))` this returns `θ·n` with `θ = 2·atan2(|v|, w)`. `atan2` keeps
/// full relative precision near `θ = 0` (where `θ·n ≈ 2v`) and near `θ = π` (where `w ≈ 0`).
/// Quaternions with `w < 0` give angles above π: the long way round, which [`unroll`] preserves.
/// The exact antipode of the identity (`w = -1`, `v = 0`) is a full turn about an undefined axis;
/// this returns `2π` about +X so that the result stays finite and keeps its length.
/// The input is assumed unit length.
#[inline(always)]
pub fn to_scaled_angle_axis(q: Quat) -> Vec3 {
    if q.w >= 0.0 {
        return short_scaled_angle_axis(q);
    }
    let v = Vec3::new(q.x, q.y, q.z);
    let sin_half = v.length();
    if sin_half < TINY {
        return Vec3::X * std::f32::consts::TAU;
    }
    let angle = 2.0 * crate::fast_trig::atan2(sin_half, q.w);
    v * (angle / sin_half)
}

/// [`to_scaled_angle_axis`] of a rotation taking the short way (`w ≥ 0`), the limits' runtime
/// case. One-at-a-time and lane paths both call it, so their points agree bit for bit.
///
/// With `s = |v|`: up to 90° (`s ≤ w`), `θ/s = 2·atan(t)/(t·w)` with `t = s/w` is a polynomial
/// in `t² = s²/w²` times `1/w`, exact down to `s = 0` with no square root; beyond,
/// `θ/2 = π/2 − atan(w/s)`.
#[inline(always)]
pub fn short_scaled_angle_axis(q: Quat) -> Vec3 {
    let sin_half_squared = q.x * q.x + q.y * q.y + q.z * q.z;
    let scale = if sin_half_squared <= q.w * q.w {
        short_log_scale_within_quarter(sin_half_squared, q.w)
    } else {
        short_log_scale_beyond_quarter(sin_half_squared, q.w)
    };
    Vec3::new(q.x * scale, q.y * scale, q.z * scale)
}

/// `θ/s` of [`short_scaled_angle_axis`] up to 90° (`s² ≤ w²`). Lanes compute this and
/// [`short_log_scale_beyond_quarter`] both and keep one, without a branch.
#[inline(always)]
pub fn short_log_scale_within_quarter(sin_half_squared: f32, w: f32) -> f32 {
    let inverse_w = w.recip();
    let t_squared = sin_half_squared * inverse_w * inverse_w;
    2.0 * crate::fast_trig::atan_over_t(t_squared) * inverse_w
}

/// `θ/s` of [`short_scaled_angle_axis`] beyond 90° (`s² > w²`).
#[inline(always)]
pub fn short_log_scale_beyond_quarter(sin_half_squared: f32, w: f32) -> f32 {
    let sin_half = sin_half_squared.sqrt();
    let ratio = w / sin_half;
    let half_angle =
        std::f32::consts::FRAC_PI_2 - ratio * crate::fast_trig::atan_over_t(ratio * ratio);
    2.0 * half_angle / sin_half
}

/// The Hamilton product `a · b`, written out term by term. The limits' reference changes use it
/// on both the one-at-a-time and the lane paths, so the two agree bit for bit (a library product
/// may order its operations otherwise, or fuse them).
#[inline(always)]
pub fn product(a: Quat, b: Quat) -> Quat {
    let (x, y, z, w) = (b.x, b.y, b.z, b.w);
    Quat::from_xyzw(
        a.w * x + a.x * w + a.y * z - a.z * y,
        a.w * y - a.x * z + a.y * w + a.z * x,
        a.w * z + a.x * y - a.y * x + a.z * w,
        a.w * w - a.x * x - a.y * y - a.z * z,
    )
}

/// The inverse of [`to_scaled_angle_axis`]: the unit quaternion turning by `|r|` radians about
/// `r / |r|`, `q = (sin(|r|/2)·r/|r|, cos(|r|/2))`.
///
/// Lengths above π give `w < 0` (the long way round); the result is exact near zero, where
/// `sin(|r|/2)/|r| → 1/2`.
#[inline(always)]
pub fn from_scaled_angle_axis(r: Vec3) -> Quat {
    let angle_squared = r.length_squared();
    if angle_squared <= std::f32::consts::TAU * std::f32::consts::TAU {
        // Even series in θ²: no square root, no division.
        let (scale, cos_half) = crate::fast_trig::half_angle_sinc_cos(angle_squared);
        return Quat::from_xyzw(r.x * scale, r.y * scale, r.z * scale, cos_half);
    }
    let angle = angle_squared.sqrt();
    let half = 0.5 * angle;
    let (sin_half, cos_half) = crate::fast_trig::sin_cos(half);
    // sin(θ/2)/θ, with its Taylor series where the division would lose precision.
    let scale = if angle < 1e-4 {
        0.5 - angle * angle / 48.0
    } else {
        sin_half / angle
    };
    Quat::from_xyzw(r.x * scale, r.y * scale, r.z * scale, cos_half)
}

/// A rotation split as `q = swing · twist`, where `twist` turns about the chosen axis and `swing`
/// turns about an axis perpendicular to it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SwingTwist {
    /// The rotation about an axis perpendicular to the twist axis, applied after the twist.
    pub swing: Quat,
    /// The rotation about the twist axis, applied first.
    pub twist: Quat,
}

/// Splits `q` into `swing · twist` about the unit `axis`.
///
/// The twist is the projection of `q` onto the rotations about `axis`:
/// `twist = normalize((axis·(v·axis), w))`, and `swing = q · twist⁻¹`, which moves `axis` to where
/// `q` moves it by the shortest arc. The twist keeps the sign of `w` (so a twist of 180° or more is
/// represented, not folded). The split is undefined only when `q` is a swing of exactly 180° (then
/// the projection vanishes); the twist is then taken as the identity, which is one of the valid
/// answers, and `swing = q`.
#[inline]
pub fn swing_twist(q: Quat, axis: Vec3) -> SwingTwist {
    let v = Vec3::new(q.x, q.y, q.z);
    let along = axis * v.dot(axis);
    let projection = Quat::from_xyzw(along.x, along.y, along.z, q.w);
    let norm = projection.length();
    if norm < 1e-6 {
        return SwingTwist {
            swing: q,
            twist: Quat::IDENTITY,
        };
    }
    let twist = projection / norm;
    SwingTwist {
        swing: q * twist.conjugate(),
        twist,
    }
}

/// The swing of `q` about the unit `axis` (the short way, `w ≥ 0`) and its twist angle in the
/// cover of `q` (radians in `(−2π, 2π]`, continuous past ±π along an unrolled sequence).
#[inline]
pub fn swing_and_twist_angle(q: Quat, axis: Vec3) -> (Quat, f32) {
    let split = swing_twist(q, axis);
    let sin_half = Vec3::new(split.twist.x, split.twist.y, split.twist.z).dot(axis);
    (
        split.swing,
        2.0 * crate::fast_trig::atan2(sin_half, split.twist.w),
    )
}

/// [`swing_and_twist_angle`] about the third column `a` of the right-handed orthonormal `basis`,
/// with the swing's scaled angle-axis ([`to_scaled_angle_axis`]) in the coordinates of the first
/// two columns `(u₁, u₂)`, in closed form: the swing-twist limits' split, with no quaternion
/// product and no normalisation. `None` within about 1e-6 of a 180° swing
/// (`(v·a)² + w² < 1e-12·|q|²`), where the split is not unique.
///
/// With `q = (v, w)`, `p = (v·u₁, v·u₂)`, `t = v·a` and `n² = t² + w²`, the swing
/// `q · twist⁻¹` is `((w·v⊥ + t·(a × v))/n, n)`: in the plane, the vector
/// `(w·p₁ − t·p₂, w·p₂ + t·p₁)/n` of length `s = |p|`, and its scaled angle-axis is that times
/// `θ/s` with `θ = 2·atan2(s, n)`. Up to a 90° swing (`s ≤ n`) the factor `θ/(s·n)` is
/// `2·atan(r)/(r·n²)` in `r² = s²/n²`, with no square root; beyond, `θ = π − 2·atan(n/s)`. The
/// twist is `2·atan2(t, w)`. Every term is homogeneous in `q`'s length, so a quaternion a little
/// off unit length splits as its normalisation would.
#[inline(always)]
pub fn swing_plane_point_and_twist(q: Quat, basis: &glam::Mat3) -> Option<(glam::Vec2, f32)> {
    use crate::fast_trig::{atan_over_t, atan2};
    let (u1, u2, a) = (basis.x_axis, basis.y_axis, basis.z_axis);
    let (x, y, z, w) = (q.x, q.y, q.z, q.w);
    let p1 = x * u1.x + y * u1.y + z * u1.z;
    let p2 = x * u2.x + y * u2.y + z * u2.z;
    let along = x * a.x + y * a.y + z * a.z;
    let cos_squared = along * along + w * w;
    let sin_squared = p1 * p1 + p2 * p2;
    // Relative to the length, like every other term.
    if cos_squared < 1e-12 * (cos_squared + sin_squared) {
        return None;
    }
    let scale = if sin_squared <= cos_squared {
        2.0 * atan_over_t(sin_squared / cos_squared) / cos_squared
    } else {
        let (sin, cos) = (sin_squared.sqrt(), cos_squared.sqrt());
        let ratio = cos / sin;
        (std::f32::consts::PI - 2.0 * ratio * atan_over_t(ratio * ratio)) / (sin * cos)
    };
    let plane = glam::Vec2::new(w * p1 - along * p2, w * p2 + along * p1) * scale;
    Some((plane, 2.0 * atan2(along, w)))
}

/// `|(v·axis, w)|²` of `q = (v, w)`: the squared norm of the twist part about the unit `axis`,
/// `cos²(swing/2)`. It vanishes at a swing of exactly 180°, where the twist is undefined.
#[inline]
pub fn twist_norm_squared(q: Quat, axis: Vec3) -> f32 {
    let along = Vec3::new(q.x, q.y, q.z).dot(axis);
    along * along + q.w * q.w
}

/// [`swing_and_twist_angle`], except that at a swing of exactly 180° (where every twist is a
/// valid split) the twist is `fallback`: a stream passes its previous twist, so the twist stays
/// where it was instead of snapping to 0.
#[inline]
pub fn swing_and_twist_angle_or(q: Quat, axis: Vec3, fallback: f32) -> (Quat, f32) {
    if twist_norm_squared(q, axis) < 1e-12 {
        return (q * rotation_about(axis, fallback).conjugate(), fallback);
    }
    swing_and_twist_angle(q, axis)
}

/// The signed twist angle (radians, in `(-2π, 2π]`) of `twist` about the unit `axis`, for a `twist`
/// produced by [`swing_twist`] with the same axis.
#[inline]
pub fn twist_angle(twist: Quat, axis: Vec3) -> f32 {
    let sin_half = Vec3::new(twist.x, twist.y, twist.z).dot(axis);
    2.0 * sin_half.atan2(twist.w)
}

/// The rotation by `angle` (radians, any value) about the unit `axis`, with fast polynomial
/// trigonometry: `(sin(angle/2)·axis, cos(angle/2))`.
///
/// The half angle is reduced modulo 2π (the period of the quaternion in the half angle) before
/// the polynomials see it, so angles beyond ±2π keep their cover: `angle` and `angle + 4π` give
/// the same quaternion, `angle + 2π` its negation.
#[inline]
pub fn rotation_about(axis: Vec3, angle: f32) -> Quat {
    let mut half = 0.5 * angle;
    if half.abs() > std::f32::consts::PI {
        half -= std::f32::consts::TAU * (half / std::f32::consts::TAU).round();
    }
    let (sin, cos) = crate::fast_trig::sin_cos(half.abs());
    let sin = sin.copysign(half);
    Quat::from_xyzw(axis.x * sin, axis.y * sin, axis.z * sin, cos)
}

/// The angle (radians, in `[0, π]`) of the shortest rotation taking orientation `a` to `b`.
///
/// Computed as `2·atan2(|v|, |w|)` of `a⁻¹·b`, which stays accurate for tiny angles where
/// `2·acos(|a·b|)` loses half of its digits.
#[inline]
pub fn angle_between(a: Quat, b: Quat) -> f32 {
    let d = a.conjugate() * b;
    2.0 * Vec3::new(d.x, d.y, d.z).length().atan2(d.w.abs())
}

/// The shortest rotation taking direction `from` to direction `to` (neither needs to be unit).
///
/// For opposite directions the rotation is π about an axis perpendicular to `from` (any such axis
/// is shortest; a deterministic one is chosen). A zero-length input gives the identity.
pub fn rotation_between(from: Vec3, to: Vec3) -> Quat {
    let (Some(a), Some(b)) = (from.try_normalize(), to.try_normalize()) else {
        return Quat::IDENTITY;
    };
    rotation_between_units(a, b)
}

/// [`rotation_between`] for unit directions, which it does not normalise again.
///
/// The half-way quaternion `(a × b, 1 + a·b)`, normalised, turns by the angle between `a` and
/// `b` about `a × b`. Near opposite directions two things need care:
/// - `1 + a·b` cancels; `|a + b|²/2` is the same number for unit vectors, computed from small
///   components without cancelling.
/// - `a × b` is short (`sin θ` of the angle `θ` short of a half turn) and carries an absolute
///   rounding error of about 1e-7, which tilts it out of the plane perpendicular to `a`. Its
///   component along `a` is removed, so the turn is about an axis perpendicular to `a` whose
///   azimuth is `b`'s to about `1e-7 / sin θ`: `a` lands on `b` to about 1e-7 however near the
///   half turn, and the swing's azimuth, which decides the twist of a rotation pointing near
///   `−a`, is the input's and not an arbitrary one's. Only when `a × b` vanishes (exactly
///   opposite in f32) is the axis arbitrary.
#[inline]
pub fn rotation_between_units(a: Vec3, b: Vec3) -> Quat {
    let cos = a.dot(b);
    let axis = a.cross(b);
    if cos >= -0.9 {
        return Quat::from_xyzw(axis.x, axis.y, axis.z, 1.0 + cos).normalize();
    }
    let axis = axis - a * a.dot(axis);
    if axis.length_squared() < 1e-30 {
        return Quat::from_axis_angle(a.any_orthonormal_vector(), std::f32::consts::PI);
    }
    let w = 0.5 * (a + b).length_squared();
    Quat::from_xyzw(axis.x, axis.y, axis.z, w).normalize()
}

/// `q` itself when its squared length is within 1e-3 of one (the rotations callers pass, kept
/// bit for bit), else `q` normalised without overflow or underflow (scaled by its largest
/// component first). A zero or non-finite `q` comes back as it is.
#[inline]
pub fn near_unit(q: Quat) -> Quat {
    if is_near_unit(q) {
        return q;
    }
    normalise_any_scale(q)
}

/// Whether [`near_unit`] leaves `q` as it is: its squared length is within 1e-3 of 1.
#[inline(always)]
pub fn is_near_unit(q: Quat) -> bool {
    // Written out, so that lanes can make the same test.
    let squared = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    (squared - 1.0).abs() <= 1e-3
}

/// The rare path of [`near_unit`].
#[cold]
fn normalise_any_scale(q: Quat) -> Quat {
    let largest = Vec4::from(q).abs().max_element();
    if !(largest.is_finite() && largest > 0.0) {
        return q;
    }
    let scaled = q / largest;
    scaled / scaled.length()
}

/// Returns `q` normalised, or `None` if any component is non-finite or it has (nearly) zero length.
///
/// Runtime code uses this to turn untrusted input into a unit quaternion instead of passing NaN on.
#[inline]
pub fn sanitize(q: Quat) -> Option<Quat> {
    if !q.is_finite() {
        return None;
    }
    let length = q.length();
    (length > 1e-6).then(|| q / length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f32::consts::PI;

    fn unit_quat() -> impl Strategy<Value = Quat> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-degenerate", |(x, y, z, w)| {
                x * x + y * y + z * z + w * w > 1e-3
            })
            .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
    }

    fn unit_vec() -> impl Strategy<Value = Vec3> {
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
            .prop_filter("non-degenerate", |(x, y, z)| x * x + y * y + z * z > 1e-3)
            .prop_map(|(x, y, z)| Vec3::new(x, y, z).normalize())
    }

    fn close(a: Quat, b: Quat, tol: f32) -> bool {
        (a - b).length() < tol
    }

    proptest! {
        #[test]
        fn exp_of_log_is_identity_on_both_covers(q in unit_quat()) {
            let back = from_scaled_angle_axis(to_scaled_angle_axis(q));
            prop_assert!(close(back, q, 2e-6), "{q:?} -> {back:?}");
        }

        #[test]
        fn log_of_exp_is_identity_below_two_pi(axis in unit_vec(), angle in 0.0f32..6.2) {
            let r = axis * angle;
            let back = to_scaled_angle_axis(from_scaled_angle_axis(r));
            prop_assert!((back - r).length() < 1e-5 * (1.0 + angle), "{r:?} -> {back:?}");
        }

        #[test]
        fn swing_times_twist_is_q(q in unit_quat(), axis in unit_vec()) {
            let SwingTwist { swing, twist } = swing_twist(q, axis);
            prop_assert!(close(swing * twist, q, 1e-5));
            // The twist turns about the axis: it leaves the axis fixed.
            prop_assert!((twist * axis - axis).length() < 1e-5);
            // The swing's axis is perpendicular to the twist axis.
            prop_assert!(Vec3::new(swing.x, swing.y, swing.z).dot(axis).abs() < 1e-5);
        }

        #[test]
        fn the_closed_form_split_is_the_product_split(
            q in unit_quat(),
            axis in unit_vec(),
            length in prop_oneof![Just(1.0f32), 0.999f32..1.001, 1e-3f32..1e3],
        ) {
            // Either cover, any axis, quaternions off unit length; near the 180° swing the
            // swing point (and the twist) is ill-conditioned in both, so the tolerance grows
            // as the twist part's norm shrinks.
            let basis = crate::region::swing_basis(axis);
            let scaled = q * length;
            let SwingTwist { swing, twist } = swing_twist(q, axis);
            let expected = (basis.transpose() * to_scaled_angle_axis(swing)).truncate();
            let expected_twist = twist_angle(twist, axis);
            let norm = twist_norm_squared(q, axis).sqrt();
            match swing_plane_point_and_twist(scaled, &basis) {
                Some((point, twist)) => {
                    let tolerance = 2e-6 / norm.max(1e-6);
                    prop_assert!((point - expected).length() < tolerance, "{point} vs {expected}");
                    prop_assert!((twist - expected_twist).abs() < tolerance, "{twist} vs {expected_twist}");
                }
                None => prop_assert!(norm < 2e-6, "refused at twist norm {norm}"),
            }
        }

        #[test]
        fn unrolled_neighbours_have_non_negative_dot(qs in proptest::collection::vec(unit_quat(), 1..50)) {
            let mut unrolled = qs.clone();
            unroll(&mut unrolled);
            prop_assert!(unrolled[0].w >= 0.0);
            for pair in unrolled.windows(2) {
                prop_assert!(pair[0].dot(pair[1]) >= 0.0);
            }
            for (a, b) in qs.iter().zip(&unrolled) {
                prop_assert!(*a == *b || -*a == *b, "only the cover may change");
            }
        }

        #[test]
        fn rotation_between_maps_from_onto_to(a in unit_vec(), b in unit_vec()) {
            let q = rotation_between(a, b);
            prop_assert!((q * a - b).length() < 1e-5);
            let expected = a.dot(b).clamp(-1.0, 1.0).acos();
            prop_assert!((angle_between(Quat::IDENTITY, q) - expected).abs() < 1e-3);
        }
    }

    #[test]
    fn log_is_accurate_near_zero_and_near_pi() {
        let tiny = Quat::from_axis_angle(Vec3::Y, 1e-7);
        assert!((to_scaled_angle_axis(tiny) - Vec3::Y * 1e-7).length() < 1e-13);
        assert_eq!(to_scaled_angle_axis(Quat::IDENTITY), Vec3::ZERO);
        let near_pi = Quat::from_axis_angle(Vec3::Z, PI - 1e-5);
        assert!((to_scaled_angle_axis(near_pi) - Vec3::Z * (PI - 1e-5)).length() < 1e-6);
        let half_turn = Quat::from_xyzw(0.0, 0.0, 1.0, 0.0);
        assert!((to_scaled_angle_axis(half_turn) - Vec3::Z * PI).length() < 1e-6);
        // The long way round: -q turns by 2π - θ about the opposite axis.
        let long = -Quat::from_axis_angle(Vec3::X, 0.5);
        assert!((to_scaled_angle_axis(long) + Vec3::X * (2.0 * PI - 0.5)).length() < 1e-5);
        let full_turn = Quat::from_xyzw(0.0, 0.0, 0.0, -1.0);
        assert!((to_scaled_angle_axis(full_turn).length() - 2.0 * PI).abs() < 1e-6);
    }

    #[test]
    fn swing_twist_is_defined_at_half_turns() {
        // A pure twist of 180° about the axis stays a twist.
        let twist_half = Quat::from_axis_angle(Vec3::Y, PI);
        let st = swing_twist(twist_half, Vec3::Y);
        assert!(close(st.twist, twist_half, 1e-6));
        assert!(angle_between(st.swing, Quat::IDENTITY) < 1e-5);
        assert!((twist_angle(st.twist, Vec3::Y).abs() - PI).abs() < 1e-5);
        // A twist of 270° (the long way) keeps its sign instead of folding to -90°.
        let long = Quat::from_axis_angle(Vec3::Y, 1.5 * PI);
        let st = swing_twist(long, Vec3::Y);
        assert!((twist_angle(st.twist, Vec3::Y) - 1.5 * PI).abs() < 1e-5);
        // A swing of exactly 180° has no defined twist: the identity is chosen, nothing is NaN.
        let swing_half = Quat::from_axis_angle(Vec3::X, PI);
        let st = swing_twist(swing_half, Vec3::Y);
        assert!(st.swing.is_finite() && st.twist.is_finite());
        assert!(close(st.swing * st.twist, swing_half, 1e-6));
    }

    #[test]
    fn the_closed_form_split_at_its_ends() {
        let basis = crate::region::swing_basis(Vec3::Y);
        // No swing, a pure twist past π (kept in its cover), and a swing of 179.99° with twist.
        for (swing_angle, twist) in [(0.0, 0.4), (0.0, -3.5), (1.0, 5.9), (PI - 2e-4, -0.7)] {
            let q = Quat::from_axis_angle(Vec3::X, swing_angle) * rotation_about(Vec3::Y, twist);
            let (point, measured) = swing_plane_point_and_twist(q, &basis).expect("split");
            let expected = (basis.transpose() * (Vec3::X * swing_angle)).truncate();
            assert!((point - expected).length() < 2e-5, "{point} vs {expected}");
            assert!((measured - twist).abs() < 2e-5, "{measured} vs {twist}");
        }
        // Exactly 180°: no unique split.
        let half = Quat::from_axis_angle(Vec3::X, PI);
        assert_eq!(swing_plane_point_and_twist(half, &basis), None);
    }

    #[test]
    fn rotations_about_an_axis_keep_their_cover_beyond_two_pi() {
        // Defect: angles past 2π reached the polynomial unreduced and the sine's sign flipped.
        for angle in [
            -13.0f32, -7.0, -6.5, -6.2, -3.5, 0.3, 3.5, 6.2, 6.5, 7.0, 13.0,
        ] {
            let q = rotation_about(Vec3::Z, angle);
            let half = f64::from(angle) * 0.5;
            assert!((f64::from(q.z) - half.sin()).abs() < 1e-5, "{angle}: {q}");
            assert!((f64::from(q.w) - half.cos()).abs() < 1e-5, "{angle}: {q}");
        }
    }

    #[test]
    fn rotation_between_opposite_directions_is_a_half_turn() {
        for v in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(1.0, 2.0, -3.0)] {
            let q = rotation_between(v, -v);
            assert!((q * v.normalize() + v.normalize()).length() < 1e-5);
            assert!(q.is_finite());
        }
        assert_eq!(rotation_between(Vec3::ZERO, Vec3::X), Quat::IDENTITY);
    }

    /// Just short of opposite, the turn is still the shortest arc onto `b` (its axis
    /// perpendicular to `a`, no twist about `a`), so a rotation pointing the bone near its
    /// opposite keeps the azimuth, and with it the twist, of the direction asked for.
    #[test]
    fn rotation_between_nearly_opposite_directions_lands_on_the_target() {
        let mut random = crate::measure::SeededRandom::new(3);
        for _ in 0..2000 {
            let a = random.direction();
            let short_of_opposite = 10f32.powf(-7.0 + 5.0 * random.next_unit() as f32);
            let (e1, e2) = a.any_orthonormal_pair();
            let around = std::f32::consts::TAU * random.next_unit() as f32;
            let sideways = e1 * around.cos() + e2 * around.sin();
            let b = (-a * short_of_opposite.cos() + sideways * short_of_opposite.sin()).normalize();
            let q = rotation_between_units(a, b);
            assert!(
                (q * a - b).length() < 1e-6,
                "{short_of_opposite}: lands {} from the target",
                (q * a - b).length()
            );
            let twist = Vec3::new(q.x, q.y, q.z).dot(a);
            assert!(
                twist.abs() < 1e-6,
                "{short_of_opposite}: twist part {twist}"
            );
        }
    }

    #[test]
    fn sanitize_rejects_non_finite_and_zero() {
        assert_eq!(sanitize(Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0)), None);
        assert_eq!(sanitize(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)), None);
        let q = sanitize(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0)).unwrap();
        assert_eq!(q, Quat::IDENTITY);
    }
}
