//! Continuity: how a limit's output moves when its input moves slowly, streamed through a
//! [`Limiter`] as an animation or a solver would stream it.
//!
//! Three families of slow paths, each in steps of [`PATH_STEP`]:
//! - **full turns**: `exp(t·a)` about random axes `a`, `t` from 0 to 4π (two turns, so the input
//!   passes both covers and twists past ±π and ±2π);
//! - **swings through 180°**: the bone swung about random axes perpendicular to it, one turn, so
//!   its direction passes straight away from the reference;
//! - **through the limit**: geodesics between random rotations, which enter and leave the limit
//!   anywhere.
//!
//! A **switch** is a step whose output moves more than [`SWITCH_FACTOR`] times the input step
//! and more than [`SWITCH_MINIMUM`]: the output jumped to another part of the boundary.

use glam::{Quat, Vec3};

use super::random::SeededRandom;
use crate::joint_limit::JointLimit;
use crate::limiter::Limiter;
use crate::rotation::{angle_between, rotation_about};

/// The input step along every path, radians (0.5°).
pub const PATH_STEP: f32 = 0.5 * std::f32::consts::PI / 180.0;

/// A switch moves the output more than this many times the input step…
pub const SWITCH_FACTOR: f32 = 8.0;

/// …and more than this, radians (2°).
pub const SWITCH_MINIMUM: f32 = 2.0 * std::f32::consts::PI / 180.0;

/// The continuity of a limit over a family of paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Continuity {
    /// Paths streamed.
    pub paths: usize,
    /// Steps streamed, over all paths.
    pub steps: usize,
    /// The largest move of the output in one step, radians.
    pub largest_jump: f64,
    /// Steps that were switches (module docs).
    pub switches: usize,
}

impl Continuity {
    /// Both measures together.
    pub fn merged(self, other: Continuity) -> Continuity {
        Continuity {
            paths: self.paths + other.paths,
            steps: self.steps + other.steps,
            largest_jump: self.largest_jump.max(other.largest_jump),
            switches: self.switches + other.switches,
        }
    }
}

/// Continuity on each family of paths.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ContinuityReport {
    /// Two full turns about random axes.
    pub full_turns: Continuity,
    /// One turn of the bone swung through 180° from the reference.
    pub swings_through_180: Continuity,
    /// Geodesics between random rotations.
    pub through_the_limit: Continuity,
}

impl ContinuityReport {
    /// Every family together.
    pub fn overall(&self) -> Continuity {
        self.full_turns
            .merged(self.swings_through_180)
            .merged(self.through_the_limit)
    }
}

/// Streams the relative rotations `path` through `limit` from a fresh history.
fn stream(limit: &JointLimit, path: impl Iterator<Item = Quat>) -> Continuity {
    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
    let mut previous: Option<(Quat, Quat)> = None;
    let mut measured = Continuity {
        paths: 1,
        ..Continuity::default()
    };
    for relative in path {
        let input = limit.local(relative);
        let (output, _) = limiter.limit_joint(0, input);
        if let Some((previous_input, previous_output)) = previous {
            let step = angle_between(previous_input, input);
            let jump = angle_between(previous_output, output);
            measured.largest_jump = measured.largest_jump.max(f64::from(jump));
            if jump > SWITCH_FACTOR * step && jump > SWITCH_MINIMUM {
                measured.switches += 1;
            }
        }
        measured.steps += 1;
        previous = Some((input, output));
    }
    measured
}

/// The rotations `start · exp(t·axis)` for `t` from 0 to `length` in steps of [`PATH_STEP`].
fn turn_path(start: Quat, axis: Vec3, length: f32) -> impl Iterator<Item = Quat> {
    let steps = (length / PATH_STEP).ceil() as usize;
    (0..=steps).map(move |k| start * rotation_about(axis, k as f32 * PATH_STEP))
}

/// Measures `limit` along `paths_per_family` random paths of each family (fixed `seed`), with
/// `bone_axis` the unit direction of the joint's bone in its reference frame.
pub fn continuity(
    limit: &JointLimit,
    bone_axis: Vec3,
    paths_per_family: usize,
    seed: u64,
) -> ContinuityReport {
    let mut random = SeededRandom::new(seed);
    let mut report = ContinuityReport::default();
    for _ in 0..paths_per_family {
        let axis = random.direction();
        let turns = stream(
            limit,
            turn_path(Quat::IDENTITY, axis, 4.0 * std::f32::consts::PI),
        );
        report.full_turns = report.full_turns.merged(turns);

        let perpendicular = random.perpendicular(bone_axis);
        let swing = stream(
            limit,
            turn_path(Quat::IDENTITY, perpendicular, std::f32::consts::TAU),
        );
        report.swings_through_180 = report.swings_through_180.merged(swing);

        let (from, to) = (random.rotation(), random.rotation());
        let to = if from.dot(to) < 0.0 { -to } else { to };
        let length = angle_between(from, to);
        let steps = (length / PATH_STEP).ceil().max(1.0) as usize;
        let between = stream(
            limit,
            (0..=steps).map(|k| from.slerp(to, k as f32 / steps as f32).normalize()),
        );
        report.through_the_limit = report.through_the_limit.merged(between);
    }
    report
}
