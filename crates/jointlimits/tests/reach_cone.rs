//! Reach cones against brute force: inclusion against arc-crossing parity, projection against
//! densely sampled boundaries, exit points against a bisected march, twist interpolation at the
//! corners and across slice planes, and validation errors.

use glam::{DVec3, Vec3};
use jointlimits::reach_cone::{ReachCone, ReachConeError, TwistRange};
use jointlimits_testdata::SplitMix;

struct Random(SplitMix);

impl Random {
    fn next(&mut self) -> f32 {
        self.0.next_signed()
    }

    fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(self.next(), self.next(), self.next());
            if v.length_squared() > 1e-4 && v.length_squared() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

fn polar(polar_angle_deg: f32, azimuth_deg: f32) -> Vec3 {
    let (p, a) = (polar_angle_deg.to_radians(), azimuth_deg.to_radians());
    Vec3::new(p.sin() * a.cos(), p.sin() * a.sin(), p.cos())
}

/// A concave star larger than a hemisphere around +Z: 16 points alternating 125° and 60° from
/// the visible point.
fn concave_cone() -> ReachCone {
    let boundary: Vec<Vec3> = (0..16)
        .map(|i| polar(if i % 2 == 0 { 125.0 } else { 60.0 }, i as f32 * 22.5))
        .collect();
    let twist: Vec<TwistRange> = (0..16)
        .map(|i| TwistRange {
            min: -0.5 - 0.05 * i as f32,
            max: 1.0 + 0.1 * i as f32,
        })
        .collect();
    ReachCone::with_twist(
        Vec3::Z,
        &boundary,
        TwistRange {
            min: -1.4,
            max: 1.4,
        },
        &twist,
    )
    .unwrap()
}

/// Whether minor arcs `a→b` and `c→d` cross (f64).
fn arcs_cross(a: DVec3, b: DVec3, c: DVec3, d: DVec3) -> bool {
    let (n1, n2) = (a.cross(b), c.cross(d));
    let Some(x) = n1.cross(n2).try_normalize() else {
        return false;
    };
    let on = |x: DVec3, a: DVec3, b: DVec3, n: DVec3| {
        a.cross(x).dot(n) >= 0.0 && x.cross(b).dot(n) >= 0.0
    };
    [x, -x].iter().any(|&x| on(x, a, b, n1) && on(x, c, d, n2))
}

/// Brute-force inclusion: the arc from the visible point crosses the boundary an even number of
/// times.
fn inside_by_parity(cone: &ReachCone, d: Vec3) -> bool {
    let v = cone.visible().as_dvec3();
    let p: Vec<DVec3> = cone.boundary().iter().map(|q| q.as_dvec3()).collect();
    let crossings = (0..p.len())
        .filter(|&i| arcs_cross(v, d.as_dvec3(), p[i], p[(i + 1) % p.len()]))
        .count();
    crossings % 2 == 0
}

#[test]
fn inclusion_agrees_with_crossing_parity_on_a_concave_cone_beyond_a_hemisphere() {
    let cone = concave_cone();
    let mut random = Random(SplitMix(3));
    let (mut disagreements, mut inside, mut tested) = (0, 0, 0);
    let mut slice = 0;
    for _ in 0..100_000 {
        let d = random.direction();
        if d.dot(cone.visible()) < -0.999 {
            continue; // the arc from V to near its antipode is ill-defined
        }
        tested += 1;
        let expected = inside_by_parity(&cone, d);
        let got = cone.contains(d);
        disagreements += usize::from(got != expected);
        inside += usize::from(got);
        assert_eq!(cone.contains_coherent(d, &mut slice), got);
    }
    assert_eq!(disagreements, 0, "{disagreements} of {tested}");
    // More than a hemisphere, less than the sphere.
    assert!(
        inside as f32 / tested as f32 > 0.5 && inside < tested,
        "{inside}/{tested}"
    );
}

#[test]
fn coherent_queries_along_a_path_agree_with_fresh_ones() {
    let cone = concave_cone();
    let mut slice = 0;
    for i in 0..20_000 {
        let t = i as f32 * 0.001;
        let d = polar(90.0 + 60.0 * (3.1 * t).sin(), 57.0 * t);
        assert_eq!(cone.contains_coherent(d, &mut slice), cone.contains(d));
        assert_eq!(slice, cone.slice_of(d));
    }
}

#[test]
fn projection_is_the_nearest_point_of_the_cone() {
    let cone = concave_cone();
    let p = cone.boundary();
    // Dense boundary samples (the nearest point of the region to an outside point is on it).
    let dense: Vec<Vec3> = (0..p.len())
        .flat_map(|i| {
            let (a, b) = (p[i], p[(i + 1) % p.len()]);
            (0..=400).map(move |k| a.slerp_like(b, k as f32 / 400.0))
        })
        .collect();
    let mut random = Random(SplitMix(9));
    for _ in 0..3000 {
        let d = random.direction();
        let q = cone.project(d);
        if cone.contains(d) {
            assert_eq!(q, d);
            continue;
        }
        assert!((q.length() - 1.0).abs() < 1e-5);
        let brute = dense.iter().map(|b| b.dot(d)).fold(f32::MIN, f32::max);
        assert!(q.dot(d) >= brute - 1e-6, "{d}: {} < {brute}", q.dot(d));
        // On the boundary: inside up to rounding, and projecting again stays put.
        assert!(cone.project(q).distance(q) < 1e-5);
    }
}

trait SlerpLike {
    fn slerp_like(self, to: Vec3, t: f32) -> Vec3;
}

impl SlerpLike for Vec3 {
    /// The point a fraction `t` along the minor arc (chord, normalised: same arc).
    fn slerp_like(self, to: Vec3, t: f32) -> Vec3 {
        self.lerp(to, t).normalize()
    }
}

#[test]
fn exit_points_match_a_bisected_march() {
    let cone = concave_cone();
    let mut random = Random(SplitMix(17));
    let mut checked = 0;
    while checked < 500 {
        let (a, b) = (random.direction(), random.direction());
        if !cone.contains(a) || cone.contains(b) || a.dot(b) < -0.95 {
            continue;
        }
        checked += 1;
        let exit = cone.exit_point(a, b).unwrap();
        // March along the arc to the first outside sample, then bisect.
        let steps = 4000;
        let first_out = (1..=steps)
            .find(|&k| !cone.contains(a.slerp_like(b, k as f32 / steps as f32)))
            .unwrap();
        let (mut lo, mut hi) = (
            (first_out - 1) as f32 / steps as f32,
            first_out as f32 / steps as f32,
        );
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if cone.contains(a.slerp_like(b, mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let marched = a.slerp_like(b, lo);
        let angle = exit.cross(marched).length().atan2(exit.dot(marched));
        assert!(angle < 1e-4, "exit {exit} vs march {marched}: {angle} rad");
    }
    assert_eq!(cone.exit_point(Vec3::Z, Vec3::Z), None);
}

#[test]
fn twist_limits_interpolate_the_corners_and_are_continuous_across_slices() {
    let cone = concave_cone();
    let at_v = cone.twist_limits(Vec3::Z);
    assert!((at_v.min + 1.4).abs() < 1e-5 && (at_v.max - 1.4).abs() < 1e-5);
    for (i, &p) in cone.boundary().iter().enumerate() {
        let at = cone.twist_limits(p);
        assert!(
            (at.min - (-0.5 - 0.05 * i as f32)).abs() < 1e-4,
            "{i}: {at:?}"
        );
        assert!(
            (at.max - (1.0 + 0.1 * i as f32)).abs() < 1e-4,
            "{i}: {at:?}"
        );
        // Either side of the slice plane through V and Pᵢ, halfway out.
        let mid = Vec3::Z.lerp(p, 0.5).normalize();
        let side = Vec3::Z.cross(p).normalize() * 1e-4;
        let (left, right) = (
            cone.twist_limits((mid + side).normalize()),
            cone.twist_limits((mid - side).normalize()),
        );
        assert!((left.min - right.min).abs() < 1e-3 && (left.max - right.max).abs() < 1e-3);
    }
}

#[test]
fn bad_boundaries_are_refused_with_the_reason() {
    let twist = TwistRange {
        min: -1.0,
        max: 1.0,
    };
    let square: Vec<Vec3> = (0..4).map(|i| polar(40.0, 90.0 * i as f32)).collect();
    assert!(ReachCone::new(Vec3::Z, &square, twist).is_ok());
    let clockwise: Vec<Vec3> = square.iter().rev().copied().collect();
    assert!(matches!(
        ReachCone::new(Vec3::Z, &clockwise, twist),
        Err(ReachConeError::NotStar { .. })
    ));
    assert_eq!(
        ReachCone::new(Vec3::Z, &square[..2], twist),
        Err(ReachConeError::TooFewPoints { count: 2 })
    );
    let twice: Vec<Vec3> = (0..7)
        .map(|i| polar(40.0, 720.0 / 7.0 * i as f32))
        .collect();
    assert_eq!(
        ReachCone::new(Vec3::Z, &twice, twist),
        Err(ReachConeError::Winding { turns: 2 })
    );
    let mut holes = square.clone();
    holes[2] = Vec3::new(f32::NAN, 0.0, 1.0);
    assert_eq!(
        ReachCone::new(Vec3::Z, &holes, twist),
        Err(ReachConeError::BadPoint { index: Some(2) })
    );
    let inverted = TwistRange {
        min: 1.0,
        max: -1.0,
    };
    assert!(matches!(
        ReachCone::new(Vec3::Z, &square, inverted),
        Err(ReachConeError::Twist(_))
    ));
    // A point nearer the visible point than f32 can resolve its slices' weights.
    let mut sliver = square.clone();
    sliver[1] = polar(0.05, 90.0);
    assert!(matches!(
        ReachCone::new(Vec3::Z, &sliver, twist),
        Err(ReachConeError::NearVisible { index: 1, angle }) if angle < 1e-3
    ));
    sliver[1] = polar(0.6, 90.0);
    assert!(ReachCone::new(Vec3::Z, &sliver, twist).is_ok());
    // The antipode of the visible point is never inside.
    let cone = ReachCone::new(Vec3::Z, &square, twist).unwrap();
    assert!(!cone.contains(-Vec3::Z));
}

/// Angular distance from `V = +Z` and azimuth of a direction.
fn radius_and_azimuth(d: Vec3) -> (f64, f64) {
    let d = d.as_dvec3();
    (
        d.truncate().length().atan2(d.z),
        d.y.atan2(d.x).rem_euclid(std::f64::consts::TAU),
    )
}

/// The paper's example: four points 30° east, 15° north, 30° west and 15° south of `V`,
/// smoothed twice, against the spherical ellipse `(θ cos φ / 30°)² + (θ sin φ / 15°)² = 1`
/// (angle `θ` from `V` at azimuth `φ`). The smoothed polygon's vertices and edges (sampled
/// densely along their great circles) are compared with the ellipse at the same azimuth.
#[test]
fn two_smoothing_steps_round_a_rhombus_into_an_ellipse() {
    let rhombus = [
        polar(30.0, 0.0),
        polar(15.0, 90.0),
        polar(30.0, 180.0),
        polar(15.0, 270.0),
    ];
    let flat = TwistRange {
        min: -1.0,
        max: 1.0,
    };
    let cone = ReachCone::new(Vec3::Z, &rhombus, flat).unwrap();
    let smoothed = cone.smoothed(2).unwrap();
    assert_eq!(smoothed.boundary().len(), 16);
    let (a, b) = (30f64.to_radians(), 15f64.to_radians());
    let ellipse =
        |azimuth: f64| 1.0 / ((azimuth.cos() / a).powi(2) + (azimuth.sin() / b).powi(2)).sqrt();
    let error = |d: Vec3| {
        let (radius, azimuth) = radius_and_azimuth(d);
        (radius - ellipse(azimuth)).abs()
    };
    let points = smoothed.boundary();
    let vertex_error = points.iter().map(|&p| error(p)).fold(0.0, f64::max);
    let mut edge_error = 0.0f64;
    for i in 0..points.len() {
        let (p, q) = (points[i], points[(i + 1) % points.len()]);
        for k in 0..=100 {
            edge_error = edge_error.max(error(p.slerp_direction(q, k as f32 / 100.0)));
        }
    }
    let before = (0..4)
        .flat_map(|i| {
            let (p, q) = (rhombus[i], rhombus[(i + 1) % 4]);
            (0..=100).map(move |k| p.slerp_direction(q, k as f32 / 100.0))
        })
        .map(error)
        .fold(0.0, f64::max);
    println!(
        "smoothing the 30°/15° rhombus twice: max angular error against the spherical ellipse \
         {:.3}° at vertices, {:.3}° along edges (the rhombus itself: {:.3}°)",
        vertex_error.to_degrees(),
        edge_error.to_degrees(),
        before.to_degrees()
    );
    // 16 points: the vertices lie within a quarter degree; the great-circle chords between
    // them cut inside the curve by up to about 0.65°.
    assert!(
        vertex_error.to_degrees() < 0.3,
        "{}",
        vertex_error.to_degrees()
    );
    assert!(
        edge_error.to_degrees() < 0.75,
        "{}",
        edge_error.to_degrees()
    );
    assert!(edge_error < before / 5.0);
    // The smoothed cone is still a valid star and keeps the twist limits.
    assert!(smoothed.contains(Vec3::Z));
    assert_eq!(smoothed.twist_limits(Vec3::Z), flat);
}

trait SlerpDirection {
    fn slerp_direction(self, to: Vec3, t: f32) -> Vec3;
}

impl SlerpDirection for Vec3 {
    /// The point a fraction `t` along the great-circle arc to `to`.
    fn slerp_direction(self, to: Vec3, t: f32) -> Vec3 {
        let angle = self.angle_between(to);
        if angle < 1e-6 {
            return self;
        }
        ((self * ((1.0 - t) * angle).sin() + to * (t * angle).sin()) / angle.sin()).normalize()
    }
}

#[test]
fn smoothing_reports_a_boundary_that_stops_being_a_star() {
    // A thin spike between two near-collinear neighbours: the subdivision overshoots past the
    // slice planes around the spike.
    let boundary = [
        polar(40.0, 0.0),
        polar(40.0, 100.0),
        polar(150.0, 104.0),
        polar(40.0, 108.0),
        polar(40.0, 200.0),
    ];
    let cone = ReachCone::new(Vec3::Z, &boundary, TwistRange { min: 0.0, max: 0.0 }).unwrap();
    assert!(matches!(
        cone.smoothed(1),
        Err(ReachConeError::NotStar { .. })
    ));
}

#[test]
fn cones_survive_a_round_trip_through_json_and_rotation() {
    let cone = concave_cone();
    let text = serde_json::to_string(&cone).unwrap();
    let back: ReachCone = serde_json::from_str(&text).unwrap();
    let mut random = Random(SplitMix(5));
    for _ in 0..2_000 {
        let d = random.direction();
        assert_eq!(cone.contains(d), back.contains(d));
    }
    let broken = text.replacen("\"boundary\":[[", "\"boundary\":[[-", 1);
    let error = serde_json::from_str::<ReachCone>(&broken).unwrap_err();
    assert!(error.to_string().contains("counter-clockwise"), "{error}");
    let turn = glam::Quat::from_axis_angle(Vec3::new(1.0, 2.0, -0.5).normalize(), 1.1);
    let turned = cone.rotated(turn);
    for _ in 0..2_000 {
        let d = random.direction();
        assert_eq!(cone.contains(d), turned.contains(turn * d), "{d}");
    }
}

/// A cone holding the direction opposite its twist axis: at a swing of exactly 180° every twist
/// splits the rotation, so such a rotation is allowed whatever its own split's twist, and near
/// it whatever lies within the tolerance (as a rotation) along the family of splits. Before, a
/// sweep through 180° was refused at its middle frame and the projection moved it by up to the
/// twist's distance to the range.
#[test]
fn rotations_through_a_half_swing_are_allowed_where_any_split_is() {
    use glam::Quat;
    use jointlimits::reach_cone::ReachConeLimit;
    use jointlimits::{LimitContext, RotationLimit};
    let none = LimitContext::NONE;
    // The visible point +Z is the twist axis's opposite.
    let limit = ReachConeLimit {
        twist_axis: -Vec3::Z,
        cone: concave_cone(),
    };
    let mut random = Random(SplitMix(41));
    for _ in 0..200 {
        let around = random.next() * std::f32::consts::PI;
        let across = Vec3::new(around.cos(), around.sin(), 0.0);
        // Every twist, the visible point's range [−1.4, 1.4] included or not.
        let twist = random.next() * std::f32::consts::PI;
        for short in [0.0, 1e-7, 1e-6] {
            let q = Quat::from_axis_angle(across, std::f32::consts::PI - short)
                * Quat::from_axis_angle(-Vec3::Z, twist);
            assert!(
                limit.contains(q, &none),
                "twist {twist}, {short} short of 180°"
            );
            let nearest = limit.nearest(q, &none);
            assert!(nearest.inside && nearest.relative == q);
            let continuing = limit.nearest_continuing(q, Vec3::Z.extend(0.0), &none);
            assert!(continuing.inside && continuing.relative == q);
        }
    }
    // Farther from 180° the family reaches less far than the twist's miss: refused.
    let q = Quat::from_axis_angle(Vec3::X, std::f32::consts::PI - 0.05)
        * Quat::from_axis_angle(-Vec3::Z, 3.0);
    assert!(!limit.contains(q, &none));
}
