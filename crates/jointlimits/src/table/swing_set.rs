//! The allowed bone directions of a table: the points of the sphere where an interpolated signed
//! angular distance is at most zero.
//!
//! Fitted from sample directions, the vertex values are `min_i ∠(vertex, sample_i) − radius`:
//! exactly the signed distance to the union of caps of `radius` around the samples outside it,
//! so the set holds every sample (when `radius` exceeds a cell's diagonal), fills gaps narrower
//! than `2·radius`, keeps concave and larger-than-hemisphere shapes, and its boundary is the
//! smooth zero curve of the bilinear interpolation rather than a staircase of cells.
//!
//! The nearest allowed direction to an outside one starts on the boundary's chain of arcs
//! ([`BoundaryChains`], from the hints of the query's cell), is moved onto the smooth curve by
//! Newton steps along the gradient, and is then slid once along the curve's tangent towards the
//! query: within about 1e-4 rad of the exact nearest point of the curve at 64² and finer.

use std::f32::consts::TAU;

use glam::{Vec2, Vec3};

use super::boundary::{BoundaryChains, cell_of};
use super::grid::VertexGrid;
use super::octahedral::{OctahedralMap, wrapped};
use crate::derived::Derived;
use crate::region::swing_basis;

/// Newton steps onto the boundary curve.
const NEWTON_STEPS: usize = 6;

/// How far inside the curve a correction aims (radians of signed distance), so that rounding
/// leaves it inside: first a hair, then more when the round trip through the sphere's f32
/// coordinates (a few 1e-7 of the square) still lands outside. All are far below the accuracy
/// a correction promises (1e-3 rad).
const INSIDE_MARGINS: [f32; 3] = [2e-7, 2e-6, 2e-5];

/// Steps along the boundary curve that polish a landing into the nearest point
/// ([`SwingSet::polished_landing`]).
const POLISH_STEPS: usize = 4;

/// A set of bone directions (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct SwingSet {
    /// The map from directions to the grid's square (its centre is the reference direction).
    pub map: OctahedralMap,
    /// Signed angular distance to the boundary at the vertices, radians (negative inside).
    pub distance: VertexGrid,
    /// The boundary as chains of arcs, with a hint per vertex: built by the first correction
    /// that needs them (the inside test reads the signed distance alone), so that reading a
    /// file of tables and testing rotations against them costs no boundary tracing.
    chains: Derived<BoundaryChains>,
}

pub(crate) use crate::direction_twist::angle;

/// The map centred on the unit `axis`.
pub(crate) fn map_around(axis: Vec3) -> OctahedralMap {
    OctahedralMap {
        basis: swing_basis(axis),
    }
}

impl SwingSet {
    /// The set within `radius` of the unit `directions`, on a grid of `resolution` cells per side
    /// centred on the unit `axis`.
    pub fn fit(axis: Vec3, directions: &[Vec3], radius: f32, resolution: usize) -> SwingSet {
        let map = map_around(axis.normalize());
        let kept = one_per_cell(&map, directions, resolution);
        let distance = VertexGrid::from_fn(resolution, |p| {
            let vertex = map.to_sphere(p);
            kept.iter()
                .map(|&d| angle(vertex, d))
                .fold(std::f32::consts::PI, f32::min)
                - radius
        });
        SwingSet::new(map, distance)
    }

    /// The set whose signed distance has the vertex values `distance` over `map`'s square. Values
    /// on the square's folded edges (one direction twice) are averaged with their partners so the
    /// two agree; the boundary chains and hints are built when first needed.
    pub fn new(map: OctahedralMap, mut distance: VertexGrid) -> SwingSet {
        fold_consistent(&mut distance);
        SwingSet {
            map,
            distance,
            chains: Derived::new(),
        }
    }

