//! The convex hull of a 3D point set (Quickhull, f64), as planar polygon faces.
//!
//! Quickhull grows a starting tetrahedron: each face keeps the points outside it; the farthest
//! of them becomes a new vertex, the faces it sees are removed and the hole's rim (the horizon) is
//! fanned to the new vertex; the removed faces' points are handed to the new faces. Expected
//! `O(n log n)`. Afterwards adjacent coplanar triangles are merged into convex polygons.
//!
//! Every decision (is a point above a face, are four points coplanar) is made with Shewchuk's
//! exact orientation predicate (the `robust` crate), so no rounding can make two decisions
//! contradict each other: the visible faces always form one patch with one horizon loop, and the
//! surface stays closed whatever the input (duplicates, coplanar or collinear sets, points a
//! rounding error apart). The points are first scaled by a power of two, which is exact, so huge
//! and tiny coordinates behave like ordinary ones. Should the surface still come out inconsistent,
//! the hull reports [`HullError::Inconsistent`] instead of panicking.

use std::collections::HashMap;

use glam::DVec3;
use robust::{Coord3D, orient3d};

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
    /// The construction lost track of its surface (a guard that exact predicates should never
    /// trip).
    #[error("the hull's surface came out inconsistent")]
    Inconsistent,
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

    /// The signed distance of `p` above the plane (rounded; for choosing the farthest point).
    fn height(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    /// Whether `p` lies strictly above the plane through the corners, decided exactly.
    fn sees(&self, points: &[DVec3], p: DVec3) -> bool {
        let [a, b, c] = self.corners.map(|i| points[i]);
        orientation(a, b, c, p) > 0.0
    }

    fn edges(&self) -> [(usize, usize); 3] {
        let [a, b, c] = self.corners;
        [(a, b), (b, c), (c, a)]
    }
}

/// The sign of the volume of the tetrahedron `abcd`: positive when `d` lies above the plane of
/// `a, b, c` (on the side of `(b − a) × (c − a)`), zero when the four are coplanar; exact.
fn orientation(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> f64 {
    let coord = |p: DVec3| Coord3D {
        x: p.x,
        y: p.y,
        z: p.z,
    };
    // `orient3d` is positive when `d` lies below the plane of a counter-clockwise `abc`.
    -orient3d(coord(a), coord(b), coord(c), coord(d))
}

/// `points` scaled by the power of two that brings the largest coordinate into `[0.5, 1)` (exact),
/// then rounded to multiples of 2⁻³⁰⁰. The predicates are exact only while no product underflows:
/// with every coordinate on that grid, each product of three differences is a multiple of 2⁻⁹⁰⁰,
/// far above f64's smallest number. The rounding moves a point by at most 2⁻³⁰¹ of the largest
/// coordinate, so coordinates that small beside it (1e-91 of it) count as 0.
fn normalized(points: &[DVec3]) -> Vec<DVec3> {
    let largest = points
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0f64, f64::max);
    if largest == 0.0 {
        return points.to_vec();
    }
    let exponent = largest.log2().floor() as i32 + 1;
    // Two steps, so that neither factor overflows for extreme exponents.
    let half = exponent / 2;
    let (first, second) = (2f64.powi(-half), 2f64.powi(half - exponent));
    let (grid, inverse) = (2f64.powi(300), 2f64.powi(-300));
    points
        .iter()
        .map(|&p| (p * first * second * grid).round() * inverse)
        .collect()
}

