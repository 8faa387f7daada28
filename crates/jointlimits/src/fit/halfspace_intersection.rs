//! The polytope `{x : dᵢ·x ≤ bᵢ}` as planar polygon faces, built face by face.
//!
//! Each face is its plane cut by every other half-space: a large square in plane `i` is clipped
//! (Sutherland–Hodgman) by each `dⱼ·x ≤ bⱼ`. Every face keeps its exact plane, so thin slabs and
//! corners where many planes meet cost nothing in accuracy, unlike building the hull of the
//! pairwise-intersection corners, whose near-duplicate points make a hull algorithm fragile.

use glam::{DVec2, DVec3};

use super::convex_hull::{HullError, HullPolygons};

/// How far, relative to the largest bound, the starting square of each face reaches. A face
/// that still touches it after clipping means the region is unbounded.
const SQUARE_REACH: f64 = 1e4;

/// The polytope `{x : dᵢ·x ≤ bᵢ}` for `directions` `d` (normalised here) and `bounds` `b`.
///
/// Redundant half-spaces (faces that are empty, an edge or a point) are dropped. Errors when a
/// number is not finite, when the region is unbounded, and when it has no volume (empty or flat).
pub fn halfspace_intersection(
    directions: &[DVec3],
    bounds: &[f64],
) -> Result<HullPolygons, HullError> {
    let directions: Vec<DVec3> = directions.iter().map(|d| d.normalize_or_zero()).collect();
    if directions.len() != bounds.len()
        || directions
            .iter()
            .any(|d| !d.is_finite() || *d == DVec3::ZERO)
        || bounds.iter().any(|b| !b.is_finite())
    {
        return Err(HullError::NonFinite);
    }
    let scale = bounds.iter().fold(1e-9_f64, |m, b| m.max(b.abs()));
    let reach = SQUARE_REACH * scale;
    let merge_distance = 1e-10 * scale;

    let mut polygons = HullPolygons {
        vertices: Vec::new(),
        faces: Vec::new(),
        normals: Vec::new(),
    };
    let mut volume = 0.0;
    for (i, (&normal, &offset)) in directions.iter().zip(bounds).enumerate() {
        if shadowed(i, &directions, bounds) {
            continue;
        }
        let u = normal.any_orthonormal_vector();
        let v = normal.cross(u);
        let origin = normal * offset;
        // Counter-clockwise seen from outside, since u × v = normal.
        let mut polygon: Vec<DVec2> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .map(|(a, b)| DVec2::new(a, b) * reach)
            .to_vec();
        for (j, (&other, &other_offset)) in directions.iter().zip(bounds).enumerate() {
            if j == i || polygon.is_empty() {
                continue;
            }
            // In plane coordinates the half-space reads a·p ≤ c.
            let a = DVec2::new(other.dot(u), other.dot(v));
            let c = other_offset - other.dot(origin);
            polygon = clip(&polygon, a, c);
        }
        polygon.dedup_by(|p, q| p.distance(*q) <= merge_distance);
        while polygon.len() > 1 && polygon[0].distance(polygon[polygon.len() - 1]) <= merge_distance
        {
            polygon.pop();
        }
        let area = signed_area(&polygon);
        if polygon.len() < 3 || area <= merge_distance * scale {
            continue;
        }
        if polygon.iter().any(|p| p.abs().max_element() >= 0.5 * reach) {
            return Err(HullError::Unbounded);
        }
        volume += area * offset / 3.0;
        let face = polygon
            .iter()
            .map(|p| {
                vertex_index(
                    &mut polygons.vertices,
                    origin + u * p.x + v * p.y,
                    merge_distance,
                )
            })
            .collect();
        polygons.faces.push(face);
        polygons.normals.push(normal);
    }
    if polygons.faces.len() < 4 || volume <= 1e-12 * scale * scale * scale {
        return Err(HullError::Flat);
    }
    Ok(polygons)
}

/// Whether half-space `i` is made redundant by a parallel one that is tighter, or equally tight
/// and listed first.
fn shadowed(i: usize, directions: &[DVec3], bounds: &[f64]) -> bool {
    directions
        .iter()
        .zip(bounds)
        .enumerate()
        .any(|(j, (d, &b))| {
            j != i
                && d.dot(directions[i]) > 1.0 - 1e-12
                && (b < bounds[i] || (b == bounds[i] && j < i))
        })
}

