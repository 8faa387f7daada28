//! The contract every limit kind implements (`docs/limits.md`), held on the whole input space
//! for every registered kind ([`RotationLimit::examples`]): Haar-random rotations in both covers,
//! swings within 1e-3 rad of 180°, twists near ±π and ±2π, rotations at exactly 2π, rotations on
//! the boundary; against an independent brute force ([`common::oracle`]); and the stateful limiter
//! on discontinuous input and on slow sweeps through full turns and the 180° swing.

mod common;

use std::f32::consts::{PI, TAU};

use common::oracle::{BruteForce, Rng, distance_to, representations};
use glam::{Quat, Vec3, Vec4};
use jointlimits::rotation::angle_between;
use jointlimits::shape::{LimitShape, Shape};
use jointlimits::{JointLimit, LimitContext, LimitRegion, Limiter, RotationLimit};

const NONE: LimitContext = LimitContext::NONE;

/// How far above the brute force a reach cone's answer may be (radians): where its twist limits
/// vary, the search in the combined metric proves its answer within 5e-4 rad (see
/// `docs/limits.md`); cones with the same limits everywhere are held to 1e-4.
const REACH_CONE_GAP: f64 = 1e-3;

/// How far above the brute force a table's answer may be (radians): the bounded search proves
/// its answer within this of the least distance (see `docs/limits.md`).
const TABLE_GAP: f64 = 1e-3;

/// The kinds' examples (presets included through the reach cone's).
fn examples() -> Vec<LimitRegion> {
    let all = LimitRegion::examples();
    // Every registered kind has examples.
    for name in LimitRegion::KIND_NAMES {
        assert!(
            all.iter().any(|r| r.kind_name() == *name),
            "no example of {name}"
        );
    }
    all
}

/// The axis a kind twists or hinges about (Y for the kinds without one).
fn axis_of(region: &LimitRegion) -> Vec3 {
    match region {
        LimitRegion::SwingTwist(l) => l.twist_axis,
        LimitRegion::ReachCone(l) => l.twist_axis,
        LimitRegion::Table(l) => l.twist_axis,
        LimitRegion::Cone(l) => l.twist_axis,
        LimitRegion::SphericalEllipse(l) => l.twist_axis,
        LimitRegion::Hinge(l) => l.axis,
        LimitRegion::Full(_) | LimitRegion::Euler(_) | LimitRegion::Coupled(_) => Vec3::Y,
    }
}

/// Haar-random rotations in both covers and the adversarial families of the module docs.
fn inputs(region: &LimitRegion, rng: &mut Rng, random: usize) -> Vec<Quat> {
    let axis = axis_of(region);
    let mut out: Vec<Quat> = (0..random).map(|_| rng.rotation()).collect();
    for _ in 0..6 {
        let u = axis.cross(rng.direction().as_vec3()).normalize();
        for e in [-1e-3, -1e-5, 0.0, 1e-5, 1e-3] {
            for twist in [0.0, 0.3, -2.0, PI] {
                out.push(Quat::from_axis_angle(u, PI + e) * Quat::from_axis_angle(axis, twist));
            }
        }
        let small = Quat::from_axis_angle(u, rng.range(0.0, 0.4) as f32);
        for base in [PI, -PI, TAU, -TAU] {
            for e in [-1e-3, -1e-6, 0.0, 1e-6, 1e-3] {
                out.push(small * Quat::from_axis_angle(axis, base + e));
            }
        }
        out.push(Quat::from_axis_angle(rng.direction().as_vec3(), TAU - 1e-6));
    }
    out.push(Quat::from_xyzw(0.0, 0.0, 0.0, -1.0));
    out.push(Quat::IDENTITY);
    // Both covers of everything.
    let negated: Vec<Quat> = out.iter().map(|&q| -q).collect();
    out.extend(negated);
    out
}

fn unit_and_finite(q: Quat) -> bool {
    q.is_finite() && (q.length() - 1.0).abs() < 1e-4
}

