//! Property tests shared by every limit shape: inside points are left alone, projections land
//! inside, are idempotent, satisfy the optimality condition of a convex projection against the
//! fitted samples, and are never farther than a brute-force nearest boundary point.
//! Clouds include the degenerate cases: one sample, a line, a plane.

use glam::{DQuat, DVec3, Vec3};
use jointlimits::shape::{
    BoxShape, EllipsoidFit, EllipsoidShape, Frame, HullShape, KdopDirections, KdopShape,
    LimitShape, Shape,
};
use proptest::prelude::*;

const TOLERANCE: f32 = 2e-5;

#[derive(Clone, Copy, Debug)]
enum Cloud {
    Blob,
    Plane,
    Line,
    Single,
}

fn cloud_strategy() -> impl Strategy<Value = Vec<DVec3>> {
    (
        prop_oneof![
            4 => Just(Cloud::Blob),
            2 => Just(Cloud::Plane),
            1 => Just(Cloud::Line),
            1 => Just(Cloud::Single),
        ],
        prop::collection::vec(prop::array::uniform3(-1.0f64..1.0), 1..60),
        prop::array::uniform3(0.05f64..1.2),
        prop::array::uniform4(-1.0f64..1.0),
        prop::array::uniform3(-1.5f64..1.5),
    )
        .prop_map(|(kind, raw, spread, turn, offset)| {
            let rotation = DQuat::from_xyzw(turn[0], turn[1], turn[2], turn[3] + 1e-3).normalize();
            let mut spread = DVec3::from(spread);
            match kind {
                Cloud::Blob => {}
                Cloud::Plane => spread.z = 0.0,
                Cloud::Line => {
                    spread.y = 0.0;
                    spread.z = 0.0
                }
                Cloud::Single => spread = DVec3::ZERO,
            }
            raw.iter()
                .map(|r| rotation * (DVec3::from(*r) * spread) + DVec3::from(offset))
                .collect()
        })
}

fn query_strategy() -> impl Strategy<Value = Vec<Vec3>> {
    prop::collection::vec(prop::array::uniform3(-4.0f32..4.0), 24)
        .prop_map(|v| v.into_iter().map(Vec3::from).collect())
}

/// Boundary points found by bisection along rays from an inside point, using only `contains`.
fn brute_force_boundary(shape: &Shape, inside: Vec3) -> Vec<Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let count = 1500;
    (0..count)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
            let r = (1.0 - z * z).sqrt();
            let direction = Vec3::new(
                r * (golden * i as f32).cos(),
                r * (golden * i as f32).sin(),
                z,
            );
            let (mut lo, mut hi) = (0.0f32, 16.0f32);
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if shape.contains(inside + direction * mid) {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            inside + direction * lo
        })
        .collect()
}

fn check_shape(shape: &Shape, samples: &[DVec3], queries: &[Vec3]) -> Result<(), TestCaseError> {
    let samples32: Vec<Vec3> = samples.iter().map(|s| s.as_vec3()).collect();
    for s in &samples32 {
        prop_assert!(
            shape.distance(*s) <= TOLERANCE,
            "{} misses sample {s}",
            shape.label()
        );
    }
    let center = samples32.iter().copied().sum::<Vec3>() / samples32.len() as f32;
    let boundary = brute_force_boundary(shape, center);
    let label = shape.label();
    for &raw in queries {
        let p = center + raw;
        let projection = shape.project(p);
        prop_assert!(projection.point.is_finite());
        if shape.contains(p) {
            prop_assert!(
                projection.inside,
                "{label}: contains but project says outside"
            );
            prop_assert_eq!(projection.point, p);
            continue;
        }
        let q = projection.point;
        prop_assert!(!projection.inside);
        prop_assert!((projection.distance - p.distance(q)).abs() <= 1e-5);
        prop_assert!(
            shape.distance(q) <= TOLERANCE,
            "{label}: projection {q} of {p} is outside"
        );
        prop_assert!(
            shape.project(q).point.distance(q) <= TOLERANCE,
            "{label}: not idempotent"
        );
        // Optimality of a convex projection: every point x of the region lies on the far side
        // of the plane through q normal to p − q.
        let Some(normal) = (p - q).try_normalize() else {
            continue;
        };
        // The normal of a short p − q is only known to about the f32 rounding of p and q over
        // its length.
        let normal_error = 1e-6 * (1.0 + p.length()) / p.distance(q);
        for x in samples32.iter().chain(&boundary) {
            prop_assert!(
                normal.dot(*x - q) <= 1e-4 + normal_error * x.distance(q),
                "{label}: {x} is nearer to {p} than the projection {q}"
            );
        }
        let brute = boundary
            .iter()
            .map(|b| b.distance(p))
            .fold(f32::INFINITY, f32::min);
        prop_assert!(
            projection.distance <= brute + 1e-5,
            "{label}: projection distance {} > brute force {brute}",
            projection.distance
        );
    }
    Ok(())
}

