//! Baking any limit into a table, and measuring how far the table strays from it.
//!
//! 1. **Twist runs**: at every vertex direction `d`, the rotations pointing the bone along `d`
//!    with twists `τ` on [`TWIST_SAMPLES`] evenly spaced steps are tested against the limit;
//!    every run of allowed steps, its ends found by bisection, is kept (a run narrower than a
//!    step is found around the twist of the limit's nearest rotation). A direction with no
//!    allowed twist is outside. At the four corners, which point the bone against its axis,
//!    the runs are read a hair inside each corner's own cell.
//! 2. **Allowed directions**: the boundary is traced cell by cell like a table's own
//!    ([`BoundaryChains::traced`]), but every crossing is found by bisection against the limit
//!    itself, so it is exact to `2⁻¹⁸` of a cell; each vertex then holds the signed angle to the
//!    nearest traced arc. The table's interpolated curve follows the true boundary to within a
//!    small fraction of a cell where it is smooth.
//! 3. **One run, on common turns**: a table holds one twist range per vertex, and a range and
//!    the same range moved by 2π are the same limit, but interpolation between vertices needs
//!    them on the same turn. Spreading out from the vertex nearest the axis, within the square
//!    and smoothest step first (like quality-guided phase unwrapping), each vertex takes the run
//!    its neighbour continues, on the neighbour's turn. Vertices outside take the range of the
//!    inside vertex they were reached from, and those next to the boundary are then solved so
//!    that the interpolated range on the boundary is the limit's own there.
//! 4. Stress rises from 0 at [`STRESS_DEPTH`] inside the boundary to 1 on it; the break margin is
//!    [`BREAK_MARGIN`].

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};
use std::f32::consts::{PI, TAU};

use glam::{Quat, Vec2, Vec3};
use rayon::prelude::*;

use super::boundary::{BoundaryChains, BoundarySource, grid_neighbours, neighbours};
use super::grid::VertexGrid;
use super::limit::{TableLimit, TableValues};
use super::octahedral::OctahedralMap;
use super::swing_set::{angle, fold_pairs, map_around};
use crate::contract::{LimitContext, RotationLimit};
use crate::fit::table::{BREAK_MARGIN, STRESS_DEPTH};
use crate::golden_section::golden_section;
use crate::measure::SeededRandom;
use crate::measure::tightness::pointing;
use crate::twist::TwistRange;

/// Twist steps tested per direction.
pub const TWIST_SAMPLES: usize = 128;

/// Twist steps at which the violation is measured when no step is allowed.
const COARSE_STEPS: usize = 32;

/// The largest violation at the coarse steps from which a narrow allowed twist is searched for,
/// radians: farther, the direction is outside.
const NARROW_SEARCH: f32 = 0.25;

/// Bisection steps for a twist limit or a boundary crossing.
const BISECTIONS: usize = 18;

/// The smallest value an outside vertex holds, so that storing it on the 16-bit lattice keeps it
/// outside (two lattice steps).
const SMALLEST_OUTSIDE: f32 = 2.0 * TAU / 65535.0;

/// How far past the boundary point an outside vertex's twist range is read, radians.
const NUDGE: f32 = 1e-3;

/// How far from the direction opposite the axis a corner's twist runs are read, radians, or a
/// quarter of the corner cell's diagonal where that is shorter. Nearer, the reading suffers
/// twice: a limit allows every member of the family of splits of a near-180° swing within its
/// tolerance, which widens the twist range read at angle `θ` by about `2·10⁻⁵/θ`; and the
/// swing's azimuth, which sets the twist, is carried to only about `10⁻⁷/θ` in f32. Farther,
/// the corner takes the value of a direction farther from its own.
const CORNER_READ: f32 = 0.01;

/// Why a limit cannot be baked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BakeError {
    /// No vertex direction of the grid can be reached with any twist.
    #[error("the limit allows no bone direction on a {0}×{0} grid: nothing to bake")]
    Empty(usize),
    /// The resolution is outside [`super::limit::RESOLUTIONS`].
    #[error("a table has 4 to 2048 cells per side, not {0}")]
    Resolution(usize),
}

/// The rotations that point the bone along a direction, as a limit sees them.
struct Pointing<'a, L> {
    limit: &'a L,
    axis: Vec3,
}

