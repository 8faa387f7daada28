//! Limits fitted on real motion capture: they accept the frames they were fitted on, pull
//! out-of-range poses back inside, survive the limits file, and the file rejects bad input.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ReferenceChoice, ShapeKind, fit_skeleton_limits};
use jointlimits::shape::KdopDirections;
use jointlimits::{LimitContext, Motion, RotationLimit, SpaceKind};
use jointlimits_io::{
    LimitsFileError, parse_limits, read_bvh_file, read_limits_file, write_limits_file,
};
use jointlimits_testdata::{SplitMix, fixture};

const SHAPES: [ShapeKind; 8] = [
    ShapeKind::Box,
    ShapeKind::Obb,
    ShapeKind::Ellipsoid,
    ShapeKind::MinimumVolumeEllipsoid,
    ShapeKind::Kdop(KdopDirections::Thirteen),
    ShapeKind::Hull,
    ShapeKind::ReachCone,
    ShapeKind::Table(64),
];

/// Frames `range` of `motion` as a clip of their own.
fn frames(motion: &Motion, range: std::ops::Range<usize>) -> Motion {
    let n = motion.joint_count;
    Motion {
        frame_time: motion.frame_time,
        joint_count: n,
        rotations: motion.rotations[range.start * n..range.end * n].to_vec(),
        translations: motion.translations[range.start * n..range.end * n].to_vec(),
    }
}

#[test]
fn fitted_limits_accept_their_frames_and_pull_outliers_inside() {
    let cases = [
        ("cmu_mb2/12_01_walk.bvh", 1, ReferenceChoice::Frame(0)),
        ("cmu_daz/martial_07.bvh", 5, ReferenceChoice::Bind),
        ("cmu_max/131_01.bvh", 0, ReferenceChoice::Mean),
    ];
    for (name, skip, reference) in cases {
        let Some(path) = fixture(name) else { return };
        let bvh = read_bvh_file(&path).unwrap();
        let motion = bvh.to_motion();
        let fitting = frames(&motion, 0..motion.frame_count().min(600));
        for space in [SpaceKind::Full, SpaceKind::SwingTwist] {
            for shape in SHAPES {
                let options = FitOptions {
                    space,
                    shape,
                    padding: 2f64.to_radians(),
                    subsample: 0.02,
                    reference,
                    skip_frames: skip,
                    softening: None,
                    hold: 1.0,
                    ..FitOptions::default()
                };
                let limits = fit_skeleton_limits(&bvh.skeleton, &[&fitting], &options, &|_| {})
                    .unwrap_or_else(|e| panic!("{name} {space:?} {shape:?}: {e}"));
                assert_eq!(limits.joints.len(), bvh.skeleton.len() - 1);
                let mut limiter = limits.bind(&bvh.skeleton).unwrap();
                for frame in skip..fitting.frame_count() {
                    for (j, &q) in fitting.frame_rotations(frame).iter().enumerate() {
                        let (_, result) = limiter.limit_joint(j, q);
                        assert!(
                            result.violation <= 1e-5,
                            "{name} {space:?} {shape:?}: joint {} frame {frame} violates by {}",
                            bvh.skeleton.joints()[j].name,
                            result.violation
                        );
                    }
                }
                // A pose far outside every limit: each limited joint turned 150° about a tilted
                // axis from its reference. The limit must bring it inside.
                for limit in &limits.joints {
                    let wild = limit.reference
                        * Quat::from_axis_angle(Vec3::new(0.3, -0.8, 0.5).normalize(), 2.6);
                    let limited = limit.limit(wild);
                    let relative = rotation_short(limit.relative(limited));
                    let check = limit.limit_relative(relative);
                    assert!(
                        check.violation <= 1e-4,
                        "{name} {space:?} {shape:?} {}: limited pose still {} outside",
                        limit.joint,
                        check.violation
                    );
                    assert!(limited.is_finite());
                }
            }
        }
    }
}

fn rotation_short(q: Quat) -> Quat {
    jointlimits::rotation::quat_abs(q)
}

#[test]
fn held_out_frames_are_mostly_accepted() {
    let Some(path) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let bvh = read_bvh_file(&path).unwrap();
    let motion = bvh.to_motion();
    let half = motion.frame_count() / 2;
    let (train, test) = (
        frames(&motion, 1..half),
        frames(&motion, half..motion.frame_count()),
    );
    let options = FitOptions {
        shape: ShapeKind::Kdop(KdopDirections::Thirteen),
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&train], &options, &|_| {}).unwrap();
    let mut limiter = limits.bind(&bvh.skeleton).unwrap();
    let (mut inside, mut total) = (0, 0);
    for frame in 0..test.frame_count() {
        for (j, &q) in test.frame_rotations(frame).iter().enumerate() {
            if limiter.joint_limit(j).is_some() {
                inside += usize::from(limiter.limit_joint(j, q).1.violation <= 1e-5);
                total += 1;
            }
        }
    }
    let rate = inside as f64 / total as f64;
    println!(
        "walk, second half against limits of the first: {:.2}% of joint-frames inside",
        rate * 100.0
    );
    assert!(rate > 0.95, "{rate}");
}