/// The convex hull of `points`, with coplanar neighbouring triangles merged into polygons.
pub fn convex_hull(points: &[DVec3]) -> Result<HullPolygons, HullError> {
    if points.iter().any(|p| !p.is_finite()) {
        return Err(HullError::NonFinite);
    }
    if points.len() < 4 {
        return Err(HullError::Flat);
    }
    let original = points;
    let points = &normalized(points);
    let start = initial_tetrahedron(points)?;

    let mut triangles: Vec<Triangle> = Vec::new();
    let mut edge_owner: HashMap<(usize, usize), usize> = HashMap::new();
    let [a, b, c, d] = start;
    // Orient every face so that the tetrahedron's fourth corner lies below it.
    for mut corners in [[a, b, c], [a, d, c], [a, b, d], [b, c, d]] {
        let opposite = start
            .into_iter()
            .find(|i| !corners.contains(i))
            .ok_or(HullError::Inconsistent)?;
        let [p, q, r] = corners.map(|i| points[i]);
        if orientation(p, q, r, points[opposite]) > 0.0 {
            corners.swap(1, 2);
        }
        add_triangle(
            &mut triangles,
            &mut edge_owner,
            Triangle::new(points, corners),
        );
    }
    let initial: Vec<usize> = (0..points.len()).filter(|i| !start.contains(i)).collect();
    assign_outside(points, &mut triangles, &[0, 1, 2, 3], initial);

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
            .ok_or(HullError::Inconsistent)?;
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
                let neighbour = *edge_owner.get(&(v, u)).ok_or(HullError::Inconsistent)?;
                if !triangles[neighbour].alive {
                    continue;
                }
                if triangles[neighbour].sees(points, apex_point) {
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
        assign_outside(points, &mut triangles, &created, orphans);
        pending.extend(
            created
                .iter()
                .filter(|&&f| !triangles[f].outside.is_empty()),
        );
    }

    merge_coplanar(points, original, &triangles, &edge_owner)
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
) {
    for i in candidates {
        if let Some(&f) = faces
            .iter()
            .find(|&&f| triangles[f].sees(points, points[i]))
        {
            triangles[f].outside.push(i);
        }
    }
}

