//! IK with limits fitted to real motion capture (the CMU clips in Daz's skeleton): an arm of 3
//! bones (shoulder, elbow, wrist → middle finger) and of 6 bones (abdomen, chest, collar,
//! shoulder, elbow, wrist), scaled to 1 m, solved toward 10,000 targets that the limits allow
//! (the hand of another captured frame), with and without the limits. Every final pose must
//! satisfy every limit; the success rates (end within 1 mm) and mean iterations are printed:
//! `cargo test --release -p jointlimits-io --test ik_on_fixtures -- --nocapture`.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ReferenceChoice, fit_skeleton_limits};
use jointlimits::ik::{Chain, IkOptions, Solver, solve, solve_two_bone};
use jointlimits::{JointLimit, Motion, Skeleton, SkeletonLimits};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::{SplitMix, fixture};

const CLIPS: [&str; 4] = [
    "cmu_daz/martial_04.bvh",
    "cmu_daz/martial_07.bvh",
    "cmu_daz/salsa_10.bvh",
    "cmu_daz/indian_13.bvh",
];

const THREE_BONES: [&str; 4] = ["rShldr", "rForeArm", "rHand", "rMid1"];
const SIX_BONES: [&str; 7] = [
    "abdomen", "chest", "rCollar", "rShldr", "rForeArm", "rHand", "rMid1",
];
const TWO_BONES: [&str; 3] = ["rShldr", "rForeArm", "rHand"];

struct Capture {
    skeleton: Skeleton,
    clips: Vec<Motion>,
    limits: SkeletonLimits,
}

fn capture() -> Option<Capture> {
    let mut skeleton = None;
    let mut clips = Vec::new();
    for name in CLIPS {
        let bvh = read_bvh_file(fixture(name)?).unwrap();
        clips.push(bvh.to_motion());
        skeleton.get_or_insert(bvh.skeleton);
    }
    let skeleton = skeleton?;
    let options = FitOptions {
        padding: 2f64.to_radians(),
        reference: ReferenceChoice::Bind,
        ..FitOptions::default()
    };
    let refs: Vec<&Motion> = clips.iter().collect();
    let limits = fit_skeleton_limits(&skeleton, &refs, &options, &|_| {}).unwrap();
    Some(Capture {
        skeleton,
        clips,
        limits,
    })
}

/// One arm of the capture: joint indices, bones scaled to a 1 m chain, per-joint limits.
struct Arm<'a> {
    joints: Vec<usize>,
    bones: Vec<Vec3>,
    limits: Vec<Option<&'a JointLimit>>,
}

impl<'a> Arm<'a> {
    fn new(capture: &Capture, per_joint: &'a [Option<JointLimit>], names: &[&str]) -> Arm<'a> {
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
            limits: joints.iter().map(|&j| per_joint[j].as_ref()).collect(),
            joints,
        }
    }

    /// The chain in the pose of `frame` of `clip`, based at the origin in the frame's parent
    /// orientation (`base`, shared by start and goal so that targets are comparable).
    fn chain(&self, motion: &Motion, frame: usize, base: Quat) -> Chain<'a> {
        let rotations = motion.frame_rotations(frame);
        Chain::new(
            Vec3::ZERO,
            base,
            self.joints.iter().map(|&j| rotations[j]).collect(),
            self.bones.clone(),
            self.limits.clone(),
        )
        .unwrap()
    }
}

#[derive(Default)]
struct Tally {
    solves: usize,
    reached: usize,
    iterations: usize,
    worst_violation: f32,
    worst_distance: f32,
}

