//! Writing limited motion so that what a reader gets back is still allowed.
//!
//! A file holds each rotation as Euler angles rounded to f32 degrees, and a joint with fewer than
//! three rotation channels holds only some rotations. An allowed rotation written to a file can
//! therefore read back a hair outside its limit, and `check` on the written file would flag what
//! `apply` just fixed. [`Bvh::with_allowed_motion`] reads each changed rotation back as a reader
//! will, and while that is outside, projects it again and rewrites it: alternating between the
//! allowed set and what the channels can express.

use super::{Bvh, BvhError, Channel};
use glam::Quat;
use jointlimits::{JointLimit, LimitContext, Motion};

/// Most projections and rewrites of one rotation before the best one is kept.
const MAX_ROUNDS: usize = 8;

/// The grid over a one- or two-channel joint's angles searched for an allowed rotation, degrees.
const GRID_STEP_DEGREES: f32 = 2.0;

/// A joint's limit with the parent's state it is judged in: the parent's rotation as written, as
/// `check` reads it back (only limits coupled to their parent read it).
struct Judge<'a> {
    limit: &'a JointLimit,
    context: LimitContext,
}

impl Judge<'_> {
    fn violation(&self, local: Quat) -> f32 {
        self.limit.violation_in(local, &self.context)
    }

    fn contains(&self, local: Quat) -> bool {
        self.violation(local) == 0.0
    }

    fn limit(&self, local: Quat) -> Quat {
        self.limit.limit_in(local, &self.context)
    }
}

/// What [`Bvh::with_allowed_motion`] had to do.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct AllowedWrite {
    /// Joint-frames whose first writing read back outside and were projected again.
    pub reprojected: usize,
    /// Joint-frames that still read back outside (channels that cannot express any allowed
    /// rotation near the one asked for).
    pub still_outside: usize,
    /// The largest violation (radians) among those.
    pub worst_violation: f32,
}

impl Bvh {
    /// Like [`Bvh::with_motion`], and then every changed rotation that `motion` has inside its
    /// joint's limit (`limits[joint]`) reads back inside it too. A limited joint with fewer than
    /// three rotation channels gets an allowed rotation its channels express.
    ///
    /// Rotations the command did not change (equal to the clip's own) and softened rotations that
    /// `motion` has outside are written as they are; every other rotation of a limited joint is
    /// written inside its limit, even when `motion` has it a rounding error outside. A limit
    /// coupled to its parent is judged given the parent's rotation as written, so a child kept
    /// as read is projected too when the parent's written rotation leaves it outside.
    ///
    /// # Errors
    /// Those of [`Bvh::with_motion`].
    pub fn with_allowed_motion(
        &self,
        motion: &Motion,
        limits: &[Option<&JointLimit>],
    ) -> Result<(Bvh, AllowedWrite), BvhError> {
        // A limited joint may have fewer channels than its limit's rotations need; the loop below
        // finds an allowed rotation they express.
        let mut bvh = self.with_motion_expressing(motion, |joint| {
            limits.get(joint).is_none_or(Option::is_none)
        })?;
        let mut report = AllowedWrite::default();
        // `motion` may be longer than the clip it replaces: frames past the clip's are new.
        let original_frames = self.frame_count();
        for frame in 0..motion.frame_count() {
            let wanted = motion.frame_rotations(frame);
            for (joint, limit) in limits.iter().enumerate() {
                let Some(limit) = limit else { continue };
                // Parents come before their children, so a parent's rotation is final here.
                let parent = limit
                    .reads_context()
                    .then(|| self.skeleton.joints()[joint].parent)
                    .flatten();
                let judge = Judge {
                    limit,
                    context: LimitContext {
                        parent: parent.map(|p| bvh.transform(frame, p).0),
                    },
                };
                let written = bvh.transform(frame, joint).0;
                // Allowed as written; or kept as read, with the parent it is judged given (if
                // any) kept too, so judged as the command judged it; or softened, so outside on
                // purpose.
                let kept_as_read = frame < original_frames
                    && wanted[joint] == self.transform(frame, joint).0
                    && parent
                        .is_none_or(|p| judge.context.parent == Some(self.transform(frame, p).0));
                if judge.contains(written)
                    || kept_as_read
                    || (limit.softening.is_some() && !judge.contains(wanted[joint]))
                {
                    continue;
                }
                report.reprojected += 1;
                let violation = bvh.reproject(frame, joint, written, &judge)?;
                if violation > 0.0 {
                    report.still_outside += 1;
                    report.worst_violation = report.worst_violation.max(violation);
                }
            }
        }
        Ok((bvh, report))
    }

    /// Projects joint `joint`'s rotation in frame `frame` (reading back as `written`) onto its
    /// limit and rewrites it, until it reads back inside or [`MAX_ROUNDS`] pass; keeps the values
    /// with the smallest violation, and returns that violation.
    fn reproject(
        &mut self,
        frame: usize,
        joint: usize,
        mut written: Quat,
        judge: &Judge,
    ) -> Result<f32, BvhError> {
        let at = frame * self.channel_count() + self.first_channel(joint);
        let width = self.channels[joint].len();
        let mut best = (
            judge.violation(written),
            self.values[at..at + width].to_vec(),
        );
        for round in 0..MAX_ROUNDS {
            // From the second round on, aim past the boundary by a growing multiple of the
            // correction (1×, 2×, 4× … as far again), so that rounding to the channels' text
            // cannot carry the rotation back out.
            let projected = judge.limit(written);
            let push = if round == 0 {
                0.0
            } else {
                (1u32 << (round - 1)) as f32
            };
            let correction = (projected * written.conjugate()).to_scaled_axis();
            let target = Quat::from_scaled_axis(correction * (1.0 + push)) * written;
            let aim = if judge.contains(target) {
                target
            } else {
                projected
            };
            written = self.set_rotation(frame, joint, aim)?;
            let violation = judge.violation(written);
            if violation < best.0 {
                best = (violation, self.values[at..at + width].to_vec());
            }
            if violation == 0.0 {
                break;
            }
        }
        self.values[at..at + width].copy_from_slice(&best.1);
        if best.0 > 0.0 {
            best.0 = self.search_expressible(frame, joint, judge, best.0);
        }
        Ok(best.0)
    }