/// Four points spanning a volume, from the extreme points where they do (else from any), or
/// `Flat` when every point lies on one plane.
fn initial_tetrahedron(points: &[DVec3]) -> Result<[usize; 4], HullError> {
    let extreme = |key: &dyn Fn(DVec3) -> f64| -> usize {
        (0..points.len())
            .max_by(|&i, &j| key(points[i]).total_cmp(&key(points[j])))
            .unwrap_or(0)
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
    // The rounded distances pick good candidates; exact tests decide, falling back to a scan.
    let first_where = |preferred: usize, good: &dyn Fn(DVec3) -> bool| -> Option<usize> {
        if good(points[preferred]) {
            return Some(preferred);
        }
        (0..points.len()).find(|&i| good(points[i]))
    };
    let (pa, pb) = (points[a], points[b]);
    if pa == pb {
        return Err(HullError::Flat);
    }
    let line = (pb - pa).normalize();
    let off_line = |p: DVec3| (p - pa).reject_from_normalized(line).length();
    let c = first_where(extreme(&|p| off_line(p)), &|p| !collinear(pa, pb, p))
        .ok_or(HullError::Flat)?;
    let pc = points[c];
    let normal = (pb - pa).cross(pc - pa).normalize_or_zero();
    let off_plane = |p: DVec3| normal.dot(p - pa).abs();
    let d = first_where(extreme(&|p| off_plane(p)), &|p| {
        orientation(pa, pb, pc, p) != 0.0
    })
    .ok_or(HullError::Flat)?;
    Ok([a, b, c, d])
}

/// Whether three points lie on one line, exactly.
fn collinear(a: DVec3, b: DVec3, c: DVec3) -> bool {
    area_normal(a, b, c) == DVec3::ZERO
}

/// `(b − a) × (c − a)`, each component a 2D orientation (the determinant of the triangle's
/// projection onto an axis plane) whose sign is exact and whose value is accurate to nearly
/// full precision even where it cancels ([`accurate_orientation`]), so a sliver triangle whose
/// rounded cross product cancels gets its true direction; zero only when the points are
/// collinear.
fn area_normal(a: DVec3, b: DVec3, c: DVec3) -> DVec3 {
    use robust::{Coord, orient2d};
    let area = |x: fn(DVec3) -> f64, y: fn(DVec3) -> f64| {
        let coord = |p: DVec3| Coord { x: x(p), y: y(p) };
        let sign = orient2d(coord(a), coord(b), coord(c));
        if sign == 0.0 {
            return 0.0;
        }
        // The exact predicate stops once its sign is certain, with a value that may be off by
        // far more than itself for a sliver; the accurate one keeps its digits.
        let value = accurate_orientation([a, b, c].map(|p| (x(p), y(p))));
        if value.signum() == sign.signum() {
            value
        } else {
            sign
        }
    };
    DVec3::new(
        area(|p| p.y, |p| p.z),
        area(|p| p.z, |p| p.x),
        area(|p| p.x, |p| p.y),
    )
}

/// `(b − a) × (c − a)` for points of a plane, in double-double arithmetic: the differences
/// are exact as a rounded value and its error, and the products keep all but the product of
/// the two errors, so the result's error is near the square of the rounding unit times the
/// coordinates' size, whatever the cancellation.
fn accurate_orientation([a, b, c]: [(f64, f64); 3]) -> f64 {
    // Knuth's two-sum: `s + e = x + y` exactly.
    let two_sum = |x: f64, y: f64| {
        let s = x + y;
        let v = s - x;
        (s, (x - (s - v)) + (y - v))
    };
    // `p + e = x·y` exactly (a fused multiply-add gives the product's rounding error).
    let two_product = |x: f64, y: f64| {
        let p = x * y;
        (p, x.mul_add(y, -p))
    };
    let product = |(x, dx): (f64, f64), (y, dy): (f64, f64)| {
        let (p, e) = two_product(x, y);
        two_sum(p, e + (x * dy + dx * y))
    };
    let (u, v) = (two_sum(b.0, -a.0), two_sum(b.1, -a.1));
    let (w, z) = (two_sum(c.0, -a.0), two_sum(c.1, -a.1));
    let (left, right) = (product(u, z), product(v, w));
    let (high, low) = two_sum(left.0, -right.0);
    high + (low + (left.1 - right.1))
}

/// Groups neighbouring triangles that lie exactly in one plane and traces each group's outer
/// loop. `points` are the scaled points the predicates used; the polygons get `original`'s.
fn merge_coplanar(
    points: &[DVec3],
    original: &[DVec3],
    triangles: &[Triangle],
    edge_owner: &HashMap<(usize, usize), usize>,
) -> Result<HullPolygons, HullError> {
    let twin = |u: usize, v: usize| {
        edge_owner
            .get(&(v, u))
            .copied()
            .ok_or(HullError::Inconsistent)
    };
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
        let [a, b, c] = triangles[seed].corners.map(|i| points[i]);
        while cursor < members.len() {
            let f = members[cursor];
            cursor += 1;
            for (u, v) in triangles[f].edges() {
                let n = twin(u, v)?;
                if group_of.contains_key(&n) {
                    continue;
                }
                let coplanar = triangles[n]
                    .corners
                    .iter()
                    .all(|&corner| orientation(a, b, c, points[corner]) == 0.0);
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
    for (id, members) in groups.iter().enumerate() {
        // Boundary edges: those whose twin belongs to another group.
        let mut next: HashMap<usize, usize> = HashMap::new();
        for &f in members {
            for (u, v) in triangles[f].edges() {
                if group_of.get(&twin(u, v)?) != Some(&id) {
                    next.insert(u, v);
                }
            }
        }
        let first = *next.keys().min().ok_or(HullError::Inconsistent)?;
        let mut loop_points = vec![first];
        let mut at = *next.get(&first).ok_or(HullError::Inconsistent)?;
        while at != first {
            if loop_points.len() > next.len() {
                return Err(HullError::Inconsistent);
            }
            loop_points.push(at);
            at = *next.get(&at).ok_or(HullError::Inconsistent)?;
        }
        let face: Vec<usize> = loop_points
            .into_iter()
            .map(|p| {
                *vertex_index.entry(p).or_insert_with(|| {
                    vertices.push(original[p]);
                    vertices.len() - 1
                })
            })
            .collect();
        // The normal from the scaled points: the same direction, without overflow.
        let area_normal: DVec3 = members
            .iter()
            .map(|&f| {
                let [a, b, c] = triangles[f].corners.map(|i| points[i]);
                area_normal(a, b, c)
            })
            .sum();
        let normal = area_normal.normalize_or_zero();
        if normal == DVec3::ZERO {
            // A face too small for its normal to be computed in f64 (spans near 1e-150 of the
            // largest coordinate): the polytope cannot be evaluated.
            return Err(HullError::Flat);
        }
        normals.push(normal);
        faces.push(face);
    }
    Ok(HullPolygons {
        vertices,
        faces,
        normals,
    })
}
