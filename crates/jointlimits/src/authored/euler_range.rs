//! Euler-angle ranges: a minimum and maximum per channel, in any of the six axis orders.

use std::f64::consts::{PI, TAU};

use glam::{DVec3, Quat, Vec3, Vec4};
use serde::{Deserialize, Serialize};

use crate::contract::{
    BOUNDARY_TOLERANCE, LimitContext, Limited, NEAR_HALF_SWING, RotationLimit, settle,
};
use crate::euler::EulerOrder;
use crate::space::SpaceKind;
use crate::validation::{self, InvalidField};

/// The limit of Maya, Blender and three.js: each Euler angle between a minimum and a maximum.
///
/// A rotation has two Euler triples in a given order, `(a, b, c)` and `(a + π, π − b, c + π)`,
/// and each angle may be shifted by whole turns; neither depends on the cover of the quaternion.
/// Metric: the Euclidean distance between Euler triples. The projection takes the triple and
/// shifts whose per-channel clamp moves least and returns the clamped triple's rotation: the exact
/// nearest allowed point in Euler coordinates. At gimbal lock, `b = ±π/2`, only `a ± c` is
/// defined, and every triple of that one-parameter family counts: the nearest is taken over all
/// of them. `measured` is the input's triple as used, `(a, b, c, 0)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EulerLimit {
    /// The axis order; the angles below are in its channel order.
    pub order: EulerOrder,
    /// The smallest angle of each channel, radians.
    pub min: Vec3,
    /// The largest angle of each channel, radians.
    pub max: Vec3,
}

/// Below this `|cos b|` a triple may be at gimbal lock (then checked as a rotation).
const LOCK_COSINE: f64 = 1e-4;

/// A triple of the input, turned, with its clamp and the squared distance between them.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Clamped {
    turned: DVec3,
    clamped: DVec3,
    squared: f64,
}

impl EulerLimit {
    /// The two Euler triples of `relative`.
    fn triples(&self, relative: Quat) -> [DVec3; 2] {
        let angles = self.order.from_quat(relative);
        [
            angles,
            DVec3::new(angles.x + PI, PI - angles.y, angles.z + PI),
        ]
    }

    /// Clamps `turned` channel by channel.
    fn clamp(&self, turned: DVec3) -> Clamped {
        let clamped = turned.clamp(self.min.as_dvec3(), self.max.as_dvec3());
        Clamped {
            turned,
            clamped,
            squared: turned.distance_squared(clamped),
        }
    }

    /// The allowed Euler triple nearest to a triple of `relative`, and its squared distance.
    pub fn nearest_angles(&self, relative: Quat) -> (DVec3, f64) {
        let best = self.nearest_clamp(relative);
        (best.clamped, best.squared)
    }

    fn nearest_clamp(&self, relative: Quat) -> Clamped {
        let triples = self.triples(relative);
        if let Some(locked) = self.nearest_clamp_at_lock(relative, triples[0]) {
            return locked;
        }
        let (lo, hi) = (self.min.as_dvec3(), self.max.as_dvec3());
        let [first, second] = triples.map(|t| {
            let mut turned = DVec3::ZERO;
            for k in 0..3 {
                turned[k] = nearest_turn(t[k], lo[k], hi[k]);
            }
            self.clamp(turned)
        });
        if second.squared < first.squared {
            second
        } else {
            first
        }
    }

    /// At gimbal lock (`b = ±π/2`, within the tolerance as a rotation) every triple
    /// `(a + s, b, c + σ·s)` gives the rotation (`σ = ±1` by the order and the lock), so the
    /// nearest allowed triple is the nearest over the whole family, not over the decomposition's
    /// one (which puts the whole rotation in `a`): `s` is a point on the circle where the first
    /// channel's range asks `s ∈ [lo_a − a, hi_a − a]` and the third's `σ·s ∈ [lo_c − c,
    /// hi_c − c]` (modulo 2π); where the two arcs meet, both clamps vanish, and otherwise the
    /// least of `d_a(s)² + d_c(s)²` lies half-way across the narrower gap between them, where it
    /// is `gap²/2`. `t` is the decomposition's first triple of `relative`. `None` away from
    /// the lock.
    fn nearest_clamp_at_lock(&self, relative: Quat, t: DVec3) -> Option<Clamped> {
        if t.y.cos().abs() > LOCK_COSINE {
            return None;
        }
        let b = std::f64::consts::FRAC_PI_2.copysign(t.y);
        let locked = |a: f64, c: f64| self.order.to_quat(DVec3::new(a, b, c));
        if !crate::contract::within_tolerance(relative, locked(t.x, t.z)) {
            return None;
        }
        Some(self.clamp_along_lock_family(t, b))
    }

