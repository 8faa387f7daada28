//! Calibrated margins (`fit --accept P`) on real clips, judged on clips the calibration never
//! saw: for each CMU DAZ fixture held out in turn, limits are calibrated on the other three and
//! the share of the held-out clip's joint-frames they accept is measured, next to the share the
//! default fit (2° padding) accepts and the share of random rotations each accepts.

use jointlimits::fit::{
    FitOptions, ShapeKind, fit_calibrated_skeleton_limits, fit_skeleton_limits,
};
use jointlimits::measure::novelty::{SampleNeighbourhood, calibrated_radius};
use jointlimits::measure::tightness::rotation_acceptance;
use jointlimits::shape::KdopDirections;
use jointlimits::{Motion, SkeletonLimits, SpaceKind};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::fixture;

const CLIPS: [&str; 4] = [
    "cmu_daz/indian_13.bvh",
    "cmu_daz/martial_04.bvh",
    "cmu_daz/martial_07.bvh",
    "cmu_daz/salsa_10.bvh",
];

/// The mean over joints of the share of `clip`'s frames (after `skip`) each joint's limit
/// accepts, and the share of frames with every joint inside.
fn acceptance(
    limits: &SkeletonLimits,
    skeleton: &jointlimits::Skeleton,
    clip: &Motion,
    skip: usize,
) -> (f64, f64) {
    let limiter = limits.bind(skeleton).unwrap();
    let joints: Vec<(usize, &jointlimits::JointLimit)> = (0..limiter.joint_count())
        .filter_map(|j| limiter.joint_limit(j).map(|l| (j, l)))
        .collect();
    let frames = skip..clip.frame_count();
    let mut per_joint = vec![0usize; joints.len()];
    let mut all_inside = 0;
    for frame in frames.clone() {
        let rotations = clip.frame_rotations(frame);
        let mut every = true;
        for (k, (j, limit)) in joints.iter().enumerate() {
            if limit.contains(rotations[*j]) {
                per_joint[k] += 1;
            } else {
                every = false;
            }
        }
        all_inside += usize::from(every);
    }
    let n = frames.len() as f64;
    let mean = per_joint.iter().map(|&c| c as f64 / n).sum::<f64>() / joints.len() as f64;
    (mean, all_inside as f64 / n)
}

/// Every `step`th rotation of joint `joint` in `clip` after `skip` frames.
fn joint_rotations(clip: &Motion, joint: usize, skip: usize, step: usize) -> Vec<glam::Quat> {
    (skip..clip.frame_count())
        .step_by(step)
        .map(|f| clip.frame_rotations(f)[joint])
        .collect()
}

/// The sample neighbourhoods of `limits`' joints over the `fitted` clips (every fourth frame),
/// with the radius that holds 99% of each fitted clip left out in turn: the mean over joints of
/// the share of `held_out`'s frames they hold, and of random rotations.
fn neighbourhood_acceptance(
    limits: &SkeletonLimits,
    skeleton: &jointlimits::Skeleton,
    fitted: &[&Motion],
    held_out: &Motion,
    skip: usize,
) -> (f64, f64) {
    let (mut held, mut random) = (0.0, 0.0);
    for limit in &limits.joints {
        let joint = skeleton.find(&limit.joint).unwrap();
        let folds: Vec<Vec<glam::Quat>> = fitted
            .iter()
            .map(|clip| joint_rotations(clip, joint, skip, 4))
            .collect();
        let radius = calibrated_radius(&folds, 0.99).unwrap();
        let neighbourhood = SampleNeighbourhood::new(folds.concat(), radius);
        held += neighbourhood.acceptance(&joint_rotations(held_out, joint, skip, 1));
        random += neighbourhood.random_acceptance(5_000, 7);
    }
    let n = limits.joints.len() as f64;
    (held / n, random / n)
}

/// The skeleton and motions of [`CLIPS`]; `None` (the test skips) without the fixtures.
fn fixture_motions() -> Option<(jointlimits::Skeleton, Vec<Motion>)> {
    let mut clips = Vec::new();
    for name in CLIPS {
        clips.push(read_bvh_file(&fixture(name)?).unwrap());
    }
    let motions = clips.iter().map(|c| c.to_motion()).collect();
    Some((clips.swap_remove(0).skeleton, motions))
}

