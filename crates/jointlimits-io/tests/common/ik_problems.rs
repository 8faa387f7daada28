//! IK problems from real motion capture, shared by the IK tests and benches: the CMU clips in
//! Daz's skeleton, limits fitted to all of them, arms of 2, 3 and 6 bones scaled to 1 m, and
//! problems whose start is one captured frame and whose target is the arm's end in another
//! (so the fitted limits allow it).

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ReferenceChoice, ShapeKind, fit_skeleton_limits};
use jointlimits::ik::Chain;
use jointlimits::{JointLimit, Motion, Skeleton, SpaceKind};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::{SplitMix, fixture};

const CLIPS: [&str; 4] = [
    "cmu_daz/martial_04.bvh",
    "cmu_daz/martial_07.bvh",
    "cmu_daz/salsa_10.bvh",
    "cmu_daz/indian_13.bvh",
];

/// Shoulder, elbow and wrist, ending at the middle finger.
pub const THREE_BONES: [&str; 4] = ["rShldr", "rForeArm", "rHand", "rMid1"];
/// Abdomen, chest, collar, shoulder, elbow and wrist, ending at the middle finger.
pub const SIX_BONES: [&str; 7] = [
    "abdomen", "chest", "rCollar", "rShldr", "rForeArm", "rHand", "rMid1",
];
/// Shoulder and elbow, ending at the wrist.
pub const TWO_BONES: [&str; 3] = ["rShldr", "rForeArm", "rHand"];
/// Abdomen, chest, neck and head: a look-at chain.
pub const LOOK_AT: [&str; 4] = ["abdomen", "chest", "neck", "head"];

/// The clips, their skeleton and limits fitted to all of them.
pub struct Capture {
    pub skeleton: Skeleton,
    pub clips: Vec<Motion>,
    /// Skeleton joint `j`'s limit.
    pub limits: Vec<Option<JointLimit>>,
}

/// Padding (degrees) of the default fitted limits: tight, as fitted to data.
pub const FITTED_PADDING: f64 = 2.0;

/// Padding (degrees) of the wide limits: loose, like hand-set limits that seldom bind.
pub const WIDE_PADDING: f64 = 20.0;

/// Reads and fits the capture, or `None` when the fixtures are absent.
pub fn capture() -> Option<Capture> {
    let mut skeleton = None;
    let mut clips = Vec::new();
    for name in CLIPS {
        let bvh = read_bvh_file(fixture(name)?).unwrap();
        clips.push(bvh.to_motion());
        skeleton.get_or_insert(bvh.skeleton);
    }
    let skeleton = skeleton?;
    let limits = fit_limits(&skeleton, &clips, &fit_options(FITTED_PADDING));
    Some(Capture {
        skeleton,
        clips,
        limits,
    })
}

impl Capture {
    /// Limits fitted to the clips like [`Capture::limits`], padded by `padding_degrees`.
    pub fn limits_padded(&self, padding_degrees: f64) -> Vec<Option<JointLimit>> {
        fit_limits(&self.skeleton, &self.clips, &fit_options(padding_degrees))
    }

    /// Limits fitted to the clips with `shape` in `space` (2° of padding, about the bind pose).
    pub fn limits_shaped(&self, space: SpaceKind, shape: ShapeKind) -> Vec<Option<JointLimit>> {
        let options = FitOptions {
            space,
            shape,
            ..fit_options(FITTED_PADDING)
        };
        fit_limits(&self.skeleton, &self.clips, &options)
    }
}

/// Ellipsoids in full space about the bind pose, padded by `padding_degrees`.
fn fit_options(padding_degrees: f64) -> FitOptions {
    FitOptions {
        padding: padding_degrees.to_radians(),
        reference: ReferenceChoice::Bind,
        ..FitOptions::default()
    }
}

/// Skeleton joint `j`'s limit fitted to `clips`.
fn fit_limits(
    skeleton: &Skeleton,
    clips: &[Motion],
    options: &FitOptions,
) -> Vec<Option<JointLimit>> {
    let refs: Vec<&Motion> = clips.iter().collect();
    let fitted = fit_skeleton_limits(skeleton, &refs, options, &|_| {}).unwrap();
    let limiter = fitted.bind(skeleton).unwrap();
    (0..skeleton.len())
        .map(|j| limiter.joint_limit(j).cloned())
        .collect()
}

