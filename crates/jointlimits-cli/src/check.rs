//! `jointlimits check`: how far clips stray outside limits.

use anyhow::{Result, anyhow};
use jointlimits::{Motion, Skeleton, SkeletonLimits};
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::inputs;
use crate::progress::Progress;

/// How `check` takes its arguments, for hints.
const USAGE: &str = "jointlimits check LIMITS.json CLIP.bvh...";

/// Violations of one joint over all checked frames.
#[derive(Debug, Serialize)]
pub struct JointCheck {
    /// The joint.
    pub name: String,
    /// Frames whose violation exceeds the tolerance.
    pub frames_outside: usize,
    /// The largest violation, degrees (limit-space distance to the region).
    pub max_violation_deg: f64,
    /// The mean violation over the frames outside, degrees (0 when none).
    pub mean_violation_deg: f64,
    /// The frame of the largest violation (within its clip), `null` when there is none.
    pub worst_frame: Option<usize>,
    /// The clip (index in the argument list) of the largest violation.
    pub worst_clip: Option<usize>,
    /// That clip's file, as given.
    pub worst_clip_file: Option<String>,
    /// The largest stress over the frames (at each frame's nearest allowed rotation), for kinds
    /// that store stress (tables); `null` otherwise.
    pub max_stress: Option<f64>,
    /// The mean stress over the frames, for kinds that store stress.
    pub mean_stress: Option<f64>,
    /// Frames whose violation exceeds the break margin there (kinds with a break margin).
    pub frames_beyond_break: usize,
}

/// The whole check.
#[derive(Debug, Serialize)]
pub struct CheckReport {
    /// Frames checked, over all clips.
    pub frames: usize,
    /// Frames where every joint is within the tolerance.
    pub frames_all_inside: usize,
    /// The tolerance, degrees.
    pub tolerance_deg: f64,
    /// One entry per limited joint.
    pub joints: Vec<JointCheck>,
    /// Per frame (clip, frame) the stress of each limited joint, in the order of `joints`
    /// (`None` for kinds that store none).
    #[serde(skip)]
    pub stress_rows: Vec<(usize, usize, Vec<Option<f32>>)>,
}

impl CheckReport {
    /// Whether any violation exceeds the tolerance.
    pub fn any_outside(&self) -> bool {
        self.frames_all_inside < self.frames
    }
}

/// Measures `motions` against `limits` (with a progress bar when `show_progress`), frame by frame: each joint's violation is the distance
/// from its rotation to the nearest allowed one (stateless, so it does not depend on the frames
/// before or on which cover a file happens to store).
pub fn measure(
    limits: &SkeletonLimits,
    skeleton: &Skeleton,
    motions: &[&Motion],
    tolerance_deg: f64,
    show_progress: bool,
) -> Result<CheckReport, jointlimits::LimitsError> {
    let limiter = limits.bind(skeleton)?;
    let limited: Vec<usize> = (0..skeleton.len())
        .filter(|&j| limiter.joint_limit(j).is_some())
        .collect();
    let mut joints: Vec<JointCheck> = limited
        .iter()
        .map(|&j| JointCheck {
            name: skeleton.joints()[j].name.clone(),
            frames_outside: 0,
            max_violation_deg: 0.0,
            mean_violation_deg: 0.0,
            worst_frame: None,
            worst_clip: None,
            worst_clip_file: None,
            max_stress: None,
            mean_stress: None,
            frames_beyond_break: 0,
        })
        .collect();
    let (mut frames, mut frames_all_inside) = (0, 0);
    let mut stress_rows = Vec::new();
    let total: usize = motions.iter().map(|m| m.frame_count()).sum();
    let progress = show_progress.then(|| Progress::bar("checking", total as u64, "frames"));
    for (clip, motion) in motions.iter().enumerate() {
        for frame in 0..motion.frame_count() {
            if let Some(progress) = &progress {
                progress.step();
            }
            let rotations = motion.frame_rotations(frame);
            let mut all_inside = true;
            let mut stresses = Vec::with_capacity(limited.len());
            for (entry, &j) in joints.iter_mut().zip(&limited) {
                let limit = limiter.joint_limit(j).expect("a limited joint");
                // A limit coupled to its parent judges the parent's rotation as recorded.
                let context = jointlimits::LimitContext {
                    parent: skeleton.joints()[j].parent.map(|p| rotations[p]),
                };
                let assessment = limit.assess_in(rotations[j], &context);
                let violation = f64::from(assessment.violation).to_degrees();
                if let Some(stress) = assessment.stress.map(f64::from) {
                    entry.max_stress = Some(entry.max_stress.map_or(stress, |m| m.max(stress)));
                    *entry.mean_stress.get_or_insert(0.0) += stress;
                }
                entry.frames_beyond_break += usize::from(assessment.beyond_break);
                stresses.push(assessment.stress);
                if violation > entry.max_violation_deg {
                    entry.max_violation_deg = violation;
                    entry.worst_frame = Some(frame);
                    entry.worst_clip = Some(clip);
                }
                if violation > tolerance_deg {
                    entry.frames_outside += 1;
                    entry.mean_violation_deg += violation;
                    all_inside = false;
                }
            }
            frames += 1;
            frames_all_inside += usize::from(all_inside);
            stress_rows.push((clip, frame, stresses));
        }
    }
    for entry in &mut joints {
        if entry.frames_outside > 0 {
            entry.mean_violation_deg /= entry.frames_outside as f64;
        }
        if let Some(sum) = entry.mean_stress.as_mut() {
            *sum /= frames.max(1) as f64;
        }
    }
    Ok(CheckReport {
        frames,
        frames_all_inside,
        tolerance_deg,
        joints,
        stress_rows,
    })
}

