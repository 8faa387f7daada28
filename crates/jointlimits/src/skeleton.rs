//! Skeletons, poses and forward kinematics.
//!
//! A skeleton is a list of joints in which every parent comes before its children, so one pass in
//! index order visits parents first. Each joint's rotation is local (relative to its parent) and
//! its offset is the bone from the parent's origin to this joint's origin, in the parent's frame.

use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// Bones shorter than this (in the skeleton's length unit) have no usable direction.
const ZERO_LENGTH: f32 = 1e-6;

/// One joint of a [`Skeleton`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Joint {
    /// The joint's name, unique within the skeleton.
    pub name: String,
    /// The index of the parent joint, `None` for a root. Always smaller than this joint's index.
    pub parent: Option<usize>,
    /// The translation from the parent's origin to this joint's origin, in the parent's frame
    /// (for a root, from the world origin).
    pub offset: Vec3,
    /// The end of a leaf bone (BVH's `End Site`), in this joint's frame, if the file gives one.
    pub end_site: Option<Vec3>,
    /// The joint's rotation in the reference (bind / rest) pose, local to its parent. Limits are
    /// defined on rotations relative to it. BVH skeletons rest at the identity.
    pub reference_rotation: Quat,
}

/// A hierarchy of joints, parents before children.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Skeleton {
    joints: Vec<Joint>,
}

/// Why a list of joints does not form a [`Skeleton`].
#[derive(Debug, Error, PartialEq)]
pub enum SkeletonError {
    /// A joint's parent index is not smaller than its own index.
    #[error("joint {index} ({name:?}) has parent {parent}, which does not come before it")]
    ParentAfterChild {
        /// The joint's index.
        index: usize,
        /// The joint's name.
        name: String,
        /// The offending parent index.
        parent: usize,
    },
    /// Two joints share a name.
    #[error("joint name {name:?} is used twice (joints {first} and {second})")]
    DuplicateName {
        /// The repeated name.
        name: String,
        /// The first joint with that name.
        first: usize,
        /// The second joint with that name.
        second: usize,
    },
    /// A joint's offset, end site or reference rotation is not finite.
    #[error("joint {index} ({name:?}) has a non-finite offset, end site or reference rotation")]
    NonFinite {
        /// The joint's index.
        index: usize,
        /// The joint's name.
        name: String,
    },
}

/// The local state of every joint in one frame: rotations relative to the parent and translations
/// from the parent (the skeleton's offsets unless the motion animates them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Local rotation of each joint.
    pub rotations: Vec<Quat>,
    /// Local translation of each joint.
    pub translations: Vec<Vec3>,
}

/// World-space transforms of every joint, the result of forward kinematics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GlobalPose {
    /// World rotation of each joint.
    pub rotations: Vec<Quat>,
    /// World position of each joint's origin.
    pub positions: Vec<Vec3>,
}

impl Skeleton {
    /// Builds a skeleton, checking that parents precede children, names are unique and all numbers
    /// are finite.
    pub fn new(joints: Vec<Joint>) -> Result<Skeleton, SkeletonError> {
        let mut names = std::collections::HashMap::with_capacity(joints.len());
        for (index, joint) in joints.iter().enumerate() {
            if let Some(parent) = joint.parent
                && parent >= index
            {
                return Err(SkeletonError::ParentAfterChild {
                    index,
                    name: joint.name.clone(),
                    parent,
                });
            }
            if let Some(first) = names.insert(joint.name.as_str(), index) {
                return Err(SkeletonError::DuplicateName {
                    name: joint.name.clone(),
                    first,
                    second: index,
                });
            }
            let end_finite = joint.end_site.is_none_or(|e| e.is_finite());
            if !joint.offset.is_finite() || !end_finite || !joint.reference_rotation.is_finite() {
                return Err(SkeletonError::NonFinite {
                    index,
                    name: joint.name.clone(),
                });
            }
        }
        Ok(Skeleton { joints })
    }

    /// The joints, parents first.
    pub fn joints(&self) -> &[Joint] {
        &self.joints
    }

    /// The number of joints.
    pub fn len(&self) -> usize {
        self.joints.len()
    }

    /// Whether the skeleton has no joints.
    pub fn is_empty(&self) -> bool {
        self.joints.is_empty()
    }

    /// The names of every joint but the root, in index order: the joints a fit gives limits
    /// (the root's rotation is the character's heading).
    pub fn names_below_root(&self) -> Vec<&str> {
        self.joints
            .iter()
            .filter(|joint| joint.parent.is_some())
            .map(|joint| joint.name.as_str())
            .collect()
    }

