//! The contract on limits fitted to real clips, fed what pose generators, blends and IK hand a
//! limiter: Haar-random rotations in both covers, as discontinuous frames. Every answer (the
//! stateless one, a `Limiter`'s and a path-aware `Limiter`'s) is allowed when measured again;
//! allowed inputs come back unchanged; quaternions of any scale give finite answers.
//!
//! Regressions: tables whose allowed directions cross the octahedral map's folded edge answered
//! directions outside (lThigh, up to 0.074 rad); a path from a direction to its near-opposite
//! built a non-unit direction (path-aware tables, 2.8e-3 rad); swing-twist answers within a few
//! degrees of a 180° swing were measured outside because the family of equal rotations there
//! was searched with the wrong sign (up to 9e-4 rad); reach-cone answers on thin slices were
//! measured outside by up to 4e-5 rad after rounding; inputs of length 3e38 gave NaN.

use glam::Quat;
use jointlimits::fit::authored::AuthoredShape;
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::shape::KdopDirections;
use jointlimits::{JointLimit, Limiter, SpaceKind};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::{SplitMix, fixture};

/// How far outside (radians, in the kind's metric) a rotation may be measured and still count as
/// the answer of a projection: twice [`jointlimits::contract::BOUNDARY_TOLERANCE`].
const MEASURED_AGAIN: f32 = 2e-5;

fn haar(random: &mut SplitMix) -> Quat {
    Quat::from_array(random.haar_quaternion())
}

/// The failures of one joint's limit on `count` random rotations.
fn failures(limit: &JointLimit, random: &mut SplitMix, count: usize) -> Vec<String> {
    let mut failures = Vec::new();
    let mut stream = Limiter::new(vec![Some(limit.clone())]);
    let mut path_aware = Limiter::new(vec![Some(limit.clone())]).with_path_aware(true);
    for i in 0..count {
        let q = if i % 2 == 0 {
            haar(random)
        } else {
            -haar(random)
        };
        let local = limit.local(q);
        let nearest = limit.limit_relative(q);
        let (streamed, _) = stream.limit_joint(0, local);
        let (crossed, _) = path_aware.limit_joint(0, local);
        for (name, output) in [
            ("stateless", limit.local(nearest.relative)),
            ("limiter", streamed),
            ("path-aware", crossed),
        ] {
            let after = limit.violation(output);
            if !output.is_finite() || after > MEASURED_AGAIN {
                failures.push(format!(
                    "{}: {name} answer to {q} is {after} outside",
                    limit.joint
                ));
            }
            if nearest.inside && name != "stateless" && output != local {
                failures.push(format!("{}: {name} moved the allowed {q}", limit.joint));
            }
        }
    }
    // Quaternions far from unit length, then unit ones after that history.
    let mut stream = Limiter::new(vec![Some(limit.clone())]);
    for scale in [1e-30f32, 1e-19, 1e19, 3e38, f32::MAX] {
        for _ in 0..8 {
            for q in [haar(random) * scale, haar(random)] {
                let (output, result) = stream.limit_joint(0, q);
                if !output.is_finite() || !result.violation.is_finite() {
                    failures.push(format!("{}: {q} gave {output}", limit.joint));
                }
            }
        }
    }
    failures
}

#[test]
fn answers_to_random_poses_are_allowed_for_every_fitted_kind() {
    let clips = [
        "cmu_daz/martial_04.bvh",
        "cmu_max/131_01.bvh",
        "cmu_mb2/12_01_walk.bvh",
    ];
    let kinds = [
        (SpaceKind::Full, ShapeKind::Box),
        (SpaceKind::Full, ShapeKind::Ellipsoid),
        (SpaceKind::Full, ShapeKind::Kdop(KdopDirections::Thirteen)),
        (SpaceKind::Full, ShapeKind::Hull),
        (SpaceKind::Full, ShapeKind::ReachCone),
        (SpaceKind::Full, ShapeKind::Table(64)),
        (SpaceKind::SwingTwist, ShapeKind::Box),
        (SpaceKind::SwingTwist, ShapeKind::Obb),
        (SpaceKind::SwingTwist, ShapeKind::Ellipsoid),
        (SpaceKind::SwingTwist, ShapeKind::MinimumVolumeEllipsoid),
        (
            SpaceKind::Full,
            ShapeKind::Authored(AuthoredShape::Euler(None)),
        ),
        (SpaceKind::Full, ShapeKind::Authored(AuthoredShape::Hinge)),
        (SpaceKind::Full, ShapeKind::Authored(AuthoredShape::Cone)),
        (
            SpaceKind::Full,
            ShapeKind::Authored(AuthoredShape::SphericalEllipse),
        ),
    ];
    let mut random = SplitMix(99);
    let mut all = Vec::new();
    for clip in clips {
        let Some(path) = fixture(clip) else { return };
        let bvh = read_bvh_file(&path).unwrap();
        let motion = bvh.to_motion();
        for (space, shape) in kinds {
            let options = FitOptions {
                space,
                shape,
                skip_frames: 5,
                ..FitOptions::default()
            };
            let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {})
                .unwrap_or_else(|e| panic!("{clip} {space:?} {shape:?}: {e}"));
            for limit in &limits.joints {
                for failure in failures(limit, &mut random, 1500) {
                    all.push(format!("{clip} {space:?} {shape:?} {failure}"));
                }
            }
        }
    }
    assert!(
        all.is_empty(),
        "{} failures:\n{}",
        all.len(),
        all.iter().take(30).cloned().collect::<Vec<_>>().join("\n")
    );
}
