//! `jointlimits ik`: move a chain of a clip's skeleton onto targets, frame by frame, inside the
//! limits; or turn a look-at chain toward a point.

use anyhow::{Context, Result, bail};
use glam::Vec3;
use jointlimits::JointLimit;
use jointlimits::ik::{Chain, IkOptions, Solver, Tracker, look_at, solve, solve_two_bone};
use jointlimits::skeleton::Skeleton;
use jointlimits_io::bvh::write_bvh_file;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use crate::inputs;
use crate::progress::Progress;
use crate::suggest::did_you_mean;

/// How `ik` takes its arguments, for hints.
const USAGE: &str =
    "jointlimits ik LIMITS.json CLIP.bvh -o OUT.bvh --chain ROOT..TIP --target X,Y,Z";

/// A point to reach (or look at) over a range of frames (all frames when `None`).
#[derive(Clone, Debug, PartialEq)]
pub struct TargetSpec {
    /// World position, in the clip's units.
    pub point: Vec3,
    /// Zero-based frames, inclusive.
    pub frames: Option<RangeInclusive<usize>>,
    /// Where it was given (`--target …`, or the track file and line), for messages.
    pub origin: String,
}

/// How the chain moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// An iterative solver.
    Iterative(Solver),
    /// Analytic two-bone IK (chains of exactly two rotating joints).
    TwoBone,
}

/// The `ik` command's settings.
pub struct IkRequest<'a> {
    /// The limits file.
    pub limits: &'a Path,
    /// The clip to change.
    pub input: &'a Path,
    /// The BVH file to write.
    pub out: &'a Path,
    /// `ROOT..TIP`.
    pub chain: &'a str,
    /// End-effector targets (IK) or points to look at (`look_at`).
    pub targets: Vec<TargetSpec>,
    /// Turn the chain to look at the targets instead of reaching them.
    pub look_at: bool,
    /// The aim axis in the tip joint's frame (look-at).
    pub aim: Vec3,
    /// The solver (IK).
    pub method: Method,
    /// Solver settings; a tolerance of zero means 0.1% of the chain's length.
    pub options: IkOptions,
    /// Use limits made for another skeleton than the clip's.
    pub allow_other_skeleton: bool,
}

