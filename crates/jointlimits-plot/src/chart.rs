//! The chart a limit's rotations are drawn in: each rotation once, as a point of its limit space.

use std::f32::consts::{PI, TAU};

use glam::{Mat3, Quat, Vec3};
use jointlimits::joint_limit::swing_basis;
use jointlimits::rotation::{from_scaled_angle_axis, quat_abs, to_scaled_angle_axis};
use jointlimits::space::{SwingTwistPoint, from_swing_twist_point, swing_twist_point};
use jointlimits::{JointLimit, RotationLimit, SpaceKind};

/// A limit's chart: full (the scaled angle-axis of the short cover, `|p| ≤ π`) for kinds on the
/// whole rotation, or swing-twist (swing-plane coordinates and the twist in `(−π, π]`) for kinds
/// that split off a twist. Every rotation has one point, so a region is drawn as runtime sees
/// it, whichever covers and turns its definition uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LimitChart {
    space: SpaceKind,
    axis: Vec3,
    basis: Mat3,
}

impl LimitChart {
    /// The chart of `limit`, with `bone_axis` the twist axis for swing-twist kinds that do not
    /// name their own.
    pub fn of(limit: &JointLimit, bone_axis: Vec3) -> LimitChart {
        let axis = limit.region.bone_axis().unwrap_or(bone_axis).normalize();
        LimitChart {
            space: limit.space(),
            axis,
            basis: swing_basis(axis),
        }
    }

    /// The point of the relative rotation `relative`.
    pub fn point(&self, relative: Quat) -> Vec3 {
        let relative = quat_abs(relative);
        match self.space {
            SpaceKind::Full => to_scaled_angle_axis(relative),
            SpaceKind::SwingTwist => {
                let split = swing_twist_point(relative, self.axis);
                let plane = self.basis.transpose() * split.swing;
                let mut twist = split.twist;
                if twist > PI {
                    twist -= TAU;
                } else if twist <= -PI {
                    twist += TAU;
                }
                Vec3::new(plane.x, plane.y, twist)
            }
        }
    }

    /// The relative rotation at `point`.
    pub fn rotation(&self, point: Vec3) -> Quat {
        match self.space {
            SpaceKind::Full => from_scaled_angle_axis(point),
            SpaceKind::SwingTwist => from_swing_twist_point(
                SwingTwistPoint {
                    swing: self.basis * point.with_z(0.0),
                    twist: point.z,
                },
                self.axis,
            ),
        }
    }

    /// The names of the chart's three coordinates.
    pub fn axis_names(&self) -> [&'static str; 3] {
        match self.space {
            SpaceKind::Full => ["x (rad)", "y (rad)", "z (rad)"],
            SpaceKind::SwingTwist => ["swing u (rad)", "swing v (rad)", "twist (rad)"],
        }
    }

    /// Whether `p` is a point of the chart's domain (each rotation once).
    pub fn in_domain(&self, p: Vec3) -> bool {
        match self.space {
            SpaceKind::Full => p.length() <= PI,
            SpaceKind::SwingTwist => p.truncate().length() <= PI && p.z.abs() <= PI,
        }
    }

    /// The largest coordinate any point can have (π in either chart).
    pub fn extent(&self) -> f32 {
        PI
    }
}
