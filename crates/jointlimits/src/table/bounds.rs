//! A pyramid of twist bounds over a table's cells, and the branch-and-bound search it serves:
//! the allowed direction `e` minimising `α(d, e)² + δ(e)²` over the whole table, within a
//! tolerance, whatever the shape of the region and of its twist limits.
//!
//! A local search (Gauss–Newton from the best seed) lands in the right basin most of the time,
//! but the bilinear twist limits have kinks at every cell edge and the region may have several
//! basins, so it can stop a few hundredths of a radian short. The search here proves its answer
//! instead: every block of cells gets a lower bound of the cost over its allowed directions,
//!
//! ```text
//! lb = max(0, α(d, c) − L·h)² + gap(τ, [min twist_min, max twist_max])²
//! ```
//!
//! (`c` the direction at the block's centre, `h` the half diagonal in square units, `L` a bound
//! on how far the octahedral map stretches a step, `gap` the twist's distance from the envelope
//! of the block's twist ranges on its best turn), and blocks whose bound cannot beat the best
//! cost found by more than the tolerance are dropped unexamined. Blocks that survive are split
//! (stored blocks into blocks, cells into quarter cells, read from the cells' four corners), and
//! a small enough one is settled by its allowed corners. A bilinear function takes its extremes
//! over a rectangle at the corners, so the bounds of cells and of parts of cells are exact, and a
//! part with no allowed corner holds no allowed direction.

use glam::{Vec2, Vec3, Vec4};

use super::grid::VertexGrid;
use super::octahedral::OctahedralMap;
use super::packed::PackedGrid;
use crate::direction_twist::angle;
use crate::twist::TwistRange;

/// The largest angle (radians) a step of unit length in the square moves the direction, over
/// the whole map, with a margin: the Jacobian's largest singular value peaks at 3.07 where the
/// diamond's edge meets the square's axes (the equator at `±u`, `±v`), with radial stretch
/// `2/√(2 − r²)` and azimuthal `(π/2)·√(2 − r²)` there. The test samples it.
pub const STRETCH: f32 = 3.1;

/// How many times a cell is halved at most: a quarter-cell of a 64² table after 10 halvings
/// is far below any tolerance asked for.
const DEEPEST_SPLIT: i32 = -10;

/// Blocks waiting to be examined at most (each level leaves at most three siblings behind).
const STACK: usize = 192;

/// Bounds of blocks of `2^level` × `2^level` cells, for every level from 1 (blocks of 2×2
/// cells) up to one block covering the square.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct BoundPyramid {
    /// Cells per side of the table.
    resolution: usize,
    /// Per level from 1: blocks per side and each block's bounds.
    levels: Vec<(usize, Vec<BlockBounds>)>,
    /// Per cell (row-major): a bound on how far a step of unit length within the cell moves the
    /// direction ([`cell_stretch`]), which sizes the caps of the cell's parts.
    cell_stretch: Vec<f32>,
}

/// How much the largest stretch sampled in a cell is raised to bound it over the whole cell:
/// the Jacobian varies by far less than this within one cell of the coarsest table (4²), and the
/// samples include the cell's corners, edges and centre (the map's creases, the square's axes
/// and the diamond's edges, lie on cell edges of every even resolution).
const STRETCH_MARGIN: f32 = 1.25;

/// Points sampled per side of a cell to bound its stretch.
const STRETCH_SAMPLES: usize = 3;

