//! Running the built `jointlimits` binary from the command-line tests.
// Each test binary uses a different subset.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the binary with `args`.
pub fn jointlimits(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_jointlimits"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the binary with `args`, asserts that it succeeds, and returns what it printed.
pub fn succeed(args: &[&str]) -> String {
    let output = jointlimits(args);
    assert!(
        output.status.success(),
        "{args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        stderr(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// What a run printed on stderr.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A fresh, empty folder for one test of this process.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("jl-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A limits file at `dir/name` holding one joint, `joint`, limited by `region`.
pub fn limits_file(dir: &std::path::Path, name: &str, region: jointlimits::LimitRegion) -> PathBuf {
    let limits = jointlimits::SkeletonLimits::new(
        vec![jointlimits::JointLimit {
            joint: "joint".into(),
            reference: glam::Quat::IDENTITY,
            region,
            softening: None,
        }],
        None,
    );
    let path = dir.join(name);
    jointlimits_io::write_limits_file(&path, &limits).unwrap();
    path
}