#[test]
fn limits_files_round_trip_and_reject_bad_content() {
    let Some(path) = fixture("cmu_mb2008/01_01.bvh") else {
        return;
    };
    let bvh = read_bvh_file(&path).unwrap();
    let motion = bvh.to_motion();
    let options = FitOptions {
        space: SpaceKind::SwingTwist,
        shape: ShapeKind::Hull,
        skip_frames: 1,
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
    let dir = std::env::temp_dir().join(format!("jl-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("limits.json");
    write_limits_file(&file, &limits).unwrap();
    let back = read_limits_file(&file).unwrap();
    assert_eq!(back.joints.len(), limits.joints.len());
    for (a, b) in limits.joints.iter().zip(&back.joints) {
        let q = Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 1.3);
        assert!(jointlimits::rotation::angle_between(a.limit(q), b.limit(q)) < 1e-4);
    }

    let text = std::fs::read_to_string(&file).unwrap();
    let expect = |text: &str, needle: &str| {
        let error = parse_limits(text, "bad.json").unwrap_err().to_string();
        assert!(error.contains(needle), "{error:?} lacks {needle:?}");
        assert!(error.starts_with("bad.json"), "{error}");
    };
    expect(
        &text.replacen("\"version\": 1", "\"version\": 7", 1),
        "version 7",
    );
    expect(
        &text.replacen("\"jointlimits\"", "\"other\"", 1),
        "not a jointlimits file",
    );
    expect(
        "{\"format\": \"jointlimits\", \"version\": 1, \"joints\": [",
        "bad.json:1:",
    );
    let first_number = text.find("\"reference\": [").unwrap() + "\"reference\": [".len();
    let mut with_null = text.clone();
    with_null.replace_range(first_number..first_number + 1, "null, 0");
    assert!(matches!(
        parse_limits(&with_null, "bad.json"),
        Err(LimitsFileError::Json { .. })
    ));
    let huge = text.replacen("\"reference\": [", "\"reference\": [1e400, ", 1);
    expect(&huge, "bad.json:");
    // Skeleton mismatch names the joints.
    let mut renamed = limits.clone();
    renamed.joints[0].joint = "NoSuchJoint".into();
    let error = renamed.bind(&bvh.skeleton).unwrap_err().to_string();
    assert!(error.contains("NoSuchJoint"), "{error}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `count` rotations drawn uniformly from SO(3): points of the 4-ball, normalised.
fn uniform_rotations(count: usize) -> Vec<Quat> {
    let mut random = SplitMix(2026);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let v = glam::Vec4::new(
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
        );
        let length = v.length();
        if (0.05..=1.0).contains(&length) {
            out.push(Quat::from_vec4(v / length));
        }
    }
    out
}

/// Reach cones fitted on real clips hold every fitting frame, and accept fewer random
/// rotations than convex shapes fitted on the same frames: the share of uniformly random
/// rotations accepted, averaged over joints, is printed for each.
#[test]
fn fitted_reach_cones_are_tighter_than_convex_shapes() {
    let cases = [
        ("cmu_mb2/12_01_walk.bvh", 1),
        ("cmu_daz/martial_07.bvh", 5),
        ("cmu_max/131_01.bvh", 0),
    ];
    let random = uniform_rotations(20_000);
    let kinds = [
        (SpaceKind::Full, ShapeKind::Ellipsoid, "full ellipsoid"),
        (
            SpaceKind::Full,
            ShapeKind::Kdop(KdopDirections::Thirteen),
            "full 13-DOP",
        ),
        (
            SpaceKind::SwingTwist,
            ShapeKind::Ellipsoid,
            "swing-twist ellipsoid",
        ),
        (
            SpaceKind::SwingTwist,
            ShapeKind::Kdop(KdopDirections::Thirteen),
            "swing-twist 13-DOP",
        ),
        (SpaceKind::Full, ShapeKind::ReachCone, "reach cone"),
    ];
    for (name, skip) in cases {
        let Some(path) = fixture(name) else { return };
        let bvh = read_bvh_file(&path).unwrap();
        let motion = bvh.to_motion();
        let mut rates = Vec::new();
        for (space, shape, label) in kinds {
            let options = FitOptions {
                space,
                shape,
                padding: 2f64.to_radians(),
                skip_frames: skip,
                ..FitOptions::default()
            };
            let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {})
                .unwrap_or_else(|e| panic!("{name} {label}: {e}"));
            let mut limiter = limits.bind(&bvh.skeleton).unwrap();
            let mut worst = 0.0f32;
            for frame in skip..motion.frame_count() {
                for (j, &q) in motion.frame_rotations(frame).iter().enumerate() {
                    worst = worst.max(limiter.limit_joint(j, q).1.violation);
                }
            }
            assert!(
                worst <= 1e-5,
                "{name} {label}: a fitting frame is outside by {worst}"
            );
            let accepted: f64 = limits
                .joints
                .iter()
                .map(|limit| {
                    let inside = random
                        .iter()
                        .filter(|&&q| {
                            limit
                                .region
                                .contains(rotation_short(q), &LimitContext::NONE)
                        })
                        .count();
                    inside as f64 / random.len() as f64
                })
                .sum::<f64>()
                / limits.joints.len() as f64;
            rates.push((label, accepted));
        }
        let table: Vec<String> = rates
            .iter()
            .map(|(label, rate)| format!("{label} {:.2}%", rate * 100.0))
            .collect();
        println!(
            "{name}: random rotations accepted (mean over joints): {}",
            table.join(", ")
        );
        let cone = rates.last().unwrap().1;
        let full_ellipsoid = rates[0].1;
        assert!(
            cone < full_ellipsoid,
            "{name}: reach cone {cone} vs ellipsoid {full_ellipsoid}"
        );
    }
}
