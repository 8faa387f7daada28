//! A convex polytope with an exact nearest-point projection, the runtime half of the k-DOP and
//! convex-hull shapes.
//!
//! The region is `{x : nᵢ·x ≤ bᵢ}` with one polygon per face. For an outside point `x`, the nearest
//! point `y` lies on a face `i` with positive height `hᵢ = nᵢ·x − bᵢ > 0`: writing `x − y` as a
//! non-negative combination of the normals of the faces meeting at `y` and dotting with `x − y`
//! shows that at least one of those faces sees `x`. So the projection scans the heights, and for
//! each face that sees `x` takes the nearest point of that face polygon:
//! - if the foot `x − hᵢnᵢ` lies inside the polygon, it is the answer (then `x − y` is a normal of
//!   the region at `y`, which characterises the projection), and the scan stops;
//! - otherwise the nearest point of the polygon's edges that the foot lies beyond.
//!
//! The minimum over the visible faces is the exact projection, unlike clamping slab by slab.
//!
//! Inside means within [`Polytope::INSIDE_TOLERANCE`] of every plane, but once a point is outside,
//! every face it rises above at all is a candidate: rounded heights differ by about the tolerance,
//! so a point may read outside a neighbour and inside the face that holds its projection.
//!
//! That scan examines every visible face, hundreds for a hull seen from far away, so the
//! projection first walks: from a face `x` rises above (the highest, or near it), take the
//! nearest point `y` of the face polygon and test the optimality condition of a convex
//! projection there, `(x − y)·t ≤ 0` for every direction `t` of the tangent cone at `y` (a face's
//! interior: `x` above the face; an edge: the inward direction of the face across it; a vertex:
//! each edge leaving it), and one of the faces at `y` sees `x` (where those faces are nearly
//! coplanar, their edges span little more than a plane, and a point below it would pass the tangent
//! tests). When it holds, `y` is the projection, exactly; otherwise the violated
//! direction names a neighbouring face holding a strictly nearer point, and the walk moves there.
//! It usually ends within a few faces; where it cannot decide (a face `x` is below, a step
//! limit, a vertex whose faces do not close up around it or that an edge too short for any
//! direction leaves: where several planes nearly meet, polygons can meet at copies of one
//! point), the scan answers. Edge directions are formed in f64, so an edge shorter than f32
//! resolves keeps its true direction.
//!
//! Finding the highest face would scan every plane again, so the walk starts from a face looked
//! up instead: near the polytope, the highest of the few planes its cell grid says decide there
//! (then the highest of all), or the plane rejecting the point's cell by the most; farther away,
//! the face turned most nearly towards the point (`super::support_faces`), or the highest
//! plane the grid cell nearest it names. A start face is used only when the point's own height
//! above it shows the point outside, so the verdict stays the full scan's, bit for bit; the walk
//! proves its answer from any start.
//!
//! A polytope projected many times (a prepared limit, a crowd) builds once a grid of
//! cubes around it that names, per cube, the face, edge or vertex holding its points'
//! projections, or a few candidates to test ([`super::feature_cells`]); a point whose cube
//! answers skips the lookups and the walk: one load, a few dot products, and the feature's own
//! formula, the walk's.

use glam::{DVec3, Vec3};

use std::sync::Arc;

use super::feature_cells::{CubeAnswer, Feature, FeatureCells};
use super::plane_cells::{CellVerdict, PlaneCells};
use super::support_faces::SupportFaces;
use crate::derived::Derived;
use crate::fit::convex_hull::{HullError, HullPolygons, convex_hull};
use crate::fit::halfspace_intersection::halfspace_intersection;

/// Faces whose heights are computed together: eight lanes, one AVX or two SSE instructions per
/// step.
const GROUP: usize = 8;

/// [`GROUP`] face planes as structure-of-arrays, so that the heights of a point above all of them
/// come out of one vectorised step. Lanes past the last face hold a plane no finite point rises
/// above (`0·x − f32::MAX`).
#[derive(Clone, Debug, PartialEq)]
struct PlaneGroup {
    x: [f32; GROUP],
    y: [f32; GROUP],
    z: [f32; GROUP],
    offset: [f32; GROUP],
}

impl PlaneGroup {
    const EMPTY: PlaneGroup = PlaneGroup {
        x: [0.0; GROUP],
        y: [0.0; GROUP],
        z: [0.0; GROUP],
        offset: [f32::MAX; GROUP],
    };

    /// `nᵢ·p − bᵢ` for each face of the group, summed in the order of `Vec3::dot` so that every
    /// path sees the same bits.
    #[inline(always)]
    fn heights(&self, p: Vec3) -> [f32; GROUP] {
        std::array::from_fn(|i| {
            self.x[i] * p.x + self.y[i] * p.y + self.z[i] * p.z - self.offset[i]
        })
    }

