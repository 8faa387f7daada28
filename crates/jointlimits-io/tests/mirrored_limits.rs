//! `jointlimits mirror` on real skeletons: for every fitted kind, the right side's mirrored
//! limit measures any rotation exactly as the left side's measures its reflection (Haar-random
//! rotations in both covers), and mirrored limits are judged against the side's own fit on the
//! same clip and on one the fit never saw.

use glam::Quat;
use jointlimits::fit::mirror::{mirror_pairs, reflect, sagittal_normal};
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::mirror_limits::{Side, mirror_skeleton_limits};
use jointlimits::{JointLimit, LimitRegion, Motion, SkeletonLimits, SpaceKind};
use jointlimits_io::{Bvh, read_bvh_file};
use jointlimits_testdata::{SplitMix, fixture};

fn fit(bvh: &Bvh, clip: &Motion, space: SpaceKind, shape: ShapeKind) -> SkeletonLimits {
    let options = FitOptions {
        space,
        shape,
        skip_frames: 5,
        ..FitOptions::default()
    };
    fit_skeleton_limits(&bvh.skeleton, &[clip], &options, &|_| {}).unwrap()
}

fn limit<'a>(limits: &'a SkeletonLimits, name: &str) -> &'a JointLimit {
    limits.joints.iter().find(|l| l.joint == name).unwrap()
}

fn haar(random: &mut SplitMix) -> Quat {
    Quat::from_array(random.haar_quaternion())
}

#[test]
fn mirrored_limits_measure_every_rotation_as_the_partner_measures_its_reflection() {
    let mut random = SplitMix(57);
    let mut kinds: Vec<(SpaceKind, ShapeKind)> = Vec::new();
    for shape in ShapeKind::ALL {
        kinds.push((SpaceKind::Full, shape));
        if !shape.ignores_space() {
            kinds.push((SpaceKind::SwingTwist, shape));
        }
    }
    for name in [
        "cmu_daz/martial_04.bvh",
        "cmu_max/131_01.bvh",
        "cmu_mb2/12_01_walk.bvh",
    ] {
        let Some(path) = fixture(name) else { return };
        let bvh = read_bvh_file(&path).unwrap();
        let clip = bvh.to_motion();
        let pairs = mirror_pairs(&bvh.skeleton);
        let normal = sagittal_normal(&bvh.skeleton, &pairs).unwrap();
        for &(space, shape) in &kinds {
            let limits = fit(&bvh, &clip, space, shape);
            // What a fit writes is what a limits file may hold: swing shapes symmetric about
            // the swing plane, among the rest (the mirror validates its own output).
            limits
                .validate()
                .unwrap_or_else(|e| panic!("{name} {space:?} {shape}: the fit is refused: {e}"));
            let (mirrored, done) = mirror_skeleton_limits(&limits, &bvh.skeleton, Side::Left, &[])
                .unwrap_or_else(|e| panic!("{name} {space:?} {shape}: {e}"));
            assert_eq!(done.len(), pairs.len(), "{name} {shape}");
            // A table's distance is proven within 1e-3 rad of the least (its bounded search),
            // a reach cone's within 5e-4 where its twist limits vary, so two of them may
            // measure one rotation that much apart; other kinds are exact.
            let precision = match shape {
                ShapeKind::Table(_) => 1.2e-3,
                ShapeKind::ReachCone => 6e-4,
                _ => 2e-4,
            };
            let (mut compared, mut differing, mut worst) = (0, 0, 0.0f32);
            for (left, right) in &done {
                let (source, target) = (limit(&limits, left), limit(&mirrored, right));
                assert_eq!(target.region.kind_name(), source.region.kind_name());
                for _ in 0..400 {
                    let q = haar(&mut random);
                    let q = if random.next_signed() < 0.0 { -q } else { q };
                    let theirs = source.violation(reflect(q, normal));
                    let ours = target.violation(q);
                    let gap = (theirs - ours).abs();
                    compared += 1;
                    if gap > precision {
                        differing += 1;
                        worst = worst.max(gap);
                    }
                }
            }
            // A table is resampled on its own grid, which the reflection maps onto itself only
            // for a bone along a coordinate axis: near its boundary cells it may measure
            // differently. Every other kind is mapped exactly.
            let allowed = if matches!(shape, ShapeKind::Table(_)) {
                compared / 20
            } else {
                0
            };
            assert!(
                differing <= allowed,
                "{name} {space:?} {shape}: {differing} of {compared} differ, by up to {worst} rad"
            );
            if let Some(LimitRegion::Table(_)) = limits.joints.first().map(|l| &l.region) {
                println!("{name} table: {differing} of {compared} differ, by up to {worst} rad");
            }
        }
    }
}

