//! A built-in humanoid skeleton and a procedural range-of-motion clip, so that every tool has data
//! to work on without input files.
//!
//! The skeleton is Y-up, facing +Z, in a T-pose (arms along ±X), lengths in centimetres, 22 joints.
//! Each joint's local rotation is `Rz(z) · Rx(x) · Ry(y)` (BVH channel order `ZXY`), with the
//! angles kept inside typical adult active ranges of motion as tabulated by the American Academy
//! of Orthopaedic Surgeons (Greene & Heckman, *The Clinical Measurement of Joint Motion*, 1994),
//! mapped onto these local axes and, for the spine and neck, split between two joints. In the
//! T-pose the shoulder is already abducted 90°, so arm ranges are measured from there.

use crate::euler::EulerOrder;
use crate::motion::Motion;
use crate::skeleton::{Joint, Skeleton};
use glam::{DVec3, Quat, Vec3};
use std::f64::consts::TAU;

/// One joint of the built-in humanoid with its range of motion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HumanoidJoint {
    /// The joint's name (the same naming as the MotionBuilder-style CMU conversions).
    pub name: &'static str,
    /// The parent's name, `None` for the root.
    pub parent: Option<&'static str>,
    /// The bone from the parent, in centimetres.
    pub offset: [f32; 3],
    /// Allowed angle (degrees) about the local X, Y and Z axes: `[min, max]` each.
    pub range_deg: [[f32; 2]; 3],
}

const fn j(
    name: &'static str,
    parent: Option<&'static str>,
    offset: [f32; 3],
    x: [f32; 2],
    y: [f32; 2],
    z: [f32; 2],
) -> HumanoidJoint {
    HumanoidJoint {
        name,
        parent,
        offset,
        range_deg: [x, y, z],
    }
}

/// The built-in humanoid, parents first. Signs follow the local axes: for the legs, negative X is
/// hip flexion and positive X knee flexion; for the left arm (along +X), positive Z raises the arm
/// and negative Y swings it forward; the right side mirrors the left.
pub const HUMANOID: [HumanoidJoint; 21] = [
    j(
        "Hips",
        None,
        [0.0, 95.0, 0.0],
        [-15.0, 15.0],
        [-45.0, 45.0],
        [-15.0, 15.0],
    ),
    j(
        "Spine",
        Some("Hips"),
        [0.0, 10.0, 0.0],
        [-12.0, 40.0],
        [-22.0, 22.0],
        [-17.0, 17.0],
    ),
    j(
        "Chest",
        Some("Spine"),
        [0.0, 25.0, 0.0],
        [-12.0, 40.0],
        [-22.0, 22.0],
        [-17.0, 17.0],
    ),
    j(
        "Neck",
        Some("Chest"),
        [0.0, 18.0, 0.0],
        [-30.0, 25.0],
        [-40.0, 40.0],
        [-22.0, 22.0],
    ),
    j(
        "Head",
        Some("Neck"),
        [0.0, 10.0, 0.0],
        [-30.0, 25.0],
        [-40.0, 40.0],
        [-22.0, 22.0],
    ),
    j(
        "LeftShoulder",
        Some("Chest"),
        [3.0, 15.0, 0.0],
        [-10.0, 10.0],
        [-25.0, 15.0],
        [-10.0, 30.0],
    ),
    j(
        "LeftArm",
        Some("LeftShoulder"),
        [15.0, 0.0, 0.0],
        [-90.0, 70.0],
        [-130.0, 45.0],
        [-85.0, 90.0],
    ),
    j(
        "LeftForeArm",
        Some("LeftArm"),
        [28.0, 0.0, 0.0],
        [-80.0, 80.0],
        [-145.0, 0.0],
        [0.0, 0.0],
    ),
    j(
        "LeftHand",
        Some("LeftForeArm"),
        [25.0, 0.0, 0.0],
        [-10.0, 10.0],
        [-30.0, 20.0],
        [-80.0, 70.0],
    ),
    j(
        "RightShoulder",
        Some("Chest"),
        [-3.0, 15.0, 0.0],
        [-10.0, 10.0],
        [-15.0, 25.0],
        [-30.0, 10.0],
    ),
    j(
        "RightArm",
        Some("RightShoulder"),
        [-15.0, 0.0, 0.0],
        [-90.0, 70.0],
        [-45.0, 130.0],
        [-90.0, 85.0],
    ),
    j(
        "RightForeArm",
        Some("RightArm"),
        [-28.0, 0.0, 0.0],
        [-80.0, 80.0],
        [0.0, 145.0],
        [0.0, 0.0],
    ),
    j(
        "RightHand",
        Some("RightForeArm"),
        [-25.0, 0.0, 0.0],
        [-10.0, 10.0],
        [-20.0, 30.0],
        [-70.0, 80.0],
    ),
    j(
        "LeftUpLeg",
        Some("Hips"),
        [9.0, -5.0, 0.0],
        [-120.0, 30.0],
        [-45.0, 40.0],
        [-30.0, 45.0],
    ),
    j(
        "LeftLeg",
        Some("LeftUpLeg"),
        [0.0, -42.0, 0.0],
        [0.0, 140.0],
        [-10.0, 10.0],
        [0.0, 0.0],
    ),
    j(
        "LeftFoot",
        Some("LeftLeg"),
        [0.0, -40.0, 0.0],
        [-20.0, 50.0],
        [-15.0, 15.0],
        [-25.0, 25.0],
    ),
    j(
        "LeftToeBase",
        Some("LeftFoot"),
        [0.0, -6.0, 12.0],
        [-60.0, 35.0],
        [0.0, 0.0],
        [0.0, 0.0],
    ),
    j(
        "RightUpLeg",
        Some("Hips"),
        [-9.0, -5.0, 0.0],
        [-120.0, 30.0],
        [-40.0, 45.0],
        [-45.0, 30.0],
    ),
    j(
        "RightLeg",
        Some("RightUpLeg"),
        [0.0, -42.0, 0.0],
        [0.0, 140.0],
        [-10.0, 10.0],
        [0.0, 0.0],
    ),
    j(
        "RightFoot",
        Some("RightLeg"),
        [0.0, -40.0, 0.0],
        [-20.0, 50.0],
        [-15.0, 15.0],
        [-25.0, 25.0],
    ),
    j(
        "RightToeBase",
        Some("RightFoot"),
        [0.0, -6.0, 12.0],
        [-60.0, 35.0],
        [0.0, 0.0],
        [0.0, 0.0],
    ),
];

