//! `jointlimits plot`: pictures of limits, of clips inside them, and of what limiting changes.

use anyhow::{Context, Result, anyhow, bail};
use glam::{Quat, Vec3};
use jointlimits::{JointLimit, Motion, Skeleton, SkeletonLimits};
use jointlimits_io::atomic::write_atomically;
use jointlimits_plot::{Figure, LimitSpaceFigure, Overview, SwingChart, Timeline, to_png, to_svg};
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::bones::bone_axes;
use crate::inputs;
use crate::progress::Progress;
use crate::suggest::did_you_mean;

/// How `plot` takes its arguments, for hints.
const USAGE: &str = "jointlimits plot LIMITS.json [--clip CLIP.bvh...] --out DIR";

/// Which files each picture becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formats {
    /// PNG only.
    Png,
    /// SVG only.
    Svg,
    /// Both.
    Both,
}

/// `--format`: png, svg or both.
pub fn parse_formats(text: &str) -> Result<Formats, String> {
    match text {
        "png" => Ok(Formats::Png),
        "svg" => Ok(Formats::Svg),
        "both" => Ok(Formats::Both),
        _ => Err(format!(
            "unknown format {text:?}: expected png, svg or both{}",
            did_you_mean(text, &["png", "svg", "both"])
        )),
    }
}

