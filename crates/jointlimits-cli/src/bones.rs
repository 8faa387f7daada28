//! The bone axis of every limited joint: the direction pictures and direction measures swing
//! around.

use glam::Vec3;
use jointlimits::measure::bone_axis;
use jointlimits::{Skeleton, SkeletonLimits};

/// Each limit's bone axis, in the order of `limits.joints`: the kind's own twist axis when it has
/// one, else the direction to the joint's children in `skeleton` (the clips' skeleton, end sites
/// included) or, without clips, in the skeleton the limits record; +Y when neither says.
pub fn bone_axes(limits: &SkeletonLimits, skeleton: Option<&Skeleton>) -> Vec<Vec3> {
    let from_skeleton = skeleton.map(|s| (s, s.twist_axes(Vec3::ZERO)));
    limits
        .joints
        .iter()
        .map(|limit| {
            let children = match &from_skeleton {
                Some((skeleton, axes)) => skeleton.find(&limit.joint).map(|j| axes[j]),
                None => recorded_children_direction(limits, &limit.joint),
            };
            bone_axis(limit, children.filter(|a| a.length() > 0.5))
        })
        .collect()
}

/// The mean direction to `joint`'s children in the skeleton the limits record, if any.
pub(crate) fn recorded_children_direction(limits: &SkeletonLimits, joint: &str) -> Option<Vec3> {
    let record = limits.skeleton.as_ref()?;
    let sum: Vec3 = record
        .joints
        .iter()
        .filter(|child| child.parent.as_deref() == Some(joint))
        .filter_map(|child| Vec3::from(child.offset).try_normalize())
        .sum();
    sum.try_normalize()
}
