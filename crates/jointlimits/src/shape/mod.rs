//! Limit regions in limit space and their exact nearest-point projections.
//!
//! A limit region is a closed convex set `C ⊂ ℝ³` of allowed limit-space points (scaled angle-axis
//! vectors, radians). Every region answers the same three questions through [`LimitShape`]:
//! does it contain `p`, how far is `p` from it, and what is the nearest allowed point
//! `π_C(p) = argmin_{x ∈ C} |x − p|`. Because every region is convex, `π_C` is unique and
//! non-expansive (`|π_C(a) − π_C(b)| ≤ |a − b|`): a continuous input gives a continuous output.
//!
//! Shapes are fitted offline in f64 (`fit` functions taking `&[DVec3]`) and evaluated at runtime in
//! f32 without allocating. [`Shape`] is the enum that dispatches without trait objects.

pub mod aabb;
pub mod ellipsoid;
mod feature_cells;
pub mod hull;
pub mod kdop;
mod plane_cells;
pub mod polytope;
mod support_faces;

use glam::{DMat3, DVec3, Mat3, Vec3};
use serde::{Deserialize, Serialize};

use crate::validation::{self, InvalidField};

pub use aabb::BoxShape;
pub use ellipsoid::{EllipsoidFit, EllipsoidShape};
pub use hull::HullShape;
pub use kdop::{KdopDirections, KdopShape};
pub use polytope::Polytope;

/// The result of projecting a point onto a limit region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Projection {
    /// The nearest point of the region (the input itself when it is inside).
    pub point: Vec3,
    /// Whether the input was already inside (or, once settled by the covers' test, within the
    /// tolerance of the region: then `point` is still the region's nearest point).
    pub inside: bool,
    /// The distance from the input to `point` (0 when the shape holds the input), in radians.
    pub distance: f32,
}

impl Projection {
    /// The projection of a point that is already inside.
    #[inline]
    pub fn unchanged(point: Vec3) -> Projection {
        Projection {
            point,
            inside: true,
            distance: 0.0,
        }
    }

    /// The projection of `from`, outside, onto `point`.
    #[inline]
    pub fn moved(from: Vec3, point: Vec3) -> Projection {
        Projection {
            point,
            inside: false,
            distance: from.distance(point),
        }
    }
}

/// A closed convex region of limit space with an exact nearest-point projection.
pub trait LimitShape {
    /// The nearest point of the region to `p`, `argmin_{x ∈ C} |x − p|`.
    fn project(&self, p: Vec3) -> Projection;

    /// Whether `p` lies in the region (boundary included, up to f32 rounding).
    fn contains(&self, p: Vec3) -> bool {
        self.project(p).inside
    }

    /// The Euclidean distance from `p` to the region, 0 inside.
    fn distance(&self, p: Vec3) -> f32 {
        self.project(p).distance
    }
}

/// A rigid frame in limit space: `local = rotationᵀ · (p − center)`.
///
/// Shapes are stored in their own frame, usually the PCA frame of the fitted samples, so that
/// boxes and ellipsoids can follow the data's principal directions.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Frame {
    /// The origin of the frame in limit space.
    pub center: Vec3,
    /// Orthonormal, right-handed columns: the frame's axes in limit space.
    pub rotation: Mat3,
}

impl Frame {
    /// The identity frame: limit space itself.
    pub const IDENTITY: Frame = Frame {
        center: Vec3::ZERO,
        rotation: Mat3::IDENTITY,
    };

    /// Limit-space point → frame coordinates.
    #[inline]
    pub fn to_local(&self, p: Vec3) -> Vec3 {
        self.rotation.transpose() * (p - self.center)
    }

    /// Frame coordinates → limit-space point.
    #[inline]
    pub fn to_world(&self, local: Vec3) -> Vec3 {
        self.rotation * local + self.center
    }

