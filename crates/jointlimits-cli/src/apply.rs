//! `jointlimits apply`: enforce limits on a clip and write the result.

use anyhow::Result;
use jointlimits::Softening;
use jointlimits_io::bvh::write_bvh_file;
use std::path::{Path, PathBuf};

use crate::inputs;
use crate::progress::Progress;

/// How `apply` takes its arguments, for hints.
const USAGE: &str = "jointlimits apply LIMITS.json CLIP.bvh -o OUT.bvh";

/// Runs `jointlimits apply`.
pub fn run(
    limits_path: &Path,
    input: &Path,
    out: &Path,
    soften: Option<Softening>,
    allow_other_skeleton: bool,
    path_aware: bool,
) -> Result<()> {
    let mut limits = inputs::read_limits(limits_path, USAGE)?;
    if let Some(softening) = soften {
        for joint in &mut limits.joints {
            joint.softening = Some(softening);
        }
    }
    let clips = inputs::read_clips(&[PathBuf::from(input)], USAGE)?;
    let limits = inputs::ensure_same_skeleton(limits, limits_path, &clips, allow_other_skeleton)?;
    inputs::ensure_output_is_not_an_input(out, &[limits_path, input])?;
    let skeleton = clips.skeleton();
    let mut limiter = limits.bind(skeleton).map_err(|e| {
        anyhow::anyhow!(
            "{} does not fit {}: {e}",
            limits_path.display(),
            input.display()
        )
    })?;
    limiter = limiter.with_path_aware(path_aware);
    if path_aware {
        note_joints_without_path_aware_correction(&limits.joints);
    }
    let mut motion = clips.motions[0].clone();
    let joint_count = motion.joint_count;
    let progress = Progress::bar("limiting", motion.frame_count() as u64, "frames");
    for frame in 0..motion.frame_count() {
        progress.step();
        let rotations = &mut motion.rotations[frame * joint_count..(frame + 1) * joint_count];
        limiter.limit_pose(rotations);
    }
    drop(progress);
    let limits: Vec<_> = (0..joint_count).map(|j| limiter.joint_limit(j)).collect();
    let writing = Progress::spinner(&format!("writing {}", out.display()));
    let (bvh, written) = clips.files[0].with_allowed_motion(&motion, &limits)?;
    write_bvh_file(out, &bvh)?;
    drop(writing);
    // Counted in what was written: a joint without rotation channels (or a change below the
    // text's precision) changes nothing in the file, whatever the limiter asked for.
    let (mut corrections, mut frames_changed) = (0usize, 0usize);
    for frame in 0..bvh.frame_count() {
        let changed = (0..joint_count)
            .filter(|&joint| bvh.transform(frame, joint) != clips.files[0].transform(frame, joint))
            .count();
        corrections += changed;
        frames_changed += usize::from(changed > 0);
    }
    println!(
        "limited {}: {} of {} frames changed, {} joint corrections; wrote {}",
        input.display(),
        frames_changed,
        motion.frame_count(),
        corrections,
        out.display()
    );
    if written.still_outside > 0 {
        eprintln!(
            "warning: {} joint-frames read back outside their limits (up to {:.6}°): no allowed rotation near the one asked for survives being written as the joint's rotation channels, rounded to the file's precision (too few channels, or an allowed region thinner than the rounding)",
            written.still_outside,
            written.worst_violation.to_degrees()
        );
    }
    Ok(())
}

/// Tells the user which limited joints `--path-aware` leaves to the nearest allowed rotation:
/// only lookup tables stop where the motion first meets the boundary.
fn note_joints_without_path_aware_correction(joints: &[jointlimits::JointLimit]) {
    let others: Vec<&str> = joints
        .iter()
        .filter(|joint| !joint.corrects_path_aware())
        .map(|joint| joint.joint.as_str())
        .collect();
    if others.is_empty() {
        return;
    }
    let named = others
        .iter()
        .take(5)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    let more = if others.len() > 5 {
        format!(" and {} more", others.len() - 5)
    } else {
        String::new()
    };
    eprintln!(
        "note: --path-aware corrects lookup tables only; {} of {} limited joints ({named}{more}) are of other kinds and take the nearest allowed rotation (bake them into tables with `jointlimits bake` to correct them along the path)",
        others.len(),
        joints.len()
    );
}

/// Parses `FALLOFF,RADIUS` (per radian, radians).
pub fn parse_softening(text: &str) -> Result<Softening, String> {
    let (falloff, radius) = text
        .split_once(',')
        .ok_or_else(|| format!("expected FALLOFF,RADIUS, found {text:?}"))?;
    let number = |s: &str| {
        s.trim()
            .parse::<f32>()
            .map_err(|_| format!("{s:?} is not a number"))
    };
    let softening = Softening {
        falloff: number(falloff)?,
        radius: number(radius)?,
    };
    if !softening.is_valid() {
        return Err("falloff and radius must be finite and non-negative".into());
    }
    Ok(softening)
}
