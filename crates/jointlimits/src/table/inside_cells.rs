//! A table's inside test in two loads: cells of the rotation group proven allowed.
//!
//! The exact test of a rotation measures its twist, maps its bone direction onto the table's
//! square and interpolates three channels there: a few dozen dependent operations. Most
//! rotations a running character asks about lie well inside their limits, and for those the
//! answer is the same over a whole neighbourhood. So the rotation group is cut into cells, and
//! each cell is *proven* allowed once, when the table is prepared; the test then reads one bit.
//!
//! **Cells.** A unit quaternion is named by its three components other than its largest in
//! magnitude (the chart), with the sign making the largest positive (either cover names the same
//! rotation); those three lie in `[−1/√2, 1/√2]³`, and the largest, at least `1/2`, follows from
//! them without ill-conditioning anywhere (a single chart `w ≥ 0` would blow up near half
//! turns, where the twist of a twist limit past ±π/2 lives). Each chart's cube is cut into `32³`
//! coarse cells, and a coarse cell that is partly allowed into `8³` fine ones. A coarse cell is
//! stored as a code: not proven, proven, or the index of a block of 512 bits, one per fine cell.
//!
//! **The proof.** For a cell with centre `c` (the three components), let `q_c` be the unit
//! quaternion with those components and its largest `√(1 − |c|²)`. Every unit quaternion of the
//! cell lies within the chord `√(3h² + Δ²)` of `q_c` (`h` the half side, `Δ` how far the largest
//! component strays over the cell), so its rotation lies within `θ = 4·asin(chord / 2)` of
//! `q_c`'s, and its bone direction within `θ` of `q_c·axis`: a cap on the sphere. Its twist
//! `2·atan2(v·axis, w)` takes its extremes over the cell at the corners of the box of
//! `(v·axis, w)` (read round the box's own direction, as the box keeps clear of the origin). The
//! cell is allowed when every block of the table's pyramid whose cap meets that cap has a signed
//! distance of at most zero at all its vertices and twist limits holding the whole twist
//! interval on one turn (the tightest minimum and maximum over its vertices: within each cell
//! both are bilinear, so their extremes lie at the vertices). Blocks that fail are split down
//! to cells; a cell that still fails leaves the cell of the rotation group unproven, and its
//! eight children are tried with the blocks left open. Every bound is widened by a margin far
//! above the rounding of the exact test, so a proven rotation is one the exact test allows.
//!
//! Rotations far from unit length go to the exact test, as does every rotation of an unproven
//! cell.

use glam::{Quat, Vec2, Vec3, Vec4};

use std::f32::consts::TAU;

use super::bounds::STRETCH;
use super::octahedral::OctahedralMap;
use super::packed::PackedGrid;
use crate::fast_trig::atan2;

/// Charts: one per component that may be the largest.
const CHARTS: usize = 4;

/// Coarse cells per side of a chart's cube.
const COARSE: usize = 32;

/// Fine cells per side of a coarse cell.
const FINE: usize = 8;

/// Halvings from a coarse cell down to a fine one.
const FINE_DEPTH: usize = 3;

/// Half the side of a chart's cube: no component but the largest exceeds `1/√2` in magnitude
/// (two equal ones reach it), widened a little.
const REACH: f32 = 0.7072;

/// Fine cells per unit of a component.
const FINE_PER_UNIT: f32 = (COARSE * FINE) as f32 / (2.0 * REACH);

/// Most blocks of fine cells: their indices fit a coarse cell's 16-bit code.
const MOST_BLOCKS: usize = u16::MAX as usize - FIRST_BLOCK as usize;

/// How far from unit length (in `|q|²`) a rotation may be and still be read from the cells.
const NORM_SLACK: f32 = 2e-4;

/// Margin added to every bound of the proof: far above the exact test's rounding (about 1e-6)
/// and above the stray of a near-unit rotation's vector part from its normalised one.
const MARGIN: f32 = 3e-4;

/// A coarse cell's code: not proven (the exact test answers).
const UNPROVEN: u16 = 0;

/// A coarse cell's code: every rotation in it is allowed.
const PROVEN: u16 = 1;

