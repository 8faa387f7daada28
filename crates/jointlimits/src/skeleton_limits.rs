//! The limits of a whole skeleton, keyed by joint name: what a limits file holds.

use serde::{Deserialize, Serialize};

use crate::crowd::Crowd;
use crate::fit::FitOptions;
use crate::joint_limit::JointLimit;
use crate::limiter::Limiter;
use crate::skeleton::Skeleton;
use crate::skeleton_record::{SkeletonDifference, SkeletonRecord};
use crate::validation::InvalidField;

/// The format name written into every limits file.
pub const FORMAT_NAME: &str = "jointlimits";
/// The limits file version this library reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// Rotation limits for the joints of a skeleton. Joints without an entry are unlimited.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SkeletonLimits {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    /// Always [`FORMAT_VERSION`] for limits this library made.
    pub version: u32,
    /// How the limits were fitted, when they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fitted_with: Option<FitOptions>,
    /// The joints fitted otherwise than `fitted_with` says (a configuration's per-joint choices,
    /// or the margin and share held that `fit --accept` chose), each with what it was fitted
    /// with: enough to fit that joint again alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fitted_joints: Vec<JointFitRecord>,
    /// The skeleton the limits were made for, when recorded (files that `fit` writes record it;
    /// hand-written files may leave it out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<SkeletonRecord>,
    /// One limit per limited joint.
    pub joints: Vec<JointLimit>,
}

/// How one joint was fitted, where that differs from the file's `fitted_with`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointFitRecord {
    /// The joint.
    pub joint: String,
    /// The options its limit was fitted with (for a calibrated joint: the padding and share
    /// held the calibration chose).
    pub options: FitOptions,
    /// The share of unseen frames its margin was calibrated to accept (`fit --accept`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub accept: Option<f64>,
    /// Margins grown side by side beyond `options.padding` (radians), when the calibration
    /// chose them ([`crate::fit::calibrate::JointCalibration::directed_margins`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub directed_margins: Vec<f64>,
}

/// Why limits cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LimitsError {
    /// The `format` field names another format.
    #[error("not a jointlimits file: format is {found:?}, expected {FORMAT_NAME:?}")]
    WrongFormat {
        /// The format found.
        found: String,
    },
    /// The file says no version.
    #[error(
        "no `version` field (this build reads version {FORMAT_VERSION}, written as \"version\": {FORMAT_VERSION})"
    )]
    NoVersion,
    /// The version is not one this library reads.
    #[error("unsupported limits file version {found} (this build reads version {FORMAT_VERSION})")]
    UnsupportedVersion {
        /// The version found.
        found: u32,
    },
    /// A joint's limit holds a value its kind cannot use.
    #[error("joint {joint:?}: {source}")]
    InvalidField {
        /// The joint.
        joint: String,
        /// The field and the problem.
        source: InvalidField,
    },
    /// Two entries for one joint.
    #[error("joint {joint:?} is limited twice")]
    DuplicateJoint {
        /// The joint.
        joint: String,
    },
    /// The skeleton lacks joints that the limits name.
    #[error("the skeleton has no joint named {}", quoted(.missing))]
    MissingJoints {
        /// The names not found.
        missing: Vec<String>,
    },
}

fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl SkeletonLimits {
    /// Limits in the current format and version.
    pub fn new(joints: Vec<JointLimit>, fitted_with: Option<FitOptions>) -> SkeletonLimits {
        SkeletonLimits {
            format: FORMAT_NAME.to_string(),
            version: FORMAT_VERSION,
            fitted_with,
            fitted_joints: Vec::new(),
            skeleton: None,
            joints,
        }
    }

    /// The same limits, recording `skeleton` as the one they were made for.
    pub fn for_skeleton(mut self, skeleton: &Skeleton) -> SkeletonLimits {
        self.skeleton = Some(SkeletonRecord::of(skeleton));
        self
    }

    /// How `skeleton` differs from the one the limits were made for (empty when it is the same,
    /// or when none was recorded).
    pub fn skeleton_differences(&self, skeleton: &Skeleton) -> Vec<SkeletonDifference> {
        self.skeleton
            .as_ref()
            .map_or_else(Vec::new, |record| record.differences(skeleton))
    }

    /// Checks the format, version, numbers and joint names.
    pub fn validate(&self) -> Result<(), LimitsError> {
        if self.format != FORMAT_NAME {
            return Err(LimitsError::WrongFormat {
                found: self.format.clone(),
            });
        }
        if self.version != FORMAT_VERSION {
            return Err(LimitsError::UnsupportedVersion {
                found: self.version,
            });
        }
        if let Some(Err((joint, source))) = self.skeleton.as_ref().map(SkeletonRecord::validate) {
            return Err(LimitsError::InvalidField { joint, source });
        }
        let mut seen = std::collections::HashSet::new();
        for limit in &self.joints {
            limit
                .validate()
                .map_err(|source| LimitsError::InvalidField {
                    joint: limit.joint.clone(),
                    source,
                })?;
            if !seen.insert(limit.joint.as_str()) {
                return Err(LimitsError::DuplicateJoint {
                    joint: limit.joint.clone(),
                });
            }
        }
        Ok(())
    }

    /// The limit of the joint called `name`.
    pub fn find(&self, name: &str) -> Option<&JointLimit> {
        self.joints.iter().find(|l| l.joint == name)
    }

    /// Matches the limits to `skeleton` by joint name, giving a [`Limiter`] for its poses.
    /// Every limited joint must exist in the skeleton.
    pub fn bind(&self, skeleton: &Skeleton) -> Result<Limiter, LimitsError> {
        let parents = skeleton.joints().iter().map(|j| j.parent).collect();
        Ok(Limiter::new(self.per_joint(skeleton)?).with_parents(parents))
    }

    /// Matches the limits to `skeleton` by joint name, giving a [`Crowd`] of `characters`
    /// characters with that skeleton. Every limited joint must exist in the skeleton.
    pub fn bind_crowd(&self, skeleton: &Skeleton, characters: usize) -> Result<Crowd, LimitsError> {
        let parents: Vec<Option<usize>> = skeleton.joints().iter().map(|j| j.parent).collect();
        Ok(Crowd::new(self.per_joint(skeleton)?, characters).with_parents(&parents))
    }

    /// Each joint's limit in `skeleton`'s order, matched by name: validated, and every limited
    /// joint must exist in the skeleton.
    pub fn per_joint(&self, skeleton: &Skeleton) -> Result<Vec<Option<JointLimit>>, LimitsError> {
        self.validate()?;
        let missing: Vec<String> = self
            .joints
            .iter()
            .filter(|l| skeleton.find(&l.joint).is_none())
            .map(|l| l.joint.clone())
            .collect();
        if !missing.is_empty() {
            return Err(LimitsError::MissingJoints { missing });
        }
        let mut per_joint = vec![None; skeleton.len()];
        for limit in &self.joints {
            if let Some(index) = skeleton.find(&limit.joint) {
                per_joint[index] = Some(limit.clone());
            }
        }
        Ok(per_joint)
    }
}