/// Writes `figure` into `folder` as `stem.png` and/or `stem.svg`; returns the files written.
pub fn write_figure(
    figure: &impl Figure,
    folder: &Path,
    stem: &str,
    formats: Formats,
) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    if formats != Formats::Svg {
        let path = folder.join(format!("{stem}.png"));
        let bytes = to_png(figure).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        write_atomically(&path, |f| f.write_all(&bytes))
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    if formats != Formats::Png {
        let path = folder.join(format!("{stem}.svg"));
        let text = to_svg(figure).map_err(|e| anyhow!("{}: {e}", path.display()))?;
        write_atomically(&path, |f| f.write_all(text.as_bytes()))
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// `name` with anything but letters, digits, `-` and `_` replaced, at most 60 characters: safe
/// in a file name on every system.
fn safe_name(name: &str) -> String {
    name.chars()
        .take(60)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A file-name stem for a joint: its position (for order and uniqueness) and its safe name.
pub fn joint_stem(index: usize, name: &str) -> String {
    format!("{index:02}-{}", safe_name(name))
}

/// Every frame's local rotation of `joint` over `motions` of `skeleton`.
pub fn joint_samples(skeleton: Option<&Skeleton>, motions: &[&Motion], joint: &str) -> Vec<Quat> {
    let Some(index) = skeleton.and_then(|s| s.find(joint)) else {
        return Vec::new();
    };
    motions
        .iter()
        .flat_map(|m| (0..m.frame_count()).map(move |f| m.frame_rotations(f)[index]))
        .collect()
}

/// Pictures for `limits` and `motions` (of `skeleton`) into `folder`: the overview, a swing
/// chart and a limit-space figure for each joint in `chosen` (indices into `limits.joints`), and
/// a timeline per named clip of the joints in `timeline_joints` (or the most violating ones).
/// Returns the files written.
pub fn draw_pictures(
    limits: &SkeletonLimits,
    skeleton: Option<&Skeleton>,
    clips: &[(String, &Motion)],
    chosen: &[usize],
    timeline_joints: &[String],
    folder: &Path,
    formats: Formats,
) -> Result<Vec<PathBuf>> {
    let motions: Vec<&Motion> = clips.iter().map(|c| c.1).collect();
    let axes = bone_axes(limits, skeleton);
    let mut written = Vec::new();
    let samples: Vec<Vec<Quat>> = limits
        .joints
        .iter()
        .map(|l| joint_samples(skeleton, &motions, &l.joint))
        .collect();
    let overview_joints: Vec<(&JointLimit, Vec3, Vec<Quat>)> = limits
        .joints
        .iter()
        .enumerate()
        .map(|(i, l)| (l, axes[i], samples[i].clone()))
        .collect();
    let progress = Progress::bar(
        "drawing",
        (chosen.len() + 1 + clips.len()) as u64,
        "pictures",
    );
    progress.say("overview");
    let title = match clips.first() {
        Some((name, _)) => format!("joint limits, with {name}"),
        None => "joint limits".to_string(),
    };
    written.extend(write_figure(
        &Overview::new(&title, &overview_joints),
        folder,
        "overview",
        formats,
    )?);
    progress.step();
    for &index in chosen {
        let limit = &limits.joints[index];
        progress.say(&limit.joint);
        let stem = joint_stem(index, &limit.joint);
        let swing = SwingChart::new(limit, axes[index], &samples[index]);
        written.extend(write_figure(
            &swing,
            folder,
            &format!("{stem}-swing"),
            formats,
        )?);
        let space = LimitSpaceFigure::new(limit, axes[index], &samples[index]);
        written.extend(write_figure(
            &space,
            folder,
            &format!("{stem}-space"),
            formats,
        )?);
        progress.step();
    }
    if let Some(skeleton) = skeleton {
        let names: Vec<String> = skeleton.joints().iter().map(|j| j.name.clone()).collect();
        for (index, (name, motion)) in clips.iter().enumerate() {
            progress.say(name);
            let limiter = limits.bind(skeleton)?;
            let timeline = Timeline::new(
                &format!("{name}: violations before and after limiting"),
                limiter,
                &names,
                motion,
                timeline_joints,
            );
            let stem = format!("timeline-{index:02}-{}", safe_name(name));
            written.extend(write_figure(&timeline, folder, &stem, formats)?);
            progress.step();
        }
    }
    Ok(written)
}

/// What `jointlimits plot` was asked for.
pub struct PlotRequest<'a> {
    /// The limits file.
    pub limits: &'a Path,
    /// Clips whose samples and timelines to draw.
    pub clips: &'a [PathBuf],
    /// Joints to draw in detail (all when empty).
    pub joints: &'a [String],
    /// The folder to write into.
    pub out: &'a Path,
    /// PNG, SVG or both.
    pub formats: Formats,
    /// Use limits of another skeleton.
    pub allow_other_skeleton: bool,
}

/// Runs `jointlimits plot`.
pub fn run(request: &PlotRequest) -> Result<()> {
    let (limits, clips) = inputs::read_limits_and_clips(
        request.limits,
        request.clips,
        USAGE,
        request.allow_other_skeleton,
    )?;
    let chosen = inputs::chosen_joints(&limits, request.joints)
        .map_err(|e| anyhow!("{}: {e}", request.limits.display()))?;
    if std::fs::metadata(request.out).is_ok_and(|m| !m.is_dir()) {
        bail!("{} exists and is not a folder", request.out.display());
    }
    std::fs::create_dir_all(request.out)
        .with_context(|| format!("cannot create the folder {}", request.out.display()))?;
    let inputs: Vec<&Path> = std::iter::once(request.limits)
        .chain(request.clips.iter().map(PathBuf::as_path))
        .collect();
    inputs::ensure_folder_holds_no_input(request.out, &inputs)?;
    let named: Vec<(String, &Motion)> = match &clips {
        Some(clips) => clips
            .paths
            .iter()
            .zip(&clips.motions)
            .map(|(path, motion)| {
                let name = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into(),
                );
                (name, motion)
            })
            .collect(),
        None => Vec::new(),
    };
    let skeleton = clips.as_ref().map(|c| c.skeleton());
    let written = draw_pictures(
        &limits,
        skeleton,
        &named,
        &chosen,
        request.joints,
        request.out,
        request.formats,
    )?;
    println!(
        "wrote {} pictures to {}",
        written.len(),
        request.out.display()
    );
    Ok(())
}
