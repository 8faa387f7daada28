//! Euler-angle ranges: a minimum and maximum per channel, in any of the six axis orders.

use std::f64::consts::{PI, TAU};

use glam::{DVec3, Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::euler::EulerOrder;
use crate::joint_limit::Limited;

/// The limit of Maya, Blender and three.js: each Euler angle between a minimum and a maximum.
///
/// A rotation has two Euler triples in a given order, `(a, b, c)` and `(a + π, π − b, c + π)`,
/// and each angle may be shifted by whole turns. The projection takes the triple and shifts
/// whose per-channel clamp moves least (Euclidean distance in angle space) and returns the
/// clamped triple's rotation: the exact nearest allowed point in Euler coordinates. (At gimbal
/// lock, `b = ±π/2`, only `a ± c` is defined; the decomposition then puts the whole rotation in
/// `a`.)
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EulerLimit {
    /// The axis order; the angles below are in its channel order.
    pub order: EulerOrder,
    /// The smallest angle of each channel, radians.
    pub min: Vec3,
    /// The largest angle of each channel, radians.
    pub max: Vec3,
}

impl EulerLimit {
    /// The allowed Euler triple nearest to a triple of `relative`, and its squared distance.
    pub fn nearest_angles(&self, relative: Quat) -> (DVec3, f64) {
        let angles = self.order.from_quat(relative);
        let other = DVec3::new(angles.x + PI, PI - angles.y, angles.z + PI);
        let (lo, hi) = (self.min.as_dvec3(), self.max.as_dvec3());
        let clamp_triple = |t: DVec3| {
            let mut clamped = DVec3::ZERO;
            let mut squared = 0.0;
            for k in 0..3 {
                let (value, distance) = clamp_turning(t[k], lo[k], hi[k]);
                clamped[k] = value;
                squared += distance * distance;
            }
            (clamped, squared)
        };
        let first = clamp_triple(angles);
        let second = clamp_triple(other);
        if second.1 < first.1 { second } else { first }
    }

    /// Limits a relative rotation (Euler angles do not depend on its cover).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        let (angles, squared) = self.nearest_angles(relative);
        if squared == 0.0 {
            return Limited::unchanged(relative);
        }
        Limited {
            relative: self.order.to_quat(angles),
            inside: false,
            violation: squared.sqrt() as f32,
        }
    }

    /// Every number is finite and no range is inverted.
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min.cmple(self.max).all()
    }
}

/// The nearest point of `[lo, hi]` to any of `angle + 2πk`, and its distance; an angle with a
/// representative inside comes back as that representative, distance 0.
fn clamp_turning(angle: f64, lo: f64, hi: f64) -> (f64, f64) {
    // The representative at or above `lo`, and the one below it.
    let above = lo + (angle - lo).rem_euclid(TAU);
    if above <= hi {
        return (above, 0.0);
    }
    let below = above - TAU;
    let (to_hi, to_lo) = (above - hi, lo - below);
    if to_hi <= to_lo {
        (hi, to_hi)
    } else {
        (lo, to_lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turning_clamp_takes_the_nearest_representative() {
        assert_eq!(clamp_turning(0.5, 0.0, 1.0), (0.5, 0.0));
        assert_eq!(clamp_turning(0.5 + TAU, 0.0, 1.0).1, 0.0);
        let (value, distance) = clamp_turning(-0.2, 0.0, 1.0);
        assert_eq!(value, 0.0);
        assert!((distance - 0.2).abs() < 1e-12);
        let (value, distance) = clamp_turning(3.0, -1.0, 1.0);
        assert_eq!(value, 1.0);
        assert!((distance - 2.0).abs() < 1e-12);
        let (value, _) = clamp_turning(-3.0 + TAU, -1.0, 1.0);
        assert_eq!(value, -1.0);
    }
}
