//! IK with limits fitted to real motion capture (see `common/ik_problems.rs`): arms of 3 and 6
//! bones scaled to 1 m, solved toward 10,000 targets that the limits allow, with and without the
//! limits, by every solver (and two-bone IK on the upper arm). Every final pose must satisfy
//! every limit, at least 99.9% must reach the target (within 1 mm) and the mean iteration count
//! must stay at most 3.5; the same holds (99% reached) for every shape the fitter makes, in both
//! limit spaces. Success rates and mean iterations are printed:
//! `cargo test --release -p jointlimits-io --test ik_on_fixtures -- --nocapture`
//! (`IK_TARGETS=N` changes the count).

mod common;

use common::ik_problems::{Arm, Problem, SIX_BONES, THREE_BONES, TWO_BONES, WIDE_PADDING, capture};
use glam::{Quat, Vec3};
use jointlimits::SpaceKind;
use jointlimits::fit::ShapeKind;
use jointlimits::fit::authored::AuthoredShape;
use jointlimits::ik::{
    Chain, IkOptions, IkReport, Solver, StopReason, Tracker, solve, solve_two_bone,
};
use jointlimits_testdata::SplitMix;

#[derive(Default)]
struct Tally {
    solves: usize,
    reached: usize,
    iterations: usize,
    worst_violation: f32,
    worst_distance: f32,
}

impl Tally {
    fn line(&self, label: &str) -> String {
        format!(
            "{label:<46} reached {:6.2}%  mean iterations {:6.1}  worst violation {:.1e} rad  worst miss {:.3} m",
            100.0 * self.reached as f32 / self.solves as f32,
            self.iterations as f32 / self.solves as f32,
            self.worst_violation,
            self.worst_distance,
        )
    }
}