    /// The clamp of the member of the family `(a + s, b, c + σ·s)` through the triple `t` (with
    /// the middle angle `b`) whose outer channels come nearest their ranges
    /// ([`EulerLimit::nearest_clamp_at_lock`]).
    fn clamp_along_lock_family(&self, t: DVec3, b: f64) -> Clamped {
        let locked = |a: f64, c: f64| self.order.to_quat(DVec3::new(a, b, c));
        // The family's sign: the one that keeps the rotation when `a` and `c` move together.
        let probe = 0.5;
        let sigma = if locked(t.x + probe, t.z + probe).dot(locked(t.x, t.z)).abs()
            > locked(t.x + probe, t.z - probe).dot(locked(t.x, t.z)).abs()
        {
            1.0
        } else {
            -1.0
        };
        let (lo, hi) = (self.min.as_dvec3(), self.max.as_dvec3());
        // The arcs of `s` each outer channel allows, as (start, length) on the circle.
        let arc_a = (lo.x - t.x, hi.x - lo.x);
        let arc_c = if sigma > 0.0 {
            (lo.z - t.z, hi.z - lo.z)
        } else {
            (t.z - hi.z, hi.z - lo.z)
        };
        let s = if arc_a.1 >= TAU || arc_c.1 >= TAU {
            // One channel allows every `s`: the other's arc decides.
            if arc_a.1 >= TAU { arc_c.0 } else { arc_a.0 }
        } else if (arc_c.0 - arc_a.0).rem_euclid(TAU) <= arc_a.1 {
            // The arcs overlap where one starts inside the other.
            arc_c.0
        } else if (arc_a.0 - arc_c.0).rem_euclid(TAU) <= arc_c.1 {
            arc_a.0
        } else {
            // Gaps from the end of one arc to the start of the other, both ways round.
            let after_a = (arc_c.0 - (arc_a.0 + arc_a.1)).rem_euclid(TAU);
            let after_c = (arc_a.0 - (arc_c.0 + arc_c.1)).rem_euclid(TAU);
            if after_a <= after_c {
                arc_a.0 + arc_a.1 + 0.5 * after_a
            } else {
                arc_c.0 + arc_c.1 + 0.5 * after_c
            }
        };
        let member = DVec3::new(t.x + s, b, t.z + sigma * s);
        let mut turned = DVec3::ZERO;
        for k in 0..3 {
            turned[k] = nearest_turn(member[k], lo[k], hi[k]);
        }
        self.clamp(turned)
    }

    /// Whether a rotation near gimbal lock (farther from it than the tolerance) lies within the
    /// tolerance, as a rotation, of an allowed triple along the lock's family through one of its
    /// two: there the outer angles of the decomposition carry the f32 rounding of the rotation over
    /// `|cos b|` (3e-3 rad at 2e-5 from the lock, 1e-4 at 1e-3), and a rotation written from an
    /// allowed triple can decompose to one outside; the family's triples `(a + s, b, c + σ·s)`
    /// turn the rotation by only about `|s|·|cos b|`, and the member is taken only when its
    /// rotation is measured within the tolerance.
    fn allowed_along_lock_family(&self, relative: Quat) -> bool {
        // Both triples: past the lock (`|b| > π/2`) the allowed one is the second.
        self.triples(relative).into_iter().any(|t| {
            let member = self.clamp_along_lock_family(t, t.y);
            crate::contract::within_tolerance(relative, self.order.to_quat(member.clamped))
        })
    }

