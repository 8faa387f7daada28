//! The skeleton a limits file was made for, so that limits are not applied to another skeleton
//! whose joints merely share names (another subject, another rig, another export).
//!
//! A rotation limit is measured in its joint's frame, which the rig's rest pose defines: the same
//! numbers on a skeleton whose bones point elsewhere mean different poses. Bone lengths vary
//! between performers of one rig too, but then so do the directions (a different body), so every
//! difference in names, parents or offsets is reported.

use serde::{Deserialize, Serialize};

use glam::Vec3;

use crate::skeleton::Skeleton;
use crate::validation::InvalidField;

/// The largest offset component a record may hold, in file units: beyond any skeleton in any
/// unit.
pub const MAX_OFFSET: f32 = 1e9;

/// How far two offsets may differ and still count as the same, relative to the longer one:
/// what rounding to five decimals in a file leaves.
pub const OFFSET_TOLERANCE: f32 = 1e-4;

/// The joints of the skeleton limits were made for: names, parents and offsets, in order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkeletonRecord {
    /// Every joint, parents first.
    pub joints: Vec<RecordedJoint>,
}

/// One joint of a [`SkeletonRecord`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedJoint {
    /// The joint's name.
    pub name: String,
    /// The parent's name, `None` for a root.
    pub parent: Option<String>,
    /// The translation from the parent, in the parent's frame (file units).
    pub offset: [f32; 3],
}

/// One way a skeleton differs from a [`SkeletonRecord`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SkeletonDifference {
    /// A recorded joint the skeleton lacks.
    #[error("{joint:?} is missing")]
    Missing {
        /// The joint.
        joint: String,
    },
    /// A joint of the skeleton that was not recorded.
    #[error("{joint:?} was not in the fitted skeleton")]
    Added {
        /// The joint.
        joint: String,
    },
    /// A joint with another parent.
    #[error("{joint:?} hangs from {}, not {}", parent_name(.found), parent_name(.recorded))]
    Parent {
        /// The joint.
        joint: String,
        /// The recorded parent.
        recorded: Option<String>,
        /// The skeleton's parent.
        found: Option<String>,
    },
    /// A joint with another offset from its parent.
    #[error("{joint:?} has offset {found:?}, not {recorded:?}")]
    Offset {
        /// The joint.
        joint: String,
        /// The recorded offset.
        recorded: [f32; 3],
        /// The skeleton's offset.
        found: [f32; 3],
    },
}

impl SkeletonRecord {
    /// The record of `skeleton`.
    pub fn of(skeleton: &Skeleton) -> SkeletonRecord {
        let joints = skeleton.joints();
        SkeletonRecord {
            joints: joints
                .iter()
                .map(|joint| RecordedJoint {
                    name: joint.name.clone(),
                    parent: joint.parent.map(|p| joints[p].name.clone()),
                    offset: joint.offset.to_array(),
                })
                .collect(),
        }
    }

    /// A skeleton with the recorded names, parents and offsets (identity reference rotations, no
    /// end sites): enough to find left/right partners and the sagittal plane.
    pub fn to_skeleton(&self) -> Result<Skeleton, crate::skeleton::SkeletonError> {
        let joints = self
            .joints
            .iter()
            .map(|joint| crate::skeleton::Joint {
                name: joint.name.clone(),
                parent: joint
                    .parent
                    .as_ref()
                    .and_then(|parent| self.joints.iter().position(|j| &j.name == parent)),
                offset: Vec3::from_array(joint.offset),
                end_site: None,
                reference_rotation: glam::Quat::IDENTITY,
            })
            .collect();
        Skeleton::new(joints)
    }

    /// Every way `skeleton` differs from the record, in the record's joint order (joints only the
    /// skeleton has come last); empty when it is the same skeleton.
    pub fn differences(&self, skeleton: &Skeleton) -> Vec<SkeletonDifference> {
        let mut differences = Vec::new();
        let found = SkeletonRecord::of(skeleton);
        for recorded in &self.joints {
            let Some(joint) = found.joints.iter().find(|j| j.name == recorded.name) else {
                differences.push(SkeletonDifference::Missing {
                    joint: recorded.name.clone(),
                });
                continue;
            };
            if joint.parent != recorded.parent {
                differences.push(SkeletonDifference::Parent {
                    joint: recorded.name.clone(),
                    recorded: recorded.parent.clone(),
                    found: joint.parent.clone(),
                });
            }
            if !same_offset(recorded.offset, joint.offset) {
                differences.push(SkeletonDifference::Offset {
                    joint: recorded.name.clone(),
                    recorded: recorded.offset,
                    found: joint.offset,
                });
            }
        }
        for joint in &found.joints {
            if !self.joints.iter().any(|r| r.name == joint.name) {
                differences.push(SkeletonDifference::Added {
                    joint: joint.name.clone(),
                });
            }
        }
        differences
    }

