//! A crowd scene from the CMU capture: characters of the DAZ skeleton (43 joints) each playing
//! one of its four clips from its own starting frame, every joint turned by a random rotation of
//! up to `noise` radians (the perturbation a blend, a layer or a pose generator adds). Shared by
//! the crowd bench and the crowd example.

use std::path::Path;

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, fit_skeleton_limits};
use jointlimits::{Motion, Skeleton, SkeletonLimits};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::SplitMix;

/// The clips of the DAZ skeleton, relative to the fixture folder.
pub const CLIPS: [&str; 4] = [
    "cmu_daz/indian_13.bvh",
    "cmu_daz/martial_04.bvh",
    "cmu_daz/martial_07.bvh",
    "cmu_daz/salsa_10.bvh",
];

/// The skeleton and the clips its characters play.
pub struct Scene {
    /// The shared skeleton.
    pub skeleton: Skeleton,
    /// The clips.
    pub clips: Vec<Motion>,
}

impl Scene {
    /// Reads the clips from `mocap` (the fixture folder).
    pub fn load(mocap: &Path) -> Scene {
        let mut skeleton = None;
        let mut clips = Vec::new();
        for clip in CLIPS {
            let bvh = read_bvh_file(mocap.join(clip)).unwrap_or_else(|e| panic!("{clip}: {e}"));
            let names = |s: &Skeleton| {
                s.joints()
                    .iter()
                    .map(|j| j.name.clone())
                    .collect::<Vec<_>>()
            };
            if let Some(first) = &skeleton {
                assert_eq!(
                    names(first),
                    names(&bvh.skeleton),
                    "{clip}: another skeleton"
                );
            }
            clips.push(bvh.to_motion());
            skeleton.get_or_insert(bvh.skeleton);
        }
        Scene {
            skeleton: skeleton.expect("at least one clip"),
            clips,
        }
    }

    /// Joints per character.
    pub fn joint_count(&self) -> usize {
        self.skeleton.len()
    }

    /// Limits fitted on every clip with `options`.
    pub fn fit(&self, options: &FitOptions) -> SkeletonLimits {
        let clips: Vec<&Motion> = self.clips.iter().collect();
        fit_skeleton_limits(&self.skeleton, &clips, options, &|_| {}).expect("the clips fit")
    }

    /// Frame `frame` of `characters` characters (character-major local rotations): character `c`
    /// plays clip `c mod 4` from its own start, each joint turned by up to `noise` radians.
    pub fn frame(&self, characters: usize, frame: usize, noise: f32, seed: u64) -> Vec<Quat> {
        let joints = self.joint_count();
        let mut rng = SplitMix(seed ^ (frame as u64).wrapping_mul(0x9E37_79B9));
        let mut poses = Vec::with_capacity(characters * joints);
        for c in 0..characters {
            let clip = &self.clips[c % self.clips.len()];
            let at = (c * 7919 + frame) % clip.frame_count();
            for &q in clip.frame_rotations(at) {
                let axis = Vec3::new(rng.next_signed(), rng.next_signed(), rng.next_signed());
                let turn =
                    Quat::from_axis_angle(axis.normalize_or(Vec3::X), noise * rng.next_signed());
                poses.push(q * turn);
            }
        }
        poses
    }
}
