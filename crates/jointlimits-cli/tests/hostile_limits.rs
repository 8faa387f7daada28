//! Limits files a careless or hostile hand edited: every command refuses them with an error that
//! names the file, the joint and the field, exits 2, writes nothing, and never panics.

use serde_json::{Value, json};
use std::path::Path;

mod common;
use common::{jointlimits, scratch};

/// Fits `clip` with extra `options` and returns the limits file as JSON.
fn fitted(dir: &Path, clip: &str, options: &[&str]) -> Value {
    let path = dir.join("fitted.json");
    let mut args = vec!["fit", clip, "-o", path.to_str().unwrap()];
    args.extend_from_slice(options);
    assert!(jointlimits(&args).status.success());
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs apply, ik and check with `limits` and asserts each refuses cleanly, naming `field`.
fn assert_refused(dir: &Path, clip: &str, limits: &Value, field: &str) {
    let path = dir.join("hostile.json");
    std::fs::write(&path, serde_json::to_string_pretty(limits).unwrap()).unwrap();
    let out = dir.join("out.bvh");
    let (limits_s, out_s) = (path.to_str().unwrap(), out.to_str().unwrap());
    let runs: [Vec<&str>; 3] = [
        vec!["apply", limits_s, clip, "-o", out_s],
        vec!["check", limits_s, clip],
        vec![
            "ik",
            limits_s,
            clip,
            "-o",
            out_s,
            "--chain",
            "LeftUpLeg..LeftFoot",
            "--target",
            "0,5,0",
        ],
    ];
    for args in runs {
        let _ = std::fs::remove_file(&out);
        let output = jointlimits(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?} with {field}: {stderr}"
        );
        for needle in ["hostile.json", "LHipJoint", field] {
            assert!(
                stderr.contains(needle),
                "{args:?}: {needle:?} missing from {stderr}"
            );
        }
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(!out.exists(), "{args:?} wrote a file");
    }
}

