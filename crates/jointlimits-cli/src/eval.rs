//! `jointlimits eval`: how good limits are. Per joint and overall: acceptance of clips,
//! tightness on uniformly random rotations and directions, optimality of projections against a
//! brute force, continuity along slow paths, and the cost of a projection.

use anyhow::{Result, anyhow, bail};
use glam::Vec3;
use jointlimits::measure::{Continuity, EvaluationOptions, LimitEvaluation, evaluate_limit};
use jointlimits::{Motion, Skeleton, SkeletonLimits};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::bones::bone_axes;
use crate::check::measure;
use crate::inputs;
use crate::progress::Progress;
use jointlimits_plot::style::shorten;

/// How `eval` takes its arguments, for hints.
const USAGE: &str = "jointlimits eval LIMITS.json [--clips CLIP.bvh...]";

/// How the clips sit inside one joint's limit.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ClipAcceptance {
    /// Frames measured.
    pub frames: usize,
    /// Share of them inside the limit.
    pub share_inside: f64,
    /// The largest violation, degrees.
    pub max_violation_deg: f64,
    /// The mean violation over the frames outside, degrees.
    pub mean_violation_deg: f64,
}

/// Continuity along one family of paths, in degrees.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PathContinuity {
    /// Paths streamed.
    pub paths: usize,
    /// The largest move of the output in one 0.5° step, degrees.
    pub largest_jump_deg: f64,
    /// Steps where the output jumped to another part of the boundary.
    pub switches: usize,
}

impl From<Continuity> for PathContinuity {
    fn from(c: Continuity) -> PathContinuity {
        PathContinuity {
            paths: c.paths,
            largest_jump_deg: c.largest_jump.to_degrees(),
            switches: c.switches,
        }
    }
}

/// Everything measured about one joint.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JointEvaluation {
    /// The joint.
    pub name: String,
    /// Its limit's kind.
    pub kind: String,
    /// How the clips sit inside it (`null` without clips).
    pub clips: Option<ClipAcceptance>,
    /// Share of Haar-random rotations allowed.
    pub rotation_acceptance: f64,
    /// Share of random bone directions reachable with some twist.
    pub direction_acceptance: f64,
    /// Random outside inputs whose projections were checked.
    pub optimality_inputs: usize,
    /// Mean extra angle of a projection over the brute-force nearest allowed rotation, degrees
    /// (`null` when no random input fell outside).
    pub mean_gap_deg: Option<f64>,
    /// The largest, degrees.
    pub max_gap_deg: Option<f64>,
    /// Projections the limit itself refused (a broken contract; 0 expected).
    pub projections_not_allowed: usize,
    /// Two full turns about random axes.
    pub full_turns: PathContinuity,
    /// The bone swung one turn, through 180° from the reference.
    pub swings_through_180: PathContinuity,
    /// Geodesics between random rotations.
    pub through_the_limit: PathContinuity,
    /// Nanoseconds per stateless projection (`null` with `--no-timing`).
    pub ns_per_projection: Option<f64>,
}

/// The whole skeleton in a few numbers.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Overall {
    /// Clip frames measured (0 without clips).
    pub frames: usize,
    /// Share of frames with every joint inside (`null` without clips).
    pub share_frames_all_inside: Option<f64>,
    /// Share of joint-frames inside (`null` without clips).
    pub share_joint_frames_inside: Option<f64>,
    /// Mean over joints of the random-rotation acceptance.
    pub mean_rotation_acceptance: f64,
    /// Mean over joints of the random-direction acceptance.
    pub mean_direction_acceptance: f64,
    /// Mean projection gap over all checked inputs, degrees (`null` when none was checked).
    pub mean_gap_deg: Option<f64>,
    /// The largest projection gap, degrees.
    pub max_gap_deg: Option<f64>,
    /// The largest output jump on any path, degrees.
    pub largest_jump_deg: f64,
    /// Switches on all paths.
    pub switches: usize,
    /// Mean nanoseconds per projection over joints.
    pub mean_ns_per_projection: Option<f64>,
}

/// The report of `eval`.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct EvalReport {
    /// What the measures were run with.
    pub options: EvaluationOptions,
    /// One entry per evaluated joint.
    pub joints: Vec<JointEvaluation>,
    /// All of them together.
    pub overall: Overall,
}

