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
//! Slices are found from the azimuth around `V` through a lookup table, or from the slice of the
//! previous query when queries are coherent.
//!
//! Twist limits (minimum, maximum) are given at every boundary point and at `V` and interpolated
//! with barycentric weights of the spherical triangle `(V, Pᵢ, Pᵢ₊₁)` that holds the direction:
//! the weight of each corner is the triple product of the direction with the other two corners,
//! `w(Pᵢ) ∝ (Pᵢ₊₁ × V)·L = −Sᵢ₊₁·L`, `w(Pᵢ₊₁) ∝ (V × Pᵢ)·L = Sᵢ·L`, `w(V) ∝ Bᵢ·L`, normalised to
//! sum to 1. On a slice plane the weight of the far corner vanishes, so the limits are continuous
//! across slices. The weights are ill-conditioned in a slice that turns by nearly π around `V`
//! (its triangle is a sliver); boundaries whose corners differ in twist should turn by well
//! under π per edge, as fitted and smoothed cones do.

use std::f32::consts::TAU;

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::fast_trig;
pub use crate::joint_limit::TwistRange;
use edges::EdgeTable;

mod combined;
mod edges;
mod limit;
mod smoothing;

pub use limit::ReachConeLimit;
pub use smoothing::{from_tangent_plane, to_tangent_plane};

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
    /// A boundary point within [`MIN_VISIBLE_ANGLE`] of the visible point: its slices are slivers
    /// whose twist weights and planes f32 cannot resolve.
    #[error(
        "boundary point {index} is {angle:.2e} rad from the visible point; every boundary point \
         must be at least {MIN_VISIBLE_ANGLE} rad (about 0.5°) from it"
    )]
    NearVisible {
        /// The point's index.
        index: usize,
        /// Its angle from the visible point, radians.
        angle: f32,
    },
    /// More boundary points than the slice table can index.
    #[error("a reach cone takes at most 65535 boundary points, got {count}")]
    TooManyPoints {
        /// How many were given.
        count: usize,
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

/// A spherical star polygon with per-vertex twist limits (see the module docs).
///
/// Serialised as its visible point, boundary and twist limits; reading one validates it again.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ReachConeSpec", into = "ReachConeSpec")]
pub struct ReachCone {
    visible: Vec3,
    boundary: Vec<Vec3>,
    /// Everything a query in slice `i` reads, side by side.
    slices: Vec<Slice>,
    /// The edges as columns for the nearest-point search.
    edges: EdgeTable,
    /// Pseudo-azimuth (module [`pseudo_azimuth`]) of each `Pᵢ` around `V`, measured from `P₀`,
    /// increasing, in `[0, 4)`.
    azimuths: Vec<f32>,
    /// The pseudo-azimuth of `P₀` in the tangent frame.
    start_azimuth: f32,
    /// For each of `buckets.len()` equal azimuth intervals, the slice holding its start: a
    /// direct lookup that leaves at most a step or two to walk.
    buckets: Vec<u16>,
    /// Unit vectors spanning the plane perpendicular to `V`, with `e₁ × e₂ = V`.
    tangent: (Vec3, Vec3),
    twist_at_boundary: Vec<TwistRange>,
    twist_at_visible: TwistRange,
}

/// The planes of one slice: the lune between `Pᵢ` and `Pᵢ₊₁` and its edge.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Slice {
    /// `Sᵢ = V × Pᵢ`: directions in the slice are on its positive side.
    start: Vec3,
    /// `Sᵢ₊₁ = V × Pᵢ₊₁`: directions in the slice are on its negative side.
    end: Vec3,
    /// `Bᵢ = Pᵢ × Pᵢ₊₁`, unit length: inside is its positive side.
    edge: Vec3,
    /// `|Pᵢ × Pᵢ₊₁|`, which scales the weight of `V` in the twist interpolation.
    edge_sine: f32,
    /// `|Sᵢ − Sᵢ₊₁ + Pᵢ × Pᵢ₊₁|`: the most the sum of the raw twist weights (linear in the
    /// direction, with that vector as its gradient) changes per radian the direction moves.
    weight_rate: f32,
}

