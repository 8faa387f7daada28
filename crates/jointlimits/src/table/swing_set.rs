//! The allowed bone directions of a table: the points of the sphere where an interpolated signed
//! angular distance is at most zero.
//!
//! Fitted from sample directions, the vertex values are `min_i ∠(vertex, sample_i) − radius`:
//! exactly the signed distance to the union of caps of `radius` around the samples outside it,
//! so the set holds every sample (when `radius` exceeds a cell's diagonal), fills gaps narrower
//! than `2·radius`, keeps concave and larger-than-hemisphere shapes, and its boundary is the
//! smooth zero curve of the bilinear interpolation rather than a staircase of cells.
//!
//! The nearest allowed direction to an outside one is found by Newton steps onto the zero curve
//! along the distance's gradient, then a search along the curve for the point nearest on the
//! sphere.

use glam::{Vec2, Vec3};

use super::grid::VertexGrid;
use super::octahedral::OctahedralMap;
use crate::region::swing_basis;

/// Newton steps onto the boundary curve.
const NEWTON_STEPS: usize = 12;

/// Halvings of the step along the curve.
const SLIDE_HALVINGS: usize = 18;

/// A set of bone directions (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct SwingSet {
    /// The map from directions to the grid's square (its centre is the reference direction).
    pub map: OctahedralMap,
    /// Signed angular distance to the boundary at the vertices, radians (negative inside).
    pub distance: VertexGrid,
    /// Points of the boundary curve (square coordinates): where it crosses the cells' edges.
    boundary: Vec<Vec2>,
    /// Per vertex, the boundary point nearest to it on the sphere (an index into `boundary`),
    /// or `u32::MAX` where there is none: the hint a correction starts from.
    hints: Vec<u32>,
}

/// The angle between unit vectors, accurate at small angles.
fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

impl SwingSet {
    /// The set within `radius` of the unit `directions`, on a grid of `resolution` cells per side
    /// centred on the unit `axis`.
    pub fn fit(axis: Vec3, directions: &[Vec3], radius: f32, resolution: usize) -> SwingSet {
        let map = OctahedralMap {
            basis: swing_basis(axis.normalize()),
        };
        // One representative per cell: every sample lies within a cell's diagonal of one.
        let cell = |d: Vec3| {
            let p = (map.to_square(d) + 1.0) * (0.5 * resolution as f32);
            let clamp = |x: f32| (x as usize).min(resolution - 1);
            clamp(p.y) * resolution + clamp(p.x)
        };
        let mut seen = vec![false; resolution * resolution];
        let kept: Vec<Vec3> = directions
            .iter()
            .filter_map(|d| d.try_normalize())
            .filter(|&d| !std::mem::replace(&mut seen[cell(d)], true))
            .collect();
        let distance = VertexGrid::from_fn(resolution, |p| {
            let vertex = map.to_sphere(p);
            kept.iter()
                .map(|&d| angle(vertex, d))
                .fold(std::f32::consts::PI, f32::min)
                - radius
        });
        SwingSet::new(map, distance)
    }

