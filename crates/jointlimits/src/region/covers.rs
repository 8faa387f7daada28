//! The two covers of a rotation in limit space.
//!
//! A rotation `q` and `−q` are one orientation. Their scaled angle-axis points are `p` (length
//! `θ ≤ π`, the short way) and `p − 2π·p̂` (length `2π − θ`, the long way about the opposite
//! axis). A region holds the rotation when it holds either point, and the distance from the
//! rotation to the region is the smaller of the two distances.
//!
//! The long cover needs projecting only when the short one's distance exceeds a lower bound on the
//! long one's: the distance to the region's bounding box (exact for boxes), or `|p_long − c| − r`
//! for a bounding ball of centre `c` and radius `r`. A region within `reach = |c| + r` of the
//! origin is also at least `|p_long| − reach = 2π − |p| − reach` away, so short projections
//! nearer than that need no other test (most are, and the test takes no square root). (A region
//! inside the ball of radius π never *contains* a long point, but a long point can still be the
//! nearer one: a rotation of 171° about `−x` is 9° from one of 162° about `+x` the long way, and
//! 333° the short way.)
//!
//! No rotation has a cover point farther than 2π from the origin, and near that sphere the
//! points measure rotations badly, so a region holds only its points within [`COVER_REACH`]
//! (2π − 0.1) of the origin: a region reaching past it (only hand-written ones do) is cut there,
//! and projected onto that part (see `within_full_turn`).

use std::f32::consts::TAU;

use glam::Vec3;

use crate::contract::BOUNDARY_TOLERANCE;
use crate::shape::{Frame, LimitShape, Projection, Shape};

/// Below this length a point is the identity, whose other cover (a full turn) has no axis.
const TINY: f32 = 1e-6;

/// How far from the origin a region's points count: a full turn less 0.1 rad.
///
/// A rotation's cover points lie within 2π of the origin, but near that sphere (the identity
/// reached the long way round) the logarithm stretches rotation distances by `2π/δ` at `δ`
/// from it, so the f32 rounding of a quaternion (1e-7) moves the point by about `1e-6/δ`. Within
/// 0.1 rad of the sphere that exceeds a tenth of the [`BOUNDARY_TOLERANCE`], and an answer put
/// there could read back as outside; here it stays well measured. (Measured on boxes, ellipsoids
/// and k-DOPs reaching past 2π, 200,000 random rotations each: with the sphere at `2π − 0.02`
/// one answer was read back 1.7e-5 outside, at `2π − 0.05` none.)
pub const COVER_REACH: f32 = TAU - 0.1;

/// Halvings of the scale in [`project_within_full_turn`]: the point moves at most `|x| ≤ 2π`
/// per unit of scale, so 32 of them leave it within 2e-9 of the exact answer, below f32's
/// resolution there.
const SCALE_HALVINGS: usize = 32;

/// The other cover's point of the rotation at `p`: `p − 2π·p̂` (`None` for the identity).
#[inline]
pub fn other_cover(p: Vec3) -> Option<Vec3> {
    let length = p.length();
    (length > TINY).then(|| p * (1.0 - TAU / length))
}

/// A projection made within the [`BOUNDARY_TOLERANCE`]: a point that close counts as inside,
/// and keeps the region's own nearest point and its distance, which an answer that moves
/// another coordinate (a swing-twist limit's twist) takes and counts.
#[inline(always)]
pub(crate) fn settle_projection(projection: Projection) -> Projection {
    if !projection.inside && projection.distance <= BOUNDARY_TOLERANCE {
        return Projection {
            inside: true,
            ..projection
        };
    }
    projection
}

/// `projection` (of the cover point `from` onto `shape`) when its point lies within
/// [`COVER_REACH`], and otherwise the projection onto the shape's part within it
/// ([`project_within_full_turn`]).
#[inline(always)]
fn within_full_turn(shape: &Shape, ball: &Ball, from: Vec3, projection: Projection) -> Projection {
    // An inside projection's point is `from` itself (or within the tolerance of it): a long
    // point the cut refuses goes onto the cut region.
    if !ball.passes_full_turn() || projection.point.length_squared() <= COVER_REACH * COVER_REACH {
        return projection;
    }
    settle_projection(project_within_full_turn(shape, from))
}