    /// The PCA frame of `samples`: centred on their mean, axes along the eigenvectors of their
    /// covariance, largest variance first (exact f64 Jacobi, see [`crate::fit::eigen`]).
    /// An empty sample set gives the identity frame.
    pub fn principal(samples: &[DVec3]) -> Frame {
        if samples.is_empty() {
            return Frame::IDENTITY;
        }
        let n = samples.len() as f64;
        let mean = samples.iter().copied().sum::<DVec3>() / n;
        let mut covariance = DMat3::ZERO;
        for &s in samples {
            let d = s - mean;
            covariance += DMat3::from_cols(d * d.x, d * d.y, d * d.z);
        }
        let eigen = crate::fit::symmetric_eigen(covariance / n);
        Frame {
            center: mean.as_vec3(),
            rotation: eigen.vectors.as_mat3(),
        }
    }

    /// An axis-aligned frame centred on the origin of limit space.
    pub fn axis_aligned() -> Frame {
        Frame::IDENTITY
    }

    /// Frame coordinates of `samples` in f64.
    pub fn local_samples(&self, samples: &[DVec3]) -> Vec<DVec3> {
        let rotation_t = self.rotation.as_dmat3().transpose();
        let center = self.center.as_dvec3();
        samples.iter().map(|&s| rotation_t * (s - center)).collect()
    }
}

/// Any of the limit regions, dispatched by `match` (no trait objects on the hot path).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shape {
    /// A box, axis-aligned or in the PCA frame ([`BoxShape`]).
    Box(BoxShape),
    /// An ellipsoid ([`EllipsoidShape`]).
    Ellipsoid(EllipsoidShape),
    /// A k-DOP, the intersection of slabs along fixed directions ([`KdopShape`]).
    Kdop(KdopShape),
    /// The convex hull of the samples ([`HullShape`]).
    Hull(HullShape),
}

impl LimitShape for Shape {
    #[inline(always)]
    fn project(&self, p: Vec3) -> Projection {
        match self {
            Shape::Box(s) => s.project(p),
            Shape::Ellipsoid(s) => s.project(p),
            Shape::Kdop(s) => s.project(p),
            Shape::Hull(s) => s.project(p),
        }
    }

    #[inline(always)]
    fn contains(&self, p: Vec3) -> bool {
        match self {
            Shape::Box(s) => s.contains(p),
            Shape::Ellipsoid(s) => s.contains(p),
            Shape::Kdop(s) => s.contains(p),
            Shape::Hull(s) => s.contains(p),
        }
    }
}

impl Shape {
    /// Builds what speeds up the projections of a shape asked many times: a polytope's grid
    /// of cubes naming the feature nearest their points
    /// ([`polytope::Polytope::build_searches`]); other shapes have nothing to build.
    pub fn build_searches(&self) {
        match self {
            Shape::Kdop(kdop) => kdop.polytope().build_searches(),
            Shape::Hull(hull) => hull.polytope().build_searches(),
            Shape::Box(_) | Shape::Ellipsoid(_) => {}
        }
    }

    /// Whether the projection's first step is the inside test (polytopes: the face a point
    /// rises above, looked up, which says inside when there is none), so that a caller testing
    /// before projecting would take that step twice.
    #[inline(always)]
    pub fn tests_inside_in_projection(&self) -> bool {
        matches!(self, Shape::Kdop(_) | Shape::Hull(_))
    }

    /// How deep inside the region `p` lies, at least: every point within this distance of `p`
    /// is inside. At most zero when `p` is outside, and then its negation is at most `p`'s
    /// distance from the region.
    ///
    /// Box: the least distance to a side. Ellipsoid `|x/a| ≤ 1` (frame coordinates): `|x/a|`
    /// grows by at most `1/min(a)` per unit moved, so `(1 − |x/a|)·min(a)`. Polytopes: the least
    /// distance to a face's plane (unit normals).
    pub fn depth(&self, p: Vec3) -> f32 {
        match self {
            Shape::Box(s) => {
                let local = s.frame.to_local(p);
                (local - s.min).min(s.max - local).min_element()
            }
            Shape::Ellipsoid(s) => {
                let local = s.frame.to_local(p);
                (1.0 - (local / s.semi_axes).length()) * s.semi_axes.min_element()
            }
            Shape::Kdop(s) => polytope_depth(s.polytope(), s.frame.to_local(p)),
            Shape::Hull(s) => polytope_depth(s.polytope(), s.frame.to_local(p)),
        }
    }

