//! The one contract every limit kind implements, on rotations (spec: `docs/limits.md`).
//!
//! A limit kind describes a set of allowed *relative* rotations `q_rel = q_ref⁻¹ · q`. Every kind
//! answers through [`RotationLimit`]:
//! - **membership depends only on the rotation**: `q_rel` is allowed when some cover of it
//!   (`q_rel` or `−q_rel`), and for twist angles some whole turn `τ + 2πk`, lies in the region, up
//!   to [`BOUNDARY_TOLERANCE`];
//! - [`RotationLimit::nearest`] is stateless and returns the exact nearest allowed rotation over
//!   both covers and every turn, in the metric the kind documents, and an allowed input itself,
//!   bit for bit;
//! - [`RotationLimit::nearest_continuing`] is the nearest allowed rotation reached from the cover
//!   and turn a stream used last frame ([`Limited::measured`]); [`crate::Limiter`] takes it
//!   instead of the stateless answer only while it is at most a margin farther.
//!
//! A kind is one file implementing this trait plus one line in [`crate::region`]'s registration
//! list; its [`RotationLimit::examples`] join the list every property test iterates.

use glam::{Quat, Vec4};

use crate::rotation::twist_norm_squared;
use crate::space::SpaceKind;
use crate::validation::InvalidField;

/// Below this length of `(v·axis, w)` a rotation `(v, w)` is a swing of exactly 180° about an
/// axis perpendicular to `axis`, and its twist is undefined.
pub const DEGENERATE_TWIST: f32 = 1e-6;

/// Whether the rotation `relative` is a swing of exactly 180° away from `axis` (see
/// [`DEGENERATE_TWIST`]).
#[inline]
pub fn half_swing(relative: Quat, axis: glam::Vec3) -> bool {
    twist_norm_squared(relative, axis) < DEGENERATE_TWIST * DEGENERATE_TWIST
}

/// A rotation this close to the region (radians of rotation angle, or of the kind's own
/// coordinates) counts as inside: the f32 rounding of a rotation taken through limit space and
/// back, or written to a file and read again.
///
/// Measuring it as a rotation angle as well matters near a kind's singular coordinates (a swing
/// of 180°), where a rounding error of 1e-7 rad in the rotation can move the twist coordinate by
/// 1e-3 rad or more.
pub const BOUNDARY_TOLERANCE: f32 = 1e-5;

/// Below this `|(v·axis, w)|` (a swing within about 11° of 180°) a rotation's twist coordinate
/// is ill-conditioned enough for the kinds that split one off to [`settle`] their answers.
pub const NEAR_HALF_SWING: f32 = 0.1;

/// Whether `relative` swings within about 11° of 180° away from `axis` ([`NEAR_HALF_SWING`]).
#[inline]
pub fn near_half_swing(relative: Quat, axis: glam::Vec3) -> bool {
    twist_norm_squared(relative, axis) < NEAR_HALF_SWING * NEAR_HALF_SWING
}

/// `limited` with an answer that lies within [`BOUNDARY_TOLERANCE`] of the input, as a rotation,
/// turned into the input itself: inside. Kinds call it where their coordinates stretch rotation
/// distances (near a 180° swing, on the long cover, near gimbal lock); elsewhere a coordinate
/// distance within the tolerance already covers every rotation that close.
#[inline]
pub fn settle(relative: Quat, limited: Limited) -> Limited {
    if limited.inside || !within_tolerance(relative, limited.relative) {
        return limited;
    }
    Limited::unchanged(relative, limited.measured)
}

/// Whether the rotations `a` and `b` (unit, either covers) are at most [`BOUNDARY_TOLERANCE`]
/// apart: for an angle `θ` between them, the nearer chord `min(|a − b|, |a + b|)` is
/// `2·sin(θ/4)`, so `θ ≤ t` when the squared chord is at most `(t/2)²` (to first order, which
/// is exact to 1e-10 at this size). Differences keep their digits where a dot product near 1 would
/// not.
#[inline]
pub fn within_tolerance(a: Quat, b: Quat) -> bool {
    let half = 0.5 * BOUNDARY_TOLERANCE;
    let (minus, plus) = ((a - b).length_squared(), (a + b).length_squared());
    minus.min(plus) <= half * half
}

