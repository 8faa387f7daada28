//! The convex hull never panics and, when it answers, holds every point with its vertices taken
//! from the input and every face's polygon in its plane: duplicates, coplanar and collinear sets,
//! points a rounding error apart, huge and tiny coordinates, and arbitrary point lists.

use glam::DVec3;
use jointlimits::fit::convex_hull::{HullError, convex_hull};
use jointlimits::shape::Polytope;
use proptest::prelude::*;

/// Checks a hull against its points: every vertex is one of them, and every point lies on the inner
/// side of every face plane placed as the runtime polytope places it (through the outermost
/// vertex along the face's normal), up to rounding relative to the coordinates' size. So the
/// vertices include every extreme point.
fn assert_holds(points: &[DVec3]) {
    let Ok(hull) = convex_hull(points) else {
        return;
    };
    let scale = points
        .iter()
        .map(|p| p.abs().max_element())
        .fold(0.0, f64::max);
    for v in &hull.vertices {
        assert!(points.contains(v), "vertex {v} is not an input point");
    }
    for (face, normal) in hull.faces.iter().zip(&hull.normals) {
        assert!(face.len() >= 3 && normal.is_finite());
        let offset = hull
            .vertices
            .iter()
            .map(|&v| normal.dot(v))
            .fold(f64::NEG_INFINITY, f64::max);
        for p in points {
            let excess = (normal.dot(*p) - offset) / scale;
            assert!(
                excess <= 1e-9,
                "{p} outside by {excess} of the scale; face {face:?} of {}",
                hull.faces.len()
            );
        }
        // The face's own vertices lie in that plane: a normal tilted off its polygon (a sliver
        // whose normal lost its digits) leaves them below it, and the runtime walk, which
        // trusts polygons and planes to agree, answers wrongly there.
        for &v in face {
            let below = (offset - normal.dot(hull.vertices[v])) / scale;
            assert!(
                below <= 1e-9,
                "vertex {} of face {face:?} lies {below} of the scale below its plane",
                hull.vertices[v]
            );
        }
    }
    // The runtime polytope builds from it too.
    let _ = Polytope::hull(points);
}

fn cube() -> Vec<DVec3> {
    (0..8)
        .map(|i| DVec3::new(f64::from(i & 1), f64::from((i >> 1) & 1), f64::from(i >> 2)))
        .collect()
}

#[test]
fn degenerate_sets_are_flat_not_panics() {
    let line: Vec<DVec3> = (0..20).map(|i| DVec3::splat(f64::from(i))).collect();
    assert_eq!(convex_hull(&line), Err(HullError::Flat));
    let plane: Vec<DVec3> = (0..50)
        .map(|i| DVec3::new(f64::from(i % 7), f64::from(i / 7), 0.0))
        .collect();
    assert_eq!(convex_hull(&plane), Err(HullError::Flat));
    assert_eq!(convex_hull(&[DVec3::ONE; 10]), Err(HullError::Flat));
    assert_eq!(
        convex_hull(&[DVec3::ONE, DVec3::NAN, DVec3::ZERO, DVec3::X]),
        Err(HullError::NonFinite)
    );
}

#[test]
fn duplicates_coplanar_faces_and_tiny_or_huge_scales() {
    let mut points = cube();
    points.extend(cube());
    // Points on the faces, edges and inside.
    for i in 0..30 {
        let t = f64::from(i) / 30.0;
        points.push(DVec3::new(t, 0.0, 1.0 - t));
        points.push(DVec3::new(0.5, 0.5, t));
        points.push(DVec3::new(t, 1.0, 0.3));
    }
    let hull = convex_hull(&points).unwrap();
    assert_eq!(
        hull.faces.len(),
        6,
        "coplanar triangles merge into the cube's faces"
    );
    assert_eq!(hull.vertices.len(), 8);
    for scale in [1e-300, 1e-150, 1e-20, 1e20, 1e150, 1e300] {
        let scaled: Vec<DVec3> = points.iter().map(|&p| p * scale).collect();
        let hull = convex_hull(&scaled).unwrap();
        assert_eq!(
            (hull.faces.len(), hull.vertices.len()),
            (6, 8),
            "scale {scale}"
        );
        assert_holds(&scaled);
    }
    // A cube far from the origin, relative size 1e-12.
    let far: Vec<DVec3> = points
        .iter()
        .map(|&p| DVec3::splat(1e3) + p * 1e-9)
        .collect();
    assert_holds(&far);
}

