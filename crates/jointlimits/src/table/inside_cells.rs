//! A table's cells of the rotation group proven allowed ([`crate::rotation_cells`]).
//!
//! A cell's rotations lie within `θ` of its centre's, so their bone directions lie in a cap of
//! radius `θ` about the centre's; the equal-area octahedral map keeps areas (its Jacobian's
//! determinant is π everywhere) and stretches a square step by at most [`STRETCH`] radians per
//! unit, so it moves a square point by at most `STRETCH / π` units per radian of direction, and
//! the cap maps into the square rectangle that far round its centre's point, as long as that
//! rectangle stays inside the square (past its edge the map folds back onto itself). Their twists
//! `2·atan2(v·axis, w)` lie in the interval the corners of the box of `(v·axis, w)` span, read
//! round the box's own direction (the box keeps clear of the origin, or every twist is assumed).
//! The cell is allowed when every point of the rectangle has a signed distance of at most zero
//! and twist limits holding the whole interval on one turn. A pyramid of per-block extremes
//! settles most of the rectangle; a cell of the table is judged on the part of it inside the
//! rectangle, where its bilinear values take their extremes at the part's corners.

use glam::{Quat, Vec2, Vec3, Vec4};

use super::bounds::STRETCH;
use super::octahedral::OctahedralMap;
use super::packed::PackedGrid;
use crate::rotation_cells::{
    CellBounds, InsideCells, MARGIN, Standing, TwistBounds, holds_on_one_turn, misses_on_every_turn,
};

/// How far (square units) the map may move a square point per radian its direction moves.
const SQUARE_PER_RADIAN: f32 = STRETCH / std::f32::consts::PI;

/// Margin (square units) for the exact test's own square point: computed with a polynomial
/// `atan2` and rounding (strays below 1e-6), from the direction `q·axis` of a rotation up to
/// 1e-4 from unit length, which the map reads as its normalised direction moved by up to 1e-4
/// (a rescaling; were it turned that far instead, 1e-4 rad moves the point by 1e-4 units).
const SQUARE_MARGIN: f32 = 5e-4;

/// Proves the cells of rotations `q` whose relative rotation `to_relative · q` a table allows:
/// the table with vertex values `packed` on `map` about the unit `axis` (module docs).
/// `to_relative` is a unit quaternion (the inverse of the joint's reference rotation, or the
/// identity for rotations already relative).
pub fn prove(
    axis: Vec3,
    map: &OctahedralMap,
    packed: &PackedGrid,
    to_relative: Quat,
) -> InsideCells {
    if (axis.length() - 1.0).abs() > 1e-5 {
        // No map reads a direction off a twist axis that is not unit: nothing is proven.
        return InsideCells::none();
    }
    let extremes = ExtremesPyramid::new(packed);
    let twists = TwistBounds::new(to_relative, axis);
    InsideCells::prove(|cell: &CellBounds| {
        let direction = (to_relative * cell.centre) * axis;
        let centre = map.to_square(direction);
        let reach = cell.radius * SQUARE_PER_RADIAN + SQUARE_MARGIN;
        let rectangle = [centre - reach, centre + reach];
        if rectangle[0].min_element() <= -1.0 || rectangle[1].max_element() >= 1.0 {
            return Standing::Open;
        }
        let twist = twists.of(cell);
        extremes.judge(packed, rectangle, twist)
    })
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
        let winding = crate::table::limit::tests::winding_table(40);
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
}
