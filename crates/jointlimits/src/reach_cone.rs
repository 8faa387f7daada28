//! Reach cones: the directions a bone axis may point in, as a spherical star polygon around a
//! visible point `V`, with twist limits that vary across the cone.
//!
//! The boundary points `P₀ … Pₙ₋₁` (unit vectors) run counter-clockwise seen from outside, above
//! `V`, and every one of them sees `V`: `(V × Pᵢ)·Pᵢ₊₁ > 0`. The radial slice planes through `V`
//! and each `Pᵢ`, with normals `Sᵢ = V × Pᵢ`, cut the sphere into `n` lunes; the lune between
//! `Pᵢ` and `Pᵢ₊₁` is cut by the edge's great circle, normal `Bᵢ = Pᵢ × Pᵢ₊₁`, and its part on
//! `V`'s side (`Bᵢ·L ≥ 0`) belongs to the cone. So a direction `L` is inside when, in its slice
//! (`Sᵢ·L ≥ 0 > Sᵢ₊₁·L`), `Bᵢ·L ≥ 0`. Nothing here needs the polygon convex or smaller than a
//! hemisphere; the antipode of `V` is always outside.
//!
//! Slices are found by a binary search on the azimuth around `V`, or in O(1) from the slice of the
//! previous query when queries are coherent.
//!
//! Twist limits (minimum, maximum) are given at every boundary point and at `V` and interpolated
//! with barycentric weights of the spherical triangle `(V, Pᵢ, Pᵢ₊₁)` that holds the direction:
//! the weight of each corner is the triple product of the direction with the other two corners,
//! `w(Pᵢ) ∝ (Pᵢ₊₁ × V)·L = −Sᵢ₊₁·L`, `w(Pᵢ₊₁) ∝ (V × Pᵢ)·L = Sᵢ·L`, `w(V) ∝ Bᵢ·L`, normalised to
//! sum to 1. On a slice plane the weight of the far corner vanishes, so the limits are continuous
//! across slices.

use std::f32::consts::TAU;

use glam::Vec3;

/// Why boundary points do not make a reach cone.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReachConeError {
    /// A reach cone needs at least three boundary points.
    #[error("a reach cone needs at least 3 boundary points, got {count}")]
    TooFewPoints {
        /// How many were given.
        count: usize,
    },
    /// A point is NaN, infinite or zero.
    #[error("{} is not a finite, non-zero direction", index.map_or("the visible point".to_string(), |i| format!("boundary point {i}")))]
    BadPoint {
        /// The point's index (`None`: the visible point).
        index: Option<usize>,
    },
    /// `(V × Pᵢ)·Pᵢ₊₁ ≤ 0`: the points are not counter-clockwise around `V`, or an edge hides `V`.
    #[error(
        "boundary points {index} and {next} do not turn counter-clockwise around the visible point \
         ((V × P{index})·P{next} = {value:.3e} ≤ 0)"
    )]
    NotStar {
        /// The first point of the edge.
        index: usize,
        /// The second point of the edge.
        next: usize,
        /// The triple product.
        value: f32,
    },
    /// The boundary winds around `V` more than once.
    #[error("the boundary winds {turns} times around the visible point; it must wind once")]
    Winding {
        /// The number of turns.
        turns: usize,
    },
    /// Twist limits given for a different number of points, or with `min > max`.
    #[error("twist limits: {0}")]
    Twist(String),
}

/// Twist limits (radians) at one point of a reach cone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwistLimits {
    /// The smallest twist allowed.
    pub min: f32,
    /// The largest twist allowed.
    pub max: f32,
}

/// A spherical star polygon with per-vertex twist limits (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct ReachCone {
    visible: Vec3,
    boundary: Vec<Vec3>,
    /// `Sᵢ = V × Pᵢ`.
    slice_normals: Vec<Vec3>,
    /// `Bᵢ = Pᵢ × Pᵢ₊₁`, unit length.
    edge_normals: Vec<Vec3>,
    /// Azimuth of each `Pᵢ` around `V`, measured from `P₀`, increasing, in `[0, 2π)`.
    azimuths: Vec<f32>,
    /// Unit vectors spanning the plane perpendicular to `V`, with `e₁ × e₂ = V`.
    tangent: (Vec3, Vec3),
    twist_at_boundary: Vec<TwistLimits>,
    twist_at_visible: TwistLimits,
}

