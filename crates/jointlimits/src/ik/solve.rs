//! The iterative solvers on a rotational [`Chain`], with the limits inside the solve.

use glam::{Mat3, Quat, Vec3};

use super::chain::Chain;
use super::passes::{
    bend_toward, fabrik_pass, is_locked_straight, relaxation_pass, straighten_toward,
};
use super::pattern::{FIRST_NUDGE, pattern_search};
use super::progress::{IkOptions, IkReport, Progress, Step, StopReason};
use crate::rotation::from_scaled_angle_axis;

/// How far a lock-up escape bends the chain: the sideways move of an interior joint, as a
/// fraction of its shorter bone (about 6°–9° of bend).
const ESCAPE_BEND: f32 = 0.1;

/// An iterative IK method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Solver {
    /// Juckett's constraint relaxation: end effector onto the target, then every bone's length
    /// restored from the end to the root, shared by the joints' weights.
    Relaxation,
    /// Forward and backward reaching (FABRIK).
    Fabrik,
    /// Cyclic coordinate descent: from the last joint to the first, each turns to point the end
    /// effector at the target.
    Ccd,
}

impl Solver {
    /// Every solver, for reports and benches.
    pub const ALL: [Solver; 3] = [Solver::Relaxation, Solver::Fabrik, Solver::Ccd];