/// A bound on the largest angle (radians) a step of unit length in the square moves the
/// direction within the cell `(column, row)` of an `n`-cell grid: the largest singular value of
/// the map's Jacobian sampled over the cell (one-sided differences inside the cell, so a crease
/// on its edge is measured from its own side), raised by [`STRETCH_MARGIN`] and at most the
/// whole map's bound [`STRETCH`].
pub fn cell_stretch(map: &OctahedralMap, n: usize, column: usize, row: usize) -> f32 {
    let cell = 2.0 / n as f32;
    let low = VertexGrid::vertex_position(n, column, row);
    let h = cell / 64.0;
    let mut largest = 0.0f32;
    for a in 0..STRETCH_SAMPLES {
        for b in 0..STRETCH_SAMPLES {
            let t = Vec2::new(a as f32, b as f32) / (STRETCH_SAMPLES - 1) as f32;
            // Step into the cell from its edges.
            let p = low + t * (cell - h);
            let at = map.to_sphere(p).as_dvec3();
            let du = (map.to_sphere(p + Vec2::X * h).as_dvec3() - at) / f64::from(h);
            let dv = (map.to_sphere(p + Vec2::Y * h).as_dvec3() - at) / f64::from(h);
            // The largest eigenvalue of JᵀJ = [[du·du, du·dv], [du·dv, dv·dv]].
            let (e, f, g) = (du.dot(du), du.dot(dv), dv.dot(dv));
            let mean = 0.5 * (e + g);
            let spread = (0.25 * (e - g) * (e - g) + f * f).sqrt();
            largest = largest.max((mean + spread).sqrt() as f32);
        }
    }
    (largest * STRETCH_MARGIN).min(STRETCH)
}

/// What a stored block's lower bound reads: a cap holding the block's directions, and the
/// envelope of its twist limits.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BlockBounds {
    /// The direction at the block's centre.
    centre: Vec3,
    /// The largest angle from `centre` to a direction of the block.
    radius: f32,
    /// `[min twist_min, max twist_max]` over the cells with an allowed corner; empty
    /// (`min = +∞`) when there are none.
    twist: [f32; 2],
}

/// The grids a search reads: the signed distance and the twist limits, on one map.
#[derive(Clone, Copy)]
pub struct TableGrids<'a> {
    /// The map between the square and the sphere.
    pub map: &'a OctahedralMap,
    /// Signed angular distance to the boundary (negative inside).
    pub distance: &'a VertexGrid,
    /// The signed distance and the twist limits side by side.
    pub packed: &'a PackedGrid,
}

/// The best allowed point found so far: its square point and cost `α² + δ²`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Found {
    /// The square point.
    pub point: Vec2,
    /// `α² + δ²` there.
    pub cost: f32,
}

/// A block of the search: `2^level` cells per side (a fraction of a cell when negative) at
/// index `(i, j)` in units of its own size, with its lower bound.
#[derive(Clone, Copy, Debug, Default)]
struct Block {
    level: i32,
    i: u32,
    j: u32,
    bound: f32,
}

/// Envelope of no values: nothing allowed.
const EMPTY: [f32; 2] = [f32::INFINITY, f32::NEG_INFINITY];

fn merge(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0].min(b[0]), a[1].max(b[1])]
}

