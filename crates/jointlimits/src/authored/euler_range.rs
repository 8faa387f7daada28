//! Euler-angle ranges: a minimum and maximum per channel, in any of the six axis orders.

use std::f64::consts::{PI, TAU};

use glam::{DVec3, Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use crate::contract::{
    BOUNDARY_TOLERANCE, LimitContext, Limited, NEAR_HALF_SWING, RotationLimit, settle,
};
use crate::euler::EulerOrder;
use crate::space::SpaceKind;
use crate::validation::{self, InvalidField};

/// The limit of Maya, Blender and three.js: each Euler angle between a minimum and a maximum.
///
/// A rotation has two Euler triples in a given order, `(a, b, c)` and `(a + π, π − b, c + π)`,
/// and each angle may be shifted by whole turns; neither depends on the cover of the quaternion.
/// Metric: the Euclidean distance between Euler triples. The projection takes the triple and
/// shifts whose per-channel clamp moves least and returns the clamped triple's rotation: the exact
/// nearest allowed point in Euler coordinates. (At gimbal lock, `b = ±π/2`, only `a ± c` is
/// defined; the decomposition then puts the whole rotation in `a`.) `measured` is the input's
/// triple as used, `(a, b, c, 0)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EulerLimit {
    /// The axis order; the angles below are in its channel order.
    pub order: EulerOrder,
    /// The smallest angle of each channel, radians.
    pub min: Vec3,
    /// The largest angle of each channel, radians.
    pub max: Vec3,
}

/// A triple of the input, turned, with its clamp and the squared distance between them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Clamped {
    turned: DVec3,
    clamped: DVec3,
    squared: f64,
}

impl EulerLimit {
    /// The two Euler triples of `relative`.
    fn triples(&self, relative: Quat) -> [DVec3; 2] {
        let angles = self.order.from_quat(relative);
        [
            angles,
            DVec3::new(angles.x + PI, PI - angles.y, angles.z + PI),
        ]
    }

    /// Clamps `turned` channel by channel.
    fn clamp(&self, turned: DVec3) -> Clamped {
        let clamped = turned.clamp(self.min.as_dvec3(), self.max.as_dvec3());
        Clamped {
            turned,
            clamped,
            squared: turned.distance_squared(clamped),
        }
    }

    /// The allowed Euler triple nearest to a triple of `relative`, and its squared distance.
    pub fn nearest_angles(&self, relative: Quat) -> (DVec3, f64) {
        let best = self.nearest_clamp(relative);
        (best.clamped, best.squared)
    }

    fn nearest_clamp(&self, relative: Quat) -> Clamped {
        let (lo, hi) = (self.min.as_dvec3(), self.max.as_dvec3());
        let [first, second] = self.triples(relative).map(|t| {
            let mut turned = DVec3::ZERO;
            for k in 0..3 {
                turned[k] = nearest_turn(t[k], lo[k], hi[k]);
            }
            self.clamp(turned)
        });
        if second.squared < first.squared {
            second
        } else {
            first
        }
    }

    fn result(&self, relative: Quat, best: Clamped) -> Limited {
        let violation = best.squared.sqrt() as f32;
        let measured = best.turned.as_vec3().extend(0.0);
        if violation <= BOUNDARY_TOLERANCE {
            return Limited::unchanged(relative, measured);
        }
        let limited = Limited {
            relative: self.order.to_quat(best.clamped),
            inside: false,
            violation,
            measured,
        };
        // Near gimbal lock the outer angles stretch rotation distances without bound.
        if best.turned.y.cos().abs() < f64::from(NEAR_HALF_SWING) {
            return settle(relative, limited);
        }
        limited
    }
}

impl RotationLimit for EulerLimit {
    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        self.result(relative, self.nearest_clamp(relative))
    }

    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        let previous = previous.truncate().as_dvec3();
        let [first, second] = self.triples(relative).map(|t| {
            let turned = t + TAU * ((previous - t) / TAU).round();
            (turned.distance_squared(previous), turned)
        });
        let turned = if second.0 < first.0 {
            second.1
        } else {
            first.1
        };
        let best = self.nearest_clamp(relative);
        // An allowed rotation stays unchanged whatever the history.
        if best.squared == 0.0 {
            return self.result(relative, best);
        }
        self.result(relative, self.clamp(turned))
    }

    fn validate(&self) -> Result<(), InvalidField> {
        for (i, axis) in self.order.axes().iter().enumerate() {
            validation::interval(&format!("{axis} range"), self.min[i], self.max[i])?;
        }
        Ok(())
    }

    fn label(&self) -> String {
        format!("Euler {} ranges", self.order)
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::Full
    }

    fn examples() -> Vec<EulerLimit> {
        vec![
            EulerLimit {
                order: EulerOrder::ZXY,
                min: Vec3::new(-0.5, -1.0, -0.2),
                max: Vec3::new(1.2, 0.4, 0.9),
            },
            EulerLimit {
                order: EulerOrder::XYZ,
                min: Vec3::new(2.5, -0.3, -3.5),
                max: Vec3::new(3.8, 0.3, -2.7),
            },
        ]
    }
}

/// The representative `angle + 2πk` nearest to `[lo, hi]`: inside when one is, otherwise the
/// nearer of the one just above `hi` and the one just below `lo`.
fn nearest_turn(angle: f64, lo: f64, hi: f64) -> f64 {
    // The representative at or above `lo`, and the one below it.
    let above = lo + (angle - lo).rem_euclid(TAU);
    if above <= hi {
        return above;
    }
    let below = above - TAU;
    if above - hi <= lo - below {
        above
    } else {
        below
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_take_the_nearest_representative() {
        assert_eq!(nearest_turn(0.5, 0.0, 1.0), 0.5);
        assert!((nearest_turn(0.5 + TAU, 0.0, 1.0) - 0.5).abs() < 1e-12);
        assert!((nearest_turn(-0.2, 0.0, 1.0) + 0.2).abs() < 1e-12);
        assert!((nearest_turn(3.0, -1.0, 1.0) - 3.0).abs() < 1e-12);
        assert!((nearest_turn(-3.0 + TAU, -1.0, 1.0) + 3.0).abs() < 1e-12);
    }
}
