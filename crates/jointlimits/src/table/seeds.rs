//! Starting points of a table's global search in the combined metric: allowed directions spread
//! over the whole region (grid vertices at a stride, and points along the boundary), each with
//! the twist range there.
//!
//! Where the twist limits vary across the directions, the nearest allowed rotation can lie far
//! from the nearest allowed direction: on another island, or where the range is wider. Scoring
//! every seed in the combined metric `α² + δ²` (`α` the angle to the query's direction, `δ` the
//! twist's distance from the seed's range on its best turn) and refining from the best one finds
//! that minimum with one local search, where a search started from each stretch of boundary and
//! each turn would need a dozen. The scan is a tight loop over plain arrays.

use glam::Vec3;

use crate::twist::TwistRange;

/// Seeds per side of the square at most: a seed every `resolution / SEEDS_PER_SIDE` vertices,
/// so a scan costs the same at every resolution.
pub const SEEDS_PER_SIDE: usize = 32;

/// Seeds scored together.
const LANES: usize = 8;

/// The seeds, as structure of arrays (padded to whole groups of `LANES`).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Seeds {
    x: Vec<f32>,
    y: Vec<f32>,
    z: Vec<f32>,
    /// The centre of the twist range at each seed.
    centre: Vec<f32>,
    /// Half the width of the twist range at each seed.
    half_width: Vec<f32>,
    /// The boundary arc each seed lies next to (`None` inside).
    arcs: Vec<Option<u32>>,
}

/// The best seed for a query.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BestSeed {
    /// The seed's direction.
    pub direction: Vec3,
    /// Its cost `α² + δ²`.
    pub cost: f32,
    /// The boundary arc it lies next to (`None` inside).
    pub arc: Option<u32>,
}

impl Seeds {
    /// The seeds at the unit `directions` with the twist ranges there and the boundary arcs
    /// they lie next to.
    pub fn new(seeds: impl IntoIterator<Item = (Vec3, TwistRange, Option<u32>)>) -> Seeds {
        let mut out = Seeds::default();
        for (d, range, arc) in seeds {
            out.arcs.push(arc);
            out.x.push(d.x);
            out.y.push(d.y);
            out.z.push(d.z);
            out.centre.push(0.5 * (range.min + range.max));
            out.half_width.push(0.5 * (range.max - range.min));
        }
        // Whole groups of lanes: the padding allows no twist, so it never wins.
        while out.x.len() % LANES != 0 {
            for values in [&mut out.x, &mut out.y, &mut out.z, &mut out.centre] {
                values.push(0.0);
            }
            out.half_width.push(f32::NEG_INFINITY);
            out.arcs.push(None);
        }
        out
    }

    /// How many there are, padding included.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// The bytes they hold.
    pub fn memory_bytes(&self) -> usize {
        5 * self.len() * std::mem::size_of::<f32>() + std::mem::size_of_val(self.arcs.as_slice())
    }

    /// The seed of least `α² + δ²` for the unit `direction` and the twist `twist`: `α` the angle
    /// between the directions, `δ` how far the twist's nearest turn `twist + 2πk` lies outside the
    /// seed's range. `None` when there are no seeds. The angle is [`rough_arc_cosine`]'s: this
    /// picks where a local search starts, which then measures exactly.
    pub fn best(&self, direction: Vec3, twist: f32) -> Option<BestSeed> {
        let mut best = (f32::INFINITY, usize::MAX);
        let lanes = self.x.len() / LANES;
        for group in 0..lanes {
            let range = group * LANES..(group + 1) * LANES;
            let lane = |values: &[f32]| -> [f32; LANES] {
                values[range.clone()].try_into().expect("whole groups")
            };
            let (x, y, z) = (lane(&self.x), lane(&self.y), lane(&self.z));
            let (centre, half_width) = (lane(&self.centre), lane(&self.half_width));
            // Branch-free over a group, which the compiler turns into vector code.
            let mut costs = [0.0f32; LANES];
            for k in 0..LANES {
                let cosine = direction.x * x[k] + direction.y * y[k] + direction.z * z[k];
                let alpha = rough_arc_cosine(cosine);
                let delta = outside_range(twist - centre[k], half_width[k]);
                costs[k] = alpha * alpha + delta * delta;
            }
            for (k, &cost) in costs.iter().enumerate() {
                if cost < best.0 {
                    best = (cost, group * LANES + k);
                }
            }
        }
        (best.1 != usize::MAX).then(|| BestSeed {
            direction: Vec3::new(self.x[best.1], self.y[best.1], self.z[best.1]),
            cost: best.0,
            arc: self.arcs[best.1],
        })
    }
}