impl<L: RotationLimit> Pointing<'_, L> {
    /// Whether pointing along `direction` with twist `twist` is allowed.
    fn allowed(&self, direction: Vec3, twist: f32) -> bool {
        self.limit
            .contains(pointing(self.axis, direction, twist), &LimitContext::NONE)
    }

    /// An allowed twist along `direction` that the steps miss (a range narrower than a step,
    /// where the region thins out towards its boundary): the twist of the limit's nearest
    /// rotation to the untwisted pointing, or the twist of least violation, found from
    /// [`COARSE_STEPS`] steps by golden-section search.
    fn narrow_twist(&self, direction: Vec3) -> Option<f32> {
        let nearest = self
            .limit
            .nearest(pointing(self.axis, direction, 0.0), &LimitContext::NONE);
        let twist = crate::direction_twist::measure(self.axis, nearest.relative).0;
        if self.allowed(direction, twist) {
            return Some(twist);
        }
        let step = TAU / COARSE_STEPS as f32;
        let (best, least) = (0..COARSE_STEPS)
            .map(|k| {
                let twist = -PI + k as f32 * step;
                (twist, self.violation(direction, twist))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        if least > NARROW_SEARCH {
            return None;
        }
        self.allowed_twist_in(direction, (best - step, best + step))
    }

    /// How far pointing along `direction` with `twist` is from the limit.
    fn violation(&self, direction: Vec3, twist: f32) -> f32 {
        self.limit
            .nearest(pointing(self.axis, direction, twist), &LimitContext::NONE)
            .violation
    }

    /// An allowed twist along `direction` within `bracket`, found by golden-section search on
    /// the violation.
    fn allowed_twist_in(&self, direction: Vec3, bracket: (f32, f32)) -> Option<f32> {
        let violation = |twist: f32| self.violation(direction, twist);
        let (twist, _) = golden_section(violation, bracket, BISECTIONS, |v| v <= 0.0);
        self.allowed(direction, twist).then_some(twist)
    }

    /// A run of allowed twists along `direction` narrower than a step, within [`NARROW_SEARCH`]
    /// of `around`: the steps miss it, but a neighbouring direction's run may continue into it.
    fn narrow_run_near(&self, direction: Vec3, around: f32) -> Option<TwistRange> {
        let twist =
            self.allowed_twist_in(direction, (around - NARROW_SEARCH, around + NARROW_SEARCH))?;
        let step = TAU / TWIST_SAMPLES as f32;
        let inside = |t: f32| self.allowed(direction, t);
        Some(TwistRange {
            min: bisect(twist - step, twist, inside),
            max: bisect(twist + step, twist, inside),
        })
    }

    /// The `k`-th twist step (any integer `k`; steps repeat every turn).
    fn step(k: i64) -> f32 {
        -PI + (k as f32 + 0.5) * (TAU / TWIST_SAMPLES as f32)
    }

    /// Whether some twist lets the bone point along `direction`.
    fn reaches(&self, direction: Vec3) -> bool {
        if let Some(reaches) = self.limit.reaches_direction(self.axis, direction) {
            return reaches;
        }
        // From the middle step outwards: a typical range holds small twists.
        let half = (TWIST_SAMPLES / 2) as i64;
        (0..TWIST_SAMPLES as i64)
            .map(|i| half + if i % 2 == 0 { i / 2 } else { -(i + 1) / 2 })
            .any(|k| self.allowed(direction, Self::step(k)))
            || self.narrow_twist(direction).is_some()
    }

    /// The allowed twists along `direction`: every run of allowed steps with its ends refined
    /// (one range narrower than a step when no step is allowed), longest first; empty when no
    /// twist is allowed. A convex region of a curved space can allow two separate runs.
    fn twist_runs(&self, direction: Vec3) -> Vec<TwistRange> {
        if let Some(runs) = self.limit.twists_along(self.axis, direction) {
            return runs;
        }
        let n = TWIST_SAMPLES as i64;
        let flags: Vec<bool> = (0..n)
            .map(|k| self.allowed(direction, Self::step(k)))
            .collect();
        let Some(gap) = flags.iter().position(|&allowed| !allowed) else {
            return vec![TwistRange { min: -PI, max: PI }];
        };
        // Runs as (first step, length), going once round from just after a disallowed step.
        let mut runs: Vec<(i64, i64)> = Vec::new();
        let mut length = 0;
        for k in gap as i64 + 1..=gap as i64 + n {
            if flags[k.rem_euclid(n) as usize] {
                length += 1;
            } else if length > 0 {
                runs.push((k - length, length));
                length = 0;
            }
        }
        runs.sort_by_key(|&(_, length)| std::cmp::Reverse(length));
        let step = TAU / TWIST_SAMPLES as f32;
        let inside = |t: f32| self.allowed(direction, t);
        let ends: Vec<(f32, f32)> = if runs.is_empty() {
            self.narrow_twist(direction)
                .map(|t| (t, t))
                .into_iter()
                .collect()
        } else {
            runs.into_iter()
                .map(|(start, length)| (Self::step(start), Self::step(start + length - 1)))
                .collect()
        };
        ends.into_iter()
            .map(|(low, high)| TwistRange {
                min: bisect(low - step, low, inside),
                max: bisect(high + step, high, inside),
            })
            .collect()
    }
}

/// The last point found inside between `outside` and `inside` (a segment of the real line) by
/// bisection on `is_inside`.
fn bisect(mut outside: f32, mut inside: f32, is_inside: impl Fn(f32) -> bool) -> f32 {
    for _ in 0..BISECTIONS {
        let middle = 0.5 * (outside + inside);
        if is_inside(middle) {
            inside = middle;
        } else {
            outside = middle;
        }
    }
    inside
}

/// The limit's own boundary of reachable directions, for tracing.
struct ExactBoundary<'a, L> {
    pointing: &'a Pointing<'a, L>,
    map: OctahedralMap,
    resolution: usize,
    inside: &'a [bool],
}

impl<L: RotationLimit> ExactBoundary<'_, L> {
    /// Bisection along the square segment from `from` to `to` (which differ) for the crossing.
    fn bisect_segment(&self, from: Vec2, to: Vec2, from_inside: bool) -> Vec2 {
        let reaches = |t: f32| self.pointing.reaches(self.map.to_sphere(from.lerp(to, t)));
        let (outside, inside) = if from_inside { (1.0, 0.0) } else { (0.0, 1.0) };
        let t = bisect(outside, inside, reaches);
        from.lerp(to, t)
    }
}

impl<L: RotationLimit> BoundarySource for ExactBoundary<'_, L> {
    fn resolution(&self) -> usize {
        self.resolution
    }

    fn inside(&self, column: usize, row: usize) -> bool {
        self.inside[row * (self.resolution + 1) + column]
    }

    fn crossing(&self, from: (usize, usize), to: (usize, usize)) -> Vec2 {
        let n = self.resolution;
        self.bisect_segment(
            VertexGrid::vertex_position(n, from.0, from.1),
            VertexGrid::vertex_position(n, to.0, to.1),
            self.inside(from.0, from.1),
        )
    }

    fn onto_boundary(&self, p: Vec2, normal: Vec2) -> Vec2 {
        let reach = 0.75 * 2.0 / self.resolution as f32;
        let clamp = |q: Vec2| q.clamp(Vec2::splat(-1.0), Vec2::splat(1.0));
        let (a, b) = (clamp(p - normal * reach), clamp(p + normal * reach));
        let a_inside = self.pointing.reaches(self.map.to_sphere(a));
        if a_inside == self.pointing.reaches(self.map.to_sphere(b)) {
            return p;
        }
        self.bisect_segment(a, b, a_inside)
    }

    fn middle_inside(&self, column: usize, row: usize) -> bool {
        let n = self.resolution;
        let middle = (VertexGrid::vertex_position(n, column, row)
            + VertexGrid::vertex_position(n, column + 1, row + 1))
            * 0.5;
        self.pointing.reaches(self.map.to_sphere(middle))
    }
}

