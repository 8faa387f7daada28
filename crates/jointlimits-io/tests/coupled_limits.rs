//! Limits coupled to the parent (`fit --shape coupled`) on real clips, fitted on all but one DAZ
//! clip and judged on the one left out: the elbow's and the knee's boxes that follow the upper
//! arm's and the thigh's direction, against the independent box of the same fit, at paddings
//! from 2° to 20°. At every padding the coupled boxes accept fewer random (parent, child) pairs
//! and no more unseen frames; the figures, and the comparison at equal acceptance of unseen
//! motion, are printed. Also: every fitted frame is inside, and limiting poses parent first
//! leaves every child inside given its limited parent.

use glam::Quat;
use jointlimits::fit::{FitOptions, fit_skeleton_limits};
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

fn fit(bvh: &Bvh, clips: &[&Motion], padding_degrees: f64) -> SkeletonLimits {
    let options = FitOptions {
        shape: "coupled".parse().unwrap(),
        padding: padding_degrees.to_radians(),
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
    let paddings = [2.0, 3.0, 4.0, 6.0, 8.0, 11.0, 15.0, 20.0];
    // Per padding: the means over the four held-out folds.
    let mut table = Vec::new();
    for &padding in &paddings {
        let mut sums = [0.0; 4];
        for held in 0..CLIPS.len() {
            let training: Vec<&Motion> = (0..CLIPS.len())
                .filter(|&i| i != held)
                .map(|i| &motions[i])
                .collect();
            let limits = fit(&bvhs[0], &training, padding);
            let figures = measure(&bvhs[0], &limits, &motions[held]);
            for (sum, figure) in sums.iter_mut().zip(figures) {
                *sum += figure / CLIPS.len() as f64;
            }
        }
        println!(
            "padding {padding:>4}°: held-out acceptance coupled {:.2}%, independent {:.2}%; random pairs accepted coupled {:.3}%, independent {:.3}%",
            sums[0] * 100.0,
            sums[1] * 100.0,
            sums[2] * 100.0,
            sums[3] * 100.0
        );
        table.push(sums);
    }
    for (sums, padding) in table.iter().zip(paddings) {
        assert!(
            sums[2] < sums[3],
            "{padding}°: coupled accepts fewer random pairs"
        );
        assert!(
            sums[0] <= sums[1] + 1e-12,
            "{padding}°: and no more unseen frames"
        );
        assert!(sums[0] > 0.9, "{padding}°: yet most of them");
    }
    // The independent box at the default padding, against the coupled boxes interpolated to the
    // same acceptance of unseen motion.
    let target = table[0][1];
    let above = table
        .iter()
        .position(|s| s[0] >= target)
        .expect("some padding matches");
    let (low, high) = (table[above.saturating_sub(1)], table[above]);
    let t = if above == 0 {
        1.0
    } else {
        (target - low[0]) / (high[0] - low[0])
    };
    let coupled_random = low[2] + t * (high[2] - low[2]);
    println!(
        "at equal acceptance of unseen motion ({:.2}%): random (parent, child) pairs accepted by the independent box at 2° {:.3}%, by the coupled boxes {:.3}%",
        target * 100.0,
        table[0][3] * 100.0,
        coupled_random * 100.0
    );
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
    let limits = fit(&bvh, &[&motion], 0.0);
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
