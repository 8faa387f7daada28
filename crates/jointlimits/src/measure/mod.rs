//! Measuring limits: how much of the rotation space they allow, how near their projections land
//! to the truly nearest allowed rotation, how smoothly their output moves, and what a projection
//! costs. Everything goes through the [`RotationLimit`] contract, so it measures what runtime
//! does, and everything is reproducible from a seed.
//!
//! ```
//! use jointlimits::authored::ConeLimit;
//! use jointlimits::measure::tightness::direction_acceptance;
//! use jointlimits::TwistRange;
//! use glam::Vec3;
//!
//! // A cone of half-angle 60° allows (1 − cos 60°)/2 = 25% of bone directions.
//! let cone = ConeLimit {
//!     twist_axis: Vec3::Z,
//!     max_swing: 60f32.to_radians(),
//!     twist: TwistRange { min: -0.3, max: 0.3 },
//! };
//! let share = direction_acceptance(&cone, Vec3::Z, 20_000, 1);
//! assert!((share - 0.25).abs() < 0.01);
//! ```

pub mod continuity;
pub mod novelty;
pub mod optimality;
pub mod random;
pub mod tightness;

use std::time::Instant;

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

use crate::contract::{LimitContext, RotationLimit};
use crate::joint_limit::JointLimit;
pub use continuity::{Continuity, ContinuityReport};
pub use optimality::Optimality;
pub use random::SeededRandom;

/// The most Haar-random rotations drawn to seed the optimality brute force.
const POOL_DRAWS: usize = 50_000;

/// Rotations per timing run, and timing runs (the fastest counts).
const TIMED_ROTATIONS: usize = 4096;
const TIMING_RUNS: usize = 7;

/// How thoroughly to measure.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EvaluationOptions {
    /// Random rotations for rotation acceptance, and random directions for direction acceptance.
    pub samples: usize,
    /// Random rotations whose projections are checked against the brute force (those outside).
    pub optimality_inputs: usize,
    /// Random paths of each continuity family.
    pub paths_per_family: usize,
    /// The seed every random input derives from.
    pub seed: u64,
    /// Whether to time projections (the only number that differs between runs).
    pub timing: bool,
}

impl Default for EvaluationOptions {
    fn default() -> EvaluationOptions {
        EvaluationOptions {
            samples: 100_000,
            optimality_inputs: 200,
            paths_per_family: 4,
            seed: 1,
            timing: true,
        }
    }
}

/// Everything measured about one joint's limit, on random inputs (the clip-free measures).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LimitEvaluation {
    /// The limit's kind, as [`RotationLimit::label`] describes it.
    pub kind: String,
    /// Share of Haar-random rotations allowed.
    pub rotation_acceptance: f64,
    /// Share of uniformly random bone directions reachable with some twist.
    pub direction_acceptance: f64,
    /// Projection gap against the brute-force nearest allowed rotation.
    pub optimality: Optimality,
    /// Output jumps and switches along slow paths.
    pub continuity: ContinuityReport,
    /// Time of one stateless [`JointLimit::limit`] on Haar-random input, nanoseconds (`None` when
    /// timing was not asked for).
    pub nanoseconds_per_projection: Option<f64>,
}

/// The bone axis of a limit: its kind's own ([`RotationLimit::bone_axis`]) or, for kinds without
/// one, `skeleton_axis` (the direction to the joint's children), or +Y.
pub fn bone_axis(limit: &JointLimit, skeleton_axis: Option<Vec3>) -> Vec3 {
    limit
        .region
        .bone_axis()
        .or(skeleton_axis)
        .and_then(Vec3::try_normalize)
        .unwrap_or(Vec3::Y)
}

/// Measures one joint's limit on random inputs (`bone_axis`: the unit direction of the bone in
/// the reference frame, see [`bone_axis`]).
pub fn evaluate_limit(
    limit: &JointLimit,
    bone_axis: Vec3,
    options: &EvaluationOptions,
) -> LimitEvaluation {
    let region = &limit.region;
    let seed = options.seed;
    let rotation_acceptance = tightness::rotation_acceptance(region, options.samples, seed);
    let direction_acceptance =
        tightness::direction_acceptance(region, bone_axis, options.samples, seed ^ 0xD1);

    let mut random = SeededRandom::new(seed ^ 0x0F7);
    let inputs: Vec<Quat> = (0..options.optimality_inputs)
        .map(|_| random.rotation())
        .collect();
    let mut pool: Vec<Quat> = (0..POOL_DRAWS.min(options.samples.max(1000)))
        .map(|_| random.rotation())
        .filter(|&q| region.contains(q, &LimitContext::NONE))
        .collect();
    pool.push(Quat::IDENTITY);
    let optimality = optimality::optimality(region, &inputs, &pool);

    let continuity =
        continuity::continuity(limit, bone_axis, options.paths_per_family, seed ^ 0xC0);
    let nanoseconds_per_projection = options.timing.then(|| time_projection(limit, seed));
    LimitEvaluation {
        kind: region.label(),
        rotation_acceptance,
        direction_acceptance,
        optimality,
        continuity,
        nanoseconds_per_projection,
    }
}

/// Nanoseconds per stateless projection of Haar-random local rotations (the fastest of several
/// runs, which is the least disturbed by other work on the machine).
pub fn time_projection(limit: &JointLimit, seed: u64) -> f64 {
    let mut random = SeededRandom::new(seed ^ 0x71);
    let inputs: Vec<Quat> = (0..TIMED_ROTATIONS).map(|_| random.rotation()).collect();
    (0..TIMING_RUNS)
        .map(|_| {
            let started = Instant::now();
            let mut sink = Quat::IDENTITY;
            for &q in &inputs {
                sink += std::hint::black_box(limit.limit(std::hint::black_box(q)));
            }
            std::hint::black_box(sink);
            started.elapsed().as_nanos() as f64 / TIMED_ROTATIONS as f64
        })
        .fold(f64::INFINITY, f64::min)
}
