//! Whether a swing shape is its own mirror image across the swing plane.
//!
//! A swing-twist limit stores its allowed swings as a solid in swing-plane coordinates, where the
//! allowed swings are the solid's cut by the plane `z = 0`. Projecting a swing point onto the
//! solid lands on that cut only when the reflection `M : (x, y, z) ↦ (x, y, −z)` maps the solid to
//! itself: then the nearest point to an in-plane point is in the plane (if `x` is nearest, so is
//! `Mx`, and uniqueness makes them one point). Symmetry also makes the cut non-empty: a convex
//! solid holding `x` holds the midpoint of `x` and `Mx`. Every fitted or mirrored file is
//! symmetric; a hand-edited one may not be, and is refused when read.
//!
//! The asymmetry is measured as a distance in radians, so that the tolerance means what the
//! contract's boundary tolerance means:
//! - polytopes (boxes, k-DOPs, hulls): the farthest any vertex's mirror image lies from the
//!   solid;
//! - ellipsoids `{x : (x − c)ᵀA(x − c) ≤ 1}`: twice the farthest the mid-surface between the
//!   ellipsoid's top and bottom lies from the plane (the mirror image's chord over a point of
//!   the shadow is the shape's moved by twice that, so this bounds how far apart they are),
//!   `2·(|c_z| + max_{d ∈ shadow} |g·d|)` with `g = (A_xz, A_yz)/A_zz` and the shadow's
//!   support `√(gᵀ (A⁻¹)_xy g)`.

use glam::{BVec3, DMat3, DVec3, Vec3};

use crate::shape::{BoxShape, EllipsoidShape, Frame, LimitShape, Shape};
use crate::validation::{self, InvalidField};

/// The largest asymmetry accepted, radians: f32 rounding of stored frames and vertices at the
/// coordinates of rotations (a few times 1e-7 · 2π), well under the contract's boundary tolerance.
pub const SYMMETRY_TOLERANCE: f64 = 4e-6;

/// `Ok` when the reflection across the swing plane maps `shape` to itself within
/// [`SYMMETRY_TOLERANCE`]; the error names `field` and how far off the shape is.
pub fn require_mirror_symmetric(field: &str, shape: &Shape) -> Result<(), InvalidField> {
    let asymmetry = match shape {
        Shape::Box(b) => vertex_asymmetry(shape, &b.frame, &box_corners(b)),
        Shape::Ellipsoid(e) => ellipsoid_asymmetry(e),
        Shape::Kdop(k) => vertex_asymmetry(shape, &k.frame, k.polytope().vertices()),
        Shape::Hull(h) => vertex_asymmetry(shape, &h.frame, h.polytope().vertices()),
    };
    validation::require(asymmetry <= SYMMETRY_TOLERANCE, field, || {
        format!(
            "is not symmetric about the swing plane (z = 0): its mirror image lies up to \
             {asymmetry:.3e} rad away (at most {SYMMETRY_TOLERANCE:.0e}); the allowed swings are \
             its cut by the plane, so it must be its own mirror image, as a frame keeping the z \
             axis (up to sign) with its centre at z = 0 and its extent along z balanced is"
        )
    })
}

/// A box's eight corners in its frame's coordinates.
fn box_corners(b: &BoxShape) -> [Vec3; 8] {
    std::array::from_fn(|i| {
        let pick = BVec3::new(i & 1 != 0, i & 2 != 0, i & 4 != 0);
        Vec3::select(pick, b.max, b.min)
    })
}

/// `max_v dist(Mv, shape)` over the vertices `v` (in `frame`'s coordinates) of a polytope
/// `shape`. It is 0 exactly when `M` maps the shape into itself (the image is the hull of the
/// mirrored vertices), hence onto itself (an isometry keeps the volume); and the image then lies
/// within the measure of the shape, so the measure bounds how far apart the two are. Vertices
/// lying on an edge or face, which a hull may keep on one side and not the other, do not count
/// against it.
fn vertex_asymmetry(shape: &Shape, frame: &Frame, local_vertices: &[Vec3]) -> f64 {
    local_vertices
        .iter()
        .map(|&v| {
            let mirrored = frame.to_world(v) * Vec3::new(1.0, 1.0, -1.0);
            f64::from(shape.distance(mirrored))
        })
        .fold(0.0, f64::max)
}