/// The stateless contract on one input: allowed output, unchanged allowed input, an honest
/// violation, and no farther than the brute force.
fn check_stateless(region: &LimitRegion, brute: &BruteForce, q: Quat) -> Result<(), String> {
    let result = region.nearest(q, &NONE);
    let label = region.label();
    if !unit_and_finite(result.relative) || !result.violation.is_finite() {
        return Err(format!("{label}: {q} gave {result:?}"));
    }
    let best = brute.nearest(region, q);
    if result.inside {
        if result.relative != q || result.violation != 0.0 {
            return Err(format!("{label}: allowed {q} came back as {result:?}"));
        }
        if best > 1e-4 {
            return Err(format!("{label}: {q} called inside, brute force {best}"));
        }
        return Ok(());
    }
    // Near a swing of 180° the twist is ill-conditioned: f32 rounding of the input moves it by
    // about 1e-7 / |(v·axis, w)|, and the two computations may measure different rotations.
    let along = Vec3::new(q.x, q.y, q.z).dot(axis_of(region));
    let slack = 1e-4 + f64::from(4e-7 / along.hypot(q.w).max(1e-9)).min(10.0);
    let honest = distance_to(region, q, result.relative);
    if !honest.is_finite() {
        let reps = representations(region, result.relative);
        return Err(format!(
            "{label}: {q} -> {} is not allowed: {reps:?}",
            result.relative
        ));
    }
    if (honest - f64::from(result.violation)).abs() > slack {
        return Err(format!(
            "{label}: {q}: violation {} but the output is {honest} away",
            result.violation
        ));
    }
    let varying_twist = match region {
        LimitRegion::ReachCone(l) => {
            let at_visible = l.cone.twist_at_visible();
            l.cone.twist_at_boundary().iter().any(|t| *t != at_visible)
        }
        _ => false,
    };
    let slack = if varying_twist {
        slack.max(REACH_CONE_GAP)
    } else if let LimitRegion::Table(_) = region {
        slack.max(TABLE_GAP)
    } else {
        slack
    };
    if f64::from(result.violation) > best + slack {
        return Err(format!(
            "{label}: {q}: {} farther than the brute force {best}",
            f64::from(result.violation) - best
        ));
    }
    let again = region.nearest(result.relative, &NONE);
    if !(again.inside || again.violation <= 2e-5) {
        return Err(format!(
            "{label}: output of {q} is {} outside",
            again.violation
        ));
    }
    Ok(())
}

#[test]
fn every_kind_gives_the_exact_nearest_allowed_rotation_on_every_input() {
    exact_nearest_on_every_input(&examples(), Rng(15));
}

/// The same with the searches built that limiters, crowds and prepared limits build
/// (`JointLimit::build_searches`): full-space k-DOPs' and hulls' grids of cubes naming the
/// feature nearest their points, on fresh examples (a clone shares what its original built).
#[test]
fn polytopes_with_their_cubes_built_give_the_exact_nearest_on_every_input() {
    let polytopes: Vec<LimitRegion> = examples()
        .into_iter()
        .filter(|region| match region {
            LimitRegion::Full(full) => matches!(full.shape(), Shape::Kdop(_) | Shape::Hull(_)),
            _ => false,
        })
        .collect();
    let mut built = 0;
    for region in &polytopes {
        joint(region).build_searches();
        if let LimitRegion::Full(full) = region
            && let Shape::Kdop(kdop) = full.shape()
        {
            built += usize::from(kdop.polytope().feature_cube_shares().is_some());
        }
    }
    assert!(built > 0, "no example k-DOP built its cubes");
    exact_nearest_on_every_input(&polytopes, Rng(16));
}

