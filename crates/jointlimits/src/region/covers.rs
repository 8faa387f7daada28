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
//! origin is also at least `|p_long| − reach ≥ π − reach` away, so short projections nearer than
//! `π − reach` need no other test. (A region inside the ball of radius π never *contains* a long
//! point, but a long point can still be the nearer one: a rotation of 171° about `−x` is 9° from
//! one of 162° about `+x` the long way, and 333° the short way.)

use std::f32::consts::TAU;

use glam::Vec3;

use crate::contract::BOUNDARY_TOLERANCE;
use crate::shape::{Frame, LimitShape, Projection, Shape};

/// Below this length a point is the identity, whose other cover (a full turn) has no axis.
const TINY: f32 = 1e-6;

/// The other cover's point of the rotation at `p`: `p − 2π·p̂` (`None` for the identity).
#[inline]
pub fn other_cover(p: Vec3) -> Option<Vec3> {
    let length = p.length();
    (length > TINY).then(|| p * (1.0 - TAU / length))
}

/// A projection made within the [`BOUNDARY_TOLERANCE`]: a point that close counts as inside.
#[inline(always)]
pub(crate) fn settle_projection(mut projection: Projection, from: Vec3) -> Projection {
    if !projection.inside && projection.distance <= BOUNDARY_TOLERANCE {
        projection = Projection::unchanged(from);
    }
    projection
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

    /// Whether a projection `distance` away from the short point `p` (`|p| ≤ π`) onto `shape`
    /// (held by this ball) is surely no farther than the long cover's (module docs).
    #[inline(always)]
    pub fn short_is_nearer(&self, shape: &Shape, p: Vec3, distance: f32) -> bool {
        if distance + self.reach <= std::f32::consts::PI {
            return true;
        }
        match other_cover(p) {
            Some(long) => distance <= self.lower_bound(shape, long),
            None => true,
        }
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
        (distance + self.reach <= std::f32::consts::PI) | (length <= TINY) | (distance <= bound)
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
    let short = settle_projection(shape.project(p), p);
    if short.inside {
        return (short, p);
    }
    if ball.short_is_nearer(shape, p, short.distance) {
        return (short, p);
    }
    long_cover_if_nearer(shape, p, short)
}

/// The long cover's projection when it is nearer than `short` (out of line: rare).
#[inline(never)]
fn long_cover_if_nearer(shape: &Shape, p: Vec3, short: Projection) -> (Projection, Vec3) {
    let Some(long_point) = other_cover(p) else {
        return (short, p);
    };
    let long = settle_projection(shape.project(long_point), long_point);
    if long.distance < short.distance {
        (long, long_point)
    } else {
        (short, p)
    }
}

/// The projection from the cover of the rotation at `p` whose point is nearer to `previous` (the
/// cover point a stream used last frame), and that point.
#[inline]
pub fn project_cover_from(shape: &Shape, p: Vec3, previous: Vec3) -> (Projection, Vec3) {
    let point = nearest_cover_point(p, previous);
    (settle_projection(shape.project(point), point), point)
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
