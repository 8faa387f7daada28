//! The two covers of a rotation in limit space.
//!
//! A rotation `q` and `−q` are one orientation. Their scaled angle-axis points are `p` (length
//! `θ ≤ π`, the short way) and `p − 2π·p̂` (length `2π − θ`, the long way about the opposite
//! axis). A region holds the rotation when it holds either point, and the distance from the
//! rotation to the region is the smaller of the two distances.
//!
//! A region within `reach` of the origin is at least `|p_long| − reach` from the long point, so
//! the long cover needs projecting only when the short one is farther than that: never for a
//! region inside the ball of radius π (then `|p_long| ≥ π ≥ reach` and the short projection is at
//! most as far), which every fitted region of natural motion is.

use std::f32::consts::TAU;

use glam::Vec3;

use crate::contract::BOUNDARY_TOLERANCE;
use crate::shape::{LimitShape, Projection, Shape};

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
pub(crate) fn within_tolerance(mut projection: Projection, from: Vec3) -> Projection {
    if !projection.inside && projection.distance <= BOUNDARY_TOLERANCE {
        projection = Projection::unchanged(from);
    }
    projection
}

/// The projection of the rotation with short-way point `p` (`|p| ≤ π`) onto `shape` (which
/// reaches at most `reach` from the origin) over both covers, and the cover point that was used
/// (module docs). The short cover wins ties.
#[inline(always)]
pub fn project_covers(shape: &Shape, reach: f32, p: Vec3) -> (Projection, Vec3) {
    let short = within_tolerance(shape.project(p), p);
    if short.inside {
        return (short, p);
    }
    // |p| ≤ π, so the long point is at least π long: a region within π − d of the origin
    // cannot bring it nearer than d (no square root needed for the common case).
    if short.distance + reach <= std::f32::consts::PI
        || short.distance <= TAU - p.length() - reach
    {
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
    let long = within_tolerance(shape.project(long_point), long_point);
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
    (within_tolerance(shape.project(point), point), point)
}

/// The cover point of the rotation at `p` nearer to `previous`.
#[inline]
pub fn nearest_cover_point(p: Vec3, previous: Vec3) -> Vec3 {
    match other_cover(p) {
        Some(other) if other.distance_squared(previous) < p.distance_squared(previous) => other,
        _ => p,
    }
}
