//! Inverse kinematics on synthetic chains: the position passes in 2D, 3D and 4D, the planar
//! lock-up and its escape, limits inside the solve for every solver, two-bone IK with a pole,
//! look-at that exhausts the spine first, and unreachable or non-finite targets.

use std::f32::consts::{FRAC_PI_2, PI};

use glam::{Quat, Vec2, Vec3, Vec4};
use jointlimits::authored::{ConeLimit, HingeLimit};
use jointlimits::ik::passes::{relaxation_pass, solve_points};
use jointlimits::ik::{
    Chain, ChainError, ChainPoint, IkOptions, PlanarChain, Solver, StopReason, look_at, solve,
    solve_two_bone,
};
use jointlimits::{JointLimit, LimitRegion, TwistRange};
use jointlimits_testdata::SplitMix;

fn limit(region: LimitRegion) -> JointLimit {
    JointLimit {
        joint: "joint".into(),
        reference: Quat::IDENTITY,
        region,
        softening: None,
    }
}

fn cone(max_swing_degrees: f32, twist_degrees: f32) -> JointLimit {
    let twist = twist_degrees.to_radians();
    limit(LimitRegion::Cone(ConeLimit {
        twist_axis: Vec3::Y,
        max_swing: max_swing_degrees.to_radians(),
        twist: TwistRange {
            min: -twist,
            max: twist,
        },
    }))
}

fn elbow() -> JointLimit {
    limit(LimitRegion::Hinge(HingeLimit {
        axis: Vec3::X,
        min: 0.0,
        max: 150f32.to_radians(),
    }))
}

/// A chain of `n` bones of equal length along +Y summing to 1, at rest.
fn straight_chain<'a>(limits: Vec<Option<&'a JointLimit>>) -> Chain<'a> {
    let n = limits.len();
    Chain::new(
        Vec3::ZERO,
        Quat::IDENTITY,
        vec![Quat::IDENTITY; n],
        vec![Vec3::Y / n as f32; n],
        limits,
    )
    .unwrap()
}

fn random_unit(random: &mut SplitMix) -> Vec3 {
    loop {
        let v = Vec3::new(
            random.next_signed(),
            random.next_signed(),
            random.next_signed(),
        );
        if (0.1..=1.0).contains(&v.length()) {
            return v.normalize();
        }
    }
}

/// A random rotation inside `limit`: a random rotation projected onto it.
fn random_allowed(random: &mut SplitMix, limit: Option<&JointLimit>) -> Quat {
    let q = Quat::from_scaled_axis(random_unit(random) * random.next_signed().abs() * PI);
    limit.map_or(q, |l| l.limit(q))
}

fn options() -> IkOptions {
    IkOptions {
        max_iterations: 300,
        tolerance: 1e-3,
        ..IkOptions::default()
    }
}

#[test]
fn relaxation_passes_reach_targets_in_two_three_and_four_dimensions() {
    fn check<P: ChainPoint + std::fmt::Debug>(target: P) {
        let lengths = [0.4, 0.3, 0.3];
        let mut points = [P::ZERO; 4];
        let mut direction = P::ZERO.any_perpendicular();
        for i in 1..4 {
            points[i] = points[i - 1] + direction * lengths[i - 1];
            direction = (direction + direction.any_perpendicular() * 0.3) * (1.0 / 1.09f32.sqrt());
        }
        let pole = direction.any_perpendicular();
        let report = solve_points(
            &mut points,
            &lengths,
            &[1.0; 4],
            target,
            pole,
            Solver::Relaxation,
            &options(),
        );
        assert!(report.reached(), "{target:?}: {report:?}");
        for (bone, &length) in lengths.iter().enumerate() {
            let actual = (points[bone + 1] - points[bone]).length();
            assert!(
                (actual - length).abs() < 1e-4,
                "{target:?} bone {bone}: {actual}"
            );
        }
        assert_eq!(points[0].length(), 0.0, "the root moved");
    }
    check(Vec2::new(0.3, -0.5));
    check(Vec3::new(0.2, 0.4, -0.3));
    check(Vec4::new(0.1, -0.3, 0.2, 0.4));
}

