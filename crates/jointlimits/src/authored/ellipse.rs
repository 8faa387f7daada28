//! A spherical ellipse (Grassia; Baerlocher & Boulic): an elliptic bound on the swing, with a
//! twist interval.

use glam::{DVec2, Quat, Vec2, Vec3};
use serde::{Deserialize, Serialize};

use crate::joint_limit::{Limited, TwistRange};
use crate::rotation::{
    from_scaled_angle_axis, rotation_about, swing_and_twist_angle, to_scaled_angle_axis,
};

/// Newton steps at most for the nearest point of an ellipse (they converge in far fewer).
const MAX_NEWTON_STEPS: usize = 64;

/// A swing bound shaped as an ellipse in the swing's scaled angle-axis, and a twist interval.
///
/// With `q = swing · twist` split about `twist_axis`, the swing's scaled angle-axis `s` lies in
/// the plane perpendicular to the axis; in coordinates `x = s·first_axis`,
/// `y = s·(twist_axis × first_axis)` the allowed swings are `(x/a)² + (y/b)² ≤ 1`, `(a, b) =
/// radii`: `a` is the largest swing about `first_axis`, `b` about the perpendicular axis.
/// Outside, the swing moves to the nearest point of the ellipse (exact, by Newton's method on
/// the Lagrange condition) and the twist is clamped.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SphericalEllipseLimit {
    /// The bone axis at the reference rotation (unit length).
    pub twist_axis: Vec3,
    /// A unit axis perpendicular to `twist_axis`, the swing axis of the first radius.
    pub first_axis: Vec3,
    /// The largest swing angles about `first_axis` and about `twist_axis × first_axis`, radians.
    pub radii: Vec2,
    /// The allowed twist angles.
    pub twist: TwistRange,
}

impl SphericalEllipseLimit {
    /// Limits a relative rotation (in the cover to measure its twist in).
    #[inline]
    pub fn limit_relative(&self, relative: Quat) -> Limited {
        let (swing, twist) = swing_and_twist_angle(relative, self.twist_axis);
        let second_axis = self.twist_axis.cross(self.first_axis);
        let s = to_scaled_angle_axis(swing);
        let point = Vec2::new(s.dot(self.first_axis), s.dot(second_axis));
        let (a, b) = (self.radii.x, self.radii.y);
        let swing_inside = (point.x / a).powi(2) + (point.y / b).powi(2) <= 1.0;
        let allowed_twist = self.twist.clamp(twist);
        if swing_inside && allowed_twist == twist {
            return Limited::unchanged(relative);
        }
        let (allowed_swing, swing_distance) = if swing_inside {
            (swing, 0.0)
        } else {
            let nearest = nearest_on_ellipse(point.as_dvec2(), self.radii.as_dvec2()).as_vec2();
            (
                from_scaled_angle_axis(nearest.x * self.first_axis + nearest.y * second_axis),
                point.distance(nearest),
            )
        };
        Limited {
            relative: allowed_swing * rotation_about(self.twist_axis, allowed_twist),
            inside: false,
            violation: swing_distance.hypot(twist - allowed_twist),
        }
    }

    /// Every number is finite, the axes are unit and perpendicular, the radii positive and the
    /// twist interval not inverted.
    pub fn is_finite(&self) -> bool {
        self.twist_axis.is_finite()
            && self.first_axis.is_finite()
            && (self.twist_axis.length() - 1.0).abs() < 1e-3
            && (self.first_axis.length() - 1.0).abs() < 1e-3
            && self.twist_axis.dot(self.first_axis).abs() < 1e-3
            && self.radii.is_finite()
            && self.radii.min_element() > 0.0
            && self.twist.is_valid()
    }
}

/// The nearest point to `p` (outside) of the ellipse with semi-axes `radii`.
///
/// The nearest point is `(a²x/(t + a²), b²y/(t + b²))` for the root `t > 0` of
/// `F(t) = (ax/(t + a²))² + (by/(t + b²))² − 1`. `F` is convex and decreasing for `t ≥ 0`, so
/// Newton's method from `t = 0` (where `F > 0`) climbs to the root without overshooting.
pub(crate) fn nearest_on_ellipse(p: DVec2, radii: DVec2) -> DVec2 {
    let (a2, b2) = (radii.x * radii.x, radii.y * radii.y);
    let (ax, by) = (radii.x * p.x, radii.y * p.y);
    let mut t = 0.0f64;
    for _ in 0..MAX_NEWTON_STEPS {
        let (u, v) = (ax / (t + a2), by / (t + b2));
        let f = u * u + v * v - 1.0;
        let slope = -2.0 * (u * u / (t + a2) + v * v / (t + b2));
        if f <= 0.0 || slope >= 0.0 {
            break;
        }
        let step = -f / slope;
        t += step;
        if step <= 1e-15 * (t + a2.min(b2)) {
            break;
        }
    }
    DVec2::new(a2 * p.x / (t + a2), b2 * p.y / (t + b2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_points_of_ellipses_beat_a_dense_boundary() {
        for (i, radii) in [(1.0, 0.3), (0.2, 0.9), (0.5, 0.5), (1.4, 0.05)]
            .into_iter()
            .enumerate()
        {
            let radii = DVec2::new(radii.0, radii.1);
            for k in 0..200 {
                let angle = k as f64 * 0.0917 + i as f64;
                let p = DVec2::new(angle.cos(), angle.sin())
                    * (radii.max_element() * 1.5 + 0.01 * k as f64);
                let q = nearest_on_ellipse(p, radii);
                assert!(
                    ((q / radii).length_squared() - 1.0).abs() < 1e-9,
                    "off the ellipse"
                );
                let best = (0..20_000)
                    .map(|j| {
                        let s = j as f64 / 20_000.0 * std::f64::consts::TAU;
                        p.distance(DVec2::new(radii.x * s.cos(), radii.y * s.sin()))
                    })
                    .fold(f64::INFINITY, f64::min);
                assert!(
                    p.distance(q) <= best + 1e-9,
                    "{p} -> {q}: {} > {best}",
                    p.distance(q)
                );
            }
        }
    }
}
