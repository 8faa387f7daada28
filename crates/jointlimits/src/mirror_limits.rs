//! Limits reflected across the body's sagittal plane: the other side's limits made from one
//! side's (`jointlimits mirror`).
//!
//! With `n` the plane's unit normal, `M = I − 2nnᵀ` reflects positions and directions, and a
//! rotation `R` becomes `M·R·M`; as a quaternion `(v, w) ↦ (Pv, w)` with `P = 2nnᵀ − I`, the
//! half turn about `n`, so `M·R·M = p·R·p⁻¹` for `p` that half turn ([`crate::fit::mirror`]).
//! A joint's mirrored limit allows `local` exactly when its partner's allows the reflection of
//! `local`: its reference is the partner's reflected, and its region is the partner's conjugated
//! by `p`, `{p·r·p⁻¹}`. Every kind is mapped exactly:
//! - **full-space shapes** (scaled angle-axis, an axial vector): turned by `P`;
//! - **bone axes** (directions): reflected by `M`, so that a leg that points down still does; a
//!   twist about `M·a = −P·a` is the negated twist about `P·a`, so twist ranges become
//!   `[−max, −min]`, and a swing-twist shape's plane coordinates `(x, y, z)` become
//!   `(x, −y, −z)` in the basis `(P·u, −P·v, M·a)`, a half turn that keeps it a shape of its kind;
//! - **reach cones**: every direction reflected, the boundary's order reversed so that it winds
//!   the same way, twist ranges negated;
//! - **hinges**: the axis turned by `P`; **cones** and **spherical ellipses**: the bone axis
//!   reflected, the ellipse's first axis turned, twist negated (both are symmetric across their
//!   first axis);
//! - **Euler ranges**: only across a coordinate plane (else refused), where a channel about `n`
//!   keeps its range and the other two are negated;
//! - **coupled limits**: the child's boxes turned by `P`, the parent's reference and axis
//!   reflected, the boxes resampled on the grid around the mirrored axis;
//! - **tables**: resampled at the same resolution from the reflected directions (exact where the
//!   reflection maps the grid's vertices onto vertices, as for a coordinate plane and a bone
//!   along an axis).

use glam::{Mat3, Vec3};

use crate::authored::{ConeLimit, EulerLimit, HingeLimit, SphericalEllipseLimit};
use crate::coupled::{CoupledLimit, CoupledRecord};
use crate::fit::mirror::{PairError, Pairing, pairing, reflect};
use crate::joint_limit::{JointLimit, LimitRegion, TwistRange};
use crate::reach_cone::{ReachCone, ReachConeLimit};
use crate::region::{FullLimit, SwingTwistLimit};
use crate::shape::{BoxShape, Frame};
use crate::skeleton::Skeleton;
use crate::skeleton_limits::SkeletonLimits;
use crate::table::{OctahedralMap, VertexGrid};
use crate::table::{TableLimit, TableValues};
use crate::validation::InvalidField;

/// Why limits could not be mirrored.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MirrorError {
    /// No left/right partners were found by name.
    #[error("no left/right joint pairs found by name (Left/Right, l/r or L/R prefixes, _L/_R)")]
    NoPairs,
    /// A pair named by hand cannot be used.
    #[error(transparent)]
    Pair(#[from] PairError),
    /// The partners' offsets do not define a plane.
    #[error("the left/right partners' offsets do not differ: no sagittal plane")]
    NoPlane,
    /// Euler ranges reflect only across a coordinate plane.
    #[error(
        "joint {joint:?}: Euler ranges mirror only across a coordinate plane; the sagittal plane's normal is {normal}"
    )]
    EulerAcrossTiltedPlane {
        /// The joint.
        joint: String,
        /// The plane's normal.
        normal: Vec3,
    },
    /// The reflected region could not be rebuilt (a reach cone whose reflected boundary rounds
    /// into a bad polygon).
    #[error("joint {joint:?}: the reflected limit is unusable: {problem}")]
    Unusable {
        /// The joint.
        joint: String,
        /// What went wrong.
        problem: String,
    },
}