impl BoundPyramid {
    /// The pyramid of the grids' cells.
    pub fn new(grids: TableGrids) -> BoundPyramid {
        use rayon::prelude::*;
        let n = grids.distance.resolution;
        let cell = 2.0 / n as f32;
        // Level 1, from the cells: the cap through the block's vertices, widened by what a
        // point can lie from its cell's nearest corner (half a diagonal).
        let mut side = n.div_ceil(2);
        let margin = STRETCH * cell * std::f32::consts::FRAC_1_SQRT_2;
        let mut below: Vec<BlockBounds> = (0..side * side)
            .into_par_iter()
            .map(|index| {
                let (i, j) = (index % side, index / side);
                let mut twist = EMPTY;
                for (column, row) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (column, row) = (2 * i + column, 2 * j + row);
                    if column < n && row < n {
                        twist = merge(twist, cell_envelope(grids, column, row));
                    }
                }
                let low = Vec2::new(i as f32, j as f32) * 2.0 * cell - 1.0;
                let high = (low + 2.0 * cell).min(Vec2::ONE);
                let centre = grids.map.to_sphere(0.5 * (low + high));
                let mut radius = 0.0f32;
                for column in 2 * i..=(2 * i + 2).min(n) {
                    for row in 2 * j..=(2 * j + 2).min(n) {
                        let p = VertexGrid::vertex_position(n, column, row);
                        radius = radius.max(angle(centre, grids.map.to_sphere(p)));
                    }
                }
                BlockBounds {
                    centre,
                    radius: radius + margin,
                    twist,
                }
            })
            .collect();
        let mut levels = vec![(side, below.clone())];
        let mut level = 1;
        while side > 1 {
            level += 1;
            let up = side.div_ceil(2);
            let size = (1usize << level) as f32 * cell;
            let parents: Vec<BlockBounds> = (0..up * up)
                .map(|index| {
                    let (i, j) = (index % up, index / up);
                    let low = Vec2::new(i as f32, j as f32) * size - 1.0;
                    let high = (low + size).min(Vec2::ONE);
                    let centre = grids.map.to_sphere(0.5 * (low + high));
                    let mut bounds = BlockBounds {
                        centre,
                        radius: 0.0,
                        twist: EMPTY,
                    };
                    for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (ci, cj) = (2 * i + di, 2 * j + dj);
                        if ci < side && cj < side {
                            let child = &below[cj * side + ci];
                            let reach = angle(centre, child.centre) + child.radius;
                            bounds.radius = bounds.radius.max(reach);
                            bounds.twist = merge(bounds.twist, child.twist);
                        }
                    }
                    bounds
                })
                .collect();
            levels.push((up, parents.clone()));
            (side, below) = (up, parents);
        }
        let cell_stretch = (0..n * n)
            .into_par_iter()
            .map(|index| cell_stretch(grids.map, n, index % n, index / n))
            .collect();
        BoundPyramid {
            resolution: n,
            levels,
            cell_stretch,
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.levels
            .iter()
            .map(|(_, blocks)| std::mem::size_of_val(blocks.as_slice()))
            .sum::<usize>()
            + std::mem::size_of_val(self.cell_stretch.as_slice())
    }

    /// Improves `best` (an allowed point and its cost, or `+∞` with any point) to within
    /// `tolerance` (radians, in `√cost`) of the least `α(d, e)² + δ(e)²` over the allowed
    /// directions `e`, for the unit direction `d` and the twist `twist` (any turn). Returns
    /// whether it changed.
    pub fn improve(
        &self,
        grids: TableGrids,
        d: Vec3,
        twist: f32,
        best: &mut Found,
        tolerance: f32,
    ) -> bool {
        let mut changed = false;
        let mut bar = beatable(best.cost, tolerance);
        let top = self.levels.len() as i32;
        let mut stack = [Block::default(); STACK];
        stack[0] = Block {
            level: top,
            i: 0,
            j: 0,
            bound: 0.0,
        };
        let mut depth = 1;
        while depth > 0 {
            depth -= 1;
            let block = stack[depth];
            if block.bound >= bar {
                continue;
            }
            // The children, each with its bound; the smallest bound is examined first.
            let mut children = [Block::default(); 4];
            let mut count = 0;
            for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (i, j) = (2 * block.i + di, 2 * block.j + dj);
                let level = block.level - 1;
                let Some(bounds) = self.block(grids, level, i, j) else {
                    continue;
                };
                let bound = bounds.lower_bound(d, twist, bar);
                if bound >= bar {
                    continue;
                }
                if let Some(rectangle) = bounds.rectangle {
                    // A part of a cell small enough that its corners are as near as its bound
                    // promises (within the tolerance) settles on them; larger ones are split.
                    // Settling no sooner keeps the proof of an answer that is already the
                    // nearest (the common case) from paying for corners.
                    if bounds.radius <= tolerance || level <= DEEPEST_SPLIT {
                        if settle(grids, rectangle, d, twist, best) {
                            changed = true;
                            bar = beatable(best.cost, tolerance);
                        }
                        continue;
                    }
                }
                children[count] = Block { level, i, j, bound };
                count += 1;
            }
            let children = &mut children[..count];
            children.sort_unstable_by(|a, b| b.bound.total_cmp(&a.bound));
            for child in children.iter() {
                if depth < STACK {
                    stack[depth] = *child;
                    depth += 1;
                }
            }
        }
        changed
    }

    /// The square rectangle `[low, high]` of block `(i, j)` at `level`, a cap holding its
    /// directions (centre and radius) and its twist envelope, or `None` when it lies past the
    /// grid or holds no allowed corner.
    #[inline]
    fn block(&self, grids: TableGrids, level: i32, i: u32, j: u32) -> Option<Bounds> {
        let n = self.resolution;
        let cell = 2.0 / n as f32;
        if level > 0 {
            let (side, blocks) = &self.levels[level as usize - 1];
            let (i, j) = (i as usize, j as usize);
            if i >= *side || j >= *side {
                return None;
            }
            let block = blocks[j * side + i];
            if block.twist[0] > block.twist[1] {
                return None;
            }
            return Some(Bounds {
                rectangle: None,
                centre: block.centre,
                radius: block.radius,
                twist: block.twist,
            });
        }
        // A cell (level 0) or a part of one: `2^-level` parts per side.
        let parts = 1u32 << (-level);
        let (column, row) = ((i / parts) as usize, (j / parts) as usize);
        if column >= n || row >= n {
            return None;
        }
        let part = 1.0 / parts as f32;
        let t0 = Vec2::new((i % parts) as f32, (j % parts) as f32) * part;
        let t1 = t0 + part;
        let origin = Vec2::new(column as f32, row as f32) * cell - 1.0;
        let rectangle = [origin + t0 * cell, origin + t1 * cell];
        let twist = allowed_envelope(grids.packed.part_corners(column, row, t0, t1))?;
        let [low, high] = rectangle;
        Some(Bounds {
            rectangle: Some(rectangle),
            centre: grids.map.to_sphere(0.5 * (low + high)),
            radius: self.cell_stretch[row * n + column] * 0.5 * (high - low).length(),
            twist,
        })
    }
}

