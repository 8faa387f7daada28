//! Changing a file's motion while keeping everything that did not change: per-joint rotation and
//! translation access, and [`Bvh::with_motion`].

use super::{Bvh, BvhError, Channel, angles};
use glam::{Quat, Vec3};
use jointlimits::{Axis, Motion};

/// Largest angle (radians, 1e-3°) between a rotation and what a joint's channels can express for
/// it, when a whole motion is written.
const EXPRESSIBLE_ROTATION_TOLERANCE: f64 = 1e-3 * std::f64::consts::PI / 180.0;
/// Largest difference (file units) between a fixed translation and the skeleton's offset.
const FIXED_TRANSLATION_TOLERANCE: f32 = 1e-4;

impl Bvh {
    /// The index of joint `joint`'s first channel within a frame.
    pub(super) fn first_channel(&self, joint: usize) -> usize {
        self.channels[..joint].iter().map(Vec::len).sum()
    }

    /// The values of joint `joint` in frame `frame`, starting at value index `at`.
    fn joint_values(&self, joint: usize, at: usize) -> &[f32] {
        &self.values[at..at + self.channels[joint].len()]
    }

    /// Joint `joint`'s local rotation and translation in frame `frame`, as a reader decodes them.
    ///
    /// # Panics
    /// If the frame or joint does not exist.
    pub fn transform(&self, frame: usize, joint: usize) -> (Quat, Vec3) {
        let at = frame * self.channel_count() + self.first_channel(joint);
        let offset = self.skeleton.joints()[joint].offset;
        angles::decode(&self.channels[joint], self.joint_values(joint, at), offset)
    }

    /// Sets joint `joint`'s rotation in frame `frame` and returns the rotation as it will read
    /// back.
    ///
    /// Of the angles that express `rotation` the writer takes those nearest the frame's current
    /// angles, so a curve keeps its branch and turn. A joint with fewer than three rotation
    /// channels gets the nearest rotation its channels can express (the returned value says
    /// which); one with none keeps the identity.
    ///
    /// # Errors
    /// A rotation that is not finite, naming joint and frame.
    ///
    /// # Panics
    /// If the frame or joint does not exist.
    pub fn set_rotation(
        &mut self,
        frame: usize,
        joint: usize,
        rotation: Quat,
    ) -> Result<Quat, BvhError> {
        let at = frame * self.channel_count() + self.first_channel(joint);
        let axes = angles::rotation_axes(&self.channels[joint]);
        let near = angles::rotation_angles(&self.channels[joint], self.joint_values(joint, at));
        self.encode_rotation((frame, joint, at), &axes, rotation, Some(&near), false)?;
        Ok(self.transform(frame, joint).0)
    }

    /// A copy whose motion is `motion` (one rotation and translation per joint and frame, as from
    /// [`Bvh::to_motion`]), changing only what differs.
    ///
    /// A joint whose rotation and translation in a frame are bit for bit what this file decodes
    /// to keeps its values, and so its text when written. A changed rotation takes the Euler
    /// angles nearest that frame's own angles. A motion with another frame count is written from
    /// scratch ([`Bvh::from_motion`]).
    ///
    /// # Errors
    /// Joint counts that differ, or a rotation or translation the joint's channels cannot express,
    /// naming joint and frame.
    pub fn with_motion(&self, motion: &Motion) -> Result<Bvh, BvhError> {
        self.with_motion_expressing(motion, |_| true)
    }

    /// [`Bvh::with_motion`], where a changed rotation of a joint for which `strict(joint)` is
    /// false is written as the nearest rotation its channels can express instead of an error.
    pub(super) fn with_motion_expressing(
        &self,
        motion: &Motion,
        strict: impl Fn(usize) -> bool,
    ) -> Result<Bvh, BvhError> {
        let joint_count = self.skeleton.len();
        if motion.joint_count != joint_count {
            return Err(BvhError::JointCountMismatch {
                skeleton: joint_count,
                channels: self.channels.len(),
                motion: motion.joint_count,
            });
        }
        if motion.frame_count() != self.frame_count() {
            return Bvh::from_motion(&self.skeleton, &self.channels, motion);
        }
        let mut bvh = self.clone();
        bvh.frame_time = motion.frame_time;
        let channel_count = self.channel_count();
        let first = self.first_channels();
        let axes: Vec<Vec<Axis>> = self
            .channels
            .iter()
            .map(|c| angles::rotation_axes(c))
            .collect();
        for frame in 0..motion.frame_count() {
            let rotations = motion.frame_rotations(frame);
            let translations = motion.frame_translations(frame);
            for joint in 0..joint_count {
                let at = frame * channel_count + first[joint];
                let offset = self.skeleton.joints()[joint].offset;
                let values = self.joint_values(joint, at);
                let (rotation, translation) = angles::decode(&self.channels[joint], values, offset);
                if !same_bits(rotation.to_array(), rotations[joint].to_array()) {
                    let near = angles::rotation_angles(&self.channels[joint], values);
                    let place = (frame, joint, at);
                    bvh.encode_rotation(
                        place,
                        &axes[joint],
                        rotations[joint],
                        Some(&near),
                        strict(joint),
                    )?;
                }
                if !same_bits(translation.to_array(), translations[joint].to_array()) {
                    bvh.encode_translation((frame, joint, at), translations[joint])?;
                }
            }
        }
        Ok(bvh)
    }

