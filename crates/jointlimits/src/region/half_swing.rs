//! The boundary tolerance near a 180° swing, measured as a rotation.
//!
//! At a swing of exactly 180° about `u ⟂ a`, `swing(π·u) · twist(τ) = swing(π·R_a(−t/2)u) ·
//! twist(τ + t)` for every `t`: turning the swing axis by `−t/2` about the twist axis and adding
//! `t` to the twist gives the same rotation. Near it, with `κ = |(v·a, w)| = cos(swing/2)`, the
//! same move changes the rotation by only about `κ·|t|`. So a rotation whose own swing-twist
//! coordinates miss the region may still lie within [`BOUNDARY_TOLERANCE`] (as a rotation) of
//! coordinates that are inside: this searches that one-parameter family, `|t| ≤ tolerance / κ`.

use glam::{Quat, Vec2, Vec3};

use crate::contract::{BOUNDARY_TOLERANCE, Limited, near_half_swing, settle};

/// Samples of `t` tried on each side.
const SAMPLES: usize = 16;

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
    if !limited.inside && within_tolerance_near_half_swing(relative, axis, swing, twist, violation)
    {
        return Limited::unchanged(relative, limited.measured);
    }
    limited
}

/// Whether some member of the family through the swing-plane point `swing` and twist `twist`
/// (module docs) within the tolerance of `relative` (twist axis `axis`) has
/// `violation(swing′, twist′)` within the tolerance.
fn within_tolerance_near_half_swing(
    relative: Quat,
    axis: Vec3,
    swing: Vec2,
    twist: f32,
    violation: impl Fn(Vec2, f32) -> f32,
) -> bool {
    let along = Vec3::new(relative.x, relative.y, relative.z).dot(axis);
    let kappa = (along * along + relative.w * relative.w).sqrt();
    let reach = (BOUNDARY_TOLERANCE / kappa.max(1e-12)).min(std::f32::consts::PI);
    (1..=SAMPLES).any(|k| {
        let t = reach * k as f32 / SAMPLES as f32;
        [t, -t].into_iter().any(|t| {
            let turned = Vec2::from_angle(-0.5 * t).rotate(swing);
            violation(turned, twist + t) <= BOUNDARY_TOLERANCE
        })
    })
}