/// The unit bone axis a table is baked about (`+Y` for a degenerate one) and its map, once
/// the resolution is known to be one a table may have.
fn baking_frame(twist_axis: Vec3, resolution: usize) -> Result<(Vec3, OctahedralMap), BakeError> {
    if !super::limit::RESOLUTIONS.contains(&resolution) {
        return Err(BakeError::Resolution(resolution));
    }
    let twist_axis = twist_axis.try_normalize().unwrap_or(Vec3::Y);
    Ok((twist_axis, map_around(twist_axis)))
}

/// Bakes `limit` into a table of `resolution` cells per side about the unit bone axis
/// `twist_axis` (module docs).
///
/// ```
/// use glam::Vec3;
/// use jointlimits::RotationLimit;
/// use jointlimits::reach_cone::ReachConeLimit;
/// use jointlimits::table::bake::{bake, disagreement};
///
/// let cone = ReachConeLimit::examples().remove(0);
/// let table = bake(&cone, cone.twist_axis, 32).unwrap();
/// let report = disagreement(&cone, &table, cone.twist_axis, 2000, 1);
/// assert!(report.largest_direction_gap < report.cell_angle);
/// ```
pub fn bake<L: RotationLimit + Sync>(
    limit: &L,
    twist_axis: Vec3,
    resolution: usize,
) -> Result<TableLimit, BakeError> {
    let (twist_axis, map) = baking_frame(twist_axis, resolution)?;
    let n = resolution;
    let side = n + 1;
    let directions: Vec<Vec3> = (0..side * side)
        .map(|i| map.to_sphere(VertexGrid::vertex_position(n, i % side, i / side)))
        .collect();
    let pointing = Pointing {
        limit,
        axis: twist_axis,
    };
    let mut runs: Vec<Vec<TwistRange>> = directions
        .par_iter()
        .map(|&d| pointing.twist_runs(d))
        .collect();
    // Fold partners are one direction: one answer for both.
    for (a, b) in fold_pairs(n) {
        runs[b] = runs[a].clone();
    }
    let inside: Vec<bool> = runs.iter().map(|r| !r.is_empty()).collect();
    // The corners point the bone against its axis, where the twist of one rotation depends on
    // the side it is approached from: each corner takes the ranges its own cell sees, read on
    // the cell's diagonal (a step of `f/n` towards the centre in each coordinate is `2√2·f/n`
    // radians from the corner's direction).
    let corner_step = (CORNER_READ / (2.0 * std::f32::consts::SQRT_2)).min(0.5 / n as f32);
    for corner in [0, n, n * side, n * side + n] {
        let p = VertexGrid::vertex_position(n, corner % side, corner / side);
        let nudged = pointing.twist_runs(map.to_sphere(p * (1.0 - corner_step)));
        if inside[corner] && !nudged.is_empty() {
            runs[corner] = nudged;
        }
    }
    let Some(first) = nearest_inside(&inside, n) else {
        return Err(BakeError::Empty(n));
    };
    let chains = BoundaryChains::traced(
        &map,
        &ExactBoundary {
            pointing: &pointing,
            map,
            resolution: n,
            inside: &inside,
        },
    );
    let allowed: Vec<f32> = (0..side * side)
        .into_par_iter()
        .map(|v| {
            let distance = chains
                .nearest_to_vertex(directions[v], v)
                .map_or(PI, |nearest| angle(directions[v], nearest.point));
            if inside[v] {
                -distance
            } else {
                distance.max(SMALLEST_OUTSIDE)
            }
        })
        .collect();
    let mut twist = on_common_turns(&mut runs, n, first, |v, around| {
        pointing.narrow_run_near(directions[v], around)
    });

    extrapolate_to_boundary(&mut twist, &inside, &directions, &chains, &map, &pointing);
    let values: Vec<TableValues> = (0..side * side)
        .map(|v| TableValues {
            allowed: allowed[v],
            twist: twist[v],
            stress: (1.0 + allowed[v] / STRESS_DEPTH).clamp(0.0, 1.0),
            break_margin: BREAK_MARGIN,
        })
        .collect();
    Ok(TableLimit::from_values(twist_axis, n, &values))
}

/// Whether [`bake`] of `limit` at `resolution` about `twist_axis` has something to bake: a
/// vertex direction of the grid the bone may point along with some twist (it fails with
/// [`BakeError::Empty`] otherwise), or the resolution's error. Answered before any baking (a
/// job of many joints can then refuse a hopeless one first): the vertices nearest the axis,
/// where most limits allow the rest pose, are tried first, so an allowed one is usually found
/// at once.
pub fn check_bakeable<L: RotationLimit + Sync>(
    limit: &L,
    twist_axis: Vec3,
    resolution: usize,
) -> Result<(), BakeError> {
    let (twist_axis, map) = baking_frame(twist_axis, resolution)?;
    let n = resolution;
    let side = n + 1;
    let mut vertices: Vec<Vec2> = (0..side * side)
        .map(|i| VertexGrid::vertex_position(n, i % side, i / side))
        .collect();
    vertices.sort_by(|a, b| a.length_squared().total_cmp(&b.length_squared()));
    let pointing = Pointing {
        limit,
        axis: twist_axis,
    };
    let allows = |&p: &Vec2| !pointing.twist_runs(map.to_sphere(p)).is_empty();
    let (nearest, rest) = vertices.split_at(vertices.len().min(64));
    if nearest.iter().any(allows) || rest.par_iter().any(allows) {
        Ok(())
    } else {
        Err(BakeError::Empty(n))
    }
}

