//! IK solve time on real problems (see `tests/common/ik_problems.rs`): arms of 3 and 6 bones from
//! the CMU capture with limits fitted to it, scaled to 1 m, each solve starting from one captured
//! frame toward the arm's end in another (tolerance 1 mm, at most 100 iterations).
//!
//! `ik/<solver>/<n>_bones/<limits|wide_limits|no_limits>`: time per solve, averaged over 256
//! problems; `wide_limits` pads the fitted limits by 20° (loose limits, like hand-set ones).
//! `ik/beyond_reach/<n>_bones/<limits|no_limits>`: the same problems with each target moved
//! along its direction from the shoulder to 1.5 m away, out of reach (every solver takes the same
//! path there: relaxation is timed). `ik/two_bone`: analytic two-bone IK with limits on the upper
//! arm. `ik/look_at`: abdomen, chest,
//! neck and head turned with limits toward 256 points around the head.

// Shared with the tests, which use more of it.
#[allow(dead_code)]
#[path = "../tests/common/ik_problems.rs"]
mod ik_problems;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use ik_problems::{
    Arm, LOOK_AT, Problem, SIX_BONES, THREE_BONES, TWO_BONES, WIDE_PADDING, capture,
};
use jointlimits::ik::{Chain, IkOptions, IkReport, Solver, look_at, solve, solve_two_bone};
use jointlimits_testdata::SplitMix;
use std::hint::black_box;

const PROBLEMS: usize = 256;

fn options(use_limits: bool) -> IkOptions {
    IkOptions {
        max_iterations: 100,
        tolerance: 1e-3,
        use_limits,
        ..IkOptions::default()
    }
}

/// Benchmarks `solver` over every problem, restarting one chain from each start.
fn bench_problems(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    arm: &Arm,
    problems: &[Problem],
    options: &IkOptions,
    solver: impl Fn(&mut Chain, Vec3, &IkOptions) -> IkReport,
) {
    let mut chain = arm.chain(&problems[0]);
    group.bench_function(name, |b| {
        b.iter(|| {
            for problem in problems {
                chain
                    .set_base(Vec3::ZERO, problem.base)
                    .expect("captured bases are finite");
                chain.set_local_rotations(&problem.start);
                black_box(solver(&mut chain, black_box(problem.target), options));
            }
        })
    });
}

fn ik(c: &mut Criterion) {
    let Some(capture) = capture() else {
        return;
    };
    let mut group = c.benchmark_group("ik");
    group.throughput(Throughput::Elements(PROBLEMS as u64));
    let wide_limits = capture.limits_padded(WIDE_PADDING);
    for solver in Solver::ALL {
        for (bones, names) in [(3, &THREE_BONES[..]), (6, &SIX_BONES[..])] {
            let arm = Arm::new(&capture, names);
            let wide_arm = arm.with_limits(&wide_limits);
            let problems = arm.problems(&capture, PROBLEMS, 7);
            for (mode, arm, use_limits) in [
                ("limits", &arm, true),
                ("wide_limits", &wide_arm, true),
                ("no_limits", &arm, false),
            ] {
                bench_problems(
                    &mut group,
                    &format!("{}/{bones}_bones/{mode}", solver.name()),
                    arm,
                    &problems,
                    &options(use_limits),
                    |chain, target, o| solve(chain, target, solver, o),
                );
            }
        }
    }
    for (bones, names) in [(3, &THREE_BONES[..]), (6, &SIX_BONES[..])] {
        let arm = Arm::new(&capture, names);
        let mut problems = arm.problems(&capture, PROBLEMS, 7);
        for problem in &mut problems {
            let shoulder = arm.chain(problem).positions()[0];
            problem.target = shoulder + (problem.target - shoulder).normalize_or(Vec3::X) * 1.5;
        }
        for (mode, use_limits) in [("limits", true), ("no_limits", false)] {
            bench_problems(
                &mut group,
                &format!("beyond_reach/{bones}_bones/{mode}"),
                &arm,
                &problems,
                &options(use_limits),
                |chain, target, o| solve(chain, target, Solver::Relaxation, o),
            );
        }
    }
    let arm = Arm::new(&capture, &TWO_BONES);
    let problems = arm.problems(&capture, PROBLEMS, 7);
    bench_problems(
        &mut group,
        "two_bone",
        &arm,
        &problems,
        &options(true),
        solve_two_bone,
    );

    let arm = Arm::look_at(&capture, &LOOK_AT, Vec3::Z);
    let mut problems = arm.problems(&capture, PROBLEMS, 7);
    let mut random = SplitMix(3);
    for problem in &mut problems {
        // A point 1–3 m (100–300 units) from the head, anywhere around it.
        let eye = arm.chain(problem).positions()[LOOK_AT.len() - 1];
        let direction = Vec3::new(
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
        )
        .normalize_or(Vec3::Z);
        problem.target = eye + direction * (200.0 + 100.0 * random.next_signed());
    }
    bench_problems(
        &mut group,
        "look_at",
        &arm,
        &problems,
        &options(true),
        |chain, target, o| {
            let report = look_at(chain, target, o);
            IkReport {
                iterations: report.passes,
                distance: report.angle,
                stop: jointlimits::ik::StopReason::Reached,
                escapes: 0,
            }
        },
    );
    group.finish();
}

criterion_group!(benches, ik);
criterion_main!(benches);