/// The number of joints of the built-in humanoid.
pub const HUMANOID_JOINTS: usize = HUMANOID.len();

/// Ends of the leaf bones (joint name, end in the joint's frame, centimetres).
const END_SITES: [(&str, [f32; 3]); 5] = [
    ("Head", [0.0, 15.0, 0.0]),
    ("LeftHand", [12.0, 0.0, 0.0]),
    ("RightHand", [-12.0, 0.0, 0.0]),
    ("LeftToeBase", [0.0, 0.0, 6.0]),
    ("RightToeBase", [0.0, 0.0, 6.0]),
];

/// The Euler order of the humanoid's rotations: `R = Rz · Rx · Ry`.
pub const HUMANOID_ORDER: EulerOrder = EulerOrder::ZXY;

/// The built-in humanoid as a [`Skeleton`] (reference rotations are the identity: the T-pose).
pub fn humanoid_skeleton() -> Skeleton {
    let joints = HUMANOID
        .iter()
        .enumerate()
        .map(|(index, joint)| Joint {
            name: joint.name.to_string(),
            parent: joint
                .parent
                .and_then(|p| HUMANOID[..index].iter().position(|q| q.name == p)),
            offset: Vec3::from_array(joint.offset),
            end_site: END_SITES
                .iter()
                .find(|(name, _)| *name == joint.name)
                .map(|(_, end)| Vec3::from_array(*end)),
            reference_rotation: Quat::IDENTITY,
        })
        .collect();
    Skeleton::new(joints).expect("the built-in humanoid is a valid skeleton")
}

/// Per-joint angles of one frame: degrees about the local X, Y and Z axes.
pub type HumanoidFrame = [DVec3; HUMANOID_JOINTS];

/// The angles of the procedural range-of-motion clip at `frame_rate` frames per second.
///
/// It sweeps every joint through its range one axis at a time (0 → max → min → 0 in one second),
/// traces a circle in the two widest axes of each multi-axis joint, spiralling out to 90% and back
/// (two seconds), then moves all joints at once at 60% with incommensurate frequencies for ten
/// seconds (fading in over the first), so the clip also holds combined rotations. The clip has no
/// cuts: consecutive frames are close even when `amplitude` exaggerates it. Every angle stays inside [`HUMANOID`]'s ranges.
pub fn range_of_motion_angles(frame_rate: f64) -> Vec<HumanoidFrame> {
    let per_second = frame_rate.round().max(1.0) as usize;
    let seconds = |n: usize| (0..n * per_second).map(move |f| f as f64 / (n * per_second) as f64);
    let mut frames: Vec<HumanoidFrame> = Vec::new();
    for (index, joint) in HUMANOID.iter().enumerate() {
        let ranges = joint
            .range_deg
            .map(|[lo, hi]| [f64::from(lo), f64::from(hi)]);
        for axis in 0..3 {
            if ranges[axis] == [0.0, 0.0] {
                continue;
            }
            for t in seconds(1) {
                let mut pose = [DVec3::ZERO; HUMANOID_JOINTS];
                pose[index][axis] = sweep(ranges[axis], (TAU * t).sin());
                frames.push(pose);
            }
        }
        let mut widths: Vec<(f64, usize)> = (0..3)
            .map(|axis| (ranges[axis][1] - ranges[axis][0], axis))
            .filter(|(width, _)| *width > 0.0)
            .collect();
        widths.sort_by(|a, b| b.0.total_cmp(&a.0));
        if let [(_, a), (_, b), ..] = widths[..] {
            for t in seconds(2) {
                // A circle in the two widest axes, spiralling out from and back to the rest pose
                // so the clip has no cuts (a cut of more than 180° would flip the unrolled cover).
                let envelope = 0.9 * (std::f64::consts::PI * t).sin();
                let mut pose = [DVec3::ZERO; HUMANOID_JOINTS];
                pose[index][a] = sweep(ranges[a], envelope * (TAU * t).cos());
                pose[index][b] = sweep(ranges[b], envelope * (TAU * t).sin());
                frames.push(pose);
            }
        }
    }
    for t in seconds(10) {
        let pose: HumanoidFrame = std::array::from_fn(|index| {
            let angle = |axis: usize| {
                let range = HUMANOID[index].range_deg[axis].map(f64::from);
                // Frequencies differ per joint and axis so the combination never repeats.
                let frequency = 0.31 + 0.137 * index as f64 + 0.29 * axis as f64;
                let phase = 1.7 * index as f64 + 2.3 * axis as f64;
                let fade_in = t.min(0.1) / 0.1;
                0.6 * fade_in * sweep(range, (TAU * frequency * t * 10.0 + phase).sin())
            };
            DVec3::new(angle(0), angle(1), angle(2))
        });
        frames.push(pose);
    }
    frames
}