    /// The cells of rotations `q` whose relative rotation `to_relative · q` the limit allows
    /// ([`crate::rotation_cells`]; `to_relative` unit).
    ///
    /// With `R = R₁(a)·R₂(b)·R₃(c)` the angular velocity is `ȧ·u₁ + ḃ·u₂ + ċ·u₃`, where
    /// `u₂ = R₁e₂` is perpendicular to both unit axes `u₁ = e₁` and `u₃ = R₁R₂e₃`, whose dot
    /// product is `±sin b`. So a turn at unit speed moves `b` at most at unit speed and `a`, `c`
    /// at most at `1/|cos b|` (solving the 2×2 system of the other two). Along the shortest
    /// path from a cell's centre to any of its rotations (length at most the cell's radius
    /// `θ`), `|b|` stays within `|b_c| + θ`, so every triple of the path (each of the two,
    /// followed continuously) stays within `θ` of the centre's in `b` and
    /// `θ/cos(|b_c| + θ)` in `a` and `c`. The cell is allowed when, for one of the centre's
    /// triples, each channel's interval that wide lies within its range on one turn. Cells
    /// reaching within a thousandth of gimbal lock's cosine are left to the exact test.
    pub fn prove_cells(&self, to_relative: Quat) -> crate::rotation_cells::InsideCells {
        use crate::rotation_cells::{
            InsideCells, MARGIN, Standing, holds_on_one_turn, misses_on_every_turn,
        };
        InsideCells::prove(|cell| {
            let triples = self.triples(to_relative * cell.centre);
            let radius = f64::from(cell.radius + MARGIN);
            let steepest = triples[0].y.abs() + radius;
            if steepest.cos() < 1e-3 || steepest >= std::f64::consts::FRAC_PI_2 {
                return Standing::Open;
            }
            let outer = radius / steepest.cos();
            let strays = DVec3::new(outer, radius, outer);
            let channels = |t: DVec3| {
                (0..3).map(move |k| {
                    let range = [self.min[k], self.max[k]];
                    let span = [(t[k] - strays[k]) as f32, (t[k] + strays[k]) as f32];
                    (range, [span[0] - MARGIN, span[1] + MARGIN])
                })
            };
            let allowed =
                |t: DVec3| channels(t).all(|(range, span)| holds_on_one_turn(range, span));
            let refused =
                |t: DVec3| channels(t).any(|(range, span)| misses_on_every_turn(range, span));
            if triples.iter().any(|&t| allowed(t)) {
                Standing::Allowed
            } else if triples.iter().all(|&t| refused(t)) {
                Standing::Refused
            } else {
                Standing::Open
            }
        })
    }

    /// The first triple of `relative`, each angle on the turn [`nearest_turn`] picks, when it
    /// lies inside every range by more than [`EulerOrder::from_quat_fast`]'s error and away
    /// from gimbal lock: then the exact decomposition in f64 finds the same triple on the same
    /// turns inside the ranges, and the rotation is allowed. `None` says nothing.
    #[inline]
    fn clearly_allowed(&self, relative: Quat) -> Option<Vec3> {
        /// `|cos b|` below which the quick triple is not trusted: its outer angles' error
        /// (about 1e-6 / cos b) stays below 1e-4 above it.
        const TRUSTED_COSINE: f32 = 0.02;
        /// Room for the quick triple's error, radians.
        const ROOM: f32 = 1e-4;
        let (angles, cos_b) = self.order.from_quat_fast(relative);
        // A NaN fails the comparison.
        (cos_b > TRUSTED_COSINE).then_some(())?;
        // Each angle's turn at or above the channel's minimum, clear of the minimum, the
        // maximum, and the next turn (which a range wider than a turn also holds).
        let past_min = turns_past(angles - self.min)?;
        let above = self.min + past_min;
        let clear = past_min.cmpge(Vec3::splat(ROOM))
            & past_min.cmple(Vec3::splat(std::f32::consts::TAU - ROOM))
            & (self.max - above).cmpge(Vec3::splat(ROOM));
        clear.all().then_some(above)
    }