    /// Every offset finite and at most [`MAX_OFFSET`] long in each component, every name once,
    /// every parent an earlier joint; otherwise the joint and the problem.
    pub fn validate(&self) -> Result<(), (String, InvalidField)> {
        let mut seen = std::collections::HashSet::new();
        for (i, joint) in self.joints.iter().enumerate() {
            let fail = |field: &str, problem: String| {
                Err((
                    joint.name.clone(),
                    InvalidField::new(format!("skeleton.joints[{i}].{field}"), problem),
                ))
            };
            if let Some(c) = joint
                .offset
                .iter()
                .find(|c| !c.is_finite() || c.abs() > MAX_OFFSET)
            {
                return fail(
                    "offset",
                    format!("{c} is not a finite number within ±{MAX_OFFSET:e}"),
                );
            }
            if let Some(parent) = &joint.parent
                && !seen.contains(parent.as_str())
            {
                return fail("parent", format!("{parent:?} is not an earlier joint"));
            }
            if !seen.insert(joint.name.as_str()) {
                return fail("name", "names a joint twice".to_string());
            }
        }
        Ok(())
    }
}

/// `"name"`, or `no parent` for a root.
fn parent_name(parent: &Option<String>) -> String {
    parent
        .as_ref()
        .map_or_else(|| "no parent".to_string(), |p| format!("{p:?}"))
}

/// Offsets equal up to [`OFFSET_TOLERANCE`] of the longer one (and 1e-6 absolute), computed in
/// f64 so that no length overflows.
fn same_offset(a: [f32; 3], b: [f32; 3]) -> bool {
    let (a, b) = (
        glam::Vec3::from(a).as_dvec3(),
        glam::Vec3::from(b).as_dvec3(),
    );
    a.distance(b) <= f64::from(OFFSET_TOLERANCE) * a.length().max(b.length()) + 1e-6
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::Joint;
    use glam::{Quat, Vec3};

    fn skeleton(joints: &[(&str, Option<usize>, [f32; 3])]) -> Skeleton {
        Skeleton::new(
            joints
                .iter()
                .map(|&(name, parent, offset)| Joint {
                    name: name.to_string(),
                    parent,
                    offset: Vec3::from(offset),
                    end_site: None,
                    reference_rotation: Quat::IDENTITY,
                })
                .collect(),
        )
        .unwrap()
    }

    #[test]
    fn the_same_skeleton_has_no_differences() {
        let s = skeleton(&[
            ("hip", None, [0.0; 3]),
            ("knee", Some(0), [0.0, -40.0, 0.0]),
        ]);
        assert!(SkeletonRecord::of(&s).differences(&s).is_empty());
        let rounded = skeleton(&[
            ("hip", None, [0.0; 3]),
            ("knee", Some(0), [0.0, -40.001, 0.0]),
        ]);
        assert!(SkeletonRecord::of(&s).differences(&rounded).is_empty());
    }

    #[test]
    fn every_kind_of_difference_is_named() {
        let fitted = skeleton(&[
            ("hip", None, [0.0; 3]),
            ("knee", Some(0), [0.0, -40.0, 0.0]),
            ("ankle", Some(1), [0.0, -40.0, 0.0]),
            ("toe", Some(2), [0.0, 0.0, 10.0]),
        ]);
        let other = skeleton(&[
            ("hip", None, [0.0; 3]),
            ("knee", Some(0), [5.0, -40.0, 0.0]),
            ("ankle", Some(0), [0.0, -40.0, 0.0]),
            ("heel", Some(2), [0.0, 0.0, -5.0]),
        ]);
        let differences = SkeletonRecord::of(&fitted).differences(&other);
        let text: Vec<String> = differences.iter().map(ToString::to_string).collect();
        assert_eq!(
            text,
            [
                "\"knee\" has offset [5.0, -40.0, 0.0], not [0.0, -40.0, 0.0]",
                "\"ankle\" hangs from \"hip\", not \"knee\"",
                "\"toe\" is missing",
                "\"heel\" was not in the fitted skeleton",
            ]
        );
    }
}
