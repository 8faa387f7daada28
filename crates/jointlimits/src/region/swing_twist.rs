//! Swing-twist limits: a convex region of swings and an interval of twists about the bone.
//!
//! `q_rel = swing · twist(τ)` about the twist axis; the swing is a scaled angle-axis point in the
//! plane perpendicular to the axis, stored in swing-plane coordinates `swing_basisᵀ · s` (third
//! coordinate zero). Metric: `√(d_swing² + d_twist²)`, the Euclidean distance of swing points and
//! of twist angles. The region is a product, so its nearest point is the nearest swing paired with
//! the nearest twist, each over its covers: the swing's two covers (see [`super::covers`]; the
//! long swing `−swing` pairs with `−twist`, the same twist modulo 2π) and the twist's turns (see
//! [`crate::twist`]).
//!
//! At a swing of exactly 180° the split is not unique; [`crate::rotation::swing_twist`] then
//! takes the identity twist, so the twist is defined everywhere and a stream crossing a 180° swing
//! sees the swing point jump to its other side once (the documented switch point), never flicker.

use std::f32::consts::PI;

use glam::{DVec3, Mat3, Quat, Vec2, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use super::covers::{
    Ball, project_cover_from, project_covers, project_covers_given, surely_nearer_cover,
};
use super::half_swing::{family_member, nearest_member, settle_near_half_swing};
use super::swing_symmetry::require_mirror_symmetric;
use crate::contract::{BOUNDARY_TOLERANCE, LimitContext, Limited, RotationLimit};
use crate::rotation::{
    from_scaled_angle_axis, rotation_about, swing_and_twist_angle, swing_and_twist_angle_or,
    swing_plane_point_and_twist,
};
use crate::shape::{LimitShape, Projection, Shape};
use crate::space::SpaceKind;
use crate::twist::{TwistMeasure, TwistRange};
use crate::validation::{self, InvalidField};

/// A swing region and a twist interval about `twist_axis`. `measured` in its results is
/// `(swing x, swing y, 0, twist)`: the swing-plane point in the cover used and the turn of the
/// twist used.
///
/// The swing shape must be symmetric in the swing-plane's third coordinate (checked when a limits
/// file is read, see `super::swing_symmetry`; every fitted shape is), so projecting a swing
/// point keeps it in the plane: the projection onto the shape is also the projection onto the
/// shape's slice of allowed swings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "SwingTwistSpec", into = "SwingTwistSpec")]
pub struct SwingTwistLimit {
    /// The unit twist axis in the joint's local frame (towards its children).
    pub twist_axis: Vec3,
    /// Orthonormal, right-handed columns `(u, v, twist_axis)`.
    pub swing_basis: Mat3,
    swing: Shape,
    /// The allowed twist angles (modulo 2π).
    pub twist: TwistRange,
    /// A ball holding the swing shape (see [`super::covers`]).
    ball: Ball,
}

/// The stored form of a [`SwingTwistLimit`].
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SwingTwistSpec {
    /// The unit twist axis.
    pub twist_axis: Vec3,
    /// Orthonormal, right-handed columns `(u, v, twist_axis)`.
    pub swing_basis: Mat3,
    /// The allowed swing points in swing-plane coordinates.
    pub swing: Shape,
    /// The allowed twist angles.
    pub twist: TwistRange,
}

impl From<SwingTwistSpec> for SwingTwistLimit {
    fn from(spec: SwingTwistSpec) -> SwingTwistLimit {
        SwingTwistLimit::new(spec.twist_axis, spec.swing_basis, spec.swing, spec.twist)
    }
}

impl From<SwingTwistLimit> for SwingTwistSpec {
    fn from(limit: SwingTwistLimit) -> SwingTwistSpec {
        SwingTwistSpec {
            twist_axis: limit.twist_axis,
            swing_basis: limit.swing_basis,
            swing: limit.swing,
            twist: limit.twist,
        }
    }
}

/// Orthonormal, right-handed columns `(u, v, axis)` for the unit twist `axis`: the swing-plane
/// coordinates used by [`SwingTwistLimit`].
pub fn swing_basis(axis: Vec3) -> Mat3 {
    let (u, v) = axis.any_orthonormal_pair();
    Mat3::from_cols(u, v, axis)
}

/// A swing's scaled angle-axis in swing-plane coordinates, with the rounding residue along the
/// twist axis removed.
#[inline]
pub fn swing_plane_point(basis: &Mat3, swing: Vec3) -> Vec3 {
    (basis.transpose() * swing).with_z(0.0)
}

impl SwingTwistLimit {
    /// The limit allowing swings in `swing` (swing-plane coordinates of `swing_basis`, whose third
    /// column is `twist_axis`) and twists in `twist`.
    pub fn new(
        twist_axis: Vec3,
        swing_basis: Mat3,
        swing: Shape,
        twist: TwistRange,
    ) -> SwingTwistLimit {
        let ball = Ball::of(&swing);
        SwingTwistLimit {
            twist_axis,
            swing_basis,
            swing,
            twist,
            ball,
        }
    }

    /// The allowed swing points in swing-plane coordinates (scaled angle-axis, radians).
    pub fn swing(&self) -> &Shape {
        &self.swing
    }

    /// A ball holding the swing shape ([`Shape::bounding_ball`]).
    pub fn ball(&self) -> &Ball {
        &self.ball
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// (`crate::rotation_cells::prove_swing_plane_cells` with the swing shape's
    /// [`Shape::depth_in_plane`]; `to_relative` unit).
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        crate::rotation_cells::prove_swing_plane_cells(
            to_relative,
            &self.swing_basis,
            [self.twist.min, self.twist.max],
            |point| self.swing.depth_in_plane(point.extend(0.0)),
        )
    }

    /// The swing-plane point (short way) and twist angle of `relative`; at a swing of exactly
    /// 180° the twist is `previous` when given.
    #[inline(always)]
    fn split(&self, relative: Quat, previous: Option<f32>) -> (Vec3, f32) {
        if let Some((point, twist)) = swing_plane_point_and_twist(relative, &self.swing_basis) {
            return (point.extend(0.0), twist);
        }
        let (swing, twist) = match previous {
            Some(fallback) => swing_and_twist_angle_or(relative, self.twist_axis, fallback),
            None => swing_and_twist_angle(relative, self.twist_axis),
        };
        let point = crate::rotation::to_scaled_angle_axis(swing);
        (swing_plane_point(&self.swing_basis, point), twist)
    }

    /// The result of a swing projection from `point` and a twist measure.
    #[inline(always)]
    fn result(
        &self,
        relative: Quat,
        point: Vec3,
        swing: Projection,
        twist: TwistMeasure,
    ) -> Limited {
        let measured = point.extend(twist.turned);
        let violation = (swing.distance * swing.distance + twist.distance * twist.distance).sqrt();
        if swing.inside && twist.distance == 0.0 || violation <= BOUNDARY_TOLERANCE {
            return Limited::unchanged(relative, measured);
        }
        // A swing within the tolerance of its region counts as inside only when the whole
        // rotation does: moved, the answer takes the region's own nearest swing (which the
        // settled projection keeps), so it is no farther out than rounding; kept as it was, it
        // could sit at the tolerance's edge and read back outside.
        let allowed_swing = self.swing_basis * swing.point.with_z(0.0);
        let mut limited = Limited {
            relative: from_scaled_angle_axis(allowed_swing)
                * rotation_about(self.twist_axis, twist.allowed),
            inside: false,
            violation,
            measured,
        };
        // On the long cover the logarithm stretches rotation distances (without bound towards a
        // full turn), as for full-space limits.
        if point.length_squared() > PI * PI {
            limited = crate::contract::settle(relative, limited);
        }
        let close = |swing: Vec2, twist: f32| {
            let (projection, _) = project_covers(&self.swing, &self.ball, swing.extend(0.0));
            let twist = self.twist.measure(twist).distance;
            (projection.distance * projection.distance + twist * twist).sqrt()
        };
        let swing = point.truncate();
        settle_near_half_swing(
            relative,
            self.twist_axis,
            limited,
            swing,
            twist.turned,
            close,
        )
    }

    /// At a swing of exactly 180°, where every twist splits the rotation, the split (swing
    /// point `p`, twist) nearest the region ([`super::half_swing::nearest_member`]). Out of line:
    /// a degenerate input.
    #[cold]
    #[inline(never)]
    fn nearest_split_at_half_swing(&self, p: Vec3, twist: f32) -> (Vec3, f32) {
        let violation = |swing: Vec2, twist: f32| {
            let (projection, _) = project_covers(&self.swing, &self.ball, swing.extend(0.0));
            let twist = self.twist.measure(twist).distance;
            (projection.distance * projection.distance + twist * twist).sqrt()
        };
        let cost = |t: f32| {
            let (swing, twist) = family_member(p.truncate(), twist, t);
            violation(swing, twist)
        };
        let (swing, twist) = family_member(p.truncate(), twist, nearest_member(cost));
        (swing.extend(0.0), twist)
    }

    /// [`RotationLimit::nearest`] by projecting the swing point `p` over both covers and
    /// measuring `twist` (out of line: only rotations the inside test refuses come here).
    #[inline(never)]
    fn nearest_outside(&self, relative: Quat, p: Vec3, twist: f32) -> Limited {
        let (swing, point) = project_covers(&self.swing, &self.ball, p);
        self.result(relative, point, swing, self.twist.measure(twist))
    }

    /// [`SwingTwistLimit::nearest_outside`] given the short swing point's projection `short`
    /// (out of line, as it is).
    #[inline(never)]
    fn nearest_outside_given(
        &self,
        relative: Quat,
        p: Vec3,
        twist: f32,
        short: Projection,
    ) -> Limited {
        let (swing, point) = project_covers_given(&self.swing, &self.ball, p, short);
        self.result(relative, point, swing, self.twist.measure(twist))
    }
}

/// [`RotationLimit::continues_as`] for the kinds that measure a rotation as a swing-plane point
/// and a twist, `(x, y, 0, twist)`, and continue a stream in the swing's cover and the twist's turn
/// nearest the previous measure (swing-twist limits, swing cones, spherical ellipses). Away from
/// the 180° swing the split ignores the previous twist; the twist turn is the one nearest the
/// previous twist when less than half a turn from it; and the cover is the short way's when that
/// is surely the nearer to the previous point.
#[inline]
pub(crate) fn continues_in_swing_plane(
    twist_axis: Vec3,
    relative: Quat,
    nearest: &Limited,
    previous: Vec4,
) -> bool {
    let turn_kept = (nearest.measured.w - previous.w).abs() < PI - 1e-3;
    !crate::contract::near_half_swing(relative, twist_axis)
        && turn_kept
        && surely_nearer_cover(nearest.measured.truncate(), previous.truncate())
}

impl RotationLimit for SwingTwistLimit {
    fn bone_axis(&self) -> Option<Vec3> {
        Some(self.twist_axis)
    }

    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        let (mut p, mut twist) = self.split(relative, None);
        if crate::contract::half_swing(relative, self.twist_axis) {
            (p, twist) = self.nearest_split_at_half_swing(p, twist);
        }
        if self.swing.tests_inside_in_projection() {
            // A polytope's inside test is its projection's first step: taken once.
            let short = self.swing.project(p);
            if short.inside && self.twist.contains(twist) {
                return Limited::unchanged(relative, p.extend(twist));
            }
            return self.nearest_outside_given(relative, p, twist, short);
        }
        // The inside test alone first: the common case at runtime, and answered in registers.
        if self.twist.contains(twist) && self.swing.contains(p) {
            return Limited::unchanged(relative, p.extend(twist));
        }
        self.nearest_outside(relative, p, twist)
    }

    #[inline]
    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        let (p, twist) = self.split(relative, Some(previous.w));
        let (swing, point) = project_cover_from(&self.swing, &self.ball, p, previous.truncate());
        self.result(
            relative,
            point,
            swing,
            self.twist.measure_from(twist, previous.w),
        )
    }

    #[inline]
    fn continues_as(&self, relative: Quat, nearest: &Limited, previous: Vec4) -> bool {
        continues_in_swing_plane(self.twist_axis, relative, nearest, previous)
    }

    fn is_degenerate(&self, relative: Quat) -> bool {
        crate::contract::half_swing(relative, self.twist_axis)
    }

    fn validate(&self) -> Result<(), InvalidField> {
        validation::unit_vector("twist_axis", self.twist_axis)?;
        validation::rotation_matrix("swing_basis", self.swing_basis)?;
        let apart = (self.swing_basis.z_axis - self.twist_axis).length();
        validation::require(apart <= validation::UNIT_TOLERANCE, "swing_basis", || {
            format!("its third column is not twist_axis (off by {apart:.3e})")
        })?;
        self.swing.validate().map_err(|e| e.inside("swing"))?;
        require_mirror_symmetric("swing", &self.swing)?;
        validation::reaches_rotations("swing", &self.swing)?;
        self.twist.validate()
    }

    fn label(&self) -> String {
        format!("{} swing + twist", self.swing.label())
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::SwingTwist
    }

    fn examples() -> Vec<SwingTwistLimit> {
        let twist_axis = Vec3::new(0.2, 1.0, -0.1).normalize();
        let swing_basis = swing_basis(twist_axis);
        let in_plane = |cloud: Vec<DVec3>| -> Vec<DVec3> {
            cloud.into_iter().map(|p| p.with_z(0.0)).collect()
        };
        let (far, spread) = super::PAST_FULL_TURN;
        let past_full_turn = super::example_shapes(&in_plane(super::example_cloud(far, spread)));
        let twists = [
            TwistRange {
                min: -0.6,
                max: 0.9,
            },
            // An interval past +π: twists near ±π are inside only by turning.
            TwistRange { min: 2.5, max: 3.6 },
        ];
        super::example_shapes(&in_plane(super::example_cloud(
            DVec3::new(0.6, -0.2, 0.0),
            1.0,
        )))
        .into_iter()
        .chain(past_full_turn)
        .enumerate()
        .map(|(i, swing)| {
            SwingTwistLimit::new(twist_axis, swing_basis, swing, twists[i % twists.len()])
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_inside_test_first_answers_as_the_projection_does() {
        for (seed, limit) in SwingTwistLimit::examples().into_iter().enumerate() {
            for q in super::super::probes_around(&limit, 100 + seed as u64) {
                let (p, twist) = limit.split(q, None);
                assert_eq!(
                    limit.nearest(q, &LimitContext::NONE),
                    limit.nearest_outside(q, p, twist),
                    "{} at {q:?}",
                    limit.label()
                );
            }
        }
    }
}