/// What a limit may depend on besides the rotation it limits: the state of the joint's parent,
/// for limits coupled across joints ([`crate::coupled`]). Every other kind ignores it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LimitContext {
    /// The parent joint's local rotation this frame (after its own limit), when known.
    pub parent: Option<Quat>,
}

impl LimitContext {
    /// No context: what stateless callers pass.
    pub const NONE: LimitContext = LimitContext { parent: None };
}

/// The result of limiting a relative rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limited {
    /// The allowed relative rotation (the input itself, bit for bit, when it was inside).
    pub relative: Quat,
    /// Whether the input was allowed.
    pub inside: bool,
    /// The distance from the input to `relative` in the kind's metric (radians; 0 inside).
    pub violation: f32,
    /// The input as the kind measured it, in the cover and turn that were used (for example the
    /// scaled angle-axis point, or swing and twist). A stream passes it back to
    /// [`RotationLimit::nearest_continuing`] next frame; its layout is the kind's own.
    pub measured: Vec4,
}

impl Limited {
    /// Whether the answer for the input `relative` is the input itself: allowed, or kept whole
    /// by a softening (then outside, by at most the softening's radius). The local rotation it
    /// came from is then returned as it was, bit for bit.
    #[inline(always)]
    pub fn kept(&self, relative: Quat) -> bool {
        self.inside || self.relative == relative
    }

    /// The result for a rotation that was already allowed, measured as `measured`.
    #[inline]
    pub fn unchanged(relative: Quat, measured: Vec4) -> Limited {
        Limited {
            relative,
            inside: true,
            violation: 0.0,
            measured,
        }
    }
}

/// The contract of a limit kind on relative rotations (module docs).
pub trait RotationLimit {
    /// The exact nearest allowed rotation to `relative` (either cover) over both covers and every
    /// turn; `relative` itself when it is allowed.
    fn nearest(&self, relative: Quat, context: &LimitContext) -> Limited;

    /// The nearest allowed rotation reached from the cover and turn of `relative` closest to
    /// `previous` (a [`Limited::measured`] of an earlier frame): continuous along a stream. An
    /// allowed input still comes back unchanged.
    fn nearest_continuing(&self, relative: Quat, previous: Vec4, context: &LimitContext)
    -> Limited;

    /// Whether [`RotationLimit::nearest_continuing`] from `previous` would measure `relative` in
    /// the cover and turn that `nearest` (its stateless answer) used, and so answer `nearest`
    /// itself: a stream then need not ask. Kinds say `true` only when sure, with room for
    /// rounding; the default is `false`.
    fn continues_as(&self, _relative: Quat, _nearest: &Limited, _previous: Vec4) -> bool {
        false
    }

    /// Whether `relative` is surely not allowed, told without searching for the nearest: `true`
    /// only where [`RotationLimit::nearest`] would answer with a rotation outside. A stream whose
    /// continuation then lands within its switch margin of the boundary takes it without the
    /// stateless search, which could only confirm it ([`crate::limiter`]). Kinds that say `true`
    /// must not also say [`RotationLimit::continues_as`]; the default knows nothing.
    fn surely_outside(&self, _relative: Quat, _context: &LimitContext) -> bool {
        false
    }

    /// Whether a stream's continuation `continued` (from the frame measured as `previous`) jumped
    /// short of where it was heading, the stateless answer `nearest` (both for `relative`, on
    /// the same cover and turn): it moved far from `previous` in one frame, and the kind's cost
    /// falls all the way from it to `nearest`, so the local search behind it stopped short of the
    /// minimum of its own basin. (A table's twist limits are bilinear per cell, with kinks at cell
    /// edges, where the search can stop on alternate sides of a minimum frame after frame.) A
    /// stream then takes `nearest`, a jump no larger a switch than the one it replaces. Kinds say
    /// `true` only where `nearest` is nearer by more than their accuracy, so that a stream on a
    /// plateau of equal costs stays where it is; the default is `false`.
    fn leads_to(
        &self,
        _relative: Quat,
        _previous: Vec4,
        _continued: &Limited,
        _nearest: &Limited,
    ) -> bool {
        false
    }

