//! Offline fitting costs: subsampling a million limit-space samples, and fitting every joint of a
//! million-frame, 31-joint clip.
//!
//! `subsample/1M/<range>`: one million samples of a random walk (like a joint over a long clip)
//! spread over a wrist-like, a shoulder-like and an unconstrained range, spacing 0.05 rad.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::DVec3;
use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits, subsample};
use jointlimits::rotation::from_scaled_angle_axis;
use jointlimits::shape::KdopDirections;
use jointlimits::{Joint, Motion, Skeleton, SpaceKind};
use std::hint::black_box;

/// A deterministic random walk of `n` steps, reflected inside a box of half-widths `extent`.
fn random_walk(n: usize, extent: DVec3, seed: u64) -> Vec<DVec3> {
    let mut state = seed;
    let mut next = move || {
        // SplitMix64, mapped to [-1, 1).
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 52) as f64 - 1.0
    };
    let mut p = DVec3::ZERO;
    let mut velocity = DVec3::ZERO;
    (0..n)
        .map(|_| {
            velocity = 0.95 * velocity + 0.004 * DVec3::new(next(), next(), next());
            p += velocity;
            for k in 0..3 {
                if p[k].abs() > extent[k] {
                    p[k] = p[k].signum() * extent[k];
                    velocity[k] = -velocity[k];
                }
            }
            p
        })
        .collect()
}

fn subsampling(c: &mut Criterion) {
    let mut group = c.benchmark_group("subsample/1M");
    group.sample_size(10);
    let ranges = [
        ("wrist", DVec3::new(0.3, 0.8, 1.2)),
        ("shoulder", DVec3::new(1.2, 1.5, 1.8)),
        ("unconstrained", DVec3::splat(std::f64::consts::PI)),
    ];
    for (name, extent) in ranges {
        let samples = random_walk(1_000_000, extent, 7);
        group.bench_function(name, |b| b.iter(|| subsample(black_box(&samples), 0.05)));
    }
    group.finish();
}

/// A 31-joint chain with a million frames: each joint follows its own random walk in limit space
/// over a range between wrist-like and shoulder-like.
fn million_frame_clip() -> (Skeleton, Motion) {
    const JOINTS: usize = 31;
    const FRAMES: usize = 1_000_000;
    let joints = (0..JOINTS)
        .map(|j| Joint {
            name: format!("joint{j}"),
            parent: j.checked_sub(1),
            offset: Vec3::new(0.0, 10.0, 0.0),
            end_site: None,
            reference_rotation: Quat::IDENTITY,
        })
        .collect();
    let skeleton = Skeleton::new(joints).unwrap();
    let mut rotations = vec![Quat::IDENTITY; FRAMES * JOINTS];
    for j in 1..JOINTS {
        let t = j as f64 / JOINTS as f64;
        let extent = DVec3::new(0.3, 0.8, 1.2) * (1.0 - t) + DVec3::new(1.2, 1.5, 1.8) * t;
        for (f, p) in random_walk(FRAMES, extent, j as u64)
            .into_iter()
            .enumerate()
        {
            rotations[f * JOINTS + j] = from_scaled_angle_axis(p.as_vec3());
        }
    }
    let motion = Motion {
        frame_time: 1.0 / 120.0,
        joint_count: JOINTS,
        rotations,
        translations: vec![Vec3::ZERO; FRAMES * JOINTS],
    };
    (skeleton, motion)
}

/// `fit/1M_frames_31_joints/<shape>`: the whole pipeline (relative rotations, unrolling, limit
/// space, subsampling, PCA, shape) for every joint, in parallel over joints.
fn fitting(c: &mut Criterion) {
    let (skeleton, motion) = million_frame_clip();
    let mut group = c.benchmark_group("fit/1M_frames_31_joints");
    group.sample_size(10);
    let shapes = [
        ("ellipsoid", SpaceKind::Full, ShapeKind::Ellipsoid),
        (
            "kdop13",
            SpaceKind::Full,
            ShapeKind::Kdop(KdopDirections::Thirteen),
        ),
        ("swing_twist_box", SpaceKind::SwingTwist, ShapeKind::Box),
    ];
    for (name, space, shape) in shapes {
        let options = FitOptions {
            space,
            shape,
            ..FitOptions::default()
        };
        group.bench_function(name, |b| {
            b.iter(|| fit_skeleton_limits(&skeleton, &[&motion], &options, &|_| {}).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, subsampling, fitting);
criterion_main!(benches);
