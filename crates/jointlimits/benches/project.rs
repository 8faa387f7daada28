//! Runtime projection cost: quaternion in, limited quaternion out.
//!
//! `project/<space>/<shape>`: a joint limit fitted to a shoulder-like random walk of 20,000
//! rotations; inputs are 4,096 rotations around the data, spread so that half of them are outside
//! that shape (the fraction is printed). Throughput is per rotation. Each rotation is made relative
//! to the reference, mapped to limit space (logarithm or swing-twist split), projected, and mapped
//! back. `project/...` runs the vectorised [`JointLimit::limit_many`] over the 4,096 inputs;
//! `project_one_at_a_time/...` calls [`JointLimit::limit`] on each, and `inside_one_at_a_time/...`
//! calls it on the allowed half of the inputs only (the common case at runtime).
//! `prepared_one_at_a_time/...` and `prepared_inside_one_at_a_time/...` are the same
//! calls on the limit prepared for many calls ([`PreparedLimit`]: cells of local rotations proven
//! allowed, answered from two loads).
//! `project_far/full/{kdop13,hull}` (and `project_far_one_at_a_time/...`) take inputs 1.8–2.8
//! data radii from the centre, all outside, where a polytope's projection sees the most faces.
//! Every limit has its searches built, as a crowd and a prepared limit build them
//! ([`JointLimit::build_searches`]: for k-DOPs and hulls, the grid of cubes naming the feature
//! nearest their points; the shares of its cubes inside, settled and with candidates are
//! printed).
//! `project/reach_cone` is a reach cone with swing-dependent twist fitted to the same walk (and
//! `prepared_one_at_a_time/reach_cone`, `prepared_inside_one_at_a_time/reach_cone` prepared).
//! `inside_one_at_a_time/authored/<kind>` and `prepared_inside_one_at_a_time/authored/<kind>`
//! are the Euler, cone and spherical-ellipse limits fitted to the walk, on allowed inputs;
//! `{inside,prepared_inside}_one_at_a_time/authored/hinge` and
//! `{inside,prepared_inside}_one_at_a_time/coupled` a hinge and a limit coupled to its parent
//! (see `hinge_and_coupled`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{DVec3, Quat, Vec3};
use jointlimits::fit::authored::AuthoredShape;
use jointlimits::fit::{FitOptions, ShapeKind, fit_joint_limit};
use jointlimits::prepared::PreparedLimit;
use jointlimits::rotation::{from_scaled_angle_axis, unroll};
use jointlimits::shape::{KdopDirections, Shape};
use jointlimits::{JointLimit, LimitRegion, SpaceKind};
use jointlimits_testdata::SplitMix;
use std::hint::black_box;

struct Random(SplitMix);

impl Random {
    fn next(&mut self) -> f32 {
        self.0.next_signed()
    }

    fn vec3(&mut self) -> Vec3 {
        Vec3::new(self.next(), self.next(), self.next())
    }
}

/// Limit-space points of a shoulder-like joint: a random walk in a tilted, offset box.
fn shoulder_walk(n: usize) -> Vec<Vec3> {
    let mut random = Random(SplitMix(11));
    let extent = Vec3::new(1.1, 0.8, 0.5);
    let tilt = Quat::from_axis_angle(DVec3::new(1.0, 2.0, 0.5).normalize().as_vec3(), 0.6);
    let offset = Vec3::new(0.3, -0.4, 0.2);
    let (mut p, mut velocity) = (Vec3::ZERO, Vec3::ZERO);
    (0..n)
        .map(|_| {
            velocity = 0.95 * velocity + 0.01 * random.vec3();
            p += velocity;
            for k in 0..3 {
                if p[k].abs() > extent[k] {
                    p[k] = p[k].signum() * extent[k];
                    velocity[k] = -velocity[k];
                }
            }
            tilt * p + offset
        })
        .collect()
}

fn limit_for(space: SpaceKind, shape: ShapeKind, walk: &[Vec3]) -> JointLimit {
    let mut rotations: Vec<Quat> = walk.iter().map(|&p| from_scaled_angle_axis(p)).collect();
    unroll(&mut rotations);
    let options = FitOptions {
        space,
        shape,
        padding: 0.02,
        subsample: 0.05,
        ..FitOptions::default()
    };
    let limit =
        fit_joint_limit("shoulder", Quat::IDENTITY, &[rotations], Vec3::Y, &options).unwrap();
    // As a crowd and a prepared limit do.
    limit.build_searches();
    limit
}

