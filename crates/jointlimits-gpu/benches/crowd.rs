//! A crowd of characters of a fitted CMU skeleton (DAZ, 43 joints) playing the capture with
//! random perturbations (see `common/crowd_scene.rs`), limited frame after frame by a
//! [`jointlimits::Crowd`]; per joint.
//!
//! - `crowd/cpu/<n>_threads/<size>`: fitted ellipsoids, 10k, 100k and 1M joints per frame, on one
//!   and two threads.
//! - `crowd/cpu/2_threads/10k_characters/<kind>`: 10,000 characters (430,000 joints) per frame,
//!   for every kind the fitter makes; `<kind>_proven_cells` for the authored kinds with
//!   [`jointlimits::Crowd::with_proven_cells`].
//! - `crowd/gpu/<size>/{with_transfers,on_gpu}`: fitted ellipsoids on the GPU
//!   ([`jointlimits_gpu::GpuCrowd`]), with the upload and read-back of every frame, or the kernel
//!   alone on poses that stay on the GPU; skipped, saying why, where there is no adapter.
//! - `crowd/gpu/10k_characters/<kind>`: every kind on the GPU with transfers, the host's part
//!   (kinds with no native kernel) on the same two threads as the CPU's.
//! - `crowd/cpu/2_threads/10k_characters/ellipsoid_noise_<n>`: fitted ellipsoids with every joint
//!   turned by up to n rad instead (from the clips as captured, all inside, to a third outside).
//!
//! The perturbation is 0.1 rad elsewhere, which puts about a third of the joints outside; the
//! fraction outside is printed for each.

#[allow(dead_code)]
#[path = "common/crowd_scene.rs"]
mod crowd_scene;

use std::cell::Cell;
use std::hint::black_box;

use criterion::measurement::WallTime;
use criterion::{
    BatchSize, BenchmarkGroup, Criterion, Throughput, criterion_group, criterion_main,
};
use crowd_scene::Scene;
use glam::Quat;
use jointlimits::fit::authored::AuthoredShape;
use jointlimits::fit::{FitOptions, ShapeKind};
use jointlimits::shape::KdopDirections;
use jointlimits::{SkeletonLimits, SpaceKind};
use jointlimits_gpu::GpuCrowd;
use jointlimits_testdata::mocap_dir;
use rayon::ThreadPool;

/// How far every joint is turned at random (radians).
const NOISE: f32 = 0.1;

/// Frames played in turn (the crowd's history runs on through them).
const FRAMES: usize = 4;

fn pool(threads: usize) -> ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// Times one frame of `characters` characters limited by `limits` on `pool`.
fn bench_crowd(
    group: &mut BenchmarkGroup<WallTime>,
    name: &str,
    scene: &Scene,
    limits: &SkeletonLimits,
    characters: usize,
    noise: f32,
    pool: &ThreadPool,
) {
    let frames: Vec<Vec<Quat>> = (0..FRAMES)
        .map(|f| scene.frame(characters, f, noise, 7))
        .collect();
    let mut crowd = limits
        .bind_crowd(&scene.skeleton, characters)
        .expect("limits fitted on this skeleton");
    if name.ends_with("_proven_cells") {
        crowd = crowd.with_proven_cells();
    }
    let outside: usize = frames
        .iter()
        .map(|frame| crowd.limit_frame(&mut frame.clone()))
        .sum();
    eprintln!(
        "{name}: {:.1}% of joints outside",
        100.0 * outside as f64 / (FRAMES * frames[0].len()) as f64
    );
    group.throughput(Throughput::Elements(frames[0].len() as u64));
    let next = Cell::new(0);
    group.bench_function(name, |b| {
        b.iter_batched_ref(
            || {
                next.set((next.get() + 1) % FRAMES);
                frames[next.get()].clone()
            },
            |poses| black_box(pool.install(|| crowd.limit_frame(poses))),
            BatchSize::LargeInput,
        )
    });
}

