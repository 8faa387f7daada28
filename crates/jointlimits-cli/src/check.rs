//! `jointlimits check`: how far clips stray outside limits.

use anyhow::{Result, anyhow};
use jointlimits::{Motion, Skeleton, SkeletonLimits};
use jointlimits_io::read_limits_file;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::clips::Clips;

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
}

impl CheckReport {
    /// Whether any violation exceeds the tolerance.
    pub fn any_outside(&self) -> bool {
        self.frames_all_inside < self.frames
    }
}

/// Measures `motions` against `limits`, frame by frame: each joint's violation is the distance
/// from its rotation to the nearest allowed one (stateless, so it does not depend on the frames
/// before or on which cover a file happens to store).
pub fn measure(
    limits: &SkeletonLimits,
    skeleton: &Skeleton,
    motions: &[&Motion],
    tolerance_deg: f64,
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
        })
        .collect();
    let (mut frames, mut frames_all_inside) = (0, 0);
    for (clip, motion) in motions.iter().enumerate() {
        for frame in 0..motion.frame_count() {
            let rotations = motion.frame_rotations(frame);
            let mut all_inside = true;
            for (entry, &j) in joints.iter_mut().zip(&limited) {
                let limit = limiter.joint_limit(j).expect("a limited joint");
                let violation = f64::from(limit.violation(rotations[j])).to_degrees();
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
        }
    }
    for entry in &mut joints {
        if entry.frames_outside > 0 {
            entry.mean_violation_deg /= entry.frames_outside as f64;
        }
    }
    Ok(CheckReport {
        frames,
        frames_all_inside,
        tolerance_deg,
        joints,
    })
}

/// Prints the report as a table.
pub fn print_text(report: &CheckReport, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{:<24} {:>14} {:>10} {:>10} {:>12}",
        "joint", "frames outside", "max deg", "mean deg", "worst frame"
    )?;
    for j in &report.joints {
        let worst = match (j.worst_clip, j.worst_frame) {
            (Some(c), Some(f)) => format!("{c}:{f}"),
            _ => "-".to_string(),
        };
        writeln!(
            out,
            "{:<24} {:>14} {:>10.3} {:>10.3} {:>12}",
            j.name, j.frames_outside, j.max_violation_deg, j.mean_violation_deg, worst
        )?;
    }
    writeln!(
        out,
        "overall: {} of {} frames have every joint within {}° of its limit",
        report.frames_all_inside, report.frames, report.tolerance_deg
    )
}

/// Runs `jointlimits check`; returns whether every frame is within the tolerance.
pub fn run(
    limits_path: &Path,
    clip_paths: &[PathBuf],
    json: bool,
    tolerance_deg: f64,
) -> Result<bool> {
    let limits = read_limits_file(limits_path)?;
    let clips = Clips::read(clip_paths)?;
    let motions: Vec<&Motion> = clips.motions.iter().collect();
    let report = measure(&limits, clips.skeleton(), &motions, tolerance_deg).map_err(|e| {
        anyhow!(
            "{} does not fit {}: {e}",
            limits_path.display(),
            clip_paths[0].display()
        )
    })?;
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_text(&report, &mut out)?;
    }
    Ok(!report.any_outside())
}