fn random_acceptance(limits: &SkeletonLimits) -> f64 {
    limits
        .joints
        .iter()
        .map(|l| rotation_acceptance(&l.region, 20_000, 7))
        .sum::<f64>()
        / limits.joints.len() as f64
}

#[test]
fn calibrated_limits_accept_the_share_asked_of_a_clip_they_never_saw() {
    let Some((skeleton, motions)) = fixture_motions() else {
        return;
    };
    let skeleton = &skeleton;
    let skip = 5;
    let options = FitOptions {
        space: SpaceKind::Full,
        shape: ShapeKind::Ellipsoid,
        skip_frames: skip,
        ..FitOptions::default()
    };
    let (mut calibrated, mut default, mut tightness) = (Vec::new(), Vec::new(), Vec::new());
    let mut neighbourhoods = Vec::new();
    for held_out in 0..motions.len() {
        let rest: Vec<&Motion> = (0..motions.len())
            .filter(|&i| i != held_out)
            .map(|i| &motions[i])
            .collect();
        let (limits, calibrations) =
            fit_calibrated_skeleton_limits(skeleton, &rest, &options, 0.99, &|_| {}).unwrap();
        // On the clips it was calibrated on, the cross-validated share reached is the one asked.
        for c in &calibrations {
            assert!(
                c.validated_acceptance.is_nan() || c.validated_acceptance >= 0.99 - 1e-9,
                "{}: {}",
                c.joint,
                c.validated_acceptance
            );
        }
        let plain = fit_skeleton_limits(skeleton, &rest, &options, &|_| {}).unwrap();
        let (a, f) = acceptance(&limits, skeleton, &motions[held_out], skip);
        let (pa, pf) = acceptance(&plain, skeleton, &motions[held_out], skip);
        let (ra, pr) = (random_acceptance(&limits), random_acceptance(&plain));
        println!(
            "{} held out: calibrated {:.2}% of joint-frames ({:.1}% frames all inside, {:.3}% random); \
             2° padding {:.2}% ({:.1}%, {:.3}% random)",
            CLIPS[held_out],
            a * 100.0,
            f * 100.0,
            ra * 100.0,
            pa * 100.0,
            pf * 100.0,
            pr * 100.0
        );
        let (na, nr) = neighbourhood_acceptance(&limits, skeleton, &rest, &motions[held_out], skip);
        println!(
            "    sample neighbourhood (radius: 99% of each fitted clip left out): {:.2}% of \
             joint-frames, {:.3}% random",
            na * 100.0,
            nr * 100.0
        );
        neighbourhoods.push((na, nr));
        calibrated.push(a);
        default.push(pa);
        tightness.push((ra, pr));
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "mean per-joint acceptance of the held-out clip: calibrated {:.2}%, 2° padding {:.2}%",
        mean(&calibrated) * 100.0,
        mean(&default) * 100.0
    );
    assert!(mean(&calibrated) > mean(&default));
    assert!(mean(&calibrated) >= 0.99, "{}", mean(&calibrated));
    // Margins grown side by side towards the unseen motion (and outliers left out) cost no
    // tightness over the default padding on average, while accepting more of the unseen clip.
    let (calibrated_random, default_random): (Vec<f64>, Vec<f64>) = tightness.into_iter().unzip();
    println!(
        "mean random rotations accepted: calibrated {:.3}%, 2° padding {:.3}%",
        mean(&calibrated_random) * 100.0,
        mean(&default_random) * 100.0
    );
    assert!(mean(&calibrated_random) <= mean(&default_random));
    // With no shape assumed, holding the unseen motion costs more random rotations than the
    // calibrated ellipsoids accept: these clips' unseen motion lies far from the fitted one.
    let (neighbourhood_held, neighbourhood_random): (Vec<f64>, Vec<f64>) =
        neighbourhoods.into_iter().unzip();
    println!(
        "sample neighbourhoods: {:.2}% of the held-out clip's joint-frames, {:.3}% random",
        mean(&neighbourhood_held) * 100.0,
        mean(&neighbourhood_random) * 100.0
    );
    assert!(mean(&calibrated_random) < mean(&neighbourhood_random));
}

