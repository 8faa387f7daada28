//! Solving a chain frame after frame without flips between solutions.

use glam::Quat;

use super::chain::Chain;
use super::progress::IkReport;
use crate::rotation::angle_between;

/// Solves a chain frame after frame (a clip, or a game's animation pose each tick) so that its
/// rotations do not flip from one solution to another.
///
/// A chain of three or more joints reaches a point in many poses, and a solve from one frame's
/// input pose can settle on a different one than the solve of the frame before, although input
/// and target barely moved: the chain pops. Each frame is first solved from its input pose, as
/// usual. When the result turns some joint more than the input itself turned since the last
/// frame, by over [`Tracker::max_extra_turn`], the frame is solved again from the last frame's
/// solution carried along by the input's motion,
///
/// ```text
/// startᵢ = (solvedᵢ′ · inputᵢ′⁻¹) · inputᵢ      (′: the last frame)
/// ```
///
/// (the last frame's correction, applied to this frame's input), and that result is kept when it
/// gets at least as close to the target and turns less.
#[derive(Clone, Debug)]
pub struct Tracker {
    /// The largest turn (radians) a joint may make between frames beyond the turn of its input
    /// before the frame is solved again from the last solution.
    pub max_extra_turn: f32,
    last_input: Vec<Quat>,
    last_solution: Vec<Quat>,
    input: Vec<Quat>,
    from_input: Vec<Quat>,
    carried: Vec<Quat>,
    carried_frames: usize,
}

impl Default for Tracker {
    fn default() -> Tracker {
        Tracker::new()
    }
}

impl Tracker {
    /// The default [`Tracker::max_extra_turn`]: 5°.
    pub const DEFAULT_MAX_EXTRA_TURN: f32 = 5.0 * std::f32::consts::PI / 180.0;

    /// A tracker with no last frame.
    pub fn new() -> Tracker {
        Tracker {
            max_extra_turn: Tracker::DEFAULT_MAX_EXTRA_TURN,
            last_input: Vec::new(),
            last_solution: Vec::new(),
            input: Vec::new(),
            from_input: Vec::new(),
            carried: Vec::new(),
            carried_frames: 0,
        }
    }

    /// How many frames kept the solution carried from the frame before, since the tracker was
    /// made.
    pub fn carried_frames(&self) -> usize {
        self.carried_frames
    }

    /// Forgets the last frame: call it at a cut, or after frames that were not solved.
    pub fn reset(&mut self) {
        self.last_input.clear();
        self.last_solution.clear();
    }

    /// Solves one frame: `chain` holds the frame's input pose (its base already placed), and
    /// `solve` is the solve to run on it (for example `|c| ik::solve(c, target, solver, &o)`).
    /// Leaves the kept solution in the chain and returns its report.
    pub fn solve_frame(
        &mut self,
        chain: &mut Chain,
        mut solve: impl FnMut(&mut Chain) -> IkReport,
    ) -> IkReport {
        self.input.clear();
        self.input.extend_from_slice(chain.local_rotations());
        let mut report = solve(chain);
        if self.last_solution.len() == chain.len() {
            let input_turn = largest_turn(&self.last_input, &self.input);
            let extra = largest_turn(&self.last_solution, chain.local_rotations()) - input_turn;
            if extra > self.max_extra_turn {
                report = self.solve_from_last(chain, &mut solve, report, extra + input_turn);
            }
        }
        std::mem::swap(&mut self.last_input, &mut self.input);
        self.last_solution.clear();
        self.last_solution
            .extend_from_slice(chain.local_rotations());
        report
    }

    /// Solves again from the last solution carried by the input's motion; keeps that result if it
    /// is at least as close and turns less than the one from the input (`turn`), else restores it.
    fn solve_from_last(
        &mut self,
        chain: &mut Chain,
        solve: &mut impl FnMut(&mut Chain) -> IkReport,
        from_input: IkReport,
        turn: f32,
    ) -> IkReport {
        self.from_input.clear();
        self.from_input.extend_from_slice(chain.local_rotations());
        self.carried.clear();
        let carry = |((&solved, &last), &now): ((&Quat, &Quat), &Quat)| {
            (solved * last.conjugate() * now).normalize()
        };
        (self.carried).extend(
            (self.last_solution.iter())
                .zip(&self.last_input)
                .zip(&self.input)
                .map(carry),
        );
        chain.set_local_rotations(&self.carried);
        let from_last = solve(chain);
        let closer = from_last.distance <= from_input.distance
            || (from_last.reached() && from_input.reached());
        if closer && largest_turn(&self.last_solution, chain.local_rotations()) < turn {
            self.carried_frames += 1;
            from_last
        } else {
            chain.set_local_rotations(&self.from_input);
            from_input
        }
    }
}

/// The largest angle (radians) between corresponding rotations.
fn largest_turn(a: &[Quat], b: &[Quat]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(&x, &y)| angle_between(x, y))
        .fold(0.0, f32::max)
}
