//! Lookup tables fitted on real motion capture: every fitting frame is inside, the table's
//! allowed directions agree with an exact brute force on 100,000 random directions except within
//! a cell of the boundary, a table prepared for repeated tests answers as before, and the limits
//! file keeps the table bit for bit.

use glam::{Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::measure::SeededRandom;
use jointlimits::rotation::swing_and_twist_angle;
use jointlimits::{LimitContext, LimitRegion, RotationLimit};
use jointlimits_io::{parse_limits, read_bvh_file};
use jointlimits_testdata::fixture;
use jointlimits_testdata::sphere_search::{fibonacci_directions, least_cost, twist_gap};

#[test]
fn fitted_tables_hold_their_frames_and_agree_with_the_exact_region() {
    let Some(path) = fixture("cmu_daz/salsa_10.bvh") else {
        return;
    };
    let bvh = read_bvh_file(&path).unwrap();
    let motion = bvh.to_motion();
    let resolution = 128;
    let options = FitOptions {
        shape: ShapeKind::Table(resolution),
        padding: 2f64.to_radians(),
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
    let text = serde_json::to_string(&limits).unwrap();
    let read = parse_limits(&text, "tables.json").unwrap();
    assert_eq!(read, limits, "the file keeps every table bit for bit");

    let mut random = SeededRandom::new(18);
    let directions: Vec<Vec3> = (0..100_000).map(|_| random.direction()).collect();
    let cell_angle = (4.0 * std::f32::consts::PI).sqrt() / resolution as f32;
    for name in ["lShldr", "lForeArm", "rThigh"] {
        let limit = limits.joints.iter().find(|j| j.joint == name).unwrap();
        let LimitRegion::Table(table) = &limit.region else {
            panic!("{name} is not a table")
        };
        let index = bvh.skeleton.find(name).unwrap();
        let relative: Vec<_> = (0..motion.frame_count())
            .map(|f| limit.relative(motion.frame_rotations(f)[index]))
            .collect();
        for (frame, &q) in relative.iter().enumerate() {
            assert!(
                table.contains(q, &LimitContext::NONE),
                "{name} frame {frame} is outside its own table"
            );
        }
        // Prepared for repeated tests, the table answers every rotation as before, and most
        // frames of natural motion lie in cells proven allowed.
        let mut prepared = table.clone();
        prepared.prepare();
        let cells = prepared.inside_cells().expect("prepared");
        let proven = relative
            .iter()
            .filter(|&&q| cells.surely_allowed(q))
            .count();
        let probes = relative.iter().flat_map(|&q| {
            let nudge = Quat::from_axis_angle(random.direction(), 0.03);
            [q, -q, nudge * q, random.rotation()]
        });
        for q in probes.collect::<Vec<_>>() {
            let exact = table.contains(q, &LimitContext::NONE);
            assert_eq!(
                prepared.contains(q, &LimitContext::NONE),
                exact,
                "{name}: {q}"
            );
        }
        eprintln!(
            "{name}: {proven} of {} frames lie in proven cells",
            relative.len()
        );
        assert!(
            proven * 2 > relative.len(),
            "{name}: only {proven} of {} frames proven",
            relative.len()
        );
        // The exact region the fit describes: within the radius of some frame's direction.
        let samples: Vec<Vec3> = relative
            .iter()
            .map(|&q| {
                let (swing, _) = swing_and_twist_angle(q, table.twist_axis);
                (swing * table.twist_axis).normalize()
            })
            .collect();
        let radius = 2f32.to_radians() + 1.5 * std::f32::consts::SQRT_2 * 2.0 * cell_angle;
        let mut disagreements = 0;
        for &d in &directions {
            let exact = samples
                .iter()
                .map(|s| s.angle_between(d))
                .fold(f32::INFINITY, f32::min)
                - radius;
            if table.swing().contains(d) != (exact <= 0.0) {
                // One cell's diagonal of representatives, one of interpolation.
                assert!(
                    exact.abs() <= 3.0 * cell_angle,
                    "{name}: {d} disagrees {exact} rad from the boundary"
                );
                disagreements += 1;
            }
        }
        eprintln!(
            "{name}: {disagreements} of 100000 random directions disagree, all within three cells of the boundary"
        );
    }
}

/// Baking limits fitted on real motion: the table disagrees with the original only within a
/// cell of its boundary, on random directions and Haar-random rotations.
#[test]
fn baked_ellipsoids_reach_cones_and_hulls_agree_within_a_cell() {
    use jointlimits::table::bake::{bake, disagreement};
    // A reach cone's twist range can narrow by a radian within a cell near the corners of its
    // boundary: 256 cells per side resolve that; 128 leave up to two cells there. On
    // martial_04 the legs' ellipsoids reach past a half turn (the knee's to 213°), round the
    // direction opposite the bone, where twist winds twice round.
    for (clip, shape, resolution, joints) in [
        (
            "cmu_daz/salsa_10.bvh",
            ShapeKind::Ellipsoid,
            128,
            ["lShldr", "rThigh"],
        ),
        (
            "cmu_daz/salsa_10.bvh",
            ShapeKind::Hull,
            64,
            ["lForeArm", "neck"],
        ),
        (
            "cmu_daz/salsa_10.bvh",
            ShapeKind::ReachCone,
            256,
            ["lShldr", "rThigh"],
        ),
        (
            "cmu_daz/martial_04.bvh",
            ShapeKind::Ellipsoid,
            128,
            ["rThigh", "rShin"],
        ),
    ] {
        let Some(path) = fixture(clip) else {
            return;
        };
        let bvh = read_bvh_file(&path).unwrap();
        let motion = bvh.to_motion();
        let axes = bvh.skeleton.twist_axes(Vec3::ZERO);
        let options = FitOptions {
            shape,
            padding: 2f64.to_radians(),
            ..FitOptions::default()
        };
        let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
        for name in joints {
            let limit = limits.find(name).unwrap();
            let axis = limit
                .region
                .bone_axis()
                .unwrap_or(axes[bvh.skeleton.find(name).unwrap()]);
            let table = bake(&limit.region, axis, resolution).unwrap();
            let report = disagreement(&limit.region, &table, axis, 20_000, 3);
            eprintln!("{clip} {shape:?} {name}: {report:?}");
            assert!(
                report.largest_direction_gap < report.cell_angle
                    && report.largest_rotation_gap < report.cell_angle
                    && report.largest_gap_beyond_a_table < report.cell_angle,
                "{clip} {shape:?} {name}: {report:?}"
            );
        }
    }
}

/// Stateless corrections by tables fitted on real motion are the nearest allowed rotations in
/// the table's metric `√(α² + δ²)` within 1e-3 rad, on Haar-random rotations and on frames
/// pushed up to 23° off: checked against a brute force over 150,000 directions spread evenly
/// over the sphere, polished by a pattern search.
#[test]
fn fitted_table_corrections_are_the_nearest_allowed_rotation() {
    let Some(path) = fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let bvh = read_bvh_file(&path).unwrap();
    let motion = bvh.to_motion();
    let options = FitOptions {
        shape: ShapeKind::Table(128),
        padding: 2f64.to_radians(),
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
    let mut random = SeededRandom::new(29);
    let mut worst = 0.0f32;
    for name in ["head", "rShldr", "lThigh"] {
        let limit = limits.joints.iter().find(|j| j.joint == name).unwrap();
        let LimitRegion::Table(table) = &limit.region else {
            panic!("{name} is not a table")
        };
        let index = bvh.skeleton.find(name).unwrap();
        // Allowed directions, evenly spread (a Fibonacci lattice).
        let allowed: Vec<Vec3> = fibonacci_directions(150_000)
            .filter(|&d| table.values_at(d).allowed <= 0.0)
            .collect();
        for k in 0..80 {
            let q = if k % 2 == 0 {
                random.rotation()
            } else {
                let frame = (k * 131) % motion.frame_count();
                let push = Quat::from_axis_angle(random.direction(), 0.4);
                limit.relative(motion.frame_rotations(frame)[index]) * push
            };
            let answer = table.nearest(q, &LimitContext::NONE);
            if answer.inside {
                continue;
            }
            let (swing, twist) = swing_and_twist_angle(q, table.twist_axis);
            let d = (swing * table.twist_axis).normalize();
            let best = least_cost(allowed.iter().copied(), |e| {
                let values = table.values_at(e);
                (values.allowed <= 0.0).then(|| {
                    let a = d.angle_between(e);
                    let gap = twist_gap(twist, values.twist.min, values.twist.max);
                    (a * a + gap * gap).sqrt()
                })
            });
            let gap = answer.violation - best;
            worst = worst.max(gap);
            assert!(
                gap <= 1e-3,
                "{name}: {q} corrected {} rad away, the brute force finds {best}",
                answer.violation
            );
        }
    }
    eprintln!("largest excess over the brute force: {worst} rad");
}

/// A rotation a hair outside a fitted table reads its violation to a few percent, the same as
/// its neighbours a rounding error away: `check` of a softened output (a radius of 5e-4 rad)
/// then reads within the radius. A landing on the boundary followed the distance's gradient in
/// the square, and its candidates were compared by cosines that differ in the eighth digit, so
/// readings jumped by up to 4e-4 rad under a wobble of 1e-6 (once in 17 such rotations).
#[test]
fn violations_just_outside_fitted_tables_read_steadily() {
    let Some((_, _, limits)) = fitted_tables("cmu_daz/martial_04.bvh", 32) else {
        return;
    };
    let none = LimitContext::NONE;
    let mut random = SeededRandom::new(9);
    let (mut readings, mut worst) = (0, 0.0f32);
    for limit in &limits.joints {
        let LimitRegion::Table(table) = &limit.region else {
            continue;
        };
        for _ in 0..40 {
            let q = random.rotation();
            let hard = table.nearest(q, &none);
            let toward = (q * hard.relative.conjugate()).to_scaled_axis();
            if hard.inside || toward.length() < 1e-3 {
                continue;
            }
            // 5e-4 rad out from the answer, back along the way the input came.
            let near = Quat::from_scaled_axis(toward.normalize() * 5e-4) * hard.relative;
            let reading = table.nearest(near, &none).violation;
            for _ in 0..4 {
                let wobble = Quat::from_scaled_axis(random.direction() * 1e-6);
                let again = table.nearest(wobble * near, &none).violation;
                readings += 1;
                worst = worst.max((again - reading).abs());
                assert!(
                    (again - reading).abs() <= 3e-5,
                    "{}: {near} reads {reading} rad outside, {again} a wobble away",
                    limit.joint
                );
            }
        }
    }
    assert!(readings > 1000, "{readings}");
    eprintln!("{readings} readings; the largest jump under a 1e-6 wobble: {worst:e} rad");
}

/// The fixture `clip` with tables of `resolution` cells per side fitted to it with the default
/// options (none without the fixture).
fn fitted_tables(
    clip: &str,
    resolution: u32,
) -> Option<(
    jointlimits_io::Bvh,
    jointlimits::Motion,
    jointlimits::SkeletonLimits,
)> {
    let bvh = read_bvh_file(&fixture(clip)?).unwrap();
    let motion = bvh.to_motion();
    let options = FitOptions {
        shape: ShapeKind::Table(resolution),
        ..FitOptions::default()
    };
    let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
    Some((bvh, motion, limits))
}

/// `martial_04` with 128² tables fitted to it with the default options.
fn martial_tables() -> Option<(
    jointlimits_io::Bvh,
    jointlimits::Motion,
    jointlimits::SkeletonLimits,
)> {
    fitted_tables("cmu_daz/martial_04.bvh", 128)
}

/// A bone held at a large swing while its twist turns round and round, through the limiter:
/// each time the twist passes half a turn from its range the answer must jump from one end of
/// the range to the other, once. With two basins of nearly equal distance it used to jump to
/// the other basin as well and back a few frames later (10.9° twice on the fingers). Now, per
/// half turn crossed, at most one output step is larger than four times the input's.
#[test]
fn table_streams_jump_once_per_half_turn_of_twist() {
    use jointlimits::Limiter;
    use jointlimits::measure::tightness::pointing;
    let Some((_, _, limits)) = martial_tables() else {
        return;
    };
    let mut random = SeededRandom::new(3);
    for name in ["rThumb2", "lThumb2", "rRing1", "rPinky2"] {
        let limit = limits.find(name).unwrap().clone();
        let axis = limit.region.bone_axis().unwrap();
        let mut largest_extra_jumps = 0;
        for _ in 0..40 {
            let direction = loop {
                let d = random.direction();
                if (100.0..175.0).contains(&d.angle_between(axis).to_degrees()) {
                    break d;
                }
            };
            let mut limiter = Limiter::new(vec![Some(limit.clone())]);
            let outputs: Vec<Quat> = (-400..=400)
                .map(|degrees| {
                    let relative = pointing(axis, direction, (degrees as f32).to_radians());
                    limiter.limit_joint(0, limit.local(relative)).0
                })
                .collect();
            let jumps = outputs
                .windows(2)
                .filter(|pair| pair[0].angle_between(pair[1]) > 4f32.to_radians())
                .count();
            // 800° of twist cross the point half a turn from the range at most three times.
            largest_extra_jumps = largest_extra_jumps.max(jumps.saturating_sub(3));
        }
        assert_eq!(largest_extra_jumps, 0, "{name}");
    }
}

/// A bone held still at an allowed direction while its twist turns slowly past its range, on a
/// 32² table fitted to a walk (the arm's twist limits peak at a grid vertex there, a kink of the
/// bilinear limits): the stream's output follows the nearest and moves only where the nearest
/// itself switches (to another vertex, or to the other end of the range as the twist crosses
/// half a turn). Its local search used to stop on alternate sides of the vertex, 3–5° apart,
/// frame after frame (38 jumps of over half a degree on this sweep, where the nearest jumps twice;
/// found by an outside check); now each jump is one switch of the nearest's.
#[test]
fn a_table_stream_follows_the_nearest_past_a_kink_without_flickering() {
    use jointlimits::Limiter;
    let Some((_, _, limits)) = fitted_tables("cmu_mb2/12_01_walk.bvh", 32) else {
        return;
    };
    let limit = limits.find("RightArm").unwrap().clone();
    let LimitRegion::Table(table) = &limit.region else {
        panic!("RightArm is not a table")
    };
    // The channels `Zrotation Yrotation Xrotation` at (90°, −22.5°, x): the bone (along x) held
    // at one direction while x, its twist, turns by half a degree a frame.
    let local = |x: f32| {
        Quat::from_rotation_z(90f32.to_radians())
            * Quat::from_rotation_y(-22.5f32.to_radians())
            * Quat::from_rotation_x(x.to_radians())
    };
    let mut limiter = Limiter::new(vec![Some(limit.clone())]);
    let (mut stream_jumps, mut nearest_jumps) = (0, 0);
    let (mut previous, mut previous_nearest) = (None::<Vec3>, None::<Vec3>);
    for frame in 0..720 {
        let q = local(-22.5 - 0.5 * frame as f32);
        let (_, limited) = limiter.limit_joint(0, q);
        let nearest = table.nearest(limit.relative(q), &LimitContext::NONE);
        let (here, there) = (limited.measured.truncate(), nearest.measured.truncate());
        let jumped = |from: Option<Vec3>, to: Vec3| {
            from.is_some_and(|from| from.angle_between(to) > 0.5f32.to_radians())
        };
        stream_jumps += usize::from(jumped(previous, here));
        nearest_jumps += usize::from(jumped(previous_nearest, there));
        (previous, previous_nearest) = (Some(here), Some(there));
    }
    eprintln!("output direction jumps: {stream_jumps}; the nearest's: {nearest_jumps}");
    assert!(
        stream_jumps <= nearest_jumps,
        "{stream_jumps} jumps of the stream where the nearest jumps {nearest_jumps} times"
    );
}

/// One-frame spikes of a stream: frames whose output moves more than `threshold` radians and
/// whose next output returns at least half way to the output before.
fn one_frame_spikes(outputs: &[Quat], threshold: f32) -> usize {
    outputs
        .windows(3)
        .filter(|w| {
            let out = w[0].angle_between(w[1]);
            out > threshold && w[0].angle_between(w[2]) < 0.5 * out
        })
        .count()
}

/// Path-aware correction follows a smooth input about as smoothly as the nearest does: on
/// random walks of about 1.5° per channel and frame that keep leaving the fitted region, its
/// one-frame spikes (over 5°, half way back the next frame) are at most twice the nearest's.
/// A walk starting from an answer kept a hair outside used to take the stateless nearest, far
/// away, for one frame: 74 spikes where the nearest made 20; now 22. Those left are where only
/// the twist is outside: path-aware correction clamps it to the range at the input's own
/// direction, which on a forearm changes twice as fast as the direction.
#[test]
fn path_aware_streams_follow_smooth_input_without_spikes() {
    use jointlimits::Limiter;
    let Some((bvh, motion, limits)) = martial_tables() else {
        return;
    };
    let mut random = SeededRandom::new(5);
    let mut totals = [0usize; 2];
    for name in ["abdomen", "lShldr", "rThigh", "neck", "lForeArm"] {
        let limit = limits.find(name).unwrap().clone();
        let index = bvh.skeleton.find(name).unwrap();
        let mut spikes = [0usize; 2];
        for walk in 0..20 {
            let mut local = motion.frame_rotations((walk * 61) % motion.frame_count())[index];
            let inputs: Vec<Quat> = (0..400)
                .map(|_| {
                    let step = random.direction() * 1.5f32.to_radians() * 3f32.sqrt();
                    local = (local * Quat::from_scaled_axis(step)).normalize();
                    local
                })
                .collect();
            for (path_aware, count) in [false, true].into_iter().zip(&mut spikes) {
                let mut limiter =
                    Limiter::new(vec![Some(limit.clone())]).with_path_aware(path_aware);
                let outputs: Vec<Quat> = inputs
                    .iter()
                    .map(|&q| limiter.limit_joint(0, q).0)
                    .collect();
                *count += one_frame_spikes(&outputs, 5f32.to_radians());
            }
        }
        eprintln!(
            "{name}: one-frame spikes nearest {}, path-aware {}",
            spikes[0], spikes[1]
        );
        totals[0] += spikes[0];
        totals[1] += spikes[1];
    }
    assert!(totals[1] <= 2 * totals[0], "{totals:?}");
}
