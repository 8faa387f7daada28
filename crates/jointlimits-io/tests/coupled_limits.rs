//! Limits coupled to the parent (`fit --shape coupled`) on real clips, fitted on all but one DAZ
//! clip and judged on the one left out: the elbow's and the knee's boxes that follow the upper
//! arm's and the thigh's direction, against the independent box of the same fit (2° padding),
//! at coupling margins from 0° to 45°. At every margin the coupled boxes accept fewer random
//! (parent, child) pairs and no more unseen frames; the figures, and the comparison at equal
//! acceptance of unseen motion, are printed. Also: every fitted frame is inside, and limiting
//! poses parent first leaves every child inside given its limited parent.

use glam::Quat;
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::{LimitContext, LimitRegion, Motion, SkeletonLimits};
use jointlimits_io::{Bvh, read_bvh_file};
use jointlimits_testdata::{SplitMix, fixture};

const CLIPS: [&str; 4] = [
    "cmu_daz/indian_13.bvh",
    "cmu_daz/martial_04.bvh",
    "cmu_daz/martial_07.bvh",
    "cmu_daz/salsa_10.bvh",
];

const PAIRS: [(&str, &str); 4] = [
    ("lShldr", "lForeArm"),
    ("rShldr", "rForeArm"),
    ("lThigh", "lShin"),
    ("rThigh", "rShin"),
];

fn fit(bvh: &Bvh, clips: &[&Motion], padding_degrees: f64, margin_degrees: f64) -> SkeletonLimits {
    let options = FitOptions {
        shape: "coupled".parse().unwrap(),
        padding: padding_degrees.to_radians(),
        coupling_margin: margin_degrees.to_radians(),
        ..FitOptions::default()
    };
    fit_skeleton_limits(&bvh.skeleton, clips, &options, &|_| {}).unwrap()
}

fn haar(random: &mut SplitMix) -> Quat {
    Quat::from_array(random.haar_quaternion())
}

/// Held-out acceptance (coupled, independent) of the child joints over `held_out`, and the share
/// of random (parent, child) pairs each accepts.
fn measure(bvh: &Bvh, limits: &SkeletonLimits, held_out: &Motion) -> [f64; 4] {
    let mut random = SplitMix(5);
    let (mut coupled, mut independent, mut frames) = (0usize, 0usize, 0usize);
    let (mut random_coupled, mut random_independent, mut pairs) = (0usize, 0usize, 0usize);
    for (parent, child) in PAIRS {
        let (p, c) = (
            bvh.skeleton.find(parent).unwrap(),
            bvh.skeleton.find(child).unwrap(),
        );
        let limit = limits.find(child).unwrap();
        assert!(matches!(limit.region, LimitRegion::Coupled(_)), "{child}");
        for frame in 0..held_out.frame_count() {
            let rotations = held_out.frame_rotations(frame);
            let context = LimitContext {
                parent: Some(rotations[p]),
            };
            coupled += usize::from(limit.assess_in(rotations[c], &context).violation == 0.0);
            independent += usize::from(limit.assess(rotations[c]).violation == 0.0);
            frames += 1;
        }
        for _ in 0..20_000 {
            let (parent_local, child_local) = (haar(&mut random), haar(&mut random));
            let context = LimitContext {
                parent: Some(parent_local),
            };
            random_coupled += usize::from(limit.assess_in(child_local, &context).violation == 0.0);
            random_independent += usize::from(limit.assess(child_local).violation == 0.0);
            pairs += 1;
        }
    }
    [
        coupled as f64 / frames as f64,
        independent as f64 / frames as f64,
        random_coupled as f64 / pairs as f64,
        random_independent as f64 / pairs as f64,
    ]
}