/// The cost below which a point beats `cost` by more than `tolerance` in `√cost`.
#[inline]
fn beatable(cost: f32, tolerance: f32) -> f32 {
    let root = cost.sqrt() - tolerance;
    if root <= 0.0 { 0.0 } else { root * root }
}

/// The envelope of cell `(column, row)`'s twist limits, empty when no corner is allowed.
fn cell_envelope(grids: TableGrids, column: usize, row: usize) -> [f32; 2] {
    let corners = grids
        .packed
        .part_corners(column, row, Vec2::ZERO, Vec2::ONE);
    allowed_envelope(corners).unwrap_or(EMPTY)
}

/// The envelope `[min twist_min, max twist_max]` of a cell part's packed corner values (a
/// bilinear function's extremes over a rectangle are at its corners), or `None` when no corner
/// is allowed.
#[inline]
fn allowed_envelope([a, b, c, d]: [Vec4; 4]) -> Option<[f32; 2]> {
    let (least, most) = (a.min(b).min(c.min(d)), a.max(b).max(c.max(d)));
    (least.x <= 0.0).then_some([least.y, most.z])
}

/// A block as its lower bound reads it.
struct Bounds {
    /// The square rectangle, for cells and parts of cells (which settle on their corners).
    rectangle: Option<[Vec2; 2]>,
    /// A cap holding the block's directions.
    centre: Vec3,
    radius: f32,
    /// The envelope of its twist limits.
    twist: [f32; 2],
}

impl Bounds {
    /// The lower bound of `α(d, e)² + δ(e)²` over the block's directions (module docs).
    #[inline]
    fn lower_bound(&self, d: Vec3, twist: f32, bar: f32) -> f32 {
        let swing = (angle(d, self.centre) - self.radius).max(0.0);
        if swing * swing >= bar {
            // Too far already: the twist's part need not be measured.
            return swing * swing;
        }
        let gap = TwistRange {
            min: self.twist[0],
            max: self.twist[1],
        }
        .measure(twist)
        .distance;
        swing * swing + gap * gap
    }
}

