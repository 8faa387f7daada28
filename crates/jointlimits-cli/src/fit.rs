//! `jointlimits fit`: learn limits from clips and write a limits file.

use anyhow::{Result, bail};
use jointlimits::RotationLimit;
use jointlimits::fit::{
    FitLimitsError, FitOptions, JointCalibration, ReferenceChoice, ShapeKind, SkeletonFitChoices,
    fit_skeleton_limits_with, mirror,
};
use jointlimits::{Motion, SpaceKind};
use jointlimits_io::write_limits_file;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::clips::Clips;
use crate::progress::Progress;
use crate::suggest::did_you_mean;

/// The names `--shape` takes.
const SHAPE_NAMES: [&str; 17] = [
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
    "euler",
    "euler-xyz",
    "hinge",
    "cone",
    "spherical-ellipse",
    "coupled",
];

/// Runs `jointlimits fit` with the `choices`: calibrated margins (the calibration is printed),
/// left/right mirroring (the pairs found are printed) and per-joint choices read from
/// `config_path`.
pub fn run(
    clip_paths: &[PathBuf],
    out: &Path,
    options: FitOptions,
    choices: &SkeletonFitChoices,
    config_path: Option<&Path>,
) -> Result<()> {
    let started = Instant::now();
    let clips = Clips::read(clip_paths)?;
    let inputs: Vec<&Path> = clip_paths.iter().map(PathBuf::as_path).collect();
    crate::inputs::ensure_output_is_not_an_input(out, &inputs)?;
    let skeleton = clips.skeleton();
    // The limits file records the skeleton; one it could not record (offsets beyond what any
    // reader accepts) is refused before the fit, not after it in every later command.
    if let Err((joint, problem)) =
        jointlimits::SkeletonRecord::of(&clips.files[0].skeleton_as_written()).validate()
    {
        bail!(
            "{}: joint {joint:?}: a limits file cannot record this skeleton: {problem}",
            clip_paths[0].display()
        );
    }
    let choices = &SkeletonFitChoices {
        pairs: crate::mirror::resolve_pair_names(skeleton, &choices.pairs)?,
        ..choices.clone()
    };
    if let Some(config) = &choices.config {
        let file = config_path.map_or_else(|| "--config".into(), |p| p.display().to_string());
        // The root gets no limit (its rotation is the heading): a rule for it alone does nothing.
        for pattern in config.unmatched(&skeleton.names_below_root()) {
            eprintln!(
                "warning: {file}: the rule matching {pattern:?} matches no joint with a limit (the root has none)"
            );
        }
        for ignored in config.ignored_fields(&skeleton.names_below_root(), &options) {
            eprintln!("warning: {file}: {ignored}");
        }
    }
    ensure_tables_fit(skeleton, &options, choices)?;
    let motions: Vec<&Motion> = clips.motions.iter().collect();
    let progress = Progress::bar("fitting", skeleton.len().saturating_sub(1) as u64, "joints");
    let step = |name: &str| {
        progress.say(name);
        progress.step();
    };
    let fitted = fit_skeleton_limits_with(skeleton, &motions, &options, choices, &step);
    drop(progress);
    let (limits, calibrations) = fitted.map_err(|error| match (&error, config_path) {
        // A problem with the configuration names its file.
        (
            FitLimitsError::Option {
                option: "config", ..
            },
            Some(path),
        ) => {
            anyhow::anyhow!("{}: {error}", path.display())
        }
        // An acceptance the command line did not give came from a rule of the configuration.
        (
            FitLimitsError::Option {
                option: "accept",
                problem,
            },
            Some(path),
        ) if choices.accept.is_none() => {
            anyhow::anyhow!("{}: a rule's `accept`: {problem}", path.display())
        }
        _ => error.into(),
    })?;
    // Recorded as files hold it, so that the limits match this clip and every clip written from it.
    let limits = limits.for_skeleton(&clips.files[0].skeleton_as_written());
    write_limits_file(out, &limits)?;
    let frames: usize = motions
        .iter()
        .map(|m| m.frame_count().saturating_sub(options.skip_frames))
        .sum();
    println!(
        "fitted {} joints ({}) on {} frames from {} clip(s) in {:.2} s; wrote {}",
        limits.joints.len(),
        kinds_fitted(&limits),
        frames,
        clips.paths.len(),
        started.elapsed().as_secs_f64(),
        out.display()
    );
    if choices.mirror {
        print_pairs(skeleton, &choices.pairs);
    }
    if let Some(calibrations) = calibrations {
        print_calibrations(&calibrations);
    }
    Ok(())
}

/// Refuses a fit whose tables would not fit in memory (see [`crate::memory`]): every joint with
/// a limit that is fitted as a table, at the largest resolution any of them gets.
fn ensure_tables_fit(
    skeleton: &jointlimits::Skeleton,
    options: &FitOptions,
    choices: &SkeletonFitChoices,
) -> Result<()> {
    let resolutions: Vec<usize> = skeleton
        .names_below_root()
        .into_iter()
        .filter_map(|name| match &choices.config {
            Some(config) => Some(config.choice_for(name, options, choices.accept)?.options),
            None => Some(*options),
        })
        .filter_map(|options| match options.shape {
            ShapeKind::Table(resolution) => Some(resolution as usize),
            _ => None,
        })
        .collect();
    crate::memory::ensure_tables_fit("fit", &resolutions)
}

