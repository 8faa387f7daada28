//! No side switching: a rotation swept slowly through a full turn past its limit moves
//! the limited output no more than the input moved, frame after frame. (A full turn is where the
//! scaled angle-axis ball of radius 2π wraps; in swing-twist space a swing of 180° is.)

use glam::{DVec3, Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_joint_limit};
use jointlimits::rotation::{angle_between, unroll};
use jointlimits::shape::KdopDirections;
use jointlimits::{JointLimit, Limiter, SpaceKind};

/// A limit fitted to a spread of rotations around 40° about X, twisting about Y.
fn fitted(space: SpaceKind, shape: ShapeKind) -> JointLimit {
    let mut samples: Vec<Quat> = (0..400)
        .map(|i| {
            let t = i as f32 * 0.05;
            Quat::from_euler(
                glam::EulerRot::XYZ,
                0.7 + 0.5 * (t * 1.3).sin(),
                0.6 * (t * 0.7).cos(),
                0.3 * (t * 2.1).sin(),
            )
        })
        .collect();
    unroll(&mut samples);
    let options = FitOptions {
        space,
        shape,
        padding: 0.02,
        ..FitOptions::default()
    };
    fit_joint_limit("joint", Quat::IDENTITY, &[samples], Vec3::Y, &options).unwrap()
}

fn largest_output_step(limit: &JointLimit, axis: Vec3, degrees: f32, stateful: bool) -> (f32, f32) {
    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
    let step = 0.25f32.to_radians();
    let (mut previous, mut largest) = (None::<Quat>, 0.0f32);
    for i in 0..(degrees / 0.25) as usize {
        let input = Quat::from_axis_angle(axis, i as f32 * step);
        let output = if stateful {
            limiter.limit_joint(0, input).0
        } else {
            limit.limit(input)
        };
        assert!(output.is_finite());
        if let Some(p) = previous {
            largest = largest.max(angle_between(p, output));
        }
        previous = Some(output);
    }
    (largest, step)
}

#[test]
fn sweeping_a_full_turn_never_jumps_in_full_space() {
    let axes = [
        Vec3::X,
        Vec3::Y,
        Vec3::Z,
        DVec3::new(1.0, 1.0, 0.3).normalize().as_vec3(),
        DVec3::new(-0.4, 0.2, 1.0).normalize().as_vec3(),
    ];
    let shapes = [
        ShapeKind::Box,
        ShapeKind::Obb,
        ShapeKind::Ellipsoid,
        ShapeKind::Kdop(KdopDirections::Thirteen),
        ShapeKind::Hull,
    ];
    let mut stateless_jumps = 0;
    for shape in shapes {
        let limit = fitted(SpaceKind::Full, shape);
        for axis in axes {
            let (largest, step) = largest_output_step(&limit, axis, 360.0, true);
            assert!(
                largest <= step * 1.0001 + 1e-5,
                "{shape:?} about {axis}: output moved {}° for a {}° input step",
                largest.to_degrees(),
                step.to_degrees()
            );
            let (stateless, _) = largest_output_step(&limit, axis, 360.0, false);
            stateless_jumps += usize::from(stateless > 10.0 * step);
        }
    }
    // Without the runtime unrolling, choosing the short way each frame does switch sides.
    assert!(stateless_jumps > 0);
}

#[test]
fn swing_twist_sweeps_about_the_twist_axis_and_across_it_never_jump() {
    for shape in [
        ShapeKind::Ellipsoid,
        ShapeKind::Kdop(KdopDirections::Thirteen),
        ShapeKind::Box,
    ] {
        let limit = fitted(SpaceKind::SwingTwist, shape);
        // About the twist axis the swing is constant, for a full turn. Across it the twist is
        // constant (0) up to a swing of 180°, where the swing-twist split itself is singular.
        for (axis, degrees) in [(Vec3::Y, 360.0), (Vec3::X, 179.0), (Vec3::Z, 179.0)] {
            let (largest, step) = largest_output_step(&limit, axis, degrees, true);
            assert!(
                largest <= step * 1.0001 + 1e-5,
                "{shape:?} about {axis}: output moved {}° for a {}° input step",
                largest.to_degrees(),
                step.to_degrees()
            );
        }
    }
}
