//! Lookup tables driven from the command line: baking any limit into a table, exporting a table
//! as images and importing painted ones, and coarser levels of detail.

mod common;

use common::{jointlimits, scratch, stderr, succeed};
use glam::{Quat, Vec3};
use jointlimits::authored::ConeLimit;
use jointlimits::measure::SeededRandom;
use jointlimits::{
    JointLimit, LimitContext, LimitRegion, RotationLimit, SkeletonLimits, TwistRange,
};
use jointlimits_io::{read_limits_file, write_limits_file};
use std::path::{Path, PathBuf};

/// A cone of 60° with twist ±0.4 about +Y.
fn cone() -> ConeLimit {
    ConeLimit {
        twist_axis: Vec3::Y,
        max_swing: 60f32.to_radians(),
        twist: TwistRange {
            min: -0.4,
            max: 0.4,
        },
    }
}

/// A limits file holding one joint limited by `region`.
fn limits_file(dir: &Path, name: &str, region: LimitRegion) -> PathBuf {
    let limits = SkeletonLimits::new(
        vec![JointLimit {
            joint: "joint".into(),
            reference: Quat::IDENTITY,
            region,
            softening: None,
        }],
        None,
    );
    let path = dir.join(name);
    write_limits_file(&path, &limits).unwrap();
    path
}

#[test]
fn bake_turns_a_cone_into_a_table_that_agrees_within_a_cell() {
    let dir = scratch("bake-cone");
    let source = limits_file(&dir, "cone.json", cone().into());
    let out = dir.join("table.json");
    let printed = succeed(&[
        "bake",
        source.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--resolution",
        "48",
        "--samples",
        "20000",
    ]);
    let worst: f32 = printed
        .lines()
        .find_map(|l| l.strip_prefix("largest gap over all joints: "))
        .and_then(|rest| rest.trim_end_matches(" cell").parse().ok())
        .unwrap_or_else(|| panic!("no summary in {printed}"));
    assert!(worst < 1.0, "{printed}");
    let baked = read_limits_file(&out).unwrap();
    let LimitRegion::Table(table) = &baked.joints[0].region else {
        panic!("not a table: {:?}", baked.joints[0].region.kind_name())
    };
    assert_eq!(table.resolution(), 48);
    // Away from the boundary the two agree on every rotation.
    let (cone, mut random) = (cone(), SeededRandom::new(4));
    for _ in 0..5000 {
        let q = random.rotation();
        let exact = cone.nearest(q, &LimitContext::NONE);
        let (swing, twist) = jointlimits::rotation::swing_and_twist_angle(q, Vec3::Y);
        let swing_angle = (swing * Vec3::Y).angle_between(Vec3::Y);
        let margin = (swing_angle - cone.max_swing)
            .abs()
            .min((twist.abs() - 0.4).abs());
        if margin > 0.1 {
            assert_eq!(
                table.contains(q, &LimitContext::NONE),
                exact.inside,
                "{q}: swing {swing_angle}, twist {twist}"
            );
        }
    }
}

#[test]
fn bake_refuses_a_bad_resolution_and_an_unknown_joint() {
    let dir = scratch("bake-refusals");
    let source = limits_file(&dir, "cone.json", cone().into());
    let out = dir.join("table.json");
    let (source, out) = (source.to_str().unwrap(), out.to_str().unwrap());
    let output = jointlimits(&["bake", source, "-o", out, "--resolution", "3"]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("resolution"),
        "{}",
        stderr(&output)
    );
    let output = jointlimits(&["bake", source, "-o", out, "--joint", "jiont"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("\"jiont\""), "{}", stderr(&output));
    assert!(!Path::new(out).exists(), "nothing is written on an error");
}