    /// The boundary chains, built on first use.
    pub fn chains(&self) -> &BoundaryChains {
        self.chains
            .get_or_build(|| BoundaryChains::new(&self.map, &self.distance))
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
    #[inline]
    fn onto_curve(&self, p: Vec2) -> Vec2 {
        self.newton_to_level(p, 0.0, |value| value.abs() < 1e-7)
    }

    /// Newton steps from `p` along the gradient towards the level `−margin` of the signed
    /// distance (continuing across the square's folded edges), until `done` accepts the
    /// distance above that level, the gradient vanishes, or the steps run out.
    #[inline]
    fn newton_to_level(&self, mut p: Vec2, margin: f32, done: impl Fn(f32) -> bool) -> Vec2 {
        for _ in 0..NEWTON_STEPS {
            let value = self.distance.sample(p) + margin;
            if done(value) {
                break;
            }
            let gradient = self.distance.gradient(p);
            let squared = gradient.length_squared();
            if squared < 1e-12 {
                break;
            }
            p = wrapped(p - gradient * (value / squared));
        }
        p
    }

    /// The allowed direction nearest the unit `direction` (itself when allowed).
    #[inline]
    pub fn nearest(&self, direction: Vec3) -> Vec3 {
        let start = self.map.to_square(direction);
        if self.distance.sample(start) <= 0.0 {
            return direction;
        }
        self.nearest_from(direction, start)
    }

    /// The nearest allowed direction to the outside unit `direction`, starting from the hints of
    /// the cell holding square point `seed` (the direction's own, or for a stream the previous
    /// answer's, which keeps it on the same stretch of boundary).
    #[inline]
    pub fn nearest_from(&self, direction: Vec3, seed: Vec2) -> Vec3 {
        self.nearest_from_with_arc(direction, seed).0
    }

    /// [`SwingSet::nearest_from`] and the boundary arc it landed next to (`None` when there is
    /// no boundary), from which [`SwingSet::nearest_along`] continues.
    #[inline]
    pub fn nearest_from_with_arc(&self, direction: Vec3, seed: Vec2) -> (Vec3, Option<u32>) {
        let cell = cell_of(self.distance.resolution, seed);
        let Some(on_arc) = self.chains().nearest_from_cell(direction, cell) else {
            // No boundary: every vertex is outside, nothing is allowed. (Validation refuses
            // such tables; answer the input rather than invent a direction.)
            return (direction, None);
        };
        (self.landed(direction, on_arc.point), Some(on_arc.arc))
    }

    /// The allowed direction nearest the unit `direction` (itself when allowed), found by a
    /// short walk along the boundary from `arc`: for queries that move a little at a time, as a
    /// search along the boundary does. Returns it and the arc it landed next to.
    #[inline]
    pub fn nearest_along(&self, direction: Vec3, arc: u32) -> (Vec3, u32) {
        if self.contains(direction) {
            return (direction, arc);
        }
        let on_arc = self.chains().walk_near(direction, arc);
        (self.landed(direction, on_arc.point), on_arc.arc)
    }

    /// The allowed direction for `direction` whose nearest arc point is `on_arc`: that point
    /// moved onto the curve, or the query's own landing there when that is nearer (a query just
    /// outside lands next to itself), stepped just inside.
    #[inline]
    fn landed(&self, direction: Vec3, on_arc: Vec3) -> Vec3 {
        let from_arc = self.onto_curve(self.map.to_square(on_arc));
        let own = self.onto_curve(self.map.to_square(direction));
        // Angles, not dot products: near the query these differ in a cosine's eighth digit.
        let off = |p: Vec2| angle(self.map.to_sphere(p), direction);
        let best = if self.distance.sample(own).abs() < 1e-6 && off(own) < off(from_arc) {
            own
        } else {
            from_arc
        };
        self.inside_at(best)
    }

    /// The allowed direction `at`, a landing on the boundary for the outside unit `direction`,
    /// moved along the boundary curve to the curve's point nearest `direction` on the sphere.
    ///
    /// A landing follows the signed distance's gradient in the square, which the map's
    /// stretching tilts away from the sphere's normal to the curve: a direction `ε` outside
    /// lands up to about `ε/2` from its nearest point, so a rotation a hair outside would read
    /// its violation half as large again, and differently from a neighbour's. Each step goes
    /// to the foot of `direction` on the curve's tangent (its speed on the sphere measured by a
    /// central difference) and back onto the curve, while that is nearer.
    pub(crate) fn polished_landing(&self, direction: Vec3, at: Vec3) -> Vec3 {
        let cell = self.distance.cell_size();
        let mut p = self.onto_curve(self.map.to_square(at));
        // Angles, not dot products: these differ in the eighth digit of a cosine.
        let mut nearest = angle(self.map.to_sphere(p), direction);
        let h = 1e-3 * cell;
        for _ in 0..POLISH_STEPS {
            let tangent = self.distance.gradient(p).perp().normalize_or_zero();
            let velocity = (self.map.to_sphere(wrapped(p + tangent * h))
                - self.map.to_sphere(wrapped(p - tangent * h)))
                / (2.0 * h);
            let speed_squared = velocity.length_squared();
            if tangent == Vec2::ZERO || speed_squared < 1e-12 {
                break;
            }
            let here = self.map.to_sphere(p);
            let mut step = ((direction - here).dot(velocity) / speed_squared).clamp(-cell, cell);
            // Where the curve bends, the tangent's foot can overshoot: halve the step.
            let mut moved = false;
            for _ in 0..POLISH_STEPS {
                let next = self.onto_curve(wrapped(p + tangent * step));
                let distance = angle(self.map.to_sphere(next), direction);
                if distance < nearest {
                    (p, nearest, moved) = (next, distance, true);
                    break;
                }
                step *= 0.5;
            }
            if !moved || step.abs() < 1e-5 * cell {
                break;
            }
        }
        let polished = self.inside_at(p);
        if angle(polished, direction) < angle(at, direction) {
            polished
        } else {
            at
        }
    }

    /// The allowed direction at the boundary point nearest square point `p` along the gradient,
    /// or at `p` when it is inside.
    pub(crate) fn inside_near(&self, p: Vec2) -> Vec3 {
        if self.distance.sample(p) <= 0.0 && self.contains(self.map.to_sphere(p)) {
            return self.map.to_sphere(p);
        }
        self.inside_at(self.onto_curve(p))
    }

    /// The direction at the curve point `p`, stepped just inside: Newton steps onto a level a
    /// hair below zero (a little further if rounding still leaves it outside), and failing
    /// that, bisection towards the nearest allowed grid vertex.
    #[inline]
    fn inside_at(&self, p: Vec2) -> Vec3 {
        let mut at = p;
        for margin in INSIDE_MARGINS {
            at = self.newton_to_level(at, margin, |value| value <= 0.0);
            let direction = self.map.to_sphere(at);
            if self.contains(direction) {
                return direction;
            }
        }
        let direction = self.map.to_sphere(at);
        let Some(mut inside) = self.nearest_allowed_vertex(direction) else {
            // Nothing is allowed (validation refuses such sets): answer the input.
            return direction;
        };
        let mut outside = direction;
        for _ in 0..32 {
            let middle = (inside + outside).normalize();
            if self.contains(middle) {
                inside = middle;
            } else {
                outside = middle;
            }
        }
        inside
    }
}

impl SwingSet {
    /// The allowed grid vertex nearest the unit `direction` (`None` when no vertex is allowed):
    /// a rare fallback, so a plain scan.
    #[cold]
    fn nearest_allowed_vertex(&self, direction: Vec3) -> Option<Vec3> {
        let n = self.distance.resolution;
        let side = n + 1;
        self.distance
            .values
            .iter()
            .enumerate()
            .filter(|(_, value)| **value <= 0.0)
            .map(|(v, _)| {
                let p = VertexGrid::vertex_position(n, v % side, v / side);
                self.map.to_sphere(p)
            })
            .filter(|&d| self.contains(d))
            .max_by(|a, b| a.dot(direction).total_cmp(&b.dot(direction)))
    }
}

/// One representative per cell of `directions` (unit or not; zero ones dropped): every direction
/// lies within a cell's diagonal of one.
pub(crate) fn one_per_cell(
    map: &OctahedralMap,
    directions: &[Vec3],
    resolution: usize,
) -> Vec<Vec3> {
    let cell = |d: Vec3| {
        let p = (map.to_square(d) + 1.0) * (0.5 * resolution as f32);
        let clamp = |x: f32| (x as usize).min(resolution - 1);
        clamp(p.y) * resolution + clamp(p.x)
    };
    let mut seen = vec![false; resolution * resolution];
    directions
        .iter()
        .filter_map(|d| d.try_normalize())
        .filter(|&d| !std::mem::replace(&mut seen[cell(d)], true))
        .collect()
}

/// The pairs of vertices of a grid of `n` cells per side that are one direction: fold partners
/// on the square's outer edges, and the first corner with each of the other three.
pub(crate) fn fold_pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    let side = n + 1;
    let edges = (0..=n / 2).flat_map(move |k| {
        [
            (k, n - k),
            (n * side + k, n * side + n - k),
            (k * side, (n - k) * side),
            (k * side + n, (n - k) * side + n),
        ]
    });
    edges.chain([n, n * side, n * side + n].map(|corner| (0, corner)))
}