fn all_shapes(samples: &[DVec3], padding: f64) -> Vec<Shape> {
    vec![
        Shape::Box(BoxShape::fit(samples, Frame::axis_aligned(), padding).unwrap()),
        Shape::Box(BoxShape::fit(samples, Frame::principal(samples), padding).unwrap()),
        Shape::Ellipsoid(
            EllipsoidShape::fit(samples, samples, EllipsoidFit::Principal, padding).unwrap(),
        ),
        Shape::Ellipsoid(
            EllipsoidShape::fit(samples, samples, EllipsoidFit::MinimumVolume, padding).unwrap(),
        ),
        Shape::Kdop(KdopShape::fit(samples, samples, KdopDirections::Three, padding).unwrap()),
        Shape::Kdop(KdopShape::fit(samples, samples, KdopDirections::Seven, padding).unwrap()),
        Shape::Kdop(KdopShape::fit(samples, samples, KdopDirections::Thirteen, padding).unwrap()),
        Shape::Hull(HullShape::fit(samples, padding, 0.0).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("SHAPE_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(48),
        .. ProptestConfig::default()
    })]

    #[test]
    fn projections_are_exact(samples in cloud_strategy(), queries in query_strategy(), padding in prop_oneof![Just(0.0), 0.0f64..0.1]) {
        for shape in all_shapes(&samples, padding) {
            check_shape(&shape, &samples, &queries)?;
        }
    }

    /// Every ellipsoid a limits file may hold (semi-axes anywhere from the smallest to the
    /// largest the validation accepts, any orientation) projects every limit-space point to a
    /// finite point on its surface (up to f32 rounding of the point: a needle's surface is only
    /// known to about 1e-6 across it), no farther than its centre.
    #[test]
    fn extreme_valid_ellipsoids_project_finitely(
        exponents in prop::array::uniform3(0.0f32..1.0),
        turn in prop::array::uniform4(-1.0f32..1.0),
        queries in prop::collection::vec(prop::array::uniform3(-7.0f32..7.0), 1..16),
    ) {
        use jointlimits::validation::{MAX_COORDINATE, MIN_SEMI_AXIS};
        let span = (MAX_COORDINATE / MIN_SEMI_AXIS).ln();
        let semi_axes = Vec3::from(exponents.map(|e| MIN_SEMI_AXIS * (e * span).exp()));
        let rotation = glam::Quat::from_xyzw(turn[0], turn[1], turn[2], turn[3] + 1e-3).normalize();
        let shape = Shape::Ellipsoid(EllipsoidShape {
            frame: Frame { center: Vec3::ZERO, rotation: glam::Mat3::from_quat(rotation) },
            semi_axes,
        });
        prop_assert!(shape.validate().is_ok(), "{:?}", shape);
        for q in queries {
            let p = Vec3::from(q);
            let projection = shape.project(p);
            prop_assert!(projection.point.is_finite(), "{p} -> {:?} for {semi_axes}", projection.point);
            prop_assert!(shape.distance(projection.point) <= 1e-5, "{p} -> {} for {semi_axes}", projection.point);
            prop_assert!(projection.distance <= p.length() + 1e-5);
            if !projection.inside {
                // Every point between p and its nearest point has the same nearest point.
                let midway = shape.project((p + projection.point) / 2.0);
                prop_assert!(midway.point.distance(projection.point) <= 1e-4, "{p}: {} but midway {}", projection.point, midway.point);
            }
        }
    }

    #[test]
    fn shapes_survive_a_json_round_trip(samples in cloud_strategy(), queries in query_strategy()) {
        for shape in all_shapes(&samples, 0.02) {
            prop_assert!(shape.validate().is_ok(), "{:?}", shape);
            let text = serde_json::to_string(&shape).unwrap();
            let back: Shape = serde_json::from_str(&text).unwrap();
            for &p in &queries {
                // Far from a polytope's corner the nearest point is ill-conditioned in f32 (points
                // 1e-4 apart can be equally near), so compare distances.
                let gap = (back.distance(p) - shape.distance(p)).abs();
                prop_assert!(gap <= 1e-5, "{}: {gap} at {p}", shape.label());
            }
        }
    }
}