/// Inputs spread around the data: walk points pushed away from its centre by a factor drawn
/// uniformly from `scales`, plus noise of a tenth of the middle factor.
fn inputs(walk: &[Vec3], count: usize, scales: (f32, f32)) -> Vec<Quat> {
    let mut random = Random(SplitMix(5));
    let centre = walk.iter().copied().sum::<Vec3>() / walk.len() as f32;
    (0..count)
        .map(|_| {
            let index = ((random.next() * 0.5 + 0.5) * (walk.len() - 1) as f32) as usize;
            let scale = scales.0 + (scales.1 - scales.0) * (random.next() * 0.5 + 0.5);
            let p = centre
                + (walk[index] - centre) * scale
                + 0.05 * (scales.0 + scales.1) * random.vec3();
            from_scaled_angle_axis(p)
        })
        .collect()
}

fn fraction_outside(limit: &JointLimit, queries: &[Quat]) -> f64 {
    let outside = queries
        .iter()
        .filter(|&&q| {
            !limit
                .limit_relative(jointlimits::rotation::quat_abs(q))
                .inside
        })
        .count();
    outside as f64 / queries.len() as f64
}

/// Factors from half to one and a half times `spread`.
fn spread_around(spread: f32) -> (f32, f32) {
    (0.5 * spread, 1.5 * spread)
}