    /// The index of the joint called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|joint| joint.name == name)
    }

    /// The indices of the direct children of each joint, in index order.
    pub fn children(&self) -> Vec<Vec<usize>> {
        let mut children = vec![Vec::new(); self.joints.len()];
        for (index, joint) in self.joints.iter().enumerate() {
            if let Some(parent) = joint.parent {
                children[parent].push(index);
            }
        }
        children
    }

    /// The depth of each joint: 0 for roots, parent's depth + 1 otherwise.
    pub fn depths(&self) -> Vec<usize> {
        let mut depths = vec![0; self.joints.len()];
        for (index, joint) in self.joints.iter().enumerate() {
            if let Some(parent) = joint.parent {
                depths[index] = depths[parent] + 1;
            }
        }
        depths
    }

    /// The reference pose: every joint at its reference rotation and its offset.
    pub fn reference_pose(&self) -> Pose {
        Pose {
            rotations: self.joints.iter().map(|j| j.reference_rotation).collect(),
            translations: self.joints.iter().map(|j| j.offset).collect(),
        }
    }

    /// Forward kinematics: world rotations and positions of every joint for a local `pose`.
    ///
    /// `world_rot[j] = world_rot[parent] · local_rot[j]` and
    /// `world_pos[j] = world_pos[parent] + world_rot[parent] · local_translation[j]`.
    /// The pose must have one rotation and one translation per joint.
    pub fn forward_kinematics(&self, pose: &Pose) -> GlobalPose {
        let mut global = GlobalPose::default();
        self.forward_kinematics_into(pose, &mut global);
        global
    }

    /// [`Skeleton::forward_kinematics`] into existing storage, which is resized but, once large
    /// enough, never reallocated.
    pub fn forward_kinematics_into(&self, pose: &Pose, global: &mut GlobalPose) {
        let n = self.joints.len();
        assert!(
            pose.rotations.len() == n && pose.translations.len() == n,
            "pose has {} rotations and {} translations for a skeleton of {n} joints",
            pose.rotations.len(),
            pose.translations.len()
        );
        global.rotations.clear();
        global.positions.clear();
        for (index, joint) in self.joints.iter().enumerate() {
            let (rotation, position) = match joint.parent {
                None => (pose.rotations[index], pose.translations[index]),
                Some(parent) => {
                    let parent_rotation = global.rotations[parent];
                    (
                        parent_rotation * pose.rotations[index],
                        global.positions[parent] + parent_rotation * pose.translations[index],
                    )
                }
            };
            global.rotations.push(rotation);
            global.positions.push(position);
        }
    }

    /// The twist axis of every joint: the unit mean direction from the joint to its children (and
    /// its end site), in the joint's local frame at the reference pose.
    ///
    /// A child on a zero-length bone has no direction of its own; it lends the joint the directions
    /// of its own children instead (seen through the child's reference rotation). Joints with no
    /// usable direction (leaves without end sites, or children that cancel out) get `default_axis`.
    pub fn twist_axes(&self, default_axis: Vec3) -> Vec<Vec3> {
        let children = self.children();
        // Sum of unit directions to the children, computed leaves first so a zero-length child can
        // pass its own sum up.
        let mut direction_sums = vec![Vec3::ZERO; self.joints.len()];
        for index in (0..self.joints.len()).rev() {
            let joint = &self.joints[index];
            let mut sum = joint
                .end_site
                .and_then(|e| e.try_normalize())
                .unwrap_or(Vec3::ZERO);
            for &child in &children[index] {
                let child_joint = &self.joints[child];
                sum += if child_joint.offset.length() > ZERO_LENGTH {
                    child_joint.offset.normalize()
                } else {
                    (child_joint.reference_rotation * direction_sums[child])
                        .try_normalize()
                        .unwrap_or(Vec3::ZERO)
                };
            }
            direction_sums[index] = sum;
        }
        direction_sums
            .into_iter()
            .map(|sum| {
                if sum.length() > ZERO_LENGTH {
                    sum.normalize()
                } else {
                    default_axis
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn joint(name: &str, parent: Option<usize>, offset: Vec3) -> Joint {
        Joint {
            name: name.to_string(),
            parent,
            offset,
            end_site: None,
            reference_rotation: Quat::IDENTITY,
        }
    }

    fn arm() -> Skeleton {
        let mut hand = joint("hand", Some(2), Vec3::new(1.0, 0.0, 0.0));
        hand.end_site = Some(Vec3::new(0.2, 0.0, 0.0));
        Skeleton::new(vec![
            joint("root", None, Vec3::new(0.0, 1.0, 0.0)),
            joint("shoulder", Some(0), Vec3::ZERO),
            joint("elbow", Some(1), Vec3::new(1.0, 0.0, 0.0)),
            hand,
        ])
        .unwrap()
    }

    #[test]
    fn forward_kinematics_composes_parent_first() {
        let skeleton = arm();
        let mut pose = skeleton.reference_pose();
        pose.rotations[1] = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let global = skeleton.forward_kinematics(&pose);
        assert!(global.positions[2].abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-6));
        assert!(global.positions[3].abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-6));
    }

    #[test]
    fn twist_axes_look_through_zero_length_bones() {
        let skeleton = arm();
        let axes = skeleton.twist_axes(Vec3::Z);
        // The root's only child is on a zero-length bone; it sees through it to the elbow.
        assert!(axes[0].abs_diff_eq(Vec3::X, 1e-6));
        assert!(axes[1].abs_diff_eq(Vec3::X, 1e-6));
        assert!(
            axes[3].abs_diff_eq(Vec3::X, 1e-6),
            "end site gives the hand's axis"
        );
        let leaf = Skeleton::new(vec![joint("only", None, Vec3::ZERO)]).unwrap();
        assert_eq!(leaf.twist_axes(Vec3::Z), vec![Vec3::Z]);
    }

    #[test]
    fn invalid_skeletons_are_rejected_with_names() {
        let err = Skeleton::new(vec![joint("a", Some(0), Vec3::ZERO)]).unwrap_err();
        assert!(err.to_string().contains("\"a\""));
        let err = Skeleton::new(vec![
            joint("a", None, Vec3::ZERO),
            joint("a", Some(0), Vec3::ZERO),
        ])
        .unwrap_err();
        assert!(matches!(err, SkeletonError::DuplicateName { .. }));
        let err = Skeleton::new(vec![joint("a", None, Vec3::NAN)]).unwrap_err();
        assert!(matches!(err, SkeletonError::NonFinite { .. }));
    }

    #[test]
    fn children_and_depths() {
        let skeleton = arm();
        assert_eq!(skeleton.children(), vec![vec![1], vec![2], vec![3], vec![]]);
        assert_eq!(skeleton.depths(), vec![0, 1, 2, 3]);
        assert_eq!(skeleton.find("elbow"), Some(2));
    }
}