    /// Which lanes `p` rises above by more than `threshold` (NaN heights count as above), as
    /// bits.
    #[inline(always)]
    fn seen_from(&self, p: Vec3, threshold: f32) -> (u32, [f32; GROUP]) {
        let heights = self.heights(p);
        let above = heights.map(|h| u8::from(h > threshold || h.is_nan()));
        // One byte per lane (0 or 1) gathered into one bit per lane: the multiplication adds
        // byte i, shifted by 7 − i within the top byte, so lane i lands on bit i.
        let bytes = u64::from_le_bytes(above);
        let seen = (bytes.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
        (seen, heights)
    }
}

/// A convex polytope in f32 with precomputed face planes and polygon edges.
#[derive(Clone, Debug, PartialEq)]
pub struct Polytope {
    normals: Vec<Vec3>,
    offsets: Vec<f32>,
    /// The same planes, grouped for the vectorised height scan.
    plane_groups: Vec<PlaneGroup>,
    /// Which few planes decide the inside test near each point of the bounding box.
    cells: Option<PlaneCells>,
    /// The face turned most nearly towards each direction from the bounding box's middle.
    support: Option<SupportFaces>,
    /// The grid of cubes naming the features that hold their points' projections, once
    /// [`Polytope::build_searches`] has run (`None` inside when there are too many features
    /// to number). Shared by every clone, so a limit and the prepared limit, crowd or limiter
    /// made from a clone of it answer alike, bit for bit, once any of them has built it.
    features: Arc<Derived<Option<FeatureCells>>>,
    /// `edge_range[i]..edge_range[i + 1]` are face `i`'s edges.
    edge_range: Vec<u32>,
    edge_start: Vec<Vec3>,
    edge_vector: Vec<Vec3>,
    /// In the face plane, perpendicular to the edge, pointing into the polygon.
    edge_inward: Vec<Vec3>,
    /// The edge's unit direction from its start to its end, formed in f64 before rounding: an
    /// edge far shorter than f32 resolves (where several planes nearly meet) keeps its true
    /// direction, which the difference of its rounded ends loses. Zero for an edge too short
    /// to have one ([`TINY_EDGE`]).
    edge_direction: Vec<Vec3>,
    /// The face each edge belongs to.
    edge_face: Vec<u32>,
    /// The vertices each edge runs between, in the face's counter-clockwise order.
    edge_ends: Vec<[u32; 2]>,
    /// The same edge in the face across it, run the other way ([`NO_TWIN`] when the polygons
    /// do not meet edge to edge there).
    edge_twin: Vec<u32>,
    /// `leaving_range[v]..leaving_range[v + 1]` index `leaving`: the edges starting at vertex
    /// `v`, one per neighbouring vertex.
    leaving_range: Vec<u32>,
    leaving: Vec<u32>,
    /// Whether the faces around each vertex close up: at least three edges leave it and every
    /// edge at it has a twin. Only then do the edges leaving it span its tangent cone; a walk
    /// reaching any other vertex (where polygons meet at copies of one point) leaves the answer
    /// to the scan.
    closed_fan: Vec<bool>,
    vertices: Vec<Vec3>,
    /// The largest vertex distance from the origin of the polytope's coordinates.
    reach: f32,
}

impl Polytope {
    /// Height above a face below which a point still counts as inside, in radians: f32 rounding
    /// of coordinates up to about 2π.
    pub const INSIDE_TOLERANCE: f32 = 2e-6;

    /// The largest distance of a point of the polytope from the origin of its coordinates.
    #[inline]
    pub fn reach(&self) -> f32 {
        self.reach
    }

    /// The convex hull of `points` (f64), which must span a volume.
    pub fn hull(points: &[DVec3]) -> Result<Polytope, HullError> {
        Ok(Polytope::from_polygons(&convex_hull(points)?))
    }

    /// The polytope `{x : dᵢ·x ≤ boundᵢ}`, which must be bounded and have a volume; every face
    /// keeps its exact plane (see [`halfspace_intersection`]).
    pub fn from_halfspaces(directions: &[DVec3], bounds: &[f64]) -> Result<Polytope, HullError> {
        Ok(Polytope::from_polygons(&halfspace_intersection(
            directions, bounds,
        )?))
    }