/// Measures `limits` (the joints named in `only`, or all) with `options`, and how `motions` of
/// `skeleton` sit inside them.
pub fn evaluate(
    limits: &SkeletonLimits,
    skeleton: Option<&Skeleton>,
    motions: &[&Motion],
    only: &[String],
    options: &EvaluationOptions,
) -> Result<EvalReport> {
    if limits.joints.is_empty() {
        bail!("the limits hold no joint to evaluate");
    }
    if let Some(skeleton) = skeleton.filter(|_| !motions.is_empty())
        && limits
            .joints
            .iter()
            .all(|l| skeleton.find(&l.joint).is_none())
    {
        bail!("none of the limits' joints is in the clips' skeleton");
    }
    let axes = bone_axes(limits, skeleton);
    let chosen: Vec<(usize, Vec3)> = inputs::chosen_joints(limits, only)?
        .into_iter()
        .map(|i| (i, axes[i]))
        .collect();
    // The clips are measured on the chosen joints alone, so that "every joint inside" means
    // every chosen one (as `compare --joint` measures it).
    let mut measured = limits.clone();
    measured.joints = chosen
        .iter()
        .map(|&(index, _)| limits.joints[index].clone())
        .collect();
    let check = match (skeleton, motions.is_empty()) {
        (Some(skeleton), false) => Some(measure(&measured, skeleton, motions, 0.0, true)?),
        _ => None,
    };
    let progress = Progress::bar("evaluating", chosen.len() as u64, "joints");
    let mut joints = Vec::with_capacity(chosen.len());
    for (index, axis) in chosen {
        let limit = &limits.joints[index];
        progress.say(&limit.joint);
        let evaluation = evaluate_limit(limit, axis, options);
        // Clips of no frames measure nothing: no share of them is inside or outside.
        let clips = check.as_ref().filter(|r| r.frames > 0).and_then(|report| {
            let entry = report.joints.iter().find(|j| j.name == limit.joint)?;
            Some(ClipAcceptance {
                frames: report.frames,
                share_inside: share(report.frames - entry.frames_outside, report.frames),
                max_violation_deg: entry.max_violation_deg,
                mean_violation_deg: entry.mean_violation_deg,
            })
        });
        joints.push(joint_evaluation(&limit.joint, evaluation, clips));
        progress.step();
    }
    let overall = overall(
        &joints,
        check.as_ref().map(|c| (c.frames, c.frames_all_inside)),
    );
    Ok(EvalReport {
        options: *options,
        joints,
        overall,
    })
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}

fn joint_evaluation(
    name: &str,
    e: LimitEvaluation,
    clips: Option<ClipAcceptance>,
) -> JointEvaluation {
    JointEvaluation {
        name: name.to_string(),
        kind: e.kind,
        clips,
        rotation_acceptance: e.rotation_acceptance,
        direction_acceptance: e.direction_acceptance,
        optimality_inputs: e.optimality.inputs,
        mean_gap_deg: (e.optimality.inputs > 0).then(|| e.optimality.mean_gap.to_degrees()),
        max_gap_deg: (e.optimality.inputs > 0).then(|| e.optimality.max_gap.to_degrees()),
        projections_not_allowed: e.optimality.projections_not_allowed,
        full_turns: e.continuity.full_turns.into(),
        swings_through_180: e.continuity.swings_through_180.into(),
        through_the_limit: e.continuity.through_the_limit.into(),
        ns_per_projection: e.nanoseconds_per_projection,
    }
}

impl JointEvaluation {
    /// Continuity on every family of paths.
    pub fn paths(&self) -> [&PathContinuity; 3] {
        [
            &self.full_turns,
            &self.swings_through_180,
            &self.through_the_limit,
        ]
    }
}

fn overall(joints: &[JointEvaluation], frames: Option<(usize, usize)>) -> Overall {
    let count = joints.len().max(1) as f64;
    let mean = |f: &dyn Fn(&JointEvaluation) -> f64| joints.iter().map(f).sum::<f64>() / count;
    let inputs: usize = joints.iter().map(|j| j.optimality_inputs).sum();
    let (frames, all_inside) = frames.unwrap_or((0, 0));
    let joint_frames: usize = joints
        .iter()
        .filter_map(|j| j.clips.as_ref())
        .map(|c| c.frames)
        .sum();
    let joint_frames_inside: f64 = joints
        .iter()
        .filter_map(|j| j.clips.as_ref())
        .map(|c| c.share_inside * c.frames as f64)
        .sum();
    let measured = joints.iter().filter(|j| j.optimality_inputs > 0);
    Overall {
        frames,
        share_frames_all_inside: (frames > 0).then(|| share(all_inside, frames)),
        share_joint_frames_inside: (joint_frames > 0)
            .then(|| joint_frames_inside / joint_frames as f64),
        mean_rotation_acceptance: mean(&|j| j.rotation_acceptance),
        mean_direction_acceptance: mean(&|j| j.direction_acceptance),
        mean_gap_deg: (inputs > 0).then(|| {
            measured
                .clone()
                .filter_map(|j| j.mean_gap_deg.map(|g| g * j.optimality_inputs as f64))
                .sum::<f64>()
                / inputs as f64
        }),
        max_gap_deg: (inputs > 0)
            .then(|| measured.filter_map(|j| j.max_gap_deg).fold(0.0, f64::max)),
        largest_jump_deg: joints
            .iter()
            .flat_map(JointEvaluation::paths)
            .map(|p| p.largest_jump_deg)
            .fold(0.0, f64::max),
        switches: joints
            .iter()
            .flat_map(JointEvaluation::paths)
            .map(|p| p.switches)
            .sum(),
        mean_ns_per_projection: joints
            .iter()
            .map(|j| j.ns_per_projection)
            .sum::<Option<f64>>()
            .map(|total| total / count),
    }
}

