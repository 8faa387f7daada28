//! A grid of cubes around a polytope naming, per cube, the face, edge or vertex that holds the
//! projection of the cube's points, so that most projections are one lookup and one formula
//! instead of a walk over the faces.
//!
//! For a point `x` outside a convex polytope, the nearest point lies on one feature, and the
//! points sharing a feature form a convex region (the feature's Voronoi region) cut out by
//! planes:
//! - a face (normal `n`, offset `b`): `n·x > b`, and `(x − sₖ)·mₖ ≥ 0` for each edge `k` of its
//!   polygon (start `sₖ`, inward direction `mₖ` in the face's plane): the foot `x − (n·x − b)·n`
//!   lies on the polygon, and is the projection;
//! - an edge between faces `F` and `G` (start `s`, vector `v`): `0 ≤ (x − s)·v ≤ |v|²`, and
//!   `(x − s)·m_F ≤ 0`, `(x − s)·m_G ≤ 0` (beside the edge, beyond both polygons), which bound the
//!   wedge of the two normals or its mirror image below the surface, and `x` above `F` or `G`,
//!   which keeps the wedge; the projection is `s + v·((x − s)·v / |v|²)`;
//! - a vertex `p` whose faces close up around it: `(x − p)·dⱼ ≤ 0` for the direction `dⱼ` of each
//!   edge leaving it (the polar of its tangent cone), and `x` above one of its faces; the
//!   projection is `p`.
//!
//! A box lies in a region cut out by planes exactly when its eight corners do, and the polytope
//! is convex, so a box lies inside it when its corners do. Each cube of the grid is settled once:
//! - **inside** when every corner lies below every face plane by a margin;
//! - **settled on a feature** when every corner passes that feature's inequalities by the margin
//!   and some face plane has every corner above it by the margin (so every point of the cube is
//!   outside by the inside test's verdict too): its points take the feature's formula;
//! - otherwise it keeps a few **candidates**, the features holding its corners' projections, most
//!   frequent first: a point there takes the formula of the first candidate whose inequalities
//!   it passes (as computed, in f32), and goes the walk's way when none does.
//!
//! A candidate's test asks that `x` rise above one of its faces by more than the inside
//! tolerance, so a point it answers is one the inside test calls outside. Rounding can let a
//! point a few 1e-7 beyond a region pass its test; the feature's formula then lands the same
//! distance from the projection (the projection is continuous, and the formulas of neighbouring
//! features agree where their regions meet). The margin of settled cubes lies far above the f32
//! rounding of the formulas and of the lookup.
//!
//! The grid spans the polytope's bounding cube grown by twice its half side on every side: poses
//! two or three times as far from the data as the data spread land on it, where the regions are
//! widest. Points off the grid, in cubes with no candidate, or passing no candidate's test, go
//! the walk's way ([`super::polytope`]). A polytope of more than [`MOST_FACES`] faces, or whose
//! grid settles fewer than half of the cubes outside it, keeps the walk alone: there (a fitted hull of hundreds of small faces, whose
//! edges' regions are thin wedges) most points would pay for candidate tests that fail, and
//! measured slower than the walk alone (the projection bench's hull settles 22% of its cubes).

use glam::{DVec3, Vec3};

use super::polytope::PolytopeTables;

/// Cubes per side of the grid.
const CUBES: usize = 48;

/// The most faces a polytope with a grid has: the build tests every face against every cube, and
/// a polytope of more faces has regions too narrow for cubes this size (a fitted hull of a few
/// hundred faces settles a fifth of them).
const MOST_FACES: usize = 128;

/// How far the grid reaches beyond the polytope's bounding cube on each side, in half sides of
/// that cube.
const GROWTH: f64 = 2.0;

/// The margin (per unit of the polytope's largest coordinate, at least 1) by which a settled
/// cube's corners pass a region's inequalities: far above the f32 rounding of the formulas and of
/// the lookup (a few 1e-7 per unit), and thin enough to lose few cubes.
const MARGIN: f64 = 1e-4;

/// How near a projection (in margins) a face plane counts as holding it, when the feature of a
/// corner's projection is named.
const HOLDING: f64 = 0.1;

/// Candidates a cube keeps at most.
pub(crate) const MOST_CANDIDATES: usize = 4;

/// The list of a cube with no candidate.
const OPEN: u16 = 0;

/// The list of a cube inside the polytope.
const INSIDE: u16 = 1;

/// A face, edge or vertex of a polytope, by its index there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Feature {
    /// A face (its polygon's interior).
    Face(usize),
    /// An edge of a face polygon, shared with the face across it.
    Edge(usize),
    /// A vertex.
    Vertex(usize),
}

