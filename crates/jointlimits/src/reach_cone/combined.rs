//! The nearest allowed rotation of a reach cone in the combined metric `√(α² + δ²)` where the
//! twist does not fit at the nearest direction and the twist limits vary across the cone: a
//! direction with wider limits may then be nearer in the sum.
//!
//! In slice `i` the limits are ratios of linear functions of the direction (the module docs'
//! unnormalised barycentric weights): `lo(e) = (A_lo·e)/(Σ·e)` and `hi(e) = (A_hi·e)/(Σ·e)`,
//! with `Σ·e > 0` in the slice. So the directions of the slice where a twist `t` is allowed,
//!
//! ```text
//! Z(t) = slice ∩ {(t·Σ − A_lo)·e ≥ 0} ∩ {(A_hi − t·Σ)·e ≥ 0},
//! ```
//!
//! form a convex spherical polygon of at most five great-circle edges, whose nearest point to
//! the input direction `d` is exact and cheap (the foot of `d` on an edge's great circle, or a
//! vertex). The least cost over the slice is then a problem in one variable,
//!
//! ```text
//! φ(t) = angle(d, Z(t))² + δ(t)²,   δ(t) = |t − τ| over the input twist's turns τ,
//! ```
//!
//! and over the cone the least over its slices. A branch and bound over (slice, interval of
//! `t`) proves the answer: for `t ∈ [t₁, t₂]` every allowed direction lies in
//! `slice ∩ {lo ≤ t₂} ∩ {hi ≥ t₁}`, so its distance squared plus the twist's distance from the
//! interval bounds `φ` below over the interval, and `φ` at the interval's middle bounds the least
//! cost above. Intervals that cannot beat the best by [`PROOF_TOLERANCE`] are dropped, the others
//! halved. A descent from the proven point (doubling steps downhill until the cost rises, then
//! Brent's method in the bracket) settles its basin's minimum to f32 rounding (2e-8 rad of
//! twist), so the answer moves continuously with the input within a basin. Everything is
//! computed in f64: the cost is flat at its minimum, and f32 rounding of it would leave the
//! minimiser uncertain by about `√(1e-7)`; in f64 the same holds near `√(1e-16)`, which is why
//! settling further only spends evaluations on rounding.

use std::f64::consts::TAU;

use glam::{DVec3, Vec3};

use super::ReachCone;

/// How near (radians, in the metric) the bounded search brings its answer to the least
/// distance before the golden sections refine it: well within the accuracy promised.
const PROOF_TOLERANCE: f64 = 5e-4;

/// Intervals of twist narrower than this (radians) are not halved again.
const NARROWEST: f64 = 1e-7;

/// Intervals waiting at most in one slice's depth-first search: each halving leaves one
/// sibling behind, and halvings stop at [`NARROWEST`].
const STACK: usize = 64;

/// Where the refinement stops: the minimiser is known to this many radians of twist.
const SETTLED: f64 = 2e-8;

/// Steps of the refinement at most (golden sections alone would bring a bracket of 0.2 rad
/// to `SETTLED` in 40).
const REFINE_STEPS: usize = 60;

/// How far (radians of twist) either side of a known answer the refinement looks for the
/// minimum of its basin.
const SETTLE_REACH: f64 = 0.1;

/// How many times at most the refinement walks on from a minimum at its bracket's end.
const SETTLE_WALKS: usize = 16;

/// A direction this near a slice plane (the cosine of its angle from it) lies on it.
const ON_PLANE: f64 = 1e-9;

/// How the input twist is measured against a twist: on its nearest turn (stateless) or on one
/// turn fixed by a stream.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Turn {
    /// Every turn `τ + 2πk`; the nearest counts.
    Nearest(f64),
    /// This turn only.
    Fixed(f64),
}

impl Turn {
    /// The input twist's turn nearest to `t`.
    pub(crate) fn turned(self, t: f64) -> f64 {
        match self {
            Turn::Nearest(twist) => twist + TAU * ((t - twist) / TAU).round(),
            Turn::Fixed(twist) => twist,
        }
    }