#[test]
fn ik_with_fitted_limits_reaches_captured_targets_without_violations() {
    let Some(capture) = capture() else { return };
    let targets: usize = std::env::var("IK_TARGETS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    let mut lines = Vec::new();
    let mut check = |tally: Tally, label: String, use_limits: bool| {
        lines.push(tally.line(&label));
        if use_limits {
            assert!(tally.worst_violation <= 1e-4, "{}", tally.line(&label));
        }
        // At least 99.9% reached, in at most 3.5 iterations on average: limits cost iterations,
        // but a solver that creeps along them (as the passes alone do) takes 4 to 25.
        assert!(
            tally.reached * 1000 >= tally.solves * 999,
            "{}",
            tally.line(&label)
        );
        assert!(
            tally.iterations * 2 <= tally.solves * 7,
            "{}",
            tally.line(&label)
        );
    };
    let wide_limits = capture.limits_padded(WIDE_PADDING);
    for (label, names) in [("3 bones", &THREE_BONES[..]), ("6 bones", &SIX_BONES[..])] {
        let arm = Arm::new(&capture, names);
        let wide_arm = arm.with_limits(&wide_limits);
        let problems = arm.problems(&capture, targets, 2026);
        for solver in Solver::ALL {
            for (mode, arm, use_limits) in [
                ("limits", &arm, true),
                ("wide limits", &wide_arm, true),
                ("no limits", &arm, false),
            ] {
                let tally = run(arm, &problems, use_limits, |chain, target, o| {
                    solve(chain, target, solver, o)
                });
                check(
                    tally,
                    format!("{label} {} {mode}", solver.name()),
                    use_limits,
                );
            }
        }
    }
    let arm = Arm::new(&capture, &TWO_BONES);
    let problems = arm.problems(&capture, targets, 2026);
    for use_limits in [true, false] {
        let tally = run(&arm, &problems, use_limits, solve_two_bone);
        let mode = if use_limits { "limits" } else { "no limits" };
        check(tally, format!("2 bones two-bone {mode}"), use_limits);
    }
    for line in lines {
        println!("{line}");
    }
}

/// Solves every problem from its start.
fn run(
    arm: &Arm,
    problems: &[common::ik_problems::Problem],
    use_limits: bool,
    solver: impl Fn(&mut Chain, Vec3, &IkOptions) -> IkReport,
) -> Tally {
    let mut tally = Tally::default();
    let options = IkOptions {
        max_iterations: 100,
        tolerance: 1e-3,
        use_limits,
        ..IkOptions::default()
    };
    for problem in problems {
        let mut chain = arm.chain(problem);
        let report = solver(&mut chain, problem.target, &options);
        assert!(chain.positions().iter().all(|p| p.is_finite()));
        assert!((chain.end_effector().distance(problem.target) - report.distance).abs() < 1e-5);
        tally.solves += 1;
        tally.reached += usize::from(report.distance <= options.tolerance);
        tally.iterations += report.iterations;
        tally.worst_distance = tally.worst_distance.max(report.distance);
        if use_limits {
            tally.worst_violation = tally.worst_violation.max(chain.limit_violation());
        }
    }
    tally
}

/// A limits file may hold any shape the fitter makes, in either limit space: every one of them
/// must hold inside every solver, and the targets the data allows must still be reached. Prints
/// a line per shape, arm and solver.
#[test]
fn every_fitted_shape_holds_inside_every_solver() {
    let Some(capture) = capture() else { return };
    let mut lines = Vec::new();
    // Every kind, and limits coupled to the parent (the elbow's box follows the upper arm).
    let coupled = "coupled".parse::<ShapeKind>().unwrap();
    for space in [SpaceKind::Full, SpaceKind::SwingTwist] {
        for shape in ShapeKind::ALL.into_iter().chain([coupled]) {
            // Kinds of their own ignore the space: fitted once.
            if shape.ignores_space() && space == SpaceKind::SwingTwist {
                continue;
            }
            // A hinge allows nothing off its axis, and the recorded poses the targets come from
            // move the arm off it: it must hold, but need not reach them.
            let must_reach = shape != ShapeKind::Authored(AuthoredShape::Hinge);
            let limits = capture.limits_shaped(space, shape);
            for (label, names) in [("3 bones", &THREE_BONES[..]), ("6 bones", &SIX_BONES[..])] {
                let arm = Arm::new(&capture, names).with_limits(&limits);
                let problems = arm.problems(&capture, 300, 11);
                for solver in Solver::ALL {
                    let tally = run(&arm, &problems, true, |chain, target, o| {
                        solve(chain, target, solver, o)
                    });
                    let line =
                        tally.line(&format!("{space:?} {shape:?} {label} {}", solver.name()));
                    assert!(tally.worst_violation <= 1e-4, "{line}");
                    assert!(
                        !must_reach || tally.reached * 100 >= tally.solves * 99,
                        "{line}"
                    );
                    lines.push(line);
                }
            }
        }
    }
    for line in lines {
        println!("{line}");
    }
}

/// Targets 1.5 m from the shoulder of a 1 m arm. Free, every solver lays the arm straight at
/// the target in one iteration. With the fitted limits the arm points as near the target as they
/// allow, in at most 20 iterations on average (restarts, which matter for targets within reach,
/// stop beyond reach at the first that gains nothing), and never breaks a limit.
#[test]
fn unreachable_targets_are_approached_within_the_fitted_limits() {
    let Some(capture) = capture() else { return };
    let arm = Arm::new(&capture, &SIX_BONES);
    let problems = arm.problems(&capture, 200, 8);
    let mut random = SplitMix(8);
    let mut limited_iterations = [0; 3];
    for problem in &problems {
        let direction = Vec3::new(
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
        )
        .normalize_or(Vec3::X);
        let target = direction * 1.5;
        for (k, solver) in Solver::ALL.into_iter().enumerate() {
            let mut chain = arm.chain(problem);
            let report = solve(&mut chain, target, solver, &IkOptions::default());
            assert!(report.distance.is_finite() && report.distance >= 0.5 - 1e-4);
            assert!(chain.positions().iter().all(|p| p.is_finite()));
            assert!(chain.limit_violation() <= 1e-4, "{solver:?}");
            limited_iterations[k] += report.iterations;

            let free = IkOptions {
                use_limits: false,
                ..IkOptions::default()
            };
            let mut chain = arm.chain(problem);
            let report = solve(&mut chain, target, solver, &free);
            assert_eq!(report.stop, StopReason::OutOfReach, "{solver:?}");
            assert_eq!(report.iterations, 1, "{solver:?}");
            assert!(
                report.distance - 0.5 <= free.tolerance,
                "{solver:?}: {report:?}"
            );
        }
    }
    for (solver, iterations) in Solver::ALL.into_iter().zip(limited_iterations) {
        let mean = iterations as f32 / problems.len() as f32;
        println!(
            "{} beyond reach, limits: mean iterations {mean:.1}",
            solver.name()
        );
        assert!(mean <= 20.0, "{solver:?}: {mean}");
    }
}

/// The largest angle (radians) between corresponding rotations of two poses.
fn largest_turn(a: &[Quat], b: &[Quat]) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| jointlimits::rotation::angle_between(*x, *y))
        .fold(0.0, f32::max)
}

