//! Softening: letting large violations keep a little of their excess, so a limit does not lock
//! up abruptly and sliding between faces of a shape looks smoother.
//!
//! After a projection from `p` to `y` (distance `d = |p − y|`), the softened point moves back
//! towards `p` by `radius · tanh(falloff · d)`: nothing for tiny violations, saturating at `radius`
//! for large ones. The result lies within `radius` outside the hard limit and never overshoots `p`.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// Parameters of the tanh softening.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Softening {
    /// How quickly the allowance saturates, per radian of violation.
    pub falloff: f32,
    /// The largest allowance beyond the hard limit, radians.
    pub radius: f32,
}

impl Softening {
    /// Whether both parameters are finite and non-negative.
    pub fn is_valid(&self) -> bool {
        self.falloff.is_finite()
            && self.radius.is_finite()
            && self.falloff >= 0.0
            && self.radius >= 0.0
    }

    /// The softened version of the projection of `original` onto `projected`.
    #[inline]
    pub fn apply(&self, original: Vec3, projected: Vec3) -> Vec3 {
        let offset = original - projected;
        let distance = offset.length();
        if distance <= 1e-7 {
            return projected;
        }
        let allowance = (self.falloff * distance).tanh() * self.radius;
        projected + offset * (allowance.min(distance) / distance)
    }

    /// The version for rotations: `projected` moves back towards `original` along the geodesic
    /// between them (same cover), by the same allowance of the angle between them.
    #[inline]
    pub fn apply_rotation(&self, original: Quat, projected: Quat) -> Quat {
        let original = if original.dot(projected) < 0.0 {
            -original
        } else {
            original
        };
        let distance = crate::rotation::angle_between(original, projected);
        if distance <= 1e-7 {
            return projected;
        }
        let allowance = (self.falloff * distance).tanh() * self.radius;
        projected.slerp(original, allowance.min(distance) / distance)
    }

    /// Whether [`Softening::apply_rotation`] moves `projected` all the way back to `original`:
    /// the allowance covers the whole violation, so the softened rotation is the input itself.
    #[inline]
    pub fn keeps_everything(&self, original: Quat, projected: Quat) -> bool {
        let distance = crate::rotation::angle_between(original, projected);
        distance > 1e-7 && (self.falloff * distance).tanh() * self.radius >= distance
    }

    /// The one-dimensional version, for twist angles.
    #[inline]
    pub fn apply_scalar(&self, original: f32, projected: f32) -> f32 {
        let offset = original - projected;
        let allowance = (self.falloff * offset.abs()).tanh() * self.radius;
        projected + offset.signum() * allowance.min(offset.abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softening_saturates_and_never_overshoots() {
        let s = Softening {
            falloff: 1.0,
            radius: 0.1,
        };
        let y = Vec3::ZERO;
        assert_eq!(s.apply(y, y), y);
        let near = s.apply(Vec3::new(0.01, 0.0, 0.0), y);
        assert!(near.x > 0.0 && near.x < 0.01);
        let far = s.apply(Vec3::new(100.0, 0.0, 0.0), y);
        assert!((far.x - 0.1).abs() < 1e-6);
        assert!((s.apply_scalar(-100.0, 0.0) + 0.1).abs() < 1e-6);
        assert_eq!(s.apply_scalar(0.0, 0.0), 0.0);
    }
}