    /// The distance from the input twist (on the turn this rule allows) to the interval
    /// `[low, high]`.
    fn gap(self, low: f64, high: f64) -> f64 {
        match self {
            Turn::Nearest(twist) => {
                // The first turn at or above `low`.
                let offset = (twist - low).rem_euclid(TAU);
                if low + offset <= high {
                    0.0
                } else {
                    (low + offset - high).min(TAU - offset)
                }
            }
            Turn::Fixed(twist) => (low - twist).max(twist - high).max(0.0),
        }
    }
}

/// A slice's planes and its twist limits as linear functions of the direction (module docs).
#[derive(Clone, Copy, Debug)]
struct SliceTwist {
    /// `Sᵢ`, `−Sᵢ₊₁` and `Bᵢ` (unit): the slice is where all three are non-negative.
    sides: [DVec3; 3],
    /// `Σ`: the sum of the unnormalised weights.
    sum: DVec3,
    /// `A_lo`, `A_hi`: the weighted corner limits.
    low: DVec3,
    high: DVec3,
    /// The least lower and greatest upper limit over the slice (at its corners).
    range: (f64, f64),
}

impl SliceTwist {
    /// The unit normals of the directions of the slice where some twist of `[low, high]` is
    /// allowed, `lo ≤ high` and `hi ≥ low`: the slice's sides and the two twist planes (zero
    /// where a limit is the same across the slice and the plane holds everywhere or nowhere,
    /// told apart by the slice's range).
    fn planes(&self, high: f64, low: f64) -> [DVec3; 5] {
        let unit = |n: DVec3, scale: f64| {
            let length = n.length();
            if length <= 1e-12 * scale {
                DVec3::ZERO
            } else {
                n / length
            }
        };
        let scale = self.sum.length() * (1.0 + high.abs().max(low.abs()));
        let [start, end, edge] = self.sides;
        [
            start,
            end,
            edge,
            unit(self.sum * high - self.low, scale),
            unit(self.high - self.sum * low, scale),
        ]
    }
}

/// A candidate answer: an allowed direction of slice `slice`, the twist `t` there, and the
/// cost `α² + δ²`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Candidate {
    pub slice: usize,
    pub direction: DVec3,
    pub t: f64,
    pub cost: f64,
}

/// The minimiser of `f` over `[low, high]` by Brent's method, starting from `start`: golden
/// sections that keep a bracket of the minimum, with steps to the vertex of the parabola through
/// the three best points where that lands well inside it, which near a smooth minimum
/// converge superlinearly (a dozen evaluations instead of forty). Stops once the minimiser is
/// known to [`SETTLED`].
fn brent(f: impl Fn(f64) -> f64, (mut low, mut high): (f64, f64), start: f64) -> f64 {
    // The smaller golden share, (3 − √5)/2.
    const SHARE: f64 = 0.381_966_011_250_105_1;
    let mut x = start.clamp(low, high);
    let mut fx = f(x);
    let (mut w, mut fw, mut v, mut fv) = (x, fx, x, fx);
    // The last step, and the one before it.
    let (mut step, mut before): (f64, f64) = (0.0, 0.0);
    for _ in 0..REFINE_STEPS {
        let middle = 0.5 * (low + high);
        let tolerance = SETTLED + 1e-12 * x.abs();
        if (x - middle).abs() <= 2.0 * tolerance - 0.5 * (high - low) {
            break;
        }
        let mut parabolic = false;
        if before.abs() > tolerance {
            // The vertex of the parabola through x, w and v, as x + p/q.
            let r = (x - w) * (fx - fv);
            let mut q = (x - v) * (fx - fw);
            let mut p = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if q > 0.0 {
                p = -p;
            } else {
                q = -q;
            }
            let older = before;
            before = step;
            // Accepted only when it moves less than half the step before last, inside the
            // bracket: otherwise the parabola is not to be trusted.
            if p.abs() < (0.5 * q * older).abs() && p > q * (low - x) && p < q * (high - x) {
                step = p / q;
                let u = x + step;
                if u - low < 2.0 * tolerance || high - u < 2.0 * tolerance {
                    step = tolerance.copysign(middle - x);
                }
                parabolic = true;
            }
        }
        if !parabolic {
            before = if x >= middle { low - x } else { high - x };
            step = SHARE * before;
        }
        let u = if step.abs() >= tolerance {
            x + step
        } else {
            x + tolerance.copysign(step)
        };
        let fu = f(u);
        if fu <= fx {
            if u >= x {
                low = x;
            } else {
                high = x;
            }
            (v, fv, w, fw, x, fx) = (w, fw, x, fx, u, fu);
        } else {
            if u < x {
                low = u;
            } else {
                high = u;
            }
            if fu <= fw || w == x {
                (v, fv, w, fw) = (w, fw, u, fu);
            } else if fu <= fv || v == x || v == w {
                (v, fv) = (u, fu);
            }
        }
    }
    x
}