/// Codes from this one on name a block of fine cells (`code − FIRST_BLOCK`).
const FIRST_BLOCK: u16 = 2;

/// The cells of the rotation group a table allows, proven once (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct InsideCells {
    /// Per chart, per coarse cell (first component slowest): its code.
    coarse: Vec<u16>,
    /// Blocks of fine cells, a bit each (first component slowest).
    fine: Vec<[u64; FINE * FINE * FINE / 64]>,
}

impl InsideCells {
    /// Whether `relative` (near unit length, either cover) lies in a proven cell; `false` says
    /// nothing.
    #[inline(always)]
    pub fn surely_allowed(&self, relative: Quat) -> bool {
        // A NaN fails the comparison, and so the test.
        let near_unit = (relative.length_squared() - 1.0).abs() <= NORM_SLACK;
        if !near_unit {
            return false;
        }
        let (chart, others) = chart_of(relative);
        let last = (COARSE * FINE - 1) as u32;
        let g = (others + REACH) * FINE_PER_UNIT;
        let (i, j, k) = (
            (g.x as u32).min(last),
            (g.y as u32).min(last),
            (g.z as u32).min(last),
        );
        let shift = FINE_DEPTH as u32;
        let index = ((chart * COARSE + (i >> shift) as usize) * COARSE + (j >> shift) as usize)
            * COARSE
            + (k >> shift) as usize;
        match self.coarse[index] {
            UNPROVEN => false,
            PROVEN => true,
            code => {
                let mask = (FINE - 1) as u32;
                let bit =
                    (((i & mask) * FINE as u32 + (j & mask)) * FINE as u32 + (k & mask)) as usize;
                let block = &self.fine[(code - FIRST_BLOCK) as usize];
                block[bit / 64] >> (bit % 64) & 1 == 1
            }
        }
    }

    /// Proves the cells of the table with the vertex values `packed` on `map`, about the unit
    /// `axis`.
    pub fn prove(axis: Vec3, map: &OctahedralMap, packed: &PackedGrid) -> InsideCells {
        use rayon::prelude::*;
        let prover = Prover {
            axis,
            map,
            packed,
            extremes: ExtremesPyramid::new(packed),
        };
        let verdicts: Vec<Option<FineBits>> = (0..CHARTS * COARSE * COARSE * COARSE)
            .into_par_iter()
            .map(|index| {
                let chart = index / (COARSE * COARSE * COARSE);
                let cell = [
                    index / (COARSE * COARSE) % COARSE,
                    index / COARSE % COARSE,
                    index % COARSE,
                ];
                let low = Vec3::new(cell[0] as f32, cell[1] as f32, cell[2] as f32)
                    * (2.0 * REACH / COARSE as f32)
                    - REACH;
                let mut bits = FineBits::default();
                if in_chart(low, 2.0 * REACH / COARSE as f32) {
                    prover.settle(chart, low, 0, [0; 3], &mut bits);
                }
                (bits.count > 0).then_some(bits)
            })
            .collect();
        let mut cells = InsideCells {
            coarse: vec![UNPROVEN; verdicts.len()],
            fine: Vec::new(),
        };
        for (code, verdict) in cells.coarse.iter_mut().zip(verdicts) {
            let Some(bits) = verdict else { continue };
            if bits.count == FINE * FINE * FINE {
                *code = PROVEN;
            } else if cells.fine.len() < MOST_BLOCKS {
                *code = FIRST_BLOCK + cells.fine.len() as u16;
                cells.fine.push(bits.words);
            }
        }
        cells
    }

    /// The share of the cube's fine cells proven allowed (a cell of the cube holds more or fewer
    /// rotations depending on where it lies: this is no share of rotations).
    pub fn proven_share(&self) -> f64 {
        let fine_cells: usize = self
            .coarse
            .iter()
            .map(|&code| match code {
                UNPROVEN => 0,
                PROVEN => FINE * FINE * FINE,
                code => self.fine[(code - FIRST_BLOCK) as usize]
                    .iter()
                    .map(|word| word.count_ones() as usize)
                    .sum(),
            })
            .sum();
        fine_cells as f64 / (CHARTS * COARSE * COARSE * COARSE * FINE * FINE * FINE) as f64
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.coarse.as_slice()) + std::mem::size_of_val(self.fine.as_slice())
    }
}

