//! The measures behind `jointlimits eval` and `compare`, held against analytic answers: the Haar
//! measure of a ball and a box, the share of directions in a cone, and the nearest allowed
//! rotation to a ball and a cone.

use std::f64::consts::PI;

use glam::{Quat, Vec3};
use jointlimits::authored::ConeLimit;
use jointlimits::measure::optimality::{brute_force_nearest, optimality};
use jointlimits::measure::tightness::{direction_acceptance, rotation_acceptance};
use jointlimits::measure::{EvaluationOptions, SeededRandom, continuity, evaluate_limit};
use jointlimits::rotation::angle_between;
use jointlimits::shape::{BoxShape, EllipsoidShape, Frame};
use jointlimits::{FullLimit, JointLimit, LimitRegion, Shape, TwistRange};

fn ball(radius: f32) -> FullLimit {
    FullLimit::new(Shape::Ellipsoid(EllipsoidShape {
        frame: Frame::IDENTITY,
        semi_axes: Vec3::splat(radius),
    }))
}

fn cone(half_angle: f32, twist: TwistRange) -> ConeLimit {
    ConeLimit {
        twist_axis: Vec3::Z,
        max_swing: half_angle,
        twist,
    }
}

const FREE_TWIST: TwistRange = TwistRange {
    min: -std::f32::consts::PI,
    max: std::f32::consts::PI,
};

#[test]
fn direction_acceptance_of_a_cone_is_its_cap() {
    for degrees in [30.0f64, 60.0, 90.0, 120.0, 150.0] {
        let theta = degrees.to_radians();
        let limit = cone(
            theta as f32,
            TwistRange {
                min: -0.2,
                max: 0.4,
            },
        );
        let measured = direction_acceptance(&limit, Vec3::Z, 100_000, 5);
        let expected = (1.0 - theta.cos()) / 2.0;
        // Within 1% of the answer; the 30° cap (7% of the sphere) within half a percentage point,
        // what 100k samples can resolve.
        let allowed = if degrees < 60.0 {
            0.005
        } else {
            0.01 * expected
        };
        assert!(
            (measured - expected).abs() < allowed,
            "{degrees}°: measured {measured}, expected {expected}"
        );
    }
}

#[test]
fn rotation_acceptance_of_a_ball_is_its_haar_measure() {
    // Rotations by at most r: (r − sin r)/π of SO(3).
    for radius in [0.5f64, 1.0, 2.0, 3.0] {
        let measured = rotation_acceptance(&ball(radius as f32), 100_000, 9);
        let expected = (radius - radius.sin()) / PI;
        let sigma = (expected * (1.0 - expected) / 100_000.0).sqrt();
        assert!(
            (measured - expected).abs() < 4.0 * sigma,
            "r = {radius}: measured {measured}, expected {expected}"
        );
    }
}

/// The Haar measure of a region of scaled angle-axis space inside the ball of radius π, by the
/// midpoint rule on the density `(1 − cos |v|) / (4π² |v|²)`.
fn haar_measure_of_box(min: [f64; 3], max: [f64; 3], cells: usize) -> f64 {
    let size: Vec<f64> = (0..3).map(|i| (max[i] - min[i]) / cells as f64).collect();
    let mut total = 0.0;
    for i in 0..cells {
        for j in 0..cells {
            for k in 0..cells {
                let v = [
                    min[0] + (i as f64 + 0.5) * size[0],
                    min[1] + (j as f64 + 0.5) * size[1],
                    min[2] + (k as f64 + 0.5) * size[2],
                ];
                let r2 = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
                let density = if r2 < 1e-12 {
                    1.0 / (8.0 * PI * PI)
                } else {
                    (1.0 - r2.sqrt().cos()) / (4.0 * PI * PI * r2)
                };
                total += density;
            }
        }
    }
    total * size[0] * size[1] * size[2]
}

#[test]
fn rotation_acceptance_of_a_box_is_its_haar_measure() {
    let (min, max) = ([-0.4, -0.9, -1.3], [0.7, 0.5, 1.1]);
    let limit = FullLimit::new(Shape::Box(BoxShape {
        frame: Frame::IDENTITY,
        min: Vec3::new(min[0] as f32, min[1] as f32, min[2] as f32),
        max: Vec3::new(max[0] as f32, max[1] as f32, max[2] as f32),
    }));
    let samples = 400_000;
    let measured = rotation_acceptance(&limit, samples, 13);
    let expected = haar_measure_of_box(min, max, 120);
    let sigma = (expected * (1.0 - expected) / samples as f64).sqrt();
    assert!(
        (measured - expected).abs() < 4.0 * sigma,
        "measured {measured}, expected {expected} (σ = {sigma})"
    );
}

#[test]
fn brute_force_finds_the_nearest_rotation_of_a_ball() {
    let radius = 0.8f32;
    let limit = ball(radius);
    let mut random = SeededRandom::new(21);
    let pool: Vec<Quat> = (0..20_000).map(|_| random.rotation()).collect();
    for _ in 0..40 {
        let input = random.rotation();
        let angle = angle_between(Quat::IDENTITY, input);
        if angle <= radius {
            continue;
        }
        let nearest = brute_force_nearest(&limit, input, &pool).expect("allowed pool members");
        let found = angle_between(nearest, input);
        assert!(
            (found - (angle - radius)).abs() < 1e-3,
            "{found} vs {}",
            angle - radius
        );
    }
}

