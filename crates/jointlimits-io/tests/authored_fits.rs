//! The authored kinds fitted from real clips (`fit --shape euler|hinge|cone|spherical-ellipse`):
//! each holds every frame of the clip it was fitted on, and is no larger than a brute-force
//! search finds possible for its kind (within 1°): Euler and twist ranges against every start
//! angle on a fine grid, the cone against a grid of centres refined by a pattern search, the ellipse against a grid of
//! orientations and radii, and the hinge's axis against a grid of axes.

use std::f64::consts::{PI, TAU};

use glam::{DQuat, DVec2, DVec3, Quat, Vec3};
use jointlimits::fit::{FitOptions, fit_skeleton_limits};
use jointlimits::{JointLimit, LimitRegion, Motion, SkeletonLimits, TwistRange};
use jointlimits_io::{Bvh, read_bvh_file};
use jointlimits_testdata::fixture;

const ONE_DEGREE: f64 = PI / 180.0;

/// The clip, the joints to look at, and their local rotations on every frame.
struct Case {
    bvh: Bvh,
    motion: Motion,
    joints: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    [
        (
            "cmu_daz/martial_04.bvh",
            &["lShldr", "lForeArm", "rThigh", "lShin", "neck"][..],
        ),
        (
            "cmu_max/131_01.bvh",
            &["LeftShoulder", "RightKnee", "LeftHip", "Neck"][..],
        ),
    ]
    .into_iter()
    .filter_map(|(name, joints)| {
        let bvh = read_bvh_file(&fixture(name)?).unwrap();
        let motion = bvh.to_motion();
        Some(Case {
            bvh,
            motion,
            joints,
        })
    })
    .collect()
}

fn fit(case: &Case, shape: &str) -> SkeletonLimits {
    let options = FitOptions {
        shape: shape.parse().unwrap(),
        padding: 0.0,
        ..FitOptions::default()
    };
    fit_skeleton_limits(&case.bvh.skeleton, &[&case.motion], &options, &|_| {}).unwrap()
}

/// Each joint's limit and its frames' rotations relative to the limit's reference.
fn joints<'a>(case: &'a Case, limits: &'a SkeletonLimits) -> Vec<(&'a JointLimit, Vec<Quat>)> {
    case.joints
        .iter()
        .map(|&name| {
            let index = case.bvh.skeleton.find(name).unwrap();
            let limit = limits.joints.iter().find(|l| l.joint == name).unwrap();
            let relative = (0..case.motion.frame_count())
                .map(|f| limit.relative(case.motion.frame_rotations(f)[index]))
                .collect();
            (limit, relative)
        })
        .collect()
}

/// The narrowest arc holding `angles` (mod 2π) over start angles on a 0.01° grid. From a start
/// angle, the arc must reach the last angle before it around the circle.
fn brute_force_arc(angles: &[f64]) -> f64 {
    // (A tiny negative angle's remainder rounds up to 2π itself: that is 0.)
    let mut around: Vec<f64> = angles.iter().map(|a| a.rem_euclid(TAU) % TAU).collect();
    around.sort_by(f64::total_cmp);
    (0..36_000)
        .map(|step| {
            let start = f64::from(step) * TAU / 36_000.0;
            let before = around.partition_point(|&a| a < start);
            let last = around[(before + around.len() - 1) % around.len()];
            (last - start).rem_euclid(TAU)
        })
        .fold(f64::INFINITY, f64::min)
}

/// The widest angle from `centre` to any of `directions`, stopping early past `bound`.
fn widest(directions: &[DVec3], centre: DVec3, bound: f64) -> f64 {
    let mut lowest = 1.0f64;
    let floor = bound.cos();
    for d in directions {
        lowest = lowest.min(d.dot(centre));
        if lowest < floor {
            break;
        }
    }
    lowest.clamp(-1.0, 1.0).acos()
}

/// The smallest cap radius over a grid of centres, refined by a shrinking pattern search around
/// the best few.
fn brute_force_cap(directions: &[DVec3]) -> f64 {
    let mut scored: Vec<(f64, DVec3)> = sphere_grid(20_000)
        .map(|c| (widest(directions, c, PI), c))
        .collect();
    scored.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut overall = f64::INFINITY;
    for &(radius, centre) in scored.iter().take(5) {
        let mut best = (radius, centre);
        let mut step = 0.02;
        while step > 1e-6 {
            let (e1, e2) = best.1.any_orthonormal_pair();
            let mut moved = false;
            for (u, v) in [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)] {
                let c = (best.1 + step * (u * e1 + v * e2)).normalize();
                let r = widest(directions, c, best.0);
                if r < best.0 {
                    (best, moved) = ((r, c), true);
                }
            }
            if !moved {
                step /= 2.0;
            }
        }
        overall = overall.min(best.0);
    }
    overall
}