/// How far (radians) the direction of a rotation rebuilt from a boundary point may land from it:
/// the f32 rounding of the half-way quaternion, worst where the point is far from the twist
/// axis, with room to spare.
const EDGE_ROUNDING: f32 = 2e-6;

/// How near (radians) a boundary point may come to the visible point. Nearer, the barycentric
/// weights of its slices are so ill-conditioned in f32 that the inside test and the projection
/// judge a direction differently (an outside check measured 0.37 rad of twist at 1e-3 rad);
/// fitted cones keep their points at least 0.01 rad away, where an f64 model agrees to 2.4e-6.
pub const MIN_VISIBLE_ANGLE: f32 = 0.009;

/// The most a projection's twist aims inside the limits on an edge (radians).
const MAX_EDGE_MARGIN: f32 = 1e-4;

/// A monotone stand-in for the angle of `(x, y)`, in `[0, 4)`: one quarter turn per unit,
/// `|y|/(|x| + |y|)` folded by quadrant. One division instead of an arctangent; only order
/// matters for finding slices.
#[inline(always)]
pub(crate) fn pseudo_azimuth(x: f32, y: f32) -> f32 {
    let t = y.abs() / (x.abs() + y.abs()).max(f32::MIN_POSITIVE);
    let upper = if x < 0.0 { 2.0 - t } else { t };
    if y < 0.0 { 4.0 - upper } else { upper }
}

/// The stored form of a [`ReachCone`]: the points and limits it is built from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReachConeSpec {
    /// The visible point `V`.
    pub visible: Vec3,
    /// The boundary points, counter-clockwise around `V`.
    pub boundary: Vec<Vec3>,
    /// Twist limits at `V`, radians.
    pub twist_at_visible: TwistRange,
    /// Twist limits at each boundary point, radians.
    pub twist_at_boundary: Vec<TwistRange>,
}

impl TryFrom<ReachConeSpec> for ReachCone {
    type Error = ReachConeError;

    fn try_from(spec: ReachConeSpec) -> Result<ReachCone, ReachConeError> {
        ReachCone::with_twist(
            spec.visible,
            &spec.boundary,
            spec.twist_at_visible,
            &spec.twist_at_boundary,
        )
    }
}

impl From<ReachCone> for ReachConeSpec {
    fn from(cone: ReachCone) -> ReachConeSpec {
        ReachConeSpec {
            visible: cone.visible,
            boundary: cone.boundary,
            twist_at_visible: cone.twist_at_visible,
            twist_at_boundary: cone.twist_at_boundary,
        }
    }
}

impl ReachCone {
    /// A reach cone from its visible point and boundary (any lengths; they are normalised), with
    /// the same twist limits everywhere.
    pub fn new(
        visible: Vec3,
        boundary: &[Vec3],
        twist: TwistRange,
    ) -> Result<ReachCone, ReachConeError> {
        ReachCone::with_twist(visible, boundary, twist, &vec![twist; boundary.len()])
    }

