//! Lookup-table limits on a table fitted to a shoulder-like crescent of swings (128² cells).
//!
//! `table/inside`: the inside test of a whole rotation (quaternion in, answer out) on 4,096
//! rotations drawn from the fitted region (all allowed), on the table prepared for repeated
//! tests ([`TableLimit::prepare`]); `table/inside_unprepared`: the same without preparing, every
//! answer measured and interpolated; `table/inside_lanes`: the same through the
//! lane test the crowd and `limit_many` use (32 at a time). `project/table/per_call`: the full
//! projection (`nearest`, quaternion to quaternion) on 4,096 inputs of which half are allowed
//! and half are Haar-random rotations (nearly all outside). `project/table/per_call_near`: the
//! same on 4,096 fitted rotations each turned by up to 0.1 rad (natural motion a little off
//! the data; the share outside is printed). `project/table/batched`: `JointLimit::limit_many`
//! on the mixed inputs.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use jointlimits::batch::{LANES, SurelyInside};
use jointlimits::fit::table::fit_table;
use jointlimits::measure::SeededRandom;
use jointlimits::{JointLimit, LimitContext, LimitRegion, RotationLimit};
use std::hint::black_box;

fn fitted() -> (jointlimits::table::TableLimit, Vec<Quat>) {
    let axis = Vec3::Y;
    let samples: Vec<Quat> = (0..4000)
        .map(|i| {
            let a = i as f32 * 0.0015;
            let swing = Quat::from_axis_angle(
                Vec3::new(a.cos(), 0.0, a.sin()),
                0.3 + 0.9 * (3.0 * a).sin().abs(),
            );
            swing * Quat::from_axis_angle(axis, 0.6 * a.sin() - 0.2)
        })
        .collect();
    let table = fit_table(&samples, axis, 2f64.to_radians(), 128).expect("a table");
    (table, samples)
}

fn table_benches(c: &mut Criterion) {
    let (table, samples) = fitted();
    let inside: Vec<Quat> = samples.iter().step_by(1).take(4096).copied().collect();
    let mut random = SeededRandom::new(3);
    let mixed: Vec<Quat> = (0..4096)
        .map(|i| {
            if i % 2 == 0 {
                samples[i % samples.len()]
            } else {
                random.rotation()
            }
        })
        .collect();
    let none = LimitContext::NONE;
    let mut prepared = table.clone();
    prepared.prepare();
    let cells = prepared.inside_cells().expect("prepared");
    let proven = inside.iter().filter(|&&q| cells.surely_allowed(q)).count();
    eprintln!(
        "table/inside: {:.1}% of the rotations lie in proven cells ({} kB)",
        100.0 * proven as f64 / inside.len() as f64,
        cells.memory_bytes() / 1000
    );
    let mut group = c.benchmark_group("table");
    group.throughput(Throughput::Elements(inside.len() as u64));
    group.bench_function("inside", |b| {
        b.iter(|| {
            inside
                .iter()
                .filter(|&&q| prepared.contains(black_box(q), &none))
                .count()
        })
    });
    group.bench_function("inside_unprepared", |b| {
        b.iter(|| {
            inside
                .iter()
                .filter(|&&q| table.contains(black_box(q), &none))
                .count()
        })
    });
    // The same rotations through the crowd's and `limit_many`'s lane test, 32 at a time.
    let joint = JointLimit {
        joint: "shoulder".into(),
        reference: Quat::IDENTITY,
        region: LimitRegion::Table(table.clone()),
        softening: None,
    };
    let lanes = SurelyInside::of(&joint).expect("tables have a lane test");
    let groups: Vec<[Quat; LANES]> = inside
        .chunks_exact(LANES)
        .map(|group| group.try_into().expect("a full group"))
        .collect();
    group.throughput(Throughput::Elements((groups.len() * LANES) as u64));
    group.bench_function("inside_lanes", |b| {
        b.iter(|| {
            groups
                .iter()
                .map(|group| lanes.test(black_box(group)).iter().filter(|&&i| i).count())
                .sum::<usize>()
        })
    });
    group.finish();

    let mut group = c.benchmark_group("project/table");
    group.throughput(Throughput::Elements(mixed.len() as u64));
    group.sample_size(10);
    group.bench_function("per_call", |b| {
        b.iter(|| {
            mixed
                .iter()
                .map(|&q| table.nearest(black_box(q), &none).relative.w)
                .sum::<f32>()
        })
    });
    // Natural motion a little outside: every fitted sample turned by up to 0.1 rad.
    let near: Vec<Quat> = (0..4096)
        .map(|i| {
            let turn = random.direction() * 0.1 * random.next_unit() as f32;
            Quat::from_scaled_axis(turn) * samples[(i * 7) % samples.len()]
        })
        .collect();
    let outside = near.iter().filter(|&&q| !table.contains(q, &none)).count();
    eprintln!(
        "project/table/per_call_near: {:.0}% of the inputs outside",
        100.0 * outside as f64 / near.len() as f64
    );
    group.bench_function("per_call_near", |b| {
        b.iter(|| {
            near.iter()
                .map(|&q| table.nearest(black_box(q), &none).relative.w)
                .sum::<f32>()
        })
    });
    let mut buffer = mixed.clone();
    group.bench_function("batched", |b| {
        b.iter(|| {
            buffer.copy_from_slice(&mixed);
            joint.limit_many(black_box(&mut buffer));
        })
    });
    group.finish();
}

criterion_group!(benches, table_benches);
criterion_main!(benches);