/// Runs `jointlimits ik`.
pub fn run(request: IkRequest) -> Result<()> {
    let limits = inputs::read_limits(request.limits, USAGE)?;
    let clips = inputs::read_clips(&[PathBuf::from(request.input)], USAGE)?;
    let limits = if request.options.use_limits {
        inputs::ensure_same_skeleton(limits, request.limits, &clips, request.allow_other_skeleton)?
    } else {
        limits
    };
    inputs::ensure_output_is_not_an_input(request.out, &[request.limits, request.input])?;
    let skeleton = clips.skeleton();
    let limiter = limits.bind(skeleton).map_err(|e| {
        anyhow::anyhow!(
            "{} does not fit {}: {e}",
            request.limits.display(),
            request.input.display()
        )
    })?;
    let per_joint: Vec<Option<JointLimit>> = (0..skeleton.len())
        .map(|j| limiter.joint_limit(j).cloned())
        .collect();
    let path = chain_path(skeleton, request.chain)?;
    if request.look_at && request.aim.length_squared() < 1e-12 {
        bail!("--aim must not be the zero vector");
    }
    if !request.look_at && path.len() < 2 {
        bail!(
            "--chain {} has no rotating joint: name a root joint above the tip",
            request.chain
        );
    }
    if request.method == Method::TwoBone && !request.look_at && path.len() != 3 {
        bail!(
            "two-bone IK needs a chain of three joints (upper, lower, end); {} has {}",
            request.chain,
            path.len()
        );
    }
    let mut motion = clips.motions[0].clone();
    let frame_count = motion.frame_count();
    for target in &request.targets {
        if let Some(frames) = &target.frames
            && *frames.end() >= frame_count
        {
            bail!(
                "{}: target {} asks for frames {}-{}, but {} has {frame_count} frames (0-{})",
                target.origin,
                target.point,
                frames.start(),
                frames.end(),
                request.input.display(),
                frame_count.saturating_sub(1)
            );
        }
    }
    let mut summary = Summary::default();
    // Consecutive solved frames stay on one solution instead of flipping between poses that reach.
    let mut tracker = Tracker::new();
    let progress = Progress::bar("solving", frame_count as u64, "frames");
    for frame in 0..frame_count {
        progress.step();
        // The last target that covers the frame wins.
        let Some(target) = request
            .targets
            .iter()
            .rev()
            .find(|t| t.frames.as_ref().is_none_or(|f| f.contains(&frame)))
        else {
            tracker.reset();
            continue;
        };
        let mut pose = motion.pose(frame);
        if request.look_at {
            let mut chain =
                Chain::from_skeleton_with_end(skeleton, &pose, &path, request.aim, &per_joint)?;
            let report = look_at(&mut chain, target.point, &request.options);
            chain.write_to(&mut pose, &path);
            summary.add(
                report.angle.to_degrees(),
                report.angle < 1e-3,
                report.passes,
            );
        } else {
            let rotating = &path[..path.len() - 1];
            let mut chain = Chain::from_skeleton(skeleton, &pose, &path, &per_joint)?;
            let mut options = request.options;
            if options.tolerance <= 0.0 {
                options.tolerance = 1e-3 * chain.length();
            }
            // Beyond reach whatever the solve's stop: with limits it stalls where they keep the
            // chain from pointing straight at the target.
            let first = chain.first_free_joint();
            let reach: f32 = chain.lengths()[first..].iter().sum();
            let beyond_reach = target.point.distance(chain.positions()[first]) > reach;
            let report = tracker.solve_frame(&mut chain, |chain| match request.method {
                Method::Iterative(solver) => solve(chain, target.point, solver, &options),
                Method::TwoBone => solve_two_bone(chain, target.point, &options),
            });
            chain.write_to(&mut pose, rotating);
            summary.add(report.distance, report.reached(), report.iterations);
            summary.beyond_reach += usize::from(beyond_reach);
        }
        let n = motion.joint_count;
        motion.rotations[frame * n..(frame + 1) * n].copy_from_slice(&pose.rotations);
    }
    drop(progress);
    // With limits, what reads back stays inside them despite the file's rounding.
    let limits_used: Vec<Option<&JointLimit>> = per_joint
        .iter()
        .map(|limit| limit.as_ref().filter(|_| request.options.use_limits))
        .collect();
    let writing = Progress::spinner(&format!("writing {}", request.out.display()));
    let (bvh, _) = clips.files[0].with_allowed_motion(&motion, &limits_used)?;
    write_bvh_file(request.out, &bvh)?;
    drop(writing);
    let (what, unit, kept) = if request.look_at {
        ("aimed within 0.06°".to_string(), "°", String::new())
    } else {
        let carried = tracker.carried_frames();
        let what = match summary.beyond_reach {
            0 => "reached".to_string(),
            n => format!("reached, {n} beyond reach (the chain stretched toward the target)"),
        };
        (
            what,
            " clip units",
            format!("; {carried} kept on the last frame's solution"),
        )
    };
    println!(
        "{} frames solved, {} {what}; miss mean {:.4}{unit}, max {:.4}{unit}; mean iterations {:.1}{kept}; wrote {}",
        summary.frames,
        summary.reached,
        summary.mean_miss(),
        summary.max_miss,
        summary.mean_iterations(),
        request.out.display()
    );
    Ok(())
}

#[derive(Default)]
struct Summary {
    frames: usize,
    reached: usize,
    /// Frames whose target lay beyond the chain's length, reached as near as it allows.
    beyond_reach: usize,
    iterations: usize,
    total_miss: f64,
    max_miss: f32,
}

impl Summary {
    fn add(&mut self, miss: f32, reached: bool, iterations: usize) {
        self.frames += 1;
        self.reached += usize::from(reached);
        self.iterations += iterations;
        self.total_miss += f64::from(miss);
        self.max_miss = self.max_miss.max(miss);
    }

    fn mean_miss(&self) -> f64 {
        self.total_miss / self.frames.max(1) as f64
    }

    fn mean_iterations(&self) -> f64 {
        self.iterations as f64 / self.frames.max(1) as f64
    }
}

/// The joints from `ROOT` down to `TIP` for `ROOT..TIP` (or the single joint `TIP`).
pub fn chain_path(skeleton: &Skeleton, spec: &str) -> Result<Vec<usize>> {
    let (root_name, tip_name) = spec.split_once("..").unwrap_or((spec, spec));
    let find = |name: &str| {
        skeleton.find(name.trim()).with_context(|| {
            let names: Vec<&str> = skeleton.joints().iter().map(|j| j.name.as_str()).collect();
            format!(
                "--chain {spec}: no joint called {name:?}{} (joints: {})",
                did_you_mean(name.trim(), &names),
                list_of(&names)
            )
        })
    };
    let (root, tip) = (find(root_name)?, find(tip_name)?);
    let mut path = vec![tip];
    let mut joint = tip;
    while joint != root {
        match skeleton.joints()[joint].parent {
            Some(parent) => {
                path.push(parent);
                joint = parent;
            }
            None => bail!("--chain {spec}: {root_name} is not an ancestor of {tip_name}"),
        }
    }
    path.reverse();
    Ok(path)
}

