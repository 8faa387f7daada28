//! Parse speed of the BVH reader on the real fixtures, reported as bytes per second.
//!
//! `bvh/parse/<file>` measures text → [`Bvh`](jointlimits_io::Bvh) (hierarchy and every motion
//! value); `bvh/parse_to_motion/<file>` adds the conversion of every frame to quaternions.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use jointlimits_io::bvh::parse_bvh_named;
use std::hint::black_box;

fn parse(c: &mut Criterion) {
    let Some(files) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    let mut group = c.benchmark_group("bvh");
    for path in files {
        let bytes = std::fs::read(&path).expect("fixture is readable");
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function(format!("parse/{name}"), |b| {
            b.iter(|| parse_bvh_named(black_box(&bytes), "bench").unwrap())
        });
        group.bench_function(format!("parse_to_motion/{name}"), |b| {
            b.iter(|| {
                parse_bvh_named(black_box(&bytes), "bench")
                    .unwrap()
                    .to_motion()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
