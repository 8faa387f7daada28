//! At a swing of exactly 180° every twist splits the rotation (the swing's axis turned by `t/2`
//! about the twist axis with `t` added to the twist), so the stateless nearest of the kinds that
//! split off a twist measures the split nearest the region, not the one the split happens to
//! make. Checked against a dense scan of the splits, computed here from the kinds' definitions.

use std::f32::consts::{PI, TAU};

use glam::{Quat, Vec2, Vec3};
use jointlimits::authored::ConeLimit;
use jointlimits::joint_limit::{TwistRange, swing_basis};
use jointlimits::region::SwingTwistLimit;
use jointlimits::shape::{BoxShape, Frame, Shape};
use jointlimits::{JointLimit, LimitRegion, RotationLimit};

fn joint(region: LimitRegion) -> JointLimit {
    JointLimit {
        joint: "j".into(),
        reference: Quat::IDENTITY,
        region,
        softening: None,
    }
}

/// Unit vectors perpendicular to `axis`, turned by `angle` from one of them.
fn across(axis: Vec3, angle: f32) -> Vec3 {
    let (first, second) = axis.any_orthonormal_pair();
    first * angle.cos() + second * angle.sin()
}

/// The rotation of exactly 180° about `u`.
fn half_turn(u: Vec3) -> Quat {
    Quat::from_xyzw(u.x, u.y, u.z, 0.0)
}

/// How far `twist` lies from `range` on its nearest turn.
fn twist_gap(twist: f32, range: TwistRange) -> f32 {
    (-3..=3)
        .map(|k| {
            let t = twist + TAU * k as f32;
            (range.min - t).max(t - range.max).max(0.0)
        })
        .fold(f32::INFINITY, f32::min)
}

/// The answer is as near as the nearest split and lands inside.
fn assert_nearest(limit: &JointLimit, input: Quat, expected: f32, label: &str) -> Quat {
    let nearest = limit.limit_relative(input);
    assert!(
        (nearest.violation - expected).abs() <= 2e-4,
        "{label}: violation {} against {expected} over the splits",
        nearest.violation
    );
    let output = nearest.relative;
    let after = limit.violation(output);
    assert!(after <= 2e-5, "{label}: output {after} outside");
    output
}

#[test]
fn a_cone_pulls_a_half_turn_swing_back_to_its_rim_with_a_twist_it_allows() {
    // The outside check's case: the cone reaches 3.1 rad, the twists [2.5, 3.8]; a half turn
    // is π − 3.1 away (some split has an allowed twist), not the 142° of the split with no twist.
    for (axis, max_swing, twist) in [
        (Vec3::Y, 3.1, TwistRange { min: 2.5, max: 3.8 }),
        (
            Vec3::new(0.3, -0.2, 1.0).normalize(),
            2.0,
            TwistRange {
                min: -0.4,
                max: 0.2,
            },
        ),
        (Vec3::X, 2.9, TwistRange { min: 2.8, max: 3.5 }),
    ] {
        let limit = joint(LimitRegion::Cone(ConeLimit {
            twist_axis: axis,
            max_swing,
            twist,
        }));
        for k in 0..24 {
            let u = across(axis, k as f32 * 0.27);
            let label = format!("cone {max_swing} about {axis}, half turn about {u}");
            let output = assert_nearest(&limit, half_turn(u), PI - max_swing, &label);
            // The twist fits: only the swing moves, by exactly the distance.
            let moved = half_turn(u).angle_between(output);
            assert!(
                (moved - (PI - max_swing)).abs() <= 2e-3,
                "{label}: moved {moved}"
            );
        }
    }
}