/// The middle of a twist range.
fn middle(range: TwistRange) -> f32 {
    0.5 * (range.min + range.max)
}

/// `range` moved by the whole turns that bring its middle nearest `near`; a range of a whole
/// turn or more (every twist allowed) is centred on `near` itself, which any neighbour's range
/// continues.
fn turned(range: TwistRange, near: f32) -> TwistRange {
    let width = range.max - range.min;
    if width >= TAU {
        return TwistRange {
            min: near - 0.5 * width,
            max: near + 0.5 * width,
        };
    }
    let shift = TAU * ((near - middle(range)) / TAU).round();
    TwistRange {
        min: range.min + shift,
        max: range.max + shift,
    }
}

/// How far apart the runs of twist at two points a quarter of a cell apart may lie before
/// [`disagreement`] calls the step a jump, radians (away from the corners a run moves far
/// less).
const RUN_JUMP: f32 = 0.5;

/// How far a vertex's nearest run may lie from its neighbour's before a narrower run is
/// looked for near the neighbour's, radians.
const PROBE_GAP: f32 = 0.25;

/// Of `runs`, the one whose middle some whole turn brings nearest `near`, on that turn.
fn nearest_run(runs: &[TwistRange], near: f32) -> Option<TwistRange> {
    runs.iter().map(|&run| turned(run, near)).min_by(|a, b| {
        (middle(*a) - near)
            .abs()
            .total_cmp(&(middle(*b) - near).abs())
    })
}

/// The most weight an outside vertex's value is solved for at a boundary point with: below it
/// the solution would amplify the other corners' errors.
const SMALLEST_WEIGHT: f32 = 0.2;

/// Sets the twist ranges of the outside vertices next to the boundary so that the interpolated
/// range at each one's nearest boundary point is the limit's own range there (read just inside):
/// the vertex's value solved from the bilinear weights of that point's cell, the other corners
/// held, over a few sweeps (a vertex with too little weight there takes the range itself).
/// Where the limit's twist range changes steeply near its boundary, this keeps the table's
/// range right on the boundary instead of blending it with the range a cell inside.
fn extrapolate_to_boundary<L: RotationLimit + Sync>(
    twist: &mut [TwistRange],
    inside: &[bool],
    directions: &[Vec3],
    chains: &BoundaryChains,
    map: &OctahedralMap,
    pointing: &Pointing<L>,
) {
    let n = (inside.len() as f32).sqrt() as usize - 1;
    let bordering: Vec<usize> = (0..inside.len())
        .filter(|&v| !inside[v] && neighbours(n, v).any(|u| inside[u]))
        .collect();
    let targets: Vec<(usize, Vec2, Vec<TwistRange>)> = bordering
        .par_iter()
        .filter_map(|&v| {
            let point = chains.nearest_to_vertex(directions[v], v)?.point;
            // A step past the boundary, away from the vertex.
            let inward = (point - directions[v]).normalize_or_zero();
            let nudged = (point + inward * NUDGE).normalize();
            let runs = pointing.twist_runs(nudged);
            (!runs.is_empty()).then(|| (v, map.to_square(point), runs))
        })
        .collect();
    for (v, _, runs) in &targets {
        twist[*v] = nearest_run(runs, middle(twist[*v])).expect("targets have a run");
    }
    for _ in 0..3 {
        for (v, p, runs) in &targets {
            let (v, p) = (*v, *p);
            let corners = super::boundary::cell_corner_vertices(n, p);
            let scaled = (p.clamp(Vec2::splat(-1.0), Vec2::splat(1.0)) + 1.0) * (0.5 * n as f32);
            let t = scaled - scaled.floor().min(Vec2::splat((n - 1) as f32));
            let weights = [
                (1.0 - t.x) * (1.0 - t.y),
                t.x * (1.0 - t.y),
                (1.0 - t.x) * t.y,
                t.x * t.y,
            ];
            let Some(own) = corners.iter().position(|&c| c == v) else {
                continue;
            };
            if weights[own] < SMALLEST_WEIGHT {
                continue;
            }
            let others = |f: &dyn Fn(TwistRange) -> f32| -> f32 {
                (0..4)
                    .filter(|&i| i != own)
                    .map(|i| weights[i] * f(twist[corners[i]]))
                    .sum()
            };
            // The run, and its turn, that the cell's other corners continue.
            let near = others(&middle) / (1.0 - weights[own]).max(f32::EPSILON);
            let range = nearest_run(runs, near).expect("targets have a run");
            let solve =
                |target: f32, others: f32| ((target - others) / weights[own]).clamp(-TAU, TAU);
            let min = solve(range.min, others(&|r| r.min));
            let max = solve(range.max, others(&|r| r.max));
            twist[v] = if min <= max {
                TwistRange { min, max }
            } else {
                let m = 0.5 * (min + max);
                TwistRange { min: m, max: m }
            };
        }
    }
}

/// The inside vertex nearest the square's centre (the bone axis), if any.
fn nearest_inside(inside: &[bool], n: usize) -> Option<usize> {
    let side = n + 1;
    let centre = (n / 2) as i64;
    (0..side * side).filter(|&v| inside[v]).min_by_key(|&v| {
        let (c, r) = ((v % side) as i64, (v / side) as i64);
        (c - centre).pow(2) + (r - centre).pow(2)
    })
}