/// Points of a Fibonacci spiral over the sphere.
fn sphere_grid(n: usize) -> impl Iterator<Item = DVec3> {
    (0..n).map(move |i| {
        let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
        let phi = i as f64 * 2.399_963_229_728_653;
        let r = (1.0 - z * z).sqrt();
        DVec3::new(r * phi.cos(), r * phi.sin(), z)
    })
}

/// `2·atan2(v·axis, w)`: the angle of `q`'s twist about `axis`.
fn angle_about(q: DQuat, axis: DVec3) -> f64 {
    2.0 * DVec3::new(q.x, q.y, q.z).dot(axis).atan2(q.w)
}

/// The swing of `q` about `axis` as a point of the plane `(first, axis × first)`, and its twist.
fn swing_plane(q: DQuat, axis: DVec3, first: DVec3) -> (DVec2, f64) {
    let twist = angle_about(q, axis);
    let swing = q * DQuat::from_axis_angle(axis, twist).conjugate();
    let swing = if swing.w < 0.0 { -swing } else { swing };
    let (a, angle) = swing.to_axis_angle();
    let s = a * angle;
    (DVec2::new(s.dot(first), s.dot(axis.cross(first))), twist)
}

#[test]
fn every_fitted_authored_kind_holds_its_frames() {
    for case in cases() {
        for shape in ["euler", "euler-xyz", "cone", "spherical-ellipse", "hinge"] {
            let limits = fit(&case, shape);
            for (limit, relative) in joints(&case, &limits) {
                for q in relative {
                    let answer = limit.limit_relative(q);
                    if let LimitRegion::Hinge(hinge) = &limit.region {
                        // A hinge holds the angle about its axis; the rest is off the hinge.
                        let (angle, _) = hinge.angles(q);
                        let range = TwistRange {
                            min: hinge.min,
                            max: hinge.max,
                        };
                        let outside = range.measure(angle).distance;
                        assert!(outside <= 2e-5, "{shape} {}: {outside}", limit.joint);
                    } else {
                        assert!(answer.inside, "{shape} {}: {q}", limit.joint);
                    }
                }
            }
        }
    }
}

#[test]
fn fitted_euler_ranges_are_the_narrowest_and_the_order_the_smallest() {
    for case in cases() {
        let chosen = fit(&case, "euler");
        for (limit, relative) in joints(&case, &chosen) {
            let LimitRegion::Euler(euler) = &limit.region else {
                panic!("not Euler")
            };
            let volume_of = |order: jointlimits::EulerOrder| -> f64 {
                let triples: Vec<_> = relative.iter().map(|&q| order.from_quat(q)).collect();
                (0..3)
                    .map(|c| brute_force_arc(&triples.iter().map(|t| t[c]).collect::<Vec<_>>()))
                    .product()
            };
            let triples: Vec<_> = relative.iter().map(|&q| euler.order.from_quat(q)).collect();
            for channel in 0..3 {
                let angles: Vec<f64> = triples.iter().map(|t| t[channel]).collect();
                let width = f64::from(euler.max[channel] - euler.min[channel]);
                let brute = brute_force_arc(&angles);
                assert!(
                    width <= brute + ONE_DEGREE,
                    "{}: {width} > {brute}",
                    limit.joint
                );
            }
            let fitted_volume: f64 = (0..3)
                .map(|c| f64::from(euler.max[c] - euler.min[c]))
                .product();
            let smallest = jointlimits::EulerOrder::ALL
                .into_iter()
                .map(volume_of)
                .fold(f64::INFINITY, f64::min);
            assert!(
                fitted_volume <= smallest * 1.02 + 1e-6,
                "{} {}: volume {fitted_volume} > {smallest}",
                limit.joint,
                euler.order
            );
        }
    }
}