/// The procedural range-of-motion clip ([`range_of_motion_angles`]) for [`humanoid_skeleton`] as
/// a [`Motion`], each rotation `Rz(z) · Rx(x) · Ry(y)`. `amplitude` scales every angle: 1 stays
/// inside the ranges, larger values exaggerate the motion beyond them (to exercise limits).
pub fn range_of_motion_clip(frame_rate: f64, amplitude: f64) -> Motion {
    let frames = range_of_motion_angles(frame_rate);
    let reference = humanoid_skeleton().reference_pose();
    let mut rotations = Vec::with_capacity(frames.len() * HUMANOID_JOINTS);
    let mut translations = Vec::with_capacity(frames.len() * HUMANOID_JOINTS);
    for (frame, pose) in frames.iter().enumerate() {
        for (index, degrees) in pose.iter().enumerate() {
            rotations.push(humanoid_rotation(*degrees * amplitude));
            translations.push(reference.translations[index]);
        }
        // A gentle bob of the root keeps its position channels alive.
        let bob = 2.0 * (frame as f64 / frame_rate * TAU * 0.5).sin();
        translations[frame * HUMANOID_JOINTS].y += bob as f32;
    }
    Motion {
        frame_time: 1.0 / frame_rate,
        joint_count: HUMANOID_JOINTS,
        rotations,
        translations,
    }
}

/// The rotation for angles (degrees about X, Y, Z) in the humanoid's order `Rz · Rx · Ry`.
pub fn humanoid_rotation(degrees_xyz: DVec3) -> Quat {
    let r = degrees_xyz.to_array().map(f64::to_radians);
    HUMANOID_ORDER.to_quat(DVec3::new(r[2], r[0], r[1]))
}

/// Maps `s ∈ [-1, 1]` to an angle: `s·max` for positive `s`, `-s·min` for negative `s`.
fn sweep([min, max]: [f64; 2], s: f64) -> f64 {
    if s >= 0.0 { s * max } else { -s * min }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rotation::angle_between;

    #[test]
    fn angles_stay_inside_and_reach_both_ends_of_every_range() {
        let frames = range_of_motion_angles(60.0);
        assert!(frames.len() > 3000);
        for (index, joint) in HUMANOID.iter().enumerate() {
            for axis in 0..3 {
                let [lo, hi] = joint.range_deg[axis].map(f64::from);
                let values = frames.iter().map(|f| f[index][axis]);
                let seen_max = values.clone().fold(f64::MIN, f64::max);
                let seen_min = values.fold(f64::MAX, f64::min);
                assert!(
                    seen_min >= lo - 1e-9 && seen_max <= hi + 1e-9,
                    "{}",
                    joint.name
                );
                assert!(
                    (seen_max - hi).abs() < 1e-6 && (seen_min - lo).abs() < 1e-6,
                    "{}",
                    joint.name
                );
            }
        }
    }

    #[test]
    fn clip_composes_the_angles_in_zxy_order() {
        let frames = range_of_motion_angles(30.0);
        let clip = range_of_motion_clip(30.0, 1.5);
        assert_eq!(clip.frame_count(), frames.len());
        let frame = frames.len() - 7;
        let degrees = frames[frame][6] * 1.5;
        let expected = Quat::from_rotation_z(degrees.z.to_radians() as f32)
            * Quat::from_rotation_x(degrees.x.to_radians() as f32)
            * Quat::from_rotation_y(degrees.y.to_radians() as f32);
        assert!(angle_between(clip.frame_rotations(frame)[6], expected) < 1e-5);
    }

    #[test]
    fn skeleton_has_end_sites_and_sensible_twist_axes() {
        let skeleton = humanoid_skeleton();
        assert_eq!(skeleton.len(), HUMANOID_JOINTS);
        let axes = skeleton.twist_axes(Vec3::X);
        let arm = skeleton.find("LeftForeArm").unwrap();
        assert!(axes[arm].abs_diff_eq(Vec3::X, 1e-6));
        let head = skeleton.find("Head").unwrap();
        assert!(axes[head].abs_diff_eq(Vec3::Y, 1e-6));
    }
}
