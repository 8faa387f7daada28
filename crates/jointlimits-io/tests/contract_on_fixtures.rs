//! The contract on real skeletons, as a user meets it: limits fitted on every CMU fixture (every
//! shape in both spaces, reach cones) and authored limits of every kind, applied by the stateful
//! limiter to 1,000 uniformly random poses, written as BVH text and read back, then checked frame
//! by frame, and rotations that were allowed come back unchanged.
//!
//! Every kind passes at `check`'s default tolerance (0° beyond the contract's boundary
//! tolerance): the file is written as `apply` writes it, angles nearest the input's, and any
//! rotation the text's rounding leaves outside moved back in.

use glam::Quat;
use jointlimits::fit::{FitOptions, ReferenceChoice, ShapeKind, fit_skeleton_limits};
use jointlimits::{JointLimit, LimitRegion, Motion, RotationLimit, SkeletonLimits, SpaceKind};
use jointlimits_io::{Bvh, Channel, parse_bvh, read_bvh_file};
use jointlimits_testdata::{SplitMix, bvh_fixtures};

/// A Haar-random rotation (either cover) from four normal deviates.
fn random_rotation(rng: &mut SplitMix) -> Quat {
    loop {
        let v = [(); 4].map(|_| {
            // Box–Muller from two uniforms in (0, 1].
            let (u, w) = (rng.next_signed().abs().max(1e-7), rng.next_signed());
            (-2.0 * u.ln()).sqrt() * (std::f32::consts::PI * w).cos()
        });
        let q = Quat::from_xyzw(v[0], v[1], v[2], v[3]);
        if q.length() > 1e-3 {
            return q.normalize();
        }
    }
}

/// Whether joint `j` has three rotation channels (so any rotation can be written for it).
fn rotates(channels: &[Channel]) -> bool {
    channels
        .iter()
        .filter(|c| matches!(c, Channel::Rotation(_)))
        .count()
        == 3
}

/// 1,000 frames of `bvh`'s skeleton with random rotations on every fully rotating joint below the
/// root, the root as in the first frame.
fn random_clip(bvh: &Bvh, seed: u64) -> Motion {
    let source = bvh.to_motion();
    let n = source.joint_count;
    let mut rng = SplitMix(seed);
    let mut motion = Motion {
        frame_time: source.frame_time,
        joint_count: n,
        rotations: Vec::new(),
        translations: Vec::new(),
    };
    for _ in 0..1000 {
        for j in 0..n {
            let fully = j > 0 && rotates(&bvh.channels[j]);
            motion.rotations.push(if fully {
                random_rotation(&mut rng)
            } else {
                source.rotations[j]
            });
            motion.translations.push(source.translations[j]);
        }
    }
    motion
}

/// Applies `limits` to `clip` as `apply` does, writes and re-reads the BVH text, and checks every
/// frame as `check` does. Returns the largest violation (radians) and allowed rotations moved.
fn apply_then_check(bvh: &Bvh, limits: &SkeletonLimits, clip: &Motion) -> (f32, usize) {
    let mut limiter = limits.bind(&bvh.skeleton).unwrap();
    let mut limited = clip.clone();
    let n = clip.joint_count;
    let mut moved = 0;
    for frame in 0..clip.frame_count() {
        let pose = &mut limited.rotations[frame * n..(frame + 1) * n];
        for (j, rotation) in pose.iter_mut().enumerate() {
            let Some(limit) = limiter.joint_limit(j).cloned() else {
                continue;
            };
            let input = *rotation;
            let (output, _) = limiter.limit_joint(j, input);
            moved += usize::from(limit.contains(input) && output != input);
            *rotation = output;
        }
    }
    // Written as `apply` writes: rotations the text's rounding leaves outside are moved back in.
    let per_joint: Vec<Option<&JointLimit>> = (0..n).map(|j| limiter.joint_limit(j)).collect();
    let (written, _) = bvh.with_allowed_motion(&limited, &per_joint).unwrap();
    let mut text = Vec::new();
    written.write(&mut text).unwrap();
    let back = parse_bvh(std::str::from_utf8(&text).unwrap())
        .unwrap()
        .to_motion();
    let mut worst = 0.0f32;
    for frame in 0..back.frame_count() {
        let pose = back.frame_rotations(frame);
        for (j, limit) in (0..n).filter_map(|j| limiter.joint_limit(j).map(|l| (j, l))) {
            worst = worst.max(limit.violation(pose[j]));
        }
    }
    (worst, moved)
}

/// Authored limits of every kind on `bvh`'s joints, the kinds taking turns down the skeleton.
fn authored_limits(bvh: &Bvh) -> SkeletonLimits {
    let authored: Vec<LimitRegion> = LimitRegion::examples()
        .into_iter()
        .filter(|r| !matches!(r.space(), SpaceKind::Full) || matches!(r, LimitRegion::Euler(_)))
        .filter(|r| !matches!(r, LimitRegion::SwingTwist(_) | LimitRegion::ReachCone(_)))
        .collect();
    let joints = bvh
        .skeleton
        .joints()
        .iter()
        .enumerate()
        .skip(1)
        .map(|(j, joint)| JointLimit {
            joint: joint.name.clone(),
            reference: Quat::IDENTITY,
            region: authored[j % authored.len()].clone(),
            softening: None,
        })
        .collect();
    SkeletonLimits::new(joints, None)
}

#[test]
fn apply_then_check_passes_on_random_poses_for_every_fixture_and_kind() {
    let Some(files) = bvh_fixtures() else { return };
    let mut failures = Vec::new();
    for (index, path) in files.iter().enumerate() {
        let bvh = read_bvh_file(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let motion = bvh.to_motion();
        let clip = random_clip(&bvh, index as u64 + 7);
        let mut runs: Vec<(String, SkeletonLimits)> =
            vec![("authored".into(), authored_limits(&bvh))];
        for space in [SpaceKind::Full, SpaceKind::SwingTwist] {
            for shape in ShapeKind::ALL {
                if shape.ignores_space() && space == SpaceKind::Full {
                    continue;
                }
                let options = FitOptions {
                    space,
                    shape,
                    reference: ReferenceChoice::Bind,
                    ..FitOptions::default()
                };
                let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {})
                    .unwrap_or_else(|e| panic!("{name} {space:?} {shape:?}: {e}"));
                runs.push((format!("{space:?} {shape:?}"), limits));
            }
        }
        for (label, limits) in runs {
            let (worst, moved) = apply_then_check(&bvh, &limits, &clip);
            if worst > 0.0 || moved > 0 {
                failures.push(format!(
                    "{name} {label}: worst violation {:.2e}°, {moved} allowed rotations moved",
                    worst.to_degrees()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
