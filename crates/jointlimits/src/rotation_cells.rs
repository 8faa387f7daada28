//! Cells of the rotation group proven allowed by a limit, so that an inside test reads one bit.
//!
//! The exact inside test of most kinds measures the rotation (a logarithm, a twist, a map onto a
//! table) and compares: a few dozen dependent operations. Most rotations a running character asks
//! about lie well inside their limits, and for those the answer is the same over a whole
//! neighbourhood. So the rotation group is cut into cells, and each cell is *proven* allowed once,
//! by the limit kind's own conservative judge (`CellBounds` says what a cell spans); the test
//! then reads a bit.
//!
//! **Cells.** A unit quaternion is named by its three components other than its largest in
//! magnitude (the chart), with the sign making the largest positive (either cover names the same
//! rotation); those three lie in `[−1/√2, 1/√2]³`, and the largest, at least `1/2`, follows from
//! them without ill-conditioning anywhere (a single chart `w ≥ 0` would blow up near half turns).
//! Each chart's cube is cut into `32³` coarse cells, and a coarse cell the judge cannot settle
//! into `8³` fine ones. A coarse cell is stored as the index of a block of 512 bits, one per fine
//! cell (coarse cells proven whole, or not at all, share two blocks), and a bit per coarse cell
//! says it is proven whole: 16 KiB against the index's 256 KiB, so a rotation in such a cell is
//! answered from one load that stays in the nearest cache.
//!
//! **What a cell spans.** For a cell with centre `c` (the three components), let `q_c` be the unit
//! quaternion with those components and its largest `√(1 − |c|²)`. Every unit quaternion of the
//! cell lies within the chord `√(3h² + Δ²)` of `q_c` (`h` the half side, `Δ` how far the largest
//! component strays over the cell), so its rotation lies within `θ = 4·asin(chord / 2)` of
//! `q_c`'s (a quaternion chord is `2·sin(θ/4)`). Each component's interval over the cell comes
//! with it, for judges that bound a linear function of the quaternion. Every bound is widened by
//! a margin far above the exact tests' rounding and above the stray of a near-unit rotation from
//! its normalised one, so a proven rotation is one the exact test allows.
//!
//! Rotations far from unit length go to the exact test, as does every rotation of an unproven
//! cell.

use std::f32::consts::TAU;

use glam::{Quat, Vec3, Vec4};

use crate::fast_trig::atan2;

/// Charts: one per component that may be the largest.
pub const CHARTS: usize = 4;

/// Coarse cells per side of a chart's cube.
pub const COARSE: usize = 32;

/// Fine cells per side of a coarse cell.
pub const FINE: usize = 8;

/// Halvings from a coarse cell down to a fine one.
const FINE_DEPTH: usize = 3;

/// Half the side of a chart's cube: no component but the largest exceeds `1/√2` in magnitude
/// (two equal ones reach it), widened a little.
pub const REACH: f32 = 0.7072;

/// Fine cells per unit of a component.
pub const FINE_PER_UNIT: f32 = (COARSE * FINE) as f32 / (2.0 * REACH);

/// Most blocks of fine cells: their indices fit a coarse cell's 16 bits.
const MOST_BLOCKS: usize = u16::MAX as usize + 1;

/// Coarse cells over every chart.
const COARSE_CELLS: usize = CHARTS * COARSE * COARSE * COARSE;

/// Fine cells of a coarse cell: the bits of a block.
const BLOCK_BITS: usize = FINE * FINE * FINE;

/// How far from unit length (in `|q|²`) a rotation may be and still be read from the cells.
pub const NORM_SLACK: f32 = 2e-4;

/// Margin added to every bound of the proof: far above the exact test's rounding (about 1e-6)
/// and above the stray of a near-unit rotation's vector part from its normalised one.
pub(crate) const MARGIN: f32 = 3e-4;

/// The block of fine cells of a coarse cell with none proven: no bit set.
const UNPROVEN: u16 = 0;

