//! Planar chains: joint angles, bone lengths and angle ranges in 2D.

use std::f32::consts::{PI, TAU};

use glam::{Quat, Vec2, Vec3};

use super::chain::Chain;
use super::progress::{IkOptions, IkReport};
use super::solve::{Solver, solve};
use crate::authored::HingeLimit;
use crate::joint_limit::{JointLimit, LimitRegion};

/// A chain of bones in the plane. Bone `i` makes the angle `angles[i]` (radians,
/// counter-clockwise) with bone `i − 1` (with the base direction for the first), so its world
/// angle is the sum of the angles up to it.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanarChain {
    /// Where the first bone starts.
    pub base: Vec2,
    /// The world angle the first joint's angle is measured from.
    pub base_angle: f32,
    /// Each joint's angle relative to the bone before.
    pub angles: Vec<f32>,
    /// Each bone's length.
    pub lengths: Vec<f32>,
    /// Relaxation weight of each point (joints, then the end effector); zero pins a joint.
    pub weights: Vec<f32>,
    /// Each joint's allowed angle range `(min, max)`, if limited.
    pub ranges: Vec<Option<(f32, f32)>>,
}

impl PlanarChain {
    /// A chain with unit weights and no ranges.
    pub fn new(base: Vec2, angles: Vec<f32>, lengths: Vec<f32>) -> PlanarChain {
        let n = angles.len();
        assert_eq!(lengths.len(), n, "one length per angle");
        PlanarChain {
            base,
            base_angle: 0.0,
            angles,
            lengths,
            weights: vec![1.0; n + 1],
            ranges: vec![None; n],
        }
    }

    /// Joint positions followed by the end effector.
    pub fn positions(&self) -> Vec<Vec2> {
        let mut points = Vec::with_capacity(self.angles.len() + 1);
        let mut point = self.base;
        let mut world = self.base_angle;
        points.push(point);
        for (angle, length) in self.angles.iter().zip(&self.lengths) {
            world += angle;
            point += Vec2::from_angle(world) * *length;
            points.push(point);
        }
        points
    }

    /// The end effector.
    pub fn end_effector(&self) -> Vec2 {
        *self.positions().last().unwrap_or(&self.base)
    }

    /// Whether every angle lies in its range.
    pub fn within_ranges(&self) -> bool {
        self.angles
            .iter()
            .zip(&self.ranges)
            .all(|(a, r)| r.is_none_or(|(min, max)| (min..=max).contains(a)))
    }

    /// Moves the end effector toward `target` with `solver`, keeping every angle in its range
    /// inside the solve (when `options.use_limits`); keeps the best pose found.
    ///
    /// The plane is the `z = 0` plane of a 3D [`Chain`] whose joints are hinges about `z`, so the
    /// planar chain gets exactly the 3D solvers: the lock-up escape (toward the `x, y` of
    /// `options.pole`, or the left of the line to the target), the hand-over to limit-aware CCD
    /// and the restarts.
    pub fn solve(&mut self, target: Vec2, solver: Solver, options: &IkOptions) -> IkReport {
        if !target.is_finite() || self.angles.is_empty() {
            return IkReport::untouched(f32::INFINITY);
        }
        let hinges: Vec<JointLimit> = self
            .ranges
            .iter()
            .map(|range| {
                let (min, max) = range.unwrap_or((-TAU, TAU));
                JointLimit {
                    joint: String::new(),
                    reference: Quat::IDENTITY,
                    region: LimitRegion::Hinge(HingeLimit {
                        axis: Vec3::Z,
                        min,
                        max,
                    }),
                    softening: None,
                }
            })
            .collect();
        let limits = self
            .ranges
            .iter()
            .zip(&hinges)
            .map(|(range, hinge)| range.map(|_| hinge))
            .collect();
        let Ok(mut chain) = Chain::new(
            self.base.extend(0.0),
            Quat::from_rotation_z(self.base_angle),
            self.angles
                .iter()
                .map(|&a| Quat::from_rotation_z(a))
                .collect(),
            self.lengths.iter().map(|&l| Vec3::X * l).collect(),
            limits,
        ) else {
            return IkReport::untouched(f32::INFINITY);
        };
        // Weights of the wrong length (one per joint plus the end is needed) count as all ones.
        if chain.set_weights(&self.weights).is_err() {
            chain.set_weights(&vec![1.0; self.angles.len() + 1]).ok();
        }
        let pole = options
            .pole
            .map(|p| p.truncate())
            .filter(|p| p.is_finite() && *p != Vec2::ZERO)
            .unwrap_or_else(|| (target - self.base).perp());
        let planar_options = IkOptions {
            pole: Some(pole.extend(0.0)),
            ..*options
        };
        let report = solve(&mut chain, target.extend(0.0), solver, &planar_options);
        for (angle, &local) in self.angles.iter_mut().zip(chain.local_rotations()) {
            // The hinge angle, taken in the turn nearest the previous angle.
            let about_z = 2.0 * local.z.atan2(local.w);
            *angle += wrap(about_z - *angle);
        }
        if options.use_limits {
            for (angle, range) in self.angles.iter_mut().zip(&self.ranges) {
                if let Some((min, max)) = range {
                    // The hinge's own angle can differ from ours by whole turns.
                    while *angle > *max + PI {
                        *angle -= TAU;
                    }
                    while *angle < *min - PI {
                        *angle += TAU;
                    }
                    *angle = angle.clamp(*min, *max);
                }
            }
        }
        report
    }
}

/// `angle` wrapped into `(−π, π]`.
fn wrap(angle: f32) -> f32 {
    let wrapped = angle.rem_euclid(TAU);
    if wrapped > PI { wrapped - TAU } else { wrapped }
}
