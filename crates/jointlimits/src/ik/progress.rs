//! Stopping rules and the best-so-far bookkeeping shared by the iterative solvers.

use std::time::{Duration, Instant};

/// How an iterative solve is run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkOptions {
    /// The most iterations (passes) to run.
    pub max_iterations: usize,
    /// Success: the end effector within this distance of the target (in the chain's units).
    pub tolerance: f32,
    /// Give up when the best distance so far improves by less than this fraction of the chain's
    /// length, several iterations in a row (the target is out of reach or behind a limit; with
    /// limits, an improvement under 2% of the best distance also counts as none).
    pub stall_fraction: f32,
    /// Stop after this much wall-clock time, if set.
    pub time_budget: Option<Duration>,
    /// Project every joint onto its limit inside the solve (`false` ignores the limits).
    pub use_limits: bool,
    /// The direction to bend a straight chain toward when it locks up (world space). `None` tries
    /// perpendicular directions in turn.
    pub pole: Option<glam::Vec3>,
    /// End every iteration with one damped least-squares step toward the target (joints limited
    /// when `use_limits`), and after the first iteration run the step alone (see [`solve`]);
    /// `false` runs the method's passes alone.
    ///
    /// [`solve`]: super::solve()
    pub least_squares_step: bool,
    /// How strongly a solve prefers relaxed poses: after reaching the target it turns the
    /// joints down their stress gradients, this many radians per unit of gradient at first,
    /// keeping the end effector on the target (limits that store stress: tables). 0, the
    /// default, leaves the pose as reached.
    pub stress_weight: f32,
}

impl Default for IkOptions {
    fn default() -> IkOptions {
        IkOptions {
            max_iterations: 100,
            tolerance: 1e-3,
            stall_fraction: 1e-6,
            time_budget: None,
            use_limits: true,
            pole: None,
            least_squares_step: true,
            stress_weight: 0.0,
        }
    }
}

/// Why a solve stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The end effector is within the tolerance of the target.
    Reached,
    /// The target is beyond the chain's reach, and the end effector is within the tolerance of
    /// the nearest point any pose can reach (the chain points straight at the target).
    OutOfReach,
    /// The iteration count ran out.
    Iterations,
    /// Iterations stopped improving (the target is behind a limit, or beyond reach where the
    /// limits keep the chain from pointing straight at it).
    Stalled,
    /// The time budget ran out.
    TimeBudget,
}

/// The outcome of a solve. The chain holds the best pose found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkReport {
    /// Iterations run.
    pub iterations: usize,
    /// Distance from the end effector to the target in the returned pose.
    pub distance: f32,
    /// Why the solve stopped.
    pub stop: StopReason,
    /// How many times the straight-chain lock-up was detected and escaped.
    pub escapes: usize,
}

impl IkReport {
    /// The report of a solve that changed nothing: no iteration, stopped as
    /// [`StopReason::Stalled`] (a target or chain it cannot work with).
    pub fn untouched(distance: f32) -> IkReport {
        IkReport {
            iterations: 0,
            distance,
            stop: StopReason::Stalled,
            escapes: 0,
        }
    }

    /// Whether the end effector reached the target within the tolerance.
    pub fn reached(&self) -> bool {
        self.stop == StopReason::Reached
    }
}

/// Iterations without enough progress before a solve counts as stalled.
const STALL_ITERATIONS: usize = 6;

/// Tracks the best distance and decides when to stop.
pub(crate) struct Progress {
    options: IkOptions,
    started: Option<Instant>,
    stall_step: f32,
    pub best: f32,
    floor: f32,
    slow: usize,
    pub iterations: usize,
    pub escapes: usize,
}

/// What to do after an iteration.
pub(crate) enum Step {
    /// Keep going; `improved` says whether this pose is the best so far.
    Continue { improved: bool },
    /// Stop; `improved` as above.
    Stop { improved: bool, reason: StopReason },
}

impl Progress {
    /// Starts tracking from the initial distance for a chain of `length`. `floor` is the least
    /// distance any pose could reach, `|target − root| − reach` (zero or less when the target is
    /// within reach): a solve within the tolerance of it stops as [`StopReason::OutOfReach`].
    pub fn new(options: &IkOptions, length: f32, initial_distance: f32, floor: f32) -> Progress {
        Progress {
            options: *options,
            started: options.time_budget.map(|_| Instant::now()),
            stall_step: options.stall_fraction * length,
            best: initial_distance,
            floor: floor.max(0.0),
            slow: 0,
            iterations: 0,
            escapes: 0,
        }
    }

    /// Whether the initial pose already reaches the target.
    pub fn already_reached(&self) -> bool {
        self.best <= self.options.tolerance
    }

    /// Records one iteration's distance.
    pub fn record(&mut self, distance: f32) -> Step {
        self.iterations += 1;
        let improved = distance.is_finite() && distance < self.best;
        let previous_best = self.best;
        if improved {
            self.best = distance;
        }
        if self.best <= self.options.tolerance {
            return Step::Stop {
                improved,
                reason: StopReason::Reached,
            };
        }
        // (Far targets measure distances in coarse floats: the slack grows with them.)
        if self.best <= self.floor + self.options.tolerance.max(1e-6 * self.floor) {
            return Step::Stop {
                improved,
                reason: StopReason::OutOfReach,
            };
        }
        // With limits, progress slower than a few percent per iteration is a trap being crept
        // along, worth leaving (the solver switches method or restarts).
        let relative = if self.options.use_limits {
            0.02 * self.best
        } else {
            0.0
        };
        // Progress is measured on the best distance, so that a solve that oscillates stalls too.
        if previous_best - self.best < self.stall_step.max(relative) {
            self.slow += 1;
        } else {
            self.slow = 0;
        }
        let reason = if self.iterations >= self.options.max_iterations {
            Some(StopReason::Iterations)
        } else if self.slow >= STALL_ITERATIONS {
            Some(StopReason::Stalled)
        } else if let (Some(started), Some(budget)) = (self.started, self.options.time_budget) {
            (started.elapsed() >= budget).then_some(StopReason::TimeBudget)
        } else {
            None
        };
        match reason {
            Some(reason) => Step::Stop { improved, reason },
            None => Step::Continue { improved },
        }
    }

    /// Starts counting slow iterations afresh (after switching method).
    pub fn forget_stall(&mut self) {
        self.slow = 0;
    }

    /// The report for a solve that ended with `reason`.
    pub fn report(&self, reason: StopReason) -> IkReport {
        IkReport {
            iterations: self.iterations,
            distance: self.best,
            stop: reason,
            escapes: self.escapes,
        }
    }

    /// The report for a chain that needed no iteration.
    pub fn reached_report(&self) -> IkReport {
        self.report(StopReason::Reached)
    }
}