/// The fine cells of one coarse cell proven so far.
#[derive(Default)]
struct FineBits {
    words: [u64; FINE * FINE * FINE / 64],
    count: usize,
}

impl FineBits {
    /// Marks the cube of `side` fine cells from `corner`.
    fn mark(&mut self, corner: [usize; 3], side: usize) {
        for i in corner[0]..corner[0] + side {
            for j in corner[1]..corner[1] + side {
                for k in corner[2]..corner[2] + side {
                    let bit = (i * FINE + j) * FINE + k;
                    self.words[bit / 64] |= 1 << (bit % 64);
                }
            }
        }
        self.count += side * side * side;
    }
}

/// The least and largest of a block's vertex values, per channel.
#[derive(Clone, Copy, Debug)]
struct Extremes {
    /// Signed distance.
    distance: [f32; 2],
    /// Twist minimum.
    low: [f32; 2],
    /// Twist maximum.
    high: [f32; 2],
}

impl Extremes {
    const NONE: Extremes = Extremes {
        distance: [f32::INFINITY, f32::NEG_INFINITY],
        low: [f32::INFINITY, f32::NEG_INFINITY],
        high: [f32::INFINITY, f32::NEG_INFINITY],
    };

    /// The extremes of one vertex's values.
    fn at(value: Vec4) -> Extremes {
        Extremes {
            distance: [value.x; 2],
            low: [value.y; 2],
            high: [value.z; 2],
        }
    }

    fn merge(self, other: Extremes) -> Extremes {
        let pair = |a: [f32; 2], b: [f32; 2]| [a[0].min(b[0]), a[1].max(b[1])];
        Extremes {
            distance: pair(self.distance, other.distance),
            low: pair(self.low, other.low),
            high: pair(self.high, other.high),
        }
    }

    /// How the block stands for every direction in it with a twist in `twist`.
    fn judge(&self, twist: [f32; 2]) -> Standing {
        let allowed_twists = [self.low[1], self.high[0]];
        if self.distance[1] <= 0.0 && holds_on_one_turn(allowed_twists, twist) {
            return Standing::Allowed;
        }
        let reach = [self.low[0] - MARGIN, self.high[1] + MARGIN];
        if self.distance[0] > MARGIN || misses_on_every_turn(reach, twist) {
            return Standing::Refused;
        }
        Standing::Open
    }
}

/// Whether some whole turn moves the interval `twist` inside `range`.
fn holds_on_one_turn(range: [f32; 2], twist: [f32; 2]) -> bool {
    let ordered = range[0] <= range[1];
    if !ordered {
        return false;
    }
    // The least turn lifting the interval's start to the range's: any higher turn lifts its end
    // higher still.
    let turns = ((range[0] - twist[0]) / TAU).ceil();
    twist[1] + TAU * turns <= range[1]
}

/// Whether no whole turn moves any twist of the interval `twist` into `range`.
fn misses_on_every_turn(range: [f32; 2], twist: [f32; 2]) -> bool {
    let ordered = range[0] <= range[1];
    if !ordered {
        return true;
    }
    if range[1] - range[0] + (twist[1] - twist[0]) >= TAU {
        return false;
    }
    // The turn putting the interval's end at or above the range's start, least such: the only
    // one that can overlap (the next lower ends below the start).
    let turns = ((range[0] - twist[1]) / TAU).ceil();
    twist[0] + TAU * turns > range[1]
}

/// How a block of the table stands against a cell of rotations.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Standing {
    /// Every direction allowed, with every twist of the cell.
    Allowed,
    /// No direction allowed with any twist of the cell.
    Refused,
    /// Neither is proven.
    Open,
}

/// Levels of a pyramid at most: tables have at most 2048 cells per side.
const MOST_LEVELS: usize = 13;

/// [`Extremes`] over blocks of `2^level × 2^level` cells, level by level from the cells (level
/// 0) up to one block covering the square.
struct ExtremesPyramid {
    /// Cells per side.
    resolution: usize,
    /// Per level, blocks per side and each block's extremes (row-major).
    levels: Vec<(usize, Vec<Extremes>)>,
}