/// Inputs for `limit` with about half of them outside (the spread is found by bisection).
fn half_outside_inputs(limit: &JointLimit, walk: &[Vec3], count: usize) -> (Vec<Quat>, f64) {
    let (mut lo, mut hi) = (0.5f32, 4.0f32);
    for _ in 0..20 {
        let mid = 0.5 * (lo + hi);
        if fraction_outside(limit, &inputs(walk, count, spread_around(mid))) < 0.5 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let queries = inputs(walk, count, spread_around(0.5 * (lo + hi)));
    let fraction = fraction_outside(limit, &queries);
    (queries, fraction)
}

fn projection(c: &mut Criterion) {
    let walk = shoulder_walk(20_000);
    let cases = [
        ("full", SpaceKind::Full, "box", ShapeKind::Box),
        ("full", SpaceKind::Full, "obb", ShapeKind::Obb),
        ("full", SpaceKind::Full, "ellipsoid", ShapeKind::Ellipsoid),
        (
            "full",
            SpaceKind::Full,
            "kdop13",
            ShapeKind::Kdop(KdopDirections::Thirteen),
        ),
        ("full", SpaceKind::Full, "hull", ShapeKind::Hull),
        ("swing_twist", SpaceKind::SwingTwist, "box", ShapeKind::Box),
        (
            "swing_twist",
            SpaceKind::SwingTwist,
            "ellipsoid",
            ShapeKind::Ellipsoid,
        ),
        (
            "swing_twist",
            SpaceKind::SwingTwist,
            "kdop13",
            ShapeKind::Kdop(KdopDirections::Thirteen),
        ),
    ];
    for (space_name, space, shape_name, shape) in cases {
        let limit = limit_for(space, shape, &walk);
        let (queries, outside) = half_outside_inputs(&limit, &walk, 4096);
        eprintln!(
            "project/{space_name}/{shape_name}: {:.0}% of inputs outside",
            100.0 * outside
        );
        bench_batched(
            c,
            &format!("project/{space_name}"),
            shape_name,
            &limit,
            &queries,
        );
        bench_one_at_a_time(
            c,
            &format!("project_one_at_a_time/{space_name}"),
            shape_name,
            &limit,
            &queries,
        );
        bench_one_at_a_time(
            c,
            &format!("inside_one_at_a_time/{space_name}"),
            shape_name,
            &limit,
            &inside_only(&limit, &queries),
        );
        if matches!(space, SpaceKind::Full | SpaceKind::SwingTwist) {
            // The same calls on the limit prepared for many calls (cells proven allowed).
            let prepared = PreparedLimit::new(limit.clone());
            let inside = inside_only(&limit, &queries);
            let cells = prepared
                .inside_cells()
                .expect("full-space shapes have cells");
            let proven = inside.iter().filter(|&&q| cells.surely_allowed(q)).count();
            eprintln!(
                "prepared/{space_name}/{shape_name}: {proven} of {} allowed inputs in proven cells ({} kB)",
                inside.len(),
                cells.memory_bytes() / 1000
            );
            bench_prepared(
                c,
                &format!("prepared_one_at_a_time/{space_name}"),
                shape_name,
                &prepared,
                &queries,
            );
            bench_prepared(
                c,
                &format!("prepared_inside_one_at_a_time/{space_name}"),
                shape_name,
                &prepared,
                &inside,
            );
        }
    }
    // Far outside (1.8–2.8 data radii), where a polytope's projection sees the most faces.
    for (shape_name, shape) in [
        ("kdop13", ShapeKind::Kdop(KdopDirections::Thirteen)),
        ("hull", ShapeKind::Hull),
    ] {
        let limit = limit_for(SpaceKind::Full, shape, &walk);
        let queries = inputs(&walk, 4096, (1.8, 2.8));
        let polytope = match &limit.region {
            LimitRegion::Full(full) => match full.shape() {
                Shape::Kdop(kdop) => kdop.polytope(),
                Shape::Hull(hull) => hull.polytope(),
                _ => unreachable!("a polytope"),
            },
            _ => unreachable!("a full-space limit"),
        };
        eprintln!(
            "project_far/full/{shape_name}: {:.0}% of inputs outside; cubes inside, settled, with candidates: {:?}",
            100.0 * fraction_outside(&limit, &queries),
            polytope.feature_cube_shares()
        );
        bench_batched(c, "project_far/full", shape_name, &limit, &queries);
        bench_one_at_a_time(
            c,
            "project_far_one_at_a_time/full",
            shape_name,
            &limit,
            &queries,
        );
    }
    // The reach cone limits the direction of the twist axis and the twist, so it has one group
    // of its own.
    let limit = limit_for(SpaceKind::SwingTwist, ShapeKind::ReachCone, &walk);
    let (queries, outside) = half_outside_inputs(&limit, &walk, 4096);
    eprintln!(
        "project/reach_cone: {:.0}% of inputs outside",
        100.0 * outside
    );
    bench_batched(c, "project", "reach_cone", &limit, &queries);
    bench_one_at_a_time(c, "project_one_at_a_time", "reach_cone", &limit, &queries);
    let inside = inside_only(&limit, &queries);
    bench_one_at_a_time(c, "inside_one_at_a_time", "reach_cone", &limit, &inside);
    let prepared = PreparedLimit::new(limit.clone());
    let cells = prepared.inside_cells().expect("reach cones have cells");
    let proven = inside.iter().filter(|&&q| cells.surely_allowed(q)).count();
    eprintln!(
        "prepared/reach_cone: {proven} of {} allowed inputs in proven cells ({} kB)",
        inside.len(),
        cells.memory_bytes() / 1000
    );
    bench_prepared(
        c,
        "prepared_one_at_a_time",
        "reach_cone",
        &prepared,
        &queries,
    );
    bench_prepared(
        c,
        "prepared_inside_one_at_a_time",
        "reach_cone",
        &prepared,
        &inside,
    );
    // The authored kinds engines use, on allowed inputs, as they are and prepared.
    for (name, shape) in [
        ("euler", AuthoredShape::Euler(None)),
        ("cone", AuthoredShape::Cone),
        ("spherical_ellipse", AuthoredShape::SphericalEllipse),
    ] {
        let limit = limit_for(SpaceKind::SwingTwist, ShapeKind::Authored(shape), &walk);
        let (queries, _) = half_outside_inputs(&limit, &walk, 4096);
        let inside = inside_only(&limit, &queries);
        bench_one_at_a_time(c, "inside_one_at_a_time/authored", name, &limit, &inside);
        let prepared = PreparedLimit::new(limit.clone());
        if let Some(cells) = prepared.inside_cells() {
            let proven = inside.iter().filter(|&&q| cells.surely_allowed(q)).count();
            eprintln!(
                "prepared/authored/{name}: {proven} of {} allowed inputs in proven cells",
                inside.len()
            );
        }
        bench_prepared(
            c,
            "prepared_inside_one_at_a_time/authored",
            name,
            &prepared,
            &inside,
        );
    }
    hinge_and_coupled(c);
}

/// `inside_one_at_a_time/authored/hinge`: a hinge on rotations about its axis within its range;
/// `prepared_inside_one_at_a_time/authored/hinge` the same prepared (a hinge allows no open set
/// of rotations, so has no cells: its ends' half angles are worked out once instead).
/// `{inside,prepared_inside}_one_at_a_time/coupled`: the example coupled limit given a parent
/// swung by 0.8 rad, on rotations drawn uniformly from the box that parent selects;
/// `prepared_inside_one_at_a_time/coupled_common_box` on rotations drawn from the box every
/// parent's box holds (which its cells cover).
fn hinge_and_coupled(c: &mut Criterion) {
    use jointlimits::authored::HingeLimit;
    use jointlimits::coupled::CoupledLimit;
    use jointlimits::{LimitContext, RotationLimit};
    let mut random = Random(SplitMix(17));
    let hinge = HingeLimit {
        axis: Vec3::new(0.2, 1.0, -0.1).normalize(),
        min: -0.3,
        max: 2.1,
    };
    let limit = JointLimit {
        joint: "knee".into(),
        reference: Quat::from_rotation_x(0.2),
        region: LimitRegion::Hinge(hinge),
        softening: None,
    };
    let inside: Vec<Quat> = (0..4096)
        .map(|_| {
            let angle = hinge.min + (hinge.max - hinge.min) * (0.5 + 0.5 * random.next());
            limit.local(Quat::from_axis_angle(hinge.axis, angle))
        })
        .collect();
    assert!(inside.iter().all(|&q| limit.contains(q)));
    bench_one_at_a_time(c, "inside_one_at_a_time/authored", "hinge", &limit, &inside);
    let prepared = PreparedLimit::new(limit.clone());
    bench_calls(
        c,
        "prepared_inside_one_at_a_time/authored",
        "hinge",
        |q| prepared.limit(q),
        &inside,
    );

    let coupled = CoupledLimit::examples().remove(0);
    let parent = Quat::from_rotation_z(0.8) * coupled.record().parent_reference;
    let shape = coupled.box_for_direction(coupled.parent_direction(parent));
    let limit = JointLimit {
        joint: "elbow".into(),
        reference: Quat::from_rotation_y(0.3),
        region: LimitRegion::Coupled(coupled),
        softening: None,
    };
    let context = LimitContext {
        parent: Some(parent),
    };
    let mut draw = |shape: &jointlimits::shape::BoxShape| -> Vec<Quat> {
        (0..4096)
            .map(|_| {
                let t = 0.5 * random.vec3() + Vec3::splat(0.5);
                let point = shape.frame.center
                    + shape.frame.rotation * (shape.min + (shape.max - shape.min) * t);
                limit.local(from_scaled_angle_axis(point))
            })
            .filter(|&q| limit.region.contains(limit.relative(q), &context))
            .collect()
    };
    let inside = draw(&shape);
    let common = match &limit.region {
        LimitRegion::Coupled(coupled) => coupled.common_box().expect("the example's boxes overlap"),
        _ => unreachable!("a coupled limit"),
    };
    let inside_common = draw(&common);
    let prepared = PreparedLimit::new(limit.clone());
    let cells = prepared.inside_cells().expect("coupled limits have cells");
    let proven = inside.iter().filter(|&&q| cells.surely_allowed(q)).count();
    eprintln!(
        "prepared/coupled: {proven} of {} allowed inputs in proven cells",
        inside.len()
    );
    bench_calls(
        c,
        "inside_one_at_a_time",
        "coupled",
        |q| limit.limit_in(q, &context),
        &inside,
    );
    bench_calls(
        c,
        "prepared_inside_one_at_a_time",
        "coupled",
        |q| prepared.limit_in(q, &context),
        &inside,
    );
    // Rotations drawn from the box every parent's box holds, which the cells cover.
    bench_calls(
        c,
        "prepared_inside_one_at_a_time",
        "coupled_common_box",
        |q| prepared.limit_in(q, &context),
        &inside_common,
    );
}

/// The allowed ones of `queries` (about half): what a limit sees most of the time at runtime.
fn inside_only(limit: &JointLimit, queries: &[Quat]) -> Vec<Quat> {
    queries
        .iter()
        .copied()
        .filter(|&q| limit.contains(q))
        .collect()
}

/// `group/name`: [`JointLimit::limit`] on each of `queries`, per rotation.
fn bench_one_at_a_time(
    c: &mut Criterion,
    group: &str,
    name: &str,
    limit: &JointLimit,
    queries: &[Quat],
) {
    bench_calls(c, group, name, |q| limit.limit(q), queries);
}

/// `group/name`: [`PreparedLimit::limit`] on each of `queries`, per rotation.
fn bench_prepared(
    c: &mut Criterion,
    group: &str,
    name: &str,
    limit: &PreparedLimit,
    queries: &[Quat],
) {
    bench_calls(c, group, name, |q| limit.limit(q), queries);
}

/// `group/name`: `limit` on each of `queries`, per rotation.
fn bench_calls(
    c: &mut Criterion,
    group: &str,
    name: &str,
    limit: impl Fn(Quat) -> Quat,
    queries: &[Quat],
) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_function(name, |b| {
        let mut out = vec![Quat::IDENTITY; queries.len()];
        b.iter(|| {
            for (o, &q) in out.iter_mut().zip(black_box(queries)) {
                *o = limit(q);
            }
            black_box(&out);
        })
    });
    group.finish();
}

/// `group/name`: [`JointLimit::limit_many`] over `queries`, per rotation.
fn bench_batched(c: &mut Criterion, group: &str, name: &str, limit: &JointLimit, queries: &[Quat]) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Elements(queries.len() as u64));
    group.bench_function(name, |b| {
        let mut out = queries.to_vec();
        b.iter(|| {
            out.copy_from_slice(black_box(queries));
            limit.limit_many(&mut out);
            black_box(&out);
        })
    });
    group.finish();
}

criterion_group!(benches, projection);
criterion_main!(benches);