/// Which side's limits to copy onto the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The left joints' limits make the right joints'.
    Left,
    /// The right joints' limits make the left joints'.
    Right,
}

/// `[−max, −min]`: the same twists about the opposite axis.
fn negated(twist: TwistRange) -> TwistRange {
    TwistRange {
        min: -twist.max,
        max: -twist.min,
    }
}

/// The half turn about `n` as a matrix, `P = 2nnᵀ − I`.
fn half_turn(n: Vec3) -> Mat3 {
    Mat3::from_cols(n * (2.0 * n.x), n * (2.0 * n.y), n * (2.0 * n.z)) - Mat3::IDENTITY
}

/// `limit` reflected across the plane with unit `normal`, named `joint` (module docs).
pub fn mirrored_limit(
    limit: &JointLimit,
    normal: Vec3,
    joint: &str,
) -> Result<JointLimit, MirrorError> {
    let p = half_turn(normal);
    let m = -p;
    let unusable = |problem: String| MirrorError::Unusable {
        joint: joint.to_string(),
        problem,
    };
    let region = match &limit.region {
        LimitRegion::Full(full) => FullLimit::new(full.shape().turned(p)).into(),
        LimitRegion::SwingTwist(st) => {
            let basis = st.swing_basis;
            let mirrored_basis =
                Mat3::from_cols(p * basis.x_axis, -(p * basis.y_axis), m * basis.z_axis);
            let flip = Mat3::from_diagonal(Vec3::new(1.0, -1.0, -1.0));
            SwingTwistLimit::new(
                (m * st.twist_axis).normalize(),
                mirrored_basis,
                st.swing().turned(flip),
                negated(st.twist),
            )
            .into()
        }
        LimitRegion::ReachCone(rc) => {
            let cone = &rc.cone;
            let boundary: Vec<Vec3> = cone.boundary().iter().rev().map(|&b| m * b).collect();
            let twists: Vec<TwistRange> = cone
                .twist_at_boundary()
                .iter()
                .rev()
                .map(|&t| negated(t))
                .collect();
            let cone = ReachCone::with_twist(
                m * cone.visible(),
                &boundary,
                negated(cone.twist_at_visible()),
                &twists,
            )
            .map_err(|e| unusable(e.to_string()))?;
            ReachConeLimit {
                twist_axis: (m * rc.twist_axis).normalize(),
                cone,
            }
            .into()
        }
        LimitRegion::Hinge(h) => HingeLimit {
            axis: (p * h.axis).normalize(),
            ..*h
        }
        .into(),
        LimitRegion::Cone(c) => ConeLimit {
            twist_axis: (m * c.twist_axis).normalize(),
            max_swing: c.max_swing,
            twist: negated(c.twist),
        }
        .into(),
        LimitRegion::SphericalEllipse(e) => SphericalEllipseLimit {
            twist_axis: (m * e.twist_axis).normalize(),
            first_axis: (p * e.first_axis).normalize(),
            radii: e.radii,
            twist: negated(e.twist),
        }
        .into(),
        LimitRegion::Euler(e) => {
            mirrored_euler(e, normal).ok_or_else(|| MirrorError::EulerAcrossTiltedPlane {
                joint: joint.to_string(),
                normal,
            })?
        }
        LimitRegion::Coupled(c) => mirrored_coupled(c, normal)
            .map_err(|e| unusable(e.to_string()))?
            .into(),
        LimitRegion::Table(t) => {
            let axis = (m * t.twist_axis).normalize();
            TableLimit::from_fn(axis, t.resolution(), |direction| {
                let values = t.values_at(m * direction);
                TableValues {
                    twist: negated(values.twist),
                    ..values
                }
            })
            .into()
        }
    };
    let mirrored = JointLimit {
        joint: joint.to_string(),
        reference: reflect(limit.reference, normal).normalize(),
        region,
        softening: limit.softening,
    };
    mirrored.validate().map_err(|e| unusable(e.to_string()))?;
    Ok(mirrored)
}