#[test]
fn points_a_rounding_error_apart() {
    // The icosahedral padding of a dense cloud puts many points within an ulp of a plane.
    let mut points = Vec::new();
    for i in 0..400 {
        let t = f64::from(i) * 0.618_033_988_75;
        let (s, c) = (t.sin(), t.cos());
        for k in 0..3 {
            let wobble = f64::from(k) * f64::EPSILON;
            points.push(DVec3::new(c + wobble, s, (c * s) * 1e-13 + wobble));
        }
    }
    points.extend([DVec3::new(0.0, 0.0, 1.0), DVec3::new(0.0, 0.0, -1.0)]);
    assert_holds(&points);
}

fn coordinate() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-3i32..=3).prop_map(f64::from),
        -1.0f64..1.0,
        (-1.0f64..1.0).prop_map(|x| x * 1e-12),
        (-1.0f64..1.0).prop_map(|x| x * 1e200),
        Just(0.1 + 0.2),
        Just(0.3),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn arbitrary_point_lists(points in prop::collection::vec(
        (coordinate(), coordinate(), coordinate()).prop_map(|(x, y, z)| DVec3::new(x, y, z)),
        0..40,
    )) {
        assert_holds(&points);
    }

    #[test]
    fn grid_points_with_many_coplanar_quadruples(points in prop::collection::vec(
        (0i32..3, 0i32..3, 0i32..3).prop_map(|(x, y, z)| DVec3::new(x.into(), y.into(), z.into())),
        0..60,
    )) {
        assert_holds(&points);
    }
}

#[test]
/// Collinear samples thickened by one icosahedron each give sliver faces whose rounded cross
/// product cancels to zero; their normals must still come out (once, this fit failed).
fn samples_on_a_line_fit_a_hull() {
    let samples = [
        [0.5518785732766966, -0.2682973291104842, 0.24205858586821768],
        [-0.7247148470175939, 0.3523221723704197, -0.3178660298138229],
        [0.0, 0.0, 0.0],
        [0.6464537856644343, -0.3142753360713829, 0.2835400697983509],
        [0.6211133842966728, -0.3019560282838175, 0.2724255565386776],
        [
            -0.48110149624215903,
            0.23388885295264514,
            -0.21101516434680181,
        ],
        [0.0, 0.0, 0.0],
        [
            0.1562944549636783,
            -0.07598299128114457,
            0.06855206304337472,
        ],
        [0.4136590980267443, -0.2011015403331909, 0.1814343610141825],
    ]
    .map(DVec3::from);
    let hull = jointlimits::shape::HullShape::fit(&samples, 0.0, 0.0).expect("a hull");
    let center = samples.iter().copied().sum::<DVec3>() / samples.len() as f64;
    for s in samples {
        let local = (s - center).as_vec3();
        assert!(
            hull.polytope().contains(local),
            "{s} is outside its own hull"
        );
    }
}

/// Samples on a tilted line (rounded off it in the last bits), each thickened by an
/// icosahedron as a padded hull fit thickens them: the hull's long faces are slivers a
/// rounding error from flat, whose normals an orientation predicate that stops once its sign is
/// certain gets wrong by degrees. Every face's polygon must still lie in its plane.
#[test]
fn sliver_faces_of_thickened_lines_keep_their_planes() {
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let icosahedron: Vec<DVec3> = [
        (-1.0, phi, 0.0),
        (1.0, phi, 0.0),
        (-1.0, -phi, 0.0),
        (1.0, -phi, 0.0),
        (0.0, -1.0, phi),
        (0.0, 1.0, phi),
        (0.0, -1.0, -phi),
        (0.0, 1.0, -phi),
        (phi, 0.0, -1.0),
        (phi, 0.0, 1.0),
        (-phi, 0.0, -1.0),
        (-phi, 0.0, 1.0),
    ]
    .iter()
    .map(|&(x, y, z)| DVec3::new(x, y, z).normalize())
    .collect();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    for _ in 0..40 {
        let axis = DVec3::new(next(), next(), next()).normalize();
        let offset = DVec3::new(next(), next(), next());
        let radius = 1e-4 + 0.12 * next().abs();
        let points: Vec<DVec3> = (0..12)
            .flat_map(|_| {
                let sample = axis * next() * 1.5 + offset;
                icosahedron.iter().map(move |&o| sample + o * radius)
            })
            .collect();
        assert_holds(&points);
    }
}