/// How far a twist `offset` from a range's centre lies outside the range of half width
/// `half_width`, on the offset's nearest turn `offset + 2πk`.
#[inline(always)]
fn outside_range(offset: f32, half_width: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    // Rounds to the nearest integer for |x| < 2²² without a library call: adding 1.5·2²³ leaves
    // no fraction bits.
    const ROUNDING: f32 = 12_582_912.0;
    let turns = (offset * (1.0 / TAU) + ROUNDING) - ROUNDING;
    let offset = (offset - TAU * turns).abs().min(PI);
    (offset - half_width).max(0.0)
}

/// `acos(c)` for `c` clamped to `[−1, 1]`, within 1e-4 rad: `√(1 − |c|)` times a cubic
/// (Abramowitz and Stegun 4.4.45), mirrored for negative `c`. Cheap and branch-free, for
/// ranking.
#[inline(always)]
pub fn rough_arc_cosine(c: f32) -> f32 {
    let x = c.abs().min(1.0);
    let p = 1.570_728_8 + x * (-0.212_114_4 + x * (0.074_261 + x * -0.018_729_3));
    let positive = (1.0 - x).sqrt() * p;
    // acos(−x) = π − acos(x), as a select.
    let negative = (c < 0.0) as u32 as f32;
    positive + negative * (std::f32::consts::PI - 2.0 * positive)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rough_arc_cosine_is_within_1e_4_of_the_library() {
        for i in 0..=20_000 {
            let c = -1.0 + i as f32 * 1e-4;
            let exact = c.clamp(-1.0, 1.0).acos();
            assert!((rough_arc_cosine(c) - exact).abs() < 1e-4, "{c}");
        }
        assert_eq!(rough_arc_cosine(1.5), 0.0);
    }

    #[test]
    fn a_twist_outside_a_range_is_measured_on_its_nearest_turn() {
        use std::f32::consts::TAU;
        for (offset, half_width, expected) in [
            (0.5, 1.0, 0.0),
            (1.5, 1.0, 0.5),
            (-1.5, 1.0, 0.5),
            (TAU - 0.2, 0.1, 0.1),
            (3.0 * TAU + 0.4, 0.1, 0.3),
            (-5.0 * TAU - 2.0, 0.5, 1.5),
            (std::f32::consts::PI, 0.0, std::f32::consts::PI),
        ] {
            let got = outside_range(offset, half_width);
            assert!(
                (got - expected).abs() < 1e-5,
                "{offset} {half_width}: {got}"
            );
        }
    }

    #[test]
    fn the_best_seed_trades_angle_against_twist_on_the_nearest_turn() {
        let near = TwistRange {
            min: -0.1,
            max: 0.1,
        };
        let wide = TwistRange { min: 2.5, max: 3.5 };
        let seeds = Seeds::new([
            (Vec3::Z, near, None),
            (Vec3::new(0.0, 0.5f32.sin(), 0.5f32.cos()), wide, Some(7)),
        ]);
        // Twist 3.0 fits the wide range 0.5 rad away (cost 0.25) but misses the near one by 2.9.
        let best = seeds.best(Vec3::Z, 3.0).unwrap();
        assert!((best.cost - 0.25).abs() < 2e-4, "{best:?}");
        assert_eq!(best.arc, Some(7));
        // Twist −3.0 on its turn −3.0 + 2π = 3.28 fits the wide range too.
        let best = seeds.best(Vec3::Z, -3.0).unwrap();
        assert!((best.cost - 0.25).abs() < 2e-4, "{best:?}");
        // Twist 0.05 fits the near range where the direction is.
        assert_eq!(seeds.best(Vec3::Z, 0.05).unwrap().cost, 0.0);
        assert!(Seeds::default().best(Vec3::Z, 0.0).is_none());
    }
}