/// The first step of [`descend`] (radians of twist), doubled until the cost rises.
const FIRST_STEP: f64 = 1e-3;

/// The minimiser of `f` over `[low, high]` in the basin `start` lies in: downhill from `start`
/// by doubling steps until the cost rises, so the minimum is bracketed in its own basin, then
/// [`brent`] within that bracket. A minimum at an end of `[low, high]` (a twist limit at a
/// corner, or the end of the reach) is recognised by the cost rising away from it within
/// [`SETTLED`], where golden sections would crawl towards it in forty steps.
fn descend(f: impl Fn(f64) -> f64, (low, high): (f64, f64), start: f64) -> f64 {
    let x = start.clamp(low, high);
    let fx = f(x);
    if fx == f64::INFINITY {
        // No direction allows the twist at `start` (rounding at a corner's limit): no basin to
        // follow, so the whole bracket is searched.
        return brent(&f, (low, high), x);
    }
    let probe = |t: f64| {
        let t = t.clamp(low, high);
        (t, f(t))
    };
    let (up, down) = (probe(x + FIRST_STEP), probe(x - FIRST_STEP));
    // Downhill along `sign`, from `x` through the first probe on that side.
    let (sign, mut near) = if up.1 < fx && up.1 <= down.1 {
        (1.0, up)
    } else if down.1 < fx {
        (-1.0, down)
    } else {
        // Neither side is lower: the minimum lies within a step of `x`.
        return brent(&f, (down.0, up.0), x);
    };
    let end = if sign > 0.0 { high } else { low };
    let (mut behind, mut step) = (x, FIRST_STEP);
    loop {
        if near.0 == end {
            // Downhill to the end: the minimum is there when the cost rises away from it.
            let inside = end - sign * SETTLED;
            if f(inside) >= near.1 {
                return end;
            }
            return brent(&f, (behind.min(end), behind.max(end)), inside);
        }
        step *= 2.0;
        let far = probe(near.0 + sign * step);
        if far.1 >= near.1 {
            return brent(&f, (behind.min(far.0), behind.max(far.0)), near.0);
        }
        (behind, near) = (near.0, far);
    }
}

/// The angle between unit vectors, accurate at both ends.
fn angle(a: DVec3, b: DVec3) -> f64 {
    a.cross(b).length().atan2(a.dot(b))
}