/// The block of fine cells of a coarse cell proven whole: every bit set.
const PROVEN: u16 = 1;

/// A block of fine cells with none proven.
const NO_CELL: [u64; BLOCK_BITS / 64] = [0; BLOCK_BITS / 64];

/// A block of fine cells all proven.
const EVERY_CELL: [u64; BLOCK_BITS / 64] = [u64::MAX; BLOCK_BITS / 64];

/// An array of `N` copies of `value` on the heap (too large for the stack).
fn boxed_array<T: Copy, const N: usize>(value: T) -> Box<[T; N]> {
    vec![value; N]
        .into_boxed_slice()
        .try_into()
        .unwrap_or_else(|_| unreachable!("a vector of N values"))
}

/// The cells of the rotation group a limit allows, proven once (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct InsideCells {
    /// Per chart, per coarse cell (first component slowest): the index of its block of fine
    /// cells. Coarse cells proven whole or not at all share the first two blocks.
    coarse: Box<[u16; COARSE_CELLS]>,
    /// Blocks of fine cells, a bit each (first component slowest).
    fine: Vec<[u64; BLOCK_BITS / 64]>,
    /// A bit per coarse cell (in `coarse`'s order): proven whole. 16 KiB, which stays in the
    /// nearest cache where the 256 KiB of `coarse` does not, so a rotation in such a cell (most
    /// allowed ones) is answered from one load.
    whole: Box<[u64; COARSE_CELLS / 64]>,
}

impl InsideCells {
    /// Whether `rotation` (near unit length, either cover) lies in a proven cell; `false` says
    /// nothing.
    #[inline(always)]
    pub fn surely_allowed(&self, rotation: Quat) -> bool {
        // A NaN fails the comparison, and so the test.
        let near_unit = (rotation.length_squared() - 1.0).abs() <= NORM_SLACK;
        if !near_unit {
            return false;
        }
        let point = GridPoint::of(rotation);
        // The masks change no index (each is in range by construction); they let the
        // compiler drop the bounds checks of the fixed-size tables.
        let index = point.coarse_cell() & (COARSE_CELLS - 1);
        if self.whole[index / 64] >> (index % 64) & 1 == 1 {
            return true;
        }
        let bit = point.fine_cell() & (BLOCK_BITS - 1);
        let block = &self.fine[self.coarse[index] as usize];
        block[bit / 64] >> (bit % 64) & 1 == 1
    }

    /// No cell proven: every rotation goes to the exact test.
    pub fn none() -> InsideCells {
        InsideCells {
            coarse: boxed_array(UNPROVEN),
            fine: vec![NO_CELL, EVERY_CELL],
            whole: boxed_array(0),
        }
    }

    /// Proves the cells `judge` settles: it is asked about coarse cells and, where it answers
    /// [`Standing::Open`], about their eighths, down to the fine cells.
    pub(crate) fn prove(judge: impl Fn(&CellBounds) -> Standing + Sync) -> InsideCells {
        use rayon::prelude::*;
        let verdicts: Vec<Option<FineBits>> = (0..COARSE_CELLS)
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
                    settle(&judge, chart, low, 0, [0; 3], &mut bits);
                }
                (bits.count > 0).then_some(bits)
            })
            .collect();
        let mut cells = InsideCells::none();
        for (index, (block, verdict)) in cells.coarse.iter_mut().zip(verdicts).enumerate() {
            let Some(bits) = verdict else { continue };
            if bits.count == BLOCK_BITS {
                *block = PROVEN;
                cells.whole[index / 64] |= 1 << (index % 64);
            } else if cells.fine.len() < MOST_BLOCKS {
                *block = cells.fine.len() as u16;
                cells.fine.push(bits.words);
            }
        }
        cells
    }

    /// The coarse cells, for another evaluator of [`InsideCells::surely_allowed`] (a GPU
    /// kernel): per chart (the largest component's index: `x, y, z, w` = 0–3), per coarse cell
    /// `(i, j, k)` of the other three components in order (`i` slowest), the index of its block
    /// in [`InsideCells::blocks`]. Component `o` falls in fine cell `⌊(o + REACH) · FINE_PER_UNIT⌋`
    /// (clamped to the last), whose coarse cell is that over [`FINE`].
    pub fn coarse_cells(&self) -> &[u16] {
        self.coarse.as_slice()
    }

    /// The blocks of fine cells: a bit per fine cell `(i, j, k)` of a coarse cell (each modulo
    /// [`FINE`]), bit `(i · FINE + j) · FINE + k` counted from the first word's lowest. Block 0
    /// has no bit set and block 1 every bit.
    pub fn blocks(&self) -> &[[u64; BLOCK_BITS / 64]] {
        &self.fine
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        std::mem::size_of_val(self.coarse.as_slice())
            + std::mem::size_of_val(self.fine.as_slice())
            + std::mem::size_of_val(self.whole.as_slice())
    }
}