/// A coupled limit reflected: the child's boxes turned by `P`, the parent's reference reflected
/// and its axis mirrored, and the boxes resampled on the grid around the mirrored axis.
fn mirrored_coupled(limit: &CoupledLimit, normal: Vec3) -> Result<CoupledLimit, InvalidField> {
    let p = half_turn(normal);
    let m = -p;
    let record = limit.record();
    let axis = (m * record.parent_axis).normalize();
    let frame = Frame {
        center: p * record.frame.center,
        rotation: p * record.frame.rotation,
    };
    let map = OctahedralMap {
        basis: crate::region::swing_basis(axis),
    };
    let side = record.resolution + 1;
    let (mut min, mut max) = (Vec::new(), Vec::new());
    for row in 0..side {
        for column in 0..side {
            let at = map.to_sphere(VertexGrid::vertex_position(record.resolution, column, row));
            let original = limit.box_for_direction(m * at);
            min.push(original.min);
            max.push(original.max);
        }
    }
    CoupledLimit::new(CoupledRecord {
        parent_reference: reflect(record.parent_reference, normal).normalize(),
        parent_axis: axis,
        frame,
        resolution: record.resolution,
        min,
        max,
        independent: BoxShape {
            frame,
            ..record.independent
        },
    })
}

/// Euler ranges across the coordinate plane with normal `±e_k`: the channel about `e_k` keeps its
/// range and the other two are negated (`M·R_j(θ)·M = R_j(−θ)` for `j ≠ k`); `None` for a plane
/// that is not a coordinate plane.
fn mirrored_euler(limit: &EulerLimit, normal: Vec3) -> Option<LimitRegion> {
    let k = (0..3).find(|&k| normal[k].abs() == 1.0)?;
    let mut mirrored = *limit;
    for (channel, axis) in limit.order.axes().into_iter().enumerate() {
        if axis.index() != k {
            mirrored.min[channel] = -limit.max[channel];
            mirrored.max[channel] = -limit.min[channel];
        }
    }
    Some(mirrored.into())
}

/// `limits` with every joint of side `from` that has a partner on the other side copied onto
/// the partner, reflected across the sagittal plane of `skeleton` (module docs); joints on the
/// body's middle and unpaired joints are kept. Pairs named in `overrides` (left name, right name)
/// replace what the names would give (`pairs_with`). Also returns the (from, to) pairs mirrored.
pub fn mirror_skeleton_limits(
    limits: &SkeletonLimits,
    skeleton: &Skeleton,
    from: Side,
    overrides: &[(String, String)],
) -> Result<(SkeletonLimits, Vec<(String, String)>), MirrorError> {
    let Pairing { pairs, normal } = pairing(skeleton, overrides)?;
    if pairs.is_empty() {
        return Err(MirrorError::NoPairs);
    }
    let normal = normal.ok_or(MirrorError::NoPlane)?;
    let names = |i: usize| skeleton.joints()[i].name.clone();
    let mut out = limits.clone();
    let mut done = Vec::new();
    for (left, right) in pairs {
        let (source, target) = match from {
            Side::Left => (names(left), names(right)),
            Side::Right => (names(right), names(left)),
        };
        let Some(limit) = limits.joints.iter().find(|l| l.joint == source) else {
            continue;
        };
        let mirrored = mirrored_limit(limit, normal, &target)?;
        match out.joints.iter_mut().find(|l| l.joint == target) {
            Some(slot) => *slot = mirrored,
            None => out.joints.push(mirrored),
        }
        // The target was fitted as its source was: its record (if any) follows.
        out.fitted_joints.retain(|record| record.joint != target);
        if let Some(record) = limits.fitted_joints.iter().find(|r| r.joint == source) {
            out.fitted_joints.push(crate::JointFitRecord {
                joint: target.clone(),
                ..record.clone()
            });
        }
        done.push((source, target));
    }
    Ok((out, done))
}