/// What a cube says about its points.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum CubeAnswer<'a> {
    /// Inside the polytope, well within the tolerance.
    Inside,
    /// Outside, projected by this feature's formula.
    Settled(Feature),
    /// The features to test, in order.
    Candidates(&'a [u16]),
    /// Off the grid, not finite, or with no candidate: the walk decides.
    Open,
}

/// A cube's list: a settled feature, or candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct CubeList {
    settled: bool,
    count: u8,
    features: [u16; MOST_CANDIDATES],
}

/// The grid of cubes around one polytope (module docs).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FeatureCells {
    /// The grid's lower corner.
    origin: Vec3,
    /// Cubes per unit length.
    scale: f32,
    /// Per cube (`x` fastest): its list's index in `lists`.
    cubes: Vec<u16>,
    /// The distinct lists; [`OPEN`] and [`INSIDE`] first.
    lists: Vec<CubeList>,
    /// Faces and edges, to tell feature numbers apart: faces first, then edges, then vertices.
    faces: usize,
    edges: usize,
}

impl FeatureCells {
    /// The grid of `polytope`, whose nearest point to a point `x` outside is `project(x)`
    /// (`None` inside); `None` when it has more than [`MOST_FACES`] faces or no extent, or
    /// fewer than half of the cubes outside it are settled (module docs).
    pub(crate) fn new(
        polytope: PolytopeTables<'_>,
        project: impl Fn(Vec3) -> Option<Vec3> + Sync,
    ) -> Option<FeatureCells> {
        use rayon::prelude::*;
        let (faces, edges, vertices) = (
            polytope.normals.len(),
            polytope.edge_start.len(),
            polytope.vertices.len(),
        );
        if faces > MOST_FACES || vertices == 0 {
            return None;
        }
        let (low, high) = polytope
            .vertices
            .iter()
            .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v.as_dvec3()), hi.max(v.as_dvec3()))
            });
        let half = 0.5 * (high - low).max_element();
        if !(half > 0.0 && half.is_finite()) {
            return None;
        }
        let reach = half * (1.0 + GROWTH);
        // The lookup reads the grid in f32: the tests below use the same rounded corner.
        let origin = (0.5 * (low + high) - DVec3::splat(reach)).as_vec3();
        let scale = (CUBES as f64 / (2.0 * reach)) as f32;
        let size = 1.0 / f64::from(scale);
        let largest = (origin.abs().max_element() as f64 + 2.0 * reach).max(1.0);
        let settler = Settler {
            polytope,
            margin: MARGIN * largest,
            faces,
            edges,
        };
        let side = CUBES + 1;
        let vertex = |index: usize| {
            let (i, j, k) = (index % side, index / side % side, index / (side * side));
            origin.as_dvec3() + DVec3::new(i as f64, j as f64, k as f64) * size
        };
        let feature_of = |index: usize| {
            let nearest = project(vertex(index).as_vec3())?;
            settler.feature_at(nearest.as_dvec3())
        };
        let corner_index = |cube: usize, c: usize| {
            let (i, j, k) = (cube % CUBES, cube / CUBES % CUBES, cube / (CUBES * CUBES));
            (k + (c >> 2)) * side * side + (j + (c >> 1 & 1)) * side + i + (c & 1)
        };
        let settle = |cube: usize, found: &dyn Fn(usize) -> Option<u16>| {
            let corners: [DVec3; 8] = std::array::from_fn(|c| vertex(corner_index(cube, c)));
            let found: [Option<u16>; 8] = std::array::from_fn(|c| found(corner_index(cube, c)));
            settler.settle(&corners, size, &found)
        };
        // Where regions are narrow beside the cubes (a hull of many small faces), most cubes
        // keep candidates, and the tests that fail cost more than the settled cubes save: a
        // sample of every fourth cube along each axis tells, for 1/64 of the work.
        let sample: Vec<CubeList> = (0..CUBES * CUBES * CUBES)
            .filter(|&cube| {
                let (i, j, k) = (cube % CUBES, cube / CUBES % CUBES, cube / (CUBES * CUBES));
                i % 4 == 2 && j % 4 == 2 && k % 4 == 2
            })
            .collect::<Vec<usize>>()
            .into_par_iter()
            .map(|cube| settle(cube, &feature_of))
            .collect();
        if !mostly_settled(&sample) {
            return None;
        }
        // The feature holding each grid vertex's projection, shared by the cubes around it.
        let vertex_features: Vec<Option<u16>> = (0..side * side * side)
            .into_par_iter()
            .map(feature_of)
            .collect();
        let lists: Vec<CubeList> = (0..CUBES * CUBES * CUBES)
            .into_par_iter()
            .map(|cube| settle(cube, &|index| vertex_features[index]))
            .collect();
        if !mostly_settled(&lists) {
            return None;
        }
        // Many cubes share a list (every cube settled on one face, say).
        let mut distinct = vec![
            CubeList {
                settled: false,
                count: 0,
                features: [0; MOST_CANDIDATES],
            };
            2
        ];
        let mut numbers = std::collections::HashMap::new();
        let mut cubes = Vec::with_capacity(lists.len());
        for list in lists {
            let code = match (list.settled, list.count) {
                (false, 0) => OPEN,
                (true, 0) => INSIDE,
                _ => *numbers.entry(list).or_insert_with(|| {
                    distinct.push(list);
                    distinct.len() - 1
                }) as u16,
            };
            if distinct.len() > usize::from(u16::MAX) {
                return None;
            }
            cubes.push(code);
        }
        Some(FeatureCells {
            origin,
            scale,
            cubes,
            lists: distinct,
            faces,
            edges,
        })
    }

    /// What the cube holding `x` says.
    #[inline(always)]
    pub(crate) fn answer(&self, x: Vec3) -> CubeAnswer<'_> {
        let at = (x - self.origin) * self.scale;
        // A NaN fails both comparisons.
        if !(at.min_element() >= 0.0 && at.max_element() < CUBES as f32) {
            return CubeAnswer::Open;
        }
        let (i, j, k) = (at.x as usize, at.y as usize, at.z as usize);
        match self.cubes[(k * CUBES + j) * CUBES + i] {
            OPEN => CubeAnswer::Open,
            INSIDE => CubeAnswer::Inside,
            code => {
                let list = &self.lists[usize::from(code)];
                if list.settled {
                    CubeAnswer::Settled(self.feature(list.features[0]))
                } else {
                    CubeAnswer::Candidates(&list.features[..usize::from(list.count)])
                }
            }
        }
    }

    /// The feature numbered `number`.
    #[inline(always)]
    pub(crate) fn feature(&self, number: u16) -> Feature {
        let number = usize::from(number);
        if number < self.faces {
            Feature::Face(number)
        } else if number < self.faces + self.edges {
            Feature::Edge(number - self.faces)
        } else {
            Feature::Vertex(number - self.faces - self.edges)
        }
    }

    /// The shares of cubes inside, settled on a feature, and with candidates (tests and
    /// benches).
    pub(crate) fn shares(&self) -> [f64; 3] {
        let count = |keep: &dyn Fn(u16) -> bool| {
            self.cubes.iter().filter(|&&c| keep(c)).count() as f64 / self.cubes.len() as f64
        };
        [
            count(&|c| c == INSIDE),
            count(&|c| c > INSIDE && self.lists[usize::from(c)].settled),
            count(&|c| c > INSIDE && !self.lists[usize::from(c)].settled),
        ]
    }
}