/// The fine cells of one coarse cell proven so far.
#[derive(Default)]
struct FineBits {
    words: [u64; BLOCK_BITS / 64],
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

/// How a limit (or a part of one) stands against a cell of rotations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Standing {
    /// Every rotation of the cell allowed.
    Allowed,
    /// No rotation of the cell allowed.
    Refused,
    /// Neither is proven.
    Open,
}

/// The largest fine-grid coordinate along a component.
const LAST_FINE: u32 = (COARSE * FINE - 1) as u32;

/// Where a rotation lies among the cells: its chart and, per component, its fine-grid
/// coordinate `⌊(o + REACH) · FINE_PER_UNIT⌋` (clamped to the grid), `o` the component with the
/// sign making the chart's own one positive. The chart's own lane is read but weighs nothing.
///
/// On x86-64 the four components go through SSE2 together (the chart from a movemask, the
/// three lanes kept by weighting the chart's own with zero): about half the instructions of
/// picking components one by one, and the inside test of prepared limits is mostly this.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct GridPoint {
    chart: usize,
    lanes: std::arch::x86_64::__m128i,
}

/// Elsewhere the grid point is read component by component.
#[cfg(not(target_arch = "x86_64"))]
type GridPoint = PortableGridPoint;

/// [`GridPoint`] read component by component: the reading on targets without SSE2, and on
/// x86-64 the reference its tests compare the SSE2 reading with.
#[cfg(any(test, not(target_arch = "x86_64")))]
#[derive(Clone, Copy)]
struct PortableGridPoint {
    chart: usize,
    lanes: [u32; 4],
}

/// Per chart, the weight of each component's coordinate in a cell's index with `per_side`
/// cells a side: the components other than the chart's, in order, weigh `per_side²`,
/// `per_side` and 1, and the chart's own nothing.
const fn chart_weights(per_side: i32) -> [[i32; 4]; CHARTS] {
    let mut weights = [[0; 4]; CHARTS];
    let mut chart = 0;
    while chart < CHARTS {
        let mut weight = per_side * per_side;
        let mut lane = 0;
        while lane < 4 {
            if lane != chart {
                weights[chart][lane] = weight;
                weight /= per_side;
            }
            lane += 1;
        }
        chart += 1;
    }
    weights
}

/// [`chart_weights`] of the coarse cells in a chart.
const COARSE_WEIGHTS: [[i32; 4]; CHARTS] = chart_weights(COARSE as i32);

/// [`chart_weights`] of the fine cells in a coarse cell.
const FINE_WEIGHTS: [[i32; 4]; CHARTS] = chart_weights(FINE as i32);

