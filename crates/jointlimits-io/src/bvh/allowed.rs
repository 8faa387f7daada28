//! Writing limited motion so that what a reader gets back is still allowed.
//!
//! A file holds each rotation as Euler angles rounded to f32 degrees, and a joint with fewer than
//! three rotation channels holds only some rotations. An allowed rotation written to a file can
//! therefore read back a hair outside its limit, and `check` on the written file would flag what
//! `apply` just fixed. [`Bvh::with_allowed_motion`] reads each changed rotation back as a reader
//! will, and while that is outside, projects it again and rewrites it: alternating between the
//! allowed set and what the channels can express.

use super::{Bvh, BvhError};
use glam::Quat;
use jointlimits::{JointLimit, Motion};

/// Most projections and rewrites of one rotation before the best one is kept.
const MAX_ROUNDS: usize = 8;

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
    /// Rotations that `motion` has outside (softened ones, joints without a limit) are written as
    /// they are.
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
        for frame in 0..motion.frame_count() {
            let wanted = motion.frame_rotations(frame);
            for (joint, limit) in limits.iter().enumerate() {
                let Some(limit) = limit else { continue };
                let written = bvh.transform(frame, joint).0;
                if written == wanted[joint]
                    || limit.contains(written)
                    || !limit.contains(wanted[joint])
                {
                    continue;
                }
                report.reprojected += 1;
                let violation = bvh.reproject(frame, joint, written, limit)?;
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
        limit: &JointLimit,
    ) -> Result<f32, BvhError> {
        let at = frame * self.channel_count() + self.first_channel(joint);
        let width = self.channels[joint].len();
        let mut best = (
            limit.violation(written),
            self.values[at..at + width].to_vec(),
        );
        for _ in 0..MAX_ROUNDS {
            written = self.set_rotation(frame, joint, limit.limit(written))?;
            let violation = limit.violation(written);
            if violation < best.0 {
                best = (violation, self.values[at..at + width].to_vec());
            }
            if violation == 0.0 {
                break;
            }
        }
        self.values[at..at + width].copy_from_slice(&best.1);
        Ok(best.0)
    }
}