#[test]
fn point_chains_stop_pointing_at_targets_beyond_reach() {
    for solver in [Solver::Relaxation, Solver::Fabrik] {
        let lengths = [0.5, 0.3, 0.2];
        let mut points = [
            Vec2::ZERO,
            Vec2::new(0.5, 0.0),
            Vec2::new(0.5, 0.3),
            Vec2::new(0.3, 0.3),
        ];
        let target = Vec2::new(-1.2, 1.6);
        let report = solve_points(
            &mut points,
            &lengths,
            &[1.0; 4],
            target,
            Vec2::Y,
            solver,
            &options(),
        );
        // 2 from the root: no pose comes nearer than 1.
        assert_eq!(
            report.stop,
            StopReason::OutOfReach,
            "{solver:?}: {report:?}"
        );
        assert!(report.distance - 1.0 <= 1e-3, "{solver:?}: {report:?}");
        assert!((points[3] - points[0]).length() > 1.0 - 1e-3);
    }
}

#[test]
fn zero_weight_pins_a_joint_during_relaxation() {
    let lengths = [1.0, 1.0, 1.0];
    let mut points = [
        Vec2::ZERO,
        Vec2::new(1.0, 0.0),
        Vec2::new(2.0, 0.0),
        Vec2::new(3.0, 0.0),
    ];
    let pinned = points[1];
    relaxation_pass(
        &mut points,
        &lengths,
        &[1.0, 0.0, 1.0, 1.0],
        Vec2::new(1.5, 1.5),
    );
    assert_eq!(points[1], pinned);
    assert_eq!(points[0], Vec2::ZERO);
    assert_eq!(points[3], Vec2::new(1.5, 1.5));
    // The bone between the pinned joint and its free child has its length back.
    assert!(((points[2] - points[1]).length() - 1.0).abs() < 1e-6);
}

#[test]
fn zero_weight_pins_a_joint_of_a_rotational_chain_in_every_solver() {
    let cone = cone(100.0, 60.0);
    for (solver, use_limits) in Solver::ALL
        .into_iter()
        .flat_map(|s| [(s, false), (s, true)])
    {
        let mut chain = straight_chain(vec![Some(&cone); 4]);
        // Point 2, halfway up, is pinned; the two bones beyond it reach the target alone.
        chain.set_weights(&[1.0, 1.0, 0.0, 1.0, 1.0]).unwrap();
        assert_eq!(chain.first_free_joint(), 2);
        let pinned = chain.positions()[2];
        let target = Vec3::new(0.3, 0.6, 0.1);
        let options = IkOptions {
            use_limits,
            ..options()
        };
        let report = solve(&mut chain, target, solver, &options);
        let case = format!("{solver:?}, limits {use_limits}");
        assert!(report.reached(), "{case}: {report:?}");
        assert!(
            chain.positions()[2].distance(pinned) < 1e-5,
            "{case}: the pinned joint moved to {:?}",
            chain.positions()[2]
        );
        assert!(chain.limit_violation() < 1e-4 || !use_limits, "{case}");
    }
}

#[test]
fn planar_lock_up_is_detected_and_escaped() {
    // Two straight bones along +X and a target behind the tip, on their line: every pass keeps the
    // chain on the line, so without the escape the end can only slide along it.
    let start = PlanarChain::new(Vec2::ZERO, vec![0.0, 0.0], vec![1.0, 1.0]);
    let target = Vec2::new(0.5, 0.0);
    for solver in Solver::ALL {
        let mut chain = start.clone();
        let report = chain.solve(target, solver, &options());
        assert!(report.reached(), "{solver:?}: {report:?}");
        assert!(report.escapes >= 1, "{solver:?} never detected the lock-up");
        assert!(chain.end_effector().distance(target) <= 1e-3);
    }
    // The escape bends toward the pole: the elbow ends up on its side.
    let mut chain = start.clone();
    let down = IkOptions {
        pole: Some(Vec3::NEG_Y),
        ..options()
    };
    chain.solve(target, Solver::Relaxation, &down);
    assert!(chain.positions()[1].y < 0.0, "{:?}", chain.positions());
}

