//! Reach-cone inclusion tests, one direction at a time.
//!
//! `reach_cone/inside/coherent/n=N`: a path of 4,096 directions moving about 0.6° per step
//! through a concave cone of `N` points (the slice of the previous query is the hint);
//! `reach_cone/inside/random/n=N`: 4,096 uniformly random directions, each found afresh.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use jointlimits::reach_cone::{ReachCone, TwistRange};
use jointlimits_testdata::SplitMix;
use std::hint::black_box;

/// A concave star of `n` points around a tilted visible point: radii between 40° and 100°.
fn cone(n: usize) -> ReachCone {
    let visible = Vec3::new(0.3, -0.8, 0.5).normalize();
    let e1 = visible.any_orthonormal_vector();
    let e2 = visible.cross(e1);
    let boundary: Vec<Vec3> = (0..n)
        .map(|i| {
            let azimuth = i as f32 / n as f32 * std::f32::consts::TAU;
            let radius = (70.0 + 30.0 * (3.0 * azimuth).sin() * if i % 2 == 0 { 1.0 } else { 0.6 })
                .to_radians();
            let (sa, ca) = azimuth.sin_cos();
            visible * radius.cos() + (e1 * ca + e2 * sa) * radius.sin()
        })
        .collect();
    ReachCone::new(
        visible,
        &boundary,
        TwistRange {
            min: -1.0,
            max: 1.0,
        },
    )
    .expect("the benchmark cone is a star")
}

fn random_directions(count: usize) -> Vec<Vec3> {
    let mut random = SplitMix(17);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let v = Vec3::new(
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
        );
        if (0.01..=1.0).contains(&v.length_squared()) {
            out.push(v.normalize());
        }
    }
    out
}

/// A smooth wandering path: each step turns by about 0.01 rad.
fn coherent_path(count: usize) -> Vec<Vec3> {
    let mut random = SplitMix(23);
    let mut d = Vec3::new(0.3, -0.8, 0.5).normalize();
    let mut velocity = Vec3::ZERO;
    (0..count)
        .map(|_| {
            let push = Vec3::new(
                random.next_signed(),
                random.next_signed(),
                random.next_signed(),
            );
            velocity = (0.9 * velocity + 0.002 * push).reject_from(d);
            velocity = velocity.clamp_length_max(0.01);
            d = (d + velocity).normalize();
            d
        })
        .collect()
}

fn inclusion(c: &mut Criterion) {
    let random = random_directions(4096);
    let path = coherent_path(4096);
    let mut group = c.benchmark_group("reach_cone/inside");
    group.throughput(Throughput::Elements(4096));
    for n in [8, 25, 64] {
        let cone = cone(n);
        let inside = path.iter().filter(|&&d| cone.contains(d)).count();
        let changes = path
            .windows(2)
            .filter(|w| cone.slice_of(w[0]) != cone.slice_of(w[1]))
            .count();
        eprintln!(
            "n={n}: the coherent path is inside for {inside} of 4096 steps and changes slice {changes} times"
        );
        group.bench_with_input(
            BenchmarkId::new("coherent", format!("n={n}")),
            &path,
            |b, path| {
                b.iter(|| {
                    let mut slice = 0;
                    let mut count = 0u32;
                    for &d in black_box(path) {
                        count += u32::from(cone.contains_coherent(d, &mut slice));
                    }
                    black_box(count)
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("random", format!("n={n}")),
            &random,
            |b, random| {
                b.iter(|| {
                    let mut count = 0u32;
                    for &d in black_box(random) {
                        count += u32::from(cone.contains(d));
                    }
                    black_box(count)
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, inclusion);
criterion_main!(benches);
