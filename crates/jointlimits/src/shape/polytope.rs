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

use glam::{DVec3, Vec3};

use super::plane_cells::{CellVerdict, PlaneCells};
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

    /// Which lanes `p` rises above by more than the inside tolerance (NaN heights count as
    /// above), as bits.
    #[inline(always)]
    fn seen_from(&self, p: Vec3) -> (u32, [f32; GROUP]) {
        let heights = self.heights(p);
        let above = heights.map(|h| u8::from(h > Polytope::INSIDE_TOLERANCE || h.is_nan()));
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
    /// `edge_range[i]..edge_range[i + 1]` are face `i`'s edges.
    edge_range: Vec<u32>,
    edge_start: Vec<Vec3>,
    edge_vector: Vec<Vec3>,
    /// In the face plane, perpendicular to the edge, pointing into the polygon.
    edge_inward: Vec<Vec3>,
    vertices: Vec<Vec3>,
    /// The largest vertex distance from the origin of the polytope's coordinates.
    reach: f32,
}

impl Polytope {
    /// Height above a face below which a point still counts as inside, in radians: f32 rounding
    /// of coordinates up to about 2π.
    pub(crate) const INSIDE_TOLERANCE: f32 = 2e-6;

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
            edge_range: vec![0],
            edge_start: Vec::new(),
            edge_vector: Vec::new(),
            edge_inward: Vec::new(),
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
        polytope.cells = PlaneCells::new(&polytope.normals, &polytope.offsets, &polytope.vertices);
        polytope
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
        match self.deciding_planes(x) {
            Some(planes) => self.inside_planes(planes, x),
            None => self
                .plane_groups
                .iter()
                .all(|group| group.seen_from(x).0 == 0),
        }
    }

    /// The faces that decide whether `x` is inside, when the cell grid knows them.
    #[inline]
    fn deciding_planes(&self, x: Vec3) -> Option<&[u16]> {
        match self.cells.as_ref()?.verdict(x) {
            CellVerdict::Decided(planes) => Some(planes),
            CellVerdict::Unknown => None,
        }
    }

    /// Whether `x` is within the tolerance of each of `faces` (heights formed as in the full
    /// scan, so the verdict is the same).
    #[inline]
    fn inside_planes(&self, faces: &[u16], x: Vec3) -> bool {
        faces.iter().all(|&face| {
            let face = usize::from(face);
            self.normals[face].dot(x) - self.offsets[face] <= Self::INSIDE_TOLERANCE
        })
    }

    /// [`Polytope::project`] for a polytope stored in `frame` coordinates, on a limit-space point.
    #[inline]
    pub fn project_in_frame(&self, frame: &super::Frame, p: Vec3) -> super::Projection {
        match self.project(frame.to_local(p)) {
            None => super::Projection::unchanged(p),
            Some(local) => super::Projection::moved(p, frame.to_world(local)),
        }
    }

    /// The nearest point of the polytope to `x`, or `None` when `x` is inside.
    #[inline]
    pub fn project(&self, x: Vec3) -> Option<Vec3> {
        if let Some(planes) = self.deciding_planes(x)
            && self.inside_planes(planes, x)
        {
            return None;
        }
        let mut best: Option<Vec3> = None;
        for (index, group) in self.plane_groups.iter().enumerate() {
            let (mut seen, heights) = group.seen_from(x);
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
    /// polygon (then the foot is the projection), otherwise the nearest point of the polygon's
    /// edges that the foot lies beyond.
    #[inline]
    fn nearest_on_face(&self, face: usize, x: Vec3, height: f32) -> Option<Vec3> {
        let foot = x - self.normals[face] * height;
        let edges = self.edge_range[face] as usize..self.edge_range[face + 1] as usize;
        let mut nearest: Option<(f32, Vec3)> = None;
        for e in edges {
            let from_start = foot - self.edge_start[e];
            if from_start.dot(self.edge_inward[e]) >= 0.0 {
                continue;
            }
            let v = self.edge_vector[e];
            let t = (from_start.dot(v) / v.length_squared().max(f32::MIN_POSITIVE)).clamp(0.0, 1.0);
            let point = self.edge_start[e] + v * t;
            let d = point.distance_squared(foot);
            if nearest.is_none_or(|(best, _)| d < best) {
                nearest = Some((d, point));
            }
        }
        nearest.map(|(_, point)| point)
    }
}
