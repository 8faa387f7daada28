//! A serial chain of rotating joints in 3D, with optional limits, as the solvers see it.

use glam::{Quat, Vec3};
use thiserror::Error;

use crate::joint_limit::JointLimit;
use crate::rotation::{rotation_about, rotation_between, sanitize};
use crate::skeleton::{Pose, Skeleton};

/// How many turns of the aiming family [`Chain::aim_joint`] tries when a limit clamps a joint.
const AIM_FAMILY: usize = 4;

/// Why a chain could not be built.
#[derive(Debug, Error, PartialEq)]
pub enum ChainError {
    /// A chain needs at least one rotating joint.
    #[error("an IK chain needs at least two joints (a rotating joint and its end), got {0}")]
    TooShort(usize),
    /// Consecutive chain joints must be parent and child.
    #[error("joint {child:?} is not a child of {parent:?}, so they do not form a chain")]
    NotAChain {
        /// The joint expected to be the parent.
        parent: String,
        /// The joint that does not hang from it.
        child: String,
    },
    /// A joint index is out of range for the skeleton.
    #[error("joint index {0} is not in the skeleton")]
    NoSuchJoint(usize),
    /// A number is NaN or infinite.
    #[error("the chain's {0} is not finite")]
    NonFinite(&'static str),
    /// Lists of per-joint data must have one entry per rotating joint.
    #[error("expected {expected} {what}, got {got}")]
    WrongCount {
        /// What was counted.
        what: &'static str,
        /// The number of rotating joints.
        expected: usize,
        /// The number given.
        got: usize,
    },
}

/// A chain of `n` rotating joints ending in an end effector.
///
/// Joint `i` has a local rotation `L_i` (relative to joint `i−1`, or to the chain's base frame for
/// `i = 0`) and a bone `b_i`, the offset of the next joint (or of the end effector) in its own
/// frame. Forward kinematics: `W_i = W_{i−1}·L_i` with `W_{−1}` the base rotation, and
/// `p_{i+1} = p_i + W_i·b_i` with `p_0` the base position.
#[derive(Clone, Debug)]
pub struct Chain<'a> {
    base_position: Vec3,
    base_rotation: Quat,
    locals: Vec<Quat>,
    bones: Vec<Vec3>,
    lengths: Vec<f32>,
    weights: Vec<f32>,
    /// The joints before this one never turn in a solve: turning them would move the last
    /// pinned point (see [`Chain::first_free_joint`]).
    first_free: usize,
    limits: Vec<Option<&'a JointLimit>>,
    world: Vec<Quat>,
    positions: Vec<Vec3>,
    /// Per joint, the direction its last projection turned it back along (parent frame, see
    /// [`Chain::blocked_direction`]); zero when its limit did not bind.
    blocked: Vec<Vec3>,
    /// Buffers the solvers borrow (pass points, best rotations), kept to avoid allocating.
    scratch_points: Vec<Vec3>,
    scratch_best: Vec<Quat>,
    /// More rotation buffers for the polish of unreached solves and look-at (a start pose, a
    /// best pose, a saved pose).
    scratch_poses: [Vec<Quat>; 3],
}

