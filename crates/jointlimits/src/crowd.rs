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
use crate::joint_limit::{JointLimit, LimitRegion::Full};
use crate::limiter::{DEFAULT_SWITCH_MARGIN, stream_step, switch_margin};
use crate::prepared::proven_cells;
use crate::rotation_cells::InsideCells;

/// Characters limited together by one task: enough work (hundreds of joints) that scheduling
/// costs little, few enough that two cores share a thousand characters evenly. A whole number
/// of lane groups, so that a task's histories are whole [`LaneHistories`].
const CHARACTERS_PER_TASK: usize = 128;

const _: () = assert!(CHARACTERS_PER_TASK.is_multiple_of(LANES));

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

/// The histories of one joint of [`LANES`] consecutive characters (a lane group), one array per
/// component: the lanes of a group write theirs as whole vectors, and the scalar step reads and
/// writes one lane.
#[derive(Clone, Copy, Debug)]
struct LaneHistories {
    /// Per component (`x, y, z, w`), per lane: the measurement or the allowed input.
    remembered: [[f32; LANES]; 4],
    /// Per lane: what `remembered` holds.
    memory: [Memory; LANES],
}

impl LaneHistories {
    /// Histories that remember nothing.
    const FORGOTTEN: LaneHistories = LaneHistories {
        remembered: [[0.0; LANES]; 4],
        memory: [Memory::Nothing; LANES],
    };

    /// What `lane` remembers.
    #[inline(always)]
    fn get(&self, lane: usize) -> Vec4 {
        let [x, y, z, w] = &self.remembered;
        Vec4::new(x[lane], y[lane], z[lane], w[lane])
    }

    /// Keeps `value` (a `memory`) for `lane`.
    #[inline(always)]
    fn set(&mut self, lane: usize, value: Vec4, memory: Memory) {
        let [x, y, z, w] = &mut self.remembered;
        (x[lane], y[lane], z[lane], w[lane]) = value.into();
        self.memory[lane] = memory;
    }
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
    /// Per lane group of characters (`c / LANES`), per joint: the group's histories, at
    /// `group · joints + joint`.
    histories: Vec<LaneHistories>,
    margin: f32,
    path_aware: bool,
}