impl ReachCone {
    /// A reach cone from its visible point and boundary (any lengths; they are normalised), with
    /// the same twist limits everywhere.
    pub fn new(
        visible: Vec3,
        boundary: &[Vec3],
        twist: TwistLimits,
    ) -> Result<ReachCone, ReachConeError> {
        ReachCone::with_twist(visible, boundary, twist, &vec![twist; boundary.len()])
    }

    /// A reach cone with twist limits at the visible point and at every boundary point.
    pub fn with_twist(
        visible: Vec3,
        boundary: &[Vec3],
        twist_at_visible: TwistLimits,
        twist_at_boundary: &[TwistLimits],
    ) -> Result<ReachCone, ReachConeError> {
        let n = boundary.len();
        if n < 3 {
            return Err(ReachConeError::TooFewPoints { count: n });
        }
        let unit = |p: Vec3, index| p.try_normalize().ok_or(ReachConeError::BadPoint { index });
        let visible = unit(visible, None)?;
        let boundary = boundary
            .iter()
            .enumerate()
            .map(|(i, &p)| unit(p, Some(i)))
            .collect::<Result<Vec<_>, _>>()?;
        if twist_at_boundary.len() != n {
            return Err(ReachConeError::Twist(format!(
                "{} boundary points but {} twist limits",
                n,
                twist_at_boundary.len()
            )));
        }
        for (i, t) in std::iter::once(&twist_at_visible)
            .chain(twist_at_boundary)
            .enumerate()
        {
            if !(t.min.is_finite() && t.max.is_finite() && t.min <= t.max) {
                let place = if i == 0 {
                    "the visible point".to_string()
                } else {
                    format!("boundary point {}", i - 1)
                };
                return Err(ReachConeError::Twist(format!(
                    "at {place}: min {} and max {} must be finite with min ≤ max",
                    t.min, t.max
                )));
            }
        }
        for i in 0..n {
            let next = (i + 1) % n;
            let value = visible.cross(boundary[i]).dot(boundary[next]);
            if value.is_nan() || value <= 0.0 {
                return Err(ReachConeError::NotStar {
                    index: i,
                    next,
                    value,
                });
            }
        }
        let e1 = visible.any_orthonormal_vector();
        let e2 = visible.cross(e1);
        let azimuth = |p: Vec3| p.dot(e2).atan2(p.dot(e1));
        let mut azimuths = Vec::with_capacity(n);
        let mut total = 0.0f32;
        for i in 0..n {
            azimuths.push(total);
            // Each step turns counter-clockwise by less than π (the star condition).
            let step = (azimuth(boundary[(i + 1) % n]) - azimuth(boundary[i])).rem_euclid(TAU);
            total += step;
        }
        let turns = (total / TAU).round() as usize;
        if turns != 1 {
            return Err(ReachConeError::Winding { turns });
        }
        Ok(ReachCone {
            visible,
            slice_normals: boundary.iter().map(|&p| visible.cross(p)).collect(),
            edge_normals: (0..n)
                .map(|i| boundary[i].cross(boundary[(i + 1) % n]).normalize())
                .collect(),
            boundary,
            azimuths,
            tangent: (e1, e2),
            twist_at_boundary: twist_at_boundary.to_vec(),
            twist_at_visible,
        })
    }

    /// The visible point.
    pub fn visible(&self) -> Vec3 {
        self.visible
    }

    /// The boundary points, unit length, counter-clockwise.
    pub fn boundary(&self) -> &[Vec3] {
        &self.boundary
    }

    /// The slice `i` whose lune (between `Pᵢ` and `Pᵢ₊₁`) holds `direction`, by binary search on
    /// the azimuth around `V`: `O(log n)`.
    pub fn slice_of(&self, direction: Vec3) -> usize {
        let (e1, e2) = self.tangent;
        let p0 = self.boundary[0];
        let start = p0.dot(e2).atan2(p0.dot(e1));
        let azimuth = (direction.dot(e2).atan2(direction.dot(e1)) - start).rem_euclid(TAU);
        // The last azimuth not above the direction's.
        self.azimuths
            .partition_point(|&a| a <= azimuth)
            .saturating_sub(1)
    }

    /// Like [`ReachCone::slice_of`], but tries `hint` (the previous query's slice) and its
    /// neighbours first: `O(1)` for coherent queries.
    #[inline]
    pub fn slice_from(&self, direction: Vec3, hint: usize) -> usize {
        let n = self.boundary.len();
        let in_slice = |i: usize| {
            self.slice_normals[i].dot(direction) >= 0.0
                && self.slice_normals[(i + 1) % n].dot(direction) < 0.0
        };
        let hint = hint % n;
        for i in [hint, (hint + 1) % n, (hint + n - 1) % n] {
            if in_slice(i) {
                return i;
            }
        }
        self.slice_of(direction)
    }