/// The nearest point to the unit `d` of the convex spherical polygon `{e : n·e ≥ 0}` for every
/// unit `n` of `units` (a zero `n` holds everywhere), which lies within a hemisphere: `d` itself
/// when inside; else the foot of `d` on an edge's great circle where that lies on the polygon,
/// or a vertex (along a great circle the angle from `d` grows monotonically away from the
/// foot, so an edge's nearest point is its foot or an end). `None` when the polygon is empty.
///
/// Everything is decided from dot and triple products of the unit normals: the foot on plane
/// `j` is `d − nⱼ(nⱼ·d)`, at cosine `√(1 − (nⱼ·d)²)` from `d`, and plane `k` holds it when
/// `nₖ·d − (nⱼ·d)(nⱼ·nₖ) ≥ 0`; the vertex `±(nⱼ × nₖ)` is held by plane `m` when
/// `±(nⱼ × nₖ)·nₘ ≥ 0`. Only the winner is built as a vector, and a held foot ends the search.
fn nearest_in_polygon(d: DVec3, units: &[DVec3; 5]) -> Option<DVec3> {
    const SLACK: f64 = 1e-12;
    let count = units.len();
    let along: [f64; 5] = std::array::from_fn(|j| units[j].dot(d));
    if along.iter().all(|&a| a >= -SLACK) {
        return Some(d);
    }
    for j in 0..count {
        // A foot on a plane that `d` does not cross is `d`'s own side: never the nearest.
        if along[j] >= 0.0 {
            continue;
        }
        let cosine = (1.0 - along[j] * along[j]).max(0.0).sqrt();
        let holds = (0..count).all(|k| {
            k == j || along[k] - along[j] * units[j].dot(units[k]) >= -SLACK * cosine.max(SLACK)
        });
        if holds && cosine > SLACK {
            // The polygon lies in this plane's half of the sphere, whose nearest point to `d`
            // is the foot: held by the polygon, it is the polygon's nearest too.
            return Some((d - units[j] * along[j]).normalize());
        }
    }
    // No foot is held: the nearest is a vertex. The best so far by its cosine from `d`.
    let mut best: Option<(f64, DVec3)> = None;
    for j in 0..count {
        for k in j + 1..count {
            // A vertex nearest `d` has `d` beyond one of its edges' planes at least.
            if along[j] >= 0.0 && along[k] >= 0.0 {
                continue;
            }
            let cross = units[j].cross(units[k]);
            let length = cross.length();
            if length < 1e-12 {
                continue;
            }
            let towards = cross.dot(d) / length;
            // The sign whose vertex is nearer `d` first: the other is its antipode.
            for sign in [towards.signum(), -towards.signum()] {
                let cosine = sign * towards;
                if best.is_some_and(|(c, _)| c >= cosine) {
                    continue;
                }
                let holds = (0..count)
                    .all(|m| m == j || m == k || sign * cross.dot(units[m]) >= -SLACK * length);
                if holds {
                    best = Some((cosine, cross * (sign / length)));
                    break;
                }
            }
        }
    }
    best.map(|(_, e)| e.normalize())
}

impl ReachCone {
    /// Slice `i`'s planes and twist limits as linear functions (module docs).
    fn slice_twist(&self, i: usize) -> SliceTwist {
        let slice = &self.slices[i];
        let next = (i + 1) % self.boundary.len();
        let (this, after, visible) = (
            self.twist_at_boundary[i],
            self.twist_at_boundary[next],
            self.twist_at_visible,
        );
        // The weights of `Pᵢ`, `Pᵢ₊₁` and `V` (`slice_weights`), as vectors.
        let w_this = -slice.end.as_dvec3();
        let w_next = slice.start.as_dvec3();
        let w_visible = slice.edge.as_dvec3() * f64::from(slice.edge_sine);
        let weighted = |a: f32, b: f32, v: f32| {
            w_this * f64::from(a) + w_next * f64::from(b) + w_visible * f64::from(v)
        };
        SliceTwist {
            sides: [w_next, w_this, slice.edge.as_dvec3()].map(DVec3::normalize_or_zero),
            sum: w_this + w_next + w_visible,
            low: weighted(this.min, after.min, visible.min),
            high: weighted(this.max, after.max, visible.max),
            range: (
                f64::from(this.min.min(after.min).min(visible.min)),
                f64::from(this.max.max(after.max).max(visible.max)),
            ),
        }
    }

    /// Whether the twist limits are the same at every corner: then the nearest direction with
    /// its twist clamped is the exact answer.
    pub(crate) fn twist_is_uniform(&self) -> bool {
        self.twist_at_boundary
            .iter()
            .all(|t| *t == self.twist_at_visible)
    }

