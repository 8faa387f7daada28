//! The nearest allowed rotation of a reach cone in the combined metric of direction and twist.
//!
//! For an input pointing the bone at `d` with twist `θ`, the cost of an allowed direction `d′` is
//! `h(d′) = α(d, d′)² + g(d′)²`, with `α` the angle between the directions and `g(d′)` the
//! distance from `θ` (the turn measured at the starting point) to the twist limits at `d′`.
//! Pairing the nearest direction with its clamped twist minimises only the first term; when the
//! twist limits vary across the cone, moving `d′` towards wider limits can lower the sum.
//!
//! The search starts at that pair and takes Gauss–Newton steps on the sphere: in the plane tangent
//! at the current `d′`, with `w` the tangent vector towards `d` (length `α`) and `∇g` the gradient
//! of the twist gap (exact: in a slice each limit is a ratio of linear functions of the
//! direction), the step `v` minimises `|w − v|² + (g + ∇g·v)²`, that is
//! `(I + ∇g∇gᵀ)v = w − g∇g`, solved in closed form. A step that would carry the twist past the
//! limit is replaced by the nearest point of the linearised curve where the twist just fits. A
//! direction that leaves the cone is brought back to its nearest boundary point; a step that does
//! not lower `h` is halved. Every accepted step lowers `h`, so the result is never worse than the
//! two-step answer, and the property tests compare it with a brute force.

use glam::{Quat, Vec3};

use super::ReachConeLimit;
use crate::contract::{BOUNDARY_TOLERANCE, Limited};
use crate::twist::TwistMeasure;

/// Gauss–Newton steps at most (they converge in a handful).
const MAX_STEPS: usize = 24;
/// Halvings of a step that does not lower the cost before the search stops.
const MAX_HALVINGS: usize = 8;
/// A step shorter than this (radians) ends the search.
const SMALLEST_STEP: f32 = 1e-7;

/// The angle between unit vectors, accurate at both ends.
#[inline(always)]
pub(super) fn angle(a: Vec3, b: Vec3) -> f32 {
    crate::fast_trig::atan2(a.cross(b).length(), a.dot(b))
}

impl ReachConeLimit {
    /// The nearest allowed rotation to the input `(direction, twist)`, searching from the allowed
    /// direction `start` (in slice `slice`) paired with the twist `measure`d there (module docs).
    #[inline]
    pub(super) fn refine(
        &self,
        relative: Quat,
        twist: f32,
        direction: Vec3,
        start: Vec3,
        slice: usize,
        measure: TwistMeasure,
    ) -> Limited {
        if measure.distance <= BOUNDARY_TOLERANCE || !self.cone.twist_varies() {
            return self.moved(relative, twist, direction, start, measure.turned, measure.allowed);
        }
        let (mut to, mut allowed, best) = self.descend(direction, start, slice, measure.turned);
        let mut turned = measure.turned;
        // The twist's other side: the turn that lies beyond the other limit, searched too when it
        // could still win (its gap at the start is below the best cost found).
        let range = self.cone.twist_limits_in_slice(start, slice);
        let other = if measure.turned > range.max {
            measure.turned - std::f32::consts::TAU
        } else {
            measure.turned + std::f32::consts::TAU
        };
        let other_gap = (other - range.clamp(other)).abs();
        if other_gap * other_gap < best {
            let (other_to, other_allowed, other_best) = self.descend(direction, start, slice, other);
            if other_best < best {
                (to, allowed, turned) = (other_to, other_allowed, other);
            }
        }
        self.moved(relative, twist, direction, to, turned, allowed)
    }

    /// The Gauss–Newton search of the module docs for the twist turn `turned`; returns the
    /// direction, its allowed twist and the cost `h` there.
    #[inline(never)]
    fn descend(&self, direction: Vec3, start: Vec3, slice: usize, turned: f32) -> (Vec3, f32, f32) {
        let cone = &self.cone;
        let cost = |at: Vec3, slice: usize| {
            let range = cone.twist_limits_in_slice(at, slice);
            let allowed = range.clamp(turned);
            (angle(direction, at).powi(2) + (turned - allowed).powi(2), allowed)
        };
        let (mut current, mut current_slice) = (start, slice);
        let (mut best, mut allowed) = cost(current, current_slice);
        for _ in 0..MAX_STEPS {
            let (range, gradient_min, gradient_max) =
                cone.twist_limit_gradients(current, current_slice);
            // The signed twist gap and its gradient on the side the twist is on.
            let (gap, gradient) = if turned > range.max {
                (turned - range.max, -gradient_max)
            } else if turned < range.min {
                (range.min - turned, gradient_min)
            } else {
                (0.0, Vec3::ZERO)
            };
            let towards = tangent_towards(current, direction);
            let b = towards - gradient * gap;
            let norm_squared = gradient.length_squared();
            let mut step = b - gradient * (gradient.dot(b) / (1.0 + norm_squared));
            if gap + gradient.dot(step) < 0.0 && norm_squared > 1e-12 {
                // Past the curve where the twist just fits: its nearest linearised point.
                step = towards - gradient * ((gap + gradient.dot(towards)) / norm_squared);
            }
            let mut accepted = false;
            for _ in 0..MAX_HALVINGS {
                if step.length() < SMALLEST_STEP {
                    break;
                }
                let moved = exponential(current, step);
                let slice = cone.slice_of(moved);
                let (candidate, slice) = if cone.inside_slice(moved, slice) {
                    (moved, slice)
                } else {
                    cone.nearest_on_boundary(moved)
                };
                let (value, candidate_allowed) = cost(candidate, slice);
                if value < best {
                    (current, current_slice, best, allowed) =
                        (candidate, slice, value, candidate_allowed);
                    accepted = true;
                    break;
                }
                step *= 0.5;
            }
            if !accepted {
                break;
            }
        }
        (current, allowed, best)
    }
}

/// The vector tangent to the sphere at `at` pointing along the great circle towards `target`,
/// with length the angle between them.
#[inline]
fn tangent_towards(at: Vec3, target: Vec3) -> Vec3 {
    let perpendicular = target - at * at.dot(target);
    let sine = perpendicular.length();
    if sine <= 1e-12 {
        return Vec3::ZERO;
    }
    perpendicular * (angle(at, target) / sine)
}

/// The point reached from `at` along the great circle with tangent `step` (its length the angle).
#[inline]
fn exponential(at: Vec3, step: Vec3) -> Vec3 {
    let length = step.length();
    if length <= 1e-12 {
        return at;
    }
    let (sin, cos) = length.sin_cos();
    (at * cos + step * (sin / length)).normalize()
}