#[test]
fn planar_ranges_hold_inside_the_solve() {
    let mut random = SplitMix(5);
    for solver in Solver::ALL {
        let mut reached = 0;
        for _ in 0..200 {
            let mut chain = PlanarChain::new(Vec2::ZERO, vec![0.3, 0.3, 0.3], vec![0.4, 0.3, 0.3]);
            chain.ranges = vec![Some((-1.0, 1.0)), Some((0.0, 2.0)), Some((0.0, 2.0))];
            // A target the ranges allow: the end of a random allowed pose.
            let mut goal = chain.clone();
            for (angle, range) in goal.angles.iter_mut().zip(&chain.ranges) {
                let (min, max) = range.unwrap();
                *angle = min + (max - min) * (0.5 + 0.5 * random.next_signed());
            }
            let target = goal.end_effector();
            let report = chain.solve(target, solver, &options());
            assert!(chain.within_ranges(), "{solver:?}: {:?}", chain.angles);
            assert!(chain.angles.iter().all(|a| a.is_finite()));
            // The reported distance is the returned angles' distance.
            assert!((chain.end_effector().distance(target) - report.distance).abs() < 1e-4);
            reached += usize::from(report.reached());
        }
        assert!(reached >= 190, "{solver:?} reached {reached} of 200");
    }
}

#[test]
fn limits_hold_inside_every_solver_and_reachable_targets_are_reached() {
    let shoulder = cone(80.0, 60.0);
    let elbow = elbow();
    let wrist = cone(45.0, 30.0);
    let limits = [&shoulder, &elbow, &wrist];
    let mut random = SplitMix(17);
    let random_pose = |random: &mut SplitMix| -> Vec<Quat> {
        (limits.iter())
            .map(|l| random_allowed(random, Some(l)))
            .collect()
    };
    // With and without the least-squares step that ends each iteration: the passes alone must
    // hold the limits and reach too.
    for (solver, least_squares_step) in Solver::ALL
        .into_iter()
        .flat_map(|s| [(s, true), (s, false)])
    {
        for use_limits in [true, false] {
            let (mut reached, trials) = (0, 300);
            for _ in 0..trials {
                // A target the limits allow: the end of a random allowed pose.
                let mut goal = straight_chain(limits.map(Some).to_vec());
                goal.set_local_rotations(&random_pose(&mut random));
                let target = goal.end_effector();
                let mut chain = straight_chain(limits.map(Some).to_vec());
                chain.set_local_rotations(&random_pose(&mut random));
                let opts = IkOptions {
                    use_limits,
                    least_squares_step,
                    ..options()
                };
                let report = solve(&mut chain, target, solver, &opts);
                if use_limits {
                    let violation = chain.limit_violation();
                    assert!(violation <= 1e-4, "{solver:?}: violation {violation} rad");
                }
                assert!(chain.positions().iter().all(|p| p.is_finite()));
                assert!((chain.end_effector().distance(target) - report.distance).abs() < 1e-5);
                reached += usize::from(report.reached());
            }
            assert!(
                reached * 100 >= trials * 85,
                "{solver:?} (limits {use_limits}, least squares {least_squares_step}) reached \
                 {reached} of {trials}"
            );
        }
    }
}

#[test]
fn unreachable_targets_are_approached_without_nan_or_violations() {
    let shoulder = cone(80.0, 60.0);
    let elbow = elbow();
    for solver in Solver::ALL {
        for target in [
            Vec3::new(0.0, -3.0, 0.0),
            Vec3::new(2.0, 0.5, 0.0),
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 1e6, 0.0),
        ] {
            for use_limits in [false, true] {
                let mut chain = straight_chain(vec![Some(&shoulder), Some(&elbow)]);
                let opts = IkOptions {
                    use_limits,
                    ..options()
                };
                let report = solve(&mut chain, target, solver, &opts);
                assert!(report.distance.is_finite(), "{solver:?} {target}");
                assert!(chain.positions().iter().all(|p| p.is_finite()));
                if use_limits {
                    assert!(chain.limit_violation() <= 1e-4, "{solver:?} {target}");
                } else if target.length() > 1.0 {
                    // Free: the chain is laid straight at a target beyond its reach at once.
                    let gap = target.length() - 1.0;
                    assert!(
                        report.distance - gap < 1e-3f32.max(1e-6 * gap),
                        "{solver:?} {target}: {report:?}"
                    );
                    assert_eq!(report.stop, StopReason::OutOfReach, "{solver:?} {target}");
                    assert_eq!(report.iterations, 1, "{solver:?} {target}");
                }
            }
        }
        let mut chain = straight_chain(vec![Some(&shoulder), Some(&elbow)]);
        let report = solve(&mut chain, Vec3::NAN, solver, &options());
        assert_eq!(report.stop, StopReason::Stalled);
        assert_eq!(chain.local_rotations(), &[Quat::IDENTITY; 2]);
    }
}

