//! `jointlimits inspect`: what a BVH clip holds.

use anyhow::{Context, Result};
use jointlimits_io::bvh::{Bvh, Channel, read_bvh_file};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// The summary of a clip, as printed (text) or serialised (`--json`).
#[derive(Debug, Serialize)]
pub struct Report {
    /// The file as given.
    pub file: String,
    /// Number of frames.
    pub frames: usize,
    /// Seconds per frame.
    pub frame_time: f64,
    /// Frames per second.
    pub frame_rate: f64,
    /// Total channels per frame.
    pub channels: usize,
    /// One entry per joint, parents first.
    pub joints: Vec<JointReport>,
}

/// One joint of the [`Report`].
#[derive(Debug, Serialize)]
pub struct JointReport {
    /// The joint's name.
    pub name: String,
    /// The parent's name, `null` for a root.
    pub parent: Option<String>,
    /// Depth in the tree (0 for a root).
    pub depth: usize,
    /// The bone offset from the parent.
    pub offset: [f32; 3],
    /// The end site, if any.
    pub end_site: Option<[f32; 3]>,
    /// Channel names in file order.
    pub channels: Vec<String>,
    /// The range of every channel over all frames (degrees for rotations), in file order.
    pub ranges: Vec<ChannelRange>,
}

/// The values a channel takes over a clip.
#[derive(Debug, Serialize)]
pub struct ChannelRange {
    /// The channel name, such as `Zrotation`.
    pub channel: String,
    /// Smallest value (`null` in a clip of no frames).
    pub min: Option<f32>,
    /// Largest value (`null` in a clip of no frames).
    pub max: Option<f32>,
}

/// Builds the report of a parsed clip.
pub fn report(file: &str, bvh: &Bvh) -> Report {
    let channel_count = bvh.channel_count();
    let first = bvh.first_channels();
    let depths = bvh.skeleton.depths();
    let joints = bvh.skeleton.joints();
    let joint_reports = joints
        .iter()
        .enumerate()
        .map(|(index, joint)| {
            let ranges = bvh.channels[index]
                .iter()
                .enumerate()
                .map(|(k, channel)| {
                    let column = first[index] + k;
                    let (min, max) = bvh
                        .values
                        .iter()
                        .skip(column)
                        .step_by(channel_count)
                        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), &v| {
                            (lo.min(v), hi.max(v))
                        });
                    // No frames, no range.
                    let (min, max) = if min <= max {
                        (Some(min), Some(max))
                    } else {
                        (None, None)
                    };
                    ChannelRange {
                        channel: channel.to_string(),
                        min,
                        max,
                    }
                })
                .collect();
            JointReport {
                name: joint.name.clone(),
                parent: joint.parent.map(|p| joints[p].name.clone()),
                depth: depths[index],
                offset: joint.offset.to_array(),
                end_site: joint.end_site.map(|e| e.to_array()),
                channels: bvh.channels[index]
                    .iter()
                    .map(ToString::to_string)
                    .collect(),
                ranges,
            }
        })
        .collect();
    Report {
        file: file.to_string(),
        frames: bvh.frame_count(),
        frame_time: bvh.frame_time,
        frame_rate: 1.0 / bvh.frame_time,
        channels: channel_count,
        joints: joint_reports,
    }
}

/// The widest joint label the text report pads to; longer ones push their ranges right.
const MAX_LABEL_WIDTH: usize = 48;

/// The deepest indentation the text report draws; deeper joints say their depth instead.
const MAX_INDENT_DEPTH: usize = 16;

/// A joint's name indented by its depth in the tree (`[depth N]` past [`MAX_INDENT_DEPTH`], so a
/// chain of any depth prints in bounded width).
fn tree_label(joint: &JointReport) -> String {
    let indent = "  ".repeat(joint.depth.min(MAX_INDENT_DEPTH));
    if joint.depth > MAX_INDENT_DEPTH {
        format!("{indent}[depth {}] {}", joint.depth, joint.name)
    } else {
        format!("{indent}{}", joint.name)
    }
}

/// Writes the report as text: a summary, then the joint tree with each rotation channel's range.
pub fn print_text(report: &Report, out: &mut impl Write) -> std::io::Result<()> {
    writeln!(out, "{}", report.file)?;
    writeln!(
        out,
        "  {} frames at {:.2} fps (frame time {:.7} s, {:.2} s long), {} joints, {} channels",
        report.frames,
        report.frame_rate,
        report.frame_time,
        report.frames as f64 * report.frame_time,
        report.joints.len(),
        report.channels
    )?;
    writeln!(out, "  joint tree, rotation channel ranges in degrees:")?;
    let labels: Vec<String> = report.joints.iter().map(tree_label).collect();
    let name_width = labels
        .iter()
        .map(|l| l.chars().count())
        .max()
        .unwrap_or(0)
        .min(MAX_LABEL_WIDTH);
    for (joint, label) in report.joints.iter().zip(&labels) {
        let padding = name_width.saturating_sub(label.chars().count());
        write!(out, "  {label}{}", " ".repeat(padding))?;
        for range in &joint.ranges {
            let is_rotation = matches!(
                Channel::from_name(&range.channel),
                Some(Channel::Rotation(_))
            );
            if is_rotation {
                let axis = &range.channel[..1];
                match (range.min, range.max) {
                    (Some(min), Some(max)) => write!(out, "  {axis} [{min:8.2}, {max:8.2}]")?,
                    _ => write!(out, "  {axis} [{:>8}, {:>8}]", "-", "-")?,
                }
            }
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Runs `jointlimits inspect`.
pub fn run(file: &Path, json: bool) -> Result<()> {
    let progress = crate::progress::Progress::spinner(&format!("reading {}", file.display()));
    let bvh = read_bvh_file(file).context("cannot inspect the clip")?;
    drop(progress);
    let report = report(&file.display().to_string(), &bvh);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        print_text(&report, &mut out)?;
    }
    Ok(())
}