    /// The least cost over slice `s` for twists in `[t₁, t₂]`, bounded below: the distance to
    /// the directions where some twist of the interval is allowed, and the twist's distance
    /// from the interval; and the first part alone (squared), which bounds every part of the
    /// interval's too.
    fn lower_bound(s: &SliceTwist, d: DVec3, turn: Turn, (t1, t2): (f64, f64)) -> (f64, f64) {
        match nearest_in_polygon(d, &s.planes(t2, t1)) {
            Some(e) => {
                let swing = angle(d, e).powi(2);
                (swing + turn.gap(t1, t2).powi(2), swing)
            }
            None => (f64::INFINITY, f64::INFINITY),
        }
    }

    /// `φ(t)` over slice `s` (module docs) and the direction attaining it.
    fn cost_at(s: &SliceTwist, d: DVec3, turn: Turn, t: f64) -> Option<(f64, DVec3)> {
        let e = nearest_in_polygon(d, &s.planes(t, t))?;
        Some((angle(d, e).powi(2) + (t - turn.turned(t)).powi(2), e))
    }

    /// The least cost over slice `slice` for twists in `bracket` (cut to the slice's range),
    /// searched from `start` ([`descend`]).
    fn minimise(
        &self,
        slice: usize,
        d: DVec3,
        turn: Turn,
        start: f64,
        bracket: (f64, f64),
    ) -> Option<Candidate> {
        let s = self.slice_twist(slice);
        let bracket = (bracket.0.max(s.range.0), bracket.1.min(s.range.1));
        if bracket.0 > bracket.1 {
            return None;
        }
        let phi = |t: f64| Self::cost_at(&s, d, turn, t).map_or(f64::INFINITY, |(c, _)| c);
        let t = descend(phi, bracket, start);
        let (cost, direction) = Self::cost_at(&s, d, turn, t)?;
        Some(Candidate {
            slice,
            direction,
            t,
            cost,
        })
    }

    /// The least cost for twists within `reach` of `t` in slice `slice`, by golden sections;
    /// where that minimum lies on a slice plane, the neighbour across it is searched too (the
    /// limits are continuous there, with a kink), so the minimum can move on across it.
    fn settle(&self, slice: usize, d: DVec3, turn: Turn, t: f64, reach: f64) -> Option<Candidate> {
        let mut best = self.settle_within(slice, d, turn, t, reach)?;
        let (mut centre, mut searched) = (t, slice);
        // A minimum at the bracket's end, or in a neighbouring slice, may lie farther on: walk
        // on from it (the basin's own minimum moved farther than the bracket reaches, or left
        // with a fold, or runs along a slice plane).
        for _ in 0..SETTLE_WALKS {
            let at_end = (best.t - centre).abs() >= (1.0 - 1e-6) * reach;
            if !at_end && best.slice == searched {
                break;
            }
            (centre, searched) = (best.t, best.slice);
            match self.settle_within(searched, d, turn, centre, reach) {
                Some(next) if next.cost < best.cost => best = next,
                _ => break,
            }
        }
        Some(best)
    }

    /// [`ReachCone::settle`] within one bracket.
    fn settle_within(
        &self,
        slice: usize,
        d: DVec3,
        turn: Turn,
        t: f64,
        reach: f64,
    ) -> Option<Candidate> {
        let bracket = (t - reach, t + reach);
        let here = self.minimise(slice, d, turn, t, bracket)?;
        let n = self.boundary.len();
        let [start, end, _] = self.slice_twist(slice).sides;
        let on = |plane: DVec3| plane.normalize_or_zero().dot(here.direction).abs() < ON_PLANE;
        let neighbours = [
            on(start).then_some((slice + n - 1) % n),
            on(end).then_some((slice + 1) % n),
        ];
        neighbours
            .into_iter()
            .flatten()
            .filter_map(|s| self.minimise(s, d, turn, here.t, bracket))
            .chain([here])
            .min_by(|x, y| x.cost.total_cmp(&y.cost))
    }

