//! Subsampling limit-space samples to an even spread, in expected linear time.
//!
//! Greedy in input order: a sample is kept unless a kept sample lies closer than `d`. That gives
//! two guarantees: no two kept samples are closer than `d`, and every dropped sample is within `d`
//! of a kept one. The all-pairs version is O(N·K); here kept samples live in a grid of cells of
//! side `d` (a dense array over the bounding box, or a hash map when the box is huge), so a query
//! looks at 27 cells, and most queries end earlier, on the kept sample that covered the previous
//! sample (motion is continuous: consecutive frames are close).

use glam::DVec3;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Indices of the samples kept by greedy subsampling at spacing `d` (in input order).
///
/// No two kept samples are closer than `d`; every other sample is within `d` of a kept one. A
/// spacing that is not positive and finite keeps every sample. Non-finite samples are dropped.
pub fn subsample(samples: &[DVec3], d: f64) -> Vec<usize> {
    if !(d > 0.0 && d.is_finite()) {
        return (0..samples.len())
            .filter(|&i| samples[i].is_finite())
            .collect();
    }
    let (min, max) = samples
        .iter()
        .filter(|p| p.is_finite())
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    if min.x > max.x {
        return Vec::new();
    }
    // A dense array of cells when the bounding box is small enough (the usual case: rotations
    // live within |r| ≤ 2π), else a hash map of the occupied cells.
    let cells_per_axis = ((max - min) / d).floor() + DVec3::splat(3.0);
    let dense_cells = cells_per_axis.x * cells_per_axis.y * cells_per_axis.z;
    if dense_cells <= (8 * samples.len() + (1 << 16)) as f64 {
        let dims = [
            cells_per_axis.x as usize,
            cells_per_axis.y as usize,
            cells_per_axis.z as usize,
        ];
        let cell_count = dims[0] * dims[1] * dims[2];
        let mut grid = DenseGrid {
            heads: vec![NONE; cell_count],
            occupied: vec![0; cell_count.div_ceil(64)],
            dims,
        };
        // One empty cell of padding on each side keeps every neighbour index in bounds.
        greedy(samples, d, min - DVec3::splat(d), &mut grid)
    } else {
        greedy(samples, d, DVec3::ZERO, &mut HashGrid::default())
    }
}

/// Where the newest kept sample of each cell is found.
trait CellHeads {
    /// A key for the cell with these integer coordinates.
    fn key(&self, cell: [i64; 3]) -> u64;
    /// The newest kept sample in the cell, or [`NONE`].
    fn head(&self, key: u64) -> u32;
    /// Makes `index` the newest kept sample of the cell, returning the previous head.
    fn push(&mut self, key: u64, index: u32) -> u32;
}

/// The greedy pass: cells of side `d` measured from `origin`; a sample is covered when a kept
/// sample in its own or one of the 26 neighbouring cells is closer than `d`.
fn greedy(samples: &[DVec3], d: f64, origin: DVec3, cells: &mut impl CellHeads) -> Vec<usize> {
    let d2 = d * d;
    let inverse_cell = 1.0 / d;
    // Kept samples per cell as linked lists through `next_in_cell`.
    let mut next_in_cell: Vec<u32> = Vec::new();
    let mut kept: Vec<usize> = Vec::new();
    // The kept sample that covered the previous sample: motion is continuous, so it most
    // likely covers this one too.
    let mut last_cover: Option<usize> = None;
    for (i, &p) in samples.iter().enumerate() {
        if !p.is_finite() {
            continue;
        }
        if let Some(cover) = last_cover
            && samples[cover].distance_squared(p) < d2
        {
            continue;
        }
        let c = ((p - origin) * inverse_cell).floor();
        let cell = [c.x as i64, c.y as i64, c.z as i64];
        let mut cover = None;
        'cells: for [dx, dy, dz] in NEIGHBOURS {
            let key = cells.key([
                cell[0].saturating_add(dx),
                cell[1].saturating_add(dy),
                cell[2].saturating_add(dz),
            ]);
            let mut link = cells.head(key);
            while link != NONE {
                let candidate = kept[link as usize];
                if samples[candidate].distance_squared(p) < d2 {
                    cover = Some(candidate);
                    break 'cells;
                }
                link = next_in_cell[link as usize];
            }
        }
        match cover {
            Some(candidate) => last_cover = Some(candidate),
            None => {
                let previous = cells.push(cells.key(cell), kept.len() as u32);
                next_in_cell.push(previous);
                kept.push(i);
                last_cover = Some(i);
            }
        }
    }
    kept
}

