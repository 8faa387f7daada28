//! `jointlimits demo`: the embedded default, runnable with no input files.

use anyhow::{Context, Result};
use jointlimits::humanoid::{HUMANOID_ORDER, humanoid_skeleton, range_of_motion_clip};
use jointlimits::{Axis, Skeleton};
use jointlimits_io::bvh::{Bvh, Channel, read_bvh_file, write_bvh_file};
use std::path::Path;

/// Frames per second of the generated clip.
const DEMO_FRAME_RATE: f64 = 30.0;

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
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the output folder {}", out.display()))?;
    let skeleton = humanoid_skeleton();
    let clip = range_of_motion_clip(DEMO_FRAME_RATE, 1.0);
    let bvh = Bvh::from_motion(&skeleton, &humanoid_channels(&skeleton), &clip)?;
    let path = out.join("range_of_motion.bvh");
    write_bvh_file(&path, &bvh)?;
    println!(
        "wrote {} ({} frames of the built-in humanoid's range of motion)",
        path.display(),
        bvh.frame_count()
    );
    let reread = read_bvh_file(&path)?;
    let report = crate::inspect::report(&path.display().to_string(), &reread);
    crate::inspect::print_text(&report, &mut std::io::stdout().lock())?;
    Ok(())
}
