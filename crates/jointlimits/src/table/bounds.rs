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
//!
//! That bound loses the part's whole radius, so near the answer, where the cost is flat, it would
//! split parts down to the tolerance (a thousandth of a radian: hundreds of parts per search).
//! Cells and their parts also get a second-order bound (`BoundPyramid::examine`): the least
//! corner value of the cost (plus a multiple of the signed distance, which is at most zero on
//! allowed directions) less what a function of bounded curvature can dip below its bilinear
//! interpolation, `(M_u·w² + M_v·h²) / 8`. It loses only the square of the part's size, and
//! settles parts a cell wide: random inputs search about three times faster.
//!
//! Blocks of cells up to a sixteenth of the square's side get the same second-order bound
//! (`BoundPyramid::block_bound`), which prunes them near the answer before their cells are
//! reached: the table's values are not bilinear over a block, but within each cell both they
//! and the block's interpolation of its corner values are, so their difference takes its
//! extremes at the vertices, and the block's corner values loosened by those extremes (its
//! slack, stored per block) bound the table's everywhere in the block. On Haar-random inputs
//! to a 128² table this halves the blocks and cells a search visits.

use std::f32::consts::{PI, TAU};
use std::sync::{Arc, Mutex};

use glam::{DVec2, Vec2, Vec3, Vec4};

use super::grid::VertexGrid;
use super::octahedral::{OctahedralMap, local_direction_precise};
use super::packed::PackedGrid;
use crate::direction_twist::{angle, angles4};
use crate::twist::TwistRange;

/// The largest angle (radians) a step of unit length in the square moves the direction, over
/// the whole map, with a margin: the Jacobian's largest singular value peaks at 3.07 where the
/// diamond's edge meets the square's axes (the equator at `±u`, `±v`), with radial stretch
/// `2/√(2 − r²)` and azimuthal `(π/2)·√(2 − r²)` there. The test samples it.
pub const STRETCH: f32 = 3.1;

/// How many times a cell is halved at most: a quarter-cell of a 64² table after 10 halvings
/// is far below any tolerance asked for.
const DEEPEST_SPLIT: i32 = -10;

/// Blocks get a second-order bound up to `1 / CURVED_BLOCKS_PER_SIDE` of the square's side:
/// beyond, the bending and the slack it loses (with the square of the block's size) leave it
/// nothing to prune, and it costs four angles.
const CURVED_BLOCKS_PER_SIDE: usize = 16;

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
    cell_stretch: Arc<Vec<f32>>,
    /// Per cell (row-major): a bound on how fast a grid line through the cell bends on the
    /// sphere ([`cell_bending`]), `+∞` where the map is not smooth within the cell; it sizes
    /// the second-order bound of the cell's parts.
    cell_bending: Arc<Vec<f32>>,
    /// Per vertex (row-major, `(n + 1)²`): its direction. Whole cells, most of a search's
    /// work, read their corners' directions here instead of mapping them.
    vertex_directions: Vec<Vec3>,
    /// Per cell (row-major): the direction at its centre, its cap's centre.
    cell_centres: Vec<Vec3>,
    /// Per level from 1, beside `levels`: what each block's second-order bound reads.
    patches: Vec<Vec<BlockPatch>>,
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
/// on its edge is measured from its own side), raised by `STRETCH_MARGIN` and at most the
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

/// Per-cell geometry of one map and grid size: [`cell_stretch`] and [`cell_bending`] of every
/// cell (row-major).
type MapGeometry = (Arc<Vec<f32>>, Arc<Vec<f32>>);

/// How many grid sizes keep their geometry (at most 32 MB at the largest resolution).
const REMEMBERED_SIZES: usize = 4;

/// The per-cell stretch and bending bounds of an `n`-cell grid, computed once per size in a
/// process. They depend on the map's geometry alone, which is the same for every axis: a map
/// is one rotation of the map about `+z`, and rotating the sphere changes neither lengths nor
/// curvature (the rounding of a rotated basis, about 1e-7, lies far inside the bounds'
/// margins). So every table of a skeleton, and every refit of a table while its margin is
/// calibrated, shares one copy.
fn map_geometry(n: usize) -> MapGeometry {
    use rayon::prelude::*;
    static REMEMBERED: Mutex<Vec<(usize, MapGeometry)>> = Mutex::new(Vec::new());
    if let Ok(remembered) = REMEMBERED.lock()
        && let Some((_, geometry)) = remembered.iter().find(|(size, _)| *size == n)
    {
        return geometry.clone();
    }
    let map = OctahedralMap {
        basis: glam::Mat3::IDENTITY,
    };
    let stretch: Vec<f32> = (0..n * n)
        .into_par_iter()
        .map(|index| cell_stretch(&map, n, index % n, index / n))
        .collect();
    let bending = symmetric_grid(n, |column, row| cell_bending(n, column, row));
    let geometry = (Arc::new(stretch), Arc::new(bending));
    if let Ok(mut remembered) = REMEMBERED.lock() {
        if remembered.len() >= REMEMBERED_SIZES {
            remembered.remove(0);
        }
        remembered.push((n, geometry.clone()));
    }
    geometry
}