    /// For a joint with one or two rotation channels whose rotation still reads back outside:
    /// searches everything the channels can express (a grid of [`GRID_STEP_DEGREES`], then
    /// refined) for the allowed rotation nearest the one asked for, and writes it if there is one.
    /// Where no grid point is allowed, it descends on the violation from the grid point of least
    /// violation: an allowed set thinner than the grid is found that way, and where the channels
    /// express nothing allowed, the least violation they can reach is written.
    /// Returns the violation left (unchanged for three channels, or when nothing better is found).
    fn search_expressible(
        &mut self,
        frame: usize,
        joint: usize,
        judge: &Judge,
        violation: f32,
    ) -> f32 {
        let at = frame * self.channel_count() + self.first_channel(joint);
        let rotation_slots: Vec<usize> = self.channels[joint]
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c, Channel::Rotation(_)))
            .map(|(k, _)| at + k)
            .collect();
        if rotation_slots.is_empty() || rotation_slots.len() > 2 {
            return violation;
        }
        let slots = rotation_slots.as_slice();
        let wanted = judge.limit(self.transform(frame, joint).0);
        let kept = self.values[at..at + self.channels[joint].len()].to_vec();
        // Angles of channels past the first one or two stay 0 and unused.
        let n = slots.len();
        let steps = (360.0 / GRID_STEP_DEGREES) as usize;
        let grid_angle = |index: usize| -180.0 + (index % steps) as f32 * GRID_STEP_DEGREES;
        let mut nearest_allowed: Option<(f32, [f32; 2])> = None;
        let mut least_outside = (f32::INFINITY, [0.0; 2]);
        for k in 0..steps.pow(n as u32) {
            let angles = [grid_angle(k), grid_angle(k / steps)];
            let (rotation, outside_by) = self.express(frame, joint, slots, angles, judge);
            if outside_by > 0.0 {
                if outside_by < least_outside.0 {
                    least_outside = (outside_by, angles);
                }
                continue;
            }
            let distance = rotation.angle_between(wanted);
            if nearest_allowed.is_none_or(|b| distance < b.0) {
                nearest_allowed = Some((distance, angles));
            }
        }
        let start = match nearest_allowed {
            Some(found) => found,
            None => {
                let (least, angles) = self.pattern_search(least_outside, n, |this, trial| {
                    Some(this.express(frame, joint, slots, trial, judge).1)
                });
                if least > 0.0 {
                    if least < violation {
                        self.set_angles(slots, angles);
                        return judge.violation(self.transform(frame, joint).0);
                    }
                    self.values[at..at + kept.len()].copy_from_slice(&kept);
                    return violation;
                }
                let rotation = self.express(frame, joint, slots, angles, judge).0;
                (rotation.angle_between(wanted), angles)
            }
        };
        let (_, angles) = self.pattern_search(start, n, |this, trial| {
            let (rotation, outside_by) = this.express(frame, joint, slots, trial, judge);
            (outside_by == 0.0).then(|| rotation.angle_between(wanted))
        });
        self.set_angles(slots, angles);
        judge.violation(self.transform(frame, joint).0)
    }

    /// From `start` (a value and the first `n` angles, degrees), a pattern search lowering
    /// `value` (`None`: not acceptable), halving its step from half the grid's down to f32's
    /// resolution of the angles. Returns the lowest value found and its angles.
    fn pattern_search(
        &mut self,
        start: (f32, [f32; 2]),
        n: usize,
        mut value: impl FnMut(&mut Self, [f32; 2]) -> Option<f32>,
    ) -> (f32, [f32; 2]) {
        let (mut best, mut angles) = start;
        let mut step = GRID_STEP_DEGREES / 2.0;
        while step > 1e-4 {
            let mut improved = false;
            for k in 0..n {
                for sign in [-1.0, 1.0] {
                    let mut trial = angles;
                    trial[k] += sign * step;
                    if let Some(v) = value(self, trial)
                        && v < best
                    {
                        (best, angles, improved) = (v, trial, true);
                    }
                }
            }
            if !improved {
                step /= 2.0;
            }
        }
        (best, angles)
    }

    /// Sets the rotation channels at `slots` to the first angles of `angles` (degrees).
    fn set_angles(&mut self, slots: &[usize], angles: [f32; 2]) {
        for (&slot, &angle) in slots.iter().zip(&angles) {
            self.values[slot] = angle;
        }
    }

    /// With the rotation channels at `slots` set to `angles`: the rotation they express, read
    /// back as a reader will, and its violation.
    fn express(
        &mut self,
        frame: usize,
        joint: usize,
        slots: &[usize],
        angles: [f32; 2],
        judge: &Judge,
    ) -> (Quat, f32) {
        self.set_angles(slots, angles);
        let rotation = self.transform(frame, joint).0;
        (rotation, judge.violation(rotation))
    }
}