/// `salsa_10` holds a capture glitch (frames 300–318: the abdomen flung 150° about its z axis
/// and the right foot 90° about two axes, and back): holding 99% of the frames leaves it out, so
/// the right foot's limit shrinks to a fraction while still holding 99% of the clip.
#[test]
fn holding_a_share_leaves_a_capture_glitch_out_of_every_kind() {
    let Some(path) = fixture("cmu_daz/salsa_10.bvh") else {
        return;
    };
    let clip = read_bvh_file(&path).unwrap();
    let motion = clip.to_motion();
    let joint = clip.skeleton.find("rFoot").unwrap();
    for (space, shape) in [
        (SpaceKind::Full, ShapeKind::Ellipsoid),
        (SpaceKind::Full, ShapeKind::Box),
        (SpaceKind::Full, ShapeKind::Kdop(KdopDirections::Thirteen)),
        (SpaceKind::SwingTwist, ShapeKind::Ellipsoid),
        (SpaceKind::Full, ShapeKind::ReachCone),
    ] {
        let fit = |hold: f64| {
            let options = FitOptions {
                space,
                shape,
                hold,
                ..FitOptions::default()
            };
            let limits =
                fit_skeleton_limits(&clip.skeleton, &[&motion], &options, &|_| {}).unwrap();
            limits
                .joints
                .into_iter()
                .find(|l| l.joint == "rFoot")
                .unwrap()
        };
        let (every, held) = (fit(1.0), fit(0.99));
        let frames = motion.frame_count();
        let inside = (0..frames)
            .filter(|&f| held.contains(motion.frame_rotations(f)[joint]))
            .count();
        assert!(
            inside as f64 >= 0.99 * frames as f64,
            "{shape:?} {space:?}: holds {inside} of {frames}"
        );
        assert!(!held.contains(motion.frame_rotations(311)[joint]));
        let (random_every, random_held) = (
            rotation_acceptance(&every.region, 20_000, 3),
            rotation_acceptance(&held.region, 20_000, 3),
        );
        println!(
            "rFoot {shape:?} {space:?}: random rotations accepted {:.2}% holding every frame, {:.2}% holding 99%",
            random_every * 100.0,
            random_held * 100.0
        );
        assert!(random_held < 0.5 * random_every, "{shape:?} {space:?}");
    }
}

/// Tables calibrated with one padding for bone directions and another for twists
/// ([`jointlimits::fit::swing_twist_margin`]): fitted on three DAZ clips, judged on `salsa_10`, which
/// they never saw. Held-out dancing mostly turns the shoulders about themselves further than
/// the fitted clips did, at directions they reached: the calibration grows the shoulders' twist
/// ranges more than their caps.
#[test]
fn calibrated_tables_grow_twist_and_swing_by_what_unseen_motion_needs_of_each() {
    let Some((skeleton, motions)) = fixture_motions() else {
        return;
    };
    let skeleton = &skeleton;
    let skip = 5;
    let options = FitOptions {
        shape: ShapeKind::Table(64),
        skip_frames: skip,
        ..FitOptions::default()
    };
    let rest: Vec<&Motion> = motions[..3].iter().collect();
    let (limits, calibrations) =
        fit_calibrated_skeleton_limits(skeleton, &rest, &options, 0.99, &|_| {}).unwrap();
    let mut twist_led = Vec::new();
    for c in &calibrations {
        assert!(
            c.validated_acceptance.is_nan() || c.validated_acceptance >= 0.99 - 1e-9,
            "{}: {}",
            c.joint,
            c.validated_acceptance
        );
        if let [swing, twist] = c.directed_margins[..]
            && twist > swing
        {
            twist_led.push(c.joint.as_str());
        }
    }
    let (held, every) = acceptance(&limits, skeleton, &motions[3], skip);
    println!(
        "calibrated 64² tables on {}: {:.2}% of joint-frames ({:.1}% of frames all inside), \
         {:.3}% of random rotations; twist margin above swing margin: {twist_led:?}",
        CLIPS[3],
        held * 100.0,
        every * 100.0,
        random_acceptance(&limits) * 100.0
    );
    assert!(held >= 0.985, "{held}");
    for shoulder in ["lShldr", "rShldr"] {
        assert!(twist_led.contains(&shoulder), "{shoulder}: {twist_led:?}");
    }
}
