//! Baking any limit into a table, and measuring how far the table strays from it.
//!
//! 1. **Twist ranges**: at every vertex direction `d`, the rotations pointing the bone along `d`
//!    with twists `τ` on [`TWIST_SAMPLES`] evenly spaced steps are tested against the limit; the
//!    longest run of allowed steps, its ends found by bisection, is the vertex's twist range (a
//!    range narrower than a step is found around the twist of the limit's nearest rotation).
//!    A direction with no allowed twist is outside.
//! 2. **Allowed directions**: the boundary is traced cell by cell like a table's own
//!    ([`BoundaryChains::traced`]), but every crossing is found by bisection against the limit
//!    itself, so it is exact to `2⁻¹⁸` of a cell; each vertex then holds the signed angle to the
//!    nearest traced arc. The table's interpolated curve follows the true boundary to within a
//!    small fraction of a cell where it is smooth.
//! 3. **Whole turns**: a twist range and the same range moved by 2π are the same limit, but
//!    interpolation between vertices needs them on the same turn: ranges are moved, spreading out
//!    from the vertex nearest the axis, onto the turn nearest their neighbour's. Vertices outside
//!    take the range of the inside vertex they were reached from, so interpolation near the
//!    boundary sees the boundary's own ranges.
//! 4. Stress rises from 0 at [`STRESS_DEPTH`] inside the boundary to 1 on it; the break margin is
//!    [`BREAK_MARGIN`].

use std::collections::VecDeque;
use std::f32::consts::{PI, TAU};

use glam::{Quat, Vec2, Vec3};
use rayon::prelude::*;