/// The fold partners on the square's outer edges, without the corners: the pairs of
/// [`fold_pairs`] whose two vertices each touch one cell side along the fold.
pub(crate) fn edge_fold_pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    fold_pairs(n).skip(4).take(4 * (n / 2))
}

/// Makes the twist ranges of fold partners on the square's outer edges one range modulo whole
/// turns: the pair's mean is taken with the second partner moved onto the first's turn, and
/// each keeps its own turn. Partners may differ by whole turns because the twist of a rotation
/// field winds twice round the direction opposite the axis (the square's corners), and that
/// winding has to cross the folds somewhere; inside the square it would cross a cell. The
/// corners themselves point opposite the axis, where twist has no single meaning: each keeps
/// the value its one cell sees. Both partners are left on their channel's lattice, the second
/// within half a code of the first's value moved by its whole turns (a turn is not a whole
/// number of codes), so applying this again changes nothing.
pub(crate) fn fold_consistent_twist(min: &mut VertexGrid, max: &mut VertexGrid) {
    use super::channels::Channel;
    let n = min.resolution;
    for (a, b) in edge_fold_pairs(n) {
        let middle = |v: usize| 0.5 * (min.values[v] + max.values[v]);
        let shift = TAU * ((middle(a) - middle(b)) / TAU).round();
        let low = Channel::TwistMin.quantize(0.5 * (min.values[a] + min.values[b] + shift));
        let high = Channel::TwistMax.quantize(0.5 * (max.values[a] + max.values[b] + shift));
        // The second partner keeps its own turn where that fits the channels' span, else the
        // turn nearest it that does: a range clamped at the span's end would no longer be the
        // first partner's modulo whole turns.
        let fits = |s: f32| low - s >= -TAU && high - s <= TAU;
        let shift = [shift, shift - TAU, shift + TAU]
            .into_iter()
            .find(|&s| fits(s))
            .unwrap_or(shift);
        (min.values[a], max.values[a]) = (low, high);
        min.values[b] = Channel::TwistMin.quantize(low - shift);
        max.values[b] = Channel::TwistMax.quantize(high - shift);
    }
}