#[test]
fn fitted_cones_and_twists_are_no_wider_than_a_brute_force_search() {
    for case in cases() {
        let limits = fit(&case, "cone");
        for (limit, relative) in joints(&case, &limits) {
            let LimitRegion::Cone(cone) = &limit.region else {
                panic!("not a cone")
            };
            let axis = cone.twist_axis.as_dvec3();
            let directions: Vec<DVec3> = relative.iter().map(|q| q.as_dquat() * axis).collect();
            let brute = brute_force_cap(&directions);
            let radius = f64::from(cone.max_swing);
            assert!(
                radius <= brute + 1e-6,
                "{}: {radius} > {brute}",
                limit.joint
            );
            let twists: Vec<f64> = relative
                .iter()
                .map(|q| angle_about(q.as_dquat(), axis))
                .collect();
            let width = f64::from(cone.twist.max - cone.twist.min);
            let brute = brute_force_arc(&twists);
            assert!(
                width <= brute + ONE_DEGREE,
                "{}: twist {width} > {brute}",
                limit.joint
            );
        }
    }
}

#[test]
fn fitted_spherical_ellipses_are_no_larger_than_a_brute_force_search() {
    for case in cases() {
        let limits = fit(&case, "spherical-ellipse");
        for (limit, relative) in joints(&case, &limits) {
            let LimitRegion::SphericalEllipse(ellipse) = &limit.region else {
                panic!("not a spherical ellipse")
            };
            let axis = ellipse.twist_axis.as_dvec3();
            let first = ellipse.first_axis.as_dvec3();
            let swings: Vec<DVec2> = relative
                .iter()
                .map(|q| swing_plane(q.as_dquat(), axis, first).0)
                .collect();
            // Every orientation on a 0.5° grid; for each, the first radius on a fine scale and
            // the least second radius that holds every swing.
            let mut brute = f64::INFINITY;
            for step in 0..360 {
                let (sin, cos) = (f64::from(step) * 0.5 * ONE_DEGREE).sin_cos();
                let turned: Vec<DVec2> = swings
                    .iter()
                    .map(|p| DVec2::new(cos * p.x + sin * p.y, -sin * p.x + cos * p.y))
                    .collect();
                let widest = turned.iter().map(|p| p.x.abs()).fold(1e-9, f64::max);
                for k in 1..=300 {
                    let a = widest * (1.0 + 3.0 * f64::from(k) / 300.0);
                    let b = turned
                        .iter()
                        .map(|p| p.y.abs() / (1.0 - (p.x / a).powi(2)).sqrt())
                        .fold(0.0, f64::max);
                    brute = brute.min(a * b);
                }
            }
            // Compared as the radius of the circle of the same area.
            let fitted = f64::from(ellipse.radii.x * ellipse.radii.y).sqrt();
            assert!(
                fitted <= brute.sqrt() + ONE_DEGREE,
                "{}: {fitted} > {}",
                limit.joint,
                brute.sqrt()
            );
        }
    }
}

#[test]
fn fitted_hinges_take_the_axis_with_the_least_off_axis_motion() {
    let axes: Vec<DVec3> = sphere_grid(20_000).filter(|a| a.z >= 0.0).collect();
    for case in cases() {
        let limits = fit(&case, "hinge");
        for (limit, relative) in joints(&case, &limits) {
            let LimitRegion::Hinge(hinge) = &limit.region else {
                panic!("not a hinge")
            };
            // The root mean square of the angle off the axis, as the hinge measures it.
            let off_axis = |axis: Vec3| -> f64 {
                let probe = jointlimits::authored::HingeLimit {
                    axis,
                    min: 0.0,
                    max: 0.0,
                };
                let sum: f64 = relative
                    .iter()
                    .map(|&q| f64::from(probe.angles(q).1).powi(2))
                    .sum();
                (sum / relative.len() as f64).sqrt()
            };
            let fitted = off_axis(hinge.axis);
            let brute = axes
                .iter()
                .map(|a| off_axis(a.as_vec3()))
                .fold(f64::INFINITY, f64::min);
            assert!(
                fitted <= brute + ONE_DEGREE,
                "{}: off-axis {fitted} > {brute}",
                limit.joint
            );
            let angles: Vec<f64> = relative
                .iter()
                .map(|&q| f64::from(hinge.angles(q).0))
                .collect();
            let width = f64::from(hinge.max - hinge.min);
            let brute = brute_force_arc(&angles);
            assert!(
                width <= brute + ONE_DEGREE,
                "{}: {width} > {brute}",
                limit.joint
            );
        }
    }
}