/// The 27 cell offsets around a cell, nearest first (own cell, faces, edges, corners): a cover is
/// most likely found early.
const NEIGHBOURS: [[i64; 3]; 27] = {
    let mut offsets = [[0i64; 3]; 27];
    let mut count = 0;
    let mut distance = 0;
    while distance <= 3 {
        let mut i = 0;
        while i < 27 {
            let offset = [
                (i % 3) as i64 - 1,
                ((i / 3) % 3) as i64 - 1,
                (i / 9) as i64 - 1,
            ];
            let squared = offset[0] * offset[0] + offset[1] * offset[1] + offset[2] * offset[2];
            if squared == distance {
                offsets[count] = offset;
                count += 1;
            }
            i += 1;
        }
        distance += 1;
    }
    offsets
};

/// Cells of a padded bounding box, stored densely. A bitmap of occupied cells (one bit a cell,
/// small enough to stay in cache) answers most queries, which are for empty cells, without touching
/// the larger array of list heads.
struct DenseGrid {
    heads: Vec<u32>,
    occupied: Vec<u64>,
    dims: [usize; 3],
}

impl CellHeads for DenseGrid {
    fn key(&self, cell: [i64; 3]) -> u64 {
        // Coordinates lie in 0..dims by construction (padding included); clamp defensively.
        let at = |axis: usize| cell[axis].clamp(0, self.dims[axis] as i64 - 1) as u64;
        at(0) + self.dims[0] as u64 * (at(1) + self.dims[1] as u64 * at(2))
    }

    fn head(&self, key: u64) -> u32 {
        let key = key as usize;
        if self.occupied[key / 64] & (1 << (key % 64)) == 0 {
            NONE
        } else {
            self.heads[key]
        }
    }

    fn push(&mut self, key: u64, index: u32) -> u32 {
        let key = key as usize;
        self.occupied[key / 64] |= 1 << (key % 64);
        std::mem::replace(&mut self.heads[key], index)
    }
}

/// Occupied cells in a hash map, for samples spread too far for a dense array.
#[derive(Default)]
struct HashGrid {
    heads: HashMap<u64, u32, BuildHasherDefault<CellHasher>>,
}

impl CellHeads for HashGrid {
    /// Packs the coordinates into one word, 21 bits each. Distinct far-apart cells may share a
    /// key; that only lengthens a list, since every candidate's distance is checked.
    fn key(&self, cell: [i64; 3]) -> u64 {
        const MASK: u64 = (1 << 21) - 1;
        (cell[0] as u64 & MASK) | ((cell[1] as u64 & MASK) << 21) | ((cell[2] as u64 & MASK) << 42)
    }

    fn head(&self, key: u64) -> u32 {
        self.heads.get(&key).copied().unwrap_or(NONE)
    }

    fn push(&mut self, key: u64, index: u32) -> u32 {
        self.heads.insert(key, index).unwrap_or(NONE)
    }
}

/// End of a cell's list.
const NONE: u32 = u32::MAX;

/// A fast hasher for integer cell coordinates (a multiply-rotate mix; no DoS concern here).
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    fn write_i64(&mut self, value: i64) {
        self.write_u64(value as u64);
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (self.0.rotate_left(23) ^ value).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn write_usize(&mut self, value: usize) {
        self.write_u64(value as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The seed's all-pairs greedy loop, as the reference.
    fn brute_force(samples: &[DVec3], d: f64) -> Vec<usize> {
        let mut kept: Vec<usize> = Vec::new();
        for (i, p) in samples.iter().enumerate() {
            if kept.iter().all(|&k| samples[k].distance(*p) >= d) {
                kept.push(i);
            }
        }
        kept
    }

    proptest! {
        #[test]
        fn equals_the_all_pairs_greedy_result(
            points in prop::collection::vec(prop::array::uniform3(-2.0f64..2.0), 0..300),
            d in 0.05f64..1.5,
        ) {
            let samples: Vec<DVec3> = points.iter().map(|p| DVec3::from_array(*p)).collect();
            let kept = subsample(&samples, d);
            prop_assert_eq!(&kept, &brute_force(&samples, d));
            let hashed = greedy(&samples, d, DVec3::ZERO, &mut HashGrid::default());
            prop_assert_eq!(&hashed, &kept);
            for (a, &i) in kept.iter().enumerate() {
                for &j in &kept[a + 1..] {
                    prop_assert!(samples[i].distance(samples[j]) >= d);
                }
            }
            for p in &samples {
                prop_assert!(kept.iter().any(|&k| samples[k].distance(*p) < d || samples[k] == *p));
            }
        }
    }

    #[test]
    fn degenerate_inputs() {
        assert!(subsample(&[], 0.1).is_empty());
        let same = vec![DVec3::ONE; 10];
        assert_eq!(subsample(&same, 0.1), vec![0]);
        assert_eq!(subsample(&same, 0.0).len(), 10);
        let with_nan = vec![DVec3::ZERO, DVec3::NAN, DVec3::X];
        assert_eq!(subsample(&with_nan, 0.5), vec![0, 2]);
        let far = vec![DVec3::splat(1e300), DVec3::splat(-1e300)];
        assert_eq!(subsample(&far, 1e-300), vec![0, 1]);
    }
}