impl Tally {
    fn line(&self, label: &str) -> String {
        format!(
            "{label:<28} reached {:6.2}%  mean iterations {:6.1}  worst violation {:.1e} rad  worst miss {:.3} m",
            100.0 * self.reached as f32 / self.solves as f32,
            self.iterations as f32 / self.solves as f32,
            self.worst_violation,
            self.worst_distance,
        )
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

#[test]
fn ik_with_fitted_limits_reaches_captured_targets_without_violations() {
    let Some(capture) = capture() else {
        eprintln!("skipping: the CMU fixtures are not available");
        return;
    };
    let per_joint: Vec<Option<JointLimit>> = {
        let limiter = capture.limits.bind(&capture.skeleton).unwrap();
        (0..capture.skeleton.len())
            .map(|j| limiter.joint_limit(j).cloned())
            .collect()
    };
    let targets: usize = std::env::var("IK_TARGETS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let mut lines = Vec::new();
    for (label, names) in [("3 bones", &THREE_BONES[..]), ("6 bones", &SIX_BONES[..])] {
        let arm = Arm::new(&capture, &per_joint, names);
        for solver in Solver::ALL {
            for use_limits in [true, false] {
                let tally = run(&capture, &arm, targets, use_limits, |chain, target, o| {
                    solve(chain, target, solver, o)
                });
                let mode = if use_limits { "limits" } else { "no limits" };
                lines.push(tally.line(&format!("{label} {} {mode}", solver.name())));
                if use_limits {
                    assert!(tally.worst_violation <= 1e-4, "{}", lines.last().unwrap());
                    assert!(
                        tally.reached * 100 >= tally.solves * 90,
                        "{}",
                        lines.last().unwrap()
                    );
                }
            }
        }
    }
    let arm = Arm::new(&capture, &per_joint, &TWO_BONES);
    for use_limits in [true, false] {
        let tally = run(&capture, &arm, targets, use_limits, solve_two_bone);
        let mode = if use_limits { "limits" } else { "no limits" };
        lines.push(tally.line(&format!("2 bones two-bone {mode}")));
        assert!(tally.worst_violation <= 1e-4 || !use_limits);
        assert!(
            tally.reached * 100 >= tally.solves * 90,
            "{}",
            lines.last().unwrap()
        );
    }
    for line in lines {
        println!("{line}");
    }
}

/// Solves `count` random captured targets from random captured starts.
fn run(
    capture: &Capture,
    arm: &Arm,
    count: usize,
    use_limits: bool,
    solver: impl Fn(&mut Chain, Vec3, &IkOptions) -> jointlimits::ik::IkReport,
) -> Tally {
    let mut random = SplitMix(2026);
    let mut tally = Tally::default();
    let options = IkOptions {
        max_iterations: 100,
        tolerance: 1e-3,
        use_limits,
        ..IkOptions::default()
    };
    let base_joint = capture.skeleton.joints()[arm.joints[0]].parent;
    for _ in 0..count {
        let (start_clip, start_frame) = random_frame(&mut random, &capture.clips);
        let (goal_clip, goal_frame) = random_frame(&mut random, &capture.clips);
        let start_motion = &capture.clips[start_clip];
        let base = base_joint.map_or(Quat::IDENTITY, |p| {
            capture
                .skeleton
                .forward_kinematics(&start_motion.pose(start_frame))
                .rotations[p]
        });
        let target = arm
            .chain(&capture.clips[goal_clip], goal_frame, base)
            .end_effector();
        let mut chain = arm.chain(start_motion, start_frame, base);
        let report = solver(&mut chain, target, &options);
        assert!(chain.positions().iter().all(|p| p.is_finite()));
        tally.solves += 1;
        tally.reached += usize::from(report.distance <= options.tolerance);
        tally.iterations += report.iterations;
        tally.worst_distance = tally.worst_distance.max(report.distance);
        if use_limits {
            tally.worst_violation = tally.worst_violation.max(chain.limit_violation());
        }
    }
    tally
}

#[test]
fn unreachable_targets_are_approached_within_the_fitted_limits() {
    let Some(capture) = capture() else {
        eprintln!("skipping: the CMU fixtures are not available");
        return;
    };
    let limiter = capture.limits.bind(&capture.skeleton).unwrap();
    let per_joint: Vec<Option<JointLimit>> = (0..capture.skeleton.len())
        .map(|j| limiter.joint_limit(j).cloned())
        .collect();
    let arm = Arm::new(&capture, &per_joint, &SIX_BONES);
    let mut random = SplitMix(8);
    for _ in 0..200 {
        let direction = Vec3::new(
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
        )
        .normalize_or(Vec3::X);
        let target = direction * 1.5;
        for solver in Solver::ALL {
            let mut chain = arm.chain(&capture.clips[0], 0, Quat::IDENTITY);
            let report = solve(&mut chain, target, solver, &IkOptions::default());
            assert!(report.distance.is_finite() && report.distance >= 0.5 - 1e-4);
            assert!(chain.positions().iter().all(|p| p.is_finite()));
            assert!(chain.limit_violation() <= 1e-4, "{solver:?}");
        }
    }
}