    fn from_polygons(hull: &HullPolygons) -> Polytope {
        let mut polytope = Polytope {
            normals: Vec::with_capacity(hull.faces.len()),
            offsets: Vec::with_capacity(hull.faces.len()),
            plane_groups: Vec::new(),
            cells: None,
            support: None,
            features: Arc::new(Derived::new()),
            edge_range: vec![0],
            edge_start: Vec::new(),
            edge_vector: Vec::new(),
            edge_inward: Vec::new(),
            edge_direction: Vec::new(),
            edge_face: Vec::new(),
            edge_ends: Vec::new(),
            edge_twin: Vec::new(),
            leaving_range: Vec::new(),
            leaving: Vec::new(),
            closed_fan: Vec::new(),
            vertices: hull.vertices.iter().map(|v| v.as_vec3()).collect(),
            reach: hull.vertices.iter().map(|v| v.length()).fold(0.0, f64::max) as f32,
        };
        for (face, &normal) in hull.faces.iter().zip(&hull.normals) {
            // Over every vertex, not just the face's own: a sliver face's rounded normal may tilt,
            // and the plane must still hold the whole hull.
            let offset = hull
                .vertices
                .iter()
                .map(|&v| normal.dot(v))
                .fold(f64::NEG_INFINITY, f64::max);
            polytope.normals.push(normal.as_vec3());
            polytope.offsets.push(offset as f32);
            for (k, &v) in face.iter().enumerate() {
                let start = hull.vertices[v];
                let end = hull.vertices[face[(k + 1) % face.len()]];
                polytope.edge_start.push(start.as_vec3());
                polytope.edge_vector.push((end - start).as_vec3());
                polytope
                    .edge_inward
                    .push(normal.cross(end - start).normalize_or_zero().as_vec3());
                let length = (end - start).length();
                polytope.edge_direction.push(if length > TINY_EDGE {
                    ((end - start) / length).as_vec3()
                } else {
                    Vec3::ZERO
                });
                polytope.edge_face.push(polytope.normals.len() as u32 - 1);
                polytope
                    .edge_ends
                    .push([v as u32, face[(k + 1) % face.len()] as u32]);
            }
            polytope.edge_range.push(polytope.edge_start.len() as u32);
        }
        polytope.plane_groups = polytope
            .normals
            .chunks(GROUP)
            .zip(polytope.offsets.chunks(GROUP))
            .map(|(normals, offsets)| {
                let mut group = PlaneGroup::EMPTY;
                for (i, (n, &b)) in normals.iter().zip(offsets).enumerate() {
                    (group.x[i], group.y[i], group.z[i], group.offset[i]) = (n.x, n.y, n.z, b);
                }
                group
            })
            .collect();
        polytope.link_edges();
        polytope.cells = PlaneCells::new(&polytope.normals, &polytope.offsets, &polytope.vertices);
        let (low, high) = polytope
            .vertices
            .iter()
            .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), &v| {
                (lo.min(v), hi.max(v))
            });
        polytope.support = SupportFaces::new(&polytope.normals, 0.5 * (low + high));
        polytope
    }

    /// Pairs each edge with its twin and lists the edges leaving each vertex, for the walk.
    fn link_edges(&mut self) {
        let by_ends: std::collections::HashMap<[u32; 2], u32> = (0..self.edge_ends.len() as u32)
            .map(|e| (self.edge_ends[e as usize], e))
            .collect();
        self.edge_twin = self
            .edge_ends
            .iter()
            .map(|&[from, to]| by_ends.get(&[to, from]).copied().unwrap_or(NO_TWIN))
            .collect();
        let mut leaving: Vec<(u32, u32)> = (0..self.edge_ends.len() as u32)
            .map(|e| (self.edge_ends[e as usize][0], e))
            .collect();
        leaving.sort_unstable();
        self.leaving_range = vec![0; self.vertices.len() + 1];
        for &(from, _) in &leaving {
            self.leaving_range[from as usize + 1] += 1;
        }
        for v in 0..self.vertices.len() {
            self.leaving_range[v + 1] += self.leaving_range[v];
        }
        self.leaving = leaving.into_iter().map(|(_, e)| e).collect();
        self.closed_fan = (0..self.vertices.len())
            .map(|v| self.leaving_range[v + 1] - self.leaving_range[v] >= 3)
            .collect();
        for (e, &twin) in self.edge_twin.iter().enumerate() {
            if twin == NO_TWIN {
                for end in self.edge_ends[e] {
                    self.closed_fan[end as usize] = false;
                }
            }
        }
    }

    /// Whether the inside test has its cell grid (tests).
    #[cfg(test)]
    pub(crate) fn has_cells(&self) -> bool {
        self.cells.is_some()
    }

    /// The number of faces.
    pub fn face_count(&self) -> usize {
        self.normals.len()
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The precomputed faces, edges and vertices the projection's walk reads (module docs), for
    /// another evaluator of it (a GPU kernel).
    pub fn tables(&self) -> PolytopeTables<'_> {
        PolytopeTables {
            normals: &self.normals,
            offsets: &self.offsets,
            edge_range: &self.edge_range,
            edge_start: &self.edge_start,
            edge_vector: &self.edge_vector,
            edge_inward: &self.edge_inward,
            edge_direction: &self.edge_direction,
            edge_face: &self.edge_face,
            edge_ends: &self.edge_ends,
            edge_twin: &self.edge_twin,
            leaving_range: &self.leaving_range,
            leaving: &self.leaving,
            closed_fan: &self.closed_fan,
            vertices: &self.vertices,
        }
    }

    /// Each face's outward unit normal and offset: the region is `n·x ≤ offset` for all faces.
    pub fn planes(&self) -> impl Iterator<Item = (Vec3, f32)> + '_ {
        self.normals
            .iter()
            .copied()
            .zip(self.offsets.iter().copied())
    }

    /// Whether `x` is inside (within a rounding tolerance).
    #[inline]
    pub fn contains(&self, x: Vec3) -> bool {
        match self.start(x) {
            Start::Inside => true,
            Start::Above(_) => false,
            Start::Unknown => self
                .plane_groups
                .iter()
                .all(|group| group.seen_from(x, Self::INSIDE_TOLERANCE).0 == 0),
        }
    }

    /// What the lookups say about `x` (module docs): inside, outside with a face it rises
    /// above to start the walk from, or nothing (the full scan decides).
    #[inline]
    fn start(&self, x: Vec3) -> Start {
        let seen = |face: u16| {
            let face = usize::from(face);
            if self.height(face, x) > Self::INSIDE_TOLERANCE {
                Start::Above(face)
            } else {
                Start::Unknown
            }
        };
        let Some(cells) = &self.cells else {
            return Start::Unknown;
        };
        match cells.verdict(x) {
            CellVerdict::Decided(planes) => {
                // The planes left out hold the whole cell: when one of these is above the
                // tolerance, the highest of them is the highest of all.
                match self.highest_of(planes, x) {
                    Some(face) => Start::Above(face),
                    None => Start::Inside,
                }
            }
            CellVerdict::Outside(face) => seen(face),
            CellVerdict::Unknown if !x.is_finite() => Start::Unknown,
            CellVerdict::Unknown => {
                // Off the grid: the face turned towards the point, or else (for points just
                // off the grid, beside the polytope) what the nearest cell names.
                if let Some(support) = &self.support
                    && let Start::Above(face) = seen(support.towards(x))
                {
                    return Start::Above(face);
                }
                match cells.nearest_cell(x) {
                    CellVerdict::Outside(face) => seen(face),
                    CellVerdict::Decided(planes) => self
                        .highest_of(planes, x)
                        .map_or(Start::Unknown, Start::Above),
                    CellVerdict::Unknown => Start::Unknown,
                }
            }
        }
    }

    /// The face of `faces` that `x` rises highest above, when that is above the tolerance.
    #[inline]
    fn highest_of(&self, faces: &[u16], x: Vec3) -> Option<usize> {
        let (mut highest, mut most) = (None, Self::INSIDE_TOLERANCE);
        for &face in faces {
            let height = self.height(usize::from(face), x);
            if height > most {
                (highest, most) = (Some(usize::from(face)), height);
            }
        }
        highest
    }

    /// `x`'s height above face `face`, formed as in the full scan so that verdicts agree.
    #[inline(always)]
    fn height(&self, face: usize, x: Vec3) -> f32 {
        self.normals[face].dot(x) - self.offsets[face]
    }

    /// [`Polytope::project`] for a polytope stored in `frame` coordinates, on a limit-space point.
    #[inline]
    pub fn project_in_frame(&self, frame: &super::Frame, p: Vec3) -> super::Projection {
        match self.project(frame.to_local(p)) {
            None => super::Projection::unchanged(p),
            Some(local) => super::Projection::moved(p, frame.to_world(local)),
        }
    }

    /// Builds the grid of cubes naming the feature that holds the projection of their points
    /// ([`super::feature_cells`]): a few tens of milliseconds and a few hundred kilobytes, for
    /// limits projected many times.
    pub fn build_searches(&self) {
        self.features
            .get_or_build(|| FeatureCells::new(self.tables(), |x| self.project(x)));
    }

    /// The settled cubes, once built.
    #[inline(always)]
    fn feature_cells(&self) -> Option<&FeatureCells> {
        self.features.get().and_then(Option::as_ref)
    }

    /// The shares of the feature grid's cubes that are inside, settled on a feature, and
    /// with candidates to test, once built (benches).
    pub fn feature_cube_shares(&self) -> Option<[f64; 3]> {
        self.feature_cells().map(FeatureCells::shares)
    }

    /// The nearest point of `feature`'s face plane, edge line or vertex to `x`: the formulas
    /// of the walk.
    #[inline(always)]
    fn onto(&self, feature: Feature, x: Vec3) -> Vec3 {
        match feature {
            Feature::Face(face) => x - self.normals[face] * self.height(face, x),
            Feature::Edge(edge) => {
                let (start, vector) = (self.edge_start[edge], self.edge_vector[edge]);
                start + vector * ((x - start).dot(vector) / vector.length_squared())
            }
            Feature::Vertex(vertex) => self.vertices[vertex],
        }
    }

    /// Whether `x`, as computed, lies in `feature`'s region and above one of its faces by more
    /// than the inside tolerance ([`super::feature_cells`]): then its projection is
    /// [`Polytope::onto`] that feature, and the inside test calls it outside.
    #[inline(always)]
    fn holds(&self, feature: Feature, x: Vec3) -> bool {
        match feature {
            Feature::Face(face) => {
                self.height(face, x) > Self::INSIDE_TOLERANCE
                    && (self.edge_range[face] as usize..self.edge_range[face + 1] as usize)
                        .all(|e| (x - self.edge_start[e]).dot(self.edge_inward[e]) >= 0.0)
            }
            Feature::Edge(edge) => {
                let twin = self.edge_twin[edge] as usize;
                let (start, vector) = (self.edge_start[edge], self.edge_vector[edge]);
                let from = x - start;
                let along = from.dot(vector);
                let faces = [self.edge_face[edge] as usize, self.edge_face[twin] as usize];
                along >= 0.0
                    && along <= vector.length_squared()
                    && from.dot(self.edge_inward[edge]) <= 0.0
                    && from.dot(self.edge_inward[twin]) <= 0.0
                    && faces
                        .into_iter()
                        .any(|f| self.height(f, x) > Self::INSIDE_TOLERANCE)
            }
            Feature::Vertex(vertex) => {
                let from = x - self.vertices[vertex];
                let mut above = false;
                for e in self.edges_leaving(vertex) {
                    if from.dot(self.edge_direction[e]) > 0.0 {
                        return false;
                    }
                    above |= self.height(self.edge_face[e] as usize, x) > Self::INSIDE_TOLERANCE;
                }
                above
            }
        }
    }

    /// The nearest point of the polytope to `x`, or `None` when `x` is inside: from the
    /// feature its cube names, once [`Polytope::build_searches`] has run and where the cube
    /// is settled; otherwise by the walk of `Polytope::walk` from a face `x` rises above
    /// (looked up, or the highest), or by the scan of every visible face where the walk
    /// cannot decide (see the module docs).
    #[inline]
    pub fn project(&self, x: Vec3) -> Option<Vec3> {
        if let Some(cells) = self.feature_cells() {
            match cells.answer(x) {
                CubeAnswer::Inside => return None,
                CubeAnswer::Settled(feature) => return Some(self.onto(feature, x)),
                CubeAnswer::Candidates(numbers) => {
                    for &number in numbers {
                        let feature = cells.feature(number);
                        if self.holds(feature, x) {
                            return Some(self.onto(feature, x));
                        }
                    }
                }
                CubeAnswer::Open => {}
            }
        }
        let start = match self.start(x) {
            Start::Inside => return None,
            Start::Above(face) => face,
            Start::Unknown => {
                let (highest, height) = self.highest_face(x);
                if height.is_nan() {
                    return self.project_by_scan(x);
                }
                if height <= Self::INSIDE_TOLERANCE {
                    return None;
                }
                highest
            }
        };
        self.walk(start, x).or_else(|| self.project_by_scan(x))
    }

    /// The face `x` rises highest above, and its height (NaN when `x` is not finite).
    #[inline]
    fn highest_face(&self, x: Vec3) -> (usize, f32) {
        if !x.is_finite() {
            return (0, f32::NAN);
        }
        // A running maximum per lane and the group it came from, in vector registers; the
        // lanes are compared once at the end.
        let mut highest = [f32::NEG_INFINITY; GROUP];
        let mut group_of = [0u32; GROUP];
        for (index, group) in self.plane_groups.iter().enumerate() {
            let heights = group.heights(x);
            for lane in 0..GROUP {
                let higher = heights[lane] > highest[lane];
                highest[lane] = if higher { heights[lane] } else { highest[lane] };
                group_of[lane] = if higher { index as u32 } else { group_of[lane] };
            }
        }
        let lane = (1..GROUP).fold(0, |best, lane| {
            if highest[lane] > highest[best] {
                lane
            } else {
                best
            }
        });
        (group_of[lane] as usize * GROUP + lane, highest[lane])
    }

    /// From `face`, the projection of the outside point `x` proven by the optimality condition
    /// (see the module docs), or `None` when the walk cannot decide.
    #[inline]
    fn walk(&self, mut face: usize, x: Vec3) -> Option<Vec3> {
        for _ in 0..WALK_STEPS {
            let height = self.normals[face].dot(x) - self.offsets[face];
            let Some(EdgePoint { edge, .. }) = self.nearest_edge_point(face, x, height) else {
                // The foot lies on the polygon: the projection when `x` is above the face. Above
                // by any amount: a point the tolerance calls outside may still read within it
                // of the face holding its projection (rounded heights differ by about it).
                return (height > 0.0).then(|| x - self.normals[face] * height);
            };
            // The nearest point of the edge to `x` itself, so that `x − y` is square to the
            // edge even where a polygon merged from nearly coplanar triangles is not quite flat.
            let (start, vector) = (self.edge_start[edge], self.edge_vector[edge]);
            let along = (x - start).dot(vector) / vector.length_squared().max(f32::MIN_POSITIVE);
            let across = if along > 0.0 && along < 1.0 {
                // Inside the edge: the tangent directions are along it, into this face and into
                // the face across it.
                let y = start + vector * along;
                let away = x - y;
                let slack = OPTIMALITY_SLACK * away.length();
                if away.dot(self.edge_inward[edge]) > slack {
                    return None;
                }
                let twin = self.edge_twin[edge];
                if twin == NO_TWIN {
                    return None;
                }
                let twin = twin as usize;
                if away.dot(self.edge_inward[twin]) <= slack {
                    // Both inward directions turn away from `x`. Where the two faces are nearly
                    // coplanar these span only the plane, not the tangent wedge below it, so
                    // one of the faces must also see `x` (see `seen_at`).
                    let faces = [face, self.edge_face[twin] as usize];
                    return self.seen_at(faces, away, slack).then_some(y);
                }
                self.edge_face[twin]
            } else {
                let vertex = self.edge_ends[edge][usize::from(along >= 1.0)] as usize;
                if !self.closed_fan[vertex] {
                    return None;
                }
                let at = self.vertices[vertex];
                let slack = OPTIMALITY_SLACK * (x - at).length();
                let mut uphill = None;
                for e in self.edges_leaving(vertex) {
                    let direction = self.edge_direction[e];
                    if direction == Vec3::ZERO {
                        // A vertex a hair from its neighbour: the two share one tangent cone,
                        // which neither's own edges span. The scan decides.
                        return None;
                    }
                    if uphill.is_none() && (x - at).dot(direction) > slack {
                        uphill = Some(e);
                    }
                }
                match uphill {
                    Some(e) => self.edge_face[e],
                    // Every edge leaving the vertex turns away from `x`, and (for faces around
                    // it that are nearly coplanar, whose edges span little more than a plane)
                    // a face there sees `x`.
                    None => {
                        let faces = self
                            .edges_leaving(vertex)
                            .map(|e| self.edge_face[e] as usize);
                        return self.seen_at(faces, x - at, slack).then_some(at);
                    }
                }
            };
            face = across as usize;
        }
        None
    }

    /// Whether one of `faces`, all meeting at a boundary point `y`, sees `x` from there:
    /// `nᵢ·(x − y) > −slack` for `away = x − y`. A necessary condition of `y` being the
    /// projection (`x − y` is then a non-negative combination of those normals: module docs)
    /// that the tangent directions alone do not test where the faces are nearly coplanar: their
    /// edges and inward directions then span a plane, and a point below it passes their tests.
    #[inline]
    fn seen_at(&self, faces: impl IntoIterator<Item = usize>, away: Vec3, slack: f32) -> bool {
        faces
            .into_iter()
            .any(|face| away.dot(self.normals[face]) > -slack)
    }

    /// The edges leaving `vertex`.
    #[inline]
    fn edges_leaving(&self, vertex: usize) -> impl Iterator<Item = usize> + '_ {
        let range = self.leaving_range[vertex] as usize..self.leaving_range[vertex + 1] as usize;
        self.leaving[range].iter().map(|&e| e as usize)
    }

    /// The projection by examining every face `x` rises above (see the module docs).
    fn project_by_scan(&self, x: Vec3) -> Option<Vec3> {
        let mut best: Option<Vec3> = None;
        for (index, group) in self.plane_groups.iter().enumerate() {
            let (mut seen, heights) = group.seen_from(x, 0.0);
            while seen != 0 {
                let lane = seen.trailing_zeros() as usize;
                seen &= seen - 1;
                let face = index * GROUP + lane;
                if face >= self.normals.len() {
                    break;
                }
                let Some(candidate) = self.nearest_on_face(face, x, heights[lane]) else {
                    return Some(x - self.normals[face] * heights[lane]);
                };
                // |x − b|² − |x − c|² = (c − b)·(2x − b − c), formed from differences so that
                // far from the polytope, where both squared distances round alike, the nearer
                // still wins.
                if best.is_none_or(|b| (candidate - b).dot((x - b) + (x - candidate)) > 0.0) {
                    best = Some(candidate);
                }
            }
        }
        best
    }

    /// For a face `height` below `x`: `None` when the foot `x − height·n` lies on the face
    /// polygon (then the foot is the nearest point of the polygon), otherwise the nearest point
    /// of the polygon's edges that the foot lies beyond.
    #[inline]
    fn nearest_on_face(&self, face: usize, x: Vec3, height: f32) -> Option<Vec3> {
        self.nearest_edge_point(face, x, height)
            .map(|found| found.point)
    }

    /// [`Polytope::nearest_on_face`], saying on which edge the point lies.
    #[inline]
    fn nearest_edge_point(&self, face: usize, x: Vec3, height: f32) -> Option<EdgePoint> {
        let foot = x - self.normals[face] * height;
        let edges = self.edge_range[face] as usize..self.edge_range[face + 1] as usize;
        let mut nearest: Option<(f32, EdgePoint)> = None;
        for edge in edges {
            let from_start = foot - self.edge_start[edge];
            if from_start.dot(self.edge_inward[edge]) >= 0.0 {
                continue;
            }
            let v = self.edge_vector[edge];
            let along =
                (from_start.dot(v) / v.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
            let point = self.edge_start[edge] + v * along;
            let d = point.distance_squared(foot);
            if nearest.is_none_or(|(best, _)| d < best) {
                nearest = Some((d, EdgePoint { point, edge }));
            }
        }
        nearest.map(|(_, found)| found)
    }
}