fn crowd(c: &mut Criterion) {
    let Some(mocap) = mocap_dir() else { return };
    let scene = Scene::load(&mocap);
    let joints = scene.joint_count();
    let ellipsoids = scene.fit(&FitOptions::default());
    for threads in [1, 2] {
        let pool = pool(threads);
        let mut group = c.benchmark_group(format!("crowd/cpu/{threads}_threads"));
        group.sample_size(20);
        for (name, total) in [
            ("10k_joints", 10_000),
            ("100k_joints", 100_000),
            ("1M_joints", 1_000_000),
        ] {
            let characters = usize::div_ceil(total, joints);
            bench_crowd(
                &mut group,
                name,
                &scene,
                &ellipsoids,
                characters,
                NOISE,
                &pool,
            );
        }
        group.finish();
    }
    bench_gpu(c, &scene, &ellipsoids);
    let kinds = [
        ("ellipsoid", SpaceKind::Full, ShapeKind::Ellipsoid),
        ("box", SpaceKind::Full, ShapeKind::Box),
        ("obb", SpaceKind::Full, ShapeKind::Obb),
        (
            "kdop13",
            SpaceKind::Full,
            ShapeKind::Kdop(KdopDirections::Thirteen),
        ),
        ("hull", SpaceKind::Full, ShapeKind::Hull),
        (
            "swing_twist_ellipsoid",
            SpaceKind::SwingTwist,
            ShapeKind::Ellipsoid,
        ),
        ("swing_twist_box", SpaceKind::SwingTwist, ShapeKind::Box),
        ("reach_cone", SpaceKind::SwingTwist, ShapeKind::ReachCone),
        ("table64", SpaceKind::SwingTwist, ShapeKind::Table(64)),
        (
            "euler",
            SpaceKind::SwingTwist,
            ShapeKind::Authored(AuthoredShape::Euler(None)),
        ),
        (
            "cone",
            SpaceKind::SwingTwist,
            ShapeKind::Authored(AuthoredShape::Cone),
        ),
        (
            "spherical_ellipse",
            SpaceKind::SwingTwist,
            ShapeKind::Authored(AuthoredShape::SphericalEllipse),
        ),
    ];
    let pool = pool(2);
    let mut per_kind = Vec::new();
    let mut group = c.benchmark_group("crowd/cpu/2_threads/10k_characters");
    group.sample_size(10);
    for (name, space, shape) in kinds {
        let limits = scene.fit(&FitOptions {
            space,
            shape,
            ..FitOptions::default()
        });
        bench_crowd(&mut group, name, &scene, &limits, 10_000, NOISE, &pool);
        if matches!(shape, ShapeKind::Authored(_)) {
            let proven = format!("{name}_proven_cells");
            bench_crowd(&mut group, &proven, &scene, &limits, 10_000, NOISE, &pool);
        }
        per_kind.push((name, limits));
    }
    for (name, noise) in [
        ("ellipsoid_noise_0", 0.0),
        ("ellipsoid_noise_0.02", 0.02),
        ("ellipsoid_noise_0.05", 0.05),
    ] {
        bench_crowd(&mut group, name, &scene, &ellipsoids, 10_000, noise, &pool);
    }
    group.finish();
    bench_gpu_kinds(c, &scene, &per_kind, &pool);
}

/// `crowd/gpu/10k_characters/<kind>` (module docs).
fn bench_gpu_kinds(
    c: &mut Criterion,
    scene: &Scene,
    kinds: &[(&str, SkeletonLimits)],
    pool: &ThreadPool,
) {
    let characters = 10_000;
    let parents: Vec<Option<usize>> = scene.skeleton.joints().iter().map(|j| j.parent).collect();
    let frames: Vec<Vec<Quat>> = (0..FRAMES)
        .map(|f| scene.frame(characters, f, NOISE, 7))
        .collect();
    let mut group = c.benchmark_group("crowd/gpu/10k_characters");
    group.sample_size(10);
    group.throughput(Throughput::Elements(frames[0].len() as u64));
    for (name, limits) in kinds {
        let per_joint = limits
            .per_joint(&scene.skeleton)
            .expect("fitted on this skeleton");
        let mut gpu = match GpuCrowd::new(&per_joint, characters) {
            Ok(gpu) => gpu.with_parents(&parents),
            Err(e) => {
                eprintln!("skipping crowd/gpu/10k_characters: {e}");
                return;
            }
        };
        let mut poses = frames[0].clone();
        pool.install(|| gpu.limit_frame(&mut poses))
            .expect("the GPU runs");
        eprintln!(
            "crowd/gpu/10k_characters/{name}: {} joints on the host, {:.1}% of theirs in proven cells",
            gpu.joints_on_host(),
            100.0 * gpu.proven_on_gpu() as f64 / (characters * gpu.joints_on_host()).max(1) as f64
        );
        let next = Cell::new(0);
        group.bench_function(*name, |b| {
            b.iter_batched_ref(
                || {
                    next.set((next.get() + 1) % FRAMES);
                    frames[next.get()].clone()
                },
                |poses| {
                    black_box(
                        pool.install(|| gpu.limit_frame(poses))
                            .expect("the GPU runs"),
                    )
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

/// `crowd/gpu/...` (module docs).
fn bench_gpu(c: &mut Criterion, scene: &Scene, limits: &SkeletonLimits) {
    let joints = scene.joint_count();
    let per_joint = limits
        .per_joint(&scene.skeleton)
        .expect("fitted on this skeleton");
    for (name, total) in [
        ("10k_joints", 10_000),
        ("100k_joints", 100_000),
        ("1M_joints", 1_000_000),
    ] {
        let characters = usize::div_ceil(total, joints);
        let mut gpu = match GpuCrowd::new(&per_joint, characters) {
            Ok(gpu) => gpu,
            Err(e) => {
                eprintln!("skipping crowd/gpu: {e}");
                return;
            }
        };
        eprintln!("crowd/gpu on {}", gpu.adapter());
        let frame = scene.frame(characters, 0, NOISE, 7);
        let mut group = c.benchmark_group(format!("crowd/gpu/{name}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements(frame.len() as u64));
        // A fresh copy of the frame each time, made outside the timing.
        group.bench_function("with_transfers", |b| {
            b.iter_batched_ref(
                || frame.clone(),
                |poses| black_box(gpu.limit_frame(poses).expect("the GPU runs")),
                BatchSize::LargeInput,
            )
        });
        gpu.upload(&frame).expect("a frame of this crowd");
        group.bench_function("on_gpu", |b| {
            b.iter(|| {
                gpu.run();
                gpu.wait().expect("the GPU runs")
            })
        });
        group.finish();
    }
}

criterion_group!(benches, crowd);
criterion_main!(benches);
