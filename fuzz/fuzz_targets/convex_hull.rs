//! Any list of points (read as little-endian f64 triples; non-finite ones dropped): the hull never
//! panics, and when it answers its vertices are input points and every point lies inside every
//! face plane.
#![no_main]

use glam::DVec3;
use jointlimits::fit::convex_hull::convex_hull;
use jointlimits::shape::Polytope;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let numbers: Vec<f64> = data
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let points: Vec<DVec3> = numbers
        .chunks_exact(3)
        .map(|c| DVec3::new(c[0], c[1], c[2]))
        .filter(|p| p.is_finite())
        .collect();
    let _ = Polytope::hull(&points);
    let Ok(hull) = convex_hull(&points) else {
        return;
    };
    let scale = points
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    for v in &hull.vertices {
        assert!(points.contains(v), "a vertex that is not an input point");
    }
    for (face, normal) in hull.faces.iter().zip(&hull.normals) {
        assert!(face.len() >= 3 && normal.is_finite());
        // In units of the largest coordinate, so that huge points do not overflow the check.
        let offset = hull
            .vertices
            .iter()
            .map(|&v| normal.dot(v / scale))
            .fold(f64::NEG_INFINITY, f64::max);
        for p in &points {
            assert!(normal.dot(*p / scale) - offset <= 1e-9, "a point outside");
        }
    }
});