fn ellipsoid_asymmetry(e: &EllipsoidShape) -> f64 {
    let rotation = e.frame.rotation.as_dmat3();
    let axes = e.semi_axes.as_dvec3();
    // A = R diag(1/a²) Rᵀ and A⁻¹ = R diag(a²) Rᵀ.
    let form = rotation * DMat3::from_diagonal(1.0 / (axes * axes)) * rotation.transpose();
    let inverse = rotation * DMat3::from_diagonal(axes * axes) * rotation.transpose();
    let (a_xz, a_yz, a_zz) = (form.z_axis.x, form.z_axis.y, form.z_axis.z);
    // The mid-surface over shadow offset d = (x, y) − c_xy is z = c_z − (a_xz d_x + a_yz d_y)/a_zz.
    let g = DVec3::new(a_xz / a_zz, a_yz / a_zz, 0.0);
    let tilt = g.dot(inverse * g).max(0.0).sqrt();
    2.0 * (f64::from(e.frame.center.z).abs() + tilt)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    fn tilted(angle: f32) -> Frame {
        Frame {
            center: Vec3::ZERO,
            rotation: Mat3::from_rotation_x(angle),
        }
    }

    fn boxed(frame: Frame, min: Vec3, max: Vec3) -> Shape {
        Shape::Box(BoxShape { frame, min, max })
    }

    fn ellipsoid(frame: Frame, semi_axes: Vec3) -> Shape {
        Shape::Ellipsoid(EllipsoidShape { frame, semi_axes })
    }

    #[test]
    fn symmetric_shapes_pass_whatever_their_in_plane_turn() {
        let in_plane = Frame {
            center: Vec3::new(0.3, -0.2, 0.0),
            rotation: Mat3::from_rotation_z(0.7),
        };
        let slab = Vec3::new(0.5, 0.2, 0.03);
        assert!(require_mirror_symmetric("swing", &boxed(in_plane, -slab, slab)).is_ok());
        assert!(require_mirror_symmetric("swing", &ellipsoid(in_plane, slab)).is_ok());
        // The z axis turned onto −z, and a ball in any frame, are symmetric too.
        let flipped = Frame {
            center: Vec3::ZERO,
            rotation: Mat3::from_rotation_x(std::f32::consts::PI),
        };
        assert!(require_mirror_symmetric("swing", &boxed(flipped, -slab, slab)).is_ok());
        let ball = ellipsoid(tilted(0.4), Vec3::splat(0.2));
        assert!(require_mirror_symmetric("swing", &ball).is_ok());
    }

    #[test]
    fn tilted_shifted_or_unbalanced_shapes_are_refused() {
        let slab = Vec3::new(0.5, 0.2, 0.03);
        let refused = [
            boxed(tilted(0.035), -slab, slab),
            // A slab that misses the plane: its cut is empty.
            boxed(
                Frame::IDENTITY,
                Vec3::new(-0.5, -0.2, 0.04),
                slab + Vec3::Z * 0.1,
            ),
            boxed(Frame::IDENTITY, -slab, slab + Vec3::Z * 0.01),
            ellipsoid(tilted(0.01), slab),
            ellipsoid(
                Frame {
                    center: Vec3::Z * 0.001,
                    rotation: Mat3::IDENTITY,
                },
                slab,
            ),
        ];
        for shape in &refused {
            let error = require_mirror_symmetric("swing", shape).unwrap_err();
            assert_eq!(error.field, "swing");
            assert!(error.problem.contains("not symmetric"), "{error}");
        }
    }

    #[test]
    fn a_vertex_on_an_edge_does_not_count_and_a_tilt_does() {
        // A box's corners and, on one side only, the midpoint of an edge (hulls may keep such
        // points): the measure reads the solid, not the vertex list.
        let slab = Vec3::new(0.5, 0.2, 0.03);
        let shape = boxed(Frame::IDENTITY, -slab, slab);
        let Shape::Box(b) = &shape else {
            unreachable!()
        };
        let mut vertices = box_corners(b).to_vec();
        vertices.push(Vec3::new(0.0, 0.2, 0.03));
        assert!(vertex_asymmetry(&shape, &b.frame, &vertices) < 1e-7);
        let tilted_shape = boxed(tilted(0.01), -slab, slab);
        let Shape::Box(t) = &tilted_shape else {
            unreachable!()
        };
        let measure = vertex_asymmetry(&tilted_shape, &t.frame, &box_corners(t));
        // A corner at (0.5, 0.2, 0.03) turned by 0.01 about x and mirrored lands about
        // 2·0.01·0.2 = 0.004 from the turned box (less its thickness's share).
        assert!(measure > 1e-3 && measure < 5e-3, "{measure}");
    }

    #[test]
    fn hulls_fitted_to_swing_plane_points_are_symmetric() {
        // One point (a joint that never moved), points on a line, and a scattered cloud: the
        // hull may keep points on its edges on one side only, which must not count.
        use crate::shape::HullShape;
        let one = vec![DVec3::new(0.1, -0.2, 0.0)];
        let line: Vec<DVec3> = (0..7)
            .map(|i| DVec3::new(0.1 * i as f64, 0.05, 0.0))
            .collect();
        let cloud: Vec<DVec3> = (0..60)
            .map(|i| {
                let t = i as f64 * 0.7;
                DVec3::new(0.4 * t.cos() + 0.1 * t, 0.3 * (1.3 * t).sin(), 0.0)
            })
            .collect();
        for core in [one, line, cloud] {
            let hull = Shape::Hull(HullShape::fit(&core, 0.035, 0.05).unwrap());
            require_mirror_symmetric("swing", &hull).unwrap();
        }
    }

    #[test]
    fn every_kind_measures_a_lift_off_the_plane_as_the_gap_to_its_mirror_image() {
        // Lifted by h, the shape and its mirror image lie 2h apart, whatever the kind.
        let lift = 3e-6;
        let frame = Frame {
            center: Vec3::new(0.1, 0.2, lift),
            rotation: Mat3::IDENTITY,
        };
        let slab = Vec3::new(0.5, 0.2, 0.03);
        for shape in [boxed(frame, -slab, slab), ellipsoid(frame, slab)] {
            let error = require_mirror_symmetric("swing", &shape).unwrap_err();
            assert!(error.problem.contains("up to 6.00"), "{error}");
        }
    }
}
