//! `jointlimits compare`: fit every limit kind and space to the same clips, and measure each on
//! motion it was not fitted to, so a user can choose with numbers from their own data.
//!
//! Held-out acceptance comes from the `--holdout` clips when given; otherwise from
//! leave-one-clip-out cross-validation (two clips or more) or, for a single clip, from
//! [`TIME_BLOCKS`] contiguous blocks of frames, each held out in turn. The measures that need no
//! clip (tightness, optimality, continuity, cost) are taken on limits fitted to every clip.

use anyhow::{Result, bail};
use jointlimits::fit::authored::AuthoredShape;
use jointlimits::fit::{
    FitOptions, ShapeKind, fit_calibrated_skeleton_limits, fit_skeleton_limits,
};
use jointlimits::measure::EvaluationOptions;
use jointlimits::{Motion, Skeleton, SkeletonLimits, SpaceKind};
use serde::Serialize;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use crate::check::measure;
use crate::eval::{evaluate, gaps, percent};
use crate::inputs;
use jointlimits_plot::style::shorten;

/// How `compare` takes its arguments, for hints.
const USAGE: &str = "jointlimits compare CLIP.bvh... [--holdout CLIP.bvh...]";

/// Blocks of frames a single clip is cut into for cross-validation.
pub const TIME_BLOCKS: usize = 4;

/// The fewest frames a time block may hold.
const MIN_BLOCK_FRAMES: usize = 2;

/// One fitted kind, measured.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CompareRow {
    /// Limit space (`full` or `swing-twist`; `-` for kinds with a space of their own).
    pub space: String,
    /// Shape (or reach cone).
    pub shape: String,
    /// Why it could not be fitted or measured (then `measures` is `null`).
    pub error: Option<String>,
    /// What was measured.
    pub measures: Option<KindMeasures>,
}

/// The measures of one kind.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct KindMeasures {
    /// Share of held-out joint-frames inside the limits.
    pub heldout_acceptance: f64,
    /// Share of held-out frames with every joint inside.
    pub heldout_frames_all_inside: f64,
    /// Mean over joints of the share of random rotations allowed.
    pub rotation_acceptance: f64,
    /// Mean over joints of the share of random bone directions allowed.
    pub direction_acceptance: f64,
    /// Mean projection gap against the brute force, degrees (`null` when none was measured).
    pub mean_gap_deg: Option<f64>,
    /// Largest projection gap, degrees.
    pub max_gap_deg: Option<f64>,
    /// Largest output jump along slow paths, degrees.
    pub largest_jump_deg: f64,
    /// Switches along slow paths, over all joints.
    pub switches: usize,
    /// Time to fit every clip, milliseconds (`null` with `--no-timing`).
    pub fit_ms: Option<f64>,
    /// Nanoseconds per projection, mean over joints (`null` with `--no-timing`).
    pub ns_per_projection: Option<f64>,
}

/// The report of `compare`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CompareReport {
    /// How held-out acceptance was measured.
    pub validation: String,
    /// Held-out frames measured, over all folds.
    pub heldout_frames: usize,
    /// What the clip-free measures were run with.
    pub options: EvaluationOptions,
    /// One row per kind.
    pub rows: Vec<CompareRow>,
}

/// The kinds compared: every shape in both spaces, and the reach cone and the table once.
fn kinds() -> Vec<(SpaceKind, ShapeKind)> {
    let mut kinds = Vec::new();
    for space in [SpaceKind::Full, SpaceKind::SwingTwist] {
        for shape in ShapeKind::ALL {
            if !shape.ignores_space() {
                kinds.push((space, shape));
            }
        }
    }
    for shape in ShapeKind::ALL.into_iter().filter(|s| s.ignores_space()) {
        kinds.push((SpaceKind::SwingTwist, shape));
    }
    kinds
}

/// Training and held-out clips of one fold.
struct Fold {
    training: Vec<Motion>,
    heldout: Vec<Motion>,
}