/// A [`Polytope`]'s faces, polygon edges and vertices as its projection reads them (module
/// docs): face `i`'s edges are `edge_range[i]..edge_range[i + 1]`, in counter-clockwise order;
/// the edges leaving vertex `v` are `leaving[leaving_range[v]..leaving_range[v + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct PolytopeTables<'a> {
    /// Each face's outward unit normal.
    pub normals: &'a [Vec3],
    /// Each face's offset: the region is `n·x ≤ offset`.
    pub offsets: &'a [f32],
    /// Where each face's edges start (one more entry than faces).
    pub edge_range: &'a [u32],
    /// Each edge's start.
    pub edge_start: &'a [Vec3],
    /// Each edge's vector from its start to its end.
    pub edge_vector: &'a [Vec3],
    /// In the face's plane, square to the edge, pointing into the polygon.
    pub edge_inward: &'a [Vec3],
    /// The edge's unit direction formed in f64 (zero for an edge too short to have one).
    pub edge_direction: &'a [Vec3],
    /// The face each edge belongs to.
    pub edge_face: &'a [u32],
    /// The vertices each edge runs between.
    pub edge_ends: &'a [[u32; 2]],
    /// The same edge in the face across it, run the other way (`u32::MAX` when none).
    pub edge_twin: &'a [u32],
    /// Where each vertex's leaving edges start in `leaving` (one more entry than vertices).
    pub leaving_range: &'a [u32],
    /// The edges leaving each vertex.
    pub leaving: &'a [u32],
    /// Whether the faces around each vertex close up (the walk trusts only those).
    pub closed_fan: &'a [bool],
    /// The vertices.
    pub vertices: &'a [Vec3],
}