    /// The set whose signed distance has the vertex values `distance` over `map`'s square; finds
    /// the boundary's crossings of the cell edges and each vertex's nearest crossing.
    pub fn new(map: OctahedralMap, distance: VertexGrid) -> SwingSet {
        let n = distance.resolution;
        let side = n + 1;
        let value = |column: usize, row: usize| distance.values[row * side + column];
        let position = |column: usize, row: usize| VertexGrid::vertex_position(n, column, row);
        let mut boundary = Vec::new();
        for row in 0..side {
            for column in 0..side {
                let here = value(column, row);
                for (c, r) in [(column + 1, row), (column, row + 1)] {
                    if c >= side || r >= side {
                        continue;
                    }
                    let there = value(c, r);
                    if (here <= 0.0) != (there <= 0.0) {
                        // Linear along the edge: the bilinear interpolation's own zero there.
                        let t = here / (here - there);
                        boundary.push(position(column, row).lerp(position(c, r), t));
                    }
                }
            }
        }
        let on_sphere: Vec<Vec3> = boundary.iter().map(|&p| map.to_sphere(p)).collect();
        let hints = (0..side * side)
            .map(|index| {
                let vertex = map.to_sphere(position(index % side, index / side));
                on_sphere
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| (angle(vertex, b), i as u32))
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .map_or(u32::MAX, |(_, i)| i)
            })
            .collect();
        SwingSet {
            map,
            distance,
            boundary,
            hints,
        }
    }

    /// The boundary points hinted by the corners of the cell holding square point `p`.
    fn hinted(&self, p: Vec2) -> impl Iterator<Item = Vec2> + '_ {
        let n = self.distance.resolution;
        let scaled = (p.clamp(Vec2::splat(-1.0), Vec2::splat(1.0)) + 1.0) * (0.5 * n as f32);
        let column = (scaled.x as usize).min(n - 1);
        let row = (scaled.y as usize).min(n - 1);
        let side = n + 1;
        [(0, 0), (1, 0), (0, 1), (1, 1)]
            .into_iter()
            .map(move |(c, r)| self.hints[(row + r) * side + column + c])
            .filter(|&hint| hint != u32::MAX)
            .map(|hint| self.boundary[hint as usize])
    }

    /// The interpolated signed angular distance at `direction` (negative inside).
    #[inline]
    pub fn signed_distance(&self, direction: Vec3) -> f32 {
        self.distance.sample(self.map.to_square(direction))
    }

    /// Whether the unit `direction` is allowed.
    #[inline]
    pub fn contains(&self, direction: Vec3) -> bool {
        self.signed_distance(direction) <= 0.0
    }

    /// The boundary point reached from square point `p` by Newton steps along the gradient.
    fn onto_boundary(&self, mut p: Vec2) -> Vec2 {
        for _ in 0..NEWTON_STEPS {
            let value = self.distance.sample(p);
            if value.abs() < 1e-7 {
                break;
            }
            let gradient = self.distance.gradient(p);
            let squared = gradient.length_squared();
            if squared < 1e-12 {
                break;
            }
            p = (p - gradient * (value / squared)).clamp(Vec2::splat(-1.0), Vec2::splat(1.0));
        }
        p
    }

    /// From the boundary point `seed`, the point along the curve nearest to `direction` that
    /// sliding reaches, and its angle from `direction`.
    fn slide(&self, seed: Vec2, direction: Vec3) -> (Vec2, f32) {
        let mut best = seed;
        let mut best_angle = angle(self.map.to_sphere(best), direction);
        let mut step = self.distance.cell_size();
        for _ in 0..SLIDE_HALVINGS {
            let tangent = self.distance.gradient(best).perp().normalize_or_zero();
            let mut moved = false;
            for sign in [1.0, -1.0] {
                let candidate = self.onto_boundary(best + tangent * (sign * step));
                let candidate_angle = angle(self.map.to_sphere(candidate), direction);
                if candidate_angle < best_angle && self.distance.sample(candidate).abs() < 1e-5 {
                    (best, best_angle) = (candidate, candidate_angle);
                    moved = true;
                    break;
                }
            }
            if !moved {
                step *= 0.5;
            }
        }
        (best, best_angle)
    }

    /// The allowed direction nearest the unit `direction` (itself when allowed).
    pub fn nearest(&self, direction: Vec3) -> Vec3 {
        let start = self.map.to_square(direction);
        if self.distance.sample(start) <= 0.0 {
            return direction;
        }
        // From the start's own Newton landing and from each corner's nearest crossing, slide
        // along the curve to the nearest point; the best of them wins.
        let (mut best, mut best_angle) = (start, f32::INFINITY);
        for seed in std::iter::once(self.onto_boundary(start)).chain(self.hinted(start)) {
            let (point, point_angle) = self.slide(seed, direction);
            if point_angle < best_angle {
                (best, best_angle) = (point, point_angle);
            }
        }
        // Newton lands on the curve up to rounding; step inside it so the answer is allowed.
        let mut nearest = self.map.to_sphere(best);
        let mut nudge = 1e-6;
        while !self.contains(nearest) && nudge < 1e-2 {
            let inward = -self.distance.gradient(best).normalize_or_zero();
            nearest = self.map.to_sphere(best + inward * nudge);
            nudge *= 2.0;
        }
        nearest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::SeededRandom;

    /// Samples inside two caps: a large one around +Z (past the hemisphere) and a small one.
    fn samples() -> Vec<Vec3> {
        let mut random = SeededRandom::new(40);
        let big = Vec3::Z;
        let small = Vec3::new(0.0, -1.0, -0.3).normalize();
        let mut out = Vec::new();
        while out.len() < 4000 {
            let d = random.direction();
            if angle(d, big) < 1.9 || angle(d, small) < 0.3 {
                out.push(d);
            }
        }
        out
    }

    #[test]
    fn every_sample_is_inside_and_the_set_is_the_caps_around_them() {
        let samples = samples();
        let radius = 0.06;
        let set = SwingSet::fit(Vec3::Z, &samples, radius, 128);
        assert!(samples.iter().all(|&d| set.contains(d)));
        // The set the vertices encode: within `radius` of a sample. Disagreements only within a
        // cell of the boundary.
        let cell_angle = 2.0 * std::f32::consts::PI / (128.0 * 128.0 / 2.0f32).sqrt();
        let mut random = SeededRandom::new(41);
        let mut disagreements = 0;
        for _ in 0..20_000 {
            let d = random.direction();
            let exact = samples.iter().map(|&s| angle(d, s)).fold(10.0, f32::min) - radius;
            if set.contains(d) != (exact <= 0.0) {
                assert!(exact.abs() < cell_angle, "{d}: {exact}");
                disagreements += 1;
            }
        }
        assert!(disagreements < 400, "{disagreements}");
    }

    #[test]
    fn nearest_lands_on_the_boundary_curve_nearest_the_input() {
        let set = SwingSet::fit(Vec3::Z, &samples(), 0.06, 64);
        // The boundary, densely: zero crossings along fine lines of the square.
        let mut boundary = Vec::new();
        let lines = 1024;
        for i in 0..=lines {
            for horizontal in [true, false] {
                let fixed = -1.0 + 2.0 * i as f32 / lines as f32;
                let at = |t: f32| {
                    if horizontal {
                        Vec2::new(t, fixed)
                    } else {
                        Vec2::new(fixed, t)
                    }
                };
                let mut previous = set.distance.sample(at(-1.0));
                for k in 1..=lines {
                    let t = -1.0 + 2.0 * k as f32 / lines as f32;
                    let value = set.distance.sample(at(t));
                    if (value <= 0.0) != (previous <= 0.0) {
                        let (mut low, mut high) = (t - 2.0 / lines as f32, t);
                        for _ in 0..30 {
                            let middle = 0.5 * (low + high);
                            let m = set.distance.sample(at(middle));
                            if (m <= 0.0) == (previous <= 0.0) {
                                low = middle;
                            } else {
                                high = middle;
                            }
                        }
                        boundary.push(set.map.to_sphere(at(0.5 * (low + high))));
                    }
                    previous = value;
                }
            }
        }
        let mut random = SeededRandom::new(42);
        let mut checked = 0;
        let mut worst: f32 = 0.0;
        for _ in 0..300 {
            let d = random.direction();
            if set.contains(d) {
                continue;
            }
            let nearest = set.nearest(d);
            assert!(set.contains(nearest), "{d} → {nearest}");
            let found = angle(d, nearest);
            let exact = boundary.iter().map(|&b| angle(d, b)).fold(10.0, f32::min);
            worst = worst.max(found - exact);
            checked += 1;
        }
        assert!(checked > 50);
        assert!(worst < 1e-3, "worst excess {worst} rad");
    }
}