/// The seed's slab-by-slab clamp versus the exact projection on a skewed 13-DOP: the exact one is
/// never farther, and it is strictly nearer for most outside queries.
#[test]
fn kdop_projection_beats_slab_clamping() {
    let samples: Vec<DVec3> = (0..400)
        .map(|i| {
            let t = i as f64 * 0.61803;
            DVec3::new(
                (t * 3.1).sin() * 0.9,
                (t * 1.7).cos() * 0.3,
                (t * 2.3).sin() * 0.5 * (t * 0.7).cos(),
            )
        })
        .collect();
    let kdop = KdopShape::fit(&samples, &samples, KdopDirections::Thirteen, 0.0).unwrap();
    let (mut strictly_nearer, mut outside) = (0, 0);
    for i in 0..2000 {
        let t = i as f32 * 0.377;
        let p = Vec3::new((t * 1.3).sin(), (t * 2.9).cos(), (t * 0.31).sin()) * 2.0;
        if kdop.contains(p) {
            continue;
        }
        outside += 1;
        let exact = kdop.project(p).point;
        let mut local = kdop.frame.to_local(p);
        for ((d, &lo), &hi) in kdop.directions.iter().zip(&kdop.min).zip(&kdop.max) {
            local -= *d * (d.dot(local).clamp(lo, hi) - lo).min(0.0);
            local -= *d * (d.dot(local) - d.dot(local).clamp(lo, hi));
        }
        let clamped = kdop.frame.to_world(local);
        assert!(p.distance(exact) <= p.distance(clamped) + 1e-5);
        if p.distance(exact) + 1e-4 < p.distance(clamped) {
            strictly_nearer += 1;
        }
    }
    assert!(outside > 1000, "{outside}");
    assert!(
        strictly_nearer * 2 > outside,
        "{strictly_nearer} of {outside}"
    );
}

/// A 13-DOP of collinear samples is a needle 2e-4 wide whose corners nearly coincide; built from
/// the corners' hull it once lost half of its samples.
#[test]
fn a_needle_kdop_holds_its_collinear_samples() {
    let a = DVec3::new(-0.218619111462365, 1.9118603677964785, 1.0560624104895135);
    let b = DVec3::new(0.1929524417023935, 1.1892097420887957, 0.5303099742798938);
    let samples: Vec<DVec3> = (0..26)
        .map(|i| a + (b - a) * (((i * 104729 + 77686) % 1000) as f64 / 1000.0 * 3.0 - 1.5))
        .collect();
    let shape =
        Shape::Kdop(KdopShape::fit(&samples, &samples, KdopDirections::Thirteen, 0.0).unwrap());
    for s in &samples {
        assert!(shape.distance(s.as_vec3()) <= TOLERANCE, "misses {s}");
    }
}