/// The angles that size an authored region: Euler ranges (their geometric mean), hinge range,
/// cone radius, ellipse radii (their geometric mean) and twist range.
fn extents(region: &LimitRegion) -> Vec<f64> {
    let width = |min: f32, max: f32| f64::from(max - min);
    match region {
        // The order may differ between fits: the geometric mean width.
        LimitRegion::Euler(l) => vec![
            (0..3)
                .map(|c| width(l.min[c], l.max[c]))
                .product::<f64>()
                .cbrt(),
        ],
        LimitRegion::Hinge(l) => vec![width(l.min, l.max)],
        LimitRegion::Cone(l) => vec![f64::from(l.max_swing), width(l.twist.min, l.twist.max)],
        // The ellipse's size is its area: the geometric mean radius.
        LimitRegion::SphericalEllipse(l) => vec![
            f64::from(l.radii.x * l.radii.y).sqrt(),
            width(l.twist.min, l.twist.max),
        ],
        other => panic!("not an authored kind: {}", other.kind_name()),
    }
}

/// `fit --hold 0.99` on real joints with glitches planted (0.5% of the frames replaced by
/// Haar-random rotations): every kind holds at least 99% of the frames, is no larger than the fit
/// to the clean frames (within 1°), while holding every frame widens it by far more.
#[test]
fn holding_a_share_leaves_planted_glitches_out() {
    use jointlimits::fit::authored::{AuthoredShape, fit_authored_holding};
    use jointlimits::{LimitContext, RotationLimit};
    let cases = cases();
    if cases.is_empty() {
        return;
    }
    let mut state = 99u64;
    let mut uniform = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    for case in &cases {
        for &name in case.joints.iter().take(3) {
            let index = case.bvh.skeleton.find(name).unwrap();
            let clean: Vec<Quat> = (0..case.motion.frame_count().min(1500))
                .map(|f| case.motion.frame_rotations(f)[index])
                .collect();
            let mut glitched = clean.clone();
            for k in 0..clean.len() / 200 {
                // Shoemake's uniform rotation.
                let (u1, u2, u3) = (uniform(), uniform() * 6.2831855, uniform() * 6.2831855);
                let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
                let q = Quat::from_xyzw(a * u2.sin(), a * u2.cos(), b * u3.sin(), b * u3.cos());
                glitched[(k * 197 + 50) % clean.len()] = q;
            }
            for shape in [
                AuthoredShape::Euler(None),
                AuthoredShape::Hinge,
                AuthoredShape::Cone,
                AuthoredShape::SphericalEllipse,
            ] {
                let fit = |rotations: &[Quat], hold: f64| {
                    fit_authored_holding(shape, rotations, Vec3::Y, 0.0, hold).unwrap()
                };
                let held = fit(&glitched, 0.99);
                let relative = |q: Quat| held.recentre.inverse() * q;
                let holds = |q: Quat| match &held.region {
                    // A hinge holds the angle about its axis; the rest is off the hinge. A
                    // glitch turned half a turn off the axis has no defined angle about it
                    // (`atan2` of two tiny numbers, different in f32 and f64): any is held.
                    LimitRegion::Hinge(hinge) => {
                        let range = TwistRange {
                            min: hinge.min,
                            max: hinge.max,
                        };
                        let along = Vec3::new(q.x, q.y, q.z).dot(hinge.axis);
                        along.hypot(q.w) < 1e-3 || range.measure(hinge.angles(q).0).distance <= 2e-5
                    }
                    region => region.contains(relative(q), &LimitContext::NONE),
                };
                let inside = glitched.iter().filter(|&&q| holds(q)).count();
                assert!(
                    inside as f64 >= 0.99 * glitched.len() as f64,
                    "{name} {shape:?}: holds {inside} of {}",
                    glitched.len()
                );
                let (held, clean_fit, everything) = (
                    extents(&held.region),
                    extents(&fit(&clean, 1.0).region),
                    extents(&fit(&glitched, 1.0).region),
                );
                for (k, (h, c)) in held.iter().zip(&clean_fit).enumerate() {
                    assert!(
                        *h <= c + ONE_DEGREE,
                        "{name} {shape:?} extent {k}: {}° held, {}° clean",
                        h.to_degrees(),
                        c.to_degrees()
                    );
                }
                let grown = everything
                    .iter()
                    .zip(&clean_fit)
                    .map(|(e, c)| e - c)
                    .fold(0.0, f64::max);
                assert!(
                    grown > 5.0 * ONE_DEGREE,
                    "{name} {shape:?}: the glitches widen the full fit by only {}°",
                    grown.to_degrees()
                );
            }
        }
    }
}
