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

use glam::{DVec2, DVec3, Mat3, Vec2, Vec3};

/// The map turned so that `axis` (the third column of `basis`) is the square's centre and the
/// basis's first two columns point along `+u` and `+v`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OctahedralMap {
    /// Orthonormal, right-handed columns `(u direction, v direction, axis)`.
    pub basis: Mat3,
}

/// The square point that is the same direction as `p`, a point stepped past the square's edges
/// by less than one: the map continues across each edge into its mirror image (the edge
/// `u = 1` is one half great circle, with `(1, v)` and `(1, −v)` one direction), so a step
/// across it lands at `(2 − u, −v)`. Points inside the square come back unchanged.
#[inline]
pub fn wrapped(p: Vec2) -> Vec2 {
    let mut p = p;
    if p.x.abs() > 1.0 {
        p = Vec2::new((2.0 - p.x.abs()).copysign(p.x), -p.y);
    }
    if p.y.abs() > 1.0 {
        p = Vec2::new(-p.x, (2.0 - p.y.abs()).copysign(p.y));
    }
    p.clamp(Vec2::splat(-1.0), Vec2::splat(1.0))
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
        // The polynomial atan2 (error ~1e-7, f32 rounding here) is several times faster than
        // the library's, and every table lookup starts here.
        let phi = crate::fast_trig::atan2(ay, ax);
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
        let (sin_phi, cos_phi) = crate::fast_trig::sin_cos(phi);
        let local = Vec3::new(
            (cos_phi * radial).copysign(p.x),
            (sin_phi * radial).copysign(p.y),
            z,
        );
        (self.basis * local).normalize()
    }
}

/// The direction at square point `p` in the map's own frame (the axis at `+z`), in f64: the
/// same formulas as [`OctahedralMap::to_sphere`], for derivative estimates (second differences
/// over a fraction of a cell) that need more digits than f32 holds. Rotating the frame changes
/// no length or angle, so the map's stretch and bending are measured here once for every axis.
pub fn local_direction_precise(p: DVec2) -> DVec3 {
    let p = p.clamp(DVec2::splat(-1.0), DVec2::splat(1.0));
    let (u, v) = (p.x.abs(), p.y.abs());
    let distance = 1.0 - (u + v);
    let r = 1.0 - distance.abs();
    let phi = if r == 0.0 {
        0.0
    } else {
        ((v - u) / r + 1.0) * std::f64::consts::FRAC_PI_4
    };
    let radial = r * (2.0 - r * r).max(0.0).sqrt();
    DVec3::new(
        (phi.cos() * radial).copysign(p.x),
        (phi.sin() * radial).copysign(p.y),
        (1.0 - r * r).copysign(distance),
    )
    .normalize()
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
    fn a_step_across_an_edge_continues_on_the_other_side() {
        let map = map();
        for (p, step) in [
            (Vec2::new(0.99, 0.3), Vec2::new(0.02, 0.005)),
            (Vec2::new(-0.99, -0.6), Vec2::new(-0.02, 0.01)),
            (Vec2::new(0.2, 0.99), Vec2::new(-0.005, 0.02)),
            (Vec2::new(-0.7, -0.99), Vec2::new(0.01, -0.02)),
            (Vec2::new(0.99, 0.98), Vec2::new(0.02, 0.03)),
        ] {
            // Walking across the edge in small steps, the direction moves by about the same
            // amount each step: no jump where the square folds.
            let at = |k: usize| map.to_sphere(wrapped(p + step * (k as f32 / 100.0)));
            let gaps: Vec<f32> = (0..100).map(|k| (at(k) - at(k + 1)).length()).collect();
            let mean = gaps.iter().sum::<f32>() / gaps.len() as f32;
            let largest = gaps.iter().copied().fold(0.0, f32::max);
            let smallest = gaps.iter().copied().fold(f32::INFINITY, f32::min);
            assert!(
                largest < 3.0 * mean,
                "{p} + {step}: gap {largest} vs mean {mean}"
            );
            // Not stuck on the edge either (as clamping to the square would leave it).
            assert!(
                smallest > mean / 3.0,
                "{p} + {step}: gap {smallest} vs mean {mean}"
            );
            assert!(mean > 1e-5, "{p} + {step}: no motion");
        }
        assert_eq!(wrapped(Vec2::new(0.3, -0.2)), Vec2::new(0.3, -0.2));
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

    #[test]
    fn the_precise_direction_is_the_maps_own() {
        let map = map();
        let mut random = SeededRandom::new(21);
        for _ in 0..10_000 {
            let p = Vec2::new(random.next_unit() as f32, random.next_unit() as f32) * 2.0 - 1.0;
            let precise = map.basis.as_dmat3() * local_direction_precise(p.as_dvec2());
            let fast = map.to_sphere(p).as_dvec3();
            assert!((precise - fast).length() < 1e-6, "{p}: {precise} vs {fast}");
        }
    }
}