/// Prints the report as a table, one row per joint and one overall.
pub fn print_text(report: &EvalReport, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<20} {:<22} {:>8} {:>8} {:>8} {:>8} {:>13} {:>8} {:>6} {:>7}",
        "joint",
        "kind",
        "clips in",
        "max °",
        "rot acc",
        "dir acc",
        "gap mean/max°",
        "jump °",
        "switch",
        "ns",
    )?;
    for j in &report.joints {
        let (inside, worst) = match &j.clips {
            Some(c) => (
                percent(c.share_inside),
                format!("{:.2}", c.max_violation_deg),
            ),
            None => ("-".into(), "-".into()),
        };
        let paths = j.paths();
        // No path streamed (`--paths 0`): nothing measured, as for optimality.
        let (jump, switches) = if paths.iter().any(|p| p.paths > 0) {
            (
                format!(
                    "{:.2}",
                    paths.iter().map(|p| p.largest_jump_deg).fold(0.0, f64::max)
                ),
                paths.iter().map(|p| p.switches).sum::<usize>().to_string(),
            )
        } else {
            ("-".into(), "-".into())
        };
        writeln!(
            out,
            "{:<20} {:<22} {:>8} {:>8} {:>8} {:>8} {:>13} {:>8} {:>6} {:>7}",
            shorten(&j.name, 20),
            shorten(&j.kind, 22),
            inside,
            worst,
            percent(j.rotation_acceptance),
            percent(j.direction_acceptance),
            gaps(j.mean_gap_deg, j.max_gap_deg),
            jump,
            switches,
            nanoseconds(j.ns_per_projection),
        )?;
    }
    let o = &report.overall;
    if let (Some(all), Some(joint_frames)) =
        (o.share_frames_all_inside, o.share_joint_frames_inside)
    {
        writeln!(
            out,
            "clips: {} of frames have every joint inside; {} of joint-frames are inside ({} frames)",
            percent(all),
            percent(joint_frames),
            o.frames
        )?;
    }
    writeln!(
        out,
        "tightness: {} of random rotations and {} of random bone directions allowed (mean over joints, {} samples each, seed {})",
        percent(o.mean_rotation_acceptance),
        percent(o.mean_direction_acceptance),
        report.options.samples,
        report.options.seed
    )?;
    if let (Some(mean), Some(max)) = (o.mean_gap_deg, o.max_gap_deg) {
        writeln!(
            out,
            "optimality: projections land {mean:.3}° (mean) and at most {max:.3}° farther than the brute-force nearest allowed rotation",
        )?;
    }
    let streamed = report
        .joints
        .iter()
        .flat_map(JointEvaluation::paths)
        .any(|p| p.paths > 0);
    if streamed {
        writeln!(
            out,
            "continuity: largest output jump {:.2}° per 0.5° input step; {} switches on slow paths",
            o.largest_jump_deg, o.switches
        )?;
    }
    if let Some(ns) = o.mean_ns_per_projection {
        writeln!(out, "cost: {ns:.0} ns per projection (mean over joints)")?;
    }
    Ok(())
}

/// `mean/max` gap in degrees, or `-` when none was measured.
pub fn gaps(mean: Option<f64>, max: Option<f64>) -> String {
    match (mean, max) {
        (Some(mean), Some(max)) => format!("{mean:.2}/{max:.2}"),
        _ => "-".into(),
    }
}

/// `12.3%`.
pub fn percent(share: f64) -> String {
    format!("{:.1}%", 100.0 * share)
}

fn nanoseconds(ns: Option<f64>) -> String {
    ns.map_or_else(|| "-".into(), |ns| format!("{ns:.0}"))
}

/// What `jointlimits eval` was asked for.
pub struct EvalRequest<'a> {
    /// The limits file.
    pub limits: &'a Path,
    /// Clips to measure acceptance on.
    pub clips: &'a [PathBuf],
    /// Joints to evaluate (all when empty).
    pub joints: &'a [String],
    /// How thoroughly.
    pub options: EvaluationOptions,
    /// JSON instead of text.
    pub json: bool,
    /// Use limits of another skeleton.
    pub allow_other_skeleton: bool,
}

/// Runs `jointlimits eval`.
pub fn run(request: &EvalRequest) -> Result<()> {
    let (limits, clips) = inputs::read_limits_and_clips(
        request.limits,
        request.clips,
        USAGE,
        request.allow_other_skeleton,
    )?;
    let motions: Vec<&Motion> = clips.iter().flat_map(|c| c.motions.iter()).collect();
    let skeleton = clips.as_ref().map(|c| c.skeleton());
    let report = evaluate(
        &limits,
        skeleton,
        &motions,
        request.joints,
        &request.options,
    )
    .map_err(|e| anyhow!("{}: {e}", request.limits.display()))?;
    let mut out = std::io::stdout().lock();
    if request.json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_text(&report, &mut out)?;
    }
    Ok(())
}