/// Moves every twist range that reaches past the channels' span `[−2π, 2π]` by the whole turns
/// that bring its middle nearest zero, where a range of at most a turn fits. Unwrapping the
/// twist's turns across a table (which winds twice round the direction opposite the axis) can
/// carry a range past the span, and stored as it was its end would be clamped to the span's.
pub(crate) fn twist_within_span(min: &mut VertexGrid, max: &mut VertexGrid) {
    for (low, high) in min.values.iter_mut().zip(&mut max.values) {
        let ordered = matches!(
            low.partial_cmp(&high),
            Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
        );
        if (*low >= -TAU && *high <= TAU) || !ordered {
            continue;
        }
        let shift = TAU * (0.5 * (*low + *high) / TAU).round();
        (*low, *high) = (*low - shift, *high - shift);
    }
}

/// Makes the values of vertices that are one direction (fold partners on the square's outer
/// edges, and the four corners) equal, by averaging.
pub(crate) fn fold_consistent(grid: &mut VertexGrid) {
    let n = grid.resolution;
    let side = n + 1;
    let v = &mut grid.values;
    for (a, b) in fold_pairs(n).take(4 * (n / 2 + 1)) {
        let mean = 0.5 * (v[a] + v[b]);
        (v[a], v[b]) = (mean, mean);
    }
    let corners = [0, n, n * side, n * side + n];
    let mean = corners.iter().map(|&c| v[c]).sum::<f32>() / 4.0;
    for c in corners {
        v[c] = mean;
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
        eprintln!("worst excess over the dense boundary: {worst} rad over {checked} directions");
        assert!(worst < 1e-3, "worst excess {worst} rad");
    }
}
