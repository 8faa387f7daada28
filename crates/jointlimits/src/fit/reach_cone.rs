//! Fitting a reach cone and its swing-dependent twist limits to a joint's motion.
//!
//! 1. Each frame's relative rotation gives the direction of the bone axis, `d = q·axis`, and
//!    its twist angle (in the clip's unrolled cover).
//! 2. The visible point `V` is the centre of the smallest spherical cap holding the directions
//!    (Bădoiu–Clarkson iteration on the subsampled directions), so it sees every one of them as
//!    long as they leave a gap around the bone somewhere.
//! 3. Around `V` the sphere is cut into equal sectors of azimuth; each sector's boundary point
//!    sits at its middle azimuth, as far from `V` as its farthest direction plus the padding.
//!    The boundary is smoothed once in the stereographic plane (when the result is still a star)
//!    and then grown, slice by slice, until every direction is inside: great-circle edges between
//!    two far points sag towards `V` when the cone is smaller than a hemisphere and bulge away
//!    when it is larger, and the growth makes up for either.
//! 4. Twist: each boundary point gets the union of the twist ranges of the frames in its two
//!    slices, so that any interpolation of them holds those frames; the visible point gets the
//!    narrowest range with which every frame's interpolated range still holds its twist. All
//!    ranges are then padded.

use std::f64::consts::{PI, TAU};

use glam::{DVec3, Quat, Vec3};

use super::{FitError, subsample};
use crate::joint_limit::TwistRange;
use crate::reach_cone::{ReachCone, ReachConeLimit};
use crate::rotation::swing_and_twist_angle;

/// Azimuth sectors around the visible point before smoothing (smoothing doubles them).
const SECTORS: usize = 16;
/// The largest angle a boundary point may be from `V`: the antipode must stay outside.
const MAX_RADIUS: f64 = PI - 0.02;
/// Smallest cone radius, so that a joint that never swings still has a cone around `V`.
const MIN_RADIUS: f64 = 0.01;
/// Rounds of growth allowed before giving up on a boundary.
const GROWTH_ROUNDS: usize = 200;

/// Fits a reach cone limit about `twist_axis` to the `relative` rotations (unrolled, one slice
/// per frame), with `padding` radians of extra room for directions and twists and `spacing` the
/// subsampling distance used to find the visible point.
pub fn fit_reach_cone(
    relative: &[Quat],
    twist_axis: Vec3,
    padding: f64,
    spacing: f64,
) -> Result<ReachConeLimit, FitError> {
    if relative.is_empty() {
        return Err(FitError::NoSamples);
    }
    if let Some(index) = relative.iter().position(|q| !q.is_finite()) {
        return Err(FitError::NonFinite { index });
    }
    let padding = padding.max(0.0);
    let (directions, twists): (Vec<DVec3>, Vec<f64>) = relative
        .iter()
        .map(|&q| {
            let (swing, twist) = swing_and_twist_angle(q, twist_axis);
            (
                (swing * twist_axis).as_dvec3().normalize(),
                f64::from(twist),
            )
        })
        .unzip();
    let visible = visible_point(&directions, spacing)?;
    let cone = boundary_around(visible, &directions, padding)?;
    let cone = with_fitted_twist(&cone, &directions, &twists, padding)?;
    Ok(ReachConeLimit { twist_axis, cone })
}

/// The centre of the (approximately) smallest cap holding `directions`.
fn visible_point(directions: &[DVec3], spacing: f64) -> Result<DVec3, FitError> {
    let core: Vec<DVec3> = subsample(directions, spacing)
        .into_iter()
        .map(|i| directions[i])
        .collect();
    let mean = core.iter().sum::<DVec3>();
    let mut centre = mean.try_normalize().unwrap_or(core[0]);
    // Bădoiu–Clarkson: step towards the farthest point by a shrinking fraction.
    for k in 1..=200 {
        let farthest = core
            .iter()
            .copied()
            .min_by(|a, b| a.dot(centre).total_cmp(&b.dot(centre)))
            .unwrap_or(centre);
        let moved = centre + (farthest - centre) / (k as f64 + 1.0);
        centre = moved.try_normalize().unwrap_or(centre);
    }
    let widest = directions
        .iter()
        .map(|d| d.dot(centre).clamp(-1.0, 1.0).acos())
        .fold(0.0, f64::max);
    if widest >= MAX_RADIUS {
        return Err(FitError::NoVisiblePoint {
            widest_degrees: widest.to_degrees(),
        });
    }
    Ok(centre)
}

/// Azimuth and angular distance of `d` around `visible` in the tangent frame `(e1, e2)`.
fn polar(d: DVec3, visible: DVec3, e1: DVec3, e2: DVec3) -> (f64, f64) {
    let azimuth = d.dot(e2).atan2(d.dot(e1)).rem_euclid(TAU);
    let radius = d.cross(visible).length().atan2(d.dot(visible));
    (azimuth, radius)
}

/// The direction at `azimuth` and `radius` around `visible`.
fn from_polar(azimuth: f64, radius: f64, visible: DVec3, e1: DVec3, e2: DVec3) -> DVec3 {
    let (sin_a, cos_a) = azimuth.sin_cos();
    let (sin_r, cos_r) = radius.sin_cos();
    visible * cos_r + (e1 * cos_a + e2 * sin_a) * sin_r
}