    /// Where a stream whose continuation strayed past the switch margin can pick up on the
    /// turn the stateless answer `nearest` uses without leaving the basin it was in: `previous`
    /// (the stream's last [`Limited::measured`]) moved onto that turn. Crossing the half turn
    /// from a twist range, the answer must jump from one end of the range to the other, but
    /// need not also jump to another basin when both basins are about as near. `None` (the
    /// default) for kinds with no such choice; the stream then takes `nearest`.
    fn previous_on_nearest_turn(&self, _previous: Vec4, _nearest: &Limited) -> Option<Vec4> {
        None
    }

    /// Whether `relative` sits exactly where the kind's coordinates are degenerate, so that its
    /// stateless answer is one of several equally valid ones (a swing of exactly 180°, where every
    /// twist splits the rotation). A stream keeps its own answer there whatever the margin.
    fn is_degenerate(&self, _relative: Quat) -> bool {
        false
    }

    /// The bone axis the kind measures swing from and twist about (unit, in the reference frame),
    /// when it has one; pictures and measurements of direction use it.
    fn bone_axis(&self) -> Option<glam::Vec3> {
        None
    }

    /// Whether some twist about the unit `axis` lets the bone point along the unit `direction`,
    /// when the kind can tell directly (tables and reach cones, about their own bone axis: the
    /// allowed directions are stored, each with a twist range); `None` otherwise, and
    /// measurements search the twists one by one.
    fn reaches_direction(&self, _axis: glam::Vec3, _direction: glam::Vec3) -> Option<bool> {
        None
    }

    /// The twists about the unit `axis` with which the bone may point along the unit
    /// `direction`, as runs, when the kind can tell directly (tables, about their own bone axis:
    /// the direction's twist range, a whole turn where it spans one, none where the direction is
    /// not allowed; reach cones: none where the direction lies clearly outside the cone);
    /// `None` otherwise, and measurements try the twists one by one.
    fn twists_along(
        &self,
        _axis: glam::Vec3,
        _direction: glam::Vec3,
    ) -> Option<Vec<crate::twist::TwistRange>> {
        None
    }

    /// Whether `relative` is allowed.
    fn contains(&self, relative: Quat, context: &LimitContext) -> bool {
        self.nearest(relative, context).inside
    }

    /// How far `relative` is from the nearest allowed rotation (radians, 0 inside).
    fn violation(&self, relative: Quat, context: &LimitContext) -> f32 {
        self.nearest(relative, context).violation
    }

    /// How strained the joint is at `limited`, an answer of this limit (for a rotation outside,
    /// at the allowed rotation it was moved to): 0 relaxed, 1 at the limit. `None` for kinds that
    /// store no stress (tables do).
    fn stress(&self, _limited: &Limited) -> Option<f32> {
        None
    }

    /// How far past the boundary the joint breaks at `limited`, an answer of this limit,
    /// radians: a rotation whose [`Limited::violation`] exceeds it is beyond breaking. `None`
    /// for kinds that store no break margin (tables do).
    fn break_margin(&self, _limited: &Limited) -> Option<f32> {
        None
    }

    /// Every stored number is finite and within what the kind can use (checked when a limits
    /// file is read); otherwise the first field that is not, and why.
    fn validate(&self) -> Result<(), InvalidField>;

    /// Whether [`RotationLimit::validate`] passes.
    fn is_valid(&self) -> bool {
        self.validate().is_ok()
    }

    /// A short description, such as `ellipsoid` or `reach cone (32 points) + twist`.
    fn label(&self) -> String;

    /// The limit space it lives in: full for kinds on the whole rotation, swing-twist for kinds
    /// that split off a twist.
    fn space(&self) -> SpaceKind;

    /// Representative limits of this kind (every shape it can hold), for tests and benches.
    fn examples() -> Vec<Self>
    where
        Self: Sized;
}
