//! A crowd on the CPU and on the GPU: thousands of characters of the CMU DAZ skeleton playing
//! the four fixture clips, each from its own frame, with every joint turned at random (what
//! blends and layers add), limited every frame by a [`jointlimits::Crowd`] fitted on the clips and
//! by a [`jointlimits_gpu::GpuCrowd`], with timings.
//!
//! ```sh
//! cargo run --release --example crowd -- [--characters 10000] [--frames 120] [--noise 0.05]
//!                                        [--threads N] [--shape box|obb|ellipsoid|kdop13|hull|...]
//! ```
//!
//! It then replays the first frames through a [`jointlimits::Limiter`] per character and checks
//! that the CPU crowd's output is the same, bit for bit, and that the GPU's is within 1e-5 rad of
//! it. The GPU limits full-space boxes and ellipsoids itself; other kinds are limited on the host
//! after the frame comes back (those with proven cells only where the kernel did not find the
//! rotation in one), bit for bit as the CPU crowd. Without an adapter it says why and runs the
//! CPU alone.

#[allow(dead_code)]
#[path = "../benches/common/crowd_scene.rs"]
mod crowd_scene;

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crowd_scene::Scene;
use jointlimits::fit::{FitOptions, ShapeKind};
use jointlimits::rotation::angle_between;
use jointlimits::{Limiter, RotationLimit, SpaceKind};
use jointlimits_gpu::GpuCrowd;

/// The command line.
struct Options {
    characters: usize,
    frames: usize,
    noise: f32,
    threads: Option<usize>,
    space: SpaceKind,
    shape: ShapeKind,
}

/// What the command line asked for: a run, or the usage text.
enum Request {
    Run(Options),
    Help,
}

const USAGE: &str = "usage: crowd [--characters N] [--frames N] [--noise RAD] [--threads N] \
                     [--shape box|obb|ellipsoid|mvee|kdop3|kdop7|kdop13|hull|reach-cone|table] \
                     [--swing-twist]";

/// The most characters and threads the example takes.
const MOST_CHARACTERS: usize = 1_000_000;
const MOST_THREADS: usize = 256;