/// Tries the allowed corners of `rectangle` (inside cell `column, row`) as answers; returns
/// whether one beat `best`.
#[inline]
fn settle(grids: TableGrids, rectangle: [Vec2; 2], d: Vec3, twist: f32, best: &mut Found) -> bool {
    let [low, high] = rectangle;
    let mut improved = false;
    for p in [
        low,
        Vec2::new(high.x, low.y),
        Vec2::new(low.x, high.y),
        high,
    ] {
        let lookup = grids.packed.sample(p);
        if lookup.distance > 0.0 {
            continue;
        }
        let gap = lookup.twist.measure(twist).distance;
        let swing = angle(d, grids.map.to_sphere(p));
        let cost = swing * swing + gap * gap;
        if cost < best.cost {
            *best = Found { point: p, cost };
            improved = true;
        }
    }
    improved
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::SeededRandom;

    #[test]
    fn no_step_in_the_square_moves_the_direction_more_than_the_stretch_bound() {
        let map = OctahedralMap {
            basis: glam::Mat3::IDENTITY,
        };
        let mut random = SeededRandom::new(4);
        let mut worst = 0.0f32;
        for _ in 0..200_000 {
            let p = Vec2::new(
                random.next_unit() as f32 * 2.0 - 1.0,
                random.next_unit() as f32 * 2.0 - 1.0,
            );
            let heading = random.next_unit() as f32 * std::f32::consts::TAU;
            let step = Vec2::new(heading.cos(), heading.sin()) * 1e-3;
            let q = (p + step).clamp(Vec2::splat(-1.0), Vec2::splat(1.0));
            let moved = (q - p).length();
            if moved < 1e-4 {
                continue;
            }
            let a = map.to_sphere(p).as_dvec3();
            let b = map.to_sphere(q).as_dvec3();
            let stretch = (a.angle_between(b) / f64::from(moved)) as f32;
            worst = worst.max(stretch);
        }
        eprintln!("largest stretch {worst}");
        assert!(worst <= STRETCH, "{worst}");
    }

    #[test]
    fn no_step_within_a_cell_moves_the_direction_more_than_the_cells_bound() {
        // A turned map, every resolution kind (odd too: then the creases cross cells), and
        // steps between random points of one cell, near its corners and edges too.
        let map = OctahedralMap {
            basis: crate::region::swing_basis(Vec3::new(0.3, -0.8, 0.5).normalize()),
        };
        let mut random = SeededRandom::new(11);
        for n in [4, 5, 8, 17, 64, 128] {
            let cell = 2.0 / n as f32;
            let bounds: Vec<f32> = (0..n * n)
                .map(|index| cell_stretch(&map, n, index % n, index / n))
                .collect();
            let mut worst_ratio = 0.0f32;
            let mut uncapped = 0.0f32;
            for _ in 0..100_000 {
                let mut index = || ((random.next_unit() * n as f64) as usize).min(n - 1);
                let (column, row) = (index(), index());
                let low = VertexGrid::vertex_position(n, column, row);
                let mut point = || {
                    // Uniform, or pressed against an edge or corner.
                    let t = Vec2::new(random.next_unit() as f32, random.next_unit() as f32);
                    let t = t.powf(if random.next_unit() < 0.3 { 6.0 } else { 1.0 });
                    low + t * cell
                };
                let (p, q) = (point(), point());
                let moved = (q - p).length();
                if moved < 1e-3 * cell {
                    continue;
                }
                let a = map.to_sphere(p).as_dvec3();
                let b = map.to_sphere(q).as_dvec3();
                let stretch = (a.angle_between(b) / f64::from(moved)) as f32;
                let bound = bounds[row * n + column];
                if bound < STRETCH {
                    uncapped = uncapped.max(stretch / bound);
                }
                worst_ratio = worst_ratio.max(stretch / bound);
            }
            eprintln!(
                "{n}² cells: worst stretch {worst_ratio:.3} of the cell bound, {uncapped:.3} where not capped"
            );
            assert!(worst_ratio <= 1.0, "{n}: {worst_ratio}");
        }
    }
}