    /// [`Shape::depth`] for moves within the plane `z = 0` only (the swing plane of swing-twist
    /// limits): every point of that plane within this distance of `p` (itself in the plane) is
    /// inside. A side or face whose normal stands nearly out of the plane is far in-plane: its
    /// distance is divided by the normal's in-plane length. An ellipsoid `|A(x − c)| ≤ 1` with
    /// `A = diag(1/a)·Rᵀ` grows by at most `σ` per unit moved in the plane, `σ²` the largest
    /// eigenvalue of `MᵀM` for `M` the first two columns of `A`.
    pub fn depth_in_plane(&self, p: Vec3) -> f32 {
        match self {
            Shape::Box(s) => {
                let local = s.frame.to_local(p);
                let slack = (local - s.min).min(s.max - local);
                (0..3)
                    .map(|i| in_plane(slack[i], s.frame.rotation.col(i)))
                    .fold(f32::INFINITY, f32::min)
            }
            Shape::Ellipsoid(s) => {
                let local = s.frame.to_local(p);
                let reach = 1.0 - (local / s.semi_axes).length();
                let rows = s.frame.rotation.transpose();
                let m = [rows.col(0) / s.semi_axes, rows.col(1) / s.semi_axes];
                let (a, b, c) = (m[0].dot(m[0]), m[0].dot(m[1]), m[1].dot(m[1]));
                let largest = 0.5 * (a + c) + (0.25 * (a - c) * (a - c) + b * b).sqrt();
                reach / largest.sqrt().max(f32::MIN_POSITIVE)
            }
            Shape::Kdop(s) => polytope_depth_in_plane(s.polytope(), &s.frame, p),
            Shape::Hull(s) => polytope_depth_in_plane(s.polytope(), &s.frame, p),
        }
    }

    /// A ball holding the region: its centre and radius (cheap: a few operations; polytopes keep
    /// their radius). Projections use it to tell when the other cover of a rotation could be
    /// nearer (see [`crate::region::covers`]).
    #[inline]
    pub fn bounding_ball(&self) -> (Vec3, f32) {
        match self {
            Shape::Box(s) => (
                s.frame.to_world(0.5 * (s.min + s.max)),
                (0.5 * (s.max - s.min)).length(),
            ),
            Shape::Ellipsoid(s) => (s.frame.center, s.semi_axes.max_element()),
            Shape::Kdop(s) => (s.frame.center, s.polytope().reach()),
            Shape::Hull(s) => (s.frame.center, s.polytope().reach()),
        }
    }

    /// The region turned by the rotation matrix `turn` about the origin: `{turn·x : x ∈ self}`.
    /// Only the frame moves; an axis-aligned box turned by a signed axis permutation (a half
    /// turn about a coordinate axis) stays axis-aligned, its bounds exchanged instead.
    pub fn turned(&self, turn: Mat3) -> Shape {
        let frame = |f: &Frame| Frame {
            center: turn * f.center,
            rotation: turn * f.rotation,
        };
        match self {
            Shape::Box(b) if b.frame.rotation == Mat3::IDENTITY && is_signed_diagonal(turn) => {
                let signs = Vec3::new(turn.x_axis.x, turn.y_axis.y, turn.z_axis.z);
                let (a, c) = (signs * b.min, signs * b.max);
                Shape::Box(BoxShape {
                    frame: Frame {
                        center: turn * b.frame.center,
                        rotation: Mat3::IDENTITY,
                    },
                    min: a.min(c),
                    max: a.max(c),
                })
            }
            Shape::Box(b) => Shape::Box(BoxShape {
                frame: frame(&b.frame),
                ..*b
            }),
            Shape::Ellipsoid(e) => Shape::Ellipsoid(EllipsoidShape {
                frame: frame(&e.frame),
                ..*e
            }),
            Shape::Kdop(k) => {
                let mut k = k.clone();
                k.frame = frame(&k.frame);
                Shape::Kdop(k)
            }
            Shape::Hull(h) => {
                let mut h = h.clone();
                h.frame = frame(&h.frame);
                Shape::Hull(h)
            }
        }
    }