use super::boundary::{BoundaryChains, BoundarySource, neighbours};
use super::grid::VertexGrid;
use super::limit::{TableLimit, TableValues};
use super::octahedral::OctahedralMap;
use super::swing_set::{angle, fold_pairs, map_around};
use crate::contract::{LimitContext, RotationLimit};
use crate::fit::table::{BREAK_MARGIN, STRESS_DEPTH};
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
        let violation = |twist: f32| {
            self.limit
                .nearest(pointing(self.axis, direction, twist), &LimitContext::NONE)
                .violation
        };
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
                (twist, violation(twist))
            })
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        if least > NARROW_SEARCH {
            return None;
        }
        let golden = 0.618_034f32;
        let (mut low, mut high) = (best - step, best + step);
        for _ in 0..BISECTIONS {
            let (a, b) = (high - golden * (high - low), low + golden * (high - low));
            for twist in [a, b] {
                if self.allowed(direction, twist) {
                    return Some(twist);
                }
            }
            if violation(a) <= violation(b) {
                high = b;
            } else {
                low = a;
            }
        }
        None
    }

    /// The `k`-th twist step (any integer `k`; steps repeat every turn).
    fn step(k: i64) -> f32 {
        -PI + (k as f32 + 0.5) * (TAU / TWIST_SAMPLES as f32)
    }

    /// Whether some twist lets the bone point along `direction`.
    fn reaches(&self, direction: Vec3) -> bool {
        // From the middle step outwards: a typical range holds small twists.
        let half = (TWIST_SAMPLES / 2) as i64;
        (0..TWIST_SAMPLES as i64)
            .map(|i| half + if i % 2 == 0 { i / 2 } else { -(i + 1) / 2 })
            .any(|k| self.allowed(direction, Self::step(k)))
            || self.narrow_twist(direction).is_some()
    }

    /// The allowed twists along `direction`: the longest run of allowed steps with its ends
    /// refined, or `None` when none is allowed.
    fn twist_range(&self, direction: Vec3) -> Option<TwistRange> {
        let n = TWIST_SAMPLES as i64;
        let flags: Vec<bool> = (0..n)
            .map(|k| self.allowed(direction, Self::step(k)))
            .collect();
        let Some(gap) = flags.iter().position(|&allowed| !allowed) else {
            return Some(TwistRange { min: -PI, max: PI });
        };
        // Runs, going once round from just after a disallowed step.
        let (mut best, mut start, mut length) = (None::<(i64, i64)>, 0, 0);
        for k in gap as i64 + 1..=gap as i64 + n {
            if flags[k.rem_euclid(n) as usize] {
                if length == 0 {
                    start = k;
                }
                length += 1;
                if best.is_none_or(|(_, l)| length > l) {
                    best = Some((start, length));
                }
            } else {
                length = 0;
            }
        }
        let (low, high) = match best {
            Some((start, length)) => (Self::step(start), Self::step(start + length - 1)),
            None => {
                let twist = self.narrow_twist(direction)?;
                (twist, twist)
            }
        };
        let step = TAU / TWIST_SAMPLES as f32;
        let inside = |t: f32| self.allowed(direction, t);
        Some(TwistRange {
            min: bisect(low - step, low, inside),
            max: bisect(high + step, high, inside),
        })
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
    if !super::limit::RESOLUTIONS.contains(&resolution) {
        return Err(BakeError::Resolution(resolution));
    }
    let twist_axis = twist_axis.try_normalize().unwrap_or(Vec3::Y);
    let map = map_around(twist_axis);
    let n = resolution;
    let side = n + 1;
    let directions: Vec<Vec3> = (0..side * side)
        .map(|i| map.to_sphere(VertexGrid::vertex_position(n, i % side, i / side)))
        .collect();
    let pointing = Pointing {
        limit,
        axis: twist_axis,
    };
    let mut ranges: Vec<Option<TwistRange>> = directions
        .par_iter()
        .map(|&d| pointing.twist_range(d))
        .collect();
    // Fold partners are one direction: one answer for both.
    for (a, b) in fold_pairs(n) {
        ranges[b] = ranges[a];
    }
    let inside: Vec<bool> = ranges.iter().map(Option::is_some).collect();
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
    let mut twist = on_common_turns(&ranges, n, first);

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

/// The middle of a twist range.
fn middle(range: TwistRange) -> f32 {
    0.5 * (range.min + range.max)
}

/// `range` moved by the whole turns that bring its middle nearest `near`.
fn turned(range: TwistRange, near: f32) -> TwistRange {
    let shift = TAU * ((near - middle(range)) / TAU).round();
    TwistRange {
        min: range.min + shift,
        max: range.max + shift,
    }
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
    let targets: Vec<(usize, Vec2, TwistRange)> = bordering
        .par_iter()
        .filter_map(|&v| {
            let point = chains.nearest_to_vertex(directions[v], v)?.point;
            // A step past the boundary, away from the vertex.
            let inward = (point - directions[v]).normalize_or_zero();
            let nudged = (point + inward * NUDGE).normalize();
            let range = pointing.twist_range(nudged)?;
            Some((v, map.to_square(point), turned(range, middle(twist[v]))))
        })
        .collect();
    for &(v, _, range) in &targets {
        twist[v] = range;
    }
    for _ in 0..3 {
        for &(v, p, range) in &targets {
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

/// The ranges moved by whole turns so that neighbours agree (module docs, step 3), spreading out
/// from `first`; every vertex gets one, outside ones their inside neighbour's.
fn on_common_turns(ranges: &[Option<TwistRange>], n: usize, first: usize) -> Vec<TwistRange> {
    let count = ranges.len();
    let mut out: Vec<Option<TwistRange>> = vec![None; count];
    let mut queue: VecDeque<usize> = VecDeque::new();
    // Every island of inside vertices starts on the turn nearest zero, then spreads; outside
    // vertices are reached last, from the inside ones.
    let mut starts = std::iter::once(first).chain((0..count).filter(|&v| ranges[v].is_some()));
    loop {
        while let Some(v) = queue.pop_front() {
            let here: TwistRange = out[v].expect("queued vertices have a range");
            for u in neighbours(n, v) {
                if out[u].is_some() {
                    continue;
                }
                if let Some(range) = ranges[u] {
                    out[u] = Some(turned(range, middle(here)));
                    queue.push_front(u);
                } else if ranges[v].is_some() {
                    out[u] = Some(here);
                    queue.push_back(u);
                }
            }
        }
        let Some(start) = starts.find(|&v| out[v].is_none()) else {
            break;
        };
        let range = ranges[start].expect("starts are inside");
        out[start] = Some(turned(range, 0.0));
        queue.push_back(start);
    }
    // Outside vertices no inside vertex reaches through other outside ones: from any neighbour.
    let mut changed = true;
    while changed {
        changed = false;
        for v in 0..count {
            if out[v].is_none()
                && let Some(r) = neighbours(n, v).find_map(|u| out[u])
            {
                out[v] = Some(r);
                changed = true;
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
    /// Of them, those the table and the limit disagree on.
    pub rotations_disagreeing: usize,
    /// The largest distance (the contract's metric) from a disagreeing rotation to the region
    /// that refuses it, radians.
    pub largest_rotation_gap: f32,
}

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
    compare(limit, |d| pointing.reaches(d), table, samples, seed)
}

/// Compares a `coarser` level of detail with the `finer` table it was made from, as
/// [`disagreement`] does (the finer table's allowed directions read directly).
pub fn level_disagreement(
    finer: &TableLimit,
    coarser: &TableLimit,
    samples: usize,
    seed: u64,
) -> BakeReport {
    compare(finer, |d| finer.swing().contains(d), coarser, samples, seed)
}

/// [`disagreement`] with the reference's allowed directions given by `reaches`.
fn compare<L: RotationLimit + Sync>(
    limit: &L,
    reaches: impl Fn(Vec3) -> bool + Sync,
    table: &TableLimit,
    samples: usize,
    seed: u64,
) -> BakeReport {
    let chunk = 1024;
    let (directions_disagreeing, largest_direction_gap) = (0..samples.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut random = SeededRandom::new(seed ^ (c as u64).wrapping_mul(0x9E37_79B9));
            let mut found = (0usize, 0.0f32);
            for _ in 0..chunk.min(samples - c * chunk) {
                let d = random.direction();
                if table.swing().contains(d) != reaches(d) {
                    found.0 += 1;
                    found.1 = found.1.max(table.swing().signed_distance(d).abs());
                }
            }
            found
        })
        .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    let (rotations_disagreeing, largest_rotation_gap) = (0..samples.div_ceil(chunk))
        .into_par_iter()
        .map(|c| {
            let mut random = SeededRandom::new(!seed ^ (c as u64).wrapping_mul(0x85EB_CA6B));
            let mut found = (0usize, 0.0f32);
            for _ in 0..chunk.min(samples - c * chunk) {
                let q: Quat = random.rotation();
                let by_table = table.contains(q, &LimitContext::NONE);
                if by_table != limit.contains(q, &LimitContext::NONE) {
                    let refusing = if by_table {
                        limit.nearest(q, &LimitContext::NONE)
                    } else {
                        table.nearest(q, &LimitContext::NONE)
                    };
                    found.0 += 1;
                    found.1 = found.1.max(refusing.violation);
                }
            }
            found
        })
        .reduce(|| (0, 0.0), |a, b| (a.0 + b.0, a.1.max(b.1)));
    let resolution = table.resolution();
    BakeReport {
        resolution,
        cell_angle: (4.0 * PI).sqrt() / resolution as f32,
        directions: samples,
        directions_disagreeing,
        largest_direction_gap,
        rotations: samples,
        rotations_disagreeing,
        largest_rotation_gap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reach_cone::ReachConeLimit;
    use crate::region::FullLimit;

    /// Bakes `limit` and checks it against the limit on random directions and rotations.
    fn baked_agrees<L: RotationLimit + Sync>(limit: &L, axis: Vec3, resolution: usize) {
        let started = std::time::Instant::now();
        let table = bake(limit, axis, resolution).unwrap();
        let baked_in = started.elapsed();
        table.validate().unwrap();
        let report = disagreement(limit, &table, axis, 20_000, 5);
        eprintln!("{} baked in {baked_in:?}: {report:?}", limit.label());
        assert!(
            report.largest_direction_gap < report.cell_angle,
            "{}: {report:?}",
            limit.label()
        );
        assert!(
            report.largest_rotation_gap < report.cell_angle,
            "{}: {report:?}",
            limit.label()
        );
    }

    #[test]
    fn baked_full_space_shapes_agree_within_a_cell() {
        for limit in FullLimit::examples() {
            baked_agrees(&limit, Vec3::Y, 64);
        }
    }

    #[test]
    fn baked_reach_cones_agree_within_a_cell() {
        for cone in ReachConeLimit::examples() {
            baked_agrees(&cone, cone.twist_axis, 64);
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