impl ExtremesPyramid {
    fn new(packed: &PackedGrid) -> ExtremesPyramid {
        let n = packed.resolution();
        let cells: Vec<Extremes> = (0..n * n)
            .map(|index| {
                packed
                    .corners(index % n, index / n)
                    .iter()
                    .fold(Extremes::NONE, |e, v| e.merge(Extremes::at(*v)))
            })
            .collect();
        let mut levels = vec![(n, cells)];
        while levels.last().expect("the cells").0 > 1 {
            let (below_side, below) = levels.last().expect("a level");
            let side = below_side.div_ceil(2);
            let blocks = (0..side * side)
                .map(|index| {
                    let (i, j) = (index % side, index / side);
                    let mut e = Extremes::NONE;
                    for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (ci, cj) = (2 * i + di, 2 * j + dj);
                        if ci < *below_side && cj < *below_side {
                            e = e.merge(below[cj * below_side + ci]);
                        }
                    }
                    e
                })
                .collect();
            levels.push((side, blocks));
        }
        ExtremesPyramid {
            resolution: n,
            levels,
        }
    }

    /// How the square rectangle `[low, high]` stands for every twist in `twist`: each block
    /// of the pyramid it meets is judged whole where its extremes settle it, and split
    /// otherwise; a cell is judged on the part of it inside the rectangle (its values are
    /// bilinear there, so their extremes lie at that part's corners).
    fn judge(&self, packed: &PackedGrid, [low, high]: [Vec2; 2], twist: [f32; 2]) -> Standing {
        let n = self.resolution;
        let cell = 2.0 / n as f32;
        let (mut all_allowed, mut all_refused) = (true, true);
        // Depth first: at most three siblings wait per level.
        let mut pending = [(0usize, 0usize, 0usize); 4 * MOST_LEVELS];
        let mut waiting = 0;
        // Start from the blocks of the level whose blocks are as wide as the rectangle: it
        // meets at most two per side.
        let width = (high - low).max_element();
        let start = (0..self.levels.len())
            .find(|&level| (1usize << level) as f32 * cell >= width)
            .unwrap_or(self.levels.len() - 1);
        let (side, _) = self.levels[start];
        let size = (1usize << start) as f32 * cell;
        let first = ((low + 1.0) / size).floor().max(Vec2::ZERO);
        let last = ((high + 1.0) / size)
            .floor()
            .min(Vec2::splat((side - 1) as f32));
        for i in first.x as usize..=last.x as usize {
            for j in first.y as usize..=last.y as usize {
                pending[waiting] = (start, i, j);
                waiting += 1;
            }
        }
        while waiting > 0 {
            waiting -= 1;
            let (level, i, j) = pending[waiting];
            let size = (1usize << level) as f32 * cell;
            let block_low = Vec2::new(i as f32, j as f32) * size - 1.0;
            let block_high = (block_low + size).min(Vec2::ONE);
            let (meet_low, meet_high) = (low.max(block_low), high.min(block_high));
            if meet_low.x > meet_high.x || meet_low.y > meet_high.y {
                continue;
            }
            let (side, blocks) = &self.levels[level];
            let standing = if level == 0 {
                let t0 = ((meet_low - block_low) / cell).clamp(Vec2::ZERO, Vec2::ONE);
                let t1 = ((meet_high - block_low) / cell).clamp(Vec2::ZERO, Vec2::ONE);
                packed
                    .part_corners(i, j, t0, t1)
                    .iter()
                    .fold(Extremes::NONE, |e, v| e.merge(Extremes::at(*v)))
                    .judge(twist)
            } else {
                blocks[j * side + i].judge(twist)
            };
            match standing {
                Standing::Allowed => all_refused = false,
                Standing::Refused => all_allowed = false,
                Standing::Open if level == 0 => return Standing::Open,
                Standing::Open => {
                    let below = self.levels[level - 1].0;
                    for (di, dj) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                        let (ci, cj) = (2 * i + di, 2 * j + dj);
                        if ci < below && cj < below {
                            pending[waiting] = (level - 1, ci, cj);
                            waiting += 1;
                        }
                    }
                }
            }
            if !all_allowed && !all_refused {
                return Standing::Open;
            }
        }
        match (all_allowed, all_refused) {
            (true, _) => Standing::Allowed,
            (false, true) => Standing::Refused,
            (false, false) => Standing::Open,
        }
    }
}