/// Prints the report as a table; stress and break columns when some joint's kind stores them.
pub fn print_text(report: &CheckReport, out: &mut impl Write) -> std::io::Result<()> {
    let stress = report.joints.iter().any(|j| j.max_stress.is_some());
    let stress_header = if stress {
        format!(
            " {:>10} {:>11} {:>8}",
            "max stress", "mean stress", "broken"
        )
    } else {
        String::new()
    };
    writeln!(
        out,
        "{:<24} {:>14} {:>10} {:>10}{stress_header}  worst clip:frame",
        "joint", "frames outside", "max deg", "mean deg"
    )?;
    for j in &report.joints {
        let worst = match (&j.worst_clip_file, j.worst_frame) {
            (Some(file), Some(frame)) => {
                let name = Path::new(file)
                    .file_name()
                    .map_or_else(|| file.clone(), |n| n.to_string_lossy().into_owned());
                format!("{name}:{frame}")
            }
            (None, Some(frame)) => frame.to_string(),
            _ => "-".to_string(),
        };
        let stress_columns = match (stress, j.max_stress, j.mean_stress) {
            (false, _, _) => String::new(),
            (true, Some(max), Some(mean)) => {
                format!(" {max:>10.3} {mean:>11.3} {:>8}", j.frames_beyond_break)
            }
            (true, _, _) => format!(" {:>10} {:>11} {:>8}", "-", "-", "-"),
        };
        writeln!(
            out,
            "{:<24} {:>14} {:>10.3} {:>10.3}{stress_columns}  {}",
            j.name, j.frames_outside, j.max_violation_deg, j.mean_violation_deg, worst
        )?;
    }
    writeln!(
        out,
        "overall: {} of {} frames have every joint within {}° of its limit",
        report.frames_all_inside,
        report.frames,
        jointlimits::validation::readable(report.tolerance_deg)
    )?;
    if stress {
        let broken: usize = report.joints.iter().map(|j| j.frames_beyond_break).sum();
        writeln!(
            out,
            "stress: 0 relaxed to 1 on the boundary of the allowed bone directions, read at the direction of each frame's nearest allowed rotation (a rotation held at its twist limit reads its direction's stress); {broken} joint-frame(s) beyond the break margin"
        )?;
    }
    Ok(())
}

/// Writes `report`'s per-frame stress as CSV: `clip,frame` then one column per joint whose kind
/// stores stress.
pub fn write_stress_csv(
    report: &CheckReport,
    clip_paths: &[PathBuf],
    out: &mut impl Write,
) -> std::io::Result<()> {
    let columns: Vec<usize> = (0..report.joints.len())
        .filter(|&j| report.joints[j].max_stress.is_some())
        .collect();
    write!(out, "clip,frame")?;
    for &j in &columns {
        write!(out, ",{}", report.joints[j].name)?;
    }
    writeln!(out)?;
    for (clip, frame, stresses) in &report.stress_rows {
        // A path may hold commas or quotes: quoted, quotes doubled (RFC 4180).
        let path = clip_paths[*clip].display().to_string().replace('"', "\"\"");
        write!(out, "\"{path}\",{frame}")?;
        for &j in &columns {
            match stresses[j] {
                Some(stress) => write!(out, ",{stress:.4}")?,
                None => write!(out, ",")?,
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Runs `jointlimits check`; returns whether every frame is within the tolerance.
pub fn run(
    limits_path: &Path,
    clip_paths: &[PathBuf],
    json: bool,
    tolerance_deg: f64,
    allow_other_skeleton: bool,
    stress_csv: Option<&Path>,
) -> Result<bool> {
    let limits = inputs::read_limits(limits_path, USAGE)?;
    let clips = inputs::read_clips(clip_paths, USAGE)?;
    let limits = inputs::ensure_same_skeleton(limits, limits_path, &clips, allow_other_skeleton)?;
    let motions: Vec<&Motion> = clips.motions.iter().collect();
    let mut report =
        measure(&limits, clips.skeleton(), &motions, tolerance_deg, true).map_err(|e| {
            anyhow!(
                "{} does not fit {}: {e}",
                limits_path.display(),
                clip_paths[0].display()
            )
        })?;
    for joint in &mut report.joints {
        joint.worst_clip_file = joint
            .worst_clip
            .map(|c| clip_paths[c].display().to_string());
    }
    if let Some(path) = stress_csv {
        let inputs: Vec<&Path> = std::iter::once(limits_path)
            .chain(clip_paths.iter().map(PathBuf::as_path))
            .collect();
        inputs::ensure_output_is_not_an_input(path, &inputs)?;
        if !report.joints.iter().any(|j| j.max_stress.is_some()) {
            anyhow::bail!(
                "no joint of {} stores stress (tables do): nothing to write to {}",
                limits_path.display(),
                path.display()
            );
        }
        jointlimits_io::atomic::write_atomically(path, |out| {
            write_stress_csv(&report, clip_paths, out)
        })
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_text(&report, &mut out)?;
    }
    Ok(!report.any_outside())
}
