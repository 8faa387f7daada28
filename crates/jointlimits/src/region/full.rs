//! Full-space limits: one convex region over the scaled angle-axis of the whole relative
//! rotation.
//!
//! Metric: the Euclidean distance in limit space between scaled angle-axis points, taken over
//! both covers of the input (see [`super::covers`]). Because the region is convex, its projection
//! is unique and non-expansive within one cover.

use glam::{DVec3, Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::covers::{
    Ball, project_cover_from, project_covers, project_covers_given, surely_nearer_cover,
};
use crate::contract::{LimitContext, Limited, RotationLimit, settle};
use crate::rotation::{from_scaled_angle_axis, quat_abs};
use crate::shape::{LimitShape, Projection, Shape};
use crate::space::{SpaceKind, full_point};
use crate::validation::{self, InvalidField};

/// A region over `log(q_rel)`. `measured` in its results is the input's point in the cover
/// used, `(x, y, z, 0)`.
///
/// Stored as its shape alone; a ball holding the shape (which decides when the other cover needs
/// projecting) is kept beside it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "FullSpec", into = "FullSpec")]
pub struct FullLimit {
    shape: Shape,
    ball: Ball,
}

/// The stored form of a [`FullLimit`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FullSpec {
    /// The allowed scaled angle-axis points.
    pub shape: Shape,
}

impl From<FullSpec> for FullLimit {
    fn from(spec: FullSpec) -> FullLimit {
        FullLimit::new(spec.shape)
    }
}

impl From<FullLimit> for FullSpec {
    fn from(limit: FullLimit) -> FullSpec {
        FullSpec { shape: limit.shape }
    }
}

impl FullLimit {
    /// The limit allowing the scaled angle-axis points of `shape`.
    pub fn new(shape: Shape) -> FullLimit {
        let ball = Ball::of(&shape);
        FullLimit { shape, ball }
    }

    /// The allowed scaled angle-axis points.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// A ball holding the shape ([`Shape::bounding_ball`]).
    pub fn ball(&self) -> &Ball {
        &self.ball
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// ([`crate::rotation_cells`]; `to_relative` unit).
    ///
    /// A cell's rotations lie within `θ` of its centre's, whose point `p` has angle `φ = |p|`
    /// (short cover). Along the way to any of them the angle stays below `φ + θ`, where the
    /// logarithm stretches rotation distances by at most `(φ + θ)/2 / sin((φ + θ)/2)` (the
    /// inverse of the exponential's tangential `sin(φ/2)/(φ/2)`), so their points lie within that
    /// many times `θ` of `p`, and the cell is allowed when the shape's [`Shape::depth`] at `p`
    /// covers it. Cells reaching within 0.05 rad of a half turn, where the cover flips, are left
    /// to the exact test.
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        use crate::rotation_cells::{InsideCells, MARGIN, Standing};
        InsideCells::prove(|cell| {
            let point = full_point(quat_abs(to_relative * cell.centre));
            let widest = point.length() + cell.radius;
            if widest >= std::f32::consts::PI - 0.05 {
                return Standing::Open;
            }
            let half = 0.5 * widest;
            let stretch = if half > 1e-3 { half / half.sin() } else { 1.0 };
            let reach = cell.radius * stretch * (1.0 + 1e-3) + MARGIN;
            let depth = self.shape.depth(point);
            if depth >= reach {
                Standing::Allowed
            } else if -depth > reach {
                Standing::Refused
            } else {
                Standing::Open
            }
        })
    }

    /// The result of a projection made from the cover point `point` of `relative`.
    #[inline(always)]
    fn result(relative: Quat, point: Vec3, projection: Projection) -> Limited {
        if projection.inside {
            return Limited::unchanged(relative, point.extend(0.0));
        }
        let limited = Limited {
            relative: from_scaled_angle_axis(projection.point),
            inside: false,
            violation: projection.distance,
            measured: point.extend(0.0),
        };
        // On the long cover the logarithm stretches rotation distances without bound.
        if point.length_squared() > std::f32::consts::PI * std::f32::consts::PI {
            return settle(relative, limited);
        }
        limited
    }

    /// [`RotationLimit::nearest`] by projection over both covers, from the short point `p` (out
    /// of line: only rotations the inside test refuses come here).
    #[inline(never)]
    fn nearest_outside(&self, relative: Quat, p: Vec3) -> Limited {
        let (projection, point) = project_covers(&self.shape, &self.ball, p);
        FullLimit::result(relative, point, projection)
    }

    /// [`FullLimit::nearest_outside`] given the short point's projection `short` (out of line,
    /// as it is).
    #[inline(never)]
    fn nearest_outside_given(&self, relative: Quat, p: Vec3, short: Projection) -> Limited {
        let (projection, point) = project_covers_given(&self.shape, &self.ball, p, short);
        FullLimit::result(relative, point, projection)
    }
}

impl RotationLimit for FullLimit {
    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        let p = full_point(quat_abs(relative));
        if self.shape.tests_inside_in_projection() {
            // A polytope's inside test is its projection's first step: taken once.
            let short = self.shape.project(p);
            if short.inside {
                return Limited::unchanged(relative, p.extend(0.0));
            }
            return self.nearest_outside_given(relative, p, short);
        }
        // The inside test alone first: the common case at runtime, and answered in registers.
        if self.shape.contains(p) {
            return Limited::unchanged(relative, p.extend(0.0));
        }
        self.nearest_outside(relative, p)
    }

    #[inline]
    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        let p = full_point(quat_abs(relative));
        let (projection, point) =
            project_cover_from(&self.shape, &self.ball, p, previous.truncate());
        FullLimit::result(relative, point, projection)
    }

    #[inline]
    fn continues_as(&self, _: Quat, nearest: &Limited, previous: Vec4) -> bool {
        surely_nearer_cover(nearest.measured.truncate(), previous.truncate())
    }

    fn validate(&self) -> Result<(), InvalidField> {
        self.shape.validate().map_err(|e| e.inside("shape"))?;
        validation::reaches_rotations("shape", &self.shape)
    }

    fn label(&self) -> String {
        self.shape.label()
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::Full
    }

    fn examples() -> Vec<FullLimit> {
        let (far, spread) = super::PAST_FULL_TURN;
        let past_full_turn = super::example_shapes(&super::example_cloud(far, spread));
        super::example_shapes(&super::example_cloud(DVec3::new(0.5, -0.3, 0.2), 1.0))
            .into_iter()
            .chain(past_full_turn)
            .map(FullLimit::new)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inside_test_first_answers_as_the_projection_does() {
        for (seed, limit) in FullLimit::examples().into_iter().enumerate() {
            for q in super::super::probes_around(&limit, seed as u64) {
                let p = full_point(quat_abs(q));
                assert_eq!(
                    limit.nearest(q, &LimitContext::NONE),
                    limit.nearest_outside(q, p),
                    "{} at {q:?}",
                    limit.label()
                );
            }
        }
    }
}