/// Where [`Polytope::start`] leaves a point.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Start {
    /// Inside (within the tolerance) of every face.
    Inside,
    /// Above this face by more than the tolerance: outside, and the walk's first face.
    Above(usize),
    /// Not known without the full scan.
    Unknown,
}

/// A point on a face polygon's boundary, and the edge it lies on.
#[derive(Clone, Copy, Debug)]
struct EdgePoint {
    point: Vec3,
    edge: usize,
}

/// Marks an edge with no twin in [`Polytope`]'s `edge_twin`.
const NO_TWIN: u32 = u32::MAX;

/// Faces a walk visits at most before the scan answers instead: a walk from a looked-up face
/// crosses a handful.
const WALK_STEPS: usize = 64;

/// Edges shorter than this (in f64, in the polytope's units: radians of limit space) have no
/// direction the walk trusts; a walk reaching their ends leaves the answer to the scan.
const TINY_EDGE: f64 = 1e-9;

/// How far (relative to `|x − y|`) a tangent direction at `y` may rise towards `x` and still
/// count as turning away: the f32 rounding of the dot products, far below any distance that
/// matters (a point accepted this way is within `1e-6·|x − y|` of the projection's distance).
const OPTIMALITY_SLACK: f32 = 2e-6;

#[cfg(test)]
mod tests {
    use super::*;
    use jointlimits_testdata::SplitMix;