#[test]
fn brute_force_finds_the_nearest_rotation_of_a_twist_free_cone() {
    // Any rotation that brings the bone within θ of the axis is allowed, so the nearest allowed
    // rotation is the bone's angle from the cone: max(0, ∠(q·z, z) − θ).
    let theta = 0.7f32;
    let limit = cone(theta, FREE_TWIST);
    let mut random = SeededRandom::new(22);
    let pool: Vec<Quat> = (0..20_000).map(|_| random.rotation()).collect();
    for _ in 0..40 {
        let input = random.rotation();
        let bone = (input * Vec3::Z).angle_between(Vec3::Z);
        if bone <= theta + 1e-3 {
            continue;
        }
        let nearest = brute_force_nearest(&limit, input, &pool).expect("allowed pool members");
        let found = angle_between(nearest, input);
        assert!(
            (found - (bone - theta)).abs() < 2e-3,
            "{found} vs {}",
            bone - theta
        );
    }
}

#[test]
fn the_optimality_gap_of_a_ball_is_zero() {
    let limit = ball(1.1);
    let mut random = SeededRandom::new(23);
    let inputs: Vec<Quat> = (0..150).map(|_| random.rotation()).collect();
    let pool: Vec<Quat> = (0..20_000).map(|_| random.rotation()).collect();
    let measured = optimality(&limit, &inputs, &pool);
    assert!(measured.inputs > 100);
    assert_eq!(measured.projections_not_allowed, 0);
    assert!(measured.max_gap < 1e-3, "{measured:?}");
}

#[test]
fn the_optimality_gap_of_a_box_shows_its_metric() {
    // A box projects in scaled angle-axis coordinates, not in rotation angle: far corners land
    // measurably farther than the nearest allowed rotation, and the measure must see it.
    let limit = FullLimit::new(Shape::Box(BoxShape {
        frame: Frame::IDENTITY,
        min: Vec3::new(-0.3, -1.2, -0.2),
        max: Vec3::new(0.3, 1.2, 0.2),
    }));
    let mut random = SeededRandom::new(24);
    let inputs: Vec<Quat> = (0..150).map(|_| random.rotation()).collect();
    let pool: Vec<Quat> = (0..20_000).map(|_| random.rotation()).collect();
    let measured = optimality(&limit, &inputs, &pool);
    assert_eq!(measured.projections_not_allowed, 0);
    assert!(measured.max_gap > 1e-3, "{measured:?}");
}

fn joint(region: LimitRegion) -> JointLimit {
    JointLimit {
        joint: "joint".into(),
        reference: Quat::from_rotation_x(0.3),
        region,
        softening: None,
    }
}

#[test]
fn paths_inside_a_limit_move_the_output_with_the_input() {
    // A ball of radius π allows everything, so the output is the input on every path.
    let report = continuity::continuity(
        &joint(ball(std::f32::consts::PI * 1.001).into()),
        Vec3::Y,
        2,
        3,
    );
    let overall = report.overall();
    assert_eq!(overall.paths, 6);
    assert_eq!(overall.switches, 0);
    assert!(overall.largest_jump <= f64::from(continuity::PATH_STEP) * 1.01);
}

#[test]
fn a_hemisphere_cone_switches_sides_when_the_bone_swings_through_180() {
    // Swung one full turn, the bone leaves a cone of 60° and comes back from the other side: the
    // output has to cross over once somewhere in the outside half.
    let limit = joint(cone(1.05, FREE_TWIST).into());
    let report = continuity::continuity(&limit, Vec3::Z, 3, 4);
    assert!(report.swings_through_180.switches >= 3, "{report:?}");
    assert!(report.swings_through_180.largest_jump > 1.5);
}

#[test]
fn evaluations_are_reproducible() {
    let limit = joint(
        cone(
            0.9,
            TwistRange {
                min: -0.5,
                max: 0.7,
            },
        )
        .into(),
    );
    let options = EvaluationOptions {
        samples: 20_000,
        optimality_inputs: 40,
        paths_per_family: 1,
        seed: 77,
        timing: false,
    };
    let first = evaluate_limit(&limit, Vec3::Z, &options);
    let second = evaluate_limit(&limit, Vec3::Z, &options);
    assert_eq!(first, second);
    assert!(first.direction_acceptance > 0.1 && first.direction_acceptance < 0.25);
    assert!(first.rotation_acceptance < first.direction_acceptance);
}

#[test]
fn narrow_twist_ranges_of_thin_full_space_shapes_are_reached() {
    // A thin ellipsoid along x in scaled angle-axis: at most directions only a narrow band of
    // twists is allowed, between the evenly spaced steps. A dense search over 720 twists is the
    // reference.
    use jointlimits::measure::tightness::{pointing, reaches_direction};
    use jointlimits::{LimitContext, RotationLimit};
    let limit = FullLimit::new(Shape::Ellipsoid(EllipsoidShape {
        frame: Frame::IDENTITY,
        semi_axes: Vec3::new(2.0, 0.1, 0.1),
    }));
    let axis = Vec3::Y;
    let mut random = SeededRandom::new(31);
    let (mut reached, mut dense, mut missed) = (0, 0, 0);
    for _ in 0..3000 {
        let direction = random.direction();
        let fast = reaches_direction(&limit, axis, direction);
        let slow = (0..720).any(|k| {
            let twist = k as f32 * std::f32::consts::TAU / 720.0;
            limit.contains(pointing(axis, direction, twist), &LimitContext::NONE)
        });
        reached += usize::from(fast);
        dense += usize::from(slow);
        missed += usize::from(slow && !fast);
    }
    assert!(dense > 60, "{dense}");
    assert!(
        missed * 50 <= dense,
        "missed {missed} of {dense} (found {reached})"
    );
}
