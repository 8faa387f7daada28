//! The convex hull of a 3D point set (Quickhull, f64), as planar polygon faces.
//!
//! Quickhull grows a starting tetrahedron: each face keeps the points outside it; the farthest
//! of them becomes a new vertex, the faces it sees are removed and the hole's rim (the horizon) is
//! fanned to the new vertex; the removed faces' points are handed to the new faces. Expected
//! `O(n log n)`. A point counts as outside a face only when it is more than a small tolerance above
//! it, so nearly coplanar points do not create slivers; afterwards adjacent coplanar triangles are
//! merged into convex polygons.

use std::collections::HashMap;

use glam::DVec3;

/// Why a hull could not be built.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum HullError {
    /// Fewer than four points, or all of them on one plane: the hull has no volume.
    #[error("the points span no volume (all on one plane, line or point)")]
    Flat,
    /// A point was NaN or infinite.
    #[error("a point is not finite")]
    NonFinite,
    /// Half-spaces that leave the region open in some direction.
    #[error("the half-spaces do not bound the region")]
    Unbounded,
}

/// A convex polytope as planar faces.
#[derive(Clone, Debug, PartialEq)]
pub struct HullPolygons {
    /// The hull's vertices (a subset of the input points).
    pub vertices: Vec<DVec3>,
    /// Each face as indices into `vertices`, counter-clockwise seen from outside.
    pub faces: Vec<Vec<usize>>,
    /// Each face's outward unit normal.
    pub normals: Vec<DVec3>,
}

struct Triangle {
    corners: [usize; 3],
    normal: DVec3,
    offset: f64,
    outside: Vec<usize>,
    alive: bool,
}

impl Triangle {
    fn new(points: &[DVec3], corners: [usize; 3]) -> Triangle {
        let [a, b, c] = corners.map(|i| points[i]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        Triangle {
            corners,
            normal,
            offset: normal.dot(a),
            outside: Vec::new(),
            alive: true,
        }
    }

    fn height(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    fn edges(&self) -> [(usize, usize); 3] {
        let [a, b, c] = self.corners;
        [(a, b), (b, c), (c, a)]
    }
}

/// The convex hull of `points`, with coplanar neighbouring triangles merged into polygons.
pub fn convex_hull(points: &[DVec3]) -> Result<HullPolygons, HullError> {
    if points.iter().any(|p| !p.is_finite()) {
        return Err(HullError::NonFinite);
    }
    if points.len() < 4 {
        return Err(HullError::Flat);
    }
    let (lo, hi) = points
        .iter()
        .fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), &p| {
            (lo.min(p), hi.max(p))
        });
    let scale = (hi - lo)
        .max_element()
        .max(lo.abs().max(hi.abs()).max_element());
    let eps = 1e-11 * scale.max(1e-300) * 16.0;
    let start = initial_tetrahedron(points, eps)?;

    let mut triangles: Vec<Triangle> = Vec::new();
    let mut edge_owner: HashMap<(usize, usize), usize> = HashMap::new();
    let centroid = start.iter().map(|&i| points[i]).sum::<DVec3>() / 4.0;
    let [a, b, c, d] = start;
    for mut corners in [[a, b, c], [a, c, d], [a, d, b], [b, d, c]] {
        let t = Triangle::new(points, corners);
        if t.height(centroid) > 0.0 {
            corners.swap(1, 2);
        }
        add_triangle(
            &mut triangles,
            &mut edge_owner,
            Triangle::new(points, corners),
        );
    }
    let initial: Vec<usize> = (0..points.len()).filter(|i| !start.contains(i)).collect();
    assign_outside(points, &mut triangles, &[0, 1, 2, 3], initial, eps);

    let mut pending: Vec<usize> = (0..4)
        .filter(|&f| !triangles[f].outside.is_empty())
        .collect();
    while let Some(face) = pending.pop() {
        if !triangles[face].alive || triangles[face].outside.is_empty() {
            continue;
        }
        let apex = *triangles[face]
            .outside
            .iter()
            .max_by(|&&i, &&j| {
                let t = &triangles[face];
                t.height(points[i]).total_cmp(&t.height(points[j]))
            })
            .expect("non-empty outside set");
        let apex_point = points[apex];

        // Faces the apex sees, by flood fill from `face` across shared edges.
        let mut visible = vec![face];
        triangles[face].alive = false;
        let mut cursor = 0;
        let mut horizon = Vec::new();
        while cursor < visible.len() {
            let f = visible[cursor];
            cursor += 1;
            for (u, v) in triangles[f].edges() {
                let neighbour = edge_owner[&(v, u)];
                if !triangles[neighbour].alive {
                    continue;
                }
                if triangles[neighbour].height(apex_point) > eps {
                    triangles[neighbour].alive = false;
                    visible.push(neighbour);
                } else {
                    horizon.push((u, v));
                }
            }
        }
        // Dead faces may still be listed as neighbours of horizon edges through `edge_owner`;
        // everything of theirs is replaced below.
        let mut orphans = Vec::new();
        for &f in &visible {
            for e in triangles[f].edges() {
                edge_owner.remove(&e);
            }
            orphans.append(&mut triangles[f].outside);
        }
        orphans.retain(|&i| i != apex);
        let mut created = Vec::with_capacity(horizon.len());
        for (u, v) in horizon {
            created.push(add_triangle(
                &mut triangles,
                &mut edge_owner,
                Triangle::new(points, [u, v, apex]),
            ));
        }
        assign_outside(points, &mut triangles, &created, orphans, eps);
        pending.extend(
            created
                .iter()
                .filter(|&&f| !triangles[f].outside.is_empty()),
        );
    }