/// The ranges moved by whole turns so that neighbours agree (module docs, step 3); every
/// vertex gets one, outside ones the range of the inside vertex they are reached from.
///
/// Within the square, not across its folds: the twist of one rotation winds twice round the
/// direction opposite the axis (the square's corners), so a spread across the folds would meet
/// itself a turn apart inside the square. And in order of agreement, like quality-guided phase
/// unwrapping: a vertex joins from the neighbour whose range is nearest its own (modulo a
/// turn), so the large steps near the corners, where the turn is ambiguous, are taken last, and
/// a smooth interior is never reached round a corner. Each island of inside vertices starts,
/// from `first` and then in index order, on the turn nearest zero.
fn on_common_turns(
    runs: &mut [Vec<TwistRange>],
    n: usize,
    first: usize,
    narrow_run_near: impl Fn(usize, f32) -> Option<TwistRange>,
) -> Vec<TwistRange> {
    let count = runs.len();
    let mut out: Vec<Option<TwistRange>> = vec![None; count];
    // (step between the two ranges' middles, vertex joining, vertex it joins from)
    let mut edges: BinaryHeap<Reverse<(u32, u32, u32)>> = BinaryHeap::new();
    let push_edges = |edges: &mut BinaryHeap<_>,
                      out: &[Option<TwistRange>],
                      runs: &[Vec<TwistRange>],
                      v: usize| {
        let here = middle(out[v].expect("joined vertices have a range"));
        for u in grid_neighbours(n, v) {
            if out[u].is_none()
                && let Some(range) = nearest_run(&runs[u], here)
            {
                let step = (middle(range) - here).abs();
                // Non-negative floats order as their bits.
                edges.push(Reverse((step.to_bits(), u as u32, v as u32)));
            }
        }
    };
    let inside: Vec<usize> = (0..count).filter(|&v| !runs[v].is_empty()).collect();
    let mut starts = std::iter::once(first).chain(inside);
    while let Some(start) = starts.find(|&v| out[v].is_none()) {
        // The longest run.
        out[start] = Some(turned(runs[start][0], 0.0));
        let mut island = vec![start];
        push_edges(&mut edges, &out, runs, start);
        while let Some(Reverse((_, u, v))) = edges.pop() {
            let (u, v) = (u as usize, v as usize);
            if out[u].is_some() {
                continue;
            }
            let here = middle(out[v].expect("joined"));
            let mut range = nearest_run(&runs[u], here).expect("only inside vertices are queued");
            if (middle(range) - here).abs() > PROBE_GAP
                && let Some(narrow) = narrow_run_near(u, here)
            {
                // A run the steps missed, which the neighbour's continues.
                runs[u].push(narrow);
                range = turned(narrow, here);
            }
            out[u] = Some(range);
            island.push(u);
            push_edges(&mut edges, &out, runs, u);
        }
        // The island's values may drift a long way from its start: centre their span on zero,
        // so they stay well within the channels' lattice of ±2π.
        let (low, high) = island
            .iter()
            .filter_map(|&v| out[v])
            .fold((f32::INFINITY, f32::NEG_INFINITY), |(low, high), r| {
                (low.min(r.min), high.max(r.max))
            });
        let shift = TAU * (-0.5 * (low + high) / TAU).round();
        for &v in &island {
            out[v] = out[v].map(|r| TwistRange {
                min: r.min + shift,
                max: r.max + shift,
            });
        }
    }
    // Outside vertices, breadth first from every inside one.
    let mut queue: VecDeque<usize> = (0..count).filter(|&v| out[v].is_some()).collect();
    while let Some(v) = queue.pop_front() {
        for u in grid_neighbours(n, v) {
            if out[u].is_none() {
                out[u] = out[v];
                queue.push_back(u);
            }
        }
    }
    out.into_iter()
        .map(|r| r.unwrap_or(TwistRange { min: -PI, max: PI }))
        .collect()
}

/// How a baked table differs from the limit it was baked from (see [`disagreement`]).
#[derive(Clone, Debug, PartialEq)]
pub struct BakeReport {
    /// Cells per side.
    pub resolution: usize,
    /// The mean angle of a cell's side, `√(4π / cells)`, radians.
    pub cell_angle: f32,
    /// Random bone directions tested.
    pub directions: usize,
    /// Of them, those the table and the limit disagree on (reachable with some twist or not).
    pub directions_disagreeing: usize,
    /// The largest angle from a disagreeing direction to the table's boundary, radians.
    pub largest_direction_gap: f32,
    /// Random rotations tested.
    pub rotations: usize,
    /// Of them, those the table and the limit disagree on, outside the antipode zone (see
    /// [`BakeReport::antipode_rotations`]).
    pub rotations_disagreeing: usize,
    /// The largest distance (the contract's metric) from a disagreeing rotation to the region
    /// that refuses it, radians, over those a table can follow.
    pub largest_rotation_gap: f32,
    /// Of the disagreeing rotations outside the antipode zone, those a table cannot follow at
    /// any resolution, because it holds one twist range per direction: somewhere in the cell
    /// of their bone direction the original allows two or more separate runs of twist, or its
    /// run jumps (where one run ends and another begins); the table keeps the run its
    /// neighbours continue.
    pub rotations_beyond_a_table: usize,
    /// The largest distance from one of those to the region refusing it, radians.
    pub largest_gap_beyond_a_table: f32,
    /// Rotations tested in the antipode zone: the bone within [`ANTIPODE_ZONE`] of pointing
    /// against its axis, where a twist about the axis winds twice round the antipode and a
    /// table's twist ranges are hardest to interpolate. Random rotations almost never land
    /// there, so these are drawn there on purpose (a tenth as many as `rotations`, half of them
    /// within the corner cells, half with a twist the limit allows), together with the random
    /// ones that do.
    pub antipode_rotations: usize,
    /// Of them, those the table and the limit disagree on.
    pub antipode_disagreeing: usize,
    /// The largest distance from one of those to the region refusing it, radians.
    pub largest_antipode_gap: f32,
}

/// How near the bone's pointing against its axis the antipode zone of [`BakeReport`] reaches,
/// radians (20°).
pub const ANTIPODE_ZONE: f32 = 0.35;

