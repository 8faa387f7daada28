//! The anatomical presets: they load by name, allow and refuse the arm directions anatomy says,
//! carry the twist ranges of their sources, and the left side mirrors the right.

use glam::{Quat, Vec3};
use jointlimits::RotationLimit;
use jointlimits::presets::{PRESET_NAMES, preset};
use jointlimits::rotation::rotation_between;

/// Body-frame direction at plane of elevation and elevation (degrees).
fn arm(plane: f32, elevation: f32) -> Vec3 {
    let (sp, cp) = plane.to_radians().sin_cos();
    let (se, ce) = elevation.to_radians().sin_cos();
    Vec3::new(se * cp, -ce, se * sp)
}

#[test]
fn every_preset_loads_and_unknown_names_do_not() {
    for name in PRESET_NAMES {
        let preset = preset(name).unwrap_or_else(|| panic!("{name} does not load"));
        assert_eq!(preset.name, name);
        assert!(preset.limit.is_finite());
    }
    assert!(preset("right_knee").is_none());
}

#[test]
fn the_shoulder_reaches_where_an_arm_reaches_and_twists_less_when_raised() {
    let shoulder = preset("right_shoulder").unwrap().limit;
    let cone = &shoulder.cone;
    for (plane, elevation) in [
        (0.0, 90.0),
        (90.0, 90.0),
        (90.0, 160.0),
        (270.0, 40.0),
        (120.0, 120.0),
    ] {
        assert!(
            cone.contains(arm(plane, elevation)),
            "should reach {plane}/{elevation}"
        );
    }
    for (plane, elevation) in [(270.0, 90.0), (200.0, 90.0), (180.0, 60.0)] {
        assert!(
            !cone.contains(arm(plane, elevation)),
            "should not reach {plane}/{elevation}"
        );
    }
    assert!(
        !cone.contains(Vec3::Y),
        "straight up is the excluded antipode"
    );
    let range = |d: Vec3| {
        let t = cone.twist_limits(d);
        (t.max - t.min).to_degrees()
    };
    let down = range(Vec3::NEG_Y);
    assert!((down - 157.0).abs() < 0.5, "{down}");
    let raised = range(arm(45.0, 175.0));
    assert!((94.0..100.0).contains(&raised), "{raised}");
    // Twist ranges shrink steadily as the arm rises in front.
    let mut previous = down;
    for elevation in [30.0, 60.0, 90.0, 120.0, 150.0] {
        let now = range(arm(90.0, elevation));
        assert!(now < previous + 1e-3, "{elevation}: {now} after {previous}");
        previous = now;
    }
}

#[test]
fn the_wrist_bends_like_a_wrist_and_pronates_within_its_range() {
    let wrist = preset("right_wrist").unwrap().limit;
    // Flexion (towards the palm, forward) reaches 80°, radial deviation (lateral) only 20°.
    assert!(wrist.cone.contains(arm(90.0, 75.0)));
    assert!(!wrist.cone.contains(arm(90.0, 85.0)));
    assert!(wrist.cone.contains(arm(0.0, 18.0)));
    assert!(!wrist.cone.contains(arm(0.0, 25.0)));
    let twist = wrist.cone.twist_limits(Vec3::NEG_Y);
    assert!((twist.min.to_degrees() + 60.0).abs() < 1e-3);
    assert!((twist.max.to_degrees() - 100.0).abs() < 1e-3);
    // A hand flexed 40° and pronated 120° is limited to 100° of pronation, keeping its flexion.
    let flexed = rotation_between(Vec3::NEG_Y, arm(90.0, 40.0));
    let pronated = flexed * Quat::from_axis_angle(Vec3::NEG_Y, 120f32.to_radians());
    let limited = wrist.nearest(pronated, &jointlimits::LimitContext::NONE);
    assert!(!limited.inside);
    let kept = limited.relative * Vec3::NEG_Y;
    assert!(kept.angle_between(arm(90.0, 40.0)) < 1e-4);
    assert!(
        (limited.violation.to_degrees() - 20.0).abs() < 0.01,
        "{}",
        limited.violation.to_degrees()
    );
}

#[test]
fn left_presets_mirror_the_right() {
    let mirror = |v: Vec3| Vec3::new(-v.x, v.y, v.z);
    for (right, left) in [
        ("right_shoulder", "left_shoulder"),
        ("right_wrist", "left_wrist"),
    ] {
        let (right, left) = (preset(right).unwrap().limit, preset(left).unwrap().limit);
        for i in 0..2_000 {
            let t = i as f32 * 0.618;
            let d = Vec3::new(t.sin(), (1.7 * t).cos(), (0.3 * t).sin()).normalize();
            assert_eq!(right.cone.contains(d), left.cone.contains(mirror(d)), "{d}");
            if right.cone.contains(d) {
                let (r, l) = (
                    right.cone.twist_limits(d),
                    left.cone.twist_limits(mirror(d)),
                );
                assert!((r.min + l.max).abs() < 1e-4 && (r.max + l.min).abs() < 1e-4);
            }
        }
    }
}

#[test]
fn a_preset_becomes_a_joint_limit_in_the_joint_frame() {
    // A skeleton whose upper arm hangs along local +X at its reference.
    let body_to_joint = rotation_between(Vec3::NEG_Y, Vec3::X);
    let limit =
        preset("right_shoulder")
            .unwrap()
            .joint_limit("RightArm", Quat::IDENTITY, body_to_joint);
    assert_eq!(limit.joint, "RightArm");
    // Raising the arm forward 90° in the body frame, expressed in the joint frame, is allowed;
    // pulling it 90° backward is not.
    let forward =
        body_to_joint * rotation_between(Vec3::NEG_Y, Vec3::Z) * body_to_joint.conjugate();
    let backward =
        body_to_joint * rotation_between(Vec3::NEG_Y, Vec3::NEG_Z) * body_to_joint.conjugate();
    assert!(limit.limit_relative(forward).inside);
    assert!(!limit.limit_relative(backward).inside);
}