    impl Polytope {
        /// The projection by examining every face that sees `x`, keeping the nearest candidate
        /// in f64: the reference the walk must agree with.
        fn project_every_face(&self, x: Vec3) -> Option<Vec3> {
            if self
                .planes()
                .all(|(n, b)| n.dot(x) - b <= Self::INSIDE_TOLERANCE)
            {
                return None;
            }
            // Outside: every face above `x` at all may hold its projection, since the heights
            // are rounded by about the tolerance.
            let mut best: Option<Vec3> = None;
            for (face, (normal, offset)) in self.planes().enumerate() {
                let height = normal.dot(x) - offset;
                if height <= 0.0 {
                    continue;
                }
                let Some(candidate) = self.nearest_on_face(face, x, height) else {
                    return Some(x - normal * height);
                };
                let squared = |y: Vec3| (y.as_dvec3() - x.as_dvec3()).length_squared();
                if best.is_none_or(|b| squared(candidate) < squared(b)) {
                    best = Some(candidate);
                }
            }
            best
        }
    }

    impl Polytope {
        /// A copy that shares no grid of cubes with this one.
        fn unshared(&self) -> Polytope {
            Polytope {
                features: Arc::new(Derived::new()),
                ..self.clone()
            }
        }

        /// Whether the cube grid answers `x` (inside, settled, or a candidate holding it).
        fn answered_by_cubes(&self, x: Vec3) -> bool {
            let Some(cells) = self.feature_cells() else {
                return false;
            };
            match cells.answer(x) {
                CubeAnswer::Inside | CubeAnswer::Settled(_) => true,
                CubeAnswer::Candidates(numbers) => numbers
                    .iter()
                    .any(|&number| self.holds(cells.feature(number), x)),
                CubeAnswer::Open => false,
            }
        }
    }