/// The folds of the validation scheme (module docs) and its description.
fn folds(clips: &[Motion], holdout: &[Motion]) -> (Vec<Fold>, String) {
    if !holdout.is_empty() {
        let fold = Fold {
            training: clips.to_vec(),
            heldout: holdout.to_vec(),
        };
        return (vec![fold], format!("{} held-out clip(s)", holdout.len()));
    }
    if clips.len() >= 2 {
        let folds = (0..clips.len())
            .map(|out| Fold {
                training: (0..clips.len())
                    .filter(|&i| i != out)
                    .map(|i| clips[i].clone())
                    .collect(),
                heldout: vec![clips[out].clone()],
            })
            .collect();
        return (folds, format!("leave-one-clip-out ({} folds)", clips.len()));
    }
    let clip = &clips[0];
    let frames = clip.frame_count();
    debug_assert!(frames >= MIN_BLOCK_FRAMES * TIME_BLOCKS);
    let block = |b: usize| b * frames / TIME_BLOCKS..(b + 1) * frames / TIME_BLOCKS;
    let folds = (0..TIME_BLOCKS)
        .map(|out| Fold {
            training: (0..TIME_BLOCKS)
                .filter(|&b| b != out)
                .map(|b| clip.frames(block(b)))
                .collect(),
            heldout: vec![clip.frames(block(out))],
        })
        .collect();
    (
        folds,
        format!("{TIME_BLOCKS} time blocks of one clip, each held out in turn"),
    )
}

/// Fits `options` to `clips` (with margins calibrated to accept the share `accept` of unseen
/// frames when given, by cross-validation over `clips` alone, for every kind but the hinge),
/// restricted to the joints in `only` (all when empty).
fn fit(
    skeleton: &Skeleton,
    clips: &[Motion],
    options: &FitOptions,
    accept: Option<f64>,
    only: &[String],
) -> Result<SkeletonLimits> {
    let refs: Vec<&Motion> = clips.iter().collect();
    // A hinge allows no turn off its axis: no margin makes it accept a share of unseen frames,
    // and the fit refuses to calibrate one. Its row is fitted with the padding alone.
    let hinge = matches!(options.shape, ShapeKind::Authored(AuthoredShape::Hinge));
    let mut limits = match accept.filter(|_| !hinge) {
        Some(share) => fit_calibrated_skeleton_limits(skeleton, &refs, options, share, &|_| {})?.0,
        None => fit_skeleton_limits(skeleton, &refs, options, &|_| {})?,
    };
    if !only.is_empty() {
        limits.joints.retain(|l| only.contains(&l.joint));
    }
    Ok(limits)
}

/// One kind, fitted and measured.
fn compare_kind(
    skeleton: &Skeleton,
    clips: &[Motion],
    folds: &[Fold],
    options: &FitOptions,
    accept: Option<f64>,
    only: &[String],
    evaluation: &EvaluationOptions,
) -> Result<KindMeasures> {
    let (mut frames, mut all_inside, mut joint_frames, mut joint_frames_outside) = (0, 0, 0, 0);
    for fold in folds {
        let limits = fit(skeleton, &fold.training, options, accept, only)?;
        let heldout: Vec<&Motion> = fold.heldout.iter().collect();
        let report = measure(&limits, skeleton, &heldout, 0.0, false)?;
        frames += report.frames;
        all_inside += report.frames_all_inside;
        joint_frames += report.frames * report.joints.len();
        joint_frames_outside += report
            .joints
            .iter()
            .map(|j| j.frames_outside)
            .sum::<usize>();
    }
    let started = Instant::now();
    let limits = fit(skeleton, clips, options, accept, only)?;
    let fit_ms = started.elapsed().as_secs_f64() * 1e3;
    let report = evaluate(&limits, Some(skeleton), &[], only, evaluation)?;
    let o = &report.overall;
    Ok(KindMeasures {
        heldout_acceptance: 1.0 - joint_frames_outside as f64 / joint_frames.max(1) as f64,
        heldout_frames_all_inside: all_inside as f64 / frames.max(1) as f64,
        rotation_acceptance: o.mean_rotation_acceptance,
        direction_acceptance: o.mean_direction_acceptance,
        mean_gap_deg: o.mean_gap_deg,
        max_gap_deg: o.max_gap_deg,
        largest_jump_deg: o.largest_jump_deg,
        switches: o.switches,
        fit_ms: evaluation.timing.then_some(fit_ms),
        ns_per_projection: o.mean_ns_per_projection,
    })
}

fn space_name(space: SpaceKind) -> &'static str {
    match space {
        SpaceKind::Full => "full",
        SpaceKind::SwingTwist => "swing-twist",
    }
}

