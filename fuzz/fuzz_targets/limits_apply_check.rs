//! Any limits file text: it is refused with an error, or it loads and then limiting a small clip
//! of the built-in humanoid (what `apply` does), measuring it (what `check` does) and writing the
//! result as BVH all stay finite, never panic, and the written clip reads back.
#![no_main]

use glam::Quat;
use jointlimits::humanoid::{HUMANOID_ORDER, humanoid_skeleton, range_of_motion_clip};
use jointlimits::{Axis, Motion, Skeleton};
use jointlimits_io::bvh::{Bvh, Channel, parse_bvh_named};
use jointlimits_io::parse_limits;
use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

/// The humanoid, a short clip of it as a file holds it, and its quaternions.
struct Clip {
    skeleton: Skeleton,
    file: Bvh,
    motion: Motion,
}

fn clip() -> &'static Clip {
    static CLIP: OnceLock<Clip> = OnceLock::new();
    CLIP.get_or_init(|| {
        let skeleton = humanoid_skeleton();
        let full = range_of_motion_clip(10.0, 1.3);
        // Every fourth frame keeps the clip short and its poses varied.
        let frames: Vec<usize> = (0..full.frame_count()).step_by(4).collect();
        let mut motion = Motion::still(&skeleton, frames.len(), full.frame_time);
        for (i, &f) in frames.iter().enumerate() {
            let n = skeleton.len();
            motion.rotations[i * n..(i + 1) * n].copy_from_slice(full.frame_rotations(f));
            motion.translations[i * n..(i + 1) * n].copy_from_slice(full.frame_translations(f));
        }
        let rotations: Vec<Channel> = HUMANOID_ORDER.axes().map(Channel::Rotation).to_vec();
        let channels: Vec<Vec<Channel>> = skeleton
            .joints()
            .iter()
            .map(|joint| {
                let mut c = Vec::new();
                if joint.parent.is_none() {
                    c.extend([Axis::X, Axis::Y, Axis::Z].map(Channel::Position));
                }
                c.extend(rotations.iter().copied());
                c
            })
            .collect();
        let built = Bvh::from_motion(&skeleton, &channels, &motion).unwrap();
        let mut text = Vec::new();
        built.write(&mut text).unwrap();
        let file = parse_bvh_named(&text, "humanoid.bvh").unwrap();
        let motion = file.to_motion();
        Clip {
            skeleton,
            file,
            motion,
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(limits) = parse_limits(text, "fuzz.json") else {
        return;
    };
    let clip = clip();
    let _ = limits.skeleton_differences(&clip.skeleton);
    let Ok(mut limiter) = limits.bind(&clip.skeleton) else {
        return;
    };
    let n = clip.skeleton.len();
    let mut motion = clip.motion.clone();
    for frame in 0..motion.frame_count() {
        let rotations = &mut motion.rotations[frame * n..(frame + 1) * n];
        limiter.limit_pose(rotations);
        for q in rotations.iter() {
            assert!(q.is_finite() && (q.length() - 1.0).abs() < 1e-3, "{q}");
        }
    }
    let per_joint: Vec<_> = (0..n).map(|j| limiter.joint_limit(j)).collect();
    for (j, limit) in per_joint.iter().enumerate() {
        let Some(limit) = limit else { continue };
        for frame in 0..motion.frame_count() {
            let before: Quat = clip.motion.frame_rotations(frame)[j];
            assert!(limit.violation(before).is_finite());
            let after = motion.frame_rotations(frame)[j];
            assert!(limit.violation(after).is_finite());
        }
    }
    let (written, _) = clip
        .file
        .with_allowed_motion(&motion, &per_joint)
        .expect("a finite limited clip can be written");
    let mut text = Vec::new();
    written.write(&mut text).unwrap();
    let again = parse_bvh_named(&text, "limited.bvh").expect("the limited clip reads back");
    for q in again.to_motion().rotations {
        assert!(q.is_finite());
    }
});
