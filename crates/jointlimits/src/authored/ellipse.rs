//! A spherical ellipse (Grassia; Baerlocher & Boulic): an elliptic bound on the swing, with a
//! twist interval.

use glam::{DVec2, Quat, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::swing_plane::{
    PlanarSwing, as_swing_twist_ellipsoid, planar_continues_as, planar_continuing, planar_nearest,
};
use crate::contract::{LimitContext, Limited, RotationLimit};
use crate::region::SwingTwistLimit;
use crate::space::SpaceKind;
use crate::twist::TwistRange;
use crate::validation::{self, InvalidField};

/// Newton steps at most for the nearest point of an ellipse (they converge in far fewer).
const MAX_NEWTON_STEPS: usize = 64;

/// A swing bound shaped as an ellipse in the swing's scaled angle-axis, and a twist interval.
///
/// With `q = swing · twist` split about `twist_axis`, the swing's scaled angle-axis `s` lies in
/// the plane perpendicular to the axis; in coordinates `x = s·first_axis`,
/// `y = s·(twist_axis × first_axis)` the allowed swings are `(x/a)² + (y/b)² ≤ 1`, `(a, b) =
/// radii ≤ π`: `a` is the largest swing about `first_axis`, `b` about the perpendicular axis.
/// Metric: `√(d_swing² + d_twist²)`. Outside, the swing moves to the nearest point of the ellipse
/// (exact, by Newton's method on the Lagrange condition) and the twist to the nearest allowed
/// turn. The ellipse is centred and within radius π, so the short-way swing is always at least
/// as near as the long way. `measured` is `(x, y, 0, twist)` in the cover and turn used.
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

impl PlanarSwing for SphericalEllipseLimit {
    fn twist_axis(&self) -> Vec3 {
        self.twist_axis
    }

    fn first_axis(&self) -> Vec3 {
        self.first_axis
    }

    fn twist(&self) -> TwistRange {
        self.twist
    }

    /// The nearest point of the ellipse (exact, [`nearest_on_ellipse`]).
    fn nearest_swing(&self, swing: Vec2) -> (Vec2, f32) {
        let (a, b) = (self.radii.x, self.radii.y);
        if (swing.x / a).powi(2) + (swing.y / b).powi(2) <= 1.0 {
            return (swing, 0.0);
        }
        let nearest = nearest_on_ellipse(swing.as_dvec2(), self.radii.as_dvec2()).as_vec2();
        (nearest, swing.distance(nearest))
    }
}

impl SphericalEllipseLimit {
    /// The same limit as a swing-twist limit whose swing is the ellipsoid with the semi-axes
    /// `radii` along `first_axis` and `twist_axis × first_axis`: the same region and metric, so
    /// its answers agree up to rounding, but for ties: at a swing of 180° both covers of the
    /// swing are equally near, and the ellipse takes the short one where the swing-twist limit
    /// may take either. What the GPU crowd's swing-twist kernel limits, told to take the short
    /// cover. `None` for a radius below the smallest semi-axis an ellipsoid may have.
    pub fn as_swing_twist(&self) -> Option<SwingTwistLimit> {
        as_swing_twist_ellipsoid(self, self.radii)
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// (`crate::rotation_cells::prove_swing_plane_cells`; `to_relative` unit).
    ///
    /// A swing point on the ellipse scaled by `k = √((x/a)² + (y/b)²)` lies at least
    /// `min(a, b)·|1 − k|` from the ellipse, on its side: the ellipse holds the disc of radius
    /// `min(a, b)`, so `kE` grown by `(1 − k)·min(a, b)` stays within `E`, and `E` grown by
    /// less than `(k − 1)·min(a, b)` stays within the interior of `kE`.
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        let (a, b) = (self.radii.x, self.radii.y);
        let basis = glam::Mat3::from_cols(
            self.first_axis,
            self.twist_axis.cross(self.first_axis),
            self.twist_axis,
        );
        crate::rotation_cells::prove_swing_plane_cells(
            to_relative,
            &basis,
            [self.twist.min, self.twist.max],
            |point| {
                let smallest = a.min(b);
                if smallest <= 0.0 {
                    return 0.0;
                }
                let k = ((point.x / a).powi(2) + (point.y / b).powi(2)).sqrt();
                smallest * (1.0 - k)
            },
        )
    }
}

impl RotationLimit for SphericalEllipseLimit {
    fn bone_axis(&self) -> Option<Vec3> {
        Some(self.twist_axis)
    }

    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        planar_nearest(self, relative)
    }

    #[inline]
    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        planar_continuing(self, relative, previous)
    }

    #[inline]
    fn continues_as(&self, relative: Quat, nearest: &Limited, previous: Vec4) -> bool {
        planar_continues_as(self, relative, nearest, previous)
    }

    fn is_degenerate(&self, relative: Quat) -> bool {
        crate::contract::half_swing(relative, self.twist_axis)
    }

    fn validate(&self) -> Result<(), InvalidField> {
        validation::unit_vector("twist_axis", self.twist_axis)?;
        validation::unit_vector("first_axis", self.first_axis)?;
        let dot = self.twist_axis.dot(self.first_axis);
        validation::require(
            dot.abs() <= validation::UNIT_TOLERANCE,
            "first_axis",
            || format!("is not perpendicular to twist_axis (cosine {dot})"),
        )?;
        for (i, radius) in self.radii.to_array().into_iter().enumerate() {
            let ok = radius.is_finite() && radius > 0.0 && radius <= std::f32::consts::PI;
            validation::require(ok, &format!("radii[{i}]"), || {
                format!("{radius} is not an angle in (0, π]")
            })?;
        }
        self.twist.validate()
    }

    fn label(&self) -> String {
        "spherical ellipse + twist".to_string()
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::SwingTwist
    }

    fn examples() -> Vec<SphericalEllipseLimit> {
        vec![
            SphericalEllipseLimit {
                twist_axis: Vec3::Y,
                first_axis: Vec3::X,
                radii: Vec2::new(1.2, 0.4),
                twist: TwistRange {
                    min: -0.8,
                    max: 0.3,
                },
            },
            SphericalEllipseLimit {
                twist_axis: Vec3::new(0.0, 0.6, 0.8),
                first_axis: Vec3::X,
                radii: Vec2::new(0.3, 2.8),
                twist: TwistRange {
                    min: -3.6,
                    max: -2.9,
                },
            },
        ]
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
