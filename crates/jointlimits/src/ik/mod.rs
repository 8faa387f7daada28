//! Inverse kinematics that respects joint limits.
//!
//! - Position solvers in any dimension ([`passes`], over [`ChainPoint`]): Juckett's constraint
//!   relaxation with per-joint weights, and FABRIK, plus the detection and escape of the
//!   straight-chain lock-up they share.
//! - Rotational chains in 3D ([`Chain`]): local joint rotations, bone offsets and optional
//!   [`crate::JointLimit`]s. [`solve`] runs relaxation, FABRIK or CCD on them with the limits
//!   inside the solve: after each pass every joint's rotation is projected onto its limit, root
//!   first, and the joints below re-aim at where the pass wanted them, so the final pose satisfies
//!   every limit exactly while the end effector gets as close to the target as they allow.
//! - [`solve_two_bone`]: analytic two-bone IK with a pole vector; [`look_at`]: a look-at chain that
//!   turns each joint as far as its limit lets it and passes the rest on.
//! - Stress: with [`IkOptions::stress_weight`], a solve that reaches its target then moves the
//!   chain through the poses that keep it there towards lower total stress (limits that store
//!   stress: tables).
//! - [`Tracker`]: solves a chain frame after frame without flips between solutions.
//! - Planar chains ([`PlanarChain`]): angles, lengths and angle ranges in 2D.
//!
//! Every solver stops on an iteration count, a distance tolerance, a stall, or a time budget, and
//! always returns the best pose it found.

mod chain;
mod look_at;
pub mod passes;
mod pattern;
mod planar;
mod point;
mod progress;
mod solve;
mod stress;
mod tracking;
mod two_bone;

pub use chain::{Chain, ChainError};
pub use look_at::{LookAtReport, look_at};
pub use planar::PlanarChain;
pub use point::ChainPoint;
pub use progress::{IkOptions, IkReport, StopReason};
pub use solve::{Solver, solve};
pub use tracking::Tracker;
pub use two_bone::solve_two_bone;