impl Crowd {
    /// A crowd of `characters` characters of a skeleton whose joint `j` is limited by
    /// `limits[j]` (if any), with the default switch margin. What the limits' projections build
    /// on first use is built here ([`JointLimit::build_searches`]).
    ///
    /// # Panics
    /// If characters × joints overflows `usize` (the histories could never be allocated).
    pub fn new(limits: Vec<Option<JointLimit>>, characters: usize) -> Crowd {
        // Built now, not inside the parallel jobs of a frame.
        for limit in limits.iter().flatten() {
            limit.build_searches();
        }
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
        let groups = characters
            .div_ceil(LANES)
            .checked_mul(joints.len())
            .expect("characters × joints fits in memory");
        Crowd {
            joints,
            characters,
            histories: vec![LaneHistories::FORGOTTEN; groups],
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
        for group in &mut self.histories {
            group.memory = [Memory::Nothing; LANES];
        }
    }

    /// Forgets one character's history (a cut in its motion).
    ///
    /// # Panics
    /// If `character` is not below [`Crowd::characters`].
    pub fn reset_character(&mut self, character: usize) {
        assert!(
            character < self.characters,
            "character {character} of a crowd of {}",
            self.characters
        );
        let joints = self.joints.len();
        let (group, lane) = (character / LANES, character % LANES);
        for histories in &mut self.histories[group * joints..(group + 1) * joints] {
            histories.memory[lane] = Memory::Nothing;
        }
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
            .zip(
                self.histories
                    .par_chunks_mut(CHARACTERS_PER_TASK / LANES * joints),
            )
            .enumerate()
            .map(|(index, (poses, groups))| {
                let known = Known {
                    first_slot: index * task,
                    surely_allowed: &surely_allowed,
                };
                settings.limit_characters(Histories { groups }, poses, &known)
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

/// The histories of a task's characters: per lane group, per joint.
struct Histories<'a> {
    groups: &'a mut [LaneHistories],
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
            prefetch(&poses[next]);
            let next_groups = ((first / LANES + 1) * joint_count).min(histories.groups.len())
                ..((first / LANES + 2) * joint_count).min(histories.groups.len());
            prefetch(&histories.groups[next_groups]);
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
        let lanes = histories.group_mut(group);
        let [x, y, z] = exact.measured_lanes();
        if exact.all_inside() {
            // Every lane's history is its short cover's point, written as whole vectors (the
            // padding lanes past `count` belong to no character and are never read).
            lanes.remembered = [*x, *y, *z, [0.0; LANES]];
            lanes.memory = [Memory::Measured; LANES];
            return 0;
        }
        // Decided for all lanes at once: the lanes kept as they are, and the known lanes
        // outside whose stream takes the stateless nearest, having no history or one within 1
        // of this frame's point (the other cover then lies more than 2π − 1 away: the quick
        // answer of `surely_nearer_cover`, which `continues_as` gives full-space limits).
        let (kept, known) = (exact.kept_lanes(), exact.known_lanes());
        let [hx, hy, hz, hw] = &mut lanes.remembered;
        let mut settled = [false; LANES];
        for lane in 0..LANES {
            let (dx, dy, dz) = (x[lane] - hx[lane], y[lane] - hy[lane], z[lane] - hz[lane]);
            let near = (dx * dx + dy * dy) + dz * dz < 1.0;
            let (fresh, measured) = (
                lanes.memory[lane] == Memory::Nothing,
                lanes.memory[lane] == Memory::Measured,
            );
            settled[lane] = known[lane] & !kept[lane] & (fresh | (measured & near));
        }
        // Their histories are their points, blended in as whole vectors.
        for lane in 0..LANES {
            if kept[lane] | settled[lane] {
                (hx[lane], hy[lane], hz[lane], hw[lane]) = (x[lane], y[lane], z[lane], 0.0);
                lanes.memory[lane] = Memory::Measured;
            }
        }
        let moved = group.lanes_where(|lane| settled[lane]);
        for lane in each_lane(moved) {
            poses[group.slot(lane)] = exact.output(lane);
        }
        let Full(full) = &limit.region else {
            unreachable!("exact lanes are for full-space limits");
        };
        let mut outside = moved.count_ones() as usize;
        for lane in each_lane(group.lanes_where(|lane| !kept[lane] & !settled[lane])) {
            if exact.known(lane) {
                let lanes = histories.group_mut(group);
                let nearest = exact.limited(lane);
                let continues = previous(lanes, limit, lane).is_none_or(|previous| {
                    full.continues_as(exact.relative(lane), &nearest, previous)
                });
                if continues {
                    poses[group.slot(lane)] = exact.output(lane);
                    lanes.set(lane, nearest.measured, Memory::Measured);
                    outside += 1;
                    continue;
                }
            }
            outside += self.step(limit, None, group, lane, histories, poses);
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
        let inputs = group.gather(poses);
        let surely_inside = match (&crowd_joint.lanes, &crowd_joint.cells) {
            _ if known_allowed[..group.count].iter().all(|&k| k) => [true; LANES],
            (Some(lanes), _) => lanes.test(&inputs),
            (None, Some(cells)) if crowd_joint.remembers_inputs => {
                let mut inside = [false; LANES];
                for (lane, inside) in inside.iter_mut().take(group.count).enumerate() {
                    *inside = cells.surely_allowed(inputs[lane]);
                }
                inside
            }
            _ => [false; LANES],
        };
        // The passed lanes remember their inputs, blended in as whole vectors (the padding
        // lanes past `count` belong to no character and are never read); only the others go
        // one by one, so no branch asks about every lane.
        let passed: [bool; LANES] = std::array::from_fn(|lane| {
            (surely_inside[lane] | known_allowed[lane]) & (lane < group.count)
        });
        let lanes = histories.group_mut(group);
        let [hx, hy, hz, hw] = &mut lanes.remembered;
        for lane in 0..LANES {
            if passed[lane] {
                let q = inputs[lane];
                (hx[lane], hy[lane], hz[lane], hw[lane]) = (q.x, q.y, q.z, q.w);
                lanes.memory[lane] = Memory::AllowedInput;
            }
        }
        let mut outside = 0;
        for lane in each_lane(group.lanes_where(|lane| !passed[lane])) {
            let at = group.slot(lane);
            // The parent was limited earlier in this loop, for every character.
            let parent = crowd_joint.parent.map(|p| poses[at - group.joint + p]);
            outside += self.step(limit, parent, group, lane, histories, poses);
        }
        outside
    }

    /// The scalar stream step of `group`'s `lane`; returns 1 when it was outside.
    #[inline(never)]
    fn step(
        &self,
        limit: &JointLimit,
        parent: Option<Quat>,
        group: &Group,
        lane: usize,
        histories: &mut Histories,
        poses: &mut [Quat],
    ) -> usize {
        let at = group.slot(lane);
        let lanes = histories.group_mut(group);
        let previous = previous(lanes, limit, lane);
        let (output, limited) = stream_step(
            limit,
            poses[at],
            previous,
            self.margin,
            self.path_aware,
            &LimitContext { parent },
        );
        poses[at] = output;
        lanes.set(lane, limited.measured, Memory::Measured);
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

/// The lanes whose bits `mask` holds, lowest first.
#[inline(always)]
fn each_lane(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let lane = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            lane
        })
    })
}

/// One joint of up to [`LANES`] consecutive characters of a task.
struct Group {
    joint: usize,
    joint_count: usize,
    first: usize,
    count: usize,
}

impl Group {
    /// The group's lanes (below `count`) for which `wanted` holds, one bit each.
    #[inline(always)]
    fn lanes_where(&self, wanted: impl Fn(usize) -> bool) -> u64 {
        (0..self.count)
            .filter(|&lane| wanted(lane))
            .fold(0, |mask, lane| mask | 1 << lane)
    }

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
    /// The histories of `group`'s joint and characters.
    #[inline(always)]
    fn group_mut(&mut self, group: &Group) -> &mut LaneHistories {
        &mut self.groups[group.first / LANES * group.joint_count + group.joint]
    }
}

/// The last frame's measurement of `lane` of `histories` (a group at `limit`'s joint), as a
/// [`crate::Limiter`] would have kept it.
#[inline(always)]
fn previous(histories: &LaneHistories, limit: &JointLimit, lane: usize) -> Option<Vec4> {
    match histories.memory[lane] {
        Memory::Nothing => None,
        Memory::Measured => Some(histories.get(lane)),
        Memory::AllowedInput => Some(measure_allowed_input(limit, histories.get(lane))),
    }
}

/// The measurement of the allowed `input` a history kept (out of line: only kinds without exact
/// lanes keep inputs).
#[inline(never)]
fn measure_allowed_input(limit: &JointLimit, input: Vec4) -> Vec4 {
    let input = Quat::from_vec4(input);
    limit.limit_relative(limit.relative(input)).measured
}