    /// Asserts that the projection `fast` of `x` (by `path`) and the projection `every` of
    /// every face are both inside or land together. The squared distances in f64 may differ by
    /// the f32 rounding of the points over the length of `x − y`; the points themselves, by the
    /// square root of that (the squared distance grows quadratically away from the nearest point
    /// of a convex set).
    fn agree(x: Vec3, fast: Option<Vec3>, every: Option<Vec3>, reach: f32, path: &str) {
        match (fast, every) {
            (None, None) => {}
            (Some(fast), Some(every)) => {
                let squared = |y: Vec3| (y.as_dvec3() - x.as_dvec3()).length_squared();
                let (a, b) = (squared(fast), squared(every));
                let rounding = 1e-6 * (1.0 + x.length() as f64) * (1.0 + reach as f64);
                assert!(
                    a <= b + rounding
                        && (fast.distance(every) as f64) <= 2.0 * (2.0 * rounding).sqrt(),
                    "{x}: {path} {fast} at {a}, every face {every} at {b}"
                );
            }
            _ => panic!("{x}: {path} {fast:?}, every face {every:?}"),
        }
    }

    fn random_vec(random: &mut SplitMix) -> DVec3 {
        DVec3::new(
            random.next_signed() as f64,
            random.next_signed() as f64,
            random.next_signed() as f64,
        )
    }

    /// Hulls of blobs, of flat and needle-like clouds, and k-DOPs, off centre.
    fn polytopes(random: &mut SplitMix) -> Vec<Polytope> {
        let mut polytopes = Vec::new();
        for (count, stretch) in [
            (8, DVec3::ONE),
            (60, DVec3::new(1.5, 0.7, 0.3)),
            (300, DVec3::new(1.0, 1.0, 0.02)),
            (200, DVec3::new(2.0, 0.05, 0.05)),
        ] {
            let offset = random_vec(random);
            let points: Vec<DVec3> = (0..count)
                .map(|_| random_vec(random) * stretch + offset)
                .collect();
            polytopes.push(Polytope::hull(&points).unwrap());
        }
        let directions: Vec<DVec3> = (0..13)
            .map(|_| random_vec(random).normalize())
            .flat_map(|d| [d, -d])
            .collect();
        let bounds: Vec<f64> = directions
            .iter()
            .map(|_| 0.3 + 0.5 * (random.next_signed() as f64 + 1.0))
            .collect();
        polytopes.push(Polytope::from_halfspaces(&directions, &bounds).unwrap());
        // Fitted hulls (samples grown by an icosahedron): many coplanar faces merged into
        // polygons, around a point, a segment (whose grown hull has polygons that are not quite
        // flat) and a blob.
        let segment = [
            DVec3::new(1.4247630074993947, -0.4858054799162934, 0.6277879362290845),
            DVec3::new(1.6074993132572024, -0.3682536022958258, 0.6648923020571871),
            DVec3::new(1.5475463056444028, -0.40682058866808735, 0.6527189229482286),
        ];
        let blob: Vec<DVec3> = (0..40).map(|_| random_vec(random)).collect();
        for (samples, padding) in [
            (&segment[..1], 0.0),
            (&segment[..], 0.09926070487504059),
            (&segment[..], 0.0),
            (&blob[..], 0.02),
        ] {
            let hull = crate::shape::HullShape::fit(samples, padding, 0.0).unwrap();
            polytopes.push(hull.polytope().clone());
        }
        polytopes
    }

    #[test]
    fn the_walk_finds_what_every_face_finds_and_decides_nearly_always() {
        let mut random = SplitMix(23);
        for polytope in polytopes(&mut random) {
            let vertices = polytope.vertices().to_vec();
            let reach = polytope.reach();
            let (mut outside, mut walked, mut looked_up) = (0, 0, 0);
            for k in 0..4000 {
                // Near the surface (around vertices) and far out, up to 30 reaches away.
                let scale = [0.5, 1.05, 3.0, 30.0][k % 4] * polytope.reach();
                let x = if k % 8 < 4 {
                    vertices[k % vertices.len()] * (1.0 + 0.05 * random.next_signed())
                        + random_vec(&mut random).as_vec3() * 0.05 * polytope.reach()
                } else {
                    random_vec(&mut random).as_vec3() * scale
                };
                let fast = polytope.project(x);
                let every = polytope.project_every_face(x);
                let (highest, height) = polytope.highest_face(x);
                if height > Polytope::INSIDE_TOLERANCE {
                    outside += 1;
                    // From the face the projection starts at: looked up, or the highest.
                    let start = match polytope.start(x) {
                        Start::Above(face) => {
                            looked_up += 1;
                            face
                        }
                        _ => highest,
                    };
                    walked += usize::from(polytope.walk(start, x).is_some());
                }
                agree(x, fast, every, reach, "walk");
            }
            // The scan is the fallback; the walk should rarely need it, and the lookups should
            // spare most points the scan for the highest face (all but the flattest polytopes'
            // points off their grid).
            assert!(
                looked_up as f64 >= 0.6 * outside as f64,
                "the lookups started {looked_up} of {outside} outside points"
            );
            assert!(
                walked as f64 >= 0.99 * outside as f64,
                "the walk decided {walked} of {outside} outside points"
            );
        }
    }

