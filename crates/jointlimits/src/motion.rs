//! Motion: a clip of poses sampled at a fixed frame time.

use crate::skeleton::{Pose, Skeleton};
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// A clip of local joint rotations and translations, stored frame-major
/// (`index = frame * joint_count + joint`) so that one frame is one contiguous slice.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Motion {
    /// Seconds between consecutive frames.
    pub frame_time: f64,
    /// The number of joints in each frame.
    pub joint_count: usize,
    /// Local rotation of every joint in every frame, `frames × joint_count`.
    pub rotations: Vec<Quat>,
    /// Local translation of every joint in every frame, `frames × joint_count`. For joints that
    /// the clip does not animate this is the skeleton's offset.
    pub translations: Vec<Vec3>,
}

impl Motion {
    /// The number of frames.
    pub fn frame_count(&self) -> usize {
        self.rotations
            .len()
            .checked_div(self.joint_count)
            .unwrap_or(0)
    }

    /// Frames per second, `1 / frame_time` (0 when the frame time is not positive).
    pub fn frame_rate(&self) -> f64 {
        if self.frame_time > 0.0 {
            1.0 / self.frame_time
        } else {
            0.0
        }
    }

    /// The local rotations of one frame.
    pub fn frame_rotations(&self, frame: usize) -> &[Quat] {
        let start = frame * self.joint_count;
        &self.rotations[start..start + self.joint_count]
    }

    /// The local translations of one frame.
    pub fn frame_translations(&self, frame: usize) -> &[Vec3] {
        let start = frame * self.joint_count;
        &self.translations[start..start + self.joint_count]
    }

    /// One frame as a [`Pose`].
    pub fn pose(&self, frame: usize) -> Pose {
        Pose {
            rotations: self.frame_rotations(frame).to_vec(),
            translations: self.frame_translations(frame).to_vec(),
        }
    }

    /// The rotations of one joint over all frames (a strided gather into a new sequence).
    pub fn joint_rotations(&self, joint: usize) -> Vec<Quat> {
        self.rotations
            .iter()
            .skip(joint)
            .step_by(self.joint_count.max(1))
            .copied()
            .collect()
    }

    /// The frames in `range` (clamped to the clip) as a clip of their own.
    pub fn frames(&self, range: std::ops::Range<usize>) -> Motion {
        let end = range.end.min(self.frame_count());
        let start = range.start.min(end);
        let span = start * self.joint_count..end * self.joint_count;
        Motion {
            frame_time: self.frame_time,
            joint_count: self.joint_count,
            rotations: self.rotations[span.clone()].to_vec(),
            translations: self.translations[span].to_vec(),
        }
    }

    /// A clip of `frames` copies of the skeleton's reference pose.
    pub fn still(skeleton: &Skeleton, frames: usize, frame_time: f64) -> Motion {
        let reference = skeleton.reference_pose();
        Motion {
            frame_time,
            joint_count: skeleton.len(),
            rotations: reference.rotations.repeat(frames),
            translations: reference.translations.repeat(frames),
        }
    }
}