#[cfg(target_arch = "x86_64")]
impl GridPoint {
    /// The grid point of `q` (unit length within [`NORM_SLACK`]; the answer for others means
    /// nothing). Where components tie for largest, any of their charts reads the rotation:
    /// each chart's cells hold every unit quaternion whose component there is largest, ties
    /// included.
    #[inline(always)]
    fn of(q: Quat) -> GridPoint {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 target, and these intrinsics only touch
        // registers.
        unsafe {
            let v: __m128 = q.into();
            let magnitude = _mm_and_ps(v, _mm_castsi128_ps(_mm_set1_epi32(i32::MAX)));
            let w = _mm_shuffle_ps::<0b11_11_11_11>(magnitude, magnitude);
            let chart = if _mm_movemask_ps(_mm_cmpgt_ps(magnitude, w)) == 0 {
                // The common case, a turn below 120° or so: no component outweighs `w`.
                3
            } else {
                let swapped = _mm_shuffle_ps::<0b10_11_00_01>(magnitude, magnitude);
                let pairs = _mm_max_ps(magnitude, swapped);
                let largest = _mm_max_ps(pairs, _mm_shuffle_ps::<0b01_00_11_10>(pairs, pairs));
                let tied = _mm_movemask_ps(_mm_cmpeq_ps(magnitude, largest)) as u32;
                (31 - (tied | 1).leading_zeros()) as usize
            };
            let negative = (_mm_movemask_ps(v) as u32 >> chart) & 1;
            let sign = _mm_castsi128_ps(_mm_set1_epi32((negative << 31) as i32));
            let oriented = _mm_xor_ps(v, sign);
            let scaled = _mm_mul_ps(
                _mm_add_ps(oriented, _mm_set1_ps(REACH)),
                _mm_set1_ps(FINE_PER_UNIT),
            );
            let last = _mm_set1_ps(LAST_FINE as f32);
            let clamped = _mm_min_ps(_mm_max_ps(scaled, _mm_setzero_ps()), last);
            GridPoint {
                chart,
                lanes: _mm_cvttps_epi32(clamped),
            }
        }
    }

    /// The index of the coarse cell (into [`InsideCells::coarse_cells`]).
    #[inline(always)]
    fn coarse_cell(&self) -> usize {
        use std::arch::x86_64::*;
        // SAFETY: as in `of`.
        let coarse = unsafe { _mm_srli_epi32::<{ FINE_DEPTH as i32 }>(self.lanes) };
        let within = Self::weighed(coarse, COARSE_WEIGHTS[self.chart]);
        self.chart * COARSE * COARSE * COARSE + within
    }

    /// The bit of the fine cell in its coarse cell's block.
    #[inline(always)]
    fn fine_cell(&self) -> usize {
        use std::arch::x86_64::*;
        // SAFETY: as in `of`.
        let fine = unsafe { _mm_and_si128(self.lanes, _mm_set1_epi32(FINE as i32 - 1)) };
        Self::weighed(fine, FINE_WEIGHTS[self.chart])
    }

    /// `Σ lanes · weights`, each lane and weight below 2¹⁵ (a 16-bit multiply-add).
    #[inline(always)]
    fn weighed(lanes: std::arch::x86_64::__m128i, weights: [i32; 4]) -> usize {
        use std::arch::x86_64::*;
        let [a, b, c, d] = weights;
        // SAFETY: as in `of`.
        unsafe {
            let products = _mm_madd_epi16(lanes, _mm_set_epi32(d, c, b, a));
            let halves = _mm_add_epi32(products, _mm_shuffle_epi32::<0b01_00_11_10>(products));
            let sum = _mm_add_epi32(halves, _mm_shuffle_epi32::<0b10_11_00_01>(halves));
            _mm_cvtsi128_si32(sum) as usize
        }
    }
}

#[cfg(any(test, not(target_arch = "x86_64")))]
impl PortableGridPoint {
    /// The grid point of `q` (see the x86-64 version); of components tied for largest, the
    /// last is the chart, as there.
    #[inline(always)]
    fn of(q: Quat) -> PortableGridPoint {
        let v = q.to_array();
        let magnitude = v.map(f32::abs);
        let largest = magnitude[0]
            .max(magnitude[1])
            .max(magnitude[2])
            .max(magnitude[3]);
        let chart = (0..4).rev().find(|&c| magnitude[c] == largest).unwrap_or(0);
        let sign = if v[chart] < 0.0 { -1.0 } else { 1.0 };
        let lanes = v.map(|o| (((sign * o + REACH) * FINE_PER_UNIT) as u32).min(LAST_FINE));
        PortableGridPoint { chart, lanes }
    }