impl<'a> Chain<'a> {
    /// A chain from its base frame, local rotations, bones and limits (one per rotating joint).
    /// Relaxation weights start at 1 for every joint.
    pub fn new(
        base_position: Vec3,
        base_rotation: Quat,
        locals: Vec<Quat>,
        bones: Vec<Vec3>,
        limits: Vec<Option<&'a JointLimit>>,
    ) -> Result<Chain<'a>, ChainError> {
        let n = locals.len();
        if n == 0 {
            return Err(ChainError::TooShort(1));
        }
        for (what, got) in [("bones", bones.len()), ("limits", limits.len())] {
            if got != n {
                return Err(ChainError::WrongCount {
                    what,
                    expected: n,
                    got,
                });
            }
        }
        let Some(base_rotation) = sanitize(base_rotation).filter(|_| base_position.is_finite())
        else {
            return Err(ChainError::NonFinite("base frame"));
        };
        if !locals.iter().all(|q| q.is_finite()) {
            return Err(ChainError::NonFinite("joint rotations"));
        }
        if !bones.iter().all(|b| b.is_finite()) {
            return Err(ChainError::NonFinite("bones"));
        }
        let locals: Vec<Quat> = locals.into_iter().map(Quat::normalize).collect();
        let mut chain = Chain {
            base_position,
            base_rotation,
            lengths: bones.iter().map(|b| b.length()).collect(),
            weights: vec![1.0; n + 1],
            first_free: 0,
            bones,
            locals,
            limits,
            world: vec![Quat::IDENTITY; n],
            positions: vec![Vec3::ZERO; n + 1],
            blocked: vec![Vec3::ZERO; n],
            scratch_points: Vec::with_capacity(n + 1),
            scratch_best: Vec::with_capacity(n),
            scratch_poses: std::array::from_fn(|_| Vec::with_capacity(n)),
        };
        chain.update();
        Ok(chain)
    }

    /// The chain `path[0] → … → path[last]` of `skeleton` in `pose`: the joints before the last
    /// rotate, the last is the end effector. `limits[j]` is skeleton joint `j`'s limit (a
    /// [`crate::Limiter`]'s list, or empty for none).
    pub fn from_skeleton(
        skeleton: &Skeleton,
        pose: &Pose,
        path: &[usize],
        limits: &'a [Option<JointLimit>],
    ) -> Result<Chain<'a>, ChainError> {
        if path.len() < 2 {
            return Err(ChainError::TooShort(path.len()));
        }
        let end = *path.last().unwrap_or(&0);
        let end_bone = pose
            .translations
            .get(end)
            .copied()
            .ok_or(ChainError::NoSuchJoint(end))?;
        Chain::from_skeleton_with_end(skeleton, pose, &path[..path.len() - 1], end_bone, limits)
    }

    /// The chain of the rotating `joints` (each the child of the one before) of `skeleton` in
    /// `pose`, ending in `end_bone`, a point in the last joint's frame (an aim axis for look-at,
    /// or a child's offset).
    pub fn from_skeleton_with_end(
        skeleton: &Skeleton,
        pose: &Pose,
        joints: &[usize],
        end_bone: Vec3,
        limits: &'a [Option<JointLimit>],
    ) -> Result<Chain<'a>, ChainError> {
        let all = skeleton.joints();
        if joints.is_empty() {
            return Err(ChainError::TooShort(1));
        }
        if let Some(&bad) = joints.iter().find(|&&j| j >= all.len()) {
            return Err(ChainError::NoSuchJoint(bad));
        }
        for pair in joints.windows(2) {
            if all[pair[1]].parent != Some(pair[0]) {
                return Err(ChainError::NotAChain {
                    parent: all[pair[0]].name.clone(),
                    child: all[pair[1]].name.clone(),
                });
            }
        }
        let global = skeleton.forward_kinematics(pose);
        let first = joints[0];
        let base_rotation = all[first]
            .parent
            .map_or(Quat::IDENTITY, |p| global.rotations[p]);
        let locals = joints.iter().map(|&j| pose.rotations[j]).collect();
        let mut bones: Vec<Vec3> = joints[1..].iter().map(|&j| pose.translations[j]).collect();
        bones.push(end_bone);
        let joint_limits = joints
            .iter()
            .map(|&j| limits.get(j).and_then(Option::as_ref))
            .collect();
        Chain::new(
            global.positions[first],
            base_rotation,
            locals,
            bones,
            joint_limits,
        )
    }

    /// Sets the relaxation weight of each point: `weights[i]` for joint `i`'s origin, the last one
    /// for the end effector (one more than joints). Negative and non-finite weights count as zero.
    ///
    /// Zero pins a joint, in every solver: no joint before the last pinned one turns (any turn of
    /// theirs would move it, and none would help the end effector, which only the joints beyond
    /// it can move), and the position passes run on the chain from it. The root is pinned
    /// whatever its weight, the end effector never (it is pulled to the target). The other
    /// weights shape the relaxation pass only.
    pub fn set_weights(&mut self, weights: &[f32]) -> Result<(), ChainError> {
        if weights.len() != self.weights.len() {
            return Err(ChainError::WrongCount {
                what: "weights (one per joint plus the end effector)",
                expected: self.weights.len(),
                got: weights.len(),
            });
        }
        for (slot, &w) in self.weights.iter_mut().zip(weights) {
            *slot = if w.is_finite() { w.max(0.0) } else { 0.0 };
        }
        let interior = 1..self.len();
        self.first_free = interior
            .rev()
            .find(|&i| self.weights[i] == 0.0)
            .unwrap_or(0);
        Ok(())
    }

    /// The number of rotating joints.
    pub fn len(&self) -> usize {
        self.locals.len()
    }

    /// Whether the chain has no joints (never true for a built chain).
    pub fn is_empty(&self) -> bool {
        self.locals.is_empty()
    }

    /// The local rotation of every joint.
    pub fn local_rotations(&self) -> &[Quat] {
        &self.locals
    }

    /// The world rotation of every joint.
    pub fn world_rotations(&self) -> &[Quat] {
        &self.world
    }

    /// The world position of every joint, then the end effector.
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// The end effector's world position.
    pub fn end_effector(&self) -> Vec3 {
        self.positions[self.len()]
    }

    /// Bone lengths.
    pub fn lengths(&self) -> &[f32] {
        &self.lengths
    }

    /// The relaxation weights (one per joint, then the end effector).
    pub fn weights(&self) -> &[f32] {
        &self.weights
    }

    /// The first joint a solve turns: the last pinned interior point (joint origin) of
    /// [`Chain::set_weights`], or 0 when none is pinned.
    pub fn first_free_joint(&self) -> usize {
        self.first_free
    }

    /// The sum of the bone lengths: how far the straight chain reaches.
    pub fn length(&self) -> f32 {
        self.lengths.iter().sum()
    }

    /// The joint's limit, if it has one.
    pub fn limit(&self, joint: usize) -> Option<&'a JointLimit> {
        self.limits[joint]
    }

    /// Replaces the local rotations (for example to restart from another pose) and recomputes
    /// the positions. Panics if the count differs.
    pub fn set_local_rotations(&mut self, locals: &[Quat]) {
        self.locals.copy_from_slice(locals);
        self.blocked.fill(Vec3::ZERO);
        self.update();
    }

    /// Moves the chain's base frame (for example with the body, frame after frame) and
    /// recomputes the positions; the local rotations are kept. A non-finite position or a
    /// rotation that is not finite and non-zero is refused and changes nothing.
    pub fn set_base(&mut self, position: Vec3, rotation: Quat) -> Result<(), ChainError> {
        let Some(rotation) = sanitize(rotation).filter(|_| position.is_finite()) else {
            return Err(ChainError::NonFinite("base frame"));
        };
        (self.base_position, self.base_rotation) = (position, rotation);
        self.update();
        Ok(())
    }

    /// Writes the local rotations back into `pose` for the skeleton joints `joints` (the rotating
    /// joints this chain was built from, in order).
    pub fn write_to(&self, pose: &mut Pose, joints: &[usize]) {
        for (&joint, &local) in joints.iter().zip(&self.locals) {
            pose.rotations[joint] = local;
        }
    }

    /// The largest angle (radians) between a joint's rotation and its projection onto its limit:
    /// zero when every limit holds.
    pub fn limit_violation(&self) -> f32 {
        (0..self.locals.len())
            .filter_map(|i| {
                let local = self.locals[i];
                self.limits[i].map(|l| {
                    crate::rotation::angle_between(local, l.limit_in(local, &self.context(i)))
                })
            })
            .fold(0.0, f32::max)
    }

    /// What joint `i`'s limit may depend on: its parent's local rotation, which is the joint
    /// before it in the chain (the chain's first joint's parent is not part of the solve, and is
    /// not known).
    #[inline]
    fn context(&self, i: usize) -> crate::LimitContext {
        crate::LimitContext {
            parent: i.checked_sub(1).map(|p| self.locals[p]),
        }
    }

    /// Forward kinematics from the base: every world rotation and position.
    pub fn update(&mut self) {
        let mut parent = self.base_rotation;
        self.positions[0] = self.base_position;
        for i in 0..self.locals.len() {
            parent *= self.locals[i];
            self.world[i] = parent;
            self.positions[i + 1] = self.positions[i] + parent * self.bones[i];
        }
    }

    /// The world rotation of joint `i`'s parent frame.
    #[inline]
    pub(crate) fn parent_world(&self, i: usize) -> Quat {
        if i == 0 {
            self.base_rotation
        } else {
            self.world[i - 1]
        }
    }

    /// Projects joint `i`'s local rotation onto its limit (when `use_limits`), and records the
    /// direction it was turned back along (see [`Chain::blocked_direction`]).
    ///
    /// The projection is the stateless nearest of the limit contract, [`JointLimit::limit`], so
    /// that every pose a solve returns passes the same check. (A solve makes jumps, aiming
    /// alternatives and restarts, across which the side of a previous iteration means nothing.)
    #[inline]
    pub(crate) fn limit_joint(&mut self, i: usize, use_limits: bool) {
        self.blocked[i] = Vec3::ZERO;
        if let Some(limit) = self.limits[i].filter(|_| use_limits) {
            let wanted = self.locals[i];
            let allowed = limit.limit_in(wanted, &self.context(i));
            if allowed != wanted {
                self.locals[i] = allowed;
                // `wanted = exp(δ)·allowed`: δ (parent frame) points out of the limit.
                let back = wanted * allowed.conjugate();
                self.blocked[i] = if back.w < 0.0 {
                    -back.xyz()
                } else {
                    back.xyz()
                };
            }
        }
    }

    /// The world direction along which joint `i`'s limit stopped it the last time it was
    /// projected: a turn of the joint about an axis with a positive component along it pushes
    /// further out of the limit. Zero when the limit did not bind (or there is none). Not unit
    /// length: its size is `sin` of half the angle the projection turned the joint back by.
    #[inline]
    pub(crate) fn blocked_direction(&self, i: usize) -> Vec3 {
        self.parent_world(i) * self.blocked[i]
    }

    /// Re-aims the chain at `points` (one per free joint plus the end effector, as a position
    /// pass left them; see [`Chain::first_free_joint`]): each bone turns by the shortest arc from its current
    /// direction to the direction from its (actual) base to the next point, which keeps its
    /// twist; each joint is then limited, and the joints below aim from where it really ended up.
    pub(crate) fn follow_points(&mut self, points: &[Vec3], use_limits: bool) {
        let mut parent = self.parent_world(self.first_free);
        // `turn_joint` reads the parent's world rotation from `world`, updated as we go.
        for i in self.first_free..self.locals.len() {
            let bone = parent * self.locals[i] * self.bones[i];
            let wanted = points[i + 1 - self.first_free] - self.positions[i];
            self.turn_joint(i, rotation_between(bone, wanted), use_limits);
            parent *= self.locals[i];
            self.world[i] = parent;
            self.positions[i + 1] = self.positions[i] + parent * self.bones[i];
        }
    }

    /// Turns every free joint (see [`Chain::first_free_joint`]) by the world-frame rotation
    /// `turn(i, position)` (`i`: the joint, `position`: where it was before this call), root
    /// first, each applied to the joint as its parents left it and limited (when `use_limits`);
    /// then recomputes the positions.
    pub(crate) fn turn_all(&mut self, turn: impl Fn(usize, Vec3) -> Quat, use_limits: bool) {
        let mut parent = self.parent_world(self.first_free);
        for i in self.first_free..self.locals.len() {
            // `positions` still holds the pose before the call: only `update` rewrites it.
            self.turn_joint(i, turn(i, self.positions[i]), use_limits);
            parent *= self.locals[i];
            self.world[i] = parent;
        }
        self.update();
    }

    /// Lends the scratch buffers (points, best rotations) to a solver.
    pub(crate) fn take_scratch(&mut self) -> (Vec<Vec3>, Vec<Quat>) {
        (
            std::mem::take(&mut self.scratch_points),
            std::mem::take(&mut self.scratch_best),
        )
    }

    /// Takes the scratch buffers back.
    pub(crate) fn return_scratch(&mut self, points: Vec<Vec3>, best: Vec<Quat>) {
        self.scratch_points = points;
        self.scratch_best = best;
    }

    /// Lends three more pose buffers (see [`Chain::take_scratch`]).
    pub(crate) fn take_pose_scratch(&mut self) -> [Vec<Quat>; 3] {
        std::mem::take(&mut self.scratch_poses)
    }

    /// Takes the pose buffers back.
    pub(crate) fn return_pose_scratch(&mut self, poses: [Vec<Quat>; 3]) {
        self.scratch_poses = poses;
    }

    /// Copies the local rotations into `snapshot`.
    pub(crate) fn save(&self, snapshot: &mut Vec<Quat>) {
        snapshot.clear();
        snapshot.extend_from_slice(&self.locals);
    }

    /// Restores a state saved by [`Chain::save`] and recomputes the positions.
    pub(crate) fn restore(&mut self, snapshot: &[Quat]) {
        self.locals.copy_from_slice(snapshot);
        self.blocked.fill(Vec3::ZERO);
        self.update();
    }

    /// Applies every joint's limit, root first, and recomputes the positions.
    pub(crate) fn limit_all(&mut self, use_limits: bool) {
        for i in 0..self.locals.len() {
            self.limit_joint(i, use_limits);
        }
        self.update();
    }

    /// Turns every free joint by a random rotation of up to `max_angle` radians, limits it and
    /// recomputes the positions (a restart out of a local minimum).
    pub(crate) fn perturb(&mut self, shake: &mut super::solve::Shake, max_angle: f32) {
        for i in self.first_free..self.locals.len() {
            let axis = Vec3::new(
                shake.next_signed(),
                shake.next_signed(),
                shake.next_signed(),
            )
            .try_normalize()
            .unwrap_or(Vec3::X);
            let turn = rotation_about(axis, max_angle * shake.next_signed());
            self.locals[i] = (self.locals[i] * turn).normalize();
            self.limit_joint(i, true);
        }
        self.update();
    }

    /// Turns joint `i` so that the world direction `from` (a vector hanging from the joint) points
    /// along `to`, limits it, and returns the world-frame turn that actually happened.
    ///
    /// Every rotation `rot(to, φ)·arc(from, to)` points `from` along `to`; the shortest arc
    /// (`φ = 0`) keeps the joint's twist and is used when the limit accepts it. When the limit
    /// clamps it, the members `φ = k·90°` are tried too and the one whose limited result points
    /// `from` nearest to `to` is kept: a hinge, say, can often follow a turn about another axis
    /// that its projection of the shortest arc would refuse. Only with `alternatives`: each
    /// costs a projection.
    pub(crate) fn aim_joint(
        &mut self,
        i: usize,
        from: Vec3,
        to: Vec3,
        use_limits: bool,
        alternatives: bool,
    ) -> Quat {
        let arc = rotation_between(from, to);
        let start_local = self.locals[i];
        let turned = self.turn_joint(i, arc, use_limits);
        let Some(unit_to) = to.try_normalize() else {
            return turned;
        };
        let alignment = |turn: Quat| (turn * from).dot(unit_to);
        let wanted = from.length();
        let mut best = (alignment(turned), self.locals[i], turned, self.blocked[i]);
        if !alternatives
            || !use_limits
            || self.limits[i].is_none()
            || best.0 >= wanted * (1.0 - 1e-6)
        {
            return turned;
        }
        for k in 1..AIM_FAMILY {
            let spin = rotation_about(
                unit_to,
                k as f32 * std::f32::consts::TAU / AIM_FAMILY as f32,
            );
            self.locals[i] = start_local;
            let turned = self.turn_joint(i, spin * arc, use_limits);
            let score = alignment(turned);
            if score > best.0 {
                best = (score, self.locals[i], turned, self.blocked[i]);
            }
        }
        (self.locals[i], self.blocked[i]) = (best.1, best.3);
        best.2
    }

    /// Turns joint `i` so that the world rotation it contributes changes by `turn` (world frame),
    /// limits it, and returns the world-frame turn that actually happened.
    #[inline]
    pub(crate) fn turn_joint(&mut self, i: usize, turn: Quat, use_limits: bool) -> Quat {
        let parent = self.parent_world(i);
        let old_world = parent * self.locals[i];
        self.locals[i] = (parent.conjugate() * (turn * old_world)).normalize();
        self.limit_joint(i, use_limits);
        let new_world = parent * self.locals[i];
        new_world * old_world.conjugate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::authored::ConeLimit;
    use crate::joint_limit::{LimitRegion, TwistRange};

    /// A swing cone of 30° about +Y with ±10° of twist.
    fn cone() -> JointLimit {
        JointLimit {
            joint: "joint".into(),
            reference: Quat::IDENTITY,
            region: LimitRegion::Cone(ConeLimit {
                twist_axis: Vec3::Y,
                max_swing: 30f32.to_radians(),
                twist: TwistRange {
                    min: -10f32.to_radians(),
                    max: 10f32.to_radians(),
                },
            }),
            softening: None,
        }
    }

    fn one_joint(limit: &JointLimit, base: Quat, local: Quat) -> Chain<'_> {
        Chain::new(
            Vec3::ZERO,
            base,
            vec![local],
            vec![Vec3::Y],
            vec![Some(limit)],
        )
        .unwrap()
    }

    #[test]
    fn blocked_direction_points_out_of_the_limit_in_world_space() {
        let limit = cone();
        let base = Quat::from_rotation_z(0.7);
        // 50° of swing about +X: 20° beyond the cone.
        let mut chain = one_joint(&limit, base, Quat::from_rotation_x(50f32.to_radians()));
        chain.limit_all(true);
        let blocked = chain.blocked_direction(0);
        assert!(
            blocked.normalize().dot(base * Vec3::X) > 0.999,
            "{blocked:?}"
        );
        // The projection turned the joint back by 20°: |m| = sin(10°).
        assert!((blocked.length() - 10f32.to_radians().sin()).abs() < 1e-3);
        // Turning further along it is refused; turning against it is allowed.
        let limited = chain.local_rotations()[0];
        let out = rotation_about(blocked.normalize(), 0.1);
        let turned = chain.turn_joint(0, out, true);
        assert!(crate::rotation::angle_between(turned, Quat::IDENTITY) < 1e-3);
        assert!(chain.blocked_direction(0).length() > 0.04);
        let back = rotation_about(-blocked.normalize(), 0.1);
        let turned = chain.turn_joint(0, back, true);
        assert!(crate::rotation::angle_between(turned, back) < 1e-4);
        assert_eq!(chain.blocked_direction(0), Vec3::ZERO);
        assert!(crate::rotation::angle_between(chain.local_rotations()[0], limited) > 0.09);
    }

    #[test]
    fn no_blocked_direction_inside_or_without_limits() {
        let limit = cone();
        let outside = Quat::from_rotation_x(50f32.to_radians());
        let mut chain = one_joint(&limit, Quat::IDENTITY, Quat::from_rotation_x(0.2));
        chain.limit_all(true);
        assert_eq!(chain.blocked_direction(0), Vec3::ZERO);
        let mut chain = one_joint(&limit, Quat::IDENTITY, outside);
        chain.limit_all(false);
        assert_eq!(chain.blocked_direction(0), Vec3::ZERO);
        chain.limit_all(true);
        assert_ne!(chain.blocked_direction(0), Vec3::ZERO);
        chain.set_local_rotations(&[outside]);
        assert_eq!(chain.blocked_direction(0), Vec3::ZERO);
    }
}