/// `per_cell(column, row)` for every cell of an `n`-cell grid (row-major), for a per-cell bound
/// of the map's geometry sampled symmetrically (central differences at a symmetric pattern of
/// points: [`cell_bending`]). The map is symmetric under `u → −u`, `v → −v` and `u ↔ v` (mirror
/// images of one another on the sphere, whatever its axis), and the bound covers both grid
/// directions, so one cell in eight is sampled and the rest read from it. With an odd `n` the
/// middle cells straddle the square's axes and their samples are not mirror images: every cell
/// is sampled.
fn symmetric_grid(n: usize, per_cell: impl Fn(usize, usize) -> f32 + Sync) -> Vec<f32> {
    use rayon::prelude::*;
    if n % 2 == 1 {
        return (0..n * n)
            .into_par_iter()
            .map(|index| per_cell(index % n, index / n))
            .collect();
    }
    // The representative of a cell's orbit: in the upper right quadrant, below the diagonal.
    let representative = |column: usize, row: usize| {
        let (column, row) = (column.max(n - 1 - column), row.max(n - 1 - row));
        (column.max(row), column.min(row))
    };
    let sampled: Vec<f32> = (0..n * n)
        .into_par_iter()
        .map(|index| {
            let (column, row) = (index % n, index / n);
            if representative(column, row) == (column, row) {
                per_cell(column, row)
            } else {
                f32::NAN
            }
        })
        .collect();
    (0..n * n)
        .map(|index| {
            let (column, row) = representative(index % n, index / n);
            sampled[row * n + column]
        })
        .collect()
}

/// How much the largest bending sampled in a cell is raised to bound it over the whole cell.
/// Bending varies faster than stretch (it grows like `1/r` towards the square's centre and
/// corners), hence the wider margin; the test samples it.
const BENDING_MARGIN: f32 = 1.5;

/// Points sampled per side of a cell to bound its bending.
const BENDING_SAMPLES: usize = 4;

/// A bound on the covariant acceleration (radians per square unit²) of the grid lines `u ↦
/// m(u, v)` and `v ↦ m(u, v)` within the cell `(column, row)` of an `n`-cell grid, whatever the
/// map's axis: the part of `∂²m` along the sphere, sampled over the cell by central differences
/// kept inside it (in f64) and raised by `BENDING_MARGIN`. `+∞` where the map is not smooth
/// within the cell: a crease (the square's axes, the diamond `|u| + |v| = 1`) crosses it, or it
/// touches the axis or its antipode (the centre and the corners of the square), where grid lines
/// bend without bound.
pub fn cell_bending(n: usize, column: usize, row: usize) -> f32 {
    let cell = 2.0 / n as f32;
    let low = VertexGrid::vertex_position(n, column, row);
    let high = low + cell;
    if !smooth_within(low, high, cell) {
        return f32::INFINITY;
    }
    let h = f64::from(cell) / 64.0;
    let mut largest = 0.0f64;
    for a in 0..BENDING_SAMPLES {
        for b in 0..BENDING_SAMPLES {
            let t = DVec2::new(a as f64, b as f64) / (BENDING_SAMPLES - 1) as f64;
            let p = low.as_dvec2() + DVec2::splat(h) + t * (f64::from(cell) - 2.0 * h);
            let at = local_direction_precise(p);
            for step in [DVec2::X * h, DVec2::Y * h] {
                let ahead = local_direction_precise(p + step);
                let behind = local_direction_precise(p - step);
                let second = (ahead + behind - 2.0 * at) / (h * h);
                let along_sphere = second - at * at.dot(second);
                largest = largest.max(along_sphere.length());
            }
        }
    }
    largest as f32 * BENDING_MARGIN
}

/// Whether the map is smooth within the square rectangle `[low, high]`, whose corners are grid
/// vertices `cell` apart or more: no crease (the square's axes, the diamond `|u| + |v| = 1`)
/// crosses it, and no corner is the axis or its antipode (the centre and the corners of the
/// square), where grid lines bend without bound. Those points are vertices of every grid with
/// an even resolution, and with an odd one the square's axes cross the middle cells.
fn smooth_within(low: Vec2, high: Vec2, cell: f32) -> bool {
    // Values within a thousandth of a cell of zero are on the line, not across it.
    let eps = 1e-3 * cell;
    let crosses = |a: f32, b: f32| a.min(b) < -eps && a.max(b) > eps;
    if crosses(low.x, high.x) || crosses(low.y, high.y) {
        return false;
    }
    let corners = super::grid::rectangle_corners(low, high);
    let diamond = corners.map(|p| p.x.abs() + p.y.abs() - 1.0);
    let least = diamond.iter().copied().fold(f32::INFINITY, f32::min);
    let most = diamond.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if crosses(least, most) {
        return false;
    }
    let singular = |p: Vec2| p.length() < eps || (p.abs() - Vec2::ONE).length() < eps;
    !corners.iter().any(|&p| singular(p))
}

/// What a block's second-order bound reads besides its corners (module docs): how far the
/// table's values stray from the bilinear interpolation of the block's corner values, and the
/// map's stretch and bending over the block.
///
/// Within each cell both the table's values and the block's interpolation are bilinear, so their
/// difference takes its extremes at the vertices: over the whole block the signed distance is at
/// least the interpolation less `slack.x`, the twist minimum at least it less `slack.y`, and the
/// twist maximum at most it plus `slack.z`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BlockPatch {
    slack: Vec4,
    stretch: f32,
    /// `+∞` where the map is not smooth within the block, or the block runs past the grid:
    /// no second-order bound there.
    bending: f32,
}