/// The first names of a list, and how many more there are.
fn list_of(names: &[&str]) -> String {
    const SHOWN: usize = 40;
    let mut text = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        text.push_str(&format!(", and {} more", names.len() - SHOWN));
    }
    text
}

/// Parses `X,Y,Z` or `X,Y,Z@FRAME` or `X,Y,Z@FIRST-LAST` (zero-based, inclusive).
pub fn parse_target(text: &str) -> Result<TargetSpec, String> {
    let (point, frames) = match text.split_once('@') {
        Some((point, frames)) => (point, Some(parse_frames(frames)?)),
        None => (text, None),
    };
    Ok(TargetSpec {
        point: parse_vec3(point)?,
        frames,
        origin: format!("--target {text}"),
    })
}

fn parse_frames(text: &str) -> Result<RangeInclusive<usize>, String> {
    if text.trim().starts_with('-') {
        return Err(format!(
            "{:?} is not a frame number (frames count from 0)",
            text.trim()
        ));
    }
    let number = |s: &str| {
        s.trim()
            .parse::<usize>()
            .map_err(|_| format!("{s:?} is not a frame number (frames count from 0)"))
    };
    let (first, last) = match text.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => (number(text)?, number(text)?),
    };
    if last < first {
        return Err(format!("frame range {text:?} ends before it starts"));
    }
    Ok(first..=last)
}

/// The largest coordinate a target, pole or aim may have, in clip units: far beyond any scene,
/// small enough that squared distances stay finite in f32.
pub const MAX_COORDINATE: f32 = 1e9;

/// Parses `X,Y,Z` (finite numbers of magnitude at most [`MAX_COORDINATE`]).
pub fn parse_vec3(text: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = text.split(',').collect();
    if parts.len() != 3 {
        return Err(format!("expected X,Y,Z, found {text:?}"));
    }
    let mut v = [0.0f32; 3];
    for (slot, part) in v.iter_mut().zip(&parts) {
        *slot = part
            .trim()
            .parse::<f32>()
            .ok()
            .filter(|x| x.is_finite() && x.abs() <= MAX_COORDINATE)
            .ok_or_else(|| {
                format!(
                    "{:?} in {text:?} is not a finite number of magnitude at most {MAX_COORDINATE:e}",
                    part.trim()
                )
            })?;
    }
    Ok(Vec3::from(v))
}

/// Parses `--solver`: relaxation, fabrik, ccd or two-bone.
pub fn parse_method(text: &str) -> Result<Method, String> {
    if text == "two-bone" {
        return Ok(Method::TwoBone);
    }
    Solver::from_name(text)
        .map(Method::Iterative)
        .ok_or_else(|| {
            format!(
                "unknown solver {text:?}: use relaxation, fabrik, ccd or two-bone{}",
                did_you_mean(text, &["relaxation", "fabrik", "ccd", "two-bone"])
            )
        })
}

/// Reads a target track: one `FRAME,X,Y,Z` per line (zero-based frames; blank lines, `#`
/// comments and a header line starting with a letter are skipped).
pub fn read_target_csv(path: &Path) -> Result<Vec<TargetSpec>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    // Spreadsheets may start the file with a byte-order mark.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let mut targets = Vec::new();
    // The line of each frame given on its own, to tell where one is given twice.
    let mut lines_of_frames = std::collections::HashMap::new();
    let mut repeated = Vec::new();
    for (index, line) in jointlimits_io::text_lines::lines(text).enumerate() {
        let line = line.trim();
        let starts_with_letter = line.chars().next().is_some_and(char::is_alphabetic);
        if line.is_empty() || line.starts_with('#') || (index == 0 && starts_with_letter) {
            continue;
        }
        let (frame, point) = line
            .split_once(',')
            .with_context(|| format!("{}:{}: expected FRAME,X,Y,Z", path.display(), index + 1))?;
        let frames = parse_frames(frame)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), index + 1))?;
        let point = parse_vec3(point)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), index + 1))?;
        if frames.start() == frames.end()
            && let Some(first) = lines_of_frames.insert(*frames.start(), index + 1)
        {
            repeated.push((*frames.start(), first, index + 1));
        }
        targets.push(TargetSpec {
            point,
            frames: Some(frames),
            origin: format!("{}:{}", path.display(), index + 1),
        });
    }
    if targets.is_empty() {
        bail!("{} has no targets", path.display());
    }
    if let Some(&(frame, first, again)) = repeated.first() {
        // Most likely a mistake in the track (an export written twice, a column off by one).
        eprintln!(
            "warning: {}:{again}: frame {frame} already has a target on line {first} ({} frame(s) given twice); the later line wins",
            path.display(),
            repeated.len()
        );
    }
    Ok(targets)
}