/// The projection of `x` onto `C ∩ B`, the shape `C` cut to the ball `B` of radius
/// [`COVER_REACH`] about the origin, for an `x` whose projection onto `C` alone lies outside `B`.
///
/// Then the ball's constraint is active, and with its multiplier `μ ≥ 0` the answer minimises
/// `|y − x|² + μ(|y|² − R²) = (1 + μ)·|y − x/(1 + μ)|² + const` over `C`: it is `P_C(s·x)` for
/// `s = 1/(1 + μ)` where `|P_C(s·x)| = R`. That length grows with `s` (the Lagrange dual is
/// concave in `μ`), from `|P_C(0)| < R` (checked when the limit is read:
/// [`crate::validation::reaches_rotations`]) to `|P_C(x)| > R`, so halving `s`'s interval finds
/// it; the answer kept is the last one within the ball. Out of line: only hand-written regions
/// reach past a full turn.
#[cold]
#[inline(never)]
fn project_within_full_turn(shape: &Shape, x: Vec3) -> Projection {
    let (mut low, mut high) = (0.0f32, 1.0f32);
    let mut within = shape.project(Vec3::ZERO).point;
    for _ in 0..SCALE_HALVINGS {
        let scale = 0.5 * (low + high);
        let point = shape.project(x * scale).point;
        if point.length_squared() <= COVER_REACH * COVER_REACH {
            (low, within) = (scale, point);
        } else {
            high = scale;
        }
    }
    Projection::moved(x, within)
}

/// A ball holding a region, as the covers test needs it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ball {
    /// The centre.
    pub center: Vec3,
    /// The radius.
    pub radius: f32,
    /// `|center| + radius`: how far the region reaches from the origin.
    pub reach: f32,
}

impl Ball {
    /// The bounding ball of `shape` ([`Shape::bounding_ball`]).
    pub fn of(shape: &Shape) -> Ball {
        let (center, radius) = shape.bounding_ball();
        Ball {
            center,
            radius,
            reach: center.length() + radius,
        }
    }

    /// Whether the region may reach past [`COVER_REACH`], where it is cut.
    #[inline(always)]
    pub fn passes_full_turn(&self) -> bool {
        self.reach > COVER_REACH
    }

    /// Whether a projection `distance` away from the short point `p` (`|p| ≤ π`) onto `shape`
    /// (held by this ball) is surely no farther than the long cover's (module docs).
    ///
    /// The long point lies `2π − |p|` from the origin, so at least `2π − |p| − reach` from the
    /// region: most projections are settled by that, with no square root. The rest compare
    /// with [`Ball::lower_bound`] at the long point.
    #[inline(always)]
    pub fn short_is_nearer(&self, shape: &Shape, p: Vec3, distance: f32) -> bool {
        if self.short_by_reach(p, distance) {
            return true;
        }
        match other_cover(p) {
            Some(long) => distance <= self.lower_bound(shape, long),
            None => true,
        }
    }

    /// Whether `distance + reach + |p| ≤ 2π`: the long point of `p`, `2π − |p|` from the origin,
    /// is then at least `distance` from the region.
    #[inline(always)]
    pub(crate) fn short_by_reach(&self, p: Vec3, distance: f32) -> bool {
        let long_at_least = TAU - self.reach - distance;
        (long_at_least >= 0.0) & (p.length_squared() <= long_at_least * long_at_least)
    }

    /// A lower bound on the distance from `x` to `shape`: exact for boxes, the distance to the
    /// bounding box for ellipsoids, to this ball for polytopes.
    #[inline]
    pub fn lower_bound(&self, shape: &Shape, x: Vec3) -> f32 {
        match shape {
            Shape::Box(b) => distance_to_box(&b.frame, b.min, b.max, x),
            Shape::Ellipsoid(e) => distance_to_box(&e.frame, -e.semi_axes, e.semi_axes, x),
            Shape::Kdop(_) | Shape::Hull(_) => self.distance_beyond(x),
        }
    }