    fn result(&self, relative: Quat, best: Clamped) -> Limited {
        let violation = best.squared.sqrt() as f32;
        let measured = best.turned.as_vec3().extend(0.0);
        if violation <= BOUNDARY_TOLERANCE {
            return Limited::unchanged(relative, measured);
        }
        let limited = Limited {
            relative: self.order.to_quat(best.clamped),
            inside: false,
            violation,
            measured,
        };
        // Near gimbal lock the outer angles stretch rotation distances without bound.
        if best.turned.y.cos().abs() < f64::from(NEAR_HALF_SWING) {
            let settled = settle(relative, limited);
            if !settled.inside && self.allowed_along_lock_family(relative) {
                return Limited::unchanged(relative, measured);
            }
            return settled;
        }
        limited
    }
}

impl RotationLimit for EulerLimit {
    #[inline]
    fn nearest(&self, relative: Quat, _: &LimitContext) -> Limited {
        if let Some(angles) = self.clearly_allowed(relative) {
            return Limited::unchanged(relative, angles.extend(0.0));
        }
        self.result(relative, self.nearest_clamp(relative))
    }

    fn nearest_continuing(&self, relative: Quat, previous: Vec4, _: &LimitContext) -> Limited {
        // An allowed rotation stays unchanged whatever the history.
        if let Some(angles) = self.clearly_allowed(relative) {
            return Limited::unchanged(relative, angles.extend(0.0));
        }
        let previous = previous.truncate().as_dvec3();
        let [first, second] = self.triples(relative).map(|t| {
            let turned = t + TAU * ((previous - t) / TAU).round();
            (turned.distance_squared(previous), turned)
        });
        let turned = if second.0 < first.0 {
            second.1
        } else {
            first.1
        };
        let best = self.nearest_clamp(relative);
        // An allowed rotation stays unchanged whatever the history.
        if best.squared == 0.0 {
            return self.result(relative, best);
        }
        self.result(relative, self.clamp(turned))
    }

    /// Read from the nearest's triple `m` (its `measured`) alone, with no decomposition: the
    /// continuing answer turns each triple towards `previous` `p` and takes the nearer, so it
    /// measures `m`'s triple on `m`'s turns when every channel of `m` lies within π of `p`'s
    /// and the other triple `(m₁ + π, π − m₂, m₃ + π)`, turned towards `p`, lies farther from
    /// `p`, both with room for `m`'s rounding to f32. Near gimbal lock the nearest may be a
    /// member of the locked family that neither triple is, so it says nothing there.
    fn continues_as(&self, _: Quat, nearest: &Limited, previous: Vec4) -> bool {
        /// Room for the rounding of a measured angle (at most ~10 rad) to f32, radians.
        const ROOM: f64 = 1e-4;
        let m = nearest.measured.truncate().as_dvec3();
        let p = previous.truncate().as_dvec3();
        if m.y.cos().abs() < 1e3 * LOCK_COSINE {
            return false;
        }
        let same_turns = (p - m).abs().max_element() < PI - ROOM;
        if !same_turns {
            return false;
        }
        let other = DVec3::new(m.x + PI, PI - m.y, m.z + PI);
        let other = other + TAU * ((p - other) / TAU).round();
        let here = m.distance_squared(p);
        let there = other.distance_squared(p);
        there - here > ROOM * (1.0 + here.sqrt() + there.sqrt())
    }

    fn validate(&self) -> Result<(), InvalidField> {
        for (i, axis) in self.order.axes().iter().enumerate() {
            validation::interval(&format!("{axis} range"), self.min[i], self.max[i])?;
        }
        Ok(())
    }

    fn label(&self) -> String {
        format!("Euler {} ranges", self.order)
    }

    fn space(&self) -> SpaceKind {
        SpaceKind::Full
    }

    fn examples() -> Vec<EulerLimit> {
        vec![
            EulerLimit {
                order: EulerOrder::ZXY,
                min: Vec3::new(-0.5, -1.0, -0.2),
                max: Vec3::new(1.2, 0.4, 0.9),
            },
            EulerLimit {
                order: EulerOrder::XYZ,
                min: Vec3::new(2.5, -0.3, -3.5),
                max: Vec3::new(3.8, 0.3, -2.7),
            },
        ]
    }
}