/// What a cell of rotations spans: a cap of bone directions and an interval of twists.
struct Span {
    direction: Vec3,
    radius: f32,
    twist: [f32; 2],
}

/// The chart of the unit quaternion `q` (the index of its largest component in magnitude,
/// `x, y, z, w` in that order) and its other three components, in order, with the sign making
/// the largest positive.
#[inline(always)]
fn chart_of(q: Quat) -> (usize, Vec3) {
    let [x, y, z, w] = q.to_array();
    let (ax, ay, az, aw) = (x.abs(), y.abs(), z.abs(), w.abs());
    let (chart, largest, others) = if aw >= ax.max(ay).max(az) {
        (3, w, Vec3::new(x, y, z))
    } else if ax >= ay.max(az) {
        (0, x, Vec3::new(y, z, w))
    } else if ay >= az {
        (1, y, Vec3::new(x, z, w))
    } else {
        (2, z, Vec3::new(x, y, w))
    };
    (chart, if largest < 0.0 { -others } else { others })
}

/// Whether some point of the cell `[low, low + size]³` may be read in its chart: a rotation is
/// read in the chart of its largest component, so each other component `o_i` obeys
/// `o_i² ≤ 1 − |o|²`.
fn in_chart(low: Vec3, size: f32) -> bool {
    let high = low + size;
    let nearest = Vec3::ZERO.clamp(low, high);
    nearest.length_squared() + nearest.abs().max_element().powi(2) <= 1.0 + 1e-3
}

/// The unit quaternion of chart `chart` with the other components `others` and the largest
/// `largest`.
fn from_chart(chart: usize, others: Vec3, largest: f32) -> Quat {
    let [a, b, c] = others.to_array();
    match chart {
        0 => Quat::from_xyzw(largest, a, b, c),
        1 => Quat::from_xyzw(a, largest, b, c),
        2 => Quat::from_xyzw(a, b, largest, c),
        _ => Quat::from_xyzw(a, b, c, largest),
    }
}

/// The span of the cell `[low, low + size]³` of chart `chart` about the unit `axis`, or `None`
/// when its centre names no rotation (`|c| ≥ 1`).
fn span(chart: usize, low: Vec3, size: f32, axis: Vec3) -> Option<Span> {
    let half = 0.5 * size;
    let centre = low + half;
    let centre_squared = centre.length_squared();
    if centre_squared >= 1.0 {
        return None;
    }
    // The cell widened by the margin, which also holds the normalised components of a
    // near-unit rotation read into it.
    let (lo, hi) = (low - MARGIN, low + size + MARGIN);
    let nearest = Vec3::ZERO.clamp(lo, hi);
    let farthest = lo.abs().max(hi.abs());
    let largest_low = (1.0 - farthest.length_squared()).max(0.0).sqrt();
    let largest_high = (1.0 - nearest.length_squared()).max(0.0).sqrt();
    let largest_centre = (1.0 - centre_squared).sqrt();
    let stray_largest = (largest_high - largest_centre).max(largest_centre - largest_low);
    let stray = half + MARGIN;
    let chord = (3.0 * stray * stray + stray_largest * stray_largest).sqrt();
    let radius = if chord >= 2.0 {
        std::f32::consts::PI
    } else {
        4.0 * (0.5 * chord).asin() + MARGIN
    };
    let q_centre = from_chart(chart, centre, largest_centre);
    // Each component's interval over the cell, as a quaternion of lows and one of highs.
    let lows = from_chart(chart, lo, largest_low);
    let highs = from_chart(chart, hi, largest_high);
    let (low_v, high_v) = (
        Vec3::new(lows.x, lows.y, lows.z),
        Vec3::new(highs.x, highs.y, highs.z),
    );
    let middle_v = 0.5 * (low_v + high_v);
    let along = middle_v.dot(axis);
    let along_stray = (0.5 * (high_v - low_v)).dot(axis.abs());
    let (s_low, s_high) = (along - along_stray, along + along_stray);
    let (w_low, w_high) = (lows.w, highs.w);
    let twist = if s_low <= 0.0 && s_high >= 0.0 && w_low <= 0.0 && w_high >= 0.0 {
        [-TAU, TAU]
    } else {
        // The box of `(v·axis, w)` keeps clear of the origin, so it spans less than a half
        // turn seen from it: its corners, read round its centre's direction, bound it.
        let middle = atan2(0.5 * (s_low + s_high), 0.5 * (w_low + w_high));
        let offsets = [
            (s_low, w_low),
            (s_low, w_high),
            (s_high, w_low),
            (s_high, w_high),
        ]
        .map(|(s, w)| {
            let offset = atan2(s, w) - middle;
            offset - TAU * (offset * (1.0 / TAU)).round()
        });
        let least = offsets.iter().copied().fold(f32::INFINITY, f32::min);
        let most = offsets.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        [
            2.0 * (middle + least) - MARGIN,
            2.0 * (middle + most) + MARGIN,
        ]
    };
    Some(Span {
        direction: q_centre * axis,
        radius,
        twist,
    })
}