    /// The allowed direction and twist nearest to (`direction`, `turn`) in `α² + δ²` over the
    /// whole cone (module docs): `known` (an answer already at hand, the nearest direction with
    /// its twist clamped) settled into its own minimum, or the bounded search's answer settled
    /// likewise where that is nearer, proven within [`PROOF_TOLERANCE`].
    pub(crate) fn nearest_combined(
        &self,
        direction: Vec3,
        turn: Turn,
        known: Candidate,
    ) -> Candidate {
        let d = direction.as_dvec3().normalize();
        // The known answer's own basin first: its minimum bounds the search tightly.
        let mut best = self
            .settle(known.slice, d, turn, known.t, SETTLE_REACH)
            .filter(|settled| settled.cost < known.cost)
            .unwrap_or(known);
        let mut found: Option<(usize, f64, f64)> = None;
        let mut best_cost = best.cost;
        let beats = |lb: f64, best: f64| {
            let reach = (best.sqrt() - PROOF_TOLERANCE).max(0.0);
            lb < reach * reach
        };
        for slice in 0..self.boundary.len() {
            let s = self.slice_twist(slice);
            let (lb, swing) = Self::lower_bound(&s, d, turn, s.range);
            if !beats(lb, best_cost) {
                continue;
            }
            let mut stack = [(0.0, 0.0, 0.0, 0.0); STACK];
            stack[0] = (s.range.0, s.range.1, lb, swing);
            let mut len = 1;
            while len > 0 {
                len -= 1;
                let (t1, t2, lb, swing) = stack[len];
                if !beats(lb, best_cost) {
                    continue;
                }
                let middle = 0.5 * (t1 + t2);
                if let Some((cost, _)) = Self::cost_at(&s, d, turn, middle)
                    && cost < best_cost
                {
                    best_cost = cost;
                    found = Some((slice, middle, t2 - t1));
                }
                if t2 - t1 < NARROWEST || len + 2 > STACK {
                    continue;
                }
                // A half's directions are some of the interval's: its swing part bounds theirs,
                // which spares the polygon where the twist part already decides.
                let halves = [(t1, middle), (middle, t2)].map(|(a, b)| {
                    let floor = swing + turn.gap(a, b).powi(2);
                    let (lb, swing) = if beats(floor, best_cost) {
                        Self::lower_bound(&s, d, turn, (a, b))
                    } else {
                        (floor, swing)
                    };
                    (a, b, lb, swing)
                });
                // The more promising half goes on top, to be searched first.
                let (first, second) = if halves[0].2 <= halves[1].2 {
                    (halves[0], halves[1])
                } else {
                    (halves[1], halves[0])
                };
                for half in [second, first] {
                    if beats(half.2, best_cost) {
                        stack[len] = half;
                        len += 1;
                    }
                }
            }
        }
        // Another basin is nearer: settle into its minimum.
        if let Some((slice, t, width)) = found {
            let s = self.slice_twist(slice);
            let raw = Self::cost_at(&s, d, turn, t).map(|(cost, direction)| Candidate {
                slice,
                direction,
                t,
                cost,
            });
            let settled = self.settle(slice, d, turn, t, width.max(SETTLE_REACH));
            for candidate in [raw, settled].into_iter().flatten() {
                if candidate.cost < best.cost {
                    best = candidate;
                }
            }
        }
        best
    }

    /// The least cost near a stream's previous answer (twist `t` in slice `slice`): golden
    /// sections over twists within [`SETTLE_REACH`] of `t`, so that consecutive frames follow
    /// one minimum.
    pub(crate) fn nearest_combined_from(
        &self,
        direction: Vec3,
        turn: Turn,
        slice: usize,
        t: f64,
    ) -> Option<Candidate> {
        let d = direction.as_dvec3().normalize();
        self.settle(slice, d, turn, t, SETTLE_REACH)
    }
}