/// A star boundary around `visible` that holds every direction.
fn boundary_around(
    visible: DVec3,
    directions: &[DVec3],
    padding: f64,
) -> Result<ReachCone, FitError> {
    let e1 = visible.any_orthonormal_vector();
    let e2 = visible.cross(e1);
    let mut reach = [0.0f64; SECTORS];
    for &d in directions {
        let (azimuth, radius) = polar(d, visible, e1, e2);
        let sector = ((azimuth / TAU * SECTORS as f64) as usize).min(SECTORS - 1);
        reach[sector] = reach[sector].max(radius);
    }
    let sector_points: Vec<(f64, f64)> = reach
        .iter()
        .enumerate()
        .map(|(i, &r)| {
            let azimuth = (i as f64 + 0.5) * TAU / SECTORS as f64;
            (azimuth, (r + padding).clamp(MIN_RADIUS, MAX_RADIUS))
        })
        .collect();
    let sector_cone = cone_from_polar(&sector_points, visible, e1, e2)?;
    let smoothed = sector_cone.smoothed(1).unwrap_or(sector_cone);
    let mut points: Vec<(f64, f64)> = smoothed
        .boundary()
        .iter()
        .map(|p| {
            let (azimuth, radius) = polar(p.as_dvec3(), visible, e1, e2);
            (azimuth, radius.clamp(MIN_RADIUS, MAX_RADIUS))
        })
        .collect();
    let mut cone = cone_from_polar(&points, visible, e1, e2)?;
    for _ in 0..GROWTH_ROUNDS {
        // The deepest miss of each slice: how far outside its edge's great circle.
        let n = points.len();
        let mut deficit = vec![0.0f64; n];
        for &d in directions {
            let direction = d.as_vec3();
            let slice = cone.slice_of(direction);
            if !cone.inside_slice(direction, slice) {
                let beyond = f64::from(-cone.edge_height(direction, slice)).asin();
                deficit[slice] = deficit[slice].max(beyond);
            }
        }
        if deficit.iter().all(|&d| d == 0.0) {
            return Ok(cone);
        }
        for (i, &miss) in deficit.iter().enumerate() {
            if miss > 0.0 {
                for j in [i, (i + 1) % n] {
                    points[j].1 =
                        (points[j].1 + 2.0 * miss + 1e-4 + 0.25 * padding).min(MAX_RADIUS);
                }
            }
        }
        cone = cone_from_polar(&points, visible, e1, e2)?;
    }
    Err(FitError::NoVisiblePoint {
        widest_degrees: points.iter().map(|p| p.1).fold(0.0, f64::max).to_degrees(),
    })
}

/// The cone through boundary points given in polar form, with zero twist limits.
fn cone_from_polar(
    points: &[(f64, f64)],
    visible: DVec3,
    e1: DVec3,
    e2: DVec3,
) -> Result<ReachCone, FitError> {
    let boundary: Vec<Vec3> = points
        .iter()
        .map(|&(a, r)| from_polar(a, r, visible, e1, e2).as_vec3())
        .collect();
    let zero = TwistRange { min: 0.0, max: 0.0 };
    ReachCone::new(visible.as_vec3(), &boundary, zero).map_err(|e| FitError::Cone(e.to_string()))
}

/// `cone` with twist limits that hold every frame's twist, padded.
fn with_fitted_twist(
    cone: &ReachCone,
    directions: &[DVec3],
    twists: &[f64],
    padding: f64,
) -> Result<ReachCone, FitError> {
    let n = cone.boundary().len();
    let empty = (f64::INFINITY, f64::NEG_INFINITY);
    let mut per_slice = vec![empty; n];
    let slices: Vec<usize> = directions
        .iter()
        .map(|d| cone.slice_of(d.as_vec3()))
        .collect();
    for (&slice, &twist) in slices.iter().zip(twists) {
        let range = &mut per_slice[slice];
        *range = (range.0.min(twist), range.1.max(twist));
    }
    let union = |a: (f64, f64), b: (f64, f64)| (a.0.min(b.0), a.1.max(b.1));
    let overall = per_slice.iter().copied().fold(empty, union);
    let at_boundary: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            let adjacent = union(per_slice[(i + n - 1) % n], per_slice[i]);
            if adjacent.0 <= adjacent.1 {
                adjacent
            } else {
                overall
            }
        })
        .collect();
    // The visible point: the narrowest range for which every frame's interpolated range holds
    // its twist, given the boundary ranges.
    let mut at_visible = empty;
    for ((d, &slice), &twist) in directions.iter().zip(&slices).zip(twists) {
        let (w_this, w_next, w_visible) = cone.slice_weights(d.as_vec3(), slice);
        let (w_this, w_next, w_visible) =
            (f64::from(w_this), f64::from(w_next), f64::from(w_visible));
        if w_visible < 1e-6 {
            continue;
        }
        let (a, b) = (at_boundary[slice], at_boundary[(slice + 1) % n]);
        let lowest = (twist - w_this * a.0 - w_next * b.0) / w_visible;
        let highest = (twist - w_this * a.1 - w_next * b.1) / w_visible;
        at_visible = (at_visible.0.min(lowest), at_visible.1.max(highest));
    }
    if at_visible.0 > at_visible.1 {
        // No frame constrains V below its boundary ranges, or only in the other direction.
        at_visible = if at_visible.0.is_finite() && at_visible.1.is_finite() {
            (at_visible.1, at_visible.0)
        } else {
            overall
        };
    }
    let padded = |(min, max): (f64, f64)| TwistRange {
        min: (min - padding) as f32,
        max: (max + padding) as f32,
    };
    let boundary_twist: Vec<TwistRange> = at_boundary.into_iter().map(padded).collect();
    ReachCone::with_twist(
        cone.visible(),
        cone.boundary(),
        padded(at_visible),
        &boundary_twist,
    )
    .map_err(|e| FitError::Cone(e.to_string()))
}
