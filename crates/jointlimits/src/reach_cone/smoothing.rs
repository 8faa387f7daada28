//! Smoothing a reach cone by subdividing its boundary in the stereographic plane.
//!
//! The stereographic projection from `−V` maps the whole sphere except `−V` one-to-one onto the
//! plane tangent at `V`, and maps the star polygon around `V` to a planar star polygon around
//! `V`. There the boundary is refined by the four-point scheme: between `qᵢ` and `qᵢ₊₁`,
//!
//! `q = ½(qᵢ + qᵢ₊₁) + αₖ·((qᵢ + qᵢ₊₁) − (qᵢ₋₁ + qᵢ₊₂))`,
//!
//! with `αₖ` chosen by the current number of points `k` (Wilhelms & Van Gelder's table: small
//! polygons get larger weights so that a rhombus or triangle rounds to an ellipse; from eight
//! points on, `1/16`, the interpolating cubic). The new points are mapped back to the sphere.
//! Both mappings are written without coordinates, with `V` any unit vector.

use glam::Vec3;

use super::{ReachCone, ReachConeError, TwistRange};

/// The point of the plane tangent to the unit sphere at unit `v` that lies on the ray from `−v`
/// through the unit vector `p`: `μp + (1 − μ)(−v)` with `μ = 2 / (1 + v·p)` (so `μ ≥ 1`: the
/// ray is extended past `p`). Undefined at `p = −v`.
pub fn to_tangent_plane(v: Vec3, p: Vec3) -> Vec3 {
    let mu = 2.0 / (1.0 + v.dot(p));
    mu * p - (1.0 - mu) * v
}

/// The inverse of [`to_tangent_plane`]: for `q` with `q·v = 1`, the unit vector
/// `μq + (1 − μ)(−v)` with `μ = 4 / (4 + |q − v|²)` (so `0 < μ ≤ 1`).
pub fn from_tangent_plane(v: Vec3, q: Vec3) -> Vec3 {
    let mu = 4.0 / (4.0 + (q - v).length_squared());
    mu * q - (1.0 - mu) * v
}

/// The subdivision weight for a polygon of `k` points.
fn alpha(k: usize) -> f32 {
    match k {
        3 => 0.1667,
        4 => 0.1036,
        5 => 0.0850,
        6 => 0.0773,
        7 => 0.0700,
        _ => 0.0625,
    }
}

impl ReachCone {
    /// The cone with its boundary subdivided `steps` times (each step doubles the number of
    /// points; the old points stay). Twist limits at a new point are the mean of its two
    /// neighbours'. Fails with [`ReachConeError::NotStar`] when the smoothed boundary no longer
    /// turns monotonically around `V` (possible for pathological stars).
    pub fn smoothed(&self, steps: usize) -> Result<ReachCone, ReachConeError> {
        let v = self.visible;
        let mut plane: Vec<Vec3> = self
            .boundary
            .iter()
            .map(|&p| to_tangent_plane(v, p))
            .collect();
        let mut twist = self.twist_at_boundary.clone();
        for _ in 0..steps {
            let k = plane.len();
            let a = alpha(k);
            let mut refined = Vec::with_capacity(2 * k);
            let mut refined_twist = Vec::with_capacity(2 * k);
            for i in 0..k {
                let (before, this, next, after) = (
                    plane[(i + k - 1) % k],
                    plane[i],
                    plane[(i + 1) % k],
                    plane[(i + 2) % k],
                );
                let inserted = 0.5 * (this + next) + a * ((this + next) - (before + after));
                refined.push(this);
                refined.push(inserted);
                let (t0, t1) = (twist[i], twist[(i + 1) % k]);
                refined_twist.push(t0);
                refined_twist.push(TwistRange {
                    min: 0.5 * (t0.min + t1.min),
                    max: 0.5 * (t0.max + t1.max),
                });
            }
            plane = refined;
            twist = refined_twist;
        }
        let boundary: Vec<Vec3> = plane.iter().map(|&q| from_tangent_plane(v, q)).collect();
        ReachCone::with_twist(v, &boundary, self.twist_at_visible, &twist)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mappings_are_inverse_and_land_where_they_should() {
        let v = Vec3::new(0.3, -0.5, 0.8).normalize();
        for i in 0..200 {
            let t = i as f32 * 0.37;
            let p = Vec3::new(t.sin() * 0.9, (1.3 * t).cos(), (0.7 * t).sin()).normalize();
            if p.dot(v) < -0.99 {
                continue;
            }
            let q = to_tangent_plane(v, p);
            assert!((q.dot(v) - 1.0).abs() < 1e-4, "not on the tangent plane");
            let back = from_tangent_plane(v, q);
            assert!((back - p).length() < 1e-4, "{p} -> {q} -> {back}");
        }
        assert!((to_tangent_plane(v, v) - v).length() < 1e-6);
    }
}
