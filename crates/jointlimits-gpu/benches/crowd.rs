//! A crowd of characters of a fitted CMU skeleton (DAZ, 43 joints) playing the capture with
//! random perturbations (see `common/crowd_scene.rs`), limited frame after frame by a
//! [`jointlimits::Crowd`]; per joint.
//!
//! - `crowd/cpu/<n>_threads/<size>`: fitted ellipsoids, 10k, 100k and 1M joints per frame, on one
//!   and two threads.
//! - `crowd/cpu/2_threads/10k_characters/<kind>`: 10,000 characters (430,000 joints) per frame,
//!   for every kind the fitter makes; `euler_proven_cells` with
//!   [`jointlimits::Crowd::with_proven_cells`] (the other authored kinds have a lane test, or,
//!   hinges, no cells).
//! - `crowd/gpu/<size>/{with_transfers,pipelined,on_gpu}`: fitted ellipsoids on the GPU
//!   ([`jointlimits_gpu::GpuCrowd`]), with the upload and read-back of every frame (one frame at
//!   a time, or each frame sent before the one ahead of it is received), or the kernel alone on
//!   poses that stay on the GPU; skipped, saying why, where there is no adapter.
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

use std::cell::{Cell, OnceCell};
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

/// Limits fitted on the scene when a bench first needs them (a run filtered to a few benches
/// fits only theirs).
struct LazyFit<'a> {
    scene: &'a Scene,
    options: FitOptions,
    limits: OnceCell<SkeletonLimits>,
}

impl<'a> LazyFit<'a> {
    fn new(scene: &'a Scene, space: SpaceKind, shape: ShapeKind) -> LazyFit<'a> {
        LazyFit {
            scene,
            options: FitOptions {
                space,
                shape,
                ..FitOptions::default()
            },
            limits: OnceCell::new(),
        }
    }

    fn get(&self) -> &SkeletonLimits {
        self.limits.get_or_init(|| self.scene.fit(&self.options))
    }
}

/// Times one frame of `characters` characters limited by `limits` on `pool`; the frames and the
/// crowd are made only if the bench runs.
fn bench_crowd(
    group: &mut BenchmarkGroup<WallTime>,
    name: &str,
    limits: &LazyFit,
    characters: usize,
    noise: f32,
    pool: &ThreadPool,
) {
    let scene = limits.scene;
    let setup = || {
        let frames: Vec<Vec<Quat>> = (0..FRAMES)
            .map(|f| scene.frame(characters, f, noise, 7))
            .collect();
        let mut crowd = limits
            .get()
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
        (frames, crowd)
    };
    group.throughput(Throughput::Elements(
        (characters * scene.joint_count()) as u64,
    ));
    let mut made = None;
    let next = Cell::new(0);
    group.bench_function(name, |b| {
        let (frames, crowd) = made.get_or_insert_with(setup);
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
    let ellipsoids = LazyFit::new(&scene, SpaceKind::Full, ShapeKind::Ellipsoid);
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
            bench_crowd(&mut group, name, &ellipsoids, characters, NOISE, &pool);
        }
        group.finish();
    }
    bench_gpu(c, &ellipsoids);
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
        (
            "hinge",
            SpaceKind::SwingTwist,
            ShapeKind::Authored(AuthoredShape::Hinge),
        ),
    ];
    let pool = pool(2);
    let per_kind: Vec<(&str, LazyFit)> = kinds
        .into_iter()
        .map(|(name, space, shape)| (name, LazyFit::new(&scene, space, shape)))
        .collect();
    let mut group = c.benchmark_group("crowd/cpu/2_threads/10k_characters");
    group.sample_size(10);
    for (name, limits) in &per_kind {
        bench_crowd(&mut group, name, limits, 10_000, NOISE, &pool);
        // Of the authored kinds only Euler ranges prove cells for a crowd: swing cones and
        // spherical ellipses have a lane test, and hinges allow no open set of rotations.
        if matches!(
            limits.options.shape,
            ShapeKind::Authored(AuthoredShape::Euler(_))
        ) {
            let proven = format!("{name}_proven_cells");
            bench_crowd(&mut group, &proven, limits, 10_000, NOISE, &pool);
        }
    }
    for (name, noise) in [
        ("ellipsoid_noise_0", 0.0),
        ("ellipsoid_noise_0.02", 0.02),
        ("ellipsoid_noise_0.05", 0.05),
    ] {
        bench_crowd(&mut group, name, &ellipsoids, 10_000, noise, &pool);
    }
    group.finish();
    bench_gpu_kinds(c, &scene, &per_kind, &pool);
}