    /// With the grid of cubes built, every point gets what every face finds and the inside
    /// test's verdict: near the surface, where cubes are cut by the surface and by the
    /// regions' planes, and far out, on and off the grid. Nearly every point of the k-DOP's
    /// grid is answered from its cube.
    #[test]
    fn the_cubes_answer_as_every_face_does() {
        let mut random = SplitMix(29);
        for (index, polytope) in polytopes(&mut random).into_iter().enumerate() {
            polytope.build_searches();
            let vertices = polytope.vertices().to_vec();
            let reach = polytope.reach();
            let (mut away, mut answered) = (0, 0);
            for k in 0..6000 {
                let scale = [0.5, 1.05, 1.5, 3.0, 30.0][k % 5] * reach;
                let x = if k % 3 == 0 {
                    vertices[k % vertices.len()] * (1.0 + 0.02 * random.next_signed())
                        + random_vec(&mut random).as_vec3() * 0.02 * reach
                } else {
                    random_vec(&mut random).as_vec3() * scale
                };
                let fast = polytope.project(x);
                assert_eq!(fast.is_none(), polytope.contains(x), "{x}: verdict");
                let every = polytope.project_every_face(x);
                agree(x, fast, every, reach, "cubes");
                if k % 3 != 0 && k % 5 == 2 {
                    away += 1;
                    answered += usize::from(polytope.answered_by_cubes(x));
                }
            }
            // The k-DOP (the fifth): its regions are wide, and its cubes answer nearly every
            // point off its surface (hulls of many faces, and vertices whose faces do not close
            // up, leave more to the walk).
            if index == 4 {
                assert!(
                    answered as f64 >= 0.9 * away as f64,
                    "the cubes answered {answered} of {away} points off the surface"
                );
            }
        }
    }

    /// Points within a few roundings of the surface, some read as outside and some inside:
    /// every face's polygon, pushed out by 1–4e-6 (about the inside tolerance), on polytopes
    /// whose coordinates reach 3 (where f32 rounds at 2.4e-7). A point the tolerance calls
    /// outside may read inside the face holding its projection and outside a neighbour; the
    /// projection must still land a rounding away, inside, not on a far face.
    #[test]
    fn points_a_hair_outside_any_face_land_a_hair_away() {
        let mut random = SplitMix(71);
        let turn = glam::DQuat::from_axis_angle(DVec3::new(0.3, -0.8, 0.5).normalize(), 1.1);
        let offset = DVec3::new(0.4, -1.2, 0.9);
        // A thin disc (long sliver faces around its rim, flat caps of many triangles) and a
        // needle, both tilted and off centre, and a 13-DOP of the same reach.
        let disc: Vec<DVec3> = (0..700)
            .flat_map(|_| {
                let angle = std::f64::consts::PI * random.next_signed() as f64;
                let (sin, cos) = angle.sin_cos();
                [-0.035, 0.035].map(|z| turn * DVec3::new(3.0 * cos, 3.0 * sin, z) + offset)
            })
            .collect();
        let needle: Vec<DVec3> = (0..300)
            .map(|_| turn * (random_vec(&mut random) * DVec3::new(3.0, 0.01, 0.01)) + offset)
            .collect();
        let directions: Vec<DVec3> = (0..13)
            .map(|_| random_vec(&mut random).normalize())
            .flat_map(|d| [d, -d])
            .collect();
        let bounds: Vec<f64> = directions
            .iter()
            .map(|d| 2.0 + 0.5 * random.next_signed() as f64 + d.dot(offset))
            .collect();
        for (index, polytope) in [
            Polytope::hull(&disc).unwrap(),
            Polytope::hull(&needle).unwrap(),
            Polytope::from_halfspaces(&directions, &bounds).unwrap(),
        ]
        .into_iter()
        .enumerate()
        .flat_map(|(index, polytope)| {
            // Without the grid of cubes, and with it, on the same points.
            let built = polytope.unshared();
            built.build_searches();
            [(index, polytope), (index, built)]
        }) {
            let mut random = SplitMix(73 + index as u64);
            let (mut worst, mut outside) = (0.0f32, 0);
            for face in 0..polytope.face_count() {
                let edges =
                    polytope.edge_range[face] as usize..polytope.edge_range[face + 1] as usize;
                let corners: Vec<Vec3> = edges.map(|e| polytope.edge_start[e]).collect();
                for k in 0..64 {
                    // Anywhere on the polygon, or near one of its corners.
                    let weights: Vec<f32> = (0..corners.len())
                        .map(|i| {
                            let near = if k % 2 == 0 && i == k / 2 % corners.len() {
                                50.0
                            } else {
                                0.0
                            };
                            near + 0.5 + 0.5 * random.next_signed()
                        })
                        .collect();
                    let total: f32 = weights.iter().sum();
                    let on_face: Vec3 = corners
                        .iter()
                        .zip(&weights)
                        .map(|(&c, &w)| c * (w / total))
                        .sum();
                    let out = 1e-6 + 3e-6 * (0.5 + 0.5 * random.next_signed());
                    let x = on_face + polytope.normals[face] * out;
                    let Some(y) = polytope.project(x) else {
                        continue;
                    };
                    outside += 1;
                    assert!(polytope.contains(y), "{x} -> {y}, outside");
                    worst = worst.max(x.distance(y) - out);
                }
            }
            assert!(outside > 0);
            assert!(
                worst < 2e-6,
                "{outside} outside, landing up to {worst} farther than pushed"
            );
        }
    }
}
