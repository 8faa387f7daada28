//! The nearest point of a reach cone's boundary, all edges at once.
//!
//! For the minor great-circle arc from `a` to `b` (unit normal `n = a × b / |a × b|`), the
//! nearest point of its whole great circle to a unit `d` is `q = (d − n(d·n)) / |d − n(d·n)|`,
//! at cosine `q·d = √(1 − (d·n)²)`. It lies on the arc exactly when `d·(n × a) ≥ 0` and
//! `d·(b × n) ≥ 0` (the in-plane part of `d` is between `a` and `b`), which needs no
//! normalisation; otherwise the nearer end wins. Distances are compared as squared chords,
//! `2h²/(1 + √(1 − h²))` to the arc (`h = d·n`) and `|d − a|²`, `|d − b|²` to the ends, which keep
//! their digits for tiny cones where cosines round to 1. So every edge's distance is a few dot
//! products and a square root, computed here for eight edges side by
//! side over structure-of-arrays columns that the compiler vectorises; only the winner's point
//! is then built.

use glam::Vec3;

/// Edges processed per step (a multiple of the widest vector).
const CHUNK: usize = 8;

/// Where on an edge its nearest point to a direction lies.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    Start,
    Finish,
    Inside,
}

/// [`CHUNK`] edges as columns: `n`, `n × a`, `b × n`, `a`, `b`, three coordinates each.
#[derive(Clone, Debug, PartialEq)]
struct EdgeChunk([[f32; CHUNK]; 15]);

/// The boundary arcs, [`CHUNK`] at a time.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct EdgeTable {
    /// The number of real edges; the last chunk is padded with copies of edge 0, which cannot
    /// change the maximum.
    count: usize,
    chunks: Vec<EdgeChunk>,
}

impl EdgeTable {
    /// The table of the closed polygon `boundary` (unit points), with unit edge `normals`.
    pub(crate) fn new(boundary: &[Vec3], normals: &[Vec3]) -> EdgeTable {
        let count = boundary.len();
        let mut chunks = vec![EdgeChunk([[0.0; CHUNK]; 15]); count.div_ceil(CHUNK)];
        for slot in 0..chunks.len() * CHUNK {
            let i = if slot < count { slot } else { 0 };
            let (a, b, n) = (boundary[i], boundary[(i + 1) % count], normals[i]);
            let vectors = [n, n.cross(a), b.cross(n), a, b];
            let chunk = &mut chunks[slot / CHUNK].0;
            for (k, v) in vectors.iter().enumerate() {
                for axis in 0..3 {
                    chunk[3 * k + axis][slot % CHUNK] = v[axis];
                }
            }
        }
        EdgeTable { count, chunks }
    }