/// Every region of `regions` answers each of its inputs (Haar-random, adversarial, and its own
/// outputs) as `check_stateless` asks.
fn exact_nearest_on_every_input(regions: &[LimitRegion], mut rng: Rng) {
    let mut failures = Vec::new();
    for (index, region) in regions.iter().enumerate() {
        let brute = BruteForce::new(region, index as u64);
        let mut qs = inputs(region, &mut rng, 300);
        // Rotations on the boundary: the outputs themselves.
        let boundary: Vec<Quat> = qs
            .iter()
            .take(100)
            .map(|&q| region.nearest(q, &NONE).relative)
            .collect();
        qs.extend(boundary);
        for q in qs {
            if let Err(e) = check_stateless(region, &brute, q) {
                failures.push(e);
            }
        }
    }
    let mut per_kind = std::collections::BTreeMap::<String, usize>::new();
    for f in &failures {
        *per_kind
            .entry(f.split(':').next().unwrap().to_string())
            .or_default() += 1;
    }
    assert!(
        failures.is_empty(),
        "{} failures ({per_kind:?}):\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

fn joint(region: &LimitRegion) -> JointLimit {
    JointLimit {
        joint: "joint".into(),
        reference: Quat::from_axis_angle(Vec3::new(0.3, -0.5, 0.8).normalize(), 0.7),
        region: region.clone(),
        softening: None,
    }
}

#[test]
fn the_limiter_on_discontinuous_input_is_nearest_within_its_margin_and_keeps_allowed_input() {
    let mut rng = Rng(16);
    for region in examples() {
        let limit = joint(&region);
        let mut limiter = Limiter::new(vec![Some(limit.clone())]);
        for q in inputs(&region, &mut rng, 300) {
            let local = limit.local(q);
            let (output, result) = limiter.limit_joint(0, local);
            let nearest = limit.limit_relative(limit.relative(local));
            let label = region.label();
            assert!(unit_and_finite(output), "{label}: {output}");
            if nearest.inside {
                assert_eq!(output, local, "{label}: allowed input moved");
                continue;
            }
            // At an exact 180° swing the stream keeps its twist, whatever the margin.
            let degenerate = region.is_degenerate(limit.relative(local));
            assert!(
                degenerate || result.violation <= nearest.violation + limiter.margin() + 1e-5,
                "{label}: {} vs nearest {}",
                result.violation,
                nearest.violation
            );
            let after = limit.violation(output);
            assert!(after <= 2e-5, "{label}: output {after} outside");
        }
    }
}

/// A stream's output always passes the stateless inside test (what `check` runs), also for
/// inputs a hair outside the boundary, where a continuation from another frame may find the
/// input within the tolerance of a different stretch of boundary than the stateless answer's.
#[test]
fn stream_outputs_pass_the_stateless_test_a_hair_from_the_boundary() {
    let mut rng = Rng(0xB0DE);
    for region in examples() {
        let limit = joint(&region);
        let label = region.label();
        for q in inputs(&region, &mut rng, 300).into_iter().take(300) {
            let boundary = limit.local(limit.limit_relative(q).relative);
            for size in [3e-6, 1e-5, 2e-5, 5e-5, 2e-4] {
                let input = boundary * Quat::from_axis_angle(rng.direction().as_vec3(), size);
                let before = [
                    input * Quat::from_axis_angle(rng.direction().as_vec3(), 0.05),
                    limit.local(rng.rotation()),
                ];
                for previous in before {
                    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
                    limiter.limit_joint(0, previous);
                    let (output, _) = limiter.limit_joint(0, input);
                    let after = limit.limit_relative(limit.relative(output));
                    assert!(
                        after.inside,
                        "{label}: {input:?} after {previous:?} comes out {} rad outside",
                        after.violation
                    );
                }
            }
        }
    }
}

/// Whether the relative rotation `q` lies in a documented switch region of the kind: within 30°
/// of a singularity of its coordinates, where the output may move fast or switch (a swing of
/// 180° for the kinds that split off a twist; the antipode of the visible point for reach cones;
/// gimbal lock for Euler ranges). Full-space kinds have none.
fn in_switch_region(region: &LimitRegion, q: Quat) -> bool {
    let near_half_swing = |axis: Vec3| {
        let along = Vec3::new(q.x, q.y, q.z).dot(axis);
        along.hypot(q.w) < 30f32.to_radians().sin()
    };
    match region {
        LimitRegion::Full(_) => false,
        LimitRegion::ReachCone(l) => {
            near_half_swing(l.twist_axis) || (q * l.twist_axis).dot(-l.cone.visible()) > 0.866
        }
        LimitRegion::Euler(l) => l.order.from_quat(q).y.abs() > 60f64.to_radians(),
        LimitRegion::Table(l) => {
            near_half_swing(l.twist_axis)
                || near_medial_axis(l, q * l.twist_axis)
                || far_outside_the_twist_range(l, q)
        }
        other => near_half_swing(axis_of(other)),
    }
}

/// Whether the direction `d` lies near the medial axis of the directions a table does not
/// allow: two boundary points at least 0.5 rad apart are both within 0.15 rad of the nearest
/// distance, so the nearest boundary point moves fast or jumps as `d` passes (the antipode of a
/// round region's centre, the line between two regions, the middle of a concave notch).
fn near_medial_axis(table: &jointlimits::table::TableLimit, d: Vec3) -> bool {
    if table.swing().contains(d) {
        return false;
    }
    let points: Vec<(f32, Vec3)> = table
        .swing()
        .chains()
        .arcs()
        .map(|(a, _)| (a.angle_between(d), a))
        .collect();
    let nearest = points.iter().map(|p| p.0).fold(f32::INFINITY, f32::min);
    let close: Vec<Vec3> = points
        .iter()
        .filter(|p| p.0 <= nearest + 0.15)
        .map(|p| p.1)
        .collect();
    close
        .iter()
        .any(|a| close.iter().any(|b| a.angle_between(*b) > 0.5))
}

/// Whether a table's twist range at the rotation's direction misses its twist by more than 0.5
/// rad: there the sum `α² + δ²` is nearly flat along the direction where the limits widen, and
/// its minimum moves fast (`docs/limits.md`).
fn far_outside_the_twist_range(table: &jointlimits::table::TableLimit, q: Quat) -> bool {
    let (_, twist) = jointlimits::rotation::swing_and_twist_angle(q, table.twist_axis);
    let range = table.values_at(q * table.twist_axis).twist;
    range.measure(twist).distance > 0.5
}

/// The switches a full turn may cause outside the switch regions (`docs/limits.md`): one per
/// independent two-way choice the kind makes (the cover of a full-space point; the swing's cover
/// and the twist's turn; the twist's turn for reach cones and hinges, plus one per concave corner
/// of a reach cone passed from outside; the Euler triple and the turns of its outer angles).
fn allowed_switches(region: &LimitRegion) -> usize {
    match region {
        LimitRegion::Full(_) | LimitRegion::Hinge(_) | LimitRegion::Coupled(_) => 1,
        // The twist's turn (switches of the direction happen near the medial axis, exempt).
        LimitRegion::Table(_) => 1,
        LimitRegion::SwingTwist(_) | LimitRegion::Cone(_) | LimitRegion::SphericalEllipse(_) => 2,
        LimitRegion::Euler(_) => 3,
        LimitRegion::ReachCone(l) => {
            let p = l.cone.boundary();
            let n = p.len();
            let concave = (0..n)
                .filter(|&i| p[i].cross(p[(i + 1) % n]).dot(p[(i + 2) % n]) < 0.0)
                .count();
            1 + concave
        }
    }
}

/// Slow sweeps: `path(t)` for `t` over a full turn in 0.5° steps. Returns the number of switch
/// events outside the kind's switch regions: runs of frames whose output moved more than 3× the
/// input.
fn switch_events(limit: &JointLimit, path: impl Fn(f32) -> Quat) -> usize {
    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
    let steps = 720;
    let (mut previous_in, mut previous_out) = (None::<Quat>, None::<Quat>);
    let (mut events, mut in_event) = (0, false);
    for i in 0..=steps {
        let input = path(i as f32 * TAU / steps as f32);
        let (output, _) = limiter.limit_joint(0, input);
        if let (Some(a), Some(b)) = (previous_in, previous_out) {
            let step = angle_between(a, input).max(1e-4);
            let exempt = in_switch_region(&limit.region, limit.relative(input))
                || in_switch_region(&limit.region, limit.relative(a));
            let jump = !exempt && angle_between(b, output) > 3.0 * step;
            if jump && !in_event {
                events += 1;
            }
            in_event = jump;
        }
        (previous_in, previous_out) = (Some(input), Some(output));
    }
    events
}

/// Whether a full-space or swing region lies wholly beyond a half turn, so holds only points the
/// long way round (the examples reaching past a full turn). A long point `p − 2π·p̂` turns with
/// the short one's direction, which a slow sweep past a small rotation `|p|` turns `1/|p|` times
/// as fast as the input: its nearest point races along the boundary, faster than any bound on a
/// smooth output, so the sweeps leave these regions out. The stateless contract holds on them as
/// on every example.
fn holds_only_long_way_points(region: &LimitRegion) -> bool {
    match region {
        LimitRegion::Full(l) => l.shape().distance(Vec3::ZERO) > PI,
        LimitRegion::SwingTwist(l) => l.swing().distance(Vec3::ZERO) > PI,
        _ => false,
    }
}

/// A path through rotation space, parameterised by the turn angle.
type Path = Box<dyn Fn(f32) -> Quat>;

#[test]
fn slow_sweeps_switch_at_most_once_per_choice_and_full_turn() {
    let mut rng = Rng(17);
    let mut failures = Vec::new();
    for region in examples() {
        if holds_only_long_way_points(&region) {
            continue;
        }
        let limit = joint(&region);
        let axis = axis_of(&region);
        let across = axis.any_orthonormal_vector();
        let offsets = [
            Quat::IDENTITY,
            limit.limit(rng.rotation()),
            Quat::from_axis_angle(across, 0.4),
        ];
        let mut paths: Vec<(String, Path)> = Vec::new();
        for turn_axis in [
            Vec3::X,
            Vec3::Y,
            Vec3::Z,
            Vec3::new(1.0, 1.0, 0.3).normalize(),
            axis,
        ] {
            for offset in offsets {
                let reference = limit.reference;
                paths.push((
                    format!("turn about {turn_axis} from {offset}"),
                    Box::new(move |t| reference * Quat::from_axis_angle(turn_axis, t) * offset),
                ));
            }
        }
        for twist in [0.0, 0.3, -1.0] {
            let reference = limit.reference;
            paths.push((
                format!("through the 180° swing about {across}, twist {twist}"),
                Box::new(move |t| {
                    reference
                        * Quat::from_axis_angle(across, t)
                        * Quat::from_axis_angle(axis, twist)
                }),
            ));
        }
        let allowed = allowed_switches(&region);
        for (name, path) in paths {
            let events = switch_events(&limit, path);
            if events > allowed {
                failures.push(format!(
                    "{}: {name}: {events} switches (at most {allowed})",
                    region.label()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_stream_skips_the_continuing_answer_only_where_it_is_the_nearest() {
    let mut rng = Rng(0x5C1B);
    let mut skipped = 0;
    let mut euler_skips = 0;
    for region in examples() {
        let mut all = inputs(&region, &mut rng, 300);
        if let LimitRegion::Euler(euler) = &region {
            // At and near gimbal lock, where the nearest may be a member of the locked family
            // that neither Euler triple is.
            for _ in 0..40 {
                let (a, c) = (rng.range(-3.0, 3.0), rng.range(-3.0, 3.0));
                for lock in [std::f64::consts::FRAC_PI_2, -std::f64::consts::FRAC_PI_2] {
                    for off in [0.0, 1e-6, -1e-4, 1e-2, -0.1] {
                        all.push(euler.order.to_quat(glam::DVec3::new(a, lock + off, c)));
                    }
                }
            }
        }
        for (i, &q) in all.iter().enumerate() {
            let nearest = region.nearest(q, &NONE);
            if nearest.inside {
                continue;
            }
            // Previous frames measured near this one, far from it, and on the other cover.
            let near = q * Quat::from_axis_angle(rng.direction().as_vec3(), 0.05);
            for previous_input in [near, all[(i * 7 + 3) % all.len()], -q, rng.rotation()] {
                let previous = region.nearest(previous_input, &NONE).measured;
                if !region.continues_as(q, &nearest, previous) {
                    continue;
                }
                skipped += 1;
                if matches!(region, LimitRegion::Euler(_)) {
                    euler_skips += 1;
                }
                let continued = region.nearest_continuing(q, previous, &NONE);
                let apart = angle_between(continued.relative, nearest.relative);
                assert!(
                    apart < 1e-4 && (continued.violation - nearest.violation).abs() < 1e-4,
                    "{}: input {q:?} from {previous:?}: the continuing answer is {apart} rad \
                     from the nearest ({} vs {})",
                    region.label(),
                    continued.violation,
                    nearest.violation
                );
                let measured_apart = (continued.measured - nearest.measured).abs().max_element();
                assert!(
                    measured_apart < 1e-4,
                    "{}: input {q:?} from {previous:?}: measured on another turn or cover \
                     ({:?} vs {:?})",
                    region.label(),
                    continued.measured,
                    nearest.measured
                );
            }
        }
    }
    assert!(
        skipped > 1000,
        "only {skipped} skips: the test sees too little"
    );
    // Euler ranges read the condition from the triple alone: most streams from near by skip.
    assert!(
        euler_skips > 100,
        "only {euler_skips} skips of Euler ranges"
    );
}

/// `surely_outside` never calls an allowed rotation outside (a stream would then skip the
/// search that keeps allowed input unchanged), on Haar-random rotations, the adversarial
/// families and rotations a hair from the boundary on both sides; and it says so for most
/// rotations outside of kinds that answer it (tables: away from a 180° swing and from the
/// boundary's tolerance), so streams of those skip their searches.
#[test]
fn surely_outside_holds_only_for_rotations_the_nearest_moves() {
    let mut rng = Rng(0x50E1);
    for region in examples() {
        let mut all = inputs(&region, &mut rng, 2000);
        let boundary: Vec<Quat> = all
            .iter()
            .take(400)
            .map(|&q| region.nearest(q, &NONE).relative)
            .collect();
        for b in boundary {
            for size in [1e-6, 1e-5, 3e-5, 1e-4] {
                all.push(b * Quat::from_axis_angle(rng.direction().as_vec3(), size));
            }
        }
        // Swings near 180°, where the twist coordinate stretches rotation distances, with twists
        // about every value.
        let axis = axis_of(&region);
        for _ in 0..400 {
            let across = axis.cross(rng.direction().as_vec3()).normalize();
            let swing = Quat::from_axis_angle(across, PI - rng.range(0.0, 0.2) as f32);
            let twist = rng.range(-PI as f64, PI as f64) as f32;
            all.push(swing * Quat::from_axis_angle(axis, twist));
        }
        let (mut outside, mut said) = (0, 0);
        // Tables say nothing near a 180° swing or within a few tolerances of the boundary:
        // their share counts the rotations outside away from both.
        let (mut clear, mut said_clear) = (0, 0);
        for &q in &all {
            let nearest = region.nearest(q, &NONE);
            let surely = region.surely_outside(q, &NONE);
            assert!(
                !(surely && nearest.inside),
                "{}: {q:?} is allowed, but surely outside",
                region.label()
            );
            outside += usize::from(!nearest.inside);
            said += usize::from(surely);
            let half_swing = jointlimits::contract::near_half_swing(q, axis_of(&region));
            if !nearest.inside && nearest.violation > 1e-4 && !half_swing {
                clear += 1;
                said_clear += usize::from(surely);
            }
        }
        if matches!(region, LimitRegion::ReachCone(_)) {
            assert!(
                said * 10 >= outside * 9,
                "{}: surely outside for {said} of {outside}",
                region.label()
            );
        }
        if matches!(region, LimitRegion::Table(_)) {
            assert!(
                said_clear * 100 >= clear * 99,
                "{}: surely outside for {said_clear} of {clear} clearly outside",
                region.label()
            );
        }
    }
}

/// Softened answers of every kind stay within the softening's radius of the allowed rotations
/// in the kind's own metric (the allowance is a geodesic angle, which a kind's metric can
/// stretch: twists near a half swing, Euler angles near gimbal lock), and move towards the
/// input.
#[test]
fn softened_answers_stay_within_the_radius_in_every_kind_metric() {
    let mut rng = Rng(23);
    let softening = jointlimits::Softening {
        falloff: 1.0,
        radius: 0.3,
    };
    for region in examples() {
        let limit = JointLimit {
            softening: Some(softening),
            ..joint(&region)
        };
        for q in inputs(&region, &mut rng, 60) {
            let local = limit.local(q);
            let softened = limit.relative(limit.limit(local));
            let outside = region.violation(softened, &NONE);
            assert!(
                outside <= softening.radius + 1e-4,
                "{}: {q} softened to {outside} outside",
                region.label()
            );
        }
    }
}

/// A softening that keeps the whole excess of an input (its allowance covers the violation, and
/// the violation lies within its reach) gives the input back bit for bit, stateless and in a
/// stream, in every kind: a slerp all the way back had rounded it, and `apply` then rewrote
/// rotations it had not changed.
#[test]
fn a_softening_that_keeps_the_whole_excess_keeps_the_input() {
    let mut rng = Rng(0x50F7);
    let softening = jointlimits::Softening {
        falloff: 1.0,
        radius: 4.0,
    };
    let mut kept = 0;
    for region in examples() {
        let limit = JointLimit {
            softening: Some(softening),
            ..joint(&region)
        };
        let mut limiter = Limiter::new(vec![Some(limit.clone())]);
        for q in inputs(&region, &mut rng, 60) {
            let local = limit.local(q);
            let hard = region.nearest(limit.relative(local), &NONE);
            let keeps = !hard.inside
                && hard.violation < softening.radius - 1e-3
                && softening.keeps_everything(limit.relative(local), hard.relative);
            if !keeps {
                continue;
            }
            kept += 1;
            assert_eq!(limit.limit(local), local, "{}: {q}", region.label());
            let mut pose = [local];
            limiter.limit_pose(&mut pose);
            assert_eq!(pose[0], local, "{}: {q} in a stream", region.label());
        }
    }
    assert!(kept > 100, "only {kept} inputs kept whole");
}

/// Where a kind answers directly that no twist lets the bone point along a direction, the inside
/// test allows no rotation pointing there: on Haar-random rotations, the adversarial families,
/// and rotations a hair off the boundary (where the inside test's tolerances decide).
#[test]
fn directions_said_to_allow_no_twist_hold_no_allowed_rotation() {
    let mut rng = Rng(0x7157);
    for region in examples() {
        let Some(axis) = region.bone_axis() else {
            continue;
        };
        let label = region.label();
        let mut probes = inputs(&region, &mut rng, 2000);
        for q in inputs(&region, &mut rng, 200) {
            let boundary = region.nearest(q, &NONE).relative;
            for size in [1e-6, 1e-5, 2e-5, 1e-4, 1e-3] {
                probes.push(boundary * Quat::from_axis_angle(rng.direction().as_vec3(), size));
            }
        }
        for q in probes {
            let direction = (q * axis).normalize();
            if region
                .twists_along(axis, direction)
                .is_some_and(|runs| runs.is_empty())
            {
                assert!(
                    !region.contains(q, &NONE),
                    "{label}: {q} is allowed, pointing along {direction}, where no twist is"
                );
            }
        }
    }
}

/// A rotation with a component that is not finite gets an answer from every kind, stateless
/// and in a stream (tables searched for ever before), and the stream goes on past it; a table
/// answers with an allowed rotation.
#[test]
fn rotations_that_are_not_finite_get_an_answer_from_every_kind() {
    let mut rng = Rng(0x0F1);
    let hostile = [
        Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0),
        Quat::from_xyzw(f32::INFINITY, 0.0, 0.0, 1.0),
        Quat::from_xyzw(0.0, f32::NEG_INFINITY, 0.0, 0.0),
        Quat::from_xyzw(f32::NAN, f32::NAN, f32::NAN, f32::NAN),
    ];
    for region in examples() {
        for &q in &hostile {
            let stateless = region.nearest(q, &NONE);
            let previous = region.nearest(rng.rotation(), &NONE).measured;
            region.nearest_continuing(q, previous, &NONE);
            region.nearest_continuing(rng.rotation(), Vec4::NAN, &NONE);
            if matches!(region, LimitRegion::Table(_)) {
                assert!(stateless.relative.is_finite(), "{}: {q:?}", region.label());
                assert!(!stateless.inside);
                assert!(region.contains(stateless.relative, &NONE));
            }
        }
        let limit = JointLimit {
            joint: "joint".into(),
            reference: rng.rotation(),
            region: region.clone(),
            softening: None,
        };
        let mut limiter = Limiter::new(vec![Some(limit.clone())]);
        for frame in 0..6 {
            let mut pose = [if frame == 2 {
                hostile[0]
            } else {
                rng.rotation()
            }];
            limiter.limit_pose(&mut pose);
            if frame > 2 {
                assert!(pose[0].is_finite(), "{}: frame {frame}", region.label());
            }
        }
    }
}