    /// How far `x` lies outside this ball (negative inside).
    #[inline(always)]
    pub(crate) fn distance_beyond(&self, x: Vec3) -> f32 {
        x.distance(self.center) - self.radius
    }

    /// [`Ball::short_is_nearer`] with the same operations and no branch, for lanes:
    /// `lower_bound` is [`Ball::lower_bound`] for the shape, chosen once for all lanes.
    #[inline(always)]
    pub(crate) fn short_is_nearer_without_branches(
        &self,
        lower_bound: impl Fn(Vec3) -> f32,
        p: Vec3,
        distance: f32,
    ) -> bool {
        let length = p.length();
        let bound = lower_bound(p * (1.0 - TAU / length));
        self.short_by_reach(p, distance) | (length <= TINY) | (distance <= bound)
    }
}

/// The distance from the limit-space point `x` to the box `[min, max]` of `frame`.
#[inline(always)]
pub(crate) fn distance_to_box(frame: &Frame, min: Vec3, max: Vec3, x: Vec3) -> f32 {
    let local = frame.to_local(x);
    local.distance(local.clamp(min, max))
}

/// The projection of the rotation with short-way point `p` (`|p| ≤ π`) onto `shape` (held by
/// `ball`) over both covers, and the cover point that was used (module docs). The short cover wins
/// ties.
#[inline(always)]
pub fn project_covers(shape: &Shape, ball: &Ball, p: Vec3) -> (Projection, Vec3) {
    project_covers_given(shape, ball, p, shape.project(p))
}

/// [`project_covers`] given the short cover's projection `short` of `p`, made already (a
/// polytope's inside test is that projection's first step, so its callers project first).
#[inline(always)]
pub fn project_covers_given(
    shape: &Shape,
    ball: &Ball,
    p: Vec3,
    short: Projection,
) -> (Projection, Vec3) {
    let short = settle_projection(short);
    if short.inside {
        return (short, p);
    }
    let short = within_full_turn(shape, ball, p, short);
    if ball.short_is_nearer(shape, p, short.distance) {
        return (short, p);
    }
    long_cover_if_nearer(shape, ball, p, short)
}

/// The long cover's projection when it is nearer than `short` (out of line: rare).
#[inline(never)]
fn long_cover_if_nearer(
    shape: &Shape,
    ball: &Ball,
    p: Vec3,
    short: Projection,
) -> (Projection, Vec3) {
    let Some(long_point) = other_cover(p) else {
        return (short, p);
    };
    let long = settle_projection(shape.project(long_point));
    let long = within_full_turn(shape, ball, long_point, long);
    if long.distance < short.distance {
        (long, long_point)
    } else {
        (short, p)
    }
}

/// The projection from the cover of the rotation at `p` whose point is nearer to `previous` (the
/// cover point a stream used last frame) onto `shape` (held by `ball`), and that point.
#[inline]
pub fn project_cover_from(
    shape: &Shape,
    ball: &Ball,
    p: Vec3,
    previous: Vec3,
) -> (Projection, Vec3) {
    let point = nearest_cover_point(p, previous);
    let projection = settle_projection(shape.project(point));
    (within_full_turn(shape, ball, point, projection), point)
}

/// Whether the cover point `used` is surely the one of its rotation nearer to `previous` (what
/// [`nearest_cover_point`] picks), with room for rounding: the other cover is farther by more
/// than a millionth of the squared distances involved.
#[inline]
pub fn surely_nearer_cover(used: Vec3, previous: Vec3) -> bool {
    let here = used.distance_squared(previous);
    // The covers lie 2π apart, so within 1 of `previous` the other is more than 2π − 1 away:
    // the common case of a stream, answered without the other cover.
    if here < 1.0 {
        return true;
    }
    let Some(other) = other_cover(used) else {
        return true;
    };
    let there = other.distance_squared(previous);
    there - here > 1e-6 * (here + there) + 1e-9
}

/// The cover point of the rotation at `p` nearer to `previous`.
#[inline]
pub fn nearest_cover_point(p: Vec3, previous: Vec3) -> Vec3 {
    match other_cover(p) {
        Some(other) if other.distance_squared(previous) < p.distance_squared(previous) => other,
        _ => p,
    }
}
