//! The vectorised [`JointLimit::limit_many`] agrees with [`JointLimit::limit`] on every shape and
//! space, on reach cones and on lookup tables, leaves inside rotations bit for bit unchanged and
//! handles lengths that are not a multiple of the lane count.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_joint_limit};
use jointlimits::rotation::{angle_between, from_scaled_angle_axis, unroll};
use jointlimits::shape::{KdopDirections, Shape};
use jointlimits::{JointLimit, LimitRegion, RotationLimit, Softening, SpaceKind};
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
    // Every shape in both spaces, a reach cone and a lookup table (which ignore the space).
    let kinds = [SpaceKind::Full, SpaceKind::SwingTwist]
        .into_iter()
        .flat_map(|space| shapes.map(|shape| (space, shape)))
        .chain([
            (SpaceKind::SwingTwist, ShapeKind::ReachCone),
            (SpaceKind::SwingTwist, ShapeKind::Table(32)),
        ]);
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

/// For full-space boxes and ellipsoids the lanes make the one-at-a-time path's operations in its
/// order, so the results are the same bits on the whole input space: Haar-random rotations in
/// both covers, rotations a hair from the boundary, half turns and quaternions far from unit
/// length.
/// Inputs that hold no rotation (a component not finite, or all zero) get the one-at-a-time
/// answer from the batch too, whichever lanes they share a group with.
#[test]
fn inputs_holding_no_rotation_batch_as_one_at_a_time() {
    let mut random = jointlimits::measure::SeededRandom::new(0xDEAD);
    let hostile = [
        Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
        Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
        Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN),
        Quat::from_xyzw(0.0, f32::INFINITY, 0.0, 1.0),
        Quat::from_xyzw(0.0, 0.0, f32::NEG_INFINITY, 0.0),
    ];
    for limit in limits() {
        let inputs: Vec<Quat> = (0..200)
            .map(|i| {
                if i % 7 == 3 {
                    hostile[i / 7 % hostile.len()]
                } else {
                    random.rotation()
                }
            })
            .collect();
        let mut batch = inputs.clone();
        limit.limit_many(&mut batch);
        // (The rotations around them are checked by the tests above.)
        for (input, got) in inputs
            .iter()
            .zip(&batch)
            .filter(|(q, _)| hostile.contains(q) || q.is_nan())
        {
            let expected = limit.limit(*input);
            let same = got.to_array().map(f32::to_bits) == expected.to_array().map(f32::to_bits)
                || (got.is_nan() && expected.is_nan());
            assert!(
                same,
                "{}: {input:?} gave {got:?} in a batch, {expected:?} alone",
                limit.region.label()
            );
        }
    }
}

#[test]
fn full_space_boxes_and_ellipsoids_batch_to_the_same_bits() {
    let mut random = jointlimits::measure::SeededRandom::new(0xB175);
    let boxes_and_ellipsoids = limits().into_iter().filter(|l| {
        matches!(&l.region, LimitRegion::Full(f) if matches!(f.shape(), Shape::Box(_) | Shape::Ellipsoid(_)))
    });
    let mut tested = 0;
    for limit in boxes_and_ellipsoids {
        tested += 1;
        let mut inputs = Vec::new();
        for i in 0..4000 {
            let haar = random.rotation();
            let nudge = Quat::from_axis_angle(random.direction(), 10f32.powi(-(i as i32 % 7)));
            inputs.push(match i % 4 {
                0 => haar,
                1 => limit.limit(haar) * nudge,
                2 => Quat::from_axis_angle(random.direction(), std::f32::consts::PI) * nudge,
                _ => haar * [1e-20, 0.5, 3.0, 1e20][i / 4 % 4],
            });
        }
        let mut batch = inputs.clone();
        limit.limit_many(&mut batch);
        let mut outside = 0;
        for (input, got) in inputs.iter().zip(&batch) {
            let expected = limit.limit(*input);
            outside += usize::from(expected != *input);
            assert_eq!(
                got.to_array().map(f32::to_bits),
                expected.to_array().map(f32::to_bits),
                "{}: {input:?}",
                limit.region.label()
            );
        }
        assert!(outside > 1000, "{}: {outside}", limit.region.label());
    }
    // Box, oriented box, ellipsoid, minimum-volume ellipsoid.
    assert_eq!(tested, 4);
}