    /// Whether `direction` (unit length) is inside the cone.
    #[inline]
    pub fn contains(&self, direction: Vec3) -> bool {
        self.edge_normals[self.slice_of(direction)].dot(direction) >= 0.0
    }

    /// [`ReachCone::contains`] for a stream of directions: `slice` carries the slice from one
    /// query to the next.
    #[inline]
    pub fn contains_coherent(&self, direction: Vec3, slice: &mut usize) -> bool {
        *slice = self.slice_from(direction, *slice);
        self.edge_normals[*slice].dot(direction) >= 0.0
    }

    /// The geodesically nearest direction of the cone to the unit `direction`: itself when inside,
    /// otherwise the nearest point of the boundary's great-circle edges.
    pub fn project(&self, direction: Vec3) -> Vec3 {
        if self.contains(direction) {
            return direction;
        }
        let n = self.boundary.len();
        let mut best = self.boundary[0];
        for i in 0..n {
            let candidate = nearest_on_arc(
                self.boundary[i],
                self.boundary[(i + 1) % n],
                self.edge_normals[i],
                direction,
            );
            if candidate.dot(direction) > best.dot(direction) {
                best = candidate;
            }
        }
        best
    }

    /// Where the great-circle path from `inside` (in the cone) to `target` first leaves the cone,
    /// or `None` when `target` is inside. Every edge plane the chord `inside → target` crosses
    /// within its own slice is a candidate; the first along the path is the exit, which is right
    /// for concave cones too.
    pub fn exit_point(&self, inside: Vec3, target: Vec3) -> Option<Vec3> {
        if self.contains(target) {
            return None;
        }
        let n = self.boundary.len();
        let mut first: Option<(f32, Vec3)> = None;
        for i in 0..n {
            let b = self.edge_normals[i];
            let (from, to) = (b.dot(inside), b.dot(target));
            if from < 0.0 || to >= 0.0 {
                continue;
            }
            let t = from / (from - to);
            let point = inside.lerp(target, t);
            let tolerance = 1e-6 * point.length();
            let in_slice = self.slice_normals[i].dot(point) >= -tolerance
                && self.slice_normals[(i + 1) % n].dot(point) <= tolerance;
            if in_slice && first.is_none_or(|(best, _)| t < best) {
                first = Some((t, point));
            }
        }
        // A crossing always exists when `inside` is inside; without one (an `inside` that is not),
        // fall back to the nearest point.
        Some(first.map_or_else(|| self.project(target), |(_, p)| p.normalize()))
    }

    /// The twist limits at the unit `direction`, interpolated across the slice's spherical
    /// triangle (module docs); a direction outside uses its nearest point in the cone.
    pub fn twist_limits(&self, direction: Vec3) -> TwistLimits {
        let direction = self.project(direction);
        let n = self.boundary.len();
        let i = self.slice_of(direction);
        let next = (i + 1) % n;
        let w_next = self.slice_normals[i].dot(direction).max(0.0);
        let w_this = (-self.slice_normals[next].dot(direction)).max(0.0);
        let w_visible = self.edge_normals[i].dot(direction).max(0.0)
            * self.boundary[i].cross(self.boundary[next]).length();
        let sum = w_this + w_next + w_visible;
        if sum <= f32::MIN_POSITIVE {
            return self.twist_at_visible;
        }
        let (a, b, v) = (
            self.twist_at_boundary[i],
            self.twist_at_boundary[next],
            self.twist_at_visible,
        );
        TwistLimits {
            min: (w_this * a.min + w_next * b.min + w_visible * v.min) / sum,
            max: (w_this * a.max + w_next * b.max + w_visible * v.max) / sum,
        }
    }
}

/// The nearest point to unit `d` of the minor great-circle arc from `a` to `b` (unit normal
/// `normal = a × b / |a × b|`).
fn nearest_on_arc(a: Vec3, b: Vec3, normal: Vec3, d: Vec3) -> Vec3 {
    let in_plane = d - normal * d.dot(normal);
    if let Some(q) = in_plane.try_normalize()
        && a.cross(q).dot(normal) >= 0.0
        && q.cross(b).dot(normal) >= 0.0
    {
        return q;
    }
    if a.dot(d) >= b.dot(d) { a } else { b }
}