    /// The nearest boundary point to the unit `d` and the edge it lies on.
    #[inline]
    pub(crate) fn nearest(&self, d: Vec3) -> (Vec3, usize) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has just been checked for AVX2.
            return unsafe { self.nearest_avx2(d) };
        }
        self.nearest_portable(d)
    }

    /// [`EdgeTable::nearest`] compiled for AVX2: a chunk of eight edges per instruction.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn nearest_avx2(&self, d: Vec3) -> (Vec3, usize) {
        self.nearest_portable(d)
    }

    #[inline(always)]
    fn nearest_portable(&self, d: Vec3) -> (Vec3, usize) {
        // Lane-wise running minima of the squared chord `|d − x|²` (branch-free, so they
        // vectorise), reduced at the end. Chords, not cosines: near 1 an f32 cosine resolves
        // angles only to about 3e-4 rad, a chord to about 1e-7.
        let mut best_chord = [f32::INFINITY; CHUNK];
        // Chunk numbers as floats, so that the selects stay in vector registers.
        let mut best_chunk = [0.0f32; CHUNK];
        for (index, chunk) in self.chunks.iter().enumerate() {
            let c = &chunk.0;
            let index = index as f32;
            let dot = |k: usize, j: usize| c[k][j] * d.x + c[k + 1][j] * d.y + c[k + 2][j] * d.z;
            let chord = |k: usize, j: usize| {
                let (x, y, z) = (d.x - c[k][j], d.y - c[k + 1][j], d.z - c[k + 2][j]);
                x * x + y * y + z * z
            };
            for j in 0..CHUNK {
                let (height, after_a, before_b) = (dot(0, j), dot(3, j), dot(6, j));
                // 2 − 2√(1 − h²), written without the cancellation.
                let squared = height * height;
                let on_arc = 2.0 * squared / (1.0 + (1.0 - squared).max(0.0).sqrt());
                let at_ends = chord(9, j).min(chord(12, j));
                let distance = if (after_a >= 0.0) & (before_b >= 0.0) {
                    on_arc
                } else {
                    at_ends
                };
                let better = distance < best_chord[j];
                best_chunk[j] = if better { index } else { best_chunk[j] };
                best_chord[j] = if better { distance } else { best_chord[j] };
            }
        }
        // The smallest chord by a tree of lane-wise minima, then the first lane holding it
        // from a bit mask: no chain of eight dependent comparisons.
        let mut smallest = best_chord;
        let mut width = CHUNK / 2;
        while width > 0 {
            for j in 0..width {
                smallest[j] = smallest[j].min(smallest[j + width]);
            }
            width /= 2;
        }
        let mut holders = 0u32;
        for (j, &chord) in best_chord.iter().enumerate() {
            holders |= u32::from(chord == smallest[0]) << j;
        }
        let best = (holders.trailing_zeros() as usize).min(CHUNK - 1);
        let edge = best_chunk[best] as usize * CHUNK + best;
        let edge = if edge < self.count { edge } else { 0 };
        (self.point_on(edge, d), edge)
    }

    /// A local minimum of the distance to `d` along the boundary, found from edge `start`: while
    /// the nearest point of the current edge is one of its ends and the edge beyond that end
    /// comes nearer, step onto it. An edge whose nearest point lies inside it is a local minimum
    /// and is kept, even where another edge is as near or nearer (the global nearest may jump to
    /// the far side of a notch; a stream must not).
    pub(crate) fn nearest_from(&self, d: Vec3, start: usize) -> (Vec3, usize) {
        let n = self.count;
        let mut edge = start % n;
        let (mut point, mut end) = self.point_and_end(edge, d);
        // At most once round the polygon: each step strictly lowers the distance.
        for _ in 0..n {
            let next = match end {
                End::Start => (edge + n - 1) % n,
                End::Finish => (edge + 1) % n,
                End::Inside => break,
            };
            let (next_point, next_end) = self.point_and_end(next, d);
            if (d - next_point).length_squared() >= (d - point).length_squared() {
                break;
            }
            (edge, point, end) = (next, next_point, next_end);
        }
        (point, edge)
    }

    /// The nearest point of edge `i` to `d` and whether it is one of the edge's ends.
    fn point_and_end(&self, i: usize, d: Vec3) -> (Vec3, End) {
        let (c, j) = (&self.chunks[i / CHUNK].0, i % CHUNK);
        let column = |k: usize| Vec3::new(c[k][j], c[k + 1][j], c[k + 2][j]);
        let (a, b) = (column(9), column(12));
        let point = self.point_on(i, d);
        let end = if point == a {
            End::Start
        } else if point == b {
            End::Finish
        } else {
            End::Inside
        };
        (point, end)
    }

    /// The nearest point of edge `i` to `d`.
    #[inline(always)]
    fn point_on(&self, i: usize, d: Vec3) -> Vec3 {
        let (c, j) = (&self.chunks[i / CHUNK].0, i % CHUNK);
        let column = |k: usize| Vec3::new(c[k][j], c[k + 1][j], c[k + 2][j]);
        let (n, after_a, before_b, a, b) = (column(0), column(3), column(6), column(9), column(12));
        if d.dot(after_a) >= 0.0
            && d.dot(before_b) >= 0.0
            && let Some(q) = (d - n * d.dot(n)).try_normalize()
        {
            return q;
        }
        if (d - a).length_squared() <= (d - b).length_squared() {
            a
        } else {
            b
        }
    }
}
