//! Limiting a crowd: many characters of one skeleton, frame after frame, on all cores.
//!
//! A [`Crowd`] is a [`crate::Limiter`] per character, and gives the same output bit for bit: each
//! character and joint keeps its own history under the stream semantics of [`crate::limiter`].
//! Inside, the characters are split into chunks that run in parallel (rayon: the current thread
//! pool, so `pool.install(|| crowd.limit_frame(..))` picks the cores), and within a chunk the
//! characters go [`LANES`] at a time through every joint in order (parents first), so a lane's
//! poses and histories stay in cache. Nothing is allocated per frame.
//!
//! - Full-space boxes and ellipsoids go through a lane kernel that makes the one-at-a-time path's
//!   operations in its order ([`crate::rotation::product`],
//!   [`crate::rotation::short_scaled_angle_axis`], the shapes' own tests and Newton steps), so
//!   its answers are that path's bits. A lane keeps the kernel's answer where the stream takes the
//!   stateless nearest (no history, inside, or continuing in the nearest's cover) and the scalar
//!   step runs for the rest (a switch of cover, or a long cover that may be nearer).
//! - Full-space polytopes, swing-twist limits, swing cones and spherical ellipses (as the
//!   swing-twist ellipsoids they are), lookup tables and reach cones take a conservative lane
//!   test ([`SurelyInside`]): it passes the rotations that are allowed by a margin, and only the
//!   rest take the scalar path. A passed rotation's history is the input itself, measured only
//!   if a later frame needs it. (A path-aware crowd sends every rotation of a table through the
//!   scalar path, which measures an allowed twist on the last frame's turn.) Euler ranges,
//!   hinges and coupled limits take the scalar path throughout, except that
//!   [`Crowd::with_proven_cells`] lets the rotations of Euler ranges that lie in cells proven
//!   allowed skip it.
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

use std::sync::Arc;

use glam::{Quat, Vec4};
use rayon::prelude::*;

use crate::batch::{LANES, SurelyInside};
use crate::contract::{LimitContext, RotationLimit};
use crate::joint_limit::{JointLimit, Limited};
use crate::limiter::{DEFAULT_SWITCH_MARGIN, stream_step, switch_margin};
use crate::prepared::proven_cells;
use crate::rotation_cells::InsideCells;

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
    /// Whether the limit has lanes that give the one-at-a-time path's bits
    /// ([`JointLimit::has_exact_lanes`]).
    exact: bool,
    /// Whether an allowed rotation may be remembered as the input, measured when needed (not in
    /// a path-aware stream that measures the twist on the last frame's turn).
    remembers_inputs: bool,
    /// Cells of local rotations proven allowed, for a joint with no lane test
    /// ([`Crowd::with_proven_cells`]).
    cells: Option<Arc<InsideCells>>,
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
                exact: limit.as_ref().is_some_and(JointLimit::has_exact_lanes),
                limit,
                parent: None,
                remembers_inputs: true,
                cells: None,
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

    /// The same crowd with the cells of rotations each joint without a lane test surely allows
    /// proven once ([`crate::prepared::PreparedLimit`]: the authored Euler ranges), so that its rotations in them skip the exact test as a lane
    /// test's do: the same output, bit for bit. Proving takes a fraction of a second per joint
    /// on two cores and about half a megabyte per joint.
    pub fn with_proven_cells(mut self) -> Crowd {
        for joint in &mut self.joints {
            if joint.lanes.is_none() && !joint.exact && joint.cells.is_none() {
                joint.cells = joint.limit.as_ref().and_then(proven_cells).map(Arc::new);
            }
        }
        self
    }

    /// The same crowd correcting path-aware where a kind can ([`crate::Limiter::with_path_aware`]).
    pub fn with_path_aware(mut self, path_aware: bool) -> Crowd {
        self.path_aware = path_aware;
        for joint in &mut self.joints {
            // A path-aware stream measures an allowed input's twist on the turn nearest the last
            // frame's, which a history kept as the input (measured stateless when needed) would
            // lose: such joints take the scalar step for every rotation.
            let corrects_path_aware = joint
                .limit
                .as_ref()
                .is_some_and(JointLimit::corrects_path_aware);
            joint.remembers_inputs = !(path_aware && corrects_path_aware);
            joint.lanes = match &joint.limit {
                Some(limit) if joint.remembers_inputs => SurelyInside::of(limit),
                _ => None,
            };
        }
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
        self.limit_frame_knowing(poses, |_| false)
    }

    /// [`Crowd::limit_frame`], told which slots (`c · J + j`) another evaluator has proven
    /// allowed (a GPU reading [`crate::rotation_cells::InsideCells`]): those are kept as they
    /// are with no test, and remembered as [`Crowd::limit_frame`] remembers an allowed rotation,
    /// so the output is the same as long as every slot `surely_allowed` names is allowed. (A
    /// path-aware crowd tests the slots of joints it measures on the last frame's turn as
    /// usual.)
    ///
    /// # Panics
    /// If `poses.len()` is not characters × joints.
    pub fn limit_frame_knowing(
        &mut self,
        poses: &mut [Quat],
        surely_allowed: impl Fn(usize) -> bool + Sync,
    ) -> usize {
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
            .enumerate()
            .map(|(index, ((poses, remembered), memory))| {
                let known = Known {
                    first_slot: index * task,
                    surely_allowed: &surely_allowed,
                };
                settings.limit_characters(Histories { remembered, memory }, poses, &known)
            })
            .sum()
    }
}