/// One start pose and target for an arm.
pub struct Problem {
    /// The arm's local rotations in the start frame.
    pub start: Vec<Quat>,
    /// The arm's base orientation (its first joint's parent) in the start frame.
    pub base: Quat,
    /// The arm's end in another frame, under the same base.
    pub target: Vec3,
}

/// An arm of the capture: rotating joints, bones scaled to a 1 m chain, their limits.
pub struct Arm<'a> {
    pub joints: Vec<usize>,
    pub bones: Vec<Vec3>,
    pub limits: Vec<Option<&'a JointLimit>>,
}

impl<'a> Arm<'a> {
    /// The arm `names[0] → … → names[last]` (the last is the end effector).
    pub fn new(capture: &'a Capture, names: &[&str]) -> Arm<'a> {
        let path: Vec<usize> = names
            .iter()
            .map(|n| capture.skeleton.find(n).unwrap())
            .collect();
        let offsets: Vec<Vec3> = path[1..]
            .iter()
            .map(|&j| capture.skeleton.joints()[j].offset)
            .collect();
        let length: f32 = offsets.iter().map(|o| o.length()).sum();
        let joints = path[..path.len() - 1].to_vec();
        Arm {
            bones: offsets.iter().map(|o| *o / length).collect(),
            limits: joints.iter().map(|&j| capture.limits[j].as_ref()).collect(),
            joints,
        }
    }

    /// A look-at chain of `names` (all rotating), aiming along `aim` in the last joint's frame.
    pub fn look_at(capture: &'a Capture, names: &[&str], aim: Vec3) -> Arm<'a> {
        let joints: Vec<usize> = names
            .iter()
            .map(|n| capture.skeleton.find(n).unwrap())
            .collect();
        let mut bones: Vec<Vec3> = joints[1..]
            .iter()
            .map(|&j| capture.skeleton.joints()[j].offset)
            .collect();
        bones.push(aim);
        Arm {
            bones,
            limits: joints.iter().map(|&j| capture.limits[j].as_ref()).collect(),
            joints,
        }
    }

    /// The same arm with the limits in `limits` (skeleton joint `j`'s at `j`).
    pub fn with_limits<'b>(&self, limits: &'b [Option<JointLimit>]) -> Arm<'b> {
        Arm {
            joints: self.joints.clone(),
            bones: self.bones.clone(),
            limits: self.joints.iter().map(|&j| limits[j].as_ref()).collect(),
        }
    }

    /// The chain at `problem`'s start.
    pub fn chain(&self, problem: &Problem) -> Chain<'a> {
        Chain::new(
            Vec3::ZERO,
            problem.base,
            problem.start.clone(),
            self.bones.clone(),
            self.limits.clone(),
        )
        .unwrap()
    }

    /// `count` problems from random pairs of captured frames (deterministic for a `seed`).
    pub fn problems(&self, capture: &Capture, count: usize, seed: u64) -> Vec<Problem> {
        let mut random = SplitMix(seed);
        let base_joint = capture.skeleton.joints()[self.joints[0]].parent;
        (0..count)
            .map(|_| {
                let (start_clip, start_frame) = random_frame(&mut random, &capture.clips);
                let (goal_clip, goal_frame) = random_frame(&mut random, &capture.clips);
                let start_motion = &capture.clips[start_clip];
                let base = base_joint.map_or(Quat::IDENTITY, |p| {
                    capture
                        .skeleton
                        .forward_kinematics(&start_motion.pose(start_frame))
                        .rotations[p]
                });
                let locals = |motion: &Motion, frame: usize| -> Vec<Quat> {
                    let rotations = motion.frame_rotations(frame);
                    self.joints.iter().map(|&j| rotations[j]).collect()
                };
                let goal = Problem {
                    start: locals(&capture.clips[goal_clip], goal_frame),
                    base,
                    target: Vec3::ZERO,
                };
                Problem {
                    start: locals(start_motion, start_frame),
                    base,
                    target: self.chain(&goal).end_effector(),
                }
            })
            .collect()
    }
}

/// A random captured frame: (clip, frame).
fn random_frame(random: &mut SplitMix, clips: &[Motion]) -> (usize, usize) {
    let clip = (random.next_signed().abs() * clips.len() as f32) as usize % clips.len();
    let frames = clips[clip].frame_count();
    (
        clip,
        (random.next_signed().abs() * frames as f32) as usize % frames,
    )
}