    /// The index of the coarse cell (into [`InsideCells::coarse_cells`]).
    #[inline(always)]
    fn coarse_cell(&self) -> usize {
        let weights = COARSE_WEIGHTS[self.chart];
        let within: u32 = (0..4)
            .map(|lane| (self.lanes[lane] >> FINE_DEPTH) * weights[lane] as u32)
            .sum();
        self.chart * COARSE * COARSE * COARSE + within as usize
    }

    /// The bit of the fine cell in its coarse cell's block.
    #[inline(always)]
    fn fine_cell(&self) -> usize {
        let weights = FINE_WEIGHTS[self.chart];
        (0..4)
            .map(|lane| (self.lanes[lane] % FINE as u32) * weights[lane] as u32)
            .sum::<u32>() as usize
    }
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

/// What a cell of one chart spans (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CellBounds {
    /// The unit quaternion at the cell's centre.
    pub centre: Quat,
    /// The largest rotation angle from `centre` to a rotation of the cell, radians.
    pub radius: f32,
    /// The middle of each quaternion component's interval over the cell (`x, y, z, w`).
    pub middle: Vec4,
    /// Half the width of each component's interval.
    pub half: Vec4,
}

impl CellBounds {
    /// The bounds of the cell `[low, low + size]³` of chart `chart`, or `None` when its centre
    /// names no rotation (`|c| ≥ 1`).
    fn of(chart: usize, low: Vec3, size: f32) -> Option<CellBounds> {
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
        let lows = Vec4::from(from_chart(chart, lo, largest_low).to_array());
        let highs = Vec4::from(from_chart(chart, hi, largest_high).to_array());
        Some(CellBounds {
            centre: from_chart(chart, centre, largest_centre),
            radius,
            middle: 0.5 * (lows + highs),
            half: 0.5 * (highs - lows),
        })
    }

    /// The interval of the linear function `q ↦ weights · q` over the cell.
    pub fn range_of(&self, weights: Vec4) -> [f32; 2] {
        let middle = weights.dot(self.middle);
        let half = weights.abs().dot(self.half);
        [middle - half, middle + half]
    }
}

/// Settles the cell of chart `chart` from `low` at `depth` halvings below a coarse cell (its
/// first fine cell `corner` within the coarse one) by `judge`, marking what it proves in `bits`.
fn settle(
    judge: &(impl Fn(&CellBounds) -> Standing + Sync),
    chart: usize,
    low: Vec3,
    depth: usize,
    corner: [usize; 3],
    bits: &mut FineBits,
) {
    let size = 2.0 * REACH / COARSE as f32 / (1 << depth) as f32;
    let Some(bounds) = CellBounds::of(chart, low, size) else {
        return;
    };
    let side = FINE >> depth;
    match judge(&bounds) {
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
        settle(judge, chart, child_low, depth + 1, child_corner, bits);
    }
}

/// How near the origin (with a margin) `(v·axis, w)` may come before the exact tests take the
/// identity twist (they do below `1e-6`, where every twist splits the rotation).
const NEAR_HALF_SWING: f32 = 2e-6;

/// Bounds of the twist `2·atan2(v·axis, w)` of the rotation `to_relative · q` over a cell of
/// rotations `q`: its sine and cosine parts are linear in `q`'s components, so each takes its
/// interval over the cell exactly ([`CellBounds::range_of`]).
pub(crate) struct TwistBounds {
    along: Vec4,
    cosine: Vec4,
}