#[test]
fn coupled_limits_against_the_independent_box_on_unseen_motion() {
    let mut bvhs = Vec::new();
    for name in CLIPS {
        let Some(path) = fixture(name) else { return };
        bvhs.push(read_bvh_file(&path).unwrap());
    }
    let motions: Vec<Motion> = bvhs.iter().map(Bvh::to_motion).collect();
    let margins = [0.0, 5.0, 10.0, 15.0, 20.0, 30.0, 45.0];
    // Per margin: the means over the four held-out folds.
    let mut table = Vec::new();
    for &margin in &margins {
        let mut sums = [0.0; 4];
        for held in 0..CLIPS.len() {
            let training: Vec<&Motion> = (0..CLIPS.len())
                .filter(|&i| i != held)
                .map(|i| &motions[i])
                .collect();
            let limits = fit(&bvhs[0], &training, 2.0, margin);
            let figures = measure(&bvhs[0], &limits, &motions[held]);
            for (sum, figure) in sums.iter_mut().zip(figures) {
                *sum += figure / CLIPS.len() as f64;
            }
        }
        println!(
            "coupling margin {margin:>4}°: held-out acceptance coupled {:.3}%, independent {:.3}%; random pairs accepted coupled {:.4}%, independent {:.4}%",
            sums[0] * 100.0,
            sums[1] * 100.0,
            sums[2] * 100.0,
            sums[3] * 100.0
        );
        table.push(sums);
    }
    for (sums, margin) in table.iter().zip(margins) {
        assert!(
            sums[2] < sums[3],
            "{margin}°: coupled accepts fewer random pairs"
        );
        assert!(
            sums[0] <= sums[1] + 1e-12,
            "{margin}°: and no more unseen frames"
        );
        assert!(sums[0] > 0.98, "{margin}°: yet nearly all of them");
    }
    // The default margin gives up next to nothing of the unseen motion for a tenth fewer random
    // pairs.
    let default = margins
        .iter()
        .position(|&m| m == jointlimits::fit::coupled::DEFAULT_COUPLING_MARGIN_DEGREES)
        .expect("the default margin is measured");
    let [coupled, independent, coupled_random, independent_random] = table[default];
    assert!(
        independent - coupled < 0.001,
        "{coupled} against {independent}"
    );
    assert!(coupled_random < 0.95 * independent_random);
    // At equal acceptance of unseen motion: the least margin accepting every unseen frame the
    // independent box accepts (the boxes nest, so equal shares are the same frames).
    let equal = table
        .iter()
        .find(|s| s[0] >= s[1] - 1e-12)
        .expect("some margin accepts as much unseen motion");
    println!(
        "at equal acceptance of unseen motion ({:.3}%): random (parent, child) pairs accepted by the independent box {:.4}%, by the coupled boxes {:.4}%",
        equal[1] * 100.0,
        equal[3] * 100.0,
        equal[2] * 100.0
    );
    assert!(equal[2] < equal[3]);
}

#[test]
fn fitted_frames_are_inside_and_apply_then_check_agree() {
    let (Some(seen), Some(unseen)) = (
        fixture("cmu_daz/martial_04.bvh"),
        fixture("cmu_daz/martial_07.bvh"),
    ) else {
        return;
    };
    let bvh = read_bvh_file(&seen).unwrap();
    let motion = bvh.to_motion();
    let limits = fit(&bvh, &[&motion], 0.0, 0.0);
    let other = read_bvh_file(&unseen).unwrap().to_motion();
    let mut limiter = limits.bind(&bvh.skeleton).unwrap();
    for frame in 0..motion.frame_count() {
        let rotations = motion.frame_rotations(frame);
        for (parent, child) in PAIRS {
            let (p, c) = (
                bvh.skeleton.find(parent).unwrap(),
                bvh.skeleton.find(child).unwrap(),
            );
            let context = LimitContext {
                parent: Some(rotations[p]),
            };
            let assessment = limits
                .find(child)
                .unwrap()
                .assess_in(rotations[c], &context);
            assert_eq!(assessment.violation, 0.0, "{child} frame {frame}");
        }
    }
    // Limit an unseen clip pose by pose; each child is inside given its limited parent.
    let mut outside = 0;
    for frame in 0..other.frame_count() {
        let mut pose = other.frame_rotations(frame).to_vec();
        outside += limiter.limit_pose(&mut pose);
        for (parent, child) in PAIRS {
            let (p, c) = (
                bvh.skeleton.find(parent).unwrap(),
                bvh.skeleton.find(child).unwrap(),
            );
            let context = LimitContext {
                parent: Some(pose[p]),
            };
            let assessment = limits.find(child).unwrap().assess_in(pose[c], &context);
            assert_eq!(assessment.violation, 0.0, "{child} frame {frame}");
        }
    }
    assert!(outside > 0, "the unseen clip leaves the limits somewhere");
}

/// At the ends of the grid sizes a configuration may choose, every fitted frame of every
/// coupled joint is inside given its parent. One cell's corners are all the sphere's far pole,
/// so its vertices gathered only the frames near that pole (a hand 45° outside its own fit);
/// at 64² the vertices folded onto one parent direction gathered different frames, and the fit
/// refused its own result.
#[test]
fn every_grid_size_holds_the_frames_it_was_fitted_to() {
    let Some(path) = fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let bvh = read_bvh_file(&path).unwrap();
    let motion = bvh.to_motion();
    for resolution in [1, 2, 64] {
        let options = FitOptions {
            shape: ShapeKind::Coupled(resolution),
            padding: 0.0,
            coupling_margin: 0.0,
            skip_frames: 5,
            ..FitOptions::default()
        };
        let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {})
            .unwrap_or_else(|e| panic!("{resolution}²: {e}"));
        let mut coupled = 0;
        for limit in &limits.joints {
            if !matches!(limit.region, LimitRegion::Coupled(_)) {
                continue;
            }
            coupled += 1;
            let joint = bvh.skeleton.find(&limit.joint).unwrap();
            let parent = bvh.skeleton.joints()[joint].parent.unwrap();
            for frame in 5..motion.frame_count() {
                let rotations = motion.frame_rotations(frame);
                let context = LimitContext {
                    parent: Some(rotations[parent]),
                };
                let violation = limit.violation_in(rotations[joint], &context);
                assert_eq!(
                    violation, 0.0,
                    "{resolution}² {} frame {frame}",
                    limit.joint
                );
            }
        }
        assert!(coupled > 10, "{resolution}²: {coupled} coupled joints");
    }
}