/// The slots a caller has proven allowed, for one task's slots.
struct Known<'a, F> {
    /// The task's first slot in the frame.
    first_slot: usize,
    surely_allowed: &'a F,
}

impl<F: Fn(usize) -> bool> Known<'_, F> {
    /// Whether the task's slot `at` is known to be allowed.
    #[inline(always)]
    fn allowed(&self, at: usize) -> bool {
        (self.surely_allowed)(self.first_slot + at)
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
    fn limit_characters<F: Fn(usize) -> bool>(
        &self,
        histories: Histories,
        poses: &mut [Quat],
        known: &Known<F>,
    ) -> usize {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been checked for AVX2.
            return unsafe { self.limit_characters_avx2(histories, poses, known) };
        }
        self.limit_characters_portable(histories, poses, known)
    }

    /// [`Settings::limit_characters`] compiled for AVX2 (the same operations, so the same bits).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn limit_characters_avx2<F: Fn(usize) -> bool>(
        &self,
        histories: Histories,
        poses: &mut [Quat],
        known: &Known<F>,
    ) -> usize {
        self.limit_characters_portable(histories, poses, known)
    }

    #[inline(always)]
    fn limit_characters_portable<F: Fn(usize) -> bool>(
        &self,
        mut histories: Histories,
        poses: &mut [Quat],
        known: &Known<F>,
    ) -> usize {
        let joint_count = self.joints.len();
        let characters = poses.len() / joint_count;
        let mut outside = 0;
        // Lanes of characters, each through every joint in order (parents before children): a
        // lane's poses and histories stay in the nearest cache while its joints are limited.
        for first in (0..characters).step_by(LANES) {
            // The next lane's poses and histories, on their way to the cache while this one works.
            let next = ((first + LANES) * joint_count).min(poses.len())
                ..((first + 2 * LANES) * joint_count).min(poses.len());
            prefetch(&poses[next.clone()]);
            prefetch(&histories.remembered[next.clone()]);
            prefetch(&histories.memory[next]);
            for (joint, crowd_joint) in self.joints.iter().enumerate() {
                let Some(limit) = &crowd_joint.limit else {
                    continue;
                };
                let group = Group {
                    joint,
                    joint_count,
                    first,
                    count: LANES.min(characters - first),
                };
                outside += if crowd_joint.exact {
                    self.limit_group_exactly(limit, &group, &mut histories, poses)
                } else {
                    self.limit_group(crowd_joint, limit, &group, &mut histories, poses, known)
                };
            }
        }
        outside
    }

    /// One group through the lane kernel that gives the one-at-a-time path's bits: a lane whose
    /// stream takes the stateless nearest (no history, inside, or continuing in the nearest's
    /// cover) keeps the lanes' answer; the rest take the scalar path.
    #[inline(always)]
    fn limit_group_exactly(
        &self,
        limit: &JointLimit,
        group: &Group,
        histories: &mut Histories,
        poses: &mut [Quat],
    ) -> usize {
        let exact = limit.limit_group_exactly(&group.gather(poses));
        if exact.all_inside() {
            for lane in 0..group.count {
                histories.remember_measured(group.slot(lane), exact.measured(lane));
            }
            return 0;
        }
        let mut outside = 0;
        for lane in 0..group.count {
            let at = group.slot(lane);
            if exact.known(lane) {
                if exact.inside(lane) {
                    histories.remember_measured(at, exact.measured(lane));
                    continue;
                }
                let nearest = exact.limited(lane);
                let continues = histories.previous(limit, at).is_none_or(|previous| {
                    limit
                        .region
                        .continues_as(exact.relative(lane), &nearest, previous)
                });
                if continues {
                    poses[at] = exact.output(lane);
                    histories.remember_measured(at, nearest.measured);
                    outside += 1;
                    continue;
                }
            }
            outside += self.step(limit, None, at, histories, poses);
        }
        outside
    }

    /// One group: rotations the conservative lane test passes are allowed (and unchanged);
    /// the rest take the scalar path.
    #[inline(always)]
    fn limit_group<F: Fn(usize) -> bool>(
        &self,
        crowd_joint: &CrowdJoint,
        limit: &JointLimit,
        group: &Group,
        histories: &mut Histories,
        poses: &mut [Quat],
        known: &Known<F>,
    ) -> usize {
        // What the caller knows first: a group it proved allowed whole needs no lane test.
        let mut known_allowed = [false; LANES];
        if crowd_joint.remembers_inputs {
            for (lane, known_lane) in known_allowed.iter_mut().take(group.count).enumerate() {
                *known_lane = known.allowed(group.slot(lane));
            }
        }
        let surely_inside = match (&crowd_joint.lanes, &crowd_joint.cells) {
            _ if known_allowed[..group.count].iter().all(|&k| k) => [true; LANES],
            (Some(lanes), _) => lanes.test(&group.gather(poses)),
            (None, Some(cells)) if crowd_joint.remembers_inputs => {
                let mut inside = [false; LANES];
                for (lane, inside) in inside.iter_mut().take(group.count).enumerate() {
                    *inside = cells.surely_allowed(poses[group.slot(lane)]);
                }
                inside
            }
            _ => [false; LANES],
        };
        let mut outside = 0;
        for (lane, (&allowed, &known_lane)) in surely_inside
            .iter()
            .zip(&known_allowed)
            .take(group.count)
            .enumerate()
        {
            let at = group.slot(lane);
            if allowed || known_lane {
                histories.remembered[at] = Vec4::from(poses[at]);
                histories.memory[at] = Memory::AllowedInput;
                continue;
            }
            // The parent was limited earlier in this loop, for every character.
            let parent = crowd_joint.parent.map(|p| poses[at - group.joint + p]);
            outside += self.step(limit, parent, at, histories, poses);
        }
        outside
    }

    /// The scalar stream step of slot `at`; returns 1 when it was outside.
    #[inline(never)]
    fn step(
        &self,
        limit: &JointLimit,
        parent: Option<Quat>,
        at: usize,
        histories: &mut Histories,
        poses: &mut [Quat],
    ) -> usize {
        let previous = histories.previous(limit, at);
        let (output, limited) = stream_step(
            limit,
            poses[at],
            previous,
            self.margin,
            self.path_aware,
            &LimitContext { parent },
        );
        poses[at] = output;
        histories.remember(at, &limited);
        usize::from(!limited.inside)
    }
}