#[test]
fn hostile_numbers_are_refused_naming_joint_and_field() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let clip = clip.to_str().unwrap();
    let dir = scratch("numbers");
    let full = fitted(&dir, clip, &[]);
    let swing_twist = fitted(&dir, clip, &["--space", "swing-twist", "--shape", "box"]);
    let cases: Vec<(&Value, &str, Value, &str)> = vec![
        (&full, "/reference", json!([0, 0, 0, 0]), "reference"),
        (&full, "/reference", json!("abc"), "reference: invalid type"),
        (
            &full,
            "/region/shape/semi_axes",
            json!("abc"),
            "region: invalid type",
        ),
        (&full, "/reference", json!([0, 0, 0, 2]), "reference"),
        (
            &full,
            "/region/shape/semi_axes",
            json!([1e20, 1e-20, 1]),
            "semi_axes.x",
        ),
        (
            &full,
            "/region/shape/semi_axes",
            json!([0.1, 1e-20, 1]),
            "semi_axes.y",
        ),
        (
            &full,
            "/region/shape/frame/center",
            json!([1e30, 0, 0]),
            "frame.center.x",
        ),
        (
            &full,
            "/region/shape/frame/rotation",
            json!([1e20, 0, 0, 0, 1, 0, 0, 0, 1]),
            "frame.rotation",
        ),
        (
            &full,
            "/region/shape/frame/rotation",
            json!([1, 0, 0, 0, 2, 0, 0, 0, 1]),
            "frame.rotation",
        ),
        (
            &full,
            "/region/shape/frame/rotation",
            json!([-1, 0, 0, 0, 1, 0, 0, 0, 1]),
            "frame.rotation",
        ),
        (
            &swing_twist,
            "/region/twist_axis",
            json!([1e30, 0, 0]),
            "twist_axis",
        ),
        (
            &swing_twist,
            "/region/twist_axis",
            json!([0, 0, 0]),
            "twist_axis",
        ),
        (
            &swing_twist,
            "/region/swing_basis",
            json!([0, 0, 0, 0, 0, 0, 0, 0, 0]),
            "swing_basis",
        ),
        (
            &swing_twist,
            "/region/twist",
            json!({"min": 1, "max": -1}),
            "twist",
        ),
        (
            &swing_twist,
            "/region/twist",
            json!({"min": -1e9, "max": 1}),
            "twist.min",
        ),
        (
            &swing_twist,
            "/region/swing/max",
            json!([1, 1, 1e25]),
            "z range.max",
        ),
    ];
    for (base, pointer, value, field) in cases {
        let mut limits = base.clone();
        *limits["joints"][0].pointer_mut(pointer).unwrap() = value;
        assert_refused(&dir, clip, &limits, field);
    }
    // Swing solids whose cut by the swing plane is not their projection: a frame tilted 2°
    // about the first axis, and a slab lifted off the plane (its cut is empty).
    let (c, s) = (0.035f64.cos(), 0.035f64.sin());
    for (pointer, value) in [
        (
            "/region/swing/frame/rotation",
            json!([1, 0, 0, 0, c, s, 0, -s, c]),
        ),
        ("/region/swing/min/2", json!(0.01)),
    ] {
        let mut limits = swing_twist.clone();
        *limits["joints"][0].pointer_mut(pointer).unwrap() = value;
        assert_refused(
            &dir,
            clip,
            &limits,
            "swing: is not symmetric about the swing plane",
        );
    }
    // A reach cone with a boundary point on its visible point: its slices are slivers whose
    // twist weights f32 cannot resolve.
    let mut limits = fitted(&dir, clip, &["--shape", "reach-cone"]);
    let visible = limits["joints"][0]["region"]["cone"]["visible"].clone();
    limits["joints"][0]["region"]["cone"]["boundary"][1] = visible;
    assert_refused(
        &dir,
        clip,
        &limits,
        "region: boundary point 1 is 0.00e0 rad from the visible point",
    );
    // A region wholly beyond the rotations (limit-space points of rotations lie within 2π).
    let mut limits = full.clone();
    *limits["joints"][0]
        .pointer_mut("/region/shape/frame/center")
        .unwrap() = json!([8.0, 0, 0]);
    *limits["joints"][0]
        .pointer_mut("/region/shape/semi_axes")
        .unwrap() = json!([0.5, 0.5, 0.5]);
    assert_refused(&dir, clip, &limits, "region.shape: holds no rotation");
    // The recorded skeleton: offsets too large to compare, a name twice (LHipJoint is joint 1).
    for (pointer, value, field) in [
        (
            "/skeleton/joints/1/offset",
            json!([1e20, 0, 0]),
            "skeleton.joints[1].offset",
        ),
        (
            "/skeleton/joints/6/name",
            json!("LHipJoint"),
            "skeleton.joints[6].name: names a joint twice",
        ),
    ] {
        let mut limits = full.clone();
        *limits.pointer_mut(pointer).unwrap() = value;
        assert_refused(&dir, clip, &limits, field);
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// A k-DOP's slabs that orient nothing or meet in nothing are refused saying so, naming the
/// slab: a zero direction once read "a point is not finite", slabs with no common point "the
/// points span no volume".
#[test]
fn kdop_slabs_that_bound_nothing_are_refused_saying_why() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let clip = clip.to_str().unwrap();
    let dir = scratch("kdop");
    let kdop = fitted(&dir, clip, &["--shape", "kdop13"]);
    let mut zero = kdop.clone();
    zero["joints"][0]["region"]["shape"]["directions"][1] = json!([0.0, 0.0, 0.0]);
    assert_refused(
        &dir,
        clip,
        &zero,
        "region: k-DOP direction 1 has zero length",
    );
    // The first slab moved past itself: its interval above everything the others allow.
    let mut apart = kdop.clone();
    let shape = &mut apart["joints"][0]["region"]["shape"];
    shape["min"][0] = json!(50.0);
    shape["max"][0] = json!(60.0);
    assert_refused(
        &dir,
        clip,
        &apart,
        "region: the k-DOP slabs meet in no volume",
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn hull_vertex_lists_never_panic() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let clip = clip.to_str().unwrap();
    let dir = scratch("hull");
    let hull = fitted(&dir, clip, &["--shape", "hull"]);
    let vertices = hull["joints"][0]["region"]["shape"]["vertices"]
        .as_array()
        .unwrap()
        .clone();
    let out = dir.join("out.bvh");
    for keep in [3, 4, 5, 9, 10, 11, 12, vertices.len()] {
        let mut limits = hull.clone();
        let shape = &mut limits["joints"][0]["region"]["shape"];
        shape["vertices"] = Value::Array(vertices.iter().take(keep).cloned().collect());
        let path = dir.join("hull.json");
        std::fs::write(&path, serde_json::to_string(&limits).unwrap()).unwrap();
        let output = jointlimits(&[
            "apply",
            path.to_str().unwrap(),
            clip,
            "-o",
            out.to_str().unwrap(),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            matches!(output.status.code(), Some(0 | 2)),
            "{keep} vertices: {stderr}"
        );
        if output.status.success() {
            let check = jointlimits(&["check", path.to_str().unwrap(), out.to_str().unwrap()]);
            assert_eq!(check.status.code(), Some(0), "{keep} vertices");
        } else {
            assert!(
                stderr.contains("hull.json") && stderr.contains("volume"),
                "{stderr}"
            );
        }
    }
    // Every vertex the same, or absurdly large: refused.
    for vertex in [json!([0.1, 0.1, 0.1]), json!([1e30, 0, 0])] {
        let mut limits = hull.clone();
        limits["joints"][0]["region"]["shape"]["vertices"] = Value::Array(vec![vertex; 6]);
        let path = dir.join("hull.json");
        std::fs::write(&path, serde_json::to_string(&limits).unwrap()).unwrap();
        let output = jointlimits(&["check", path.to_str().unwrap(), clip]);
        assert_eq!(output.status.code(), Some(2));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_nan_or_infinity_written_as_a_word_or_out_of_range_is_named_with_its_joint_and_field() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let clip = clip.to_str().unwrap();
    let dir = scratch("words");
    let mut limits = fitted(&dir, clip, &[]);
    // A marker number, replaced in the text by what Python's json.dump writes for NaN and ∞.
    limits["joints"][0]["region"]["shape"]["semi_axes"][1] = json!(123.25);
    let text = serde_json::to_string_pretty(&limits).unwrap();
    let cases = [
        ("NaN", "NaN is not a number"),
        ("Infinity", "Infinity is not a number"),
        ("-Infinity", "-Infinity is not a number"),
        ("nan", "nan is not a number"),
        ("1e999", "number out of range"),
    ];
    for (word, says) in cases {
        let path = dir.join("hostile.json");
        std::fs::write(&path, text.replace("123.25", word)).unwrap();
        let output = jointlimits(&["check", path.to_str().unwrap(), clip]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{word}: {stderr}");
        for needle in [
            "hostile.json",
            "joint \"LHipJoint\": region.shape.semi_axes[1]",
            says,
        ] {
            assert!(stderr.contains(needle), "{needle:?} missing from {stderr}");
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn fit_refuses_options_it_cannot_honour() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("options");
    let out = dir.join("l.json");
    for (option, value) in [
        ("--padding", "nan"),
        ("--padding", "inf"),
        ("--padding", "1e300"),
        ("--padding", "-50"),
        ("--padding", "-inf"),
        ("--subsample", "nan"),
        ("--subsample", "-1"),
        ("--subsample", "-inf"),
    ] {
        let output = jointlimits(&[
            "fit",
            clip.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            option,
            value,
        ]);
        assert_eq!(output.status.code(), Some(2), "{option} {value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains(option) && stderr.contains("expected a finite number"),
            "{stderr}"
        );
        assert!(!out.exists());
    }
    // Every fixture and space fits a hull from every sample without panicking.
    let Some(fixtures) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    for fixture in fixtures {
        for space in ["full", "swing-twist"] {
            let output = jointlimits(&[
                "fit",
                fixture.to_str().unwrap(),
                "-o",
                out.to_str().unwrap(),
                "--shape",
                "hull",
                "--subsample",
                "0",
                "--space",
                space,
            ]);
            assert!(
                output.status.success(),
                "{} {space}: {}",
                fixture.display(),
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }
    std::fs::remove_dir_all(dir).unwrap();
}
