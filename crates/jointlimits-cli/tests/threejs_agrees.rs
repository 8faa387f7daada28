//! Every BVH file that `demo`, `apply` and `ik` write reads back in three.js's own `BVHLoader`
//! (npm `three`, pinned in `tools/threejs-reader`, run under node) with the joint world positions
//! this program computes, within 1e-3 units; and `apply` on a clip already inside its limits gives
//! the input's positions.
//!
//! Needs node and `npm ci` in `tools/threejs-reader` (which `.ci/run` does); without them the test
//! says why and skips, except under `CI=true`, where it fails.

use glam::Vec3;
use jointlimits_io::bvh::read_bvh_file;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::succeed as jointlimits;

/// The largest allowed distance between two readers' joint positions, in clip units.
const TOLERANCE: f32 = 1e-3;

fn reader_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/threejs-reader")
}

/// Whether node and the pinned three.js are there; if not, the reason.
fn threejs_available() -> Result<(), String> {
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        return Err("node is not installed".into());
    }
    if !reader_dir()
        .join("node_modules/three/package.json")
        .exists()
    {
        return Err(format!(
            "three.js is not installed: run `npm ci` in {}",
            reader_dir().display()
        ));
    }
    Ok(())
}

/// Joint world positions of `frames` of `file` as three.js computes them, joints in file order.
fn threejs_positions(file: &Path, frames: &[usize]) -> Vec<Vec<Vec3>> {
    let list: Vec<String> = frames.iter().map(ToString::to_string).collect();
    let run = Command::new("node")
        .arg(reader_dir().join("world_positions.mjs"))
        .arg(file)
        .args(["--frames", &list.join(",")])
        .output()
        .expect("node runs");
    assert!(
        run.status.success(),
        "three.js could not read {}: {}",
        file.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let json: Value = serde_json::from_slice(&run.stdout).unwrap();
    json["frames"]
        .as_array()
        .unwrap()
        .iter()
        .map(|frame| {
            frame["positions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| {
                    let c = |k: usize| p[k].as_f64().unwrap() as f32;
                    Vec3::new(c(0), c(1), c(2))
                })
                .collect()
        })
        .collect()
}

/// Joint world positions of `frames` of `file` as this program reads them.
fn own_positions(file: &Path, frames: &[usize]) -> Vec<Vec<Vec3>> {
    let bvh = read_bvh_file(file).unwrap();
    let motion = bvh.to_motion();
    frames
        .iter()
        .map(|&f| bvh.skeleton.forward_kinematics(&motion.pose(f)).positions)
        .collect()
}

/// Up to 12 frames spread over the clip, first and last included.
fn sample_frames(file: &Path) -> Vec<usize> {
    let count = read_bvh_file(file).unwrap().frame_count();
    let mut frames: Vec<usize> = (0..12).map(|i| i * (count - 1) / 11).collect();
    frames.dedup();
    frames
}

/// The largest distance between the two position lists, and where.
fn largest_gap(a: &[Vec<Vec3>], b: &[Vec<Vec3>]) -> (f32, usize, usize) {
    assert_eq!(a.len(), b.len());
    let mut worst = (0.0, 0, 0);
    for (f, (pa, pb)) in a.iter().zip(b).enumerate() {
        assert_eq!(pa.len(), pb.len(), "joint counts differ");
        for (j, (x, y)) in pa.iter().zip(pb).enumerate() {
            let gap = x.distance(*y);
            if gap > worst.0 || gap.is_nan() {
                worst = (gap, f, j);
            }
        }
    }
    worst
}

fn assert_three_agrees(file: &Path) {
    let frames = sample_frames(file);
    let (gap, f, j) = largest_gap(
        &threejs_positions(file, &frames),
        &own_positions(file, &frames),
    );
    println!("{}: three.js within {gap:.2e}", file.display());
    assert!(
        gap <= TOLERANCE,
        "{}: three.js puts joint {j} of frame {} {gap} units away",
        file.display(),
        frames[f]
    );
}

#[test]
fn written_files_read_the_same_in_threejs() {
    if let Err(reason) = threejs_available() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "three.js check cannot run under CI: {reason}"
        );
        eprintln!("skipping the three.js check: {reason}");
        return;
    }
    let Some(walk) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let Some(martial) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("jl-threejs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();

    // demo: its root has an OFFSET and position channels, the case readers disagree on.
    jointlimits(&["demo", "--out", &path("demo")]);
    for name in ["range_of_motion.bvh", "exaggerated.bvh", "limited.bvh"] {
        assert_three_agrees(&dir.join("demo").join(name));
    }

    // apply, on a clip inside its limits (positions equal the input's) and on one that is not.
    let walk_s = walk.to_str().unwrap();
    jointlimits(&["fit", walk_s, "-o", &path("walk.json")]);
    jointlimits(&[
        "apply",
        &path("walk.json"),
        walk_s,
        "-o",
        &path("walk_applied.bvh"),
    ]);
    let applied = dir.join("walk_applied.bvh");
    assert_three_agrees(&applied);
    let frames = sample_frames(&walk);
    let (gap, _, _) = largest_gap(
        &threejs_positions(&applied, &frames),
        &own_positions(&walk, &frames),
    );
    assert!(gap <= TOLERANCE, "apply moved an inside clip by {gap}");

    let martial_s = martial.to_str().unwrap();
    jointlimits(&[
        "fit",
        martial_s,
        "-o",
        &path("box.json"),
        "--shape",
        "box",
        "--skip-frames",
        "400",
    ]);
    jointlimits(&[
        "apply",
        &path("box.json"),
        martial_s,
        "-o",
        &path("martial_applied.bvh"),
    ]);
    assert_three_agrees(&dir.join("martial_applied.bvh"));

    // ik, with and without limits.
    for (name, extra) in [("ik.bvh", None), ("ik_free.bvh", Some("--no-limits"))] {
        let mut args = vec![
            "ik".to_string(),
            path("walk.json"),
            walk_s.to_string(),
            "-o".into(),
            path(name),
            "--chain".into(),
            "LeftArm..LeftHand".into(),
            "--target".into(),
            "10,15,5".into(),
        ];
        args.extend(extra.map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        jointlimits(&args);
        assert_three_agrees(&dir.join(name));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
