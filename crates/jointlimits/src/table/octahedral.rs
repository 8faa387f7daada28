//! The equal-area octahedral map between the unit sphere and the square `[−1, 1]²` (Clarberg,
//! "Fast equal-area mapping of the (hemi)sphere using SIMD", 2008), turned so that a chosen axis
//! sits at the square's centre.
//!
//! The square's inner diamond `|u| + |v| ≤ 1` holds the hemisphere around the axis, the four
//! corner triangles the opposite one, and the axis's antipode is at the four corners. Every cell
//! of a regular grid over the square covers the same solid angle (`4π / cells`), the map is
//! continuous everywhere, and its only folds are the square's edges, where `(u, 1)` and `(−u, 1)`
//! (likewise on the other edges) are one direction: so a table sampled from a function on the
//! sphere is continuous across them. Angular distortion is at most about 2 (a cell's sides differ
//! by up to that factor near the diamond's corners), and nowhere singular.

use std::f32::consts::FRAC_PI_4;

use glam::{Mat3, Vec2, Vec3};

/// The map turned so that `axis` (the third column of `basis`) is the square's centre and the
/// basis's first two columns point along `+u` and `+v`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OctahedralMap {
    /// Orthonormal, right-handed columns `(u direction, v direction, axis)`.
    pub basis: Mat3,
}

impl OctahedralMap {
    /// The square point of the unit `direction`.
    #[inline]
    pub fn to_square(&self, direction: Vec3) -> Vec2 {
        let local = self.basis.transpose() * direction;
        // Distance from the axis in the map's radial coordinate, r = √(1 − |z|), computed as
        // √((x² + y²)/(1 + |z|)), which keeps its digits near the axis.
        let planar = local.x * local.x + local.y * local.y;
        let r = (planar / (1.0 + local.z.abs())).min(1.0).sqrt();
        let (ax, ay) = (local.x.abs(), local.y.abs());
        // φ ∈ [0, π/2] within the quadrant, spread linearly along the diamond's edge.
        let phi = if ax == 0.0 && ay == 0.0 {
            0.0
        } else {
            ay.atan2(ax)
        };
        let along = phi / FRAC_PI_4 - 1.0; // (|v| − |u|) / r ∈ [−1, 1]
        let mut v_abs = 0.5 * r * (1.0 + along);
        let mut u_abs = r - v_abs;
        if local.z < 0.0 {
            // The far hemisphere: reflect into the corner triangle.
            (u_abs, v_abs) = (1.0 - v_abs, 1.0 - u_abs);
        }
        Vec2::new(u_abs.copysign(local.x), v_abs.copysign(local.y))
    }

    /// The unit direction at square point `p` (clamped into the square).
    #[inline]
    pub fn to_sphere(&self, p: Vec2) -> Vec3 {
        let p = p.clamp(Vec2::splat(-1.0), Vec2::splat(1.0));
        let (u, v) = (p.x.abs(), p.y.abs());
        let distance = 1.0 - (u + v); // > 0 in the near hemisphere
        let r = 1.0 - distance.abs();
        let phi = if r == 0.0 {
            0.0
        } else {
            ((v - u) / r + 1.0) * FRAC_PI_4
        };
        let z = (1.0 - r * r).copysign(distance);
        let radial = r * (2.0 - r * r).max(0.0).sqrt();
        let local = Vec3::new(
            (phi.cos() * radial).copysign(p.x),
            (phi.sin() * radial).copysign(p.y),
            z,
        );
        (self.basis * local).normalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::SeededRandom;
    use crate::region::swing_basis;

    fn map() -> OctahedralMap {
        OctahedralMap {
            basis: swing_basis(Vec3::new(0.3, -0.8, 0.5).normalize()),
        }
    }

    #[test]
    fn directions_come_back() {
        let map = map();
        let mut random = SeededRandom::new(5);
        for _ in 0..100_000 {
            let d = random.direction();
            let p = map.to_square(d);
            assert!(p.abs().max_element() <= 1.0 + 1e-6);
            let back = map.to_sphere(p);
            assert!((back - d).length() < 2e-5, "{d} → {p} → {back}");
        }
    }

    #[test]
    fn the_axis_is_the_centre_and_its_antipode_the_corners() {
        let map = map();
        let axis = map.basis.z_axis;
        assert!(map.to_square(axis).length() < 1e-6);
        assert!((map.to_square(-axis).abs() - Vec2::ONE).length() < 1e-3);
        for corner in [
            Vec2::new(1.0, 1.0),
            Vec2::new(-1.0, 1.0),
            Vec2::new(-1.0, -1.0),
        ] {
            assert!(map.to_sphere(corner).angle_between(-axis) < 1e-3);
        }
    }

    #[test]
    fn folded_edges_are_one_direction() {
        let map = map();
        for k in 0..=20 {
            let t = -1.0 + k as f32 / 10.0;
            for (a, b) in [
                (Vec2::new(t, 1.0), Vec2::new(-t, 1.0)),
                (Vec2::new(1.0, t), Vec2::new(1.0, -t)),
            ] {
                assert!(map.to_sphere(a).angle_between(map.to_sphere(b)) < 1e-3);
            }
        }
    }

    #[test]
    fn equal_areas_of_the_square_are_equal_areas_of_the_sphere() {
        // Uniform directions land uniformly: each of 8×8 cells gets 1/64 of them.
        let map = map();
        let mut random = SeededRandom::new(6);
        let n = 256_000;
        let mut counts = [0usize; 64];
        for _ in 0..n {
            let p = map.to_square(random.direction());
            let cell = |x: f32| (((x + 1.0) * 4.0) as usize).min(7);
            counts[cell(p.y) * 8 + cell(p.x)] += 1;
        }
        let expected = n as f64 / 64.0;
        for count in counts {
            assert!(
                (count as f64 - expected).abs() < 5.0 * expected.sqrt(),
                "{counts:?}"
            );
        }
    }
}