/// `x` modulo a turn, in `[0, 2π)` up to rounding, for `|x|` up to a hundred and fifty turns
/// (`None` beyond): the truncating conversion instead of `floor` or `%`, which are library calls on
/// the baseline x86-64 target.
#[inline(always)]
fn turns_past(x: Vec3) -> Option<Vec3> {
    use std::f32::consts::TAU;
    // A NaN passes here and fails the caller's comparisons.
    if x.abs().cmpge(Vec3::splat(1e3)).any() {
        return None;
    }
    let turns = x * (1.0 / TAU);
    let truncated = turns.as_ivec3().as_vec3();
    let floor = truncated - Vec3::select(truncated.cmpgt(turns), Vec3::ONE, Vec3::ZERO);
    Some(x - TAU * floor)
}

/// The representative `angle + 2πk` nearest to `[lo, hi]`: inside when one is, otherwise the
/// nearer of the one just above `hi` and the one just below `lo`.
fn nearest_turn(angle: f64, lo: f64, hi: f64) -> f64 {
    // The representative at or above `lo`, and the one below it.
    let above = lo + (angle - lo).rem_euclid(TAU);
    if above <= hi {
        return above;
    }
    let below = above - TAU;
    if above - hi <= lo - below {
        above
    } else {
        below
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_take_the_nearest_representative() {
        assert_eq!(nearest_turn(0.5, 0.0, 1.0), 0.5);
        assert!((nearest_turn(0.5 + TAU, 0.0, 1.0) - 0.5).abs() < 1e-12);
        assert!((nearest_turn(-0.2, 0.0, 1.0) + 0.2).abs() < 1e-12);
        assert!((nearest_turn(3.0, -1.0, 1.0) - 3.0).abs() < 1e-12);
        assert!((nearest_turn(-3.0 + TAU, -1.0, 1.0) + 3.0).abs() < 1e-12);
    }
}

#[cfg(test)]
mod quick_tests {
    use super::*;
    use crate::measure::SeededRandom;

    /// Limits of every order with ranges narrow, wide, off-centre and wider than a turn.
    fn limits(random: &mut SeededRandom) -> Vec<EulerLimit> {
        let mut unit = || random.next_unit() as f32;
        let mut limits = Vec::new();
        for order in EulerOrder::ALL {
            for _ in 0..6 {
                let low = Vec3::new(-4.0 * unit(), -1.75 * unit(), -4.0 * unit());
                let span = Vec3::new(7.0 * unit(), 3.5 * unit() + 0.01, 7.0 * unit());
                limits.push(EulerLimit {
                    order,
                    min: low,
                    max: low + span,
                });
            }
        }
        limits
    }

    /// Rotations from everywhere: Haar-random in both covers and a hair off unit length,
    /// triples at and near gimbal lock, triples inside the ranges and a hair from their ends,
    /// on other turns.
    fn inputs(limit: &EulerLimit, random: &mut SeededRandom) -> Vec<Quat> {
        let mut inputs = Vec::new();
        for _ in 0..300 {
            let q = random.rotation();
            inputs.extend([q, -q, q * (1.0 + 1e-5), q * (1.0 - 1e-5)]);
        }
        let (lo, hi) = (limit.min.as_dvec3(), limit.max.as_dvec3());
        for n in 0..600 {
            let mut t = DVec3::ZERO;
            for k in 0..3 {
                t[k] = lo[k] + (hi[k] - lo[k]) * random.next_unit();
            }
            match n % 4 {
                // A channel a hair inside or outside an end.
                0 => {
                    let k = n / 4 % 3;
                    let hair = 10f64.powf(-8.0 + 5.0 * random.next_unit());
                    t[k] = if n % 8 == 0 { lo[k] } else { hi[k] }
                        + hair * if n % 3 == 0 { 1.0 } else { -1.0 };
                }
                // At or near gimbal lock.
                1 => {
                    let off = 10f64.powf(-8.0 + 7.0 * random.next_unit());
                    t.y = (std::f64::consts::FRAC_PI_2 - off).copysign(t.y);
                }
                // On another turn.
                2 => t += TAU * DVec3::new(1.0, 0.0, -2.0),
                _ => {}
            }
            let q = limit.order.to_quat(t);
            inputs.extend([q, -q]);
        }
        inputs
    }

    #[test]
    fn the_quick_look_passes_only_what_the_exact_decomposition_allows() {
        let mut random = SeededRandom::new(11);
        let mut passed = 0;
        for limit in limits(&mut random) {
            for q in inputs(&limit, &mut random) {
                let exact = limit.nearest_clamp(q);
                let Some(quick) = limit.clearly_allowed(q) else {
                    // Every rotation allowed away from gimbal lock and the ranges' ends passes.
                    let depth = (exact.turned - limit.min.as_dvec3())
                        .min(limit.max.as_dvec3() - exact.turned)
                        .min_element();
                    let past_min = exact.turned - limit.min.as_dvec3();
                    let clear = exact.turned.y.cos() > 0.05
                        && depth > 2e-4
                        && past_min.max_element() < TAU - 2e-4;
                    assert!(exact.squared > 0.0 || !clear, "{q:?} in {limit:?}");
                    continue;
                };
                passed += 1;
                assert_eq!(exact.squared, 0.0, "{q:?} in {limit:?}: {exact:?}");
                let strays = (exact.turned - quick.as_dvec3()).abs().max_element();
                assert!(
                    strays < 1e-4,
                    "{q:?} in {limit:?}: {quick} against {exact:?}"
                );
                let answer = limit.nearest(q, &LimitContext::NONE);
                assert!(answer.inside && answer.relative == q);
            }
        }
        assert!(passed > 10_000, "{passed}");
    }
}

#[cfg(test)]
mod lock_tests {
    use super::*;

    /// The least squared clamp distance over every triple of the locked rotation
    /// `(a, b, c)`, by brute force over the family `(a + s, b, c + σ·s)` (both signs tried: the
    /// wrong one changes the rotation and is dropped) and the channels' turns.
    fn brute_force(limit: &EulerLimit, angles: DVec3) -> f64 {
        let q = limit.order.to_quat(angles);
        let mut best = f64::INFINITY;
        for sigma in [1.0, -1.0] {
            for k in 0..20_000 {
                let s = -PI + TAU * k as f64 / 20_000.0;
                let member = DVec3::new(angles.x + s, angles.y, angles.z + sigma * s);
                if q.dot(limit.order.to_quat(member)).abs() < 1.0 - 1e-6 {
                    continue;
                }
                let mut turned = DVec3::ZERO;
                for c in 0..3 {
                    turned[c] = nearest_turn(member[c], limit.min[c].into(), limit.max[c].into());
                }
                best = best.min(limit.clamp(turned).squared);
            }
        }
        best
    }

    #[test]
    fn at_gimbal_lock_every_triple_of_the_rotation_counts() {
        let mut random = crate::measure::SeededRandom::new(7);
        for order in EulerOrder::ALL {
            for trial in 0..40 {
                let unit = |random: &mut crate::measure::SeededRandom| random.next_unit() as f32;
                let low = Vec3::new(-3.0 * unit(&mut random), -0.3, -3.0 * unit(&mut random));
                let limit = EulerLimit {
                    order,
                    min: low,
                    max: low + Vec3::new(2.5 * unit(&mut random), 2.0, 2.5 * unit(&mut random)),
                };
                let b = if trial % 2 == 0 { 1.0 } else { -1.0 } * std::f64::consts::FRAC_PI_2;
                let angles = DVec3::new(
                    TAU * random.next_unit() - PI,
                    b,
                    TAU * random.next_unit() - PI,
                );
                let q = order.to_quat(angles);
                let expected = brute_force(&limit, angles).sqrt();
                let answer = limit.nearest(q, &LimitContext::NONE);
                let violation = if answer.inside { 0.0 } else { answer.violation };
                assert!(
                    (f64::from(violation) - expected).abs() < 2e-3,
                    "{order:?} {angles:?} in {limit:?}: {violation} against {expected}"
                );
                if answer.inside {
                    assert!(
                        expected <= 1e-3,
                        "{order:?} {angles:?}: inside, {expected} away"
                    );
                }
                // The answer is allowed as measured again.
                assert!(
                    limit
                        .nearest(answer.relative, &LimitContext::NONE)
                        .violation
                        < 1e-4
                );
            }
        }
    }
}
