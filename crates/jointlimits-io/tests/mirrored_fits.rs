//! Left/right mirroring on real clips (`fit --mirror`): partners are found on every fixture
//! skeleton, both sides' limits come out mirror images of each other, and on a clip the fit never
//! saw a side's limits learnt from both sides accept at least as much of it as those learnt from
//! its own side alone, and more than the other side's limits reflected.

use glam::Quat;
use jointlimits::fit::authored::AuthoredShape;
use jointlimits::fit::mirror::{mirror_pairs, reflect, sagittal_normal};
use jointlimits::fit::{
    FitOptions, ReferenceChoice, ShapeKind, SkeletonFitChoices, fit_skeleton_limits_with,
};
use jointlimits::{Motion, SkeletonLimits, SpaceKind};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::{SplitMix, fixture};

fn fit_with(
    bvh: &jointlimits_io::Bvh,
    clip: &Motion,
    (space, shape, reference): (SpaceKind, ShapeKind, ReferenceChoice),
    mirror: bool,
) -> SkeletonLimits {
    let options = FitOptions {
        space,
        shape,
        reference,
        skip_frames: 5,
        ..FitOptions::default()
    };
    let choices = SkeletonFitChoices {
        mirror,
        ..SkeletonFitChoices::default()
    };
    fit_skeleton_limits_with(&bvh.skeleton, &[clip], &options, &choices, &|_| {})
        .unwrap()
        .0
}

fn limit<'a>(limits: &'a SkeletonLimits, name: &str) -> &'a jointlimits::JointLimit {
    limits.joints.iter().find(|l| l.joint == name).unwrap()
}

#[test]
fn both_sides_come_out_mirror_images() {
    let mut random = SplitMix(31);
    for name in [
        "cmu_daz/salsa_10.bvh",
        "cmu_mb2/12_01_walk.bvh",
        "cmu_max/131_01.bvh",
    ] {
        let Some(path) = fixture(name) else { return };
        let bvh = read_bvh_file(&path).unwrap();
        let pairs = mirror_pairs(&bvh.skeleton);
        assert!(pairs.len() >= 10, "{name}: {} pairs", pairs.len());
        let normal = sagittal_normal(&bvh.skeleton, &pairs).unwrap();
        let clip = bvh.to_motion();
        // The kinds with a bone axis (the two sides' bones differ by up to 3° on these
        // skeletons, after reflection), and a mean reference pose (the two sides' means differ
        // by up to 15°): each side fitted in its own frame used to come out different.
        let full = |shape| (SpaceKind::Full, shape, ReferenceChoice::Bind);
        for (space, shape, reference) in [
            full(ShapeKind::Box),
            full(ShapeKind::Ellipsoid),
            full(ShapeKind::Hull),
            full(ShapeKind::Authored(AuthoredShape::Cone)),
            full(ShapeKind::Authored(AuthoredShape::SphericalEllipse)),
            full(ShapeKind::ReachCone),
            (SpaceKind::SwingTwist, ShapeKind::Box, ReferenceChoice::Bind),
            (SpaceKind::Full, ShapeKind::Ellipsoid, ReferenceChoice::Mean),
        ] {
            let shape = (space, shape, reference);
            let limits = fit_with(&bvh, &clip, shape, true);
            let mut disagreements = 0;
            for &(l, r) in &pairs {
                let joints = bvh.skeleton.joints();
                let (left, right) = (
                    limit(&limits, &joints[l].name),
                    limit(&limits, &joints[r].name),
                );
                for _ in 0..2000 {
                    let q = Quat::from_xyzw(
                        random.next_signed(),
                        random.next_signed(),
                        random.next_signed(),
                        random.next_signed(),
                    )
                    .normalize();
                    // Inside and near the region as well as far from it.
                    let q = if random.next_signed() > 0.0 {
                        left.limit(q)
                    } else {
                        q
                    };
                    let mirrored = reflect(q, normal);
                    if left.contains(q) != right.contains(mirrored) {
                        // Only a rounding away from the boundary.
                        let gap = left.violation(q).max(right.violation(mirrored));
                        assert!(
                            gap < 1e-4,
                            "{name} {shape:?} {}: {q} differs by {gap}",
                            joints[l].name
                        );
                        disagreements += 1;
                    }
                }
            }
            assert!(disagreements < 20, "{name} {shape:?}: {disagreements}");
        }
    }
}