#[test]
fn a_swing_twist_box_takes_the_split_nearest_it_at_a_half_turn_swing() {
    let axis = Vec3::new(0.2, 1.0, -0.1).normalize();
    let basis = swing_basis(axis);
    // A swing box long along the plane's first axis, and twists past +π.
    let swing_box = BoxShape {
        frame: Frame::IDENTITY,
        min: Vec3::new(-2.6, -0.7, -0.1),
        max: Vec3::new(2.2, 0.9, 0.1),
    };
    for twist in [
        TwistRange { min: 2.5, max: 3.6 },
        TwistRange {
            min: -0.3,
            max: 0.4,
        },
    ] {
        let limit = joint(LimitRegion::SwingTwist(SwingTwistLimit::new(
            axis,
            basis,
            Shape::Box(swing_box),
            twist,
        )));
        let box_distance =
            |s: Vec2| s.distance(s.clamp(swing_box.min.truncate(), swing_box.max.truncate()));
        for k in 0..24 {
            let u = across(axis, k as f32 * 0.31);
            let input = half_turn(u);
            // The split the limit makes: the swing is the half turn itself, the twist zero.
            let point = (basis.transpose() * (PI * u)).truncate();
            // Every split, over two turns of `t`, scanned densely; either cover of the swing.
            let scanned = (0..=200_000)
                .map(|i| {
                    let t = -TAU + 2.0 * TAU * i as f32 / 200_000.0;
                    let swing = Vec2::from_angle(0.5 * t).rotate(point);
                    let swing_distance = box_distance(swing).min(box_distance(-swing));
                    swing_distance.hypot(twist_gap(t, twist))
                })
                .fold(f32::INFINITY, f32::min);
            let label = format!("twists {twist:?}, half turn about {u}");
            assert_nearest(&limit, input, scanned, &label);
        }
    }
}

/// The kinds that limit the bone's direction: at a half turn swing the bone points against its
/// axis whatever the split, and the twist is free, so the nearest is the allowed direction
/// nearest `−axis` with a twist allowed there (`δ = 0`).
fn assert_direction_kind_nearest(limit: &JointLimit, axis: Vec3, expected: f32, tolerance: f32) {
    for k in 0..16 {
        let u = across(axis, k as f32 * 0.39);
        let label = format!("{}, half turn about {u}", limit.region.label());
        assert_nearest_within(limit, half_turn(u), expected, tolerance, &label);
    }
}

fn assert_nearest_within(
    limit: &JointLimit,
    input: Quat,
    expected: f32,
    tolerance: f32,
    label: &str,
) {
    let nearest = limit.limit_relative(input);
    assert!(
        (nearest.violation - expected).abs() <= tolerance,
        "{label}: violation {} against {expected}",
        nearest.violation
    );
    let after = limit.violation(nearest.relative);
    assert!(after <= 2e-5, "{label}: output {after} outside");
}

#[test]
fn a_reach_cone_takes_a_twist_it_allows_at_a_half_turn_swing() {
    use jointlimits::reach_cone::{ReachCone, ReachConeLimit};
    // The wide cone past the equator, its twists past +π (no split's own twist of 0 fits).
    let boundary: Vec<Vec3> = (0..8)
        .map(|i| {
            let a = i as f32 * TAU / 8.0;
            Vec3::new(a.cos(), -0.3, -a.sin())
        })
        .collect();
    let cone = ReachCone::new(Vec3::Y, &boundary, TwistRange { min: 2.4, max: 3.7 })
        .expect("a valid cone");
    // The boundary's nearest point to −Y, scanned along its great arcs.
    let nearest_boundary = (0..8)
        .flat_map(|i| {
            let (a, b) = (boundary[i].normalize(), boundary[(i + 1) % 8].normalize());
            (0..=2000).map(move |k| a.slerp(b, k as f32 / 2000.0))
        })
        .map(|d| d.angle_between(-Vec3::Y))
        .fold(f32::INFINITY, f32::min);
    let limit = joint(LimitRegion::ReachCone(ReachConeLimit {
        twist_axis: Vec3::Y,
        cone,
    }));
    assert_direction_kind_nearest(&limit, Vec3::Y, nearest_boundary, 1e-4);
}

#[test]
fn a_table_takes_a_twist_it_allows_at_a_half_turn_swing() {
    use jointlimits::table::{TableLimit, TableValues};
    // Directions within 2.4 rad of the axis, with twists that leave out the split's own 0.
    let limit = joint(LimitRegion::Table(TableLimit::from_fn(Vec3::Y, 32, |d| {
        TableValues {
            allowed: d.angle_between(Vec3::Y) - 2.4,
            twist: TwistRange { min: 2.0, max: 2.8 },
            stress: 0.0,
            break_margin: 0.0,
        }
    })));
    // The boundary is interpolated between the grid's vertices: within a few thousandths.
    assert_direction_kind_nearest(&limit, Vec3::Y, PI - 2.4, 5e-3);
}