#[test]
fn two_bone_ik_is_exact_and_bends_toward_the_pole() {
    let mut random = SplitMix(3);
    for _ in 0..200 {
        let mut chain = straight_chain(vec![None, None]);
        let target = random_unit(&mut random) * (0.05 + 0.9 * random.next_signed().abs());
        let pole = random_unit(&mut random);
        let opts = IkOptions {
            pole: Some(pole),
            use_limits: false,
            ..options()
        };
        let report = solve_two_bone(&mut chain, target, &opts);
        assert_eq!(report.iterations, 1, "{report:?}");
        assert!(chain.end_effector().distance(target) < 1e-4, "{report:?}");
        // The middle joint leans toward the pole, seen across the root–target line.
        let axis = target.normalize();
        let middle = chain.positions()[1];
        let off_line = middle - axis * middle.dot(axis);
        let pole_off_line = pole - axis * pole.dot(axis);
        if pole_off_line.length() > 0.1 {
            assert!(off_line.dot(pole_off_line) > 0.0);
        }
    }
    // With limits the elbow never bends backwards, and CCD finishes what the clamp undid.
    let shoulder = cone(90.0, 60.0);
    let elbow = elbow();
    let mut chain = straight_chain(vec![Some(&shoulder), Some(&elbow)]);
    let target = Vec3::new(0.0, 0.5, -0.5);
    let report = solve_two_bone(
        &mut chain,
        target,
        &IkOptions {
            pole: Some(Vec3::Z),
            ..options()
        },
    );
    assert!(chain.limit_violation() <= 1e-4);
    assert!(report.reached(), "{report:?}");
}

#[test]
fn look_at_exhausts_the_spine_before_the_head() {
    // Spine, chest and head stacked along +Y, each allowed 20° of twist about it; the aim looks
    // along +Z from the head.
    let joint = cone(30.0, 20.0);
    let mut chain = Chain::new(
        Vec3::ZERO,
        Quat::IDENTITY,
        vec![Quat::IDENTITY; 3],
        vec![Vec3::Y * 0.3, Vec3::Y * 0.2, Vec3::Z],
        vec![Some(&joint); 3],
    )
    .unwrap();
    // A far target 50° to the side: spine 20°, chest 20°, and the head the last 10°.
    let target = Quat::from_rotation_y(50f32.to_radians()) * Vec3::Z * 1000.0;
    let report = look_at(&mut chain, target, &options());
    assert!(report.angle < 1e-3, "{report:?}");
    assert!(chain.limit_violation() <= 1e-4);
    let turned: Vec<f32> = chain
        .local_rotations()
        .iter()
        .map(|q| q.angle_between(Quat::IDENTITY).to_degrees())
        .collect();
    for (joint, expected) in [20.0, 20.0, 10.0].into_iter().enumerate() {
        assert!((turned[joint] - expected).abs() < 0.1, "{turned:?}");
    }
    // Out of range for twisting alone (60° of the 120°): the shortest arcs stop 60° short, and
    // turns that also swing each joint within its cone bring the aim nearer.
    let behind = Quat::from_rotation_y(120f32.to_radians()) * Vec3::Z * 1000.0;
    let report = look_at(&mut chain, behind, &options());
    assert!(report.angle.to_degrees() < 35.0, "{report:?}");
    assert!(chain.limit_violation() <= 1e-4);
}

#[test]
fn moving_the_base_carries_the_chain_and_bad_bases_are_refused() {
    let mut chain = straight_chain(vec![None, None]);
    let turn = Quat::from_rotation_z(FRAC_PI_2);
    chain
        .set_base(Vec3::new(1.0, 2.0, 3.0), turn * 2.0)
        .unwrap();
    // The unit-length chain along +y, turned a quarter about z, hangs along −x from the base.
    let end = chain.end_effector();
    assert!(end.distance(Vec3::new(0.0, 2.0, 3.0)) < 1e-6, "{end}");
    let before = chain.positions().to_vec();
    for (position, rotation) in [
        (Vec3::NAN, Quat::IDENTITY),
        (Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)),
        (Vec3::ZERO, Quat::from_xyzw(f32::INFINITY, 0.0, 0.0, 1.0)),
    ] {
        assert_eq!(
            chain.set_base(position, rotation),
            Err(ChainError::NonFinite("base frame"))
        );
        assert_eq!(chain.positions(), &before[..]);
    }
}
