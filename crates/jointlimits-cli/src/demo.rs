//! `jointlimits demo`: the embedded default, runnable with no input files.
//!
//! Fits limits to the built-in humanoid's range-of-motion clip, applies them to an exaggerated
//! version of the same clip (beyond human ranges), and reports violations before and after.

use anyhow::{Context, Result};
use jointlimits::fit::{FitOptions, fit_skeleton_limits};
use jointlimits::humanoid::{HUMANOID_ORDER, humanoid_skeleton, range_of_motion_clip};
use jointlimits::{Axis, Motion, Skeleton};
use jointlimits_io::atomic::write_atomically;
use jointlimits_io::bvh::{Bvh, Channel, read_bvh_file, write_bvh_file};
use jointlimits_io::{read_limits_file, write_limits_file};
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::check::{CheckReport, measure};
use crate::plot::{Formats, draw_pictures};

/// Frames per second of the generated clip.
const DEMO_FRAME_RATE: f64 = 30.0;

/// Joints drawn in detail (swing chart and limit space): a shoulder, an elbow, a hip and a knee.
const PICTURED_JOINTS: [&str; 4] = ["LeftArm", "LeftForeArm", "LeftUpLeg", "LeftLeg"];

/// How far the exaggerated clip overshoots the published ranges.
const EXAGGERATION: f64 = 1.6;

/// The channels the demo writes: position and rotation for roots, rotation for the rest, in the
/// humanoid's Euler order.
pub fn humanoid_channels(skeleton: &Skeleton) -> Vec<Vec<Channel>> {
    let rotations: Vec<Channel> = HUMANOID_ORDER.axes().map(Channel::Rotation).to_vec();
    skeleton
        .joints()
        .iter()
        .map(|joint| {
            let mut channels = Vec::new();
            if joint.parent.is_none() {
                channels.extend([Axis::X, Axis::Y, Axis::Z].map(Channel::Position));
            }
            channels.extend(rotations.iter().copied());
            channels
        })
        .collect()
}

/// Runs `jointlimits demo`.
pub fn run(out: &Path) -> Result<()> {
    let started = Instant::now();
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the output folder {}", out.display()))?;
    let skeleton = humanoid_skeleton();
    let channels = humanoid_channels(&skeleton);
    let natural = range_of_motion_clip(DEMO_FRAME_RATE, 1.0);
    let exaggerated = range_of_motion_clip(DEMO_FRAME_RATE, EXAGGERATION);

    let write_clip = |name: &str, motion: &Motion| -> Result<()> {
        let bvh = Bvh::from_motion(&skeleton, &channels, motion)?;
        write_bvh_file(out.join(name), &bvh)?;
        Ok(())
    };
    write_clip("range_of_motion.bvh", &natural)?;
    write_clip("exaggerated.bvh", &exaggerated)?;

    // Fit from the file just written, as a user would.
    let reread_file = read_bvh_file(out.join("range_of_motion.bvh"))?;
    let reread = reread_file.to_motion();
    let options = FitOptions::default();
    let limits = fit_skeleton_limits(&skeleton, &[&reread], &options, &|_| {})?
        .for_skeleton(&reread_file.skeleton_as_written());
    let limits_path = out.join("limits.json");
    write_limits_file(&limits_path, &limits)?;
    let limits = read_limits_file(&limits_path)?;

    // Limit the file just written and write it as `apply` does: allowed rotations keep their
    // text, changed ones the Euler angles nearest the input's own.
    let exaggerated_file = read_bvh_file(out.join("exaggerated.bvh"))?;
    let mut limited = exaggerated_file.to_motion();
    let mut limiter = limits.bind(&skeleton)?;
    let joint_count = limited.joint_count;
    for frame in 0..limited.frame_count() {
        limiter.limit_pose(&mut limited.rotations[frame * joint_count..(frame + 1) * joint_count]);
    }
    let joint_limits: Vec<_> = (0..joint_count).map(|j| limiter.joint_limit(j)).collect();
    let (limited_file, _) = exaggerated_file.with_allowed_motion(&limited, &joint_limits)?;
    write_bvh_file(out.join("limited.bvh"), &limited_file)?;
    let limited_reread = read_bvh_file(out.join("limited.bvh"))?.to_motion();

    let tolerance = 0.01;
    let before_natural = measure(&limits, &skeleton, &[&reread], tolerance, false)?;
    let before = measure(&limits, &skeleton, &[&exaggerated], tolerance, false)?;
    let after = measure(&limits, &skeleton, &[&limited_reread], tolerance, false)?;

    let mut report = Vec::new();
    write_report(
        &mut report,
        &limits,
        &before_natural,
        &before,
        &after,
        started.elapsed().as_secs_f64(),
    )?;
    let pictures = out.join("pictures");
    std::fs::create_dir_all(&pictures)
        .with_context(|| format!("cannot create the folder {}", pictures.display()))?;
    let detailed: Vec<usize> = PICTURED_JOINTS
        .iter()
        .filter_map(|name| limits.joints.iter().position(|l| l.joint == *name))
        .collect();
    let drawn = draw_pictures(
        &limits,
        Some(&skeleton),
        &[("exaggerated.bvh".to_string(), &exaggerated)],
        &detailed,
        &[],
        &pictures,
        Formats::Both,
    )?;
    writeln!(
        report,
        "\npictures: {} files in {} (overview.png: every joint's swing chart)",
        drawn.len(),
        pictures.display()
    )?;
    write_atomically(&out.join("report.txt"), |f| f.write_all(&report))
        .with_context(|| format!("cannot write {}", out.join("report.txt").display()))?;
    std::io::stdout().write_all(&report)?;
    println!(
        "wrote range_of_motion.bvh, exaggerated.bvh, limited.bvh, limits.json, report.txt and pictures/ to {}",
        out.display()
    );
    Ok(())
}

fn write_report(
    out: &mut impl Write,
    limits: &jointlimits::SkeletonLimits,
    natural: &CheckReport,
    before: &CheckReport,
    after: &CheckReport,
    seconds: f64,
) -> std::io::Result<()> {
    let options = limits.fitted_with.unwrap_or_default();
    writeln!(
        out,
        "jointlimits demo: built-in humanoid, {} frames of published adult ranges of motion",
        natural.frames
    )?;
    writeln!(
        out,
        "fitted {} joint limits ({} space, {}, padding {:.1}°); exaggerated clip at {}× the ranges\n",
        limits.joints.len(),
        crate::fit::space_name(options.space),
        limits
            .joints
            .first()
            .map_or_else(|| "no shape".to_string(), crate::fit::shape_label),
        options.padding.to_degrees(),
        EXAGGERATION
    )?;
    writeln!(
        out,
        "{:<16} {:>17} {:>22} {:>22}",
        "joint", "natural outside", "exaggerated outside", "after limits outside"
    )?;
    for ((n, b), a) in natural.joints.iter().zip(&before.joints).zip(&after.joints) {
        writeln!(
            out,
            "{:<16} {:>17} {:>12} ({:>6.1}°) {:>12} ({:>6.3}°)",
            n.name,
            n.frames_outside,
            b.frames_outside,
            b.max_violation_deg,
            a.frames_outside,
            a.max_violation_deg
        )?;
    }
    writeln!(
        out,
        "\nframes with every joint inside: natural {}/{}, exaggerated {}/{}, after limits {}/{} (tolerance {}°)",
        natural.frames_all_inside,
        natural.frames,
        before.frames_all_inside,
        before.frames,
        after.frames_all_inside,
        after.frames,
        natural.tolerance_deg
    )?;
    writeln!(out, "done in {seconds:.2} s")
}