/// The share of frames of `clip` (from frame 5) whose rotation of every joint in `joints` the
/// limits allow, per joint-frame.
fn acceptance(limits: &SkeletonLimits, bvh: &Bvh, clip: &Motion, joints: &[String]) -> f64 {
    let (mut inside, mut total) = (0usize, 0usize);
    for name in joints {
        let index = bvh.skeleton.find(name).unwrap();
        let limit = limit(limits, name);
        for frame in 5..clip.frame_count() {
            inside += usize::from(limit.contains(clip.frame_rotations(frame)[index]));
            total += 1;
        }
    }
    inside as f64 / total as f64
}

#[test]
fn the_right_side_mirrored_from_the_left_against_its_own_fit() {
    let (Some(seen), Some(unseen)) = (
        fixture("cmu_daz/martial_04.bvh"),
        fixture("cmu_daz/martial_07.bvh"),
    ) else {
        return;
    };
    let bvh = read_bvh_file(&seen).unwrap();
    let clip = bvh.to_motion();
    let other = read_bvh_file(&unseen).unwrap().to_motion();
    let rights: Vec<String> = mirror_pairs(&bvh.skeleton)
        .iter()
        .map(|&(_, r)| bvh.skeleton.joints()[r].name.clone())
        .collect();
    for shape in [ShapeKind::Ellipsoid, ShapeKind::Hull] {
        let own = fit(&bvh, &clip, SpaceKind::Full, shape);
        let (mirrored, _) = mirror_skeleton_limits(&own, &bvh.skeleton, Side::Left, &[]).unwrap();
        let figures = [
            acceptance(&own, &bvh, &clip, &rights),
            acceptance(&mirrored, &bvh, &clip, &rights),
            acceptance(&own, &bvh, &other, &rights),
            acceptance(&mirrored, &bvh, &other, &rights),
        ];
        println!(
            "{shape}: right side of martial_04 (fitted): own fit {:.2}%, mirrored from the left {:.2}%; of martial_07 (unseen): own {:.2}%, mirrored {:.2}%",
            figures[0] * 100.0,
            figures[1] * 100.0,
            figures[2] * 100.0,
            figures[3] * 100.0
        );
        // A side's own fit holds its own frames; the mirrored one holds most of them, as the
        // two sides of a martial-arts clip move alike but not the same.
        assert!(figures[0] >= 0.999 && figures[1] >= 0.85, "{figures:?}");
    }
}

/// A mirrored joint was fitted as its source was: the source's fit record (a configuration's
/// choice, a calibration's margin) follows it to the other side, replacing the target's own.
#[test]
fn fit_records_follow_the_mirrored_joints() {
    let Some(path) = fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let bvh = read_bvh_file(&path).unwrap();
    let clip = bvh.to_motion();
    let mut limits = fit(&bvh, &clip, SpaceKind::Full, ShapeKind::Ellipsoid);
    let options = FitOptions {
        padding: 0.2,
        ..limits.fitted_with.unwrap()
    };
    let record = |joint: &str, accept| jointlimits::JointFitRecord {
        joint: joint.into(),
        options,
        accept,
        directed_margins: vec![0.1, 0.0, 0.3],
    };
    limits.fitted_joints = vec![record("lShldr", Some(0.99)), record("rThigh", None)];
    let (mirrored, _) = mirror_skeleton_limits(&limits, &bvh.skeleton, Side::Left, &[]).unwrap();
    let find = |name: &str| mirrored.fitted_joints.iter().find(|r| r.joint == name);
    assert_eq!(find("rShldr"), Some(&record("rShldr", Some(0.99))));
    assert_eq!(find("lShldr"), Some(&record("lShldr", Some(0.99))));
    // The right thigh is now the left one's mirror image, which was fitted with the defaults.
    assert!(find("rThigh").is_none());
}