/// How far (square units) the map may move a square point per radian its direction moves: the
/// map keeps areas (its Jacobian's determinant is π everywhere), so its inverse stretches by at
/// most the largest stretch over π.
const SQUARE_PER_RADIAN: f32 = STRETCH / std::f32::consts::PI;

/// Margin (square units) for the exact test's own square point, computed with a polynomial
/// `atan2` and rounding (strays below 1e-6).
const SQUARE_MARGIN: f32 = 1e-4;

/// What the proof reads.
struct Prover<'a> {
    axis: Vec3,
    map: &'a OctahedralMap,
    packed: &'a PackedGrid,
    extremes: ExtremesPyramid,
}

impl Prover<'_> {
    /// Settles the cell of chart `chart` from `low` at `depth` halvings below a coarse cell (its
    /// first fine cell `corner` within the coarse one), marking what it proves in `bits`.
    ///
    /// The cell's cap of bone directions maps into the square rectangle around its centre's
    /// square point, `SQUARE_PER_RADIAN` times its radius in every direction, as long as that
    /// rectangle stays inside the square (past its edge the map folds back onto itself).
    fn settle(
        &self,
        chart: usize,
        low: Vec3,
        depth: usize,
        corner: [usize; 3],
        bits: &mut FineBits,
    ) {
        let size = 2.0 * REACH / COARSE as f32 / (1 << depth) as f32;
        let Some(span) = span(chart, low, size, self.axis) else {
            return;
        };
        let centre = self.map.to_square(span.direction);
        let reach = span.radius * SQUARE_PER_RADIAN + SQUARE_MARGIN;
        let rectangle = [centre - reach, centre + reach];
        let standing = if rectangle[0].min_element() > -1.0 && rectangle[1].max_element() < 1.0 {
            self.extremes.judge(self.packed, rectangle, span.twist)
        } else {
            Standing::Open
        };
        let side = FINE >> depth;
        match standing {
            Standing::Allowed => return bits.mark(corner, side),
            Standing::Refused => return,
            Standing::Open if depth == FINE_DEPTH => return,
            Standing::Open => {}
        }
        let half = side / 2;
        for octant in 0..8 {
            let step = [octant >> 2 & 1, octant >> 1 & 1, octant & 1];
            let child_low =
                low + Vec3::new(step[0] as f32, step[1] as f32, step[2] as f32) * (0.5 * size);
            let child_corner = [
                corner[0] + step[0] * half,
                corner[1] + step[1] * half,
                corner[2] + step[2] * half,
            ];
            self.settle(chart, child_low, depth + 1, child_corner, bits);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::direction_twist::angle;
    use crate::measure::SeededRandom;
    use crate::table::{TableLimit, TableValues};
    use crate::twist::TwistRange;
    use crate::{LimitContext, RotationLimit};

    /// The example tables, a ring whose twist limits wind once round the axis, and a cap
    /// allowing every twist.
    fn tables() -> Vec<TableLimit> {
        let axis = Vec3::Y;
        let winding = TableLimit::from_fn(axis, 40, |d| {
            let swing = angle(d, axis);
            let middle = d.z.atan2(d.x);
            TableValues {
                allowed: (swing - 2.3).max(0.4 - swing),
                twist: TwistRange {
                    min: middle - 0.6,
                    max: middle + 0.5,
                },
                stress: 0.2,
                break_margin: 0.2,
            }
        });
        let any_twist = TableLimit::from_fn(Vec3::X, 64, |d| TableValues {
            allowed: angle(d, Vec3::X) - 1.2,
            twist: TwistRange {
                min: -4.0,
                max: 4.0,
            },
            stress: 0.0,
            break_margin: 0.1,
        });
        let mut all = TableLimit::examples();
        all.extend([winding, any_twist]);
        all
    }

    /// Rotations of every kind: Haar-random in both covers, allowed ones nudged by up to a
    /// twentieth of a radian, and both slightly off unit length.
    fn probes(table: &TableLimit, random: &mut SeededRandom, count: usize) -> Vec<Quat> {
        let none = LimitContext::NONE;
        let mut probes = Vec::with_capacity(count);
        while probes.len() < count {
            let q = random.rotation();
            let q = if random.next_unit() < 0.5 { -q } else { q };
            probes.push(q);
            if table.contains(q, &none) {
                for _ in 0..8 {
                    let axis = random.direction();
                    let nudge = Quat::from_axis_angle(axis, 0.05 * random.next_unit() as f32);
                    let scale = 1.0 + 1e-4 * (2.0 * random.next_unit() as f32 - 1.0);
                    probes.push(nudge * q * scale);
                }
            }
        }
        probes
    }

    #[test]
    fn proven_rotations_are_allowed_and_most_allowed_ones_are_proven() {
        let none = LimitContext::NONE;
        let mut random = SeededRandom::new(41);
        for (index, table) in tables().into_iter().enumerate() {
            let mut prepared = table.clone();
            prepared.prepare();
            let cells = prepared.inside_cells().expect("prepared");
            let (mut allowed, mut proven) = (0usize, 0usize);
            for q in probes(&table, &mut random, 200_000) {
                let exact = table.contains(q, &none);
                let surely = cells.surely_allowed(q);
                assert!(
                    !surely || exact,
                    "table {index}: {q:?} proven allowed, but the exact test refuses it"
                );
                assert_eq!(prepared.contains(q, &none), exact, "table {index}: {q:?}");
                allowed += exact as usize;
                proven += surely as usize;
            }
            let share = proven as f64 / allowed as f64;
            eprintln!(
                "table {index}: {proven} of {allowed} allowed probes proven ({:.1}%), {} kB",
                100.0 * share,
                cells.memory_bytes() / 1000
            );
            assert!(
                share > 0.5,
                "table {index}: only {share:.3} of allowed probes proven"
            );
        }
    }

    #[test]
    fn twist_intervals_fit_and_miss_on_the_right_turns() {
        use std::f32::consts::TAU;
        assert!(holds_on_one_turn([0.0, 1.0], [0.2, 0.8]));
        assert!(holds_on_one_turn([0.0, 1.0], [0.2 + TAU, 0.8 + TAU]));
        assert!(holds_on_one_turn(
            [0.0, 1.0],
            [0.2 - 2.0 * TAU, 0.8 - 2.0 * TAU]
        ));
        assert!(!holds_on_one_turn([0.0, 1.0], [0.5, 1.2]));
        assert!(!holds_on_one_turn([1.0, 0.0], [0.5, 0.5]));
        assert!(misses_on_every_turn([0.0, 1.0], [1.5, 2.0]));
        assert!(misses_on_every_turn([0.0, 1.0], [1.5 - TAU, 2.0 - TAU]));
        assert!(!misses_on_every_turn([0.0, 1.0], [0.9 + TAU, 2.0 + TAU]));
        assert!(!misses_on_every_turn([0.0, 1.0], [-0.5 - TAU, 0.1 - TAU]));
        assert!(!misses_on_every_turn([0.0, 5.0], [5.5, 6.5]));
        assert!(misses_on_every_turn([1.0, 0.0], [0.0, 1.0]));
    }
}