impl TwistBounds {
    /// The bounds about the unit `axis`, for the unit quaternion `to_relative`.
    pub fn new(to_relative: Quat, axis: Vec3) -> TwistBounds {
        let basis = [
            Quat::from_xyzw(1.0, 0.0, 0.0, 0.0),
            Quat::from_xyzw(0.0, 1.0, 0.0, 0.0),
            Quat::from_xyzw(0.0, 0.0, 1.0, 0.0),
            Quat::IDENTITY,
        ];
        let images = basis.map(|e| to_relative * e);
        TwistBounds {
            along: Vec4::from(images.map(|r| Vec3::new(r.x, r.y, r.z).dot(axis))),
            cosine: Vec4::from(images.map(|r| r.w)),
        }
    }

    /// An interval holding the twist of every rotation of `cell`, on one turn.
    pub fn of(&self, cell: &CellBounds) -> [f32; 2] {
        twist_interval(cell.range_of(self.along), cell.range_of(self.cosine))
    }
}

/// The interval of `2·atan2(s, w)` over the box `s ∈ [s_low, s_high]`, `w ∈ [w_low, w_high]`,
/// widened by the margin: every twist when the box comes near the origin.
fn twist_interval([s_low, s_high]: [f32; 2], [w_low, w_high]: [f32; 2]) -> [f32; 2] {
    // Within 1e-6 of the origin the exact tests take the identity twist, whatever `atan2` says:
    // a box coming that near may hold any twist.
    let near = |low: f32, high: f32| low <= NEAR_HALF_SWING && high >= -NEAR_HALF_SWING;
    if near(s_low, s_high) && near(w_low, w_high) {
        return [-TAU, TAU];
    }
    // The box keeps clear of the origin, so it spans less than a half turn seen from it: its
    // corners, read round its centre's direction, bound it.
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
}

/// The cells of rotations `q` whose relative rotation `to_relative · q` (`to_relative` unit) a
/// swing-twist kind allows: swing-plane points in the plane spanned by `basis`'s first two
/// columns (the scaled angle-axis of the swing about its third, the twist axis;
/// [`crate::rotation::swing_plane_point_and_twist`]) bounded by a region, and twists within
/// `twist` on some turn. `depth` bounds how deep a swing-plane point lies in the region from
/// below, and how far outside it lies (as a negative depth) from above: a signed distance, or
/// anything nearer zero.
///
/// A cell's bone directions lie within `θ` of its centre's, whose swing has angle `φ`; the
/// swing point is the direction's azimuthal equidistant projection (turned a quarter), which
/// stretches by at most `φ'/sin φ'` at swings up to `φ' = φ + θ`, so the cell's swing points
/// lie within that many times `θ` of the centre's, and the cell is allowed when the depth there
/// covers it and the twist range holds the cell's twists on one turn. Cells reaching within
/// 0.05 rad of a half swing are left to the exact test.
pub(crate) fn prove_swing_plane_cells(
    to_relative: Quat,
    basis: &glam::Mat3,
    twist: [f32; 2],
    depth: impl Fn(glam::Vec2) -> f32 + Sync,
) -> InsideCells {
    use std::f32::consts::PI;
    let twists = TwistBounds::new(to_relative, basis.z_axis);
    InsideCells::prove(|cell| {
        let relative = to_relative * cell.centre;
        let Some((point, _)) = crate::rotation::swing_plane_point_and_twist(relative, basis) else {
            return Standing::Open;
        };
        let widest = point.length() + cell.radius;
        if widest >= PI - 0.05 {
            return Standing::Open;
        }
        let stretch = if widest > 1e-3 {
            widest / widest.sin()
        } else {
            1.0
        };
        let reach = cell.radius * stretch * (1.0 + 1e-3) + MARGIN;
        let depth = depth(point);
        let twists = twists.of(cell);
        if depth >= reach && holds_on_one_turn(twist, twists) {
            Standing::Allowed
        } else if -depth > reach || misses_on_every_turn(twist, twists) {
            Standing::Refused
        } else {
            Standing::Open
        }
    })
}