/// Whether at least half of the cubes outside the polytope among `lists` are settled (module
/// docs).
fn mostly_settled(lists: &[CubeList]) -> bool {
    let outside = lists
        .iter()
        .filter(|l| !(l.settled && l.count == 0))
        .count();
    let settled = lists.iter().filter(|l| l.settled && l.count == 1).count();
    2 * settled >= outside
}

/// Settles the cubes of one polytope.
struct Settler<'a> {
    polytope: PolytopeTables<'a>,
    margin: f64,
    faces: usize,
    edges: usize,
}

impl Settler<'_> {
    /// The height of `x` above face `face`'s plane.
    fn height(&self, face: usize, x: DVec3) -> f64 {
        self.polytope.normals[face].as_dvec3().dot(x) - f64::from(self.polytope.offsets[face])
    }

    /// The number of the feature holding `nearest`, the projection of some point: the face
    /// whose plane alone holds it, the edge between the two, or the vertex where three or more
    /// meet; `None` where they do not fit together.
    fn feature_at(&self, nearest: DVec3) -> Option<u16> {
        let p = &self.polytope;
        let holding = HOLDING * self.margin;
        let mut faces = (0..self.faces).filter(|&f| self.height(f, nearest).abs() <= holding);
        let first = faces.next()?;
        let Some(second) = faces.next() else {
            return Some(first as u16);
        };
        let edges = |face: usize| p.edge_range[face] as usize..p.edge_range[face + 1] as usize;
        if faces.next().is_none() {
            return edges(first)
                .find(|&e| {
                    let twin = p.edge_twin[e];
                    twin != u32::MAX && p.edge_face[twin as usize] as usize == second
                })
                .map(|e| (self.faces + e) as u16);
        }
        let vertex = edges(first)
            .map(|e| p.edge_ends[e][0] as usize)
            .min_by(|&a, &b| {
                let distance = |v: usize| p.vertices[v].as_dvec3().distance_squared(nearest);
                distance(a).total_cmp(&distance(b))
            })?;
        (p.vertices[vertex].as_dvec3().distance(nearest) <= holding)
            .then_some((self.faces + self.edges + vertex) as u16)
    }

    /// The list of the cube with these corners (lowest first, then `x`, `y`, `z` in turn),
    /// whose side is `size` and whose corners' projections lie on the features `found`.
    fn settle(&self, corners: &[DVec3; 8], size: f64, found: &[Option<u16>; 8]) -> CubeList {
        let p = &self.polytope;
        // Heights are linear, so each face's extremes over the cube lie at corners, one step
        // of `size` along each axis from the lowest, up or down by the normal's signs.
        let (mut highest, mut clearly_outside) = (f64::NEG_INFINITY, false);
        for face in 0..self.faces {
            let n = p.normals[face].as_dvec3();
            let at_low = self.height(face, corners[0]);
            let up = size * (n.x.max(0.0) + n.y.max(0.0) + n.z.max(0.0));
            let down = size * (n.x.min(0.0) + n.y.min(0.0) + n.z.min(0.0));
            highest = highest.max(at_low + up);
            clearly_outside |= at_low + down >= self.margin;
        }
        let mut list = CubeList {
            settled: false,
            count: 0,
            features: [0; MOST_CANDIDATES],
        };
        if highest <= -self.margin {
            list.settled = true;
            return list;
        }
        // The corners' features, most frequent first.
        let mut tally: Vec<(u16, usize)> = Vec::with_capacity(8);
        for feature in found.iter().flatten() {
            match tally.iter_mut().find(|(f, _)| f == feature) {
                Some((_, count)) => *count += 1,
                None => tally.push((*feature, 1)),
            }
        }
        tally.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let candidates: Vec<u16> = tally
            .iter()
            .map(|&(f, _)| f)
            .filter(|&f| self.may_hold(f))
            .take(MOST_CANDIDATES)
            .collect();
        if clearly_outside
            && let Some(&settled) = candidates
                .iter()
                .find(|&&f| corners.iter().all(|&x| self.holds(f, x)))
        {
            list.settled = true;
            list.count = 1;
            list.features[0] = settled;
            return list;
        }
        list.count = candidates.len() as u8;
        list.features[..candidates.len()].copy_from_slice(&candidates);
        list
    }

    /// Whether feature `number` has a region the runtime test knows: every face; an edge with
    /// a face across it and a direction; a vertex whose faces close up around it, whose every
    /// leaving edge has a direction.
    fn may_hold(&self, number: u16) -> bool {
        let p = &self.polytope;
        let number = usize::from(number);
        if number < self.faces {
            return true;
        }
        if number < self.faces + self.edges {
            let edge = number - self.faces;
            return p.edge_twin[edge] != u32::MAX && p.edge_direction[edge] != Vec3::ZERO;
        }
        let vertex = number - self.faces - self.edges;
        p.closed_fan[vertex]
            && (p.leaving_range[vertex] as usize..p.leaving_range[vertex + 1] as usize)
                .all(|i| p.edge_direction[p.leaving[i] as usize] != Vec3::ZERO)
    }

    /// Whether `x` lies in the region of feature `number` by the margin (module docs), with
    /// every face plane the region asks `x` to rise above risen above by the margin.
    fn holds(&self, number: u16, x: DVec3) -> bool {
        let p = &self.polytope;
        let number = usize::from(number);
        let margin = self.margin;
        let inward = |edge: usize, from: DVec3| (x - from).dot(p.edge_inward[edge].as_dvec3());
        if number < self.faces {
            let face = number;
            return self.height(face, x) >= margin
                && (p.edge_range[face] as usize..p.edge_range[face + 1] as usize)
                    .all(|e| inward(e, p.edge_start[e].as_dvec3()) >= margin);
        }
        if number < self.faces + self.edges {
            let edge = number - self.faces;
            let twin = p.edge_twin[edge] as usize;
            let start = p.edge_start[edge].as_dvec3();
            let along = (x - start).dot(p.edge_direction[edge].as_dvec3());
            let length = p.edge_vector[edge].as_dvec3().length();
            let above = self
                .height(p.edge_face[edge] as usize, x)
                .max(self.height(p.edge_face[twin] as usize, x));
            return along >= margin
                && along <= length - margin
                && inward(edge, start) <= -margin
                && inward(twin, start) <= -margin
                && above >= margin;
        }
        let vertex = number - self.faces - self.edges;
        let at = p.vertices[vertex].as_dvec3();
        let leaving = (p.leaving_range[vertex] as usize..p.leaving_range[vertex + 1] as usize)
            .map(|i| p.leaving[i] as usize);
        let mut above = f64::NEG_INFINITY;
        for e in leaving {
            if (x - at).dot(p.edge_direction[e].as_dvec3()) > -margin {
                return false;
            }
            above = above.max(self.height(p.edge_face[e] as usize, x));
        }
        above >= margin
    }
}