/// Compares `table` with the `limit` it was baked from on `samples` uniformly random bone
/// directions and as many Haar-random rotations (fixed `seed`).
pub fn disagreement<L: RotationLimit + Sync>(
    limit: &L,
    table: &TableLimit,
    twist_axis: Vec3,
    samples: usize,
    seed: u64,
) -> BakeReport {
    let pointing = Pointing {
        limit,
        axis: twist_axis,
    };
    compare(
        limit,
        |d| pointing.reaches(d),
        |d| {
            let n = table.resolution();
            let map = &table.swing().map;
            let (column, row, _) = VertexGrid::locate_in(n, map.to_square(d));
            // Runs split, merge or end where a range jumps, anywhere in the cell: look at a
            // 5 × 5 lattice over it, corners included, for two runs at a point or a jump
            // between neighbouring points.
            let corner = VertexGrid::vertex_position(n, column, row);
            let step = 2.0 / n as f32 / 4.0;
            let runs: Vec<Vec<TwistRange>> = (0..25)
                .map(|k| {
                    let offset = Vec2::new((k % 5) as f32, (k / 5) as f32) * step;
                    pointing.twist_runs(map.to_sphere(corner + offset))
                })
                .collect();
            let jump = |a: &[TwistRange], b: &[TwistRange]| match (a, b) {
                ([a], [b]) => (middle(turned(*b, middle(*a))) - middle(*a)).abs() > RUN_JUMP,
                _ => false,
            };
            pointing.twist_runs(d).len() > 1
                || runs.iter().any(|r| r.len() > 1)
                || (0..25).any(|k| {
                    (k % 5 < 4 && jump(&runs[k], &runs[k + 1]))
                        || (k < 20 && jump(&runs[k], &runs[k + 5]))
                })
        },
        table,
        samples,
        seed,
    )
}

/// Compares a `coarser` level of detail with the `finer` table it was made from, as
/// [`disagreement`] does (the finer table's allowed directions read directly).
pub fn level_disagreement(
    finer: &TableLimit,
    coarser: &TableLimit,
    samples: usize,
    seed: u64,
) -> BakeReport {
    compare(
        finer,
        |d| finer.swing().contains(d),
        |_| false,
        coarser,
        samples,
        seed,
    )
}

/// [`disagreement`] with the reference's allowed directions given by `reaches`, and the
/// rotations a table cannot follow (see [`BakeReport::rotations_beyond_a_table`]) by the
/// direction test `beyond`.
fn compare<L: RotationLimit + Sync>(
    limit: &L,
    reaches: impl Fn(Vec3) -> bool + Sync,
    beyond: impl Fn(Vec3) -> bool + Sync,
    table: &TableLimit,
    samples: usize,
    seed: u64,
) -> BakeReport {
    let chunk = 1024;
    let directions = (0..samples.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut random = SeededRandom::new(seed ^ (c as u64).wrapping_mul(0x9E37_79B9));
            let mut found = Disagreements::default();
            for _ in 0..chunk.min(samples - c * chunk) {
                let d = random.direction();
                if table.swing().contains(d) != reaches(d) {
                    found.add(table.swing().signed_distance(d).abs());
                }
            }
            found
        })
        .reduce(Disagreements::default, Disagreements::merged);
    let antipode = -table.twist_axis;
    let in_zone = |q: Quat| angle(q * table.twist_axis, antipode) < ANTIPODE_ZONE;
    let add = |tally: &mut RotationTally, q: Quat| {
        let zone = in_zone(q);
        tally.antipode_tested += usize::from(zone);
        let by_table = table.contains(q, &LimitContext::NONE);
        if by_table == limit.contains(q, &LimitContext::NONE) {
            return;
        }
        let refusing = if by_table {
            limit.nearest(q, &LimitContext::NONE)
        } else {
            table.nearest(q, &LimitContext::NONE)
        };
        let kind = if zone {
            &mut tally.antipode
        } else if beyond(q * table.twist_axis) {
            &mut tally.beyond
        } else {
            &mut tally.followable
        };
        kind.add(refusing.violation);
    };
    let zone_samples = samples / 10;
    let (e1, e2) = antipode.any_orthonormal_pair();
    let runs_of = Pointing {
        limit,
        axis: table.twist_axis,
    };
    // A corner cell reaches `4√2/n` radians from the antipode along its diagonal (a square
    // step of `2/n` in each coordinate).
    let corner_cap = 4.0 * std::f32::consts::SQRT_2 / table.resolution() as f32;
    let rotations = (0..(samples + zone_samples).div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut random = SeededRandom::new(!seed ^ (c as u64).wrapping_mul(0x85EB_CA6B));
            let mut tally = RotationTally::default();
            for i in c * chunk..((c + 1) * chunk).min(samples + zone_samples) {
                let q = if i < samples {
                    random.rotation()
                } else {
                    // Uniform over the zone's cap of directions, or every other one over the
                    // cap the corner cells cover; any twist, or every other one within a run
                    // the limit allows there (a narrow range is otherwise almost never hit).
                    let cap = if i % 2 == 0 {
                        ANTIPODE_ZONE
                    } else {
                        corner_cap
                    };
                    let cos = 1.0 - random.next_unit() as f32 * (1.0 - cap.cos());
                    let sin = (1.0 - cos * cos).max(0.0).sqrt();
                    let around = TAU * random.next_unit() as f32;
                    let d = antipode * cos + (e1 * around.cos() + e2 * around.sin()) * sin;
                    let any = TAU * random.next_unit() as f32 - PI;
                    let runs = if (i / 2) % 2 == 0 {
                        Vec::new()
                    } else {
                        runs_of.twist_runs(d)
                    };
                    let twist = match runs.as_slice() {
                        [] => any,
                        runs => {
                            let run = runs
                                [(random.next_unit() * runs.len() as f64) as usize % runs.len()];
                            run.min + (run.max - run.min) * random.next_unit() as f32
                        }
                    };
                    pointing(table.twist_axis, d, twist)
                };
                add(&mut tally, q);
            }
            tally
        })
        .reduce(RotationTally::default, RotationTally::merged);
    let resolution = table.resolution();
    BakeReport {
        resolution,
        cell_angle: (4.0 * PI).sqrt() / resolution as f32,
        directions: samples,
        directions_disagreeing: directions.count,
        largest_direction_gap: directions.largest,
        rotations: samples,
        rotations_disagreeing: rotations.followable.count + rotations.beyond.count,
        largest_rotation_gap: rotations.followable.largest,
        rotations_beyond_a_table: rotations.beyond.count,
        largest_gap_beyond_a_table: rotations.beyond.largest,
        antipode_rotations: rotations.antipode_tested,
        antipode_disagreeing: rotations.antipode.count,
        largest_antipode_gap: rotations.antipode.largest,
    }
}

