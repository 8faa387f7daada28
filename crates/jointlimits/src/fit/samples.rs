//! Sample preparation: a joint's rotations from many clips, made relative to a reference and
//! unrolled per clip.

use glam::Quat;
use serde::{Deserialize, Serialize};

use crate::motion::Motion;
use crate::rotation::unroll;

/// The rotation a joint's limits are measured from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ReferenceChoice {
    /// The skeleton's bind (rest) rotation of the joint.
    #[default]
    Bind,
    /// The joint's rotation at this frame of the first clip (for example a T-pose frame 0).
    Frame(usize),
    /// The mean of the joint's rotations over every fitted frame.
    Mean,
}

impl std::str::FromStr for ReferenceChoice {
    type Err = String;

    /// Parses `bind`, `mean` or `frame:N`.
    fn from_str(text: &str) -> Result<ReferenceChoice, String> {
        match text {
            "bind" => Ok(ReferenceChoice::Bind),
            "mean" => Ok(ReferenceChoice::Mean),
            _ => text
                .strip_prefix("frame:")
                .and_then(|n| n.parse().ok())
                .map(ReferenceChoice::Frame)
                .ok_or_else(|| format!("expected bind, mean or frame:N, found {text:?}")),
        }
    }
}

/// Why samples could not be prepared.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SampleError {
    /// Skipping frames left nothing to fit.
    #[error("no frames left to fit after skipping {skip} frame(s) of every clip")]
    NoFrames {
        /// Frames skipped per clip.
        skip: usize,
    },
    /// The reference frame is past the end of the first clip.
    #[error("reference frame {frame} is past the end of the first clip ({frames} frames)")]
    ReferenceFrameOutOfRange {
        /// The requested frame.
        frame: usize,
        /// The first clip's length.
        frames: usize,
    },
    /// A clip has a different joint count from the skeleton.
    #[error("clip {clip} has {found} joints, the skeleton {expected}")]
    JointCount {
        /// Index of the clip.
        clip: usize,
        /// Joints in the clip.
        found: usize,
        /// Joints in the skeleton.
        expected: usize,
    },
}

/// The reference rotation of `joint` under `choice`, given its bind rotation.
pub fn reference_rotation(
    choice: ReferenceChoice,
    joint: usize,
    bind: Quat,
    clips: &[&Motion],
    skip_frames: usize,
) -> Result<Quat, SampleError> {
    match choice {
        ReferenceChoice::Bind => Ok(bind),
        ReferenceChoice::Frame(frame) => {
            let first = clips.first().map_or(0, |c| c.frame_count());
            if frame >= first {
                return Err(SampleError::ReferenceFrameOutOfRange {
                    frame,
                    frames: first,
                });
            }
            Ok(clips[0].frame_rotations(frame)[joint].normalize())
        }
        ReferenceChoice::Mean => {
            let rotations: Vec<Quat> = clips
                .iter()
                .flat_map(|c| (skip_frames..c.frame_count()).map(|f| c.frame_rotations(f)[joint]))
                .collect();
            mean_rotation(&rotations).ok_or(SampleError::NoFrames { skip: skip_frames })
        }
    }
}

/// The chordal mean of rotations: the normalised sum after aligning every sample's cover with the
/// running estimate (three refinement rounds suffice for data spread less than a half turn).
pub fn mean_rotation(rotations: &[Quat]) -> Option<Quat> {
    let mut mean = *rotations.first()?;
    for _ in 0..3 {
        let sum = rotations.iter().fold(glam::DVec4::ZERO, |acc, &q| {
            let q = if q.dot(mean) < 0.0 { -q } else { q };
            acc + glam::Vec4::from(q).as_dvec4()
        });
        let length = sum.length();
        if length.is_nan() || length <= 1e-12 {
            break;
        }
        mean = Quat::from_vec4((sum / length).as_vec4());
    }
    Some(mean.normalize())
}

/// `reference⁻¹ · q` for every frame of every clip from `skip_frames` on, each clip unrolled
/// separately (its first sample the short way). Returns one vector per clip.
pub fn relative_rotations(
    joint: usize,
    reference: Quat,
    clips: &[&Motion],
    skip_frames: usize,
) -> Vec<Vec<Quat>> {
    let inverse = reference.conjugate();
    clips
        .iter()
        .map(|clip| {
            let mut relative: Vec<Quat> = (skip_frames..clip.frame_count())
                .map(|f| inverse * clip.frame_rotations(f)[joint])
                .collect();
            unroll(&mut relative);
            relative
        })
        .collect()
}
