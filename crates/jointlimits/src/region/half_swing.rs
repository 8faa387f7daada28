//! The boundary tolerance near a 180° swing, measured as a rotation.
//!
//! At a swing of exactly 180° about `u ⟂ a`, `swing(π·u) · twist(τ) = swing(π·R_a(t/2)u) ·
//! twist(τ + t)` for every `t`: turning the swing axis by `t/2` about the twist axis and adding
//! `t` to the twist gives the same rotation (a half turn about `u` reverses `a`, so
//! `R_a(φ)·swing(π·u)·R_a(−φ) = swing(π·u)·R_a(−2φ)`). Near it, with `κ = |(v·a, w)| = cos(swing/2)`, the
//! same move changes the rotation by only about `κ·|t|`. So a rotation whose own swing-twist
//! coordinates miss the region may still lie within [`BOUNDARY_TOLERANCE`] (as a rotation) of
//! coordinates that are inside: this searches that one-parameter family, `|t| ≤ tolerance / κ`.

use glam::{Quat, Vec2, Vec3};

use crate::contract::{BOUNDARY_TOLERANCE, Limited, near_half_swing, settle};
use crate::golden_section::golden_section;

/// Samples of `t` tried on each side.
const SAMPLES: usize = 16;

/// Golden-section steps around the best sample: the bracket shrinks to `0.618³⁰ ≈ 5e-7` of
/// two samples' spacing.
const GOLDEN_STEPS: usize = 30;

/// Members of the family sampled over `t ∈ [−2π, 2π]` by [`nearest_member`] before golden
/// sections refine the best: 2.4° apart in `t`, 1.2° in the swing's axis.
const MEMBERS: usize = 300;

/// At a swing of exactly 180° ([`crate::contract::half_swing`]), where a rotation's twist is not
/// defined and every member of the family (module docs) is a split of it, the member `t` whose
/// coordinates lie nearest the region: `violation(t)` is the kind's distance of the swing-plane
/// point turned by `t/2` about the twist axis with the twist `t` added. `t` runs over two turns,
/// which bring the swing to its other cover and back (the other cover of a half-turn swing `s`
/// is `−s`, with the twist a turn on). Sampled, then refined by golden sections about the best
/// sample; `0` (the split as made) when nothing beats it.
///
/// A member replaces the best only when nearer by more than [`MEMBER_GAIN`]: where many are
/// equally near (a cone's twist range holds a whole interval of them), the first is kept, so
/// that the choice does not turn on rounding, and the GPU kernel, which makes the same search,
/// makes the same choice.
pub(crate) fn nearest_member(violation: impl Fn(f32) -> f32) -> f32 {
    use std::f32::consts::TAU;
    let step = 2.0 * TAU / MEMBERS as f32;
    let (mut best_t, mut best) = (0.0, violation(0.0));
    for k in 0..=MEMBERS {
        let t = -TAU + step * k as f32;
        let value = violation(t);
        if value < best - MEMBER_GAIN {
            (best_t, best) = (t, value);
        }
    }
    let bracket = (best_t - step, best_t + step);
    let (t, value) = golden_section(&violation, bracket, GOLDEN_STEPS, |_| false);
    if value < best - MEMBER_GAIN {
        t
    } else {
        best_t
    }
}

/// How much nearer (radians) a member must be to replace the best one ([`nearest_member`]): far
/// above rounding, far below the accuracy promised (1e-3).
const MEMBER_GAIN: f32 = 1e-6;

/// The swing-plane point `swing` and twist `twist` moved along the family by `t`.
#[inline]
pub(crate) fn family_member(swing: Vec2, twist: f32, t: f32) -> (Vec2, f32) {
    (Vec2::from_angle(0.5 * t).rotate(swing), twist + t)
}

/// `limited` (the answer for `relative`, measured at the swing-plane point `swing` with the twist
/// turn `twist`) turned into the input itself when the input swings near 180° and lies within the
/// tolerance as a rotation: of the answer ([`settle`]) or, along the family of the module docs, of
/// coordinates whose `violation` is within it.
pub(crate) fn settle_near_half_swing(
    relative: Quat,
    axis: Vec3,
    limited: Limited,
    swing: Vec2,
    twist: f32,
    violation: impl Fn(Vec2, f32) -> f32,
) -> Limited {
    if !near_half_swing(relative, axis) {
        return limited;
    }
    let limited = settle(relative, limited);
    let member = |t: f32| {
        let (swing, twist) = family_member(swing, twist, t);
        violation(swing, twist)
    };
    if !limited.inside && family_within_tolerance(relative, axis, member) {
        return Limited::unchanged(relative, limited.measured);
    }
    limited
}

/// Whether some member `t` of the family of module docs through `relative` (twist axis `axis`)
/// that lies within the tolerance of it has `violation(t)` within the tolerance. A kind gives
/// the violation of its coordinates moved along the family by `t`: the swing (its axis, and so
/// the swing-plane point or the bone's direction) turned by `t/2` about the twist axis and `t`
/// added to the twist.
///
/// The window of members within the tolerance can be far narrower than the family's reach (its
/// width is about the tolerance, the reach the tolerance over `κ`), so the family is sampled
/// and the best sample's neighbourhood then searched by golden sections.
pub(crate) fn family_within_tolerance(relative: Quat, axis: Vec3, at: impl Fn(f32) -> f32) -> bool {
    let along = Vec3::new(relative.x, relative.y, relative.z).dot(axis);
    let kappa = (along * along + relative.w * relative.w).sqrt();
    let reach = (BOUNDARY_TOLERANCE / kappa.max(1e-12)).min(std::f32::consts::PI);
    let step = reach / SAMPLES as f32;
    let (mut best_t, mut best) = (0.0, at(0.0));
    for k in -(SAMPLES as i32)..=SAMPLES as i32 {
        let t = step * k as f32;
        let value = at(t);
        if value < best {
            (best_t, best) = (t, value);
        }
    }
    if best <= BOUNDARY_TOLERANCE {
        return true;
    }
    // Golden sections over the samples either side of the best.
    let good = |value: f32| value <= BOUNDARY_TOLERANCE;
    let (_, value) = golden_section(at, (best_t - step, best_t + step), GOLDEN_STEPS, good);
    good(value)
}