    /// Writes the angles for `rotation` nearest `near` into the rotation channels of the joint
    /// whose values start at `at`, and returns them (radians). A rotation that the channels cannot
    /// express within [`EXPRESSIBLE_ROTATION_TOLERANCE`] is an error when `strict` (a motion
    /// written as given), and otherwise written as the nearest rotation they can express.
    pub(super) fn encode_rotation(
        &mut self,
        place: (usize, usize, usize),
        axes: &[Axis],
        rotation: Quat,
        near: Option<&[f64]>,
        strict: bool,
    ) -> Result<Vec<f64>, BvhError> {
        let (frame, joint, at) = place;
        if !rotation.is_finite() || rotation.length_squared() < 0.5 {
            return Err(self.not_representable(
                joint,
                frame,
                format!("the rotation {rotation} is not a finite unit quaternion"),
            ));
        }
        let (angles, residual) = angles::encode(axes, rotation, near);
        if strict && residual > EXPRESSIBLE_ROTATION_TOLERANCE {
            return Err(self.not_representable(
                joint,
                frame,
                format!(
                    "the rotation needs {:.4}° about an axis the joint has no channel for",
                    residual.to_degrees()
                ),
            ));
        }
        let degrees: Vec<f32> = angles.iter().map(|a| a.to_degrees() as f32).collect();
        if let Some(bad) = degrees.iter().find(|d| !d.is_finite()) {
            let problem = format!("an angle of {bad}° cannot be written");
            return Err(self.not_representable(joint, frame, problem));
        }
        let mut next = degrees.iter();
        for (channel, value) in self.channels[joint].iter().zip(&mut self.values[at..]) {
            if let Channel::Rotation(_) = channel {
                *value = *next.next().expect("one angle per rotation channel");
            }
        }
        Ok(angles)
    }

    fn not_representable(&self, joint: usize, frame: usize, problem: String) -> BvhError {
        BvhError::NotRepresentable {
            joint: self.skeleton.joints()[joint].name.clone(),
            frame,
            problem,
        }
    }

    /// Writes `translation` into the position channels of the joint whose values start at `at`;
    /// a component without a channel must equal the offset.
    pub(super) fn encode_translation(
        &mut self,
        place: (usize, usize, usize),
        translation: Vec3,
    ) -> Result<(), BvhError> {
        let (frame, joint, at) = place;
        let problem = |problem: String| self.not_representable(joint, frame, problem);
        if !translation.is_finite() {
            return Err(problem(format!(
                "the translation {translation} is not finite"
            )));
        }
        let offset = self.skeleton.joints()[joint].offset;
        for axis in [Axis::X, Axis::Y, Axis::Z] {
            let animated = self.channels[joint].contains(&Channel::Position(axis));
            let difference = (translation[axis.index()] - offset[axis.index()]).abs();
            if !animated && difference > FIXED_TRANSLATION_TOLERANCE {
                return Err(problem(format!(
                    "the translation moves {difference} along {axis}, which has no position channel"
                )));
            }
        }
        for (channel, value) in self.channels[joint].iter().zip(&mut self.values[at..]) {
            if let Channel::Position(axis) = channel {
                *value = translation[axis.index()];
            }
        }
        Ok(())
    }
}

/// Whether two value arrays are identical bit for bit (so `-0.0 ≠ 0.0`: a change is a change).
fn same_bits<const N: usize>(a: [f32; N], b: [f32; N]) -> bool {
    a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits())
}
