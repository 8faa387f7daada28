//! BVH (Biovision Hierarchy) motion capture: reading, writing, and conversion to and from the
//! library's [`Skeleton`] and [`Motion`].
//!
//! A [`Bvh`] holds a file as it was written: the hierarchy, each joint's channel list, and every
//! motion value in its unit (degrees for rotations). [`Bvh::to_motion`] turns the channels into
//! quaternions with the BVH convention (rotation channels multiplied in the order listed);
//! [`Bvh::from_motion`] goes back, choosing Euler angles that continue smoothly from frame to frame.

mod error;
mod parse;
mod write;

pub use error::{BvhError, Problem};
pub use parse::{parse_bvh, parse_bvh_named, read_bvh_file};
pub use write::write_bvh_file;

use glam::{DVec3, Quat, Vec3};
use jointlimits::{Axis, EulerOrder, Motion, Skeleton};
use std::f64::consts::{PI, TAU};
use std::fmt;

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
#[derive(Clone, Debug, PartialEq)]
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
                    joint_transform(&self.channels[joint_index], values, joint.offset);
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
    /// the file the motion came from).
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
        let mut values = Vec::with_capacity(frames * channel_count);
        let mut previous_angles = vec![None; joint_count];
        for frame in 0..frames {
            let rotations = motion.frame_rotations(frame);
            let translations = motion.frame_translations(frame);
            for (joint_index, joint) in skeleton.joints().iter().enumerate() {
                let not_representable = |problem: String| BvhError::NotRepresentable {
                    joint: joint.name.clone(),
                    frame,
                    problem,
                };
                let joint_channels = &channels[joint_index];
                let angles = euler_degrees(
                    joint_channels,
                    rotations[joint_index],
                    &mut previous_angles[joint_index],
                )
                .map_err(not_representable)?;
                let translation = translations[joint_index];
                check_translation(joint_channels, translation, joint.offset)
                    .map_err(not_representable)?;
                let mut next_angle = angles.iter();
                for channel in joint_channels {
                    values.push(match channel {
                        Channel::Position(axis) => translation[axis.index()],
                        Channel::Rotation(_) => next_angle.next().copied().unwrap_or(0.0) as f32,
                    });
                }
            }
        }
        Ok(Bvh {
            skeleton: skeleton.clone(),
            channels: channels.to_vec(),
            frame_time: motion.frame_time,
            values,
        })
    }
}

/// The local rotation and translation of one joint from its channel values.
fn joint_transform(channels: &[Channel], values: &[f32], offset: Vec3) -> (Quat, Vec3) {
    let mut translation = offset;
    let mut axes = [Axis::X; 3];
    let mut angles = [0.0f64; 3];
    let mut rotation_count = 0;
    for (channel, &value) in channels.iter().zip(values) {
        match *channel {
            Channel::Position(axis) => translation[axis.index()] = value,
            Channel::Rotation(axis) => {
                // The parser guarantees at most one channel per axis, so at most three.
                axes[rotation_count] = axis;
                angles[rotation_count] = f64::from(value).to_radians();
                rotation_count += 1;
            }
        }
    }
    let rotation = match EulerOrder::from_axes(axes).filter(|_| rotation_count == 3) {
        Some(order) => order.to_quat(DVec3::from(angles)),
        None => axes[..rotation_count]
            .iter()
            .zip(angles)
            .fold(glam::DQuat::IDENTITY, |q, (axis, angle)| {
                q * axis.rotation(angle)
            })
            .as_quat(),
    };
    (rotation, translation)
}

/// Largest angle (degrees) that a joint's missing rotation channels may be asked to hold.
const DROPPED_ANGLE_TOLERANCE_DEG: f64 = 1e-3;
/// Largest difference (file units) between a fixed translation and the skeleton's offset.
const FIXED_TRANSLATION_TOLERANCE: f32 = 1e-4;

/// The angles (degrees, channel order) of `rotation` for the joint's rotation channels, continuing
/// from the previous frame's angles.
fn euler_degrees(
    channels: &[Channel],
    rotation: Quat,
    previous: &mut Option<DVec3>,
) -> Result<Vec<f64>, String> {
    let axes: Vec<Axis> = channels
        .iter()
        .filter_map(|c| match c {
            Channel::Rotation(axis) => Some(*axis),
            Channel::Position(_) => None,
        })
        .collect();
    let Some(order) = EulerOrder::completing(&axes) else {
        return Err("rotation channels repeat an axis".to_string());
    };
    let raw = order.from_quat(rotation);
    let angles = match *previous {
        // Only a full triple may take the flipped solution: it moves every angle.
        Some(previous) => nearest_equivalent_angles(raw, previous, axes.len() == 3),
        None => raw,
    };
    *previous = Some(angles);
    let degrees = angles.to_array().map(f64::to_degrees);
    let dropped = degrees[axes.len()..]
        .iter()
        .fold(0.0f64, |worst, angle| worst.max(angle.abs()));
    if dropped > DROPPED_ANGLE_TOLERANCE_DEG {
        return Err(format!(
            "rotation needs {dropped:.4}° about an axis the joint has no channel for"
        ));
    }
    Ok(degrees[..axes.len()].to_vec())
}

/// Of the Euler triples that give the same rotation as `angles` — `(a, b, c)` and, if
/// `allow_flip`, `(a + π, π - b, c + π)`, each angle shifted by whole turns — the one nearest
/// `previous`.
fn nearest_equivalent_angles(angles: DVec3, previous: DVec3, allow_flip: bool) -> DVec3 {
    let wrap_near = |angle: f64, target: f64| angle + ((target - angle) / TAU).round() * TAU;
    let flipped = DVec3::new(angles.x + PI, PI - angles.y, angles.z + PI);
    let candidates = if allow_flip {
        vec![angles, flipped]
    } else {
        vec![angles]
    };
    candidates
        .into_iter()
        .map(|candidate| {
            DVec3::new(
                wrap_near(candidate.x, previous.x),
                wrap_near(candidate.y, previous.y),
                wrap_near(candidate.z, previous.z),
            )
        })
        .min_by(|p, q| {
            let dp = (*p - previous).abs().element_sum();
            let dq = (*q - previous).abs().element_sum();
            dp.total_cmp(&dq)
        })
        .unwrap_or(angles)
}

/// Checks that a translation differs from the offset only along axes that have position channels.
fn check_translation(channels: &[Channel], translation: Vec3, offset: Vec3) -> Result<(), String> {
    for axis in [Axis::X, Axis::Y, Axis::Z] {
        let animated = channels.contains(&Channel::Position(axis));
        let difference = (translation[axis.index()] - offset[axis.index()]).abs();
        if !animated && difference > FIXED_TRANSLATION_TOLERANCE {
            return Err(format!(
                "translation moves {difference} along {axis}, which has no position channel"
            ));
        }
    }
    Ok(())
}
