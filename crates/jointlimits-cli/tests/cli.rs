//! The `jointlimits` binary end to end.

use std::path::PathBuf;
use std::process::{Command, Output};

fn jointlimits(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jointlimits"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jointlimits-cli-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn inspect_prints_tree_frames_and_channel_ranges() {
    let Some(path) = jointlimits_testdata::fixture("cmu_max/131_01.bvh") else {
        return;
    };
    let output = jointlimits(&["inspect", path.to_str().unwrap()]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("994 frames at 120.00 fps"), "{text}");
    assert!(text.contains("31 joints, 96 channels"));
    // The tree indents children below their parents.
    assert!(text.contains("\n        LeftKnee "), "{text}");
}

#[test]
fn inspect_json_has_the_same_content() {
    let Some(path) = jointlimits_testdata::fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let output = jointlimits(&["inspect", "--json", path.to_str().unwrap()]);
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["frames"], 524);
    let joints = report["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 31);
    assert_eq!(joints[0]["name"], "Hips");
    assert_eq!(joints[0]["parent"], serde_json::Value::Null);
    // The dummy index finger holds -7.125° in every frame but the synthetic T-pose of frame 0.
    let index1 = joints
        .iter()
        .find(|j| j["name"] == "LeftHandIndex1")
        .unwrap();
    let z = &index1["ranges"][0];
    assert_eq!(z["channel"], "Zrotation");
    assert_eq!(
        (z["min"].as_f64(), z["max"].as_f64()),
        (Some(-7.125), Some(0.0))
    );
}

#[test]
fn missing_and_malformed_files_give_clear_errors() {
    let output = jointlimits(&["inspect", "/no/such/clip.bvh"]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(
        message.contains("/no/such/clip.bvh") && message.contains("No such file"),
        "{message}"
    );

    let dir = scratch("malformed");
    let bad = dir.join("bad.bvh");
    std::fs::write(&bad, "HIERARCHY\nROOT a\n{\n OFFSET 0 0\n").unwrap();
    let output = jointlimits(&["inspect", bad.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let message = String::from_utf8(output.stderr).unwrap();
    assert!(
        message.contains("bad.bvh:4:12: expected three numbers"),
        "{message}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn demo_writes_a_clip_that_reads_back() {
    let dir = scratch("demo");
    let output = jointlimits(&["demo", "--out", dir.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bvh = jointlimits_io::read_bvh_file(dir.join("range_of_motion.bvh")).unwrap();
    assert_eq!(bvh.skeleton.len(), jointlimits::humanoid::HUMANOID_JOINTS);
    assert!(bvh.frame_count() > 1000);
    std::fs::remove_dir_all(dir).unwrap();
}