/// What `jointlimits compare` was asked for.
pub struct CompareRequest<'a> {
    /// Clips to fit.
    pub clips: &'a [PathBuf],
    /// Clips to measure held-out acceptance on.
    pub holdout: &'a [PathBuf],
    /// Joints to compare on (all when empty).
    pub joints: &'a [String],
    /// Frames skipped at the start of every clip.
    pub skip_frames: usize,
    /// Padding, radians.
    pub padding: f64,
    /// Calibrate margins to accept this share of unseen frames (`fit --accept`), within each
    /// fold's training clips.
    pub accept: Option<f64>,
    /// How thoroughly to measure.
    pub evaluation: EvaluationOptions,
    /// The output format.
    pub format: Format,
}

/// How `compare` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// An aligned text table.
    Text,
    /// A Markdown table.
    Markdown,
    /// JSON.
    Json,
}

/// ` after skipping N` when frames are skipped.
fn after_skipping(skip_frames: usize) -> String {
    if skip_frames > 0 {
        format!(" after skipping {skip_frames}")
    } else {
        String::new()
    }
}

/// Runs `jointlimits compare`.
pub fn run(request: &CompareRequest) -> Result<()> {
    let clips = inputs::read_clips(request.clips, USAGE)?;
    for held in request.holdout {
        if let Some(fitted) = request
            .clips
            .iter()
            .find(|clip| inputs::same_or_copy(held, clip))
        {
            bail!(
                "the held-out clip {} is also a clip to fit ({}): its acceptance would measure motion the limits were fitted on; hold out another clip",
                held.display(),
                fitted.display()
            );
        }
    }
    let holdout = if request.holdout.is_empty() {
        None
    } else {
        let holdout = inputs::read_clips(request.holdout, USAGE)?;
        if holdout.skeleton().joints().iter().map(|j| &j.name).ne(clips
            .skeleton()
            .joints()
            .iter()
            .map(|j| &j.name))
        {
            bail!(
                "the held-out clip {} has another skeleton than {}",
                request.holdout[0].display(),
                request.clips[0].display()
            );
        }
        Some(holdout)
    };
    let skip = |motions: &[Motion]| -> Vec<Motion> {
        motions
            .iter()
            .map(|m| m.frames(request.skip_frames..m.frame_count()))
            .collect()
    };
    // A clip with no frames left would be an empty fold (held out, it would read 100%
    // accepted and no frame inside): it is left out, and said.
    let with_frames = |paths: &[PathBuf], motions: &[Motion]| -> Vec<Motion> {
        paths
            .iter()
            .zip(skip(motions))
            .filter_map(|(path, motion)| {
                if motion.frame_count() == 0 {
                    eprintln!(
                        "warning: {} has no frames{}: left out",
                        path.display(),
                        after_skipping(request.skip_frames)
                    );
                    return None;
                }
                Some(motion)
            })
            .collect()
    };
    let training = with_frames(request.clips, &clips.motions);
    let heldout = holdout
        .as_ref()
        .map_or_else(Vec::new, |h| with_frames(request.holdout, &h.motions));
    if holdout.is_some() && heldout.is_empty() {
        bail!(
            "the held-out clips have no frames{} to measure acceptance on",
            after_skipping(request.skip_frames)
        );
    }
    let frames: usize = training.iter().map(Motion::frame_count).sum();
    if frames == 0 {
        bail!(
            "{} has no frames to fit{}",
            request.clips[0].display(),
            after_skipping(request.skip_frames)
        );
    }
    if heldout.is_empty() && training.len() == 1 && frames < MIN_BLOCK_FRAMES * TIME_BLOCKS {
        bail!(
            "{} has {frames} frame(s) to fit: cross-validation over {TIME_BLOCKS} time blocks needs at least {}; give more clips or --holdout",
            request.clips[0].display(),
            MIN_BLOCK_FRAMES * TIME_BLOCKS
        );
    }
    let skeleton = clips.skeleton();
    let limited = skeleton.names_below_root();
    for name in request.joints {
        if !limited.contains(&name.as_str()) {
            let root = skeleton
                .joints()
                .iter()
                .any(|j| j.parent.is_none() && &j.name == name);
            bail!(
                "{}: {}",
                request.clips[0].display(),
                if root {
                    format!(
                        "{name:?} is the root, which has no limit (its rotation is the heading)"
                    )
                } else {
                    format!(
                        "no joint {name:?}{}",
                        crate::suggest::did_you_mean(name, &limited)
                    )
                }
            );
        }
    }
    let (folds, validation) = folds(&training, &heldout);
    let heldout_frames = folds
        .iter()
        .flat_map(|f| &f.heldout)
        .map(Motion::frame_count)
        .sum();
    let kinds = kinds();
    let progress = crate::progress::Progress::bar("comparing", kinds.len() as u64, "kinds");
    let rows: Vec<CompareRow> = kinds
        .into_iter()
        .map(|(space, shape)| {
            progress.say(&format!("{} {}", space_name(space), shape));
            let options = FitOptions {
                space,
                shape,
                padding: request.padding,
                ..FitOptions::default()
            };
            let measured = compare_kind(
                skeleton,
                &training,
                &folds,
                &options,
                request.accept,
                request.joints,
                &request.evaluation,
            );
            let row = CompareRow {
                // Kinds with a space of their own ignore `--space` (README).
                space: if shape.ignores_space() {
                    "-".into()
                } else {
                    space_name(space).into()
                },
                shape: shape.to_string(),
                error: measured.as_ref().err().map(|e| format!("{e:#}")),
                measures: measured.ok(),
            };
            progress.step();
            row
        })
        .collect();
    drop(progress);
    if let Some(failure) = rows.iter().find_map(|r| r.error.as_ref())
        && rows.iter().all(|r| r.measures.is_none())
    {
        bail!("no kind could be fitted and measured: {failure}");
    }
    let report = CompareReport {
        validation,
        heldout_frames,
        options: request.evaluation,
        rows,
    };
    let mut out = std::io::stdout().lock();
    match request.format {
        Format::Json => {
            serde_json::to_writer_pretty(&mut out, &report)?;
            writeln!(out)?;
        }
        Format::Text => print_table(&report, false, &mut out)?,
        Format::Markdown => print_table(&report, true, &mut out)?,
    }
    Ok(())
}