impl BlockPatch {
    /// The patch of block `(i, j)` of `2^level` cells per side.
    fn new(
        packed: &PackedGrid,
        (cell_stretch, cell_bending): (&[f32], &[f32]),
        level: usize,
        i: usize,
        j: usize,
    ) -> BlockPatch {
        let n = packed.resolution();
        let size = 1usize << level;
        let (c0, r0) = (i * size, j * size);
        let unusable = BlockPatch {
            slack: Vec4::ZERO,
            stretch: STRETCH,
            bending: f32::INFINITY,
        };
        if c0 + size > n || r0 + size > n {
            return unusable;
        }
        let cell = 2.0 / n as f32;
        let (low, high) = (
            VertexGrid::vertex_position(n, c0, r0),
            VertexGrid::vertex_position(n, c0 + size, r0 + size),
        );
        // A block whose cells read their corners on other turns than the stored ones is not
        // one bilinear patch of the stored values (`PackedGrid` docs).
        let turns_within = packed.has_turns()
            && (r0..r0 + size)
                .any(|row| (c0..c0 + size).any(|column| packed.turns(column, row) != [0; 4]));
        if !smooth_within(low, high, cell) || turns_within {
            return unusable;
        }
        let side = n + 1;
        let values = packed.values();
        let at = |c: usize, r: usize| values[r * side + c];
        let corners = [
            at(c0, r0),
            at(c0 + size, r0),
            at(c0, r0 + size),
            at(c0 + size, r0 + size),
        ];
        let mut below = Vec4::ZERO;
        let mut largest = Vec4::ZERO;
        for b in 0..=size {
            for a in 0..=size {
                let t = Vec2::new(a as f32, b as f32) / size as f32;
                let interpolated = bilinear(corners, t);
                let actual = at(c0 + a, r0 + b);
                // How far the values fall below (distance, twist min) or rise above (twist
                // max) the interpolation.
                below = below.max(interpolated - actual);
                below.z = below.z.max(actual.z - interpolated.z);
                largest = largest.max(actual.abs());
            }
        }
        // Room for the rounding of the interpolation here and where the bound reads it.
        let slack = Vec4::new(below.x, below.y, below.z, 0.0) + 16.0 * f32::EPSILON * largest;
        let mut stretch = 0.0f32;
        let mut bending = 0.0f32;
        for row in r0..r0 + size {
            for column in c0..c0 + size {
                stretch = stretch.max(cell_stretch[row * n + column]);
                bending = bending.max(cell_bending[row * n + column]);
            }
        }
        BlockPatch {
            slack,
            stretch,
            bending,
        }
    }
}

/// The bilinear interpolation of corner values (bottom-left, bottom-right, top-left, top-right)
/// at `t ∈ [0, 1]²`.
#[inline(always)]
fn bilinear([a, b, c, d]: [Vec4; 4], t: Vec2) -> Vec4 {
    let bottom = a + (b - a) * t.x;
    let top = c + (d - c) * t.x;
    bottom + (top - bottom) * t.y
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
        let (cell_stretch, cell_bending) = map_geometry(n);
        let side = n + 1;
        let vertex_directions = (0..side * side)
            .into_par_iter()
            .map(|index| {
                let p = VertexGrid::vertex_position(n, index % side, index / side);
                grids.map.to_sphere(p)
            })
            .collect();
        let cell_centres = (0..n * n)
            .into_par_iter()
            .map(|index| {
                let [low, high] = cell_rectangle(n, index % n, index / n);
                grids.map.to_sphere(0.5 * (low + high))
            })
            .collect();
        let patches = levels
            .iter()
            .enumerate()
            .map(|(index, (side, _))| {
                (0..side * side)
                    .into_par_iter()
                    .map(|block| {
                        BlockPatch::new(
                            grids.packed,
                            (&cell_stretch, &cell_bending),
                            index + 1,
                            block % side,
                            block / side,
                        )
                    })
                    .collect()
            })
            .collect();
        BoundPyramid {
            resolution: n,
            levels,
            cell_stretch,
            cell_bending,
            vertex_directions,
            cell_centres,
            patches,
        }
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.levels
            .iter()
            .map(|(_, blocks)| std::mem::size_of_val(blocks.as_slice()))
            .sum::<usize>()
            + std::mem::size_of_val(self.cell_stretch.as_slice())
            + std::mem::size_of_val(self.cell_bending.as_slice())
            + std::mem::size_of_val(self.vertex_directions.as_slice())
            + std::mem::size_of_val(self.cell_centres.as_slice())
            + self
                .patches
                .iter()
                .map(|level| std::mem::size_of_val(level.as_slice()))
                .sum::<usize>()
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
        let multiplier = boundary_multiplier(grids, d, twist, best);
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
                let mut bound = bounds.lower_bound(d, twist, bar);
                if bound >= bar {
                    continue;
                }
                if level > 0 && (CURVED_BLOCKS_PER_SIDE << level) <= self.resolution {
                    // Blocks of cells: the second-order bound of the block's interpolation.
                    let curved =
                        self.block_bound(grids, (level, i, j), (d, twist), multiplier, bar);
                    if curved >= bar {
                        continue;
                    }
                    bound = bound.max(curved);
                }
                if let Some(part) = &bounds.part {
                    // The part's allowed corners are answers; and where the first-order bound,
                    // which loses the part's whole radius, cannot prune the flat costs near the
                    // answer, the second-order one prunes parts far larger than the tolerance.
                    let (curved, improved) =
                        self.examine(grids, part, (d, twist), multiplier, best, tolerance);
                    if improved {
                        changed = true;
                        bar = beatable(best.cost, tolerance);
                    }
                    // A part small enough that its corners are as near as its bound promises
                    // (within the tolerance) is settled by them; larger ones are split.
                    if bound.max(curved) >= bar
                        || bounds.radius <= tolerance
                        || level <= DEEPEST_SPLIT
                    {
                        continue;
                    }
                    bound = bound.max(curved);
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
                part: None,
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
        let index = row * n + column;
        if parts == 1 {
            // A whole cell: its corners are vertices, its centre is stored.
            let values = grids.packed.corners(column, row);
            let twist = allowed_envelope(values)?;
            let rectangle = cell_rectangle(n, column, row);
            let [low, high] = rectangle;
            return Some(Bounds {
                part: Some(Part {
                    rectangle,
                    values,
                    cell: index,
                    whole: true,
                }),
                centre: self.cell_centres[index],
                radius: self.cell_stretch[index] * 0.5 * (high - low).length(),
                twist,
            });
        }
        let part = 1.0 / parts as f32;
        let t0 = Vec2::new((i % parts) as f32, (j % parts) as f32) * part;
        let t1 = t0 + part;
        let origin = Vec2::new(column as f32, row as f32) * cell - 1.0;
        let rectangle = [origin + t0 * cell, origin + t1 * cell];
        let values = grids.packed.part_corners(column, row, t0, t1);
        let twist = allowed_envelope(values)?;
        let [low, high] = rectangle;
        Some(Bounds {
            part: Some(Part {
                rectangle,
                values,
                cell: index,
                whole: false,
            }),
            centre: grids.map.to_sphere(0.5 * (low + high)),
            radius: self.cell_stretch[index] * 0.5 * (high - low).length(),
            twist,
        })
    }
}

