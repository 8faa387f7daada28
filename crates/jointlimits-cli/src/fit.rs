//! `jointlimits fit`: learn limits from clips and write a limits file.

use anyhow::Result;
use jointlimits::RotationLimit;
use jointlimits::fit::{FitOptions, ReferenceChoice, ShapeKind, fit_skeleton_limits};
use jointlimits::{Motion, SpaceKind};
use jointlimits_io::write_limits_file;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::clips::Clips;
use crate::progress::Progress;
use crate::suggest::did_you_mean;

/// The names `--shape` takes.
const SHAPE_NAMES: [&str; 11] = [
    "box",
    "obb",
    "ellipsoid",
    "mvee",
    "kdop",
    "kdop3",
    "kdop7",
    "kdop13",
    "hull",
    "reach-cone",
    "table",
];

/// Runs `jointlimits fit`.
pub fn run(clip_paths: &[PathBuf], out: &Path, options: FitOptions) -> Result<()> {
    let started = Instant::now();
    let clips = Clips::read(clip_paths)?;
    let inputs: Vec<&Path> = clip_paths.iter().map(PathBuf::as_path).collect();
    crate::inputs::ensure_output_is_not_an_input(out, &inputs)?;
    let skeleton = clips.skeleton();
    let motions: Vec<&Motion> = clips.motions.iter().collect();
    let progress = Progress::bar("fitting", skeleton.len().saturating_sub(1) as u64, "joints");
    let limits = fit_skeleton_limits(skeleton, &motions, &options, &|name| {
        progress.say(name);
        progress.step();
    });
    drop(progress);
    // Recorded as files hold it, so that the limits match this clip and every clip written from it.
    let limits = limits?.for_skeleton(&clips.files[0].skeleton_as_written());
    write_limits_file(out, &limits)?;
    let frames: usize = motions
        .iter()
        .map(|m| m.frame_count().saturating_sub(options.skip_frames))
        .sum();
    println!(
        "fitted {} joints ({} space, {}) on {} frames from {} clip(s) in {:.2} s; wrote {}",
        limits.joints.len(),
        if options.shape == ShapeKind::ReachCone {
            "reach-cone"
        } else if let ShapeKind::Table(_) = options.shape {
            "table"
        } else {
            space_name(options.space)
        },
        limits
            .joints
            .first()
            .map_or_else(|| "no shape".to_string(), shape_label),
        frames,
        clips.paths.len(),
        started.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// `full` or `swing-twist`.
pub fn space_name(space: SpaceKind) -> &'static str {
    match space {
        SpaceKind::Full => "full",
        SpaceKind::SwingTwist => "swing-twist",
    }
}

/// The label of a joint limit's shape.
pub fn shape_label(limit: &jointlimits::JointLimit) -> String {
    limit.region.label()
}

/// Parses `full` or `swing-twist`.
pub fn parse_space(text: &str) -> Result<SpaceKind, String> {
    match text {
        "full" => Ok(SpaceKind::Full),
        "swing-twist" => Ok(SpaceKind::SwingTwist),
        _ => Err(format!(
            "expected full or swing-twist, found {text:?}{}",
            did_you_mean(text, &["full", "swing-twist"])
        )),
    }
}

/// Parses a shape name (see [`ShapeKind`]).
pub fn parse_shape(text: &str) -> Result<ShapeKind, String> {
    text.parse()
        .map_err(|e| format!("{e}{}", did_you_mean(text, &SHAPE_NAMES)))
}

/// Parses `bind`, `mean` or `frame:N`.
pub fn parse_reference(text: &str) -> Result<ReferenceChoice, String> {
    text.parse()
}