/// Whether some whole turn moves the interval `twist` inside `range`.
pub(crate) fn holds_on_one_turn(range: [f32; 2], twist: [f32; 2]) -> bool {
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
pub(crate) fn misses_on_every_turn(range: [f32; 2], twist: [f32; 2]) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twist_intervals_fit_and_miss_on_the_right_turns() {
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

    #[test]
    fn rotations_are_read_in_the_chart_of_a_largest_component_in_their_own_cells() {
        use std::f32::consts::FRAC_1_SQRT_2 as H;
        let mut random = crate::measure::SeededRandom::new(17);
        let mut rotations: Vec<Quat> = (0..100_000)
            .map(|_| random.rotation())
            .flat_map(|q| [q, -q])
            .collect();
        // Components tied for largest, with every sign, and the extremes of each lane.
        for signs in 0..16 {
            let sign = |lane: usize| if signs >> lane & 1 == 1 { -1.0 } else { 1.0 };
            let all = Vec4::new(sign(0), sign(1), sign(2), sign(3));
            rotations.push(Quat::from_vec4(0.5 * all));
            for (a, b) in [(0, 1), (0, 3), (1, 2), (2, 3), (1, 3), (0, 2)] {
                let mut v = [0.0; 4];
                (v[a], v[b]) = (H * sign(a), H * sign(b));
                rotations.push(Quat::from_array(v));
            }
        }
        // Off unit length by as much as the cells read.
        let scaled: Vec<Quat> = rotations
            .iter()
            .flat_map(|&q| [q * (1.0 + 0.45 * NORM_SLACK), q * (1.0 - 0.45 * NORM_SLACK)])
            .collect();
        rotations.extend(scaled);
        for q in rotations {
            let point = GridPoint::of(q);
            let v = q.to_array();
            let largest = v.iter().map(|c| c.abs()).fold(0.0, f32::max);
            assert_eq!(v[point.chart].abs(), largest, "{q:?}");
            let sign = v[point.chart].signum();
            let others: Vec<u32> = (0..4)
                .filter(|&lane| lane != point.chart)
                .map(|lane| (((sign * v[lane] + REACH) * FINE_PER_UNIT) as u32).min(LAST_FINE))
                .collect();
            let coarse = |o: u32| (o >> FINE_DEPTH) as usize;
            let fine = |o: u32| (o % FINE as u32) as usize;
            let expected_coarse =
                ((point.chart * COARSE + coarse(others[0])) * COARSE + coarse(others[1])) * COARSE
                    + coarse(others[2]);
            let expected_fine = (fine(others[0]) * FINE + fine(others[1])) * FINE + fine(others[2]);
            assert_eq!(point.coarse_cell(), expected_coarse, "{q:?}");
            assert_eq!(point.fine_cell(), expected_fine, "{q:?}");
            // The reading of targets without SSE2 picks the same chart and cells.
            let portable = PortableGridPoint::of(q);
            assert_eq!(portable.chart, point.chart, "{q:?}");
            assert_eq!(portable.coarse_cell(), expected_coarse, "{q:?}");
            assert_eq!(portable.fine_cell(), expected_fine, "{q:?}");
        }
    }

    #[test]
    fn rotations_far_from_unit_length_or_not_numbers_are_never_surely_allowed() {
        let everything = InsideCells::prove(|_| Standing::Allowed);
        let mut random = crate::measure::SeededRandom::new(23);
        for _ in 0..1000 {
            let q = random.rotation();
            assert!(
                everything.surely_allowed(q) && everything.surely_allowed(-q),
                "{q}"
            );
            for hostile in [
                q * 2.0,
                q * 0.5,
                q * (1.0 + 3.0 * NORM_SLACK),
                Quat::from_xyzw(f32::NAN, q.y, q.z, q.w),
                Quat::from_xyzw(q.x, f32::INFINITY, q.z, q.w),
                Quat::from_xyzw(q.x, q.y, q.z, f32::NEG_INFINITY),
                Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            ] {
                assert!(!everything.surely_allowed(hostile), "{hostile}");
            }
        }
    }
}