    /// A reach cone with twist limits at the visible point and at every boundary point.
    pub fn with_twist(
        visible: Vec3,
        boundary: &[Vec3],
        twist_at_visible: TwistRange,
        twist_at_boundary: &[TwistRange],
    ) -> Result<ReachCone, ReachConeError> {
        let n = boundary.len();
        if n < 3 {
            return Err(ReachConeError::TooFewPoints { count: n });
        }
        if n > usize::from(u16::MAX) {
            return Err(ReachConeError::TooManyPoints { count: n });
        }
        // Unit points are kept bit for bit, so a stored cone reads back identical.
        let unit = |p: Vec3, index| {
            if (p.length_squared() - 1.0).abs() < 4.0 * f32::EPSILON {
                return Ok(p);
            }
            p.try_normalize().ok_or(ReachConeError::BadPoint { index })
        };
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
            if !t.is_valid() {
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
        for (index, &p) in boundary.iter().enumerate() {
            let angle = visible.cross(p).length().atan2(visible.dot(p));
            if angle.is_nan() || angle < MIN_VISIBLE_ANGLE {
                return Err(ReachConeError::NearVisible { index, angle });
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
        let angle = |p: Vec3| fast_trig::atan2(p.dot(e2), p.dot(e1));
        let mut total = 0.0f32;
        for i in 0..n {
            // Each step turns counter-clockwise by less than π (the star condition).
            total += (angle(boundary[(i + 1) % n]) - angle(boundary[i])).rem_euclid(TAU);
        }
        let turns = (total / TAU).round() as usize;
        if turns != 1 {
            return Err(ReachConeError::Winding { turns });
        }
        let pseudo = |p: Vec3| pseudo_azimuth(p.dot(e1), p.dot(e2));
        let start_azimuth = pseudo(boundary[0]);
        let mut azimuths: Vec<f32> = boundary
            .iter()
            .map(|&p| (pseudo(p) - start_azimuth).rem_euclid(4.0))
            .collect();
        azimuths[0] = 0.0;
        for i in 1..n {
            // Rounding must not break the order the winding check has established.
            azimuths[i] = azimuths[i].max(azimuths[i - 1]);
        }
        let bucket_count = (4 * n).next_power_of_two();
        let buckets = (0..bucket_count)
            .map(|b| {
                let start = b as f32 * (4.0 / bucket_count as f32);
                azimuths.partition_point(|&a| a <= start).saturating_sub(1) as u16
            })
            .collect();
        let slices: Vec<Slice> = (0..n)
            .map(|i| {
                let (p, next) = (boundary[i], boundary[(i + 1) % n]);
                let edge = p.cross(next);
                let (start, end) = (visible.cross(p), visible.cross(next));
                Slice {
                    start,
                    end,
                    edge: edge.normalize(),
                    edge_sine: edge.length(),
                    weight_rate: (start - end + edge).length(),
                }
            })
            .collect();
        let normals: Vec<Vec3> = slices.iter().map(|s| s.edge).collect();
        Ok(ReachCone {
            visible,
            edges: EdgeTable::new(&boundary, &normals),
            slices,
            start_azimuth,
            boundary,
            azimuths,
            buckets,
            tangent: (e1, e2),
            twist_at_boundary: twist_at_boundary.to_vec(),
            twist_at_visible,
        })
    }

    /// The same cone turned by `rotation`: every point, and so every direction it allows, is
    /// rotated; twist limits are unchanged.
    pub fn rotated(&self, rotation: Quat) -> ReachCone {
        let boundary: Vec<Vec3> = self.boundary.iter().map(|&p| rotation * p).collect();
        ReachCone::with_twist(
            rotation * self.visible,
            &boundary,
            self.twist_at_visible,
            &self.twist_at_boundary,
        )
        // A rotation keeps every triple product and winding; only rounding could disturb them.
        .unwrap_or_else(|_| self.clone())
    }

    /// Twist limits at the visible point.
    pub fn twist_at_visible(&self) -> TwistRange {
        self.twist_at_visible
    }

    /// Twist limits at each boundary point.
    pub fn twist_at_boundary(&self) -> &[TwistRange] {
        &self.twist_at_boundary
    }

    /// The visible point.
    pub fn visible(&self) -> Vec3 {
        self.visible
    }

    /// The boundary points, unit length, counter-clockwise.
    pub fn boundary(&self) -> &[Vec3] {
        &self.boundary
    }

    /// Whether `direction` lies in slice `i`: `Sᵢ·L ≥ 0 > Sᵢ₊₁·L`.
    #[inline(always)]
    fn in_slice(&self, direction: Vec3, i: usize) -> bool {
        let slice = &self.slices[i];
        (slice.start.dot(direction) >= 0.0) & (slice.end.dot(direction) < 0.0)
    }

    /// The slice `i` whose lune (between `Pᵢ` and `Pᵢ₊₁`) holds `direction`, found from its
    /// azimuth around `V` through a table of equal azimuth intervals: `O(1)` for any query.
    /// The azimuth only proposes the slice; the slice planes decide.
    #[inline(always)]
    pub fn slice_of(&self, direction: Vec3) -> usize {
        let (e1, e2) = self.tangent;
        self.slice_at(
            direction,
            pseudo_azimuth(direction.dot(e1), direction.dot(e2)),
        )
    }

    /// Unit vectors spanning the plane perpendicular to `V`, with `e₁ × e₂ = V`: the frame of
    /// the azimuths.
    #[inline(always)]
    pub(crate) fn tangent(&self) -> (Vec3, Vec3) {
        self.tangent
    }

    /// [`ReachCone::slice_of`] for a direction whose [`pseudo_azimuth`] in the
    /// [`ReachCone::tangent`] frame is already known.
    #[inline(always)]
    pub(crate) fn slice_at(&self, direction: Vec3, pseudo_azimuth: f32) -> usize {
        let mut azimuth = pseudo_azimuth - self.start_azimuth;
        if azimuth < 0.0 {
            azimuth += 4.0;
        }
        let buckets = self.buckets.len();
        let bucket = ((azimuth * (buckets as f32 * 0.25)) as usize).min(buckets - 1);
        let mut i = usize::from(self.buckets[bucket]);
        let n = self.azimuths.len();
        while i + 1 < n && self.azimuths[i + 1] <= azimuth {
            i += 1;
        }
        self.confirm_slice(direction, i)
    }

    /// `guess` or, when rounding of the azimuth put the direction just across a slice plane, the
    /// neighbour that the slice planes pick; a direction on the axis through `V` keeps `guess`.
    #[inline(always)]
    fn confirm_slice(&self, direction: Vec3, guess: usize) -> usize {
        if self.in_slice(direction, guess) {
            return guess;
        }
        let (x, y, z) = direction.into();
        self.neighbouring_slice(x, y, z, guess)
    }

    /// The slice next to `guess` (or, on the axis through `V`, any) that holds the direction
    /// `(x, y, z)`: out of line, with the coordinates in registers.
    #[inline(never)]
    fn neighbouring_slice(&self, x: f32, y: f32, z: f32, guess: usize) -> usize {
        let direction = Vec3::new(x, y, z);
        let n = self.boundary.len();
        let (after, before) = ((guess + 1) % n, (guess + n - 1) % n);
        if self.in_slice(direction, after) {
            after
        } else if self.in_slice(direction, before) {
            before
        } else {
            (0..n)
                .find(|&i| self.in_slice(direction, i))
                .unwrap_or(guess)
        }
    }

    /// Like [`ReachCone::slice_of`], but tries `hint` (the previous query's slice) and its
    /// neighbours first: a couple of dot products for coherent queries.
    #[inline]
    pub fn slice_from(&self, direction: Vec3, hint: usize) -> usize {
        let n = self.boundary.len();
        let hint = if hint < n { hint } else { 0 };
        if self.in_slice(direction, hint) {
            return hint;
        }
        for i in [(hint + 1) % n, (hint + n - 1) % n] {
            if self.in_slice(direction, i) {
                return i;
            }
        }
        self.slice_of(direction)
    }

    /// Whether `direction` (unit length) is inside the cone.
    #[inline]
    pub fn contains(&self, direction: Vec3) -> bool {
        self.inside_slice(direction, self.slice_of(direction))
    }

    /// [`ReachCone::contains`] for a stream of directions: `slice` carries the slice from one
    /// query to the next.
    #[inline(always)]
    pub fn contains_coherent(&self, direction: Vec3, slice: &mut usize) -> bool {
        // The common case, still in the same slice, reads one record and takes three dot
        // products side by side.
        if let Some(record) = self.slices.get(*slice) {
            let (start, end, edge) = (
                record.start.dot(direction),
                record.end.dot(direction),
                record.edge.dot(direction),
            );
            if (start >= 0.0) & (end < 0.0) {
                return edge >= 0.0;
            }
        }
        let (x, y, z) = direction.into();
        self.contains_after_moving(x, y, z, slice)
    }

    /// [`ReachCone::contains_coherent`] once the direction has left the hinted slice. Out of
    /// line, and taking the coordinates apart so that they travel in registers: a direction
    /// spilled to memory for the call costs the fast path a stalled reload.
    #[inline(never)]
    fn contains_after_moving(&self, x: f32, y: f32, z: f32, slice: &mut usize) -> bool {
        let direction = Vec3::new(x, y, z);
        *slice = self.slice_from(direction, *slice);
        self.inside_slice(direction, *slice)
    }

    /// The geodesically nearest direction of the cone to the unit `direction`: itself when inside,
    /// otherwise the nearest point of the boundary's great-circle edges.
    pub fn project(&self, direction: Vec3) -> Vec3 {
        if self.contains(direction) {
            return direction;
        }
        self.nearest_on_boundary(direction).0
    }

    /// The nearest point of the boundary's great-circle edges to the unit `direction`, and the
    /// edge (so the slice) it lies on.
    #[inline]
    pub(crate) fn nearest_on_boundary(&self, direction: Vec3) -> (Vec3, usize) {
        self.edges.nearest(direction)
    }

    /// The nearest boundary point to the unit `direction` reached by walking along the boundary
    /// from edge `start` while the distance falls (a local minimum), and its edge.
    pub(crate) fn nearest_on_boundary_from(&self, direction: Vec3, start: usize) -> (Vec3, usize) {
        self.edges.nearest_from(direction, start)
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
            let b = self.slices[i].edge;
            let (from, to) = (b.dot(inside), b.dot(target));
            if from < 0.0 || to >= 0.0 {
                continue;
            }
            let t = from / (from - to);
            let point = inside.lerp(target, t);
            let tolerance = 1e-6 * point.length();
            let in_slice = self.slices[i].start.dot(point) >= -tolerance
                && self.slices[i].end.dot(point) <= tolerance;
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
    pub fn twist_limits(&self, direction: Vec3) -> TwistRange {
        let direction = self.project(direction);
        self.twist_limits_in_slice(direction, self.slice_of(direction))
    }

    /// The barycentric weights `(w(Pᵢ), w(Pᵢ₊₁), w(V))` of `direction` in slice `i`'s
    /// spherical triangle, summing to 1 (module docs); all on `V` at `V` itself.
    #[inline(always)]
    pub fn slice_weights(&self, direction: Vec3, i: usize) -> (f32, f32, f32) {
        let slice = &self.slices[i];
        let w_next = slice.start.dot(direction).max(0.0);
        let w_this = (-slice.end.dot(direction)).max(0.0);
        let w_visible = slice.edge.dot(direction).max(0.0) * slice.edge_sine;
        let sum = w_this + w_next + w_visible;
        if sum <= f32::MIN_POSITIVE {
            return (0.0, 0.0, 1.0);
        }
        let scale = 1.0 / sum;
        (w_this * scale, w_next * scale, w_visible * scale)
    }

    /// Whether a rotation is surely allowed whose bone direction and twist angle another path
    /// (the one-at-a-time one) measures within `stray` of `direction` (in slice `slice`) and
    /// `twist`: every direction within `stray` lies in the slice and inside its edge, and
    /// `twist` lies inside the limits interpolated at `direction` by `stray` plus what they can
    /// change over that distance ([`ReachCone::room_in_slice`]). The crowd's lane test
    /// ([`crate::batch::SurelyInside`]) passes only such rotations.
    #[inline(always)]
    pub(crate) fn surely_allows(
        &self,
        direction: Vec3,
        slice: usize,
        twist: f32,
        stray: f32,
    ) -> bool {
        let record = &self.slices[slice];
        let within_slice =
            (record.start.dot(direction) >= stray) & (-record.end.dot(direction) > stray);
        within_slice
            && self
                .room_in_slice(direction, slice, stray)
                .is_some_and(|change| {
                    self.twist_limits_in_slice(direction, slice)
                        .holds_within(twist, stray + change)
                })
    }

    /// When every direction within `stray` of `direction` (within 0.1% of unit length, in slice
    /// `slice`) lies inside the cone, in whichever slices they fall: the twist limits
    /// interpolated at `direction` and how far the limits can differ from them at any of those
    /// directions. The slices reached are found by walking across each slice plane that comes
    /// within `stray` (`|Sᵢ| ≤ 1`, so a plane `Sᵢ·d ≥ stray` from `d` is not crossed); the
    /// limits are continuous across slice planes, so the change is bounded by the largest of
    /// the slices' rates ([`ReachCone::room_in_slice`]).
    pub(crate) fn limits_around(
        &self,
        direction: Vec3,
        slice: usize,
        stray: f32,
    ) -> Option<(TwistRange, f32)> {
        let n = self.boundary.len();
        let mut change = self.room_in_slice(direction, slice, stray)?;
        // Past a quarter of the slices the directions surely come near `V`, where the weights
        // of every slice vanish: no room.
        let most_steps = (n / 4).max(1);
        let mut walk = |next: &dyn Fn(usize) -> usize, crosses: &dyn Fn(usize) -> bool| {
            let mut j = slice;
            for _ in 0..most_steps {
                if !crosses(j) {
                    return Some(());
                }
                j = next(j);
                change = change.max(self.room_in_slice(direction, j, stray)?);
            }
            None
        };
        walk(&|j| (j + n - 1) % n, &|j| {
            self.slices[j].start.dot(direction) < stray
        })?;
        walk(&|j| (j + 1) % n, &|j| {
            -self.slices[j].end.dot(direction) <= stray
        })?;
        Some((self.twist_limits_in_slice(direction, slice), change))
    }

    /// When every direction within `stray` of `direction` (within 0.1% of unit length) is on
    /// `V`'s side of slice `slice`'s edge with room for its weights: a bound on how far the
    /// limits interpolated in that slice change between two such directions in the slice.
    ///
    /// The raw weights `wᵢ = aᵢ·d` (`a = −Sᵢ₊₁, Sᵢ, (Pᵢ × Pᵢ₊₁)` for the corners `Pᵢ`,
    /// `Pᵢ₊₁`, `V`) are linear in `d`, and so is their sum `R = s·d`, `s = Σ aᵢ` (taken
    /// unclamped: in the slice and below its edge no weight is clamped). A limit interpolated
    /// from corner values `cᵢ` is `L = Σ cᵢwᵢ / R`, whose gradient is `Σ aᵢ(cᵢ − L) / R`. `L`
    /// lies between the least and largest `cᵢ`, and the numerator's length is convex in `L`, so
    /// it is at most its larger value at those two ends, `G`; and a move of `stray` lowers `R`
    /// by at most `|s|·stray`. So the limits change by at most `G·stray / (R − |s|·stray)` (the
    /// larger `G` of the two limits), every direction of the move being in the slice.
    #[inline(always)]
    fn room_in_slice(&self, direction: Vec3, slice: usize, stray: f32) -> Option<f32> {
        let record = &self.slices[slice];
        let w_next = record.start.dot(direction);
        let w_this = -record.end.dot(direction);
        let height = record.edge.dot(direction);
        let sum = w_this + w_next + height * record.edge_sine;
        let sum_change = record.weight_rate * stray;
        if !((height >= stray) & (sum > 2.0 * sum_change)) {
            return None;
        }
        let next = if slice + 1 == self.boundary.len() {
            0
        } else {
            slice + 1
        };
        let (a_this, a_next, a_visible) =
            (-record.end, record.start, record.edge * record.edge_sine);
        let weight_sum = a_this + a_next + a_visible;
        let (this, next, visible) = (
            self.twist_at_boundary[slice],
            self.twist_at_boundary[next],
            self.twist_at_visible,
        );
        let largest_gradient = |value: fn(&TwistRange) -> f32| {
            let corners = [value(&this), value(&next), value(&visible)];
            let weighted = a_this * corners[0] + a_next * corners[1] + a_visible * corners[2];
            let (low, high) = (
                corners[0].min(corners[1]).min(corners[2]),
                corners[0].max(corners[1]).max(corners[2]),
            );
            (weighted - weight_sum * low)
                .length()
                .max((weighted - weight_sum * high).length())
        };
        let gradient = largest_gradient(|r| r.min).max(largest_gradient(|r| r.max));
        // Rounding of the sums above, far below the margins the callers add.
        Some(gradient * stray * (1.0 + 1e-4) / (sum - sum_change))
    }

    /// Whether every direction within `distance` (radians) of `direction` (within 0.1% of unit
    /// length) lies in slice `slice` and below its edge: then no boundary point, and no allowed
    /// direction, is that near. `|Sᵢ|, |Sᵢ₊₁| ≤ 1 = |Bᵢ|` bound how far each plane's product
    /// moves.
    #[inline]
    pub(crate) fn surely_outside_slice(
        &self,
        direction: Vec3,
        slice: usize,
        distance: f32,
    ) -> bool {
        let record = &self.slices[slice];
        let reach = 1.01 * distance;
        (record.start.dot(direction) > reach)
            & (record.end.dot(direction) < -reach)
            & (record.edge.dot(direction) < -reach)
    }

    /// The twist limits at `direction`, inside the cone and in slice `i`.
    #[inline(always)]
    pub(crate) fn twist_limits_in_slice(&self, direction: Vec3, i: usize) -> TwistRange {
        let next = if i + 1 == self.boundary.len() {
            0
        } else {
            i + 1
        };
        let (w_this, w_next, w_visible) = self.slice_weights(direction, i);
        let (a, b, v) = (
            self.twist_at_boundary[i],
            self.twist_at_boundary[next],
            self.twist_at_visible,
        );
        TwistRange {
            min: w_this * a.min + w_next * b.min + w_visible * v.min,
            max: w_this * a.max + w_next * b.max + w_visible * v.max,
        }
    }

    /// The twist limits at `point`, a point of edge `i` (its nearest boundary point) where a
    /// projection lands: slice `i`'s, narrowed to those of each neighbouring slice that also
    /// holds `point` (at a corner the two interpolations agree only to rounding); and, computed
    /// on demand (only a clamped twist needs it), the margin by which an answer there aims
    /// inside them: what the rounding of a rotation built there can move them.
    ///
    /// The direction of a rotation rebuilt from `point` is only good to about
    /// [`EDGE_ROUNDING`], and in a thin slice the interpolated limits can change tens of times
    /// faster than the direction across the edge (the weight of `V` grows as
    /// `edge height / (w(Pᵢ) + w(Pᵢ₊₁))`). The change over that distance, along and across the
    /// edge, is measured: an answer aiming that far inside stays allowed when measured again,
    /// at a cost of at most [`MAX_EDGE_MARGIN`] in nearness.
    #[inline]
    pub(crate) fn twist_limits_on_edge(
        &self,
        point: Vec3,
        i: usize,
    ) -> (TwistRange, impl Fn() -> f32 + '_) {
        let n = self.boundary.len();
        let limits_near = move |at: Vec3| {
            let mut range = self.twist_limits_in_slice(at, i);
            for j in [(i + 1) % n, (i + n - 1) % n] {
                if j == i || !self.in_slice(at, j) {
                    continue;
                }
                let theirs = self.twist_limits_in_slice(at, j);
                let both = TwistRange {
                    min: range.min.max(theirs.min),
                    max: range.max.min(theirs.max),
                };
                if both.min <= both.max {
                    range = both;
                }
            }
            range
        };
        let range = limits_near(point);
        let margin = move || {
            let next = (i + 1) % n;
            let corners = [
                self.twist_at_boundary[i],
                self.twist_at_boundary[next],
                self.twist_at_visible,
            ];
            if corners.iter().all(|c| *c == corners[0]) {
                // The same limits across the slice: nothing to move.
                return 0.0;
            }
            let across = self.slices[i].edge;
            let along = across.cross(point);
            let mut margin: f32 = 0.0;
            for offset in [across, along, -along] {
                let moved = limits_near((point + offset * EDGE_ROUNDING).normalize());
                margin = margin
                    .max((moved.min - range.min).abs())
                    .max((moved.max - range.max).abs());
            }
            (2.0 * margin).min(MAX_EDGE_MARGIN)
        };
        (range, margin)
    }

    /// The sine of the angle of `direction` above slice `i`'s edge great circle (negative
    /// beyond it).
    #[inline]
    pub fn edge_height(&self, direction: Vec3, i: usize) -> f32 {
        self.slices[i].edge.dot(direction)
    }

    /// Whether `direction`, in slice `i`, is on `V`'s side of that slice's edge: inside.
    #[inline(always)]
    pub fn inside_slice(&self, direction: Vec3, i: usize) -> bool {
        self.slices[i].edge.dot(direction) >= 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RotationLimit;
    use crate::measure::SeededRandom;
    use crate::reach_cone::ReachConeLimit;

    /// Wherever `limits_around` answers, every direction within the stray lies inside the cone
    /// and its twist limits lie within the change of the answer's: checked on directions drawn
    /// inside the cap and on its rim, for the example cones, random ones with random twist
    /// limits, and strays from a hair to a tenth of a radian.
    #[test]
    fn the_limits_around_a_direction_hold_over_the_whole_cap() {
        let mut random = SeededRandom::new(21);
        let mut cones: Vec<ReachCone> = ReachConeLimit::examples()
            .into_iter()
            .map(|limit| limit.cone)
            .collect();
        for n in [3, 5, 9, 17] {
            let boundary: Vec<Vec3> = (0..n)
                .map(|i| {
                    let a = i as f32 * std::f32::consts::TAU / n as f32;
                    let radius = 0.3 + 1.2 * random.next_unit() as f32;
                    Vec3::new(radius * a.cos(), 1.0, -radius * a.sin()).normalize()
                })
                .collect();
            let mut twist = |spread: f32| {
                let middle = 4.0 * random.next_unit() as f32 - 2.0;
                let half = spread * random.next_unit() as f32 + 0.05;
                TwistRange {
                    min: middle - half,
                    max: middle + half,
                }
            };
            let twists: Vec<TwistRange> = (0..n).map(|_| twist(1.5)).collect();
            let centre = twist(1.0);
            cones.push(ReachCone::with_twist(Vec3::Y, &boundary, centre, &twists).expect("a cone"));
        }
        let mut answered = 0;
        for cone in &cones {
            for _ in 0..3000 {
                let direction = (cone.visible + 1.2 * random.direction()).normalize();
                let stray = 10f32.powf(-4.0 + 3.0 * random.next_unit() as f32);
                let slice = cone.slice_of(direction);
                let Some((range, change)) = cone.limits_around(direction, slice, stray) else {
                    continue;
                };
                answered += 1;
                for k in 0..40 {
                    // Inside the cap, and on its rim.
                    let angle = if k % 2 == 0 {
                        stray
                    } else {
                        stray * random.next_unit() as f32
                    };
                    let across = direction.cross(random.direction()).normalize();
                    let near = Quat::from_axis_angle(across, angle) * direction;
                    assert!(cone.contains(near), "{near} within {stray} of {direction}");
                    let there = cone.twist_limits_in_slice(near, cone.slice_of(near));
                    let moved = (there.min - range.min)
                        .abs()
                        .max((there.max - range.max).abs());
                    assert!(
                        moved <= change + 1e-5,
                        "{moved} beyond {change} at {stray} from {direction}"
                    );
                }
            }
        }
        assert!(answered > 3000, "{answered}");
    }
}