/// Disagreeing samples of one kind: how many, and the largest gap (radians).
#[derive(Clone, Copy, Debug, Default)]
struct Disagreements {
    count: usize,
    largest: f32,
}

impl Disagreements {
    fn add(&mut self, gap: f32) {
        self.count += 1;
        self.largest = self.largest.max(gap);
    }

    fn merged(self, other: Disagreements) -> Disagreements {
        Disagreements {
            count: self.count + other.count,
            largest: self.largest.max(other.largest),
        }
    }
}

/// What the random rotations of [`disagreement`] found (see [`BakeReport`]).
#[derive(Clone, Copy, Debug, Default)]
struct RotationTally {
    /// Disagreeing outside the antipode zone where a table can follow.
    followable: Disagreements,
    /// Disagreeing outside the antipode zone where no table can follow.
    beyond: Disagreements,
    /// Tested in the antipode zone.
    antipode_tested: usize,
    /// Disagreeing in the antipode zone.
    antipode: Disagreements,
}

impl RotationTally {
    fn merged(self, other: RotationTally) -> RotationTally {
        RotationTally {
            followable: self.followable.merged(other.followable),
            beyond: self.beyond.merged(other.beyond),
            antipode_tested: self.antipode_tested + other.antipode_tested,
            antipode: self.antipode.merged(other.antipode),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_between_the_vertices_is_found_unbakeable_before_baking() {
        let tiny = crate::authored::EulerLimit {
            order: crate::euler::EulerOrder::XYZ,
            min: Vec3::new(0.5, 0.3, 0.2),
            max: Vec3::new(0.5035, 0.3035, 0.2035),
        };
        for n in [8, 16] {
            assert!(matches!(
                check_bakeable(&tiny, Vec3::Y, n),
                Err(BakeError::Empty(_))
            ));
            assert!(matches!(bake(&tiny, Vec3::Y, n), Err(BakeError::Empty(_))));
        }
        let cone = crate::authored::ConeLimit::examples().remove(0);
        check_bakeable(&cone, cone.twist_axis, 8).unwrap();
        assert!(matches!(
            check_bakeable(&cone, cone.twist_axis, 3),
            Err(BakeError::Resolution(3))
        ));
    }
    use crate::reach_cone::ReachConeLimit;
    use crate::region::FullLimit;

    /// Bakes `limit` and checks it against the limit on random directions and rotations: the
    /// rotations a table can follow stray less than `cells` cells.
    fn baked_agrees<L: RotationLimit + Sync>(limit: &L, axis: Vec3, resolution: usize, cells: f32) {
        let started = std::time::Instant::now();
        let table = bake(limit, axis, resolution).unwrap();
        let baked_in = started.elapsed();
        table.validate().unwrap();
        // Written and read back, it passes the file's checks (fold partners a whole turn
        // apart included) and is the same table.
        let record = super::super::record::TableRecord::from(table.clone());
        assert_eq!(TableLimit::try_from(record).unwrap(), table);
        let report = disagreement(limit, &table, axis, 20_000, 5);
        eprintln!("{} baked in {baked_in:?}: {report:?}", limit.label());
        assert!(
            report.largest_direction_gap < report.cell_angle,
            "{}: {report:?}",
            limit.label()
        );
        assert!(
            report.largest_rotation_gap < cells * report.cell_angle,
            "{}: {report:?}",
            limit.label()
        );
    }

    #[test]
    fn baked_full_space_shapes_agree_within_a_cell() {
        for limit in FullLimit::examples() {
            baked_agrees(&limit, Vec3::Y, 64, 1.0);
        }
    }

    /// Ellipsoids and boxes anywhere in the ball of rotations, many reaching past a half turn,
    /// some round the direction opposite the axis, where a twist's turn winds twice round, and
    /// some allowing separate runs of twist at one direction. Where a table can follow them,
    /// ellipsoids stray less than a cell; a box's flat faces make the ends of its twist range
    /// move steeply near the boundary of its directions, which interpolation follows to within
    /// three.
    #[test]
    fn baked_shapes_anywhere_agree_within_a_cell() {
        use crate::shape::{BoxShape, EllipsoidShape, Frame, Shape};
        let mut random = SeededRandom::new(11);
        for case in 0..12 {
            let reach = 2.6 * random.next_unit() as f32;
            let frame = Frame {
                center: random.direction() * reach,
                rotation: glam::Mat3::from_quat(random.rotation()),
            };
            let mut extent = || 0.15 + 1.85 * random.next_unit() as f32;
            let semi_axes = Vec3::new(extent(), extent(), extent());
            let shape = if case % 3 == 2 {
                Shape::Box(BoxShape {
                    frame,
                    min: -semi_axes,
                    max: semi_axes,
                })
            } else {
                Shape::Ellipsoid(EllipsoidShape { frame, semi_axes })
            };
            let cells = if matches!(shape, Shape::Box(_)) {
                3.0
            } else {
                1.0
            };
            baked_agrees(&FullLimit::new(shape), Vec3::Y, 64, cells);
        }
    }

    /// An ellipsoid holding nearly every rotation (fitted to an arm that reaches almost
    /// everywhere): at many directions every twist is allowed, and a neighbour's narrow range
    /// used to make the baking look for a "narrow run" there and store a range 0.1 rad wide
    /// (229 of 4,000 random rotations refused, by up to 16°).
    #[test]
    fn nearly_unlimited_shapes_bake_within_a_cell() {
        use crate::shape::{EllipsoidShape, Frame, Shape};
        let frame = Frame {
            center: Vec3::new(0.115, -0.0344, 0.6166),
            rotation: glam::Mat3::from_cols_array(&[
                -0.26851895,
                0.7230497,
                0.63647205,
                0.031237183,
                -0.6538545,
                0.75597525,
                0.9627678,
                0.22287527,
                0.15298629,
            ]),
        };
        let shape = Shape::Ellipsoid(EllipsoidShape {
            frame,
            semi_axes: Vec3::new(3.823, 3.822, 2.017),
        });
        baked_agrees(&FullLimit::new(shape), -Vec3::X, 64, 1.0);
    }

    /// A full-space box reaching past π in two of its axes: with the bone swung through its
    /// plane, only twists near a half turn are allowed, and around the directions allowing
    /// every twist that run comes back a whole turn further than it left, so the table's
    /// vertices cannot all hold it on one turn. Cells across that cut used to interpolate a
    /// range between the two turns: the table accepted rotations the box refuses by up to 89°
    /// (1.55 rad, 56 cells of a 128² table), which `bake` called followable.
    #[test]
    fn a_twist_winding_round_every_allowed_twist_bakes_within_a_cell() {
        use crate::shape::{BoxShape, Frame, Shape};
        let shape = Shape::Box(BoxShape {
            frame: Frame::IDENTITY,
            min: Vec3::new(-3.5, -3.5, -1.0),
            max: Vec3::new(3.5, 3.5, 1.0),
        });
        baked_agrees(&FullLimit::new(shape), -Vec3::X, 64, 1.0);
    }

    #[test]
    fn baked_reach_cones_agree_within_a_cell() {
        for cone in ReachConeLimit::examples() {
            baked_agrees(&cone, cone.twist_axis, 64, 1.0);
        }
    }

    /// A cone allowing every direction, the far side included, with a narrow twist range: at a
    /// swing near 180° the twist of one rotation hangs on the swing's azimuth, which the corner
    /// vertices used to read where f32 could not carry it (and the rotation from the axis to a
    /// direction that near its opposite turned about an arbitrary axis). A 32² table refused 45%
    /// of the cone's rotations swinging more than 178°.
    #[test]
    fn a_cone_over_the_far_pole_bakes_its_own_twist_there() {
        use crate::authored::ConeLimit;
        let axis = Vec3::new(-0.998, -0.0606, 0.0173).normalize();
        let twist = TwistRange { min: 0.5, max: 0.6 };
        let cone = ConeLimit {
            twist_axis: axis,
            max_swing: PI,
            twist,
        };
        for resolution in [8, 32, 256] {
            let table = bake(&cone, axis, resolution).unwrap();
            let report = disagreement(&cone, &table, axis, 20_000, 3);
            assert_eq!(report.antipode_disagreeing, 0, "{resolution}: {report:?}");
            let mut random = SeededRandom::new(5);
            let (e1, _) = axis.any_orthonormal_pair();
            for _ in 0..5_000 {
                let swing = PI - random.next_unit() as f32 * 2f32.to_radians();
                let about = Quat::from_axis_angle(axis, TAU * random.next_unit() as f32) * e1;
                let turn = twist.min + (twist.max - twist.min) * random.next_unit() as f32;
                let q = Quat::from_axis_angle(about, swing) * Quat::from_axis_angle(axis, turn);
                assert!(cone.contains(q, &LimitContext::NONE));
                assert!(
                    table.contains(q, &LimitContext::NONE),
                    "{resolution}: swing {swing}, twist {turn} refused"
                );
            }
        }
    }

    /// Wide ranges, whose twist runs unwrapped across the table reach past the channels' span
    /// of ±2π near the direction opposite the axis: the table stores each such range on a turn
    /// within the span, fold partners agreeing modulo whole turns, so the file it writes loads
    /// (an Euler range as wide as this one used to bake into files refused on reading, a fold
    /// partner's minimum clamped to −2π).
    #[test]
    fn wide_ranges_bake_into_tables_that_load() {
        use crate::authored::EulerLimit;
        use crate::euler::EulerOrder;
        let euler = EulerLimit {
            order: EulerOrder::ZXY,
            min: Vec3::new(-3.0, -1.5, -3.1),
            max: Vec3::new(3.0, 1.5, 3.1),
        };
        for (resolution, axis) in [
            (16, Vec3::Y),
            (32, Vec3::X),
            (64, Vec3::new(1.0, 0.3, -0.2)),
        ] {
            let axis = axis.normalize();
            let table = bake(&euler, axis, resolution).unwrap();
            let record = super::super::record::TableRecord::from(table.clone());
            assert_eq!(TableLimit::try_from(record).unwrap(), table, "{resolution}");
        }
    }

    #[test]
    fn coarser_levels_of_detail_stray_less_than_their_own_cell() {
        let cone = ReachConeLimit::examples().remove(0);
        let fine = bake(&cone, cone.twist_axis, 128).unwrap();
        let levels = fine.levels_of_detail(8);
        let resolutions: Vec<usize> = levels.iter().map(TableLimit::resolution).collect();
        assert_eq!(resolutions, [64, 32, 16, 8]);
        let mut memory = fine.memory_bytes();
        for level in &levels {
            level.validate().unwrap();
            assert!(level.memory_bytes() < memory);
            memory = level.memory_bytes();
            let report = level_disagreement(&fine, level, 5000, 2);
            eprintln!("{memory} bytes: {report:?}");
            assert!(
                report.largest_direction_gap < report.cell_angle
                    && report.largest_rotation_gap < 2.0 * report.cell_angle,
                "{report:?}"
            );
        }
    }
}