    Ok(merge_coplanar(points, &triangles, &edge_owner, eps))
}

fn add_triangle(
    triangles: &mut Vec<Triangle>,
    edge_owner: &mut HashMap<(usize, usize), usize>,
    triangle: Triangle,
) -> usize {
    let index = triangles.len();
    for e in triangle.edges() {
        edge_owner.insert(e, index);
    }
    triangles.push(triangle);
    index
}

fn assign_outside(
    points: &[DVec3],
    triangles: &mut [Triangle],
    faces: &[usize],
    candidates: Vec<usize>,
    eps: f64,
) {
    for i in candidates {
        if let Some(&f) = faces
            .iter()
            .find(|&&f| triangles[f].height(points[i]) > eps)
        {
            triangles[f].outside.push(i);
        }
    }
}

/// Four points spanning the largest volume the extreme points offer, or `Flat`.
fn initial_tetrahedron(points: &[DVec3], eps: f64) -> Result<[usize; 4], HullError> {
    let extreme = |key: &dyn Fn(DVec3) -> f64| -> usize {
        (0..points.len())
            .max_by(|&i, &j| key(points[i]).total_cmp(&key(points[j])))
            .expect("non-empty")
    };
    let candidates = [
        extreme(&|p| p.x),
        extreme(&|p| -p.x),
        extreme(&|p| p.y),
        extreme(&|p| -p.y),
        extreme(&|p| p.z),
        extreme(&|p| -p.z),
    ];
    let (mut a, mut b, mut best) = (0, 0, -1.0);
    for &i in &candidates {
        for &j in &candidates {
            let d = points[i].distance_squared(points[j]);
            if d > best {
                (a, b, best) = (i, j, d);
            }
        }
    }
    if best.sqrt() <= eps {
        return Err(HullError::Flat);
    }
    let line = (points[b] - points[a]).normalize();
    let off_line = |p: DVec3| (p - points[a]).reject_from_normalized(line).length();
    let c = extreme(&|p| off_line(p));
    if off_line(points[c]) <= eps {
        return Err(HullError::Flat);
    }
    let normal = (points[b] - points[a])
        .cross(points[c] - points[a])
        .normalize();
    let off_plane = |p: DVec3| normal.dot(p - points[a]).abs();
    let d = extreme(&|p| off_plane(p));
    if off_plane(points[d]) <= eps {
        return Err(HullError::Flat);
    }
    Ok([a, b, c, d])
}

/// Groups neighbouring triangles whose planes agree and traces each group's outer loop.
fn merge_coplanar(
    points: &[DVec3],
    triangles: &[Triangle],
    edge_owner: &HashMap<(usize, usize), usize>,
    eps: f64,
) -> HullPolygons {
    let alive: Vec<usize> = (0..triangles.len())
        .filter(|&f| triangles[f].alive)
        .collect();
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for &seed in &alive {
        if group_of.contains_key(&seed) {
            continue;
        }
        let id = groups.len();
        group_of.insert(seed, id);
        let mut members = vec![seed];
        let mut cursor = 0;
        while cursor < members.len() {
            let f = members[cursor];
            cursor += 1;
            for (u, v) in triangles[f].edges() {
                let n = edge_owner[&(v, u)];
                if group_of.contains_key(&n) {
                    continue;
                }
                let seed_tri = &triangles[seed];
                let coplanar = triangles[n].normal.dot(seed_tri.normal) > 1.0 - 1e-10
                    && triangles[n]
                        .corners
                        .iter()
                        .all(|&c| seed_tri.height(points[c]).abs() <= eps);
                if coplanar {
                    group_of.insert(n, id);
                    members.push(n);
                }
            }
        }
        groups.push(members);
    }

    let mut vertex_index: HashMap<usize, usize> = HashMap::new();
    let mut vertices = Vec::new();
    let mut faces = Vec::new();
    let mut normals = Vec::new();
    for members in &groups {
        // Boundary edges: those whose twin belongs to another group.
        let id = group_of[&members[0]];
        let mut next: HashMap<usize, usize> = HashMap::new();
        for &f in members {
            for (u, v) in triangles[f].edges() {
                if group_of[&edge_owner[&(v, u)]] != id {
                    next.insert(u, v);
                }
            }
        }
        let first = *next.keys().min().expect("a face has edges");
        let mut loop_points = vec![first];
        let mut at = next[&first];
        while at != first && loop_points.len() <= next.len() {
            loop_points.push(at);
            at = next[&at];
        }
        let face: Vec<usize> = loop_points
            .into_iter()
            .map(|p| {
                *vertex_index.entry(p).or_insert_with(|| {
                    vertices.push(points[p]);
                    vertices.len() - 1
                })
            })
            .collect();
        let area_normal: DVec3 = members
            .iter()
            .map(|&f| {
                let [a, b, c] = triangles[f].corners.map(|i| points[i]);
                (b - a).cross(c - a)
            })
            .sum();
        normals.push(area_normal.normalize());
        faces.push(face);
    }
    HullPolygons {
        vertices,
        faces,
        normals,
    }
}