/// Every frame of every clip, the arm's end pulled 20 cm right, 10 cm up and 10 cm back of where
/// the capture has it (every frame can still reach), solved frame after frame from the captured
/// pose. A pop is a frame in which some joint turns over 10° more than the captured joints
/// turned: the solve jumped to another pose that reaches. Plain solves pop in a few frames per
/// arm and solver, by up to 165°; with a tracker every frame must still reach inside the
/// limits, no joint may turn over 30° more than its input, and there must be at most a third as
/// many pops. The first four frames of each clip are not counted: CMU clips start from a T-pose
/// that the capture leaves with jumps of 20–40°. Printed with `-- --nocapture`.
#[test]
fn tracking_keeps_captured_clips_from_popping() {
    let Some(capture) = capture() else { return };
    let pull = Vec3::new(0.2, 0.1, -0.1);
    let pop = 10f32.to_radians();
    let mut lines = Vec::new();
    let mut total_pops = [0; 2];
    for names in [&THREE_BONES[..], &SIX_BONES[..]] {
        let arm = Arm::new(&capture, names);
        let base_joint = capture.skeleton.joints()[arm.joints[0]].parent.unwrap();
        for solver in Solver::ALL {
            for tracking in [false, true] {
                let (mut pops, mut frames, mut reached, mut worst_extra) = (0, 0, 0, 0f32);
                let (mut worst_violation, mut carried) = (0f32, 0);
                for clip in &capture.clips {
                    let mut tracker = Tracker::new();
                    let mut last: Option<(Vec<Quat>, Vec<Quat>)> = None;
                    for frame in 0..clip.frame_count() {
                        let pose = clip.pose(frame);
                        let global = capture.skeleton.forward_kinematics(&pose);
                        let start: Vec<Quat> =
                            (arm.joints.iter()).map(|&j| pose.rotations[j]).collect();
                        let problem = Problem {
                            start: start.clone(),
                            base: global.rotations[base_joint],
                            target: Vec3::ZERO,
                        };
                        let mut chain = arm.chain(&problem);
                        let target = chain.end_effector() + pull;
                        let options = IkOptions::default();
                        let report = if tracking {
                            tracker.solve_frame(&mut chain, |c| solve(c, target, solver, &options))
                        } else {
                            solve(&mut chain, target, solver, &options)
                        };
                        frames += 1;
                        reached += usize::from(report.reached());
                        worst_violation = worst_violation.max(chain.limit_violation());
                        let solved = chain.local_rotations().to_vec();
                        if let Some((last_start, last_solved)) = &last {
                            let extra = largest_turn(last_solved, &solved)
                                - largest_turn(last_start, &start);
                            if frame >= 4 {
                                worst_extra = worst_extra.max(extra);
                                pops += usize::from(extra > pop);
                            }
                        }
                        last = Some((start, solved));
                    }
                    carried += tracker.carried_frames();
                }
                let line = format!(
                    "{} bones {:<10} tracking {tracking:<5}  pops {pops:2}/{frames}  worst extra turn {:5.1}°  reached {reached}/{frames}  carried {carried}",
                    names.len() - 1,
                    solver.name(),
                    worst_extra.to_degrees(),
                );
                total_pops[usize::from(tracking)] += pops;
                if tracking {
                    assert_eq!(reached, frames, "{line}");
                    assert!(worst_extra <= 30f32.to_radians(), "{line}");
                    assert!(
                        worst_violation <= 1e-4,
                        "{line}: violation {worst_violation}"
                    );
                }
                lines.push(line);
            }
        }
    }
    println!("{}", lines.join("\n"));
    assert!(
        total_pops[1] * 3 <= total_pops[0],
        "pops without and with tracking: {total_pops:?}"
    );
}
