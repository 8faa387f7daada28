//! The vectorised [`JointLimit::limit_many`] agrees with [`JointLimit::limit`] on every shape and
//! space and on reach cones, leaves inside rotations bit for bit unchanged and handles lengths that are not a
//! multiple of the lane count.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_joint_limit};
use jointlimits::rotation::{angle_between, from_scaled_angle_axis, unroll};
use jointlimits::shape::KdopDirections;
use jointlimits::{JointLimit, Softening, SpaceKind};
use proptest::prelude::*;

/// A wandering, shoulder-like set of rotations to fit to.
fn walk() -> Vec<Quat> {
    let mut rotations: Vec<Quat> = (0..3000)
        .map(|i| {
            let t = i as f32 * 0.01;
            from_scaled_angle_axis(Vec3::new(
                1.1 * (t * 1.3).sin() + 0.3,
                0.7 * (t * 0.7).cos() - 0.2,
                0.5 * (t * 2.1).sin() * (t * 0.3).cos(),
            ))
        })
        .collect();
    unroll(&mut rotations);
    rotations
}

fn limits() -> Vec<JointLimit> {
    let rotations = walk();
    let shapes = [
        ShapeKind::Box,
        ShapeKind::Obb,
        ShapeKind::Ellipsoid,
        ShapeKind::MinimumVolumeEllipsoid,
        ShapeKind::Kdop(KdopDirections::Thirteen),
        ShapeKind::Hull,
    ];
    let reference = Quat::from_rotation_y(0.4) * Quat::from_rotation_x(-0.2);
    // Every shape in both spaces, and a reach cone (which ignores the space).
    let kinds = [SpaceKind::Full, SpaceKind::SwingTwist]
        .into_iter()
        .flat_map(|space| shapes.map(|shape| (space, shape)))
        .chain([(SpaceKind::SwingTwist, ShapeKind::ReachCone)]);
    kinds
        .map(|(space, shape)| {
            let options = FitOptions {
                space,
                shape,
                padding: 0.02,
                ..FitOptions::default()
            };
            fit_joint_limit(
                "joint",
                reference,
                std::slice::from_ref(&rotations),
                Vec3::Y,
                &options,
            )
            .unwrap()
        })
        .collect()
}

fn check(limit: &JointLimit, inputs: &[Quat]) -> Result<(), TestCaseError> {
    let mut batch = inputs.to_vec();
    limit.limit_many(&mut batch);
    for (input, got) in inputs.iter().zip(&batch) {
        let expected = limit.limit(*input);
        if expected == *input {
            // Inside for the scalar path: the batch may only differ at the boundary.
            prop_assert!(got == input || angle_between(*got, *input) < 1e-4);
        } else {
            prop_assert!(
                angle_between(*got, expected) < 2e-4,
                "{:?}: {got} versus {expected} ({} rad)",
                limit.region,
                angle_between(*got, expected)
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    #[test]
    fn batches_agree_with_one_at_a_time(
        raw in prop::collection::vec(prop::array::uniform4(-1.0f32..1.0), 1..70),
        spread in 0.0f32..1.0,
    ) {
        // Blend random rotations towards the data so that both inside and outside occur.
        let walk = walk();
        let inputs: Vec<Quat> = raw
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let random = Quat::from_xyzw(v[0], v[1], v[2], v[3] + 1e-3).normalize();
                let near = Quat::from_rotation_y(0.4) * Quat::from_rotation_x(-0.2) * walk[(i * 97) % walk.len()];
                near.slerp(random, spread * spread)
            })
            .collect();
        for limit in limits() {
            check(&limit, &inputs)?;
        }
    }
}

#[test]
fn inside_rotations_come_back_unchanged_and_softened_limits_work() {
    let rotations = walk();
    for mut limit in limits() {
        let mut batch: Vec<Quat> = rotations
            .iter()
            .step_by(7)
            .map(|&r| limit.reference * r)
            .collect();
        let before = batch.clone();
        limit.limit_many(&mut batch);
        let changed = batch.iter().zip(&before).filter(|(a, b)| a != b).count();
        assert_eq!(changed, 0, "{:?}", limit.region);

        limit.softening = Some(Softening {
            falloff: 0.1,
            radius: 0.05,
        });
        let far: Vec<Quat> = (0..13)
            .map(|i| Quat::from_rotation_z(0.5 * i as f32) * Quat::from_rotation_x(2.5))
            .collect();
        let mut batch = far.clone();
        limit.limit_many(&mut batch);
        for (got, input) in batch.iter().zip(&far) {
            assert_eq!(*got, limit.limit(*input));
        }
    }
}
