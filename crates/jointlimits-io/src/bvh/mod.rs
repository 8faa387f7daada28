//! BVH (Biovision Hierarchy) motion capture: reading, writing, and conversion to and from the
//! library's [`Skeleton`] and [`Motion`].
//!
//! A [`Bvh`] holds a file as it was written: the hierarchy, each joint's channel list, and every
//! motion value in its unit (degrees for rotations). [`Bvh::to_motion`] turns the channels into
//! quaternions with the BVH convention (rotation channels multiplied in the order listed);
//! [`Bvh::from_motion`] goes back, choosing Euler angles that continue smoothly from frame to frame.

mod allowed;
mod angles;
mod edit;
mod error;
mod parse;
mod source;
mod turns;
mod write;

pub use allowed::AllowedWrite;
pub use error::{BvhError, Problem};
pub use parse::{parse_bvh, parse_bvh_named, read_bvh_file};
pub use write::write_bvh_file;

use jointlimits::{Axis, Motion, Skeleton};
use source::SourceValues;
use std::fmt;
use std::sync::Arc;

/// One animated degree of freedom of a joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// Translation along an axis, in the file's length unit.
    Position(Axis),
    /// Rotation about an axis, in degrees in the file.
    Rotation(Axis),
}

impl Channel {
    /// Parses a BVH channel name such as `Zrotation` (letter case ignored).
    pub fn from_name(name: &str) -> Option<Channel> {
        let mut chars = name.chars();
        let axis = match chars.next()?.to_ascii_uppercase() {
            'X' => Axis::X,
            'Y' => Axis::Y,
            'Z' => Axis::Z,
            _ => return None,
        };
        let kind = chars.as_str();
        if kind.eq_ignore_ascii_case("position") {
            Some(Channel::Position(axis))
        } else if kind.eq_ignore_ascii_case("rotation") {
            Some(Channel::Rotation(axis))
        } else {
            None
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Position(axis) => write!(f, "{axis}position"),
            Channel::Rotation(axis) => write!(f, "{axis}rotation"),
        }
    }
}

/// A BVH file: skeleton, per-joint channels and the raw motion values.
///
/// A file that was read remembers the text of every motion value, so that values nobody changed
/// are written back exactly as they were read (see [`Bvh::write`]). Equality compares the
/// content, not that memory.
#[derive(Clone, Debug)]
pub struct Bvh {
    /// The hierarchy. BVH skeletons rest at the identity rotation.
    pub skeleton: Skeleton,
    /// The channels of each joint, in file order.
    pub channels: Vec<Vec<Channel>>,
    /// Seconds per frame, as in the `Frame Time:` line.
    pub frame_time: f64,
    /// Every channel value of every frame, frame-major (`frame * channel_count + channel`), in the
    /// file's units: degrees for rotations.
    pub values: Vec<f32>,
    /// The source text of `values`, for a file that was read.
    source: Option<Arc<SourceValues>>,
}

impl PartialEq for Bvh {
    fn eq(&self, other: &Bvh) -> bool {
        self.skeleton == other.skeleton
            && self.channels == other.channels
            && self.frame_time == other.frame_time
            && self.values == other.values
    }
}

impl Bvh {
    /// The number of channels in one frame.
    pub fn channel_count(&self) -> usize {
        self.channels.iter().map(Vec::len).sum()
    }

    /// The number of frames.
    pub fn frame_count(&self) -> usize {
        self.values
            .len()
            .checked_div(self.channel_count())
            .unwrap_or(0)
    }

    /// The index of each joint's first channel within a frame.
    pub fn first_channels(&self) -> Vec<usize> {
        self.channels
            .iter()
            .scan(0, |next, channels| {
                let first = *next;
                *next += channels.len();
                Some(first)
            })
            .collect()
    }

    /// The motion as local quaternions and translations.
    ///
    /// A joint's rotation is the product of its rotation channels in the order listed,
    /// `R = R_1(v_1) · R_2(v_2) · …`; its translation is its offset with each position channel
    /// replacing one component.
    pub fn to_motion(&self) -> Motion {
        let joint_count = self.skeleton.len();
        let frames = self.frame_count();
        let channel_count = self.channel_count();
        let first = self.first_channels();
        let mut rotations = Vec::with_capacity(frames * joint_count);
        let mut translations = Vec::with_capacity(frames * joint_count);
        for frame_values in self.values.chunks_exact(channel_count.max(1)).take(frames) {
            for (joint_index, joint) in self.skeleton.joints().iter().enumerate() {
                let values = &frame_values[first[joint_index]..];
                let (rotation, translation) =
                    angles::decode(&self.channels[joint_index], values, joint.offset);
                rotations.push(rotation);
                translations.push(translation);
            }
        }
        Motion {
            frame_time: self.frame_time,
            joint_count,
            rotations,
            translations,
        }
    }

    /// Builds BVH data for `motion` on `skeleton`, with `channels` per joint (for example those of
    /// the file the motion came from), from scratch. To change a file that was read, use
    /// [`Bvh::with_motion`], which keeps what did not change.
    ///
    /// Rotations are decomposed into the joint's rotation channels as Euler angles in degrees; of
    /// the equivalent angle triples, each frame takes the one nearest the previous frame's, so
    /// curves stay continuous. A rotation or translation that the channels cannot express (a joint
    /// with no rotation channels that the motion rotates, say) is an error naming joint and frame.
    pub fn from_motion(
        skeleton: &Skeleton,
        channels: &[Vec<Channel>],
        motion: &Motion,
    ) -> Result<Bvh, BvhError> {
        let joint_count = skeleton.len();
        if channels.len() != joint_count || motion.joint_count != joint_count {
            return Err(BvhError::JointCountMismatch {
                skeleton: joint_count,
                channels: channels.len(),
                motion: motion.joint_count,
            });
        }
        let frames = motion.frame_count();
        let channel_count: usize = channels.iter().map(Vec::len).sum();
        let mut bvh = Bvh {
            skeleton: skeleton.clone(),
            channels: channels.to_vec(),
            frame_time: motion.frame_time,
            values: Vec::with_capacity(frames * channel_count),
            source: None,
        };
        let first = bvh.first_channels();
        let axes: Vec<Vec<Axis>> = channels.iter().map(|c| angles::rotation_axes(c)).collect();
        let mut previous_angles: Vec<Option<Vec<f64>>> = vec![None; joint_count];
        for frame in 0..frames {
            let rotations = motion.frame_rotations(frame);
            let translations = motion.frame_translations(frame);
            for (joint, joint_channels) in channels.iter().enumerate() {
                // Start from the offset and no rotation, then set what the motion asks for.
                for channel in joint_channels {
                    bvh.values.push(match channel {
                        Channel::Position(axis) => skeleton.joints()[joint].offset[axis.index()],
                        Channel::Rotation(_) => 0.0,
                    });
                }
                let at = frame * channel_count + first[joint];
                let near = previous_angles[joint].as_deref();
                let place = (frame, joint, at);
                let angles =
                    bvh.encode_rotation(place, &axes[joint], rotations[joint], near, true)?;
                previous_angles[joint] = Some(angles);
                bvh.encode_translation(place, translations[joint])?;
            }
        }
        Ok(bvh)
    }
}