/// `crowd/gpu/10k_characters/<kind>` (module docs).
fn bench_gpu_kinds(c: &mut Criterion, scene: &Scene, kinds: &[(&str, LazyFit)], pool: &ThreadPool) {
    if let Err(e) = GpuCrowd::new(&[None], 1) {
        eprintln!("skipping crowd/gpu/10k_characters: {e}");
        return;
    }
    let characters = 10_000;
    let parents: Vec<Option<usize>> = scene.skeleton.joints().iter().map(|j| j.parent).collect();
    let frames: Vec<Vec<Quat>> = (0..FRAMES)
        .map(|f| scene.frame(characters, f, NOISE, 7))
        .collect();
    let mut group = c.benchmark_group("crowd/gpu/10k_characters");
    group.sample_size(10);
    group.throughput(Throughput::Elements(frames[0].len() as u64));
    for (name, limits) in kinds {
        let setup = || {
            let per_joint = limits
                .get()
                .per_joint(&scene.skeleton)
                .expect("fitted on this skeleton");
            let mut gpu = GpuCrowd::new(&per_joint, characters)
                .expect("a GPU crowd")
                .with_parents(&parents);
            let mut poses = frames[0].clone();
            pool.install(|| gpu.limit_frame(&mut poses))
                .expect("the GPU runs");
            eprintln!(
                "crowd/gpu/10k_characters/{name}: {} joints on the host, {:.1}% of theirs in \
                 proven cells",
                gpu.joints_on_host(),
                100.0 * gpu.proven_on_gpu() as f64
                    / (characters * gpu.joints_on_host()).max(1) as f64
            );
            gpu
        };
        let mut made = None;
        let next = Cell::new(0);
        group.bench_function(*name, |b| {
            let gpu = made.get_or_insert_with(setup);
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
fn bench_gpu(c: &mut Criterion, limits: &LazyFit) {
    if let Err(e) = GpuCrowd::new(&[None], 1) {
        eprintln!("skipping crowd/gpu: {e}");
        return;
    }
    let scene = limits.scene;
    let joints = scene.joint_count();
    for (name, total) in [
        ("10k_joints", 10_000),
        ("100k_joints", 100_000),
        ("1M_joints", 1_000_000),
    ] {
        let characters = usize::div_ceil(total, joints);
        // The crowd and its frame, made when one of the size's benches first runs.
        let setup = || {
            let per_joint = limits
                .get()
                .per_joint(&scene.skeleton)
                .expect("fitted on this skeleton");
            let gpu = GpuCrowd::new(&per_joint, characters).expect("a GPU crowd");
            eprintln!("crowd/gpu on {}", gpu.adapter());
            (gpu, scene.frame(characters, 0, NOISE, 7))
        };
        let mut made = None;
        let mut group = c.benchmark_group(format!("crowd/gpu/{name}"));
        group.sample_size(10);
        group.throughput(Throughput::Elements((characters * joints) as u64));
        // A fresh copy of the frame each time, made outside the timing.
        group.bench_function("with_transfers", |b| {
            let (gpu, frame) = made.get_or_insert_with(setup);
            b.iter_batched_ref(
                || frame.clone(),
                |poses| black_box(gpu.limit_frame(poses).expect("the GPU runs")),
                BatchSize::LargeInput,
            )
        });
        // Frame n + 1 sent before frame n is received: the copies of one overlap the GPU's
        // work on the other.
        group.bench_function("pipelined", |b| {
            let (gpu, frame) = made.get_or_insert_with(setup);
            let mut limited = frame.clone();
            gpu.submit(frame).expect("a frame of this crowd");
            b.iter(|| {
                gpu.submit(frame).expect("a frame of this crowd");
                black_box(gpu.receive(&mut limited).expect("the GPU runs"))
            });
            gpu.receive(&mut limited).expect("the GPU runs");
        });
        group.bench_function("on_gpu", |b| {
            let (gpu, frame) = made.get_or_insert_with(setup);
            gpu.upload(frame).expect("a frame of this crowd");
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
