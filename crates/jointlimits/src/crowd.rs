//! Limiting a crowd: many characters of one skeleton, frame after frame, on all cores.
//!
//! A [`Crowd`] is a [`crate::Limiter`] per character, and gives the same output bit for bit: each
//! character and joint keeps its own history under the stream semantics of [`crate::limiter`].
//! Inside, the characters are split into chunks that run in parallel (rayon: the current thread
//! pool, so `pool.install(|| crowd.limit_frame(..))` picks the cores), and within a chunk each
//! joint goes through its characters [`LANES`] at a time: a conservative lane test
//! ([`SurelyInside`]) passes the rotations that are allowed by a margin, and only the rest take
//! the scalar path. A passed rotation's history is the input itself, measured only if a later
//! frame needs it, so the lanes never have to reproduce the scalar path's measurement. Nothing is
//! allocated per frame.
//!
//! ```
//! use glam::{Quat, Vec3};
//! use jointlimits::crowd::Crowd;
//! use jointlimits::shape::{BoxShape, Frame, Shape};
//! use jointlimits::{FullLimit, JointLimit, Limiter};
//!
//! // An elbow allowed to turn up to 0.5 rad about each axis.
//! let allowed = BoxShape { frame: Frame::IDENTITY, min: Vec3::splat(-0.5), max: Vec3::splat(0.5) };
//! let elbow = JointLimit {
//!     joint: "elbow".into(),
//!     reference: Quat::IDENTITY,
//!     region: FullLimit::new(Shape::Box(allowed)).into(),
//!     softening: None,
//! };
//! let limits = vec![None, Some(elbow)];
//! let (characters, joints) = (100, limits.len());
//! let mut crowd = Crowd::new(limits.clone(), characters);
//! let mut poses: Vec<Quat> = (0..characters * joints)
//!     .map(|i| Quat::from_rotation_x(0.02 * i as f32))
//!     .collect();
//! let mut one_by_one = poses.clone();
//! let outside = crowd.limit_frame(&mut poses);
//! assert!(outside > 0);
//! // The same as a limiter per character.
//! for character in one_by_one.chunks_mut(joints) {
//!     Limiter::new(limits.clone()).limit_pose(character);
//! }
//! assert_eq!(poses, one_by_one);
//! ```

use glam::{Quat, Vec4};
use rayon::prelude::*;

use crate::batch::{LANES, SurelyInside};
use crate::contract::LimitContext;
use crate::joint_limit::JointLimit;
use crate::limiter::{DEFAULT_SWITCH_MARGIN, stream_step, switch_margin};

/// Characters limited together by one task: enough work (hundreds of joints) that scheduling
/// costs little, few enough that two cores share a thousand characters evenly.
const CHARACTERS_PER_TASK: usize = 128;

/// What a stream remembers of a character's joint from the last frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Memory {
    /// Nothing: the first frame, or after a reset.
    Nothing,
    /// The last frame's [`crate::Limited::measured`].
    Measured,
    /// The last frame's input, which was allowed: its measurement is made when it is needed.
    AllowedInput,
}

/// One joint's limit and its lane test.
#[derive(Clone, Debug)]
struct CrowdJoint {
    limit: Option<JointLimit>,
    lanes: Option<SurelyInside>,
    /// The joint's parent, for a limit coupled to it.
    parent: Option<usize>,
}

/// Limits the poses of many characters of one skeleton every frame (module docs).
#[derive(Clone, Debug)]
pub struct Crowd {
    joints: Vec<CrowdJoint>,
    characters: usize,
    /// Per character and joint (the poses' order): the measurement or the allowed input.
    remembered: Vec<Vec4>,
    /// Per character and joint: what `remembered` holds.
    memory: Vec<Memory>,
    margin: f32,
    path_aware: bool,
}

impl Crowd {
    /// A crowd of `characters` characters of a skeleton whose joint `j` is limited by
    /// `limits[j]` (if any), with the default switch margin.
    ///
    /// # Panics
    /// If characters × joints overflows `usize` (the histories could never be allocated).
    pub fn new(limits: Vec<Option<JointLimit>>, characters: usize) -> Crowd {
        let joints: Vec<CrowdJoint> = limits
            .into_iter()
            .map(|limit| CrowdJoint {
                lanes: limit.as_ref().and_then(SurelyInside::of),
                limit,
                parent: None,
            })
            .collect();
        let slots = characters
            .checked_mul(joints.len())
            .expect("characters × joints fits in memory");
        Crowd {
            joints,
            characters,
            remembered: vec![Vec4::ZERO; slots],
            memory: vec![Memory::Nothing; slots],
            margin: DEFAULT_SWITCH_MARGIN,
            path_aware: false,
        }
    }

    /// The same crowd knowing each joint's parent ([`crate::Limiter::with_parents`]).
    pub fn with_parents(mut self, parents: &[Option<usize>]) -> Crowd {
        for (joint, parent) in self.joints.iter_mut().zip(parents) {
            joint.parent = *parent;
        }
        self
    }