/// Asks for `data` to be brought into the second-level cache, one cache line at a time; a hint
/// with no effect on results.
#[inline(always)]
fn prefetch<T>(data: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        const LINE: usize = 64;
        let start = data.as_ptr().cast::<i8>();
        for offset in (0..std::mem::size_of_val(data)).step_by(LINE) {
            // SAFETY: the address lies within `data`; a prefetch reads nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T1>(start.add(offset)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = data;
}

/// One joint of up to [`LANES`] consecutive characters of a task.
struct Group {
    joint: usize,
    joint_count: usize,
    first: usize,
    count: usize,
}

impl Group {
    /// The slot of the group's `lane` in the task's poses.
    #[inline(always)]
    fn slot(&self, lane: usize) -> usize {
        (self.first + lane) * self.joint_count + self.joint
    }

    /// The group's rotations, padded with the identity.
    #[inline(always)]
    fn gather(&self, poses: &[Quat]) -> [Quat; LANES] {
        let mut group = [Quat::IDENTITY; LANES];
        for (lane, rotation) in group.iter_mut().take(self.count).enumerate() {
            *rotation = poses[self.slot(lane)];
        }
        group
    }
}

impl Histories<'_> {
    /// Keeps this frame's result of slot `at` for the next.
    #[inline(always)]
    fn remember(&mut self, at: usize, limited: &Limited) {
        self.remember_measured(at, limited.measured);
    }

    /// Keeps this frame's [`Limited::measured`] of slot `at` for the next.
    #[inline(always)]
    fn remember_measured(&mut self, at: usize, measured: Vec4) {
        self.remembered[at] = measured;
        self.memory[at] = Memory::Measured;
    }

    /// The last frame's measurement at slot `at`, as a [`crate::Limiter`] would have kept it.
    #[inline(always)]
    fn previous(&self, limit: &JointLimit, at: usize) -> Option<Vec4> {
        match self.memory[at] {
            Memory::Nothing => None,
            Memory::Measured => Some(self.remembered[at]),
            Memory::AllowedInput => Some(self.measure_allowed_input(limit, at)),
        }
    }

    /// The measurement of the allowed input kept at slot `at` (out of line: only kinds without
    /// exact lanes keep inputs).
    #[inline(never)]
    fn measure_allowed_input(&self, limit: &JointLimit, at: usize) -> Vec4 {
        let input = Quat::from_vec4(self.remembered[at]);
        limit.limit_relative(limit.relative(input)).measured
    }
}
