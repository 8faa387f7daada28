//! Offline fitting costs: subsampling a million limit-space samples.
//!
//! `subsample/1M/<range>`: one million samples of a random walk (like a joint over a long clip)
//! spread over a wrist-like, a shoulder-like and an unconstrained range, spacing 0.05 rad.

use criterion::{Criterion, criterion_group, criterion_main};
use glam::DVec3;
use jointlimits::fit::subsample;
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

criterion_group!(benches, subsampling);
criterion_main!(benches);