/// The share of `clip`'s frames (after 5) whose rotation of joint `j`, reflected when `mirrored`,
/// `limit` accepts.
fn accepted(
    limit: &jointlimits::JointLimit,
    clip: &Motion,
    j: usize,
    mirrored: Option<glam::Vec3>,
) -> f64 {
    let frames = 5..clip.frame_count();
    let inside = frames
        .clone()
        .filter(|&f| {
            let q = clip.frame_rotations(f)[j];
            limit.contains(mirrored.map_or(q, |n| reflect(q, n)))
        })
        .count();
    inside as f64 / frames.len() as f64
}

/// Limits fitted to `clip` at the default padding, or calibrated to accept the share `accept`.
fn fit_accepting(
    bvh: &jointlimits_io::Bvh,
    clip: &Motion,
    mirror: bool,
    accept: Option<f64>,
) -> SkeletonLimits {
    let options = FitOptions {
        skip_frames: 5,
        ..FitOptions::default()
    };
    let choices = SkeletonFitChoices {
        mirror,
        accept,
        ..SkeletonFitChoices::default()
    };
    fit_skeleton_limits_with(&bvh.skeleton, &[clip], &options, &choices, &|_| {})
        .unwrap()
        .0
}

#[test]
fn a_side_learnt_from_both_sides_accepts_more_of_an_unseen_clip() {
    let (Some(fitting), Some(unseen)) = (
        fixture("cmu_daz/martial_04.bvh"),
        fixture("cmu_daz/martial_07.bvh"),
    ) else {
        return;
    };
    let bvh = read_bvh_file(&fitting).unwrap();
    let unseen = read_bvh_file(&unseen).unwrap().to_motion();
    let clip = bvh.to_motion();
    let pairs = mirror_pairs(&bvh.skeleton);
    let normal = sagittal_normal(&bvh.skeleton, &pairs).unwrap();
    for accept in [None, Some(0.99)] {
        let own = fit_accepting(&bvh, &clip, false, accept);
        let pooled = fit_accepting(&bvh, &clip, true, accept);
        for (judged, name) in [
            (&clip, "martial_04 (fitted)"),
            (&unseen, "martial_07 (unseen)"),
        ] {
            let (mut own_share, mut other_share, mut pooled_share) = (0.0, 0.0, 0.0);
            for &(l, r) in &pairs {
                let joints = bvh.skeleton.joints();
                for (this, other) in [(l, r), (r, l)] {
                    let joint = &joints[this].name;
                    own_share += accepted(limit(&own, joint), judged, this, None);
                    // The other side's own limits, reflected: its limit on the reflected
                    // rotation.
                    other_share +=
                        accepted(limit(&own, &joints[other].name), judged, this, Some(normal));
                    pooled_share += accepted(limit(&pooled, joint), judged, this, None);
                }
            }
            let n = 2.0 * pairs.len() as f64;
            let (own_share, other_share, pooled_share) =
                (own_share / n, other_share / n, pooled_share / n);
            let fitted = accept.map_or("2° padding".to_string(), |p| format!("--accept {p}"));
            println!(
                "fitted to martial_04 ({fitted}), judged on {name}, mean over {n} paired joints: \
                 own side {:.2}%, other side reflected {:.2}%, both sides (--mirror) {:.2}%",
                own_share * 100.0,
                other_share * 100.0,
                pooled_share * 100.0
            );
            assert!(pooled_share >= own_share - 1e-3 && pooled_share > other_share);
        }
    }
}