    /// An upper bound on `|x|` over the region: how far from the reference it reaches.
    #[inline]
    pub fn reach(&self) -> f32 {
        let (center, radius) = self.bounding_ball();
        center.length() + radius
    }

    /// Every number stored in the shape is finite and within what limit space holds (checked
    /// when loading a limits file); otherwise the first field that is not.
    pub fn validate(&self) -> Result<(), InvalidField> {
        match self {
            Shape::Box(s) => s.validate(),
            Shape::Ellipsoid(s) => s.validate(),
            Shape::Kdop(s) => s.validate(),
            Shape::Hull(s) => s.validate(),
        }
    }

    /// A short human-readable name: `box`, `obb`, `ellipsoid`, `kdop13`, `hull`.
    pub fn label(&self) -> String {
        match self {
            Shape::Box(s) if s.frame.rotation == Mat3::IDENTITY => "box".into(),
            Shape::Box(_) => "obb".into(),
            Shape::Ellipsoid(_) => "ellipsoid".into(),
            Shape::Kdop(s) => format!("kdop{}", s.directions.len()),
            Shape::Hull(_) => "hull".into(),
        }
    }
}

/// Whether `m` is diagonal with entries ±1.
/// The least distance from `local` to a face's plane of `polytope`, negative past one.
fn polytope_depth(polytope: &Polytope, local: Vec3) -> f32 {
    polytope
        .planes()
        .map(|(normal, offset)| offset - normal.dot(local))
        .fold(f32::INFINITY, f32::min)
}

/// [`Shape::depth_in_plane`] of a polytope in `frame`.
fn polytope_depth_in_plane(polytope: &Polytope, frame: &Frame, p: Vec3) -> f32 {
    let local = frame.to_local(p);
    polytope
        .planes()
        .map(|(normal, offset)| in_plane(offset - normal.dot(local), frame.rotation * normal))
        .fold(f32::INFINITY, f32::min)
}

/// How far a point may move within the plane `z = 0` before a plane with the unit `normal`
/// (limit-space coordinates) it lies `slack` inside is crossed: unbounded when the normal stands
/// out of the plane (within 1e-6) and the point lies 1e-5 inside, farther than any move of a
/// swing point (at most 2π) brings it.
fn in_plane(slack: f32, normal: Vec3) -> f32 {
    let along = normal.truncate().length();
    if along >= 1e-6 {
        slack / along
    } else if slack > 1e-5 {
        f32::INFINITY
    } else {
        slack.min(0.0)
    }
}

fn is_signed_diagonal(m: Mat3) -> bool {
    let off = [
        m.x_axis.y, m.x_axis.z, m.y_axis.x, m.y_axis.z, m.z_axis.x, m.z_axis.y,
    ];
    let diagonal = [m.x_axis.x, m.y_axis.y, m.z_axis.z];
    off.iter().all(|&v| v == 0.0) && diagonal.iter().all(|&v| v.abs() == 1.0)
}

/// Whether every component of a frame is finite.
pub(crate) fn frame_is_finite(frame: &Frame) -> bool {
    frame.center.is_finite() && frame.rotation.is_finite()
}

impl Frame {
    /// A bounded centre and a rotation matrix (fields `frame.center`, `frame.rotation`).
    pub fn validate(&self) -> Result<(), InvalidField> {
        validation::bounded_vector("frame.center", self.center)?;
        validation::rotation_matrix("frame.rotation", self.rotation)
    }
}