fn parse_options() -> Result<Request, String> {
    let mut options = Options {
        characters: 10_000,
        frames: 120,
        noise: 0.05,
        threads: None,
        space: SpaceKind::Full,
        shape: ShapeKind::Ellipsoid,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |text: String| -> Result<f64, String> {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite() && *v >= 0.0)
                .ok_or(format!("{flag}: {text} is not a non-negative number"))
        };
        match flag.as_str() {
            "--characters" => options.characters = number(value()?)? as usize,
            "--frames" => options.frames = number(value()?)? as usize,
            "--noise" => options.noise = number(value()?)? as f32,
            "--threads" => options.threads = Some((number(value()?)? as usize).max(1)),
            "--swing-twist" => options.space = SpaceKind::SwingTwist,
            "--shape" => {
                options.shape = value()?.parse().map_err(|e| format!("--shape: {e}"))?;
            }
            "--help" | "-h" => return Ok(Request::Help),
            other => return Err(format!("unknown option {other} (try --help)")),
        }
    }
    if options.shape.ignores_space() {
        options.space = SpaceKind::SwingTwist;
    }
    if options.characters > MOST_CHARACTERS {
        return Err(format!("--characters: at most {MOST_CHARACTERS}"));
    }
    if options.threads.is_some_and(|t| t > MOST_THREADS) {
        return Err(format!("--threads: at most {MOST_THREADS}"));
    }
    options.frames = options.frames.max(1);
    Ok(Request::Run(options))
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(Request::Run(options)) => options,
        Ok(Request::Help) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::FAILURE;
        }
    };
    let Some(mocap) = jointlimits_testdata::mocap_dir() else {
        return ExitCode::FAILURE;
    };
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads.unwrap_or(0))
        .build()
    {
        Ok(pool) => pool,
        Err(e) => {
            eprintln!("no thread pool: {e}");
            return ExitCode::FAILURE;
        }
    };
    let scene = Scene::load(&mocap);
    let started = Instant::now();
    let limits = scene.fit(&FitOptions {
        space: options.space,
        shape: options.shape,
        ..FitOptions::default()
    });
    println!(
        "fitted {} limits ({}) on {} clips in {:.1} s",
        limits.joints.len(),
        limits.joints[0].region.label(),
        scene.clips.len(),
        started.elapsed().as_secs_f64()
    );
    let (characters, joints) = (options.characters, scene.joint_count());
    // Joints without a lane test (the authored kinds) skip the exact test in cells proven
    // allowed; the others are unchanged.
    let mut crowd = limits
        .bind_crowd(&scene.skeleton, characters)
        .expect("limits fitted on this skeleton")
        .with_proven_cells();
    println!(
        "{characters} characters × {joints} joints, {} frames, joints turned by up to {} rad, \
         {} threads",
        options.frames,
        options.noise,
        pool.current_num_threads()
    );
    // The first frames' inputs and outputs, to replay through limiters afterwards.
    const CHECKED_FRAMES: usize = 3;
    const CHECKED_CHARACTERS: usize = 256;
    let mut checked = Vec::new();
    let (mut total, mut slowest, mut outside) = (Duration::ZERO, Duration::ZERO, 0usize);
    for frame in 0..options.frames {
        let mut poses = scene.frame(characters, frame, options.noise, 1);
        let input = (frame < CHECKED_FRAMES).then(|| poses.clone());
        let start = Instant::now();
        outside += pool.install(|| crowd.limit_frame(&mut poses));
        let took = start.elapsed();
        total += took;
        slowest = slowest.max(took);
        if let Some(input) = input {
            checked.push((input, poses));
        }
    }
    let frames = options.frames.max(1) as f64;
    let per_frame = total.as_secs_f64() / frames;
    println!(
        "CPU: {:.2} ms per frame (slowest {:.2} ms), {:.0} M joints/s, {:.1}% of joints outside",
        1e3 * per_frame,
        1e3 * slowest.as_secs_f64(),
        (characters * joints) as f64 / per_frame / 1e6,
        100.0 * outside as f64 / (frames * (characters * joints) as f64)
    );
    let per_joint = limits
        .per_joint(&scene.skeleton)
        .expect("fitted on this skeleton");
    let parents: Vec<Option<usize>> = scene.skeleton.joints().iter().map(|j| j.parent).collect();
    let started = Instant::now();
    match GpuCrowd::new(&per_joint, characters) {
        Err(e) => println!("GPU: not run ({e})"),
        Ok(gpu) => {
            let mut gpu = gpu.with_parents(&parents);
            if gpu.joints_on_host() > 0 {
                println!(
                    "GPU crowd made in {:.1} s: {} of {joints} joints limited on the host",
                    started.elapsed().as_secs_f64(),
                    gpu.joints_on_host()
                );
            }
            let mut proven = 0;
            // Time spent sending frames, limiting them (waited for), and reading them back.
            let (mut steps, mut worst) = ([Duration::ZERO; 3], 0.0f32);
            for frame in 0..options.frames {
                let mut poses = scene.frame(characters, frame, options.noise, 1);
                let start = Instant::now();
                let limited = pool.install(|| {
                    gpu.upload(&poses).and_then(|()| {
                        steps[0] += start.elapsed();
                        let start = Instant::now();
                        gpu.run();
                        gpu.wait()?;
                        steps[1] += start.elapsed();
                        let start = Instant::now();
                        gpu.download(&mut poses)?;
                        steps[2] += start.elapsed();
                        Ok(())
                    })
                });
                proven += gpu.proven_on_gpu();
                if let Err(e) = limited {
                    eprintln!("GPU: {e}");
                    return ExitCode::FAILURE;
                }
                if let Some((_, on_cpu)) = checked.get(frame) {
                    for (a, b) in on_cpu.iter().zip(&poses) {
                        worst = worst.max(angle_between(*a, *b));
                    }
                }
            }
            let [sending, limiting, reading] = steps.map(|d| 1e3 * d.as_secs_f64() / frames);
            let per_frame = (sending + limiting + reading) / 1e3;
            let host = if gpu.joints_on_host() > 0 {
                format!(
                    " and limiting {} joints on the host, {:.0}% of their rotations found in \
                     proven cells",
                    gpu.joints_on_host(),
                    100.0 * proven as f64 / (frames * (characters * gpu.joints_on_host()) as f64)
                )
            } else {
                String::new()
            };
            println!(
                "GPU ({}): {:.2} ms per frame with transfers ({sending:.2} sending, {limiting:.2} \
                 limiting, {reading:.2} reading back{host}), {:.0} M joints/s; the first {} \
                 frames within {worst:.1e} rad of the CPU",
                gpu.adapter(),
                1e3 * per_frame,
                (characters * joints) as f64 / per_frame / 1e6,
                checked.len()
            );
            // The same frames with each sent before the one ahead of it is received: the copies
            // of one overlap the GPU's work on the other. Two frames in turn, made beforehand.
            let frames_ahead: Vec<_> = (0..2)
                .map(|f| scene.frame(characters, f, options.noise, 1))
                .collect();
            let mut limited = frames_ahead[0].clone();
            let start = Instant::now();
            let pipelined = pool.install(|| -> Result<(), jointlimits_gpu::GpuError> {
                gpu.submit(&frames_ahead[0])?;
                for frame in 1..options.frames.max(1) {
                    gpu.submit(&frames_ahead[frame % 2])?;
                    gpu.receive(&mut limited)?;
                }
                gpu.receive(&mut limited)?;
                Ok(())
            });
            if let Err(e) = pipelined {
                eprintln!("GPU: {e}");
                return ExitCode::FAILURE;
            }
            let per_frame = start.elapsed().as_secs_f64() / frames;
            println!(
                "GPU, two frames in flight: {:.2} ms per frame, {:.0} M joints/s",
                1e3 * per_frame,
                (characters * joints) as f64 / per_frame / 1e6
            );
        }
    }
    // A limiter per character for the first characters (tables make each limiter large).
    let replayed = characters.min(CHECKED_CHARACTERS);
    let limiter: Limiter = limits
        .bind(&scene.skeleton)
        .expect("limits fitted on this skeleton");
    let mut limiters = vec![limiter; replayed];
    for (frame, (input, output)) in checked.iter().enumerate() {
        let mut expected = input[..replayed * joints].to_vec();
        for (c, limiter) in limiters.iter_mut().enumerate() {
            limiter.limit_pose(&mut expected[c * joints..(c + 1) * joints]);
        }
        if expected[..] != output[..replayed * joints] {
            eprintln!("frame {frame}: the crowd differs from a limiter per character");
            return ExitCode::FAILURE;
        }
    }
    println!(
        "the first {} frames of the first {replayed} characters equal a limiter per character, \
         bit for bit",
        checked.len()
    );
    ExitCode::SUCCESS
}