    /// The same crowd with another switch margin ([`crate::Limiter::with_margin`]).
    pub fn with_margin(mut self, margin: f32) -> Crowd {
        self.margin = switch_margin(margin);
        self
    }

    /// The same crowd correcting path-aware where a kind can ([`crate::Limiter::with_path_aware`]).
    pub fn with_path_aware(mut self, path_aware: bool) -> Crowd {
        self.path_aware = path_aware;
        self
    }

    /// The number of characters.
    pub fn characters(&self) -> usize {
        self.characters
    }

    /// The number of joints per character.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Forgets every character's history (a cut for the whole crowd).
    pub fn reset(&mut self) {
        self.memory.fill(Memory::Nothing);
    }

    /// Forgets one character's history (a cut in its motion).
    ///
    /// # Panics
    /// If `character` is not below [`Crowd::characters`].
    pub fn reset_character(&mut self, character: usize) {
        let joints = self.joints.len();
        self.memory[character * joints..(character + 1) * joints].fill(Memory::Nothing);
    }

    /// Limits one frame of every character in place: `poses[c · J + j]` is character `c`'s local
    /// rotation of joint `j` (J = [`Crowd::joint_count`]). Returns how many joints were outside.
    ///
    /// # Panics
    /// If `poses.len()` is not characters × joints.
    pub fn limit_frame(&mut self, poses: &mut [Quat]) -> usize {
        let joints = self.joints.len();
        assert_eq!(
            poses.len(),
            self.characters * joints,
            "a crowd frame holds characters × joints rotations"
        );
        if joints == 0 {
            return 0;
        }
        let task = CHARACTERS_PER_TASK * joints;
        let settings = Settings {
            joints: &self.joints,
            margin: self.margin,
            path_aware: self.path_aware,
        };
        poses
            .par_chunks_mut(task)
            .zip(self.remembered.par_chunks_mut(task))
            .zip(self.memory.par_chunks_mut(task))
            .map(|((poses, remembered), memory)| {
                settings.limit_characters(Histories { remembered, memory }, poses)
            })
            .sum()
    }
}

/// What every task reads.
#[derive(Clone, Copy)]
struct Settings<'a> {
    joints: &'a [CrowdJoint],
    margin: f32,
    path_aware: bool,
}

/// The histories of a task's characters, in the poses' order.
struct Histories<'a> {
    remembered: &'a mut [Vec4],
    memory: &'a mut [Memory],
}

impl Settings<'_> {
    /// Limits the characters whose poses are `poses` (character-major), joint by joint.
    fn limit_characters(&self, histories: Histories, poses: &mut [Quat]) -> usize {
        let joint_count = self.joints.len();
        let characters = poses.len() / joint_count;
        let mut outside = 0;
        for (joint, crowd_joint) in self.joints.iter().enumerate() {
            let Some(limit) = &crowd_joint.limit else {
                continue;
            };
            let slot = |character: usize| character * joint_count + joint;
            for first in (0..characters).step_by(LANES) {
                let count = LANES.min(characters - first);
                let surely_inside = match &crowd_joint.lanes {
                    Some(lanes) => {
                        let mut group = [Quat::IDENTITY; LANES];
                        for (lane, rotation) in group.iter_mut().take(count).enumerate() {
                            *rotation = poses[slot(first + lane)];
                        }
                        lanes.test(&group)
                    }
                    None => [false; LANES],
                };
                for (lane, &allowed) in surely_inside.iter().take(count).enumerate() {
                    let at = slot(first + lane);
                    if allowed {
                        histories.remembered[at] = Vec4::from(poses[at]);
                        histories.memory[at] = Memory::AllowedInput;
                        continue;
                    }
                    let previous = histories.previous(limit, at);
                    // The parent was limited earlier in this loop, for every character.
                    let context = LimitContext {
                        parent: crowd_joint
                            .parent
                            .map(|p| poses[(first + lane) * joint_count + p]),
                    };
                    let (output, limited) = stream_step(
                        limit,
                        poses[at],
                        previous,
                        self.margin,
                        self.path_aware,
                        &context,
                    );
                    poses[at] = output;
                    histories.remembered[at] = limited.measured;
                    histories.memory[at] = Memory::Measured;
                    outside += usize::from(!limited.inside);
                }
            }
        }
        outside
    }
}

impl Histories<'_> {
    /// The last frame's measurement at slot `at`, as a [`crate::Limiter`] would have kept it.
    #[inline]
    fn previous(&self, limit: &JointLimit, at: usize) -> Option<Vec4> {
        match self.memory[at] {
            Memory::Nothing => None,
            Memory::Measured => Some(self.remembered[at]),
            Memory::AllowedInput => {
                let input = Quat::from_vec4(self.remembered[at]);
                Some(limit.limit_relative(limit.relative(input)).measured)
            }
        }
    }
}