    /// The solver's name as the command line spells it.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Relaxation => "relaxation",
            Solver::Fabrik => "fabrik",
            Solver::Ccd => "ccd",
        }
    }

    /// The solver called `name` (see [`Solver::name`]).
    pub fn from_name(name: &str) -> Option<Solver> {
        Solver::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Moves `chain`'s end effector toward `target` with `solver`, leaving the best pose found in the
/// chain.
///
/// With `options.use_limits`, the start pose is first projected onto the limits, and after each
/// pass every joint's local rotation is projected onto its limit, root first, the joints below
/// re-aiming from where it ended up; every pose the solver can return satisfies all limits. With
/// `options.least_squares_step` (the default) each iteration then ends with one damped
/// least-squares step whose joint turns are limited too: the passes alone stall against the
/// limits (relaxation and FABRIK in 95% of captured problems), and the step slides the chain
/// along them toward the target. Only the first iteration, the first after a restart and those
/// after a hand-over to CCD run the pass; the others are the step alone (the passes make the
/// large moves, the step then converges faster at half the cost). When relaxation or FABRIK
/// still stalls, limit-aware CCD sweeps continue from the best pose for the remaining
/// iterations, then up to 8 shaken restarts from the best pose.
///
/// Beyond reach (the target farther from the first free joint than the free part's length) every
/// method converges to the same pose, the chain straight at the target: the first iteration lays
/// it out directly, so a free solve stops there as [`StopReason::OutOfReach`]; with limits,
/// CCD sweeps then slide it along the limits, and restarts stop at the first that gains under 2%
/// of the distance.
///
/// A solve with limits that ends short of its target is then polished by a pattern search
/// along the limits, from the pose reached and from shaken copies of the best
/// (`polish_unreached`): the passes stop where no single joint's aiming helps, though turning
/// joints together along their limits still does.
///
/// A straight chain with the target on its line (the lock-up no pass can leave) is bent toward
/// `options.pole`. Joints before the last pinned point (see [`Chain::set_weights`]) never turn.
/// A non-finite target leaves the chain untouched and reports an infinite distance.
pub fn solve(chain: &mut Chain, target: Vec3, solver: Solver, options: &IkOptions) -> IkReport {
    let use_limits = options.use_limits;
    if !target.is_finite() {
        return IkReport::untouched(f32::INFINITY);
    }
    chain.limit_all(use_limits);
    // Pinned joints cut the chain: only the joints beyond the last pin turn, and the passes run
    // on that part, from the pin to the end effector.
    let first = chain.first_free_joint();
    let free_length: f32 = chain.lengths()[first..].iter().sum();
    // No pose brings the end nearer than `beyond_reach` (the free part pointing straight at the
    // target): a solve that gets within the tolerance of that is done.
    let beyond_reach = target.distance(chain.positions()[first]) - free_length;
    let within_reach = beyond_reach < 0.0;
    let mut progress = Progress::new(
        options,
        chain.length(),
        chain.end_effector().distance(target),
        beyond_reach,
    );
    if progress.already_reached() {
        return relaxed(chain, target, options, progress.reached_report());
    }
    // The chain lends its scratch buffers, so a solve does not allocate once they have grown.
    let (mut points, mut best) = chain.take_scratch();
    chain.save(&mut best);
    points.clear();
    points.extend_from_slice(&chain.positions()[first..]);
    // Position passes ignore the limits and only meet them when the joints re-aim; where the
    // limits trap them, limit-aware CCD sweeps finish from the best pose. Beyond reach every
    // method converges to the chain laid straight at the target: the first pass lays it out at
    // once, and CCD sweeps then slide it along the limits that keep it from pointing there.
    let mut pass = if within_reach {
        Pass::from(solver)
    } else {
        Pass::Ccd
    };
    let mut handed_over = false;
    // Limits make local minima that no sweep leaves; a few shaken restarts from the best pose
    // find most of the way out (deterministically: the shake is seeded). Beyond reach they can
    // only straighten the chain a little further along its limits (a few millimetres of a miss
    // nothing can close, measured on captured arms), so they stop at the first that gains
    // nothing.
    let (mut restarts, mut shake) = (0, Shake::new(target));
    let mut best_before_restart = f32::INFINITY;
    // The passes make the large moves; after that the least-squares step alone converges
    // faster at half the cost (one projection per joint instead of two). The rule depends on
    // nothing measured, so that nearby problems take the same path and land on nearby poses.
    let mut pass_needed = true;
    loop {
        points.copy_from_slice(&chain.positions()[first..]);
        let locked = is_locked_straight(&points, target, options.tolerance);
        if locked {
            bend_toward(
                &mut points,
                escape_pole(chain, first, options, progress.escapes),
                ESCAPE_BEND,
            );
            progress.escapes += 1;
        }
        let least_squares_step = options.least_squares_step && within_reach;
        if pass_needed || locked || !least_squares_step || handed_over {
            let pass = if pass_needed && !within_reach {
                Pass::Straighten
            } else {
                pass
            };
            run_pass(
                chain,
                &mut points,
                pass,
                target,
                use_limits,
                // The least-squares step slides a clamped joint along its limit; without it, CCD
                // looks for a better-aimed member of each clamped joint's aiming family. Beyond
                // reach, where the step is off, that costs 2.7 times the time for 0.6% of the
                // miss on captured arms (4 mm of 69 cm), so it is not done.
                !options.least_squares_step,
            );
        }
        if least_squares_step {
            // Limits bend each pass away from the target; a least-squares step whose turns are
            // limited too slides the chain along them toward it (and, free, finishes the last
            // millimetres that the passes approach only linearly). Beyond reach the passes
            // straighten the chain exactly, where a least-squares step would amplify the
            // last sideways wobble.
            damped_least_squares_step(chain, target, DAMPING * free_length, use_limits);
        }
        pass_needed = false;
        let step = progress.record(chain.end_effector().distance(target));
        let (improved, stop) = match step {
            Step::Continue { improved } => (improved, None),
            Step::Stop { improved, reason } => (improved, Some(reason)),
        };
        if improved {
            chain.save(&mut best);
        }
        if let Some(reason) = stop {
            if !improved {
                chain.restore(&best);
            }
            if reason == StopReason::Stalled && use_limits {
                if pass != Pass::Ccd {
                    (pass, handed_over) = (Pass::Ccd, true);
                    progress.forget_stall();
                    continue;
                }
                let gained = progress.best < best_before_restart * (1.0 - RESTART_GAIN);
                best_before_restart = progress.best;
                if restarts < MAX_RESTARTS && (within_reach || gained) {
                    restarts += 1;
                    chain.perturb(&mut shake, RESTART_ANGLE);
                    progress.forget_stall();
                    pass_needed = true;
                    continue;
                }
            }
            let mut report = progress.report(reason);
            if use_limits && reason != StopReason::Reached {
                report.distance = polish_unreached(chain, target, &mut best, options);
                if report.distance <= options.tolerance {
                    report.stop = StopReason::Reached;
                }
            }
            chain.return_scratch(points, best);
            return relaxed(chain, target, options, report);
        }
    }
}

/// The turns of the pattern search from a solve's pose, which its passes left near a local
/// minimum, radians: from a small turn, to where the gain no longer shows (a thousandth of a
/// radian moves the end by a thousandth of the chain's length at most).
const POLISH_NUDGES: (f32, f32) = (0.05, 1e-3);

/// The one size of turn the probe of [`polish_unreached`] tries, radians (the second is where
/// it stops: below the first).
const PROBE_NUDGES: (f32, f32) = (0.01, 0.0099);

/// The share of the distance the probe must gain for the search to go on.
const PROBE_GAIN: f32 = 0.01;

/// Shaken starts [`polish_unreached`] searches from, after the pose it was given.
const POLISH_RESTARTS: usize = 8;

/// How far each joint is turned at random for the first two of those starts, radians; each
/// pair after turns it further by as much.
const POLISH_SHAKE: f32 = 0.8;

/// Where limits kept a solve from its target: a pattern search along the limits from the
/// chain's pose (the passes and sweeps stop where no single joint's aiming helps, though
/// turning joints together along their limits still does); where that gains at least 2%, from
/// shaken copies of the best pose too, shaken further every second start; the chain is left
/// in the nearest pose found. Returns its distance to the target.
fn polish_unreached(
    chain: &mut Chain,
    target: Vec3,
    saved: &mut Vec<Quat>,
    options: &IkOptions,
) -> f32 {
    let distance = |chain: &Chain| chain.end_effector().distance(target);
    let good_enough = options.tolerance;
    let reached = distance(chain);
    // A probe at one small turn first: where the solve's passes and sweeps ended at a local
    // minimum along the limits (on captured arms, nearly always), the search would cost ten
    // times the solve for nothing.
    let probed = pattern_search(chain, saved, PROBE_NUDGES, good_enough, distance);
    if probed >= reached * (1.0 - PROBE_GAIN) {
        return probed;
    }
    let mut nearest = pattern_search(chain, saved, POLISH_NUDGES, good_enough, distance);
    if nearest >= reached * (1.0 - RESTART_GAIN) {
        // The solve's pose was all but a local minimum along the limits (as on captured arms,
        // where its sweeps and restarts leave millimetres): restarts would cost more than they
        // are likely to find.
        return nearest;
    }
    let [mut best, second, third] = chain.take_pose_scratch();
    chain.save(&mut best);
    let mut shake = Shake::new(target);
    for restart in 0..POLISH_RESTARTS {
        if nearest <= good_enough {
            break;
        }
        chain.restore(&best);
        chain.perturb(&mut shake, POLISH_SHAKE * (1 + restart / 2) as f32);
        let left = pattern_search(
            chain,
            saved,
            (FIRST_NUDGE, POLISH_NUDGES.1),
            good_enough,
            distance,
        );
        if left < nearest {
            nearest = left;
            chain.save(&mut best);
        }
    }
    chain.restore(&best);
    chain.return_pose_scratch([best, second, third]);
    nearest
}

/// `report` after relieving the chain's stress, when the solve reached its target and the options
/// ask for relaxed poses ([`IkOptions::stress_weight`]).
fn relaxed(chain: &mut Chain, target: Vec3, options: &IkOptions, mut report: IkReport) -> IkReport {
    if report.stop == StopReason::Reached && options.stress_weight > 0.0 && options.use_limits {
        let free_length: f32 = chain.lengths()[chain.first_free_joint()..].iter().sum();
        report.distance = super::stress::relieve_stress(
            chain,
            target,
            options.stress_weight,
            options.tolerance.max(report.distance),
            DAMPING * free_length,
        );
    }
    report
}

/// The damping `λ` of [`damped_least_squares_step`], as a fraction of the chain's length: large
/// enough to keep steps short where the chain is straight, small enough not to slow the last
/// millimetres.
const DAMPING: f32 = 0.05;

/// The largest turn (radians) one least-squares step gives any joint.
const MAX_STEP_TURN: f32 = 1.0;

/// Restarts allowed after the limit-aware sweeps stall.
const MAX_RESTARTS: usize = 8;

/// The fraction of the best distance a restart beyond reach must gain for another to follow.
const RESTART_GAIN: f32 = 0.02;

/// The largest angle (radians) a restart turns each joint by.
const RESTART_ANGLE: f32 = 2.5;

/// A small deterministic random source for restarts (SplitMix64), seeded from the target so that
/// the same problem always gives the same answer.
pub(crate) struct Shake(u64);

impl Shake {
    pub(crate) fn new(target: Vec3) -> Shake {
        let bits = target.to_array().map(f32::to_bits);
        Shake(u64::from(bits[0]) ^ (u64::from(bits[1]) << 21) ^ (u64::from(bits[2]) << 42))
    }

    /// A number in `[-1, 1)`.
    pub(crate) fn next_signed(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

/// What an iteration's pass does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    /// A relaxation pass, then the joints re-aim.
    Relaxation,
    /// A FABRIK pass, then the joints re-aim.
    Fabrik,
    /// A CCD sweep.
    Ccd,
    /// The free part laid straight at the target, then the joints re-aim.
    Straighten,
}

impl From<Solver> for Pass {
    fn from(solver: Solver) -> Pass {
        match solver {
            Solver::Relaxation => Pass::Relaxation,
            Solver::Fabrik => Pass::Fabrik,
            Solver::Ccd => Pass::Ccd,
        }
    }
}

/// One `pass` from the chain's pose (`points`: its positions, perhaps bent out of a lock-up),
/// the joints limited when `use_limits`; CCD sweeps try aiming alternatives when
/// `aim_alternatives`.
fn run_pass(
    chain: &mut Chain,
    points: &mut [Vec3],
    pass: Pass,
    target: Vec3,
    use_limits: bool,
    aim_alternatives: bool,
) {
    let first = chain.first_free_joint();
    match pass {
        Pass::Relaxation => {
            let weights = &chain.weights()[first..];
            relaxation_pass(points, &chain.lengths()[first..], weights, target);
            chain.follow_points(points, use_limits);
        }
        Pass::Fabrik => {
            fabrik_pass(points, &chain.lengths()[first..], target);
            chain.follow_points(points, use_limits);
        }
        Pass::Straighten => {
            straighten_toward(points, &chain.lengths()[first..], target);
            chain.follow_points(points, use_limits);
        }
        Pass::Ccd => {
            // Points differ from the positions only when bent out of a lock-up.
            if points != &chain.positions()[first..] {
                chain.follow_points(points, use_limits);
            }
            ccd_sweep(chain, target, use_limits, aim_alternatives);
        }
    }
}

/// One CCD sweep from the last joint to the first free one, trying each clamped joint's aiming
/// `alternatives` or not (see [`Chain::aim_joint`]). Joint `i`'s position does not depend on the
/// joints below it, so only the end effector is carried along; positions are recomputed once at
/// the end.
fn ccd_sweep(chain: &mut Chain, target: Vec3, use_limits: bool, alternatives: bool) {
    let mut end = chain.end_effector();
    for i in (chain.first_free_joint()..chain.len()).rev() {
        let pivot = chain.positions()[i];
        let turned = chain.aim_joint(i, end - pivot, target - pivot, use_limits, alternatives);
        end = pivot + turned * (end - pivot);
    }
    chain.update();
}

/// One damped least-squares step toward `target` of the free joints (see
/// [`Chain::first_free_joint`]), every joint limited when `use_limits`.
///
/// Joint `i` turns about the world vector `ωᵢ = Pᵢ(dᵢ × y)`, with `dᵢ` its lever to the end
/// effector `e` and `Pᵢ` the identity, or, for a joint that its limit stopped last time along
/// the unit direction `mᵢ` (see [`Chain::blocked_direction`]) and that the step would push
/// further out, the projector `I − mᵢmᵢᵀ` onto turns along the limit. The end then moves by
/// `Σᵢ ωᵢ × dᵢ = M·y` with `M = Σᵢ(|dᵢ|²I − dᵢdᵢᵀ − cᵢcᵢᵀ)`, `cᵢ = dᵢ × mᵢ` for the blocked
/// joints: the Jacobian times its transpose, and `y = (M + λ²I)⁻¹(target − e)` makes that the
/// damped least-squares move of the joints free to make it. Without the blocked directions the
/// step spends part of itself pushing joints into limits that then take it back, and the chain
/// creeps along them. No joint turns by more than [`MAX_STEP_TURN`].
pub(super) fn damped_least_squares_step(
    chain: &mut Chain,
    target: Vec3,
    damping: f32,
    use_limits: bool,
) {
    let end = chain.end_effector();
    let free = chain.first_free_joint()..chain.len();
    let error = target - end;
    let mut normal = Mat3::from_diagonal(Vec3::splat(damping * damping));
    for &joint in &chain.positions()[free.clone()] {
        let lever = end - joint;
        normal -= outer(lever);
        normal += Mat3::from_diagonal(Vec3::splat(lever.length_squared()));
    }
    let free_y = normal.inverse() * error;
    // Joints stopped by their limit whose free turn pushes further out turn along the limit.
    let mut blocked = [Vec3::ZERO; MAX_BLOCKED];
    let mut any_blocked = false;
    if use_limits {
        for (i, slot) in blocked
            .iter_mut()
            .enumerate()
            .take(free.end)
            .skip(free.start)
        {
            let Some(direction) = chain.blocked_direction(i).try_normalize() else {
                continue;
            };
            let lever = end - chain.positions()[i];
            if lever.cross(free_y).dot(direction) > 0.0 {
                normal -= outer(lever.cross(direction));
                *slot = direction;
                any_blocked = true;
            }
        }
    }
    let y = if any_blocked {
        normal.inverse() * error
    } else {
        free_y
    };
    let turn_of = |i: usize, joint: Vec3| {
        let free = (end - joint).cross(y);
        let direction = blocked.get(i).copied().unwrap_or(Vec3::ZERO);
        free - direction * free.dot(direction)
    };
    // A trust region: near a singular pose the step asks for large turns that the linear model
    // does not stand for (and that limits then bend anywhere); all turns shrink together.
    let largest_turn_squared = free
        .map(|i| turn_of(i, chain.positions()[i]).length_squared())
        .fold(0.0, f32::max);
    let scale = if largest_turn_squared > MAX_STEP_TURN * MAX_STEP_TURN {
        MAX_STEP_TURN / largest_turn_squared.sqrt()
    } else {
        1.0
    };
    if !(y * scale).is_finite() {
        return;
    }
    chain.turn_all(
        |i, joint| from_scaled_angle_axis(turn_of(i, joint) * scale),
        use_limits,
    );
}

/// Joints beyond this many are never treated as blocked by [`damped_least_squares_step`] (they
/// still are limited): a bound that keeps the step free of allocation.
const MAX_BLOCKED: usize = 16;

/// `vvᵀ`.
fn outer(v: Vec3) -> Mat3 {
    Mat3::from_cols(v * v.x, v * v.y, v * v.z)
}

/// The direction to bend the `attempt`-th lock-up toward: the caller's pole, or in turn four
/// directions perpendicular to the chain.
fn escape_pole(chain: &Chain, first: usize, options: &IkOptions, attempt: usize) -> Vec3 {
    if let Some(pole) = options.pole.filter(|p| p.is_finite() && *p != Vec3::ZERO) {
        return pole;
    }
    let axis = (chain.end_effector() - chain.positions()[first])
        .try_normalize()
        .unwrap_or(Vec3::X);
    let perpendicular = axis.any_orthonormal_vector();
    Quat::from_axis_angle(axis, attempt as f32 * std::f32::consts::FRAC_PI_2) * perpendicular
}