/// Prints the table, aligned text or Markdown.
pub fn print_table(
    report: &CompareReport,
    markdown: bool,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let header = [
        "space",
        "shape",
        "held-out in",
        "frames all in",
        "random rot",
        "random dir",
        "gap mean/max °",
        "jump °",
        "switches",
        "fit ms",
        "ns/proj",
    ];
    let widths = [11, 10, 11, 13, 10, 10, 14, 7, 8, 8, 7];
    let cells = |row: &CompareRow| -> Vec<String> {
        let Some(m) = &row.measures else {
            let error = row.error.as_deref().unwrap_or("not measured");
            return vec![
                row.space.clone(),
                row.shape.clone(),
                format!("failed: {}", shorten(error, 120)),
            ];
        };
        let optional = |v: Option<f64>| v.map_or_else(|| "-".into(), |v| format!("{v:.0}"));
        vec![
            row.space.clone(),
            row.shape.clone(),
            percent(m.heldout_acceptance),
            percent(m.heldout_frames_all_inside),
            percent(m.rotation_acceptance),
            percent(m.direction_acceptance),
            gaps(m.mean_gap_deg, m.max_gap_deg),
            format!("{:.1}", m.largest_jump_deg),
            m.switches.to_string(),
            optional(m.fit_ms),
            optional(m.ns_per_projection),
        ]
    };
    if markdown {
        writeln!(out, "| {} |", header.join(" | "))?;
        writeln!(out, "|{}", "---|".repeat(header.len()))?;
        for row in &report.rows {
            writeln!(out, "| {} |", cells(row).join(" | "))?;
        }
    } else {
        let line = |cells: Vec<String>| -> String {
            cells
                .iter()
                .zip(widths)
                .map(|(cell, width)| format!("{cell:>width$}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        writeln!(
            out,
            "{}",
            line(header.iter().map(|h| h.to_string()).collect())
        )?;
        for row in &report.rows {
            writeln!(out, "{}", line(cells(row)))?;
        }
    }
    writeln!(
        out,
        "\nheld out: {} ({} frames); random measures: {} samples, seed {}",
        report.validation, report.heldout_frames, report.options.samples, report.options.seed
    )
}
