//! Reading several BVH clips that must share one skeleton.

use anyhow::{Result, bail};
use jointlimits::{Motion, Skeleton};
use jointlimits_io::bvh::{Bvh, read_bvh_file};
use std::path::{Path, PathBuf};

use crate::progress::Progress;

/// Clips read from files, with the skeleton and channels of the first.
pub struct Clips {
    /// The files, as given.
    pub paths: Vec<PathBuf>,
    /// The parsed files.
    pub files: Vec<Bvh>,
    /// Each file's motion as quaternions.
    pub motions: Vec<Motion>,
}

impl Clips {
    /// Reads every file; all must have the same joint names in the same order.
    pub fn read(paths: &[PathBuf]) -> Result<Clips> {
        let mut files = Vec::with_capacity(paths.len());
        let mut motions = Vec::with_capacity(paths.len());
        for path in paths {
            let progress = Progress::spinner(&format!("reading {}", path.display()));
            let bvh = read_bvh_file(path)?;
            drop(progress);
            if let Some(first) = files.first() {
                same_joints(&paths[0], first, path, &bvh)?;
            }
            motions.push(bvh.to_motion());
            files.push(bvh);
        }
        Ok(Clips {
            paths: paths.to_vec(),
            files,
            motions,
        })
    }

    /// The shared skeleton.
    pub fn skeleton(&self) -> &Skeleton {
        &self.files[0].skeleton
    }
}

fn same_joints(first_path: &Path, first: &Bvh, path: &Path, bvh: &Bvh) -> Result<()> {
    let names =
        |b: &Bvh| -> Vec<String> { b.skeleton.joints().iter().map(|j| j.name.clone()).collect() };
    let (a, b) = (names(first), names(bvh));
    if a != b {
        let differing = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        bail!(
            "{} and {} have different skeletons: joint {} is {:?} in the first and {:?} in the second ({} vs {} joints)",
            first_path.display(),
            path.display(),
            differing,
            a.get(differing).map_or("(none)", String::as_str),
            b.get(differing).map_or("(none)", String::as_str),
            a.len(),
            b.len()
        );
    }
    Ok(())
}