/// The part of the convex polygon where `a·p ≤ c`, keeping its orientation.
fn clip(polygon: &[DVec2], a: DVec2, c: f64) -> Vec<DVec2> {
    let mut kept = Vec::with_capacity(polygon.len() + 1);
    for (k, &p) in polygon.iter().enumerate() {
        let q = polygon[(k + 1) % polygon.len()];
        let (hp, hq) = (a.dot(p) - c, a.dot(q) - c);
        if hp <= 0.0 {
            kept.push(p);
        }
        if (hp < 0.0 && hq > 0.0) || (hp > 0.0 && hq < 0.0) {
            kept.push(p + (q - p) * (hp / (hp - hq)));
        }
    }
    kept
}

/// The signed area of a polygon (positive when counter-clockwise).
fn signed_area(polygon: &[DVec2]) -> f64 {
    let n = polygon.len();
    0.5 * (0..n)
        .map(|k| polygon[k].perp_dot(polygon[(k + 1) % n]))
        .sum::<f64>()
}

/// The index of `point` in `vertices`, adding it unless a vertex lies within `merge_distance`.
fn vertex_index(vertices: &mut Vec<DVec3>, point: DVec3, merge_distance: f64) -> usize {
    match vertices
        .iter()
        .position(|v| v.distance(point) <= merge_distance)
    {
        Some(index) => index,
        None => {
            vertices.push(point);
            vertices.len() - 1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube_directions() -> Vec<DVec3> {
        vec![
            DVec3::X,
            -DVec3::X,
            DVec3::Y,
            -DVec3::Y,
            DVec3::Z,
            -DVec3::Z,
        ]
    }

    #[test]
    fn a_box_has_six_square_faces_and_eight_vertices() {
        let bounds = [1.0, 2.0, 0.5, 0.5, 3.0, 1.0];
        let hull = halfspace_intersection(&cube_directions(), &bounds).unwrap();
        assert_eq!(hull.faces.len(), 6);
        assert_eq!(hull.vertices.len(), 8);
        assert!(hull.faces.iter().all(|f| f.len() == 4));
        for (face, normal) in hull.faces.iter().zip(&hull.normals) {
            // Counter-clockwise seen from outside: the polygon's own normal agrees.
            let [a, b, c] = [0, 1, 2].map(|k| hull.vertices[face[k]]);
            assert!((b - a).cross(c - a).dot(*normal) > 0.0);
        }
    }

    #[test]
    fn redundant_and_duplicate_planes_are_dropped() {
        let mut directions = cube_directions();
        let mut bounds = vec![1.0; 6];
        directions.extend([DVec3::X, DVec3::new(1.0, 1.0, 1.0)]);
        bounds.extend([1.0, 10.0]);
        let hull = halfspace_intersection(&directions, &bounds).unwrap();
        assert_eq!(hull.faces.len(), 6);
    }

    #[test]
    fn a_needle_keeps_its_exact_planes() {
        // A 13-DOP around a long thin segment: the case that breaks hulls of corner points.
        let mut directions = Vec::new();
        let mut bounds = Vec::new();
        for d in crate::shape::KdopDirections::Thirteen.vectors() {
            let reach = 1.4 * d.x.abs() + 1e-4;
            directions.extend([d, -d]);
            bounds.extend([reach, reach]);
        }
        let hull = halfspace_intersection(&directions, &bounds).unwrap();
        for (face, normal) in hull.faces.iter().zip(&hull.normals) {
            for &v in face {
                let height = normal.dot(hull.vertices[v]);
                let k = directions
                    .iter()
                    .position(|d| d.dot(*normal) > 1.0 - 1e-12)
                    .unwrap();
                assert!((height - bounds[k]).abs() < 1e-12);
            }
        }
        for x in [-1.4, -0.7, 0.0, 0.7, 1.4] {
            let p = DVec3::new(x, 0.0, 0.0);
            for (face, normal) in hull.faces.iter().zip(&hull.normals) {
                assert!(normal.dot(p - hull.vertices[face[0]]) <= 1e-12);
            }
        }
    }

    #[test]
    fn unbounded_empty_and_flat_regions_are_refused() {
        let open = [DVec3::X, -DVec3::X, DVec3::Y, -DVec3::Y, DVec3::Z];
        assert_eq!(
            halfspace_intersection(&open, &[1.0; 5]),
            Err(HullError::Unbounded)
        );
        let empty = [1.0, -2.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(
            halfspace_intersection(&cube_directions(), &empty),
            Err(HullError::Flat)
        );
        let flat = [1.0, -1.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(
            halfspace_intersection(&cube_directions(), &flat),
            Err(HullError::Flat)
        );
        let nan = [f64::NAN, 1.0, 1.0, 1.0, 1.0, 1.0];
        assert_eq!(
            halfspace_intersection(&cube_directions(), &nan),
            Err(HullError::NonFinite)
        );
    }
}