/// The kinds in `limits` with their space, and how many joints have each when they differ.
fn kinds_fitted(limits: &jointlimits::SkeletonLimits) -> String {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for limit in &limits.joints {
        let label = match &limit.region {
            jointlimits::LimitRegion::Full(_) | jointlimits::LimitRegion::SwingTwist(_) => {
                format!(
                    "{} space, {}",
                    space_name(limit.space()),
                    shape_label(limit)
                )
            }
            _ => shape_label(limit),
        };
        match counts.iter_mut().find(|(l, _)| *l == label) {
            Some((_, count)) => *count += 1,
            None => counts.push((label, 1)),
        }
    }
    match counts.as_slice() {
        [] => "no joints".to_string(),
        [(label, _)] => label.clone(),
        _ => counts
            .iter()
            .map(|(label, count)| format!("{count} {label}"))
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// The left/right pairs `fit --mirror` pooled, and the plane it reflected across.
fn print_pairs(skeleton: &jointlimits::Skeleton, overrides: &[(String, String)]) {
    // The fit has already refused pairs that cannot be used.
    let Ok(mirror::Pairing { pairs, normal }) = mirror::pairing(skeleton, overrides) else {
        return;
    };
    let names = |(l, r): (usize, usize)| {
        format!(
            "{}/{}",
            skeleton.joints()[l].name,
            skeleton.joints()[r].name
        )
    };
    match normal {
        Some(normal) => println!(
            "mirrored {} left/right pairs across the plane with normal {normal}: {}",
            pairs.len(),
            pairs
                .iter()
                .map(|&p| names(p))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        None => println!("--mirror: no left/right pairs found by name; nothing was mirrored"),
    }
}

/// The per-joint table of `fit --accept`, and the means.
fn print_calibrations(calibrations: &[JointCalibration]) {
    let Some(first) = calibrations.first() else {
        return;
    };
    println!(
        "calibrated to accept {:.2}% of unseen frames ({} folds):",
        first.accept * 100.0,
        first.folds
    );
    let width = calibrations
        .iter()
        .map(|c| c.joint.len())
        .max()
        .unwrap_or(5)
        .max(5);
    // Directed margins (one per semi-axis or box face, or a table's swing and twist margins)
    // when a joint has them.
    let directed = |c: &JointCalibration| {
        if c.directed_margins.is_empty() {
            "-".to_string()
        } else if let [swing, twist] = c.directed_margins[..] {
            format!(
                "{:.1} swing/{:.1} twist",
                swing.to_degrees(),
                twist.to_degrees()
            )
        } else {
            c.directed_margins
                .iter()
                .map(|m| format!("{:.1}", m.to_degrees()))
                .collect::<Vec<_>>()
                .join("/")
        }
    };
    let directed_width = calibrations
        .iter()
        .map(|c| directed(c).len())
        .max()
        .unwrap_or(0)
        .max("sides grown°".len());
    println!(
        "  {:width$}  padding°  {:directed_width$}    held  validated acceptance  random rotations accepted",
        "joint", "sides grown°"
    );
    for c in calibrations {
        println!(
            "  {:width$}  {:8.2}  {:>directed_width$}  {:>6}  {:>20}  {:>25}",
            c.joint,
            c.padding.to_degrees(),
            directed(c),
            format!("{:.1}%", c.hold * 100.0),
            if c.validated_acceptance.is_nan() {
                "too few frames".to_string()
            } else if !c.reaches() {
                // The largest margin tried still fell short (a hinge's off-axis motion, say).
                format!("short: {:.2}%", c.validated_acceptance * 100.0)
            } else {
                format!("{:.2}%", c.validated_acceptance * 100.0)
            },
            format!("{:.3}%", c.random_acceptance * 100.0)
        );
    }
    let validated: Vec<f64> = calibrations
        .iter()
        .map(|c| c.validated_acceptance)
        .filter(|a| !a.is_nan())
        .collect();
    // The mean in percent with `decimals` decimals, or why there is none.
    let mean = |values: &[f64], decimals: usize| {
        if values.is_empty() {
            "not measured (too few frames)".to_string()
        } else {
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            format!("{:.decimals$}%", 100.0 * mean)
        }
    };
    let random: Vec<f64> = calibrations.iter().map(|c| c.random_acceptance).collect();
    println!(
        "  mean over joints: validated acceptance {}, random rotations accepted {}",
        mean(&validated, 2),
        mean(&random, 3)
    );
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

/// `error` (reading a fit configuration) with a suggestion where it names an unknown shape or
/// space that is a likely typo of a known one.
pub fn with_suggestion(error: jointlimits_io::FitConfigError) -> jointlimits_io::FitConfigError {
    let typed = |prefix: &str| {
        let rest = error.message.strip_prefix(prefix)?;
        rest.split('"').next().map(str::to_string)
    };
    let suggestion = if let Some(shape) = typed("unknown shape \"") {
        did_you_mean(&shape, &SHAPE_NAMES)
    } else if let Some(space) = typed("unknown space \"") {
        did_you_mean(&space, &["full", "swing-twist"])
    } else {
        return error;
    };
    jointlimits_io::FitConfigError {
        message: format!("{}{suggestion}", error.message),
        ..error
    }
}

/// Parses `bind`, `mean` or `frame:N`.
pub fn parse_reference(text: &str) -> Result<ReferenceChoice, String> {
    text.parse()
}