/// The square rectangle `[low, high]` of cell `(column, row)` of an `n`-cell grid: its corners
/// are the vertices [`VertexGrid::vertex_position`] places.
#[inline(always)]
fn cell_rectangle(n: usize, column: usize, row: usize) -> [Vec2; 2] {
    [
        VertexGrid::vertex_position(n, column, row),
        VertexGrid::vertex_position(n, column + 1, row + 1),
    ]
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
    /// For cells and parts of cells: what their corners read.
    part: Option<Part>,
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

/// A cell or a part of one.
struct Part {
    /// Its square rectangle `[low, high]`.
    rectangle: [Vec2; 2],
    /// The packed values at its corners: bottom-left, bottom-right, top-left, top-right.
    values: [Vec4; 4],
    /// Its cell's index (row-major).
    cell: usize,
    /// Whether it is the whole cell (its corners the cell's vertices).
    whole: bool,
}

impl Part {
    /// The square points of its corners, in the order of `values`.
    #[inline]
    fn corners(&self) -> [Vec2; 4] {
        let [low, high] = self.rectangle;
        super::grid::rectangle_corners(low, high)
    }
}

/// How far (relative, and in the signed distance) a corner's own values may stray from a
/// reading at its point: far above the last bits in which they can differ.
const SCREEN_SLACK: f32 = 1e-5;

/// The twist's distance from the range of packed values `v` on the twist's best turn, as
/// [`TwistRange::measure`] gives it.
#[inline(always)]
fn twist_gap_any_turn(v: Vec4, twist: f32) -> f32 {
    TwistRange { min: v.y, max: v.z }.measure(twist).distance
}

/// The twist's distance `max(0, τ − max, min − τ)` from the range of packed values `v`.
#[inline(always)]
fn twist_gap(v: Vec4, turned: f32) -> f32 {
    (turned - v.z).max(v.y - turned).max(0.0)
}

impl BoundPyramid {
    /// Tries the allowed corners of `part` as answers for the input `(d, twist)` (returning
    /// whether one beat `best`), and returns a second-order lower bound of `α(d, e)² + δ(e)²`
    /// over the part's allowed directions `e` (0 where the map is not smooth within the cell).
    ///
    /// Along a grid line through the part, at speed at most `s` (the cell's stretch) and with
    /// covariant acceleration at most `A` (its bending), `α²` has second derivative at most
    /// `2s² + 2α·A` (the Hessian of `α²` on the sphere is at most 2), and on a fixed twist turn
    /// `δ²` at most `2·t′²` (`t′` the largest slope of a bilinear twist limit along the line:
    /// the limits are linear along grid lines, and `max(0, ·)²` is convex with that curvature).
    /// The signed distance is linear along them too, so for any multiplier `λ ≥ 0`,
    /// `f = α² + δ² + λ·s_d` (which is at most `α² + δ²` on allowed directions) has second
    /// derivative at most `M = 2s² + 2α_max·A + 2t′²` along each side, and a function on a
    /// rectangle of sides `w × h` lies no more than `(M_u·w² + M_v·h²) / 8` below the bilinear
    /// interpolation of its corner values, whose least value is at a corner. The bound is the
    /// least corner value less that, for `λ = 0` and for `multiplier` (the boundary's
    /// multiplier at the answer found so far, which makes the bound tight where the answer lies
    /// on the boundary), the larger of the two, least over the twist turns that could beat
    /// `best` (none: the bar itself, which prunes the part).
    #[inline]
    fn examine(
        &self,
        grids: TableGrids,
        part: &Part,
        (d, twist): (Vec3, f32),
        multiplier: f32,
        best: &mut Found,
        tolerance: f32,
    ) -> (f32, bool) {
        let corners = part.corners();
        let directions = if part.whole {
            let n = self.resolution;
            let (column, row) = (part.cell % n, part.cell / n);
            let at = |c: usize, r: usize| self.vertex_directions[r * (n + 1) + c];
            [
                at(column, row),
                at(column + 1, row),
                at(column, row + 1),
                at(column + 1, row + 1),
            ]
        } else {
            corners.map(|p| grids.map.to_sphere(p))
        };
        let swings = angles4(d, directions);
        let mut improved = false;
        for ((&p, &swing), value) in corners.iter().zip(&swings).zip(part.values) {
            // The corner values screen the corners; one that may beat the best is read again
            // at the point itself, as the answer will be: the part's corner values may differ
            // in the last bit, and an answer must be allowed by the table's own reading.
            let screened = swing * swing + twist_gap_any_turn(value, twist).powi(2);
            if value.x > SCREEN_SLACK || screened > best.cost * (1.0 + SCREEN_SLACK) {
                continue;
            }
            let lookup = grids.packed.sample(p);
            if lookup.distance > 0.0 {
                continue;
            }
            let gap = lookup.twist.measure(twist).distance;
            let cost = swing * swing + gap * gap;
            if cost < best.cost {
                *best = Found { point: p, cost };
                improved = true;
            }
        }
        let [low, high] = part.rectangle;
        let patch = Patch {
            size: high - low,
            values: part.values,
            swings,
            stretch: self.cell_stretch[part.cell],
            bending: self.cell_bending[part.cell],
        };
        let bound = patch.lower_bound(twist, multiplier, beatable(best.cost, tolerance));
        (bound, improved)
    }

    /// The second-order bound of block `(i, j)` at `level ≥ 1` for the input `(d, twist)`: a
    /// [`Patch`] of the block's corners with their values loosened by its [`BlockPatch`] slack,
    /// so that it holds for the table's own values everywhere in the block; 0 where the block
    /// has none.
    #[inline]
    fn block_bound(
        &self,
        grids: TableGrids,
        (level, i, j): (i32, u32, u32),
        (d, twist): (Vec3, f32),
        multiplier: f32,
        bar: f32,
    ) -> f32 {
        let (side, _) = self.levels[level as usize - 1];
        let block = self.patches[level as usize - 1][j as usize * side + i as usize];
        if !block.bending.is_finite() {
            return 0.0;
        }
        let n = self.resolution;
        let size = 1usize << level;
        let (c0, r0) = (i as usize * size, j as usize * size);
        let vertex = |c: usize, r: usize| r * (n + 1) + c;
        let indices = [
            vertex(c0, r0),
            vertex(c0 + size, r0),
            vertex(c0, r0 + size),
            vertex(c0 + size, r0 + size),
        ];
        let loosen = Vec4::new(-block.slack.x, -block.slack.y, block.slack.z, 0.0);
        let values = indices.map(|v| grids.packed.values()[v] + loosen);
        let swings = angles4(d, indices.map(|v| self.vertex_directions[v]));
        let patch = Patch {
            size: Vec2::splat(size as f32 * 2.0 / n as f32),
            values,
            swings,
            stretch: block.stretch,
            bending: block.bending,
        };
        patch.lower_bound(twist, multiplier, bar)
    }
}

/// A rectangle of the square on which the second-order bound is taken: its size, its corner
/// values (bottom-left, bottom-right, top-left, top-right) whose bilinear interpolation bounds
/// the table's (exactly so for a cell or a part of one), its corners' angles from the input,
/// and bounds of the map's stretch and bending over it.
struct Patch {
    size: Vec2,
    values: [Vec4; 4],
    swings: [f32; 4],
    stretch: f32,
    bending: f32,
}

impl Patch {
    /// The second-order lower bound of `α² + δ²` over the patch's allowed directions for an
    /// input of twist `twist` (see [`BoundPyramid::examine`]), at most `bar` when no twist
    /// turn can come below it, and 0 where the map is not smooth over the patch.
    #[inline]
    fn lower_bound(&self, twist: f32, multiplier: f32, bar: f32) -> f32 {
        let bending = self.bending;
        if !bending.is_finite() {
            return 0.0;
        }
        let (size, v, swings, stretch) = (self.size, self.values, &self.swings, self.stretch);
        // The largest slopes of the twist limits along u (bottom and top sides) and v (left
        // and right sides), per square unit.
        let along_u = (v[1] - v[0]).abs().max((v[3] - v[2]).abs()) / size.x;
        let along_v = (v[2] - v[0]).abs().max((v[3] - v[1]).abs()) / size.y;
        let slope_u = along_u.y.max(along_u.z);
        let slope_v = along_v.y.max(along_v.z);
        let farthest = swings.iter().copied().fold(0.0, f32::max) + stretch * size.length();
        let swing_curvature = 2.0 * stretch * stretch + 2.0 * farthest.min(PI) * bending;
        let below_interpolation = ((swing_curvature + 2.0 * slope_u * slope_u) * size.x * size.x
            + (swing_curvature + 2.0 * slope_v * slope_v) * size.y * size.y)
            / 8.0;
        // The turns whose twist may come within `√bar` of the part's range.
        let reach = bar.sqrt();
        let least = v.iter().map(|c| c.y).fold(f32::INFINITY, f32::min);
        let most = v.iter().map(|c| c.z).fold(f32::NEG_INFINITY, f32::max);
        let first = ((least - reach - twist) / TAU).ceil();
        let last = ((most + reach - twist) / TAU).floor();
        if last - first > 2.0 {
            // A range wider than two turns: not worth bounding this way.
            return 0.0;
        }
        // No turn within reach: every cost in the part is at least the bar.
        let mut bound = bar;
        let mut k = first;
        while k <= last {
            let turned = twist + TAU * k;
            let mut plain = f32::INFINITY;
            let mut weighted = f32::INFINITY;
            for (c, &swing) in v.iter().zip(swings) {
                let gap = twist_gap(*c, turned);
                let cost = swing * swing + gap * gap;
                plain = plain.min(cost);
                weighted = weighted.min(cost + multiplier * c.x);
            }
            let on_turn = plain.max(weighted) - below_interpolation;
            bound = if k == first {
                on_turn
            } else {
                bound.min(on_turn)
            };
            k += 1.0;
        }
        bound.max(0.0)
    }
}

/// The multiplier `λ ≥ 0` of the boundary constraint at the answer `best` for the input `(d,
/// twist)`: where the least `α² + δ²` lies on the boundary, its gradient there is `−λ` times
/// the signed distance's (estimated by central differences in the square); 0 where it lies
/// inside or nothing was found. Any `λ ≥ 0` gives a valid bound; this one a tight one.
fn boundary_multiplier(grids: TableGrids, d: Vec3, twist: f32, best: &Found) -> f32 {
    if !best.cost.is_finite() {
        return 0.0;
    }
    let h = 0.25 / grids.distance.resolution as f32;
    let at = |p: Vec2| {
        let lookup = grids.packed.sample(p);
        let swing = angle(d, grids.map.to_sphere(p));
        let gap = lookup.twist.measure(twist).distance;
        Vec2::new(swing * swing + gap * gap, lookup.distance)
    };
    let p = best.point;
    let du = (at(p + Vec2::X * h) - at(p - Vec2::X * h)) / (2.0 * h);
    let dv = (at(p + Vec2::Y * h) - at(p - Vec2::Y * h)) / (2.0 * h);
    let (cost, distance) = (Vec2::new(du.x, dv.x), Vec2::new(du.y, dv.y));
    let multiplier = -cost.dot(distance) / distance.length_squared();
    if multiplier.is_finite() {
        multiplier.max(0.0)
    } else {
        0.0
    }
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

    #[test]
    fn no_grid_line_bends_more_than_its_cells_bound() {
        // Second differences over random stencils within random cells (odd resolutions too,
        // whose middle cells are crossed by creases and unbounded), against the cell's bound.
        let mut random = SeededRandom::new(12);
        for n in [4, 5, 8, 17, 64, 128, 1024] {
            let cell = 2.0 / n as f64;
            let mut worst_ratio = 0.0f64;
            let mut bounded = 0;
            for _ in 0..20_000 {
                let mut index = || ((random.next_unit() * n as f64) as usize).min(n - 1);
                let (column, row) = (index(), index());
                let bound = f64::from(cell_bending(n, column, row));
                if !bound.is_finite() {
                    continue;
                }
                bounded += 1;
                let low = VertexGrid::vertex_position(n, column, row).as_dvec2();
                let h = cell * (0.02 + 0.2 * random.next_unit());
                let t = DVec2::new(random.next_unit(), random.next_unit());
                let p = low + DVec2::splat(h) + t * (cell - 2.0 * h);
                let at = local_direction_precise(p);
                for step in [DVec2::X * h, DVec2::Y * h] {
                    let second = (local_direction_precise(p + step)
                        + local_direction_precise(p - step)
                        - 2.0 * at)
                        / (h * h);
                    let bending = (second - at * at.dot(second)).length();
                    worst_ratio = worst_ratio.max(bending / bound);
                }
            }
            eprintln!("{n}² cells: worst bending {worst_ratio:.3} of the bound ({bounded} cells)");
            if n >= 8 {
                assert!(bounded > 10_000, "{n}: only {bounded} smooth cells");
            }
            assert!(worst_ratio <= 1.0, "{n}: {worst_ratio}");
        }
    }

    /// A test table: an allowed blob about `centre` with a wavy edge, and twist limits that
    /// climb steeply across it (past a half turn where `high` is), on `n` cells.
    fn wavy_table(n: usize, centre: Vec3, high: bool) -> (OctahedralMap, VertexGrid, PackedGrid) {
        let map = OctahedralMap {
            basis: crate::region::swing_basis(Vec3::new(0.2, 0.9, -0.3).normalize()),
        };
        let at = |p: Vec2| map.to_sphere(p);
        let distance = VertexGrid::from_fn(n, |p| {
            angle(at(p), centre) - 1.3 - 0.3 * (4.0 * at(p).x).sin()
        });
        let lift = if high { 2.6 } else { 0.0 };
        let twist_min = VertexGrid::from_fn(n, |p| lift - 0.4 + 0.9 * (2.0 * at(p).y).sin());
        let twist_max = VertexGrid::from_fn(n, |p| {
            lift - 0.4 + 0.9 * (2.0 * at(p).y).sin() + 0.4 + 0.3 * (3.0 * at(p).z).cos()
        });
        let packed = PackedGrid::new(&distance, &twist_min, &twist_max);
        (map, distance, packed)
    }

    #[test]
    fn the_second_order_bound_never_exceeds_the_least_cost_over_a_part() {
        use glam::Quat;
        // Random inputs (any direction, twists past ±2π) and random parts of random cells,
        // against the least cost over a dense lattice of each part's allowed points; any
        // multiplier is valid, so random ones are tried with the estimated one. The bound must
        // also be tight on small parts, or it would prune nothing.
        let mut random = SeededRandom::new(5);
        let mut checked = 0;
        let mut ratios = Vec::new();
        for (n, high) in [(8, false), (16, true), (33, false), (64, true)] {
            let centre = random.direction();
            let (map, distance, packed) = wavy_table(n, centre, high);
            let grids = TableGrids {
                map: &map,
                distance: &distance,
                packed: &packed,
            };
            let pyramid = BoundPyramid::new(grids);
            let cell = 2.0 / n as f32;
            for trial in 0..4_000 {
                let mut index = || ((random.next_unit() * n as f64) as usize).min(n - 1);
                let (column, row) = (index(), index());
                let level = -((random.next_unit() * 5.0) as i32);
                let parts = 1u32 << (-level);
                let (i, j) = (
                    (random.next_unit() * f64::from(parts)) as u32,
                    (random.next_unit() * f64::from(parts)) as u32,
                );
                let t0 = Vec2::new(i as f32, j as f32) / parts as f32;
                let t1 = t0 + 1.0 / parts as f32;
                let origin = Vec2::new(column as f32, row as f32) * cell - 1.0;
                // Whole cells read their corners' directions from the pyramid's vertices.
                let whole = level == 0;
                let part = Part {
                    rectangle: if whole {
                        cell_rectangle(n, column, row)
                    } else {
                        [origin + t0 * cell, origin + t1 * cell]
                    },
                    values: packed.part_corners(column, row, t0, t1),
                    cell: row * n + column,
                    whole,
                };
                let (d, twist) = if trial % 2 == 0 {
                    (
                        random.direction(),
                        (random.next_unit() as f32 - 0.5) * 5.0 * PI,
                    )
                } else {
                    // Near the part, where its least cost may lie inside it.
                    let [low, high] = part.rectangle;
                    let t = Vec2::new(random.next_unit() as f32, random.next_unit() as f32);
                    let e = map.to_sphere(low + (high - low) * t);
                    let off =
                        (random.direction() - e * e.dot(random.direction())).normalize_or_zero();
                    let reach = random.next_unit() as f32 * 1.5;
                    let range = packed.sample(low + (high - low) * t).twist;
                    let beyond = (random.next_unit() as f32 - 0.5) * 2.0;
                    let twist = if beyond > 0.0 {
                        range.max + beyond
                    } else {
                        range.min + beyond
                    };
                    (
                        Quat::from_axis_angle(e.cross(off).normalize_or(Vec3::X), reach) * e,
                        twist,
                    )
                };
                // The least cost over the part's allowed lattice points.
                let [low, high] = part.rectangle;
                let mut least = f32::INFINITY;
                let mut least_at = low;
                for a in 0..=32 {
                    for b in 0..=32 {
                        let p = low + (high - low) * Vec2::new(a as f32, b as f32) / 32.0;
                        let lookup = packed.sample(p);
                        if lookup.distance > 0.0 {
                            continue;
                        }
                        let gap = lookup.twist.measure(twist).distance;
                        let cost = angle(d, map.to_sphere(p)).powi(2) + gap * gap;
                        if cost < least {
                            (least, least_at) = (cost, p);
                        }
                    }
                }
                if !least.is_finite() {
                    continue;
                }
                // A search whose best so far is a little above the part's least.
                let found = Found {
                    point: least_at,
                    cost: least * 1.2 + 0.01,
                };
                let estimated = boundary_multiplier(grids, d, twist, &found);
                for multiplier in [estimated, 0.0, random.next_unit() as f32 * 8.0] {
                    let mut best = found;
                    let (bound, _) =
                        pyramid.examine(grids, &part, (d, twist), multiplier, &mut best, 1e-3);
                    assert!(
                        bound <= least + 1e-5 * (1.0 + least),
                        "{n}² cell ({column}, {row}) level {level}: bound {bound} above the \
                         least cost {least} for {d}, twist {twist}, multiplier {multiplier}"
                    );
                    if multiplier == estimated && level <= -2 && least > 0.01 {
                        ratios.push(bound / least);
                    }
                }
                checked += 1;
            }
        }
        ratios.sort_by(f32::total_cmp);
        let median = ratios[ratios.len() / 2];
        eprintln!(
            "{checked} parts checked; bound / least cost on small parts: median {median:.4}, \
             tenth percentile {:.4}",
            ratios[ratios.len() / 10]
        );
        assert!(checked > 4_000, "{checked}");
        assert!(
            median > 0.95,
            "the bound prunes too little: median {median}"
        );
    }

    /// A test table whose values ripple from vertex to vertex, far from any bilinear
    /// interpolation over blocks of cells.
    fn rough_table(n: usize, centre: Vec3) -> (OctahedralMap, VertexGrid, PackedGrid) {
        let map = OctahedralMap {
            basis: crate::region::swing_basis(Vec3::new(-0.4, 0.3, 0.8).normalize()),
        };
        let at = |p: Vec2| map.to_sphere(p);
        let ripple = |p: Vec2| (1.7 * n as f32 * p.x).sin() * (1.3 * n as f32 * p.y).cos();
        let distance = VertexGrid::from_fn(n, |p| angle(at(p), centre) - 1.2 + 0.2 * ripple(p));
        let twist_min = VertexGrid::from_fn(n, |p| -0.5 + 0.3 * (2.0 * at(p).z).sin());
        let twist_max = VertexGrid::from_fn(n, |p| {
            -0.2 + 0.3 * (2.0 * at(p).z).sin() + 0.6 * ripple(p).abs()
        });
        let packed = PackedGrid::new(&distance, &twist_min, &twist_max);
        (map, distance, packed)
    }

    #[test]
    fn the_second_order_bound_of_a_block_never_exceeds_its_least_cost() {
        // Random blocks of 2 to 16 cells per side (and past the grid's edge, on odd
        // resolutions) of smooth tables and of tables rippling from vertex to vertex (where
        // the slack carries the bound), random inputs and inputs near each block, against the
        // least cost over a lattice through every cell of the block; the bound must be tight on
        // the small blocks of smooth tables, or it would prune nothing.
        let mut random = SeededRandom::new(17);
        let mut checked = 0;
        let mut ratios = Vec::new();
        for (n, kind) in [(16, 1), (33, 0), (64, 0), (64, 1), (32, 2), (64, 2)] {
            let centre = random.direction();
            let (map, distance, packed) = if kind == 2 {
                rough_table(n, centre)
            } else {
                wavy_table(n, centre, kind == 1)
            };
            let grids = TableGrids {
                map: &map,
                distance: &distance,
                packed: &packed,
            };
            let pyramid = BoundPyramid::new(grids);
            for trial in 0..1_500 {
                let level = 1 + (random.next_unit() * 4.0) as i32;
                let (side, _) = pyramid.levels[level as usize - 1];
                let mut index = || ((random.next_unit() * side as f64) as u32).min(side as u32 - 1);
                let (i, j) = (index(), index());
                let size = 1usize << level;
                let (c0, r0) = (i as usize * size, j as usize * size);
                let (c1, r1) = ((c0 + size).min(n), (r0 + size).min(n));
                let low = VertexGrid::vertex_position(n, c0, r0);
                let high_corner = VertexGrid::vertex_position(n, c1, r1);
                let (d, twist) = if trial % 2 == 0 {
                    (
                        random.direction(),
                        (random.next_unit() as f32 - 0.5) * 5.0 * PI,
                    )
                } else {
                    let t = Vec2::new(random.next_unit() as f32, random.next_unit() as f32);
                    let p = low + (high_corner - low) * t;
                    let e = map.to_sphere(p);
                    let off = random.direction();
                    let axis = e.cross(off).normalize_or(Vec3::X);
                    let reach = random.next_unit() as f32 * 0.6;
                    let range = packed.sample(p).twist;
                    let beyond = (random.next_unit() as f32 - 0.5) * 1.5;
                    let twist = if beyond > 0.0 {
                        range.max + beyond
                    } else {
                        range.min + beyond
                    };
                    (glam::Quat::from_axis_angle(axis, reach) * e, twist)
                };
                // The least cost over every cell's allowed lattice points.
                let steps = 8 * (c1 - c0).max(r1 - r0);
                let mut least = f32::INFINITY;
                for a in 0..=steps {
                    for b in 0..=steps {
                        let t = Vec2::new(a as f32, b as f32) / steps as f32;
                        let p = low + (high_corner - low) * t;
                        let lookup = packed.sample(p);
                        if lookup.distance > 0.0 {
                            continue;
                        }
                        let gap = lookup.twist.measure(twist).distance;
                        least = least.min(angle(d, map.to_sphere(p)).powi(2) + gap * gap);
                    }
                }
                if !least.is_finite() {
                    continue;
                }
                let bar = least * 1.2 + 0.01;
                for multiplier in [0.0, random.next_unit() as f32 * 8.0] {
                    let bound =
                        pyramid.block_bound(grids, (level, i, j), (d, twist), multiplier, bar);
                    assert!(
                        bound <= least + 1e-5 * (1.0 + least),
                        "{n}² block ({i}, {j}) level {level}: bound {bound} above the least \
                         cost {least} for {d}, twist {twist}, multiplier {multiplier}"
                    );
                    // Tight where the table is smooth (rippled values loosen it, soundly).
                    if multiplier == 0.0 && level == 1 && kind != 2 && least > 0.01 && bound > 0.0 {
                        ratios.push(bound / least);
                    }
                }
                checked += 1;
            }
        }
        ratios.sort_by(f32::total_cmp);
        let median = ratios[ratios.len() / 2];
        eprintln!(
            "{checked} blocks checked; bound / least cost on blocks of 2×2 cells: median \
             {median:.4}"
        );
        assert!(checked > 3_000, "{checked}");
        assert!(median > 0.9, "the bound prunes too little: median {median}");
    }

    #[test]
    fn the_symmetric_bending_grid_is_every_cells_own_bound() {
        // Read from one cell in eight, the grid must bound every cell as sampling it directly
        // does (equal but for the last bits of the mirrored samples).
        for n in [4, 5, 8, 17, 64, 128] {
            let bending = symmetric_grid(n, |column, row| cell_bending(n, column, row));
            for (index, &read) in bending.iter().enumerate() {
                let own = cell_bending(n, index % n, index / n);
                let close = read == own || (read - own).abs() <= 1e-5 * own;
                assert!(close, "{n}² cell {index}: bending {read} vs its own {own}");
            }
        }
    }
}
