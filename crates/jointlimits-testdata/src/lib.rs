//! Finds the motion-capture fixtures for tests and benchmarks.
//!
//! The data is never copied into the repository. It is looked for in `JOINTLIMITS_TEST_DATA`, then
//! in `../shared/data/mocap` beside the workspace. When it is missing, tests fail under `CI=true`
//! (the data is part of the CI contract) and skip with a printed reason otherwise.

#![warn(missing_docs)]

pub mod sphere_search;

use std::path::{Path, PathBuf};

/// The fixture folder, or `None` (after printing why) when the data is absent outside CI.
///
/// # Panics
/// When the data is absent and the environment variable `CI` is `true`.
pub fn mocap_dir() -> Option<PathBuf> {
    let candidates = std::env::var_os("JOINTLIMITS_TEST_DATA")
        .map(PathBuf::from)
        .into_iter()
        .chain(std::iter::once(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/mocap"),
        ));
    for candidate in candidates {
        if candidate.is_dir() {
            return Some(candidate);
        }
    }
    let message = "motion-capture fixtures not found: set JOINTLIMITS_TEST_DATA or place them at \
                   ../shared/data/mocap beside the workspace";
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{message}");
    }
    eprintln!("skipping: {message}");
    None
}

/// Every `.bvh` file under the fixture folder, sorted, or `None` when the data is absent.
pub fn bvh_fixtures() -> Option<Vec<PathBuf>> {
    let dir = mocap_dir()?;
    let mut files = Vec::new();
    collect_bvh(&dir, &mut files);
    files.sort();
    assert!(!files.is_empty(), "no .bvh files under {}", dir.display());
    Some(files)
}

/// One fixture by its path relative to the fixture folder (for example `cmu_mb2/12_01_walk.bvh`).
pub fn fixture(relative: &str) -> Option<PathBuf> {
    let path = mocap_dir()?.join(relative);
    assert!(path.is_file(), "fixture {} is missing", path.display());
    Some(path)
}

fn collect_bvh(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_bvh(&path, files);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("bvh"))
        {
            files.push(path);
        }
    }
}

/// A small deterministic generator (SplitMix64) for reproducible test and benchmark inputs.
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next number, uniform in `[-1, 1)` with 24 random bits.
    pub fn next_signed(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }

    /// A uniformly random unit quaternion `[x, y, z, w]` (the Haar measure on rotations, over
    /// both covers): a point uniform in the unit ball of ℝ⁴, by rejection, pushed to the sphere.
    pub fn haar_quaternion(&mut self) -> [f32; 4] {
        loop {
            let q = [
                self.next_signed(),
                self.next_signed(),
                self.next_signed(),
                self.next_signed(),
            ];
            let length = q.iter().map(|c| c * c).sum::<f32>().sqrt();
            if length > 0.1 && length < 1.0 {
                return q.map(|c| c / length);
            }
        }
    }
}
