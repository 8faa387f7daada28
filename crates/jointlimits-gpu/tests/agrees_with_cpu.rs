//! The GPU crowd gives what the CPU crowd gives, within 1e-5 rad, frame after frame: on
//! Haar-random poses in both covers, slow sweeps through full turns and poses on and near the
//! boundary, and on every fixture clip with limits fitted to it. Runs on whatever adapter wgpu
//! finds (Mesa's software Vulkan in CI) and skips, saying why, where there is none.

use glam::{DQuat, Quat, Vec3};
use jointlimits::fit::{FitOptions, ShapeKind, fit_skeleton_limits};
use jointlimits::prepared::PreparedLimit;
use jointlimits::rotation::angle_between;
use jointlimits::shape::KdopDirections;
use jointlimits::shape::Shape;
use jointlimits::{
    Crowd, FullLimit, JointLimit, LimitRegion, Limiter, RotationLimit, Softening, SpaceKind,
    SwingTwistLimit,
};
use jointlimits_gpu::{GpuCrowd, GpuError};
use jointlimits_io::read_bvh_file;
use jointlimits_testdata::{SplitMix, bvh_fixtures};

/// How far the GPU's answer may be from the CPU's (radians).
const TOLERANCE: f32 = 1e-5;

/// A rotation whose distance to the limit is within rounding of the boundary tolerance (1e-5:
/// that close counts as inside) may be kept by one side and moved by the other, by at most this.
const BOUNDARY_BAND: f32 = 2.5e-5;

/// At a swing of exactly 180° each side searches the family of splits for the one nearest the
/// region (`region::half_swing::nearest_member`) in its own arithmetic, and the kernel measures
/// swing cones and spherical ellipses as the swing-twist ellipsoids they are: where the least is
/// flat (a smooth swing boundary), a difference of rounding in the cost moves the split found,
/// and the answer, much farther. There the GPU's answer must be allowed and within this of the
/// CPU's (1.05e-3 rad measured on Mesa).
const HALF_TURN_SEARCH: f32 = 1e-2;

/// The GPU crowd, or `None` (after printing why) where no adapter exists.
fn gpu_crowd(limits: &[Option<JointLimit>], characters: usize) -> Option<GpuCrowd> {
    match GpuCrowd::new(limits, characters) {
        Ok(crowd) => {
            eprintln!("GPU adapter: {}", crowd.adapter());
            Some(crowd)
        }
        Err(GpuError::NoAdapter(reason)) => {
            eprintln!("skipping: no GPU adapter ({reason})");
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// A Haar-random rotation (a uniform point of the 4-ball, normalised), in either cover.
fn random_rotation(rng: &mut SplitMix) -> Quat {
    loop {
        let mut n = || f64::from(rng.next_signed());
        let q = DQuat::from_xyzw(n(), n(), n(), n());
        let length = q.length();
        if (1e-3..=1.0).contains(&length) {
            return (q / length).as_quat();
        }
    }
}

/// How far the CPU's own answer for `input` moves when the input, or the earlier inputs of its
/// stream (`earlier`, whose measurements a stream continues from), are turned by 2e-7 rad (a few
/// units in the last place) about any of 16 axes. Near a 180° swing the twist coordinate, and
/// with it a swing-twist limit's answer (and the answers of a stream that continues from its
/// twist), is that ill-conditioned, and two correct evaluations in f32 may differ by as much.
fn sensitivity(limit: &JointLimit, earlier: &[Quat], input: Quat) -> f32 {
    let answer = |nudge: Quat| {
        let mut limiter = Limiter::new(vec![Some(limit.clone())]);
        for &q in earlier {
            limiter.limit_joint(0, q * nudge);
        }
        limiter.limit_joint(0, input).0
    };
    let (stateless, streamed) = (limit.limit(input), answer(Quat::IDENTITY));
    (0..16)
        .map(|k| {
            let k = k as f32;
            let axis = Vec3::new(k.sin(), (1.3 * k).cos(), 0.5).normalize();
            let nudge = Quat::from_axis_angle(axis, 2e-7);
            let moved = angle_between(limit.limit(input * nudge), stateless);
            moved.max(angle_between(answer(nudge), streamed))
        })
        .fold(0.0, f32::max)
}

/// `frames` limited by the GPU crowd with each frame submitted before the one ahead of it is
/// received (two in flight), with each frame's outside count.
fn pipelined(gpu: &mut GpuCrowd, frames: &[Vec<Quat>]) -> Vec<(Vec<Quat>, usize)> {
    let mut limited = Vec::new();
    for (f, frame) in frames.iter().enumerate() {
        gpu.submit(frame).expect("a frame of this crowd");
        if f > 0 {
            let mut out = vec![Quat::IDENTITY; frame.len()];
            let outside = gpu.receive(&mut out).expect("the GPU runs");
            limited.push((out, outside));
        }
    }
    if let Some(last) = frames.last() {
        let mut out = vec![Quat::IDENTITY; last.len()];
        let outside = gpu.receive(&mut out).expect("the GPU runs");
        limited.push((out, outside));
    }
    limited
}

/// Runs `frames` through both crowds (limited by `limits`; the GPU's two frames in flight) and
/// compares every joint; returns how many were compared.
fn compare(
    limits: &[Option<JointLimit>],
    cpu: &mut Crowd,
    gpu: &mut GpuCrowd,
    frames: &[Vec<Quat>],
    what: &str,
) -> usize {
    let joints = cpu.joint_count();
    let (mut worst, mut in_band, mut ill_conditioned) = (0.0f32, 0, 0);
    let from_gpu = pipelined(gpu, frames);
    for (f, (frame, (on_gpu, gpu_outside))) in frames.iter().zip(from_gpu).enumerate() {
        let mut on_cpu = frame.clone();
        let cpu_outside = cpu.limit_frame(&mut on_cpu);
        for (at, (a, b)) in on_cpu.iter().zip(&on_gpu).enumerate() {
            let apart = angle_between(*a, *b);
            // A rotation kept by exactly one side lies within rounding of the boundary
            // tolerance: a decision, not arithmetic, so it is counted apart.
            if (*a == frame[at]) != (*b == frame[at]) && apart <= BOUNDARY_BAND {
                in_band += 1;
                continue;
            }
            if apart > TOLERANCE {
                // Only where the answer itself is that ill-conditioned (twice what 16 sampled
                // turns show, a lower bound of how far it can move), and rarely.
                let limit = limits[at % joints]
                    .as_ref()
                    .expect("only limited joints move");
                let earlier: Vec<Quat> = frames[..f].iter().map(|frame| frame[at]).collect();
                let moves = sensitivity(limit, &earlier, frame[at]);
                assert!(
                    apart <= 2.0 * moves,
                    "{what}: frame {f}, character {}, joint {}: CPU {a:?}, GPU {b:?} ({apart} rad \
                     apart; input {:?}, which moves the CPU's answer by {moves} when turned by \
                     2e-7 rad, or the stream's earlier inputs are)",
                    at / joints,
                    at % joints,
                    frame[at]
                );
                ill_conditioned += 1;
                continue;
            }
            worst = worst.max(apart);
        }
        // Rotations within rounding of the boundary may count on one side only.
        let differ = cpu_outside.abs_diff(gpu_outside);
        assert!(
            differ * 1000 <= frame.len(),
            "{what}: frame {f}: {cpu_outside} outside on the CPU, {gpu_outside} on the GPU"
        );
    }
    let compared = frames.len() * frames[0].len();
    assert!(
        (in_band + ill_conditioned) * 1000 <= compared,
        "{what}: {in_band} of {compared} joints on the boundary band, {ill_conditioned} \
         ill-conditioned"
    );
    eprintln!(
        "{what}: at most {worst:.2e} rad apart; {in_band} of {compared} on the boundary band \
         (kept on one side, moved by at most {BOUNDARY_BAND:e} on the other), {ill_conditioned} \
         more than {TOLERANCE:e} apart where turning the inputs by 2e-7 rad moves the CPU's own \
         answer at least half as far"
    );
    compared
}

/// Every full-space example, swing-twist box and ellipsoid example, swing cone, spherical
/// ellipse and hinge example (the kinds with native kernels), about random references, and an
/// unlimited joint.
fn example_limits(rng: &mut SplitMix) -> Vec<Option<JointLimit>> {
    use jointlimits::authored::{ConeLimit, HingeLimit, SphericalEllipseLimit};
    let full = FullLimit::examples().into_iter().map(LimitRegion::from);
    let swing_twist = SwingTwistLimit::examples()
        .into_iter()
        .filter(|limit| matches!(limit.swing(), Shape::Box(_) | Shape::Ellipsoid(_)))
        .map(LimitRegion::from);
    let cones = ConeLimit::examples().into_iter().map(LimitRegion::Cone);
    let ellipses = SphericalEllipseLimit::examples()
        .into_iter()
        .map(LimitRegion::SphericalEllipse);
    let hinges = HingeLimit::examples().into_iter().map(LimitRegion::Hinge);
    let mut limits: Vec<Option<JointLimit>> = vec![None];
    for region in full
        .chain(swing_twist)
        .chain(cones)
        .chain(ellipses)
        .chain(hinges)
    {
        limits.push(Some(about_random_reference(region, rng)));
    }
    limits
}

/// An unsoftened joint limit of `region` about a random reference.
fn about_random_reference(region: LimitRegion, rng: &mut SplitMix) -> JointLimit {
    JointLimit {
        joint: "joint".into(),
        reference: random_rotation(rng),
        region,
        softening: None,
    }
}

#[test]
fn the_gpu_equals_the_cpu_on_random_sweeping_and_boundary_poses() {
    let mut rng = SplitMix(0x6A0);
    let limits = example_limits(&mut rng);
    let characters = 500;
    let joints = limits.len();
    let Some(mut gpu) = gpu_crowd(&limits, characters) else {
        return;
    };
    let mut cpu = Crowd::new(limits.clone(), characters);
    let frames: Vec<Vec<Quat>> = (0..12)
        .map(|f| {
            let mut frame = Vec::with_capacity(characters * joints);
            for c in 0..characters {
                for limit in &limits {
                    let q = match (c % 3, limit) {
                        (1, _) => {
                            let axis = Vec3::new((c as f32).sin(), (c as f32).cos(), 0.3);
                            Quat::from_axis_angle(axis.normalize(), 0.3 * f as f32 + c as f32)
                        }
                        (2, Some(limit)) => {
                            let on_boundary = limit.limit(random_rotation(&mut rng));
                            let axis = Vec3::new(rng.next_signed(), rng.next_signed(), 0.5);
                            on_boundary
                                * Quat::from_axis_angle(axis.normalize(), 0.01 * rng.next_signed())
                        }
                        _ => random_rotation(&mut rng),
                    };
                    frame.push(if rng.next_signed() < 0.0 { -q } else { q });
                }
            }
            frame
        })
        .collect();
    compare(&limits, &mut cpu, &mut gpu, &frames, "random");
    // After a reset both start over.
    cpu.reset();
    gpu.reset();
    compare(&limits, &mut cpu, &mut gpu, &frames[..3], "after a reset");
}

/// Frames of several MiB go to the GPU and back in pieces on several threads (and a rest): every
/// rotation must still land where it belongs.
#[test]
fn frames_larger_than_a_copy_piece_travel_whole() {
    let mut rng = SplitMix(0xB16);
    // Hulls (hundreds of faces) are left to the smaller tests: on a software rasteriser they
    // would take most of this one's time.
    let limits: Vec<Option<JointLimit>> = example_limits(&mut rng)
        .into_iter()
        .filter(|limit| {
            !limit.as_ref().is_some_and(|limit| {
                matches!(&limit.region, LimitRegion::Full(full) if matches!(full.shape(), Shape::Hull(_)))
            })
        })
        .collect();
    let joints = limits.len();
    // Three pieces of 1 MiB (65,536 rotations each) and a rest that is not a whole piece.
    let characters = (3 * 65_536 + 1_000_usize).div_ceil(joints);
    let Some(mut gpu) = gpu_crowd(&limits, characters) else {
        return;
    };
    let mut cpu = Crowd::new(limits.clone(), characters);
    let frames: Vec<Vec<Quat>> = (0..2)
        .map(|_| {
            (0..characters * joints)
                .map(|_| random_rotation(&mut rng))
                .collect()
        })
        .collect();
    compare(&limits, &mut cpu, &mut gpu, &frames, "large frames");
}

#[test]
fn the_gpu_equals_the_cpu_on_every_fixture() {
    let Some(files) = bvh_fixtures() else { return };
    let mut compared = 0;
    for path in files {
        let bvh = read_bvh_file(&path).unwrap();
        let motion = bvh.to_motion();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        // Swing-twist ellipsoids, 13-DOPs and hulls on the first clip.
        let mut fits = vec![
            (SpaceKind::Full, ShapeKind::Ellipsoid),
            (SpaceKind::Full, ShapeKind::Obb),
        ];
        if compared == 0 {
            fits.extend([
                (SpaceKind::SwingTwist, ShapeKind::Ellipsoid),
                (SpaceKind::Full, ShapeKind::Kdop(KdopDirections::Thirteen)),
                (SpaceKind::Full, ShapeKind::Hull),
            ]);
        }
        for (space, shape) in fits {
            let options = FitOptions {
                space,
                shape,
                ..FitOptions::default()
            };
            let limits = fit_skeleton_limits(&bvh.skeleton, &[&motion], &options, &|_| {}).unwrap();
            let characters = 64;
            let per_joint = limits.per_joint(&bvh.skeleton).unwrap();
            let Some(mut gpu) = gpu_crowd(&per_joint, characters) else {
                return;
            };
            let mut cpu = limits.bind_crowd(&bvh.skeleton, characters).unwrap();
            let mut rng = SplitMix(7);
            let frames: Vec<Vec<Quat>> = (0..16)
                .map(|f| {
                    let mut frame = Vec::new();
                    for c in 0..characters {
                        let at = (c * 131 + 3 * f) % motion.frame_count();
                        for &q in motion.frame_rotations(at) {
                            let axis =
                                Vec3::new(rng.next_signed(), rng.next_signed(), rng.next_signed());
                            let turn = Quat::from_axis_angle(
                                axis.normalize_or(Vec3::X),
                                0.15 * rng.next_signed(),
                            );
                            frame.push(q * turn);
                        }
                    }
                    frame
                })
                .collect();
            compared += compare(
                &per_joint,
                &mut cpu,
                &mut gpu,
                &frames,
                &format!("{name} {space:?} {shape:?}"),
            );
        }
    }
    assert!(compared > 0);
}

/// Bit patterns, so that a comparison is exact.
fn bits(q: Quat) -> [u32; 4] {
    q.to_array().map(f32::to_bits)
}

/// Every kind runs: joints with native kernels agree with the CPU crowd within the tolerance, and
/// joints limited on the host (after the kernel marked the rotations in their proven cells) give
/// the CPU crowd's bits, on random, sweeping, near-boundary, 180° and well-inside poses.
#[test]
fn every_kind_runs_and_joints_limited_on_the_host_equal_the_cpu_bit_for_bit() {
    let mut rng = SplitMix(0xA11);
    let mut limits: Vec<Option<JointLimit>> = vec![None];
    for region in LimitRegion::examples() {
        limits.push(Some(about_random_reference(region, &mut rng)));
    }
    // A softened box has no native kernel: it is limited on the host, with cells.
    let mut softened = limits[1].clone().unwrap();
    softened.softening = Some(Softening {
        falloff: 4.0,
        radius: 0.2,
    });
    limits.push(Some(softened));
    let joints = limits.len();
    // Coupled limits read their parent: the unlimited root, the same on both sides.
    let parents = vec![Some(0); joints];
    let characters = 200;
    let Some(gpu) = gpu_crowd(&limits, characters) else {
        return;
    };
    let mut gpu = gpu.with_parents(&parents);
    let on_host: Vec<bool> = limits
        .iter()
        .map(|limit| {
            limit.as_ref().is_some_and(|limit| {
                // Regions reaching past a full turn are projected on the host.
                let native = match &limit.region {
                    LimitRegion::Full(full) => !full.ball().passes_full_turn(),
                    LimitRegion::SwingTwist(swing_twist) => {
                        matches!(swing_twist.swing(), Shape::Box(_) | Shape::Ellipsoid(_))
                            && !swing_twist.ball().passes_full_turn()
                    }
                    // As the swing-twist ellipsoids they are.
                    LimitRegion::Cone(_) | LimitRegion::SphericalEllipse(_) => true,
                    LimitRegion::Hinge(_) => true,
                    _ => false,
                };
                !native || limit.softening.is_some()
            })
        })
        .collect();
    assert_eq!(gpu.joints_on_host(), on_host.iter().filter(|&&h| h).count());
    let mut cpu = Crowd::new(limits.clone(), characters).with_parents(&parents);
    // The cells the kernel reads, proven on the CPU.
    let prepared: Vec<Option<PreparedLimit>> = limits
        .iter()
        .map(|limit| limit.clone().map(PreparedLimit::new))
        .collect();
    let (mut compared, mut exact, mut proven, mut apart) = (0, 0, 0, 0);
    // Of `apart`, those away from the near-180° poses.
    let mut apart_elsewhere = 0;
    let mut played: Vec<Vec<Quat>> = Vec::new();
    for f in 0..10 {
        let mut frame = Vec::with_capacity(characters * joints);
        for c in 0..characters {
            for limit in &limits {
                let q = match (c % 5, limit) {
                    (1, _) => {
                        let axis = Vec3::new((c as f32).sin(), (c as f32).cos(), 0.3);
                        Quat::from_axis_angle(axis.normalize(), 0.3 * f as f32 + c as f32)
                    }
                    (2, Some(limit)) => {
                        let axis = Vec3::new(rng.next_signed(), rng.next_signed(), 0.5);
                        limit.limit(random_rotation(&mut rng))
                            * Quat::from_axis_angle(axis.normalize(), 0.01 * rng.next_signed())
                    }
                    (3, Some(limit)) => {
                        let axis =
                            Vec3::new(rng.next_signed(), rng.next_signed(), rng.next_signed());
                        limit.reference
                            * Quat::from_axis_angle(
                                axis.normalize_or(Vec3::X),
                                0.4 * rng.next_signed(),
                            )
                    }
                    (4, Some(limit)) => {
                        // Swings of nearly or exactly 180° away from the bone, with twist.
                        let bone = limit.region.bone_axis().unwrap_or(Vec3::Z);
                        let across =
                            Quat::from_axis_angle(bone, c as f32) * bone.any_orthonormal_vector();
                        let e = [0.0, 1e-6, -1e-4, 1e-2][f % 4];
                        limit.reference
                            * Quat::from_axis_angle(across, std::f32::consts::PI + e)
                            * Quat::from_axis_angle(bone, 0.9 * f as f32)
                    }
                    _ => random_rotation(&mut rng),
                };
                frame.push(if rng.next_signed() < 0.0 { -q } else { q });
            }
        }
        let mut on_cpu = frame.clone();
        let mut on_gpu = frame.clone();
        let cpu_outside = cpu.limit_frame(&mut on_cpu);
        let gpu_outside = gpu.limit_frame(&mut on_gpu).expect("the GPU runs");
        // The kernel finds in proven cells what the CPU finds there (up to rotations on a cell's
        // face, which rounding may put on either side).
        let proven_on_cpu = frame
            .iter()
            .enumerate()
            .filter(|&(at, q)| {
                let joint = at % joints;
                on_host[joint]
                    && prepared[joint]
                        .as_ref()
                        .and_then(PreparedLimit::inside_cells)
                        .is_some_and(|cells| cells.surely_allowed(*q))
            })
            .count();
        assert!(
            gpu.proven_on_gpu().abs_diff(proven_on_cpu) * 1000 <= proven_on_cpu,
            "frame {f}: {} proven on the GPU, {proven_on_cpu} on the CPU",
            gpu.proven_on_gpu()
        );
        proven += gpu.proven_on_gpu();
        let mut in_band = 0;
        let earlier = |at: usize| played.iter().map(|frame| frame[at]).collect::<Vec<_>>();
        for (at, (a, b)) in on_cpu.iter().zip(&on_gpu).enumerate() {
            let joint = at % joints;
            if on_host[joint] {
                assert_eq!(
                    bits(*a),
                    bits(*b),
                    "frame {f}, slot {at}, joint {joint}: CPU {a:?}, GPU {b:?}"
                );
                exact += 1;
            } else if angle_between(*a, *b) > TOLERANCE {
                // On the boundary band, or where the answer is ill-conditioned (`compare`).
                let apart = angle_between(*a, *b);
                let limit = limits[joint].as_ref().expect("only limited joints move");
                let half_turn = limit.region.is_degenerate(limit.relative(frame[at]));
                assert!(
                    ((*a == frame[at]) != (*b == frame[at]) && apart <= BOUNDARY_BAND)
                        || apart <= 2.0 * sensitivity(limit, &earlier(at), frame[at])
                        || (half_turn && apart <= HALF_TURN_SEARCH && limit.violation(*b) <= 2e-5),
                    "frame {f}, slot {at}, joint {joint} ({}): CPU {a:?}, GPU {b:?}, {apart} rad \
                     apart; input {:?}, sensitivity {}",
                    limit.region.label(),
                    frame[at],
                    sensitivity(limit, &earlier(at), frame[at])
                );
                in_band += 1;
                if (at / joints) % 5 != 4 {
                    apart_elsewhere += 1;
                }
            }
            compared += 1;
        }
        apart += in_band;
        assert!(
            cpu_outside.abs_diff(gpu_outside) <= in_band,
            "frame {f}: {cpu_outside} outside on the CPU, {gpu_outside} on the GPU"
        );
        played.push(frame);
    }
    eprintln!(
        "{compared} joints compared, {exact} of them limited on the host, bit for bit; \
         {proven} found in proven cells by the kernel; {apart} native ones more than {TOLERANCE:e} \
         apart ({apart_elsewhere} away from the near-180° poses), on the boundary band or where \
         the CPU's own answer is as sensitive"
    );
    // Each was checked above. Nearly all come from the near-180° poses (a fifth of the
    // characters, where the answer is ill-conditioned by design): at most a tenth of those, and
    // a thousandth of the rest.
    assert!(apart * 50 <= compared, "{apart} of {compared} apart");
    assert!(
        apart_elsewhere * 1000 <= compared,
        "{apart_elsewhere} of {compared} apart away from a 180° swing"
    );
    assert!(
        proven * 40 >= exact,
        "few rotations in proven cells: {proven} of {exact}"
    );
}

#[test]
fn a_frame_of_the_wrong_size_is_an_error() {
    let limits = vec![None, None];
    let Some(mut gpu) = gpu_crowd(&limits, 3) else {
        return;
    };
    let mut poses = vec![Quat::IDENTITY; 5];
    match gpu.limit_frame(&mut poses) {
        Err(GpuError::FrameSize {
            expected: 6,
            got: 5,
        }) => {}
        other => panic!("{other:?}"),
    }
    let mut poses = vec![Quat::from_rotation_x(0.3); 6];
    assert_eq!(gpu.limit_frame(&mut poses).unwrap(), 0);
    assert!(poses.iter().all(|q| *q == Quat::from_rotation_x(0.3)));
}

#[test]
fn frames_out_of_turn_are_errors_that_change_nothing() {
    use jointlimits::shape::{BoxShape, Frame};
    let limit = JointLimit {
        joint: "box".into(),
        reference: Quat::IDENTITY,
        region: FullLimit::new(Shape::Box(BoxShape {
            frame: Frame::IDENTITY,
            min: Vec3::splat(-0.15),
            max: Vec3::splat(0.15),
        }))
        .into(),
        softening: None,
    };
    let Some(mut gpu) = gpu_crowd(&[Some(limit.clone())], 2) else {
        return;
    };
    let out_of_turn = |result: Result<usize, GpuError>| match result {
        Err(GpuError::InFlight(_)) => {}
        other => panic!("{other:?}"),
    };
    let mut poses = vec![Quat::IDENTITY; 2];
    out_of_turn(gpu.receive(&mut poses));
    let frames: Vec<Vec<Quat>> = (1..=3)
        .map(|k| vec![Quat::from_rotation_x(0.1 * k as f32); 2])
        .collect();
    gpu.submit(&frames[0]).unwrap();
    gpu.submit(&frames[1]).unwrap();
    match gpu.submit(&frames[2]) {
        Err(GpuError::InFlight(_)) => {}
        other => panic!("{other:?}"),
    }
    out_of_turn(gpu.limit_frame(&mut poses));
    out_of_turn(gpu.download(&mut poses));
    // The two frames come back in order: the first inside, the second outside and limited.
    assert_eq!(gpu.receive(&mut poses).unwrap(), 0);
    assert_eq!(poses, frames[0]);
    assert_eq!(gpu.receive(&mut poses).unwrap(), 2);
    let expected = limit.limit(frames[1][0]);
    assert_ne!(expected, frames[1][0]);
    assert!(
        poses
            .iter()
            .all(|q| angle_between(*q, expected) < TOLERANCE)
    );
    out_of_turn(gpu.receive(&mut poses));
    assert_eq!(gpu.limit_frame(&mut poses).unwrap(), 0);
}

/// Two cases the kernel once read apart from the CPU: a stream whose last twist lies exactly half
/// a turn from the new one (the turn nearest it is a tie, which Rust's `round` breaks away from
/// zero and WGSL's to even), and rotations off unit length (the CPU normalises those more than
/// 1e-3 off in `|q|²` before measuring them).
#[test]
fn half_turn_ties_and_rotations_off_unit_length_agree() {
    use jointlimits::region::swing_basis;
    use jointlimits::shape::{BoxShape, Frame};
    use jointlimits::twist::TwistRange;
    let swing = Shape::Box(BoxShape {
        frame: Frame::IDENTITY,
        min: Vec3::splat(-0.5),
        max: Vec3::splat(0.5),
    });
    let twist = TwistRange {
        min: 0.05,
        max: 6.25,
    };
    let tie = JointLimit {
        joint: "tie".into(),
        reference: Quat::IDENTITY,
        region: SwingTwistLimit::new(Vec3::Z, swing_basis(Vec3::Z), swing, twist).into(),
        softening: None,
    };
    let mut rng = SplitMix(0x0FF);
    let mut limits = example_limits(&mut rng);
    limits.push(Some(tie));
    let joints = limits.len();
    let characters = 64;
    let Some(mut gpu) = gpu_crowd(&limits, characters) else {
        return;
    };
    let mut cpu = Crowd::new(limits.clone(), characters);
    let frames: Vec<Vec<Quat>> = (0..4)
        .map(|f| {
            (0..characters * joints)
                .map(|at| {
                    if at % joints == joints - 1 {
                        // Twist π, then the identity (twist 0): exactly half a turn apart.
                        return if f % 2 == 0 {
                            Quat::from_xyzw(0.0, 0.0, 1.0, 0.0)
                        } else {
                            Quat::IDENTITY
                        };
                    }
                    let scale = [1.0, 1.05, 0.9, 1.0005, 3.0][(at / joints) % 5];
                    random_rotation(&mut rng) * scale
                })
                .collect()
        })
        .collect();
    compare(&limits, &mut cpu, &mut gpu, &frames, "ties and scales");
}

/// A reset made while frames are in flight falls between them: the frames submitted before it
/// are limited with the history they came after, on the GPU and on the host alike, and those
/// submitted after it start over, as a CPU crowd reset between the same frames. The frames sweep
/// slowly through where two answers tie (a full-space box's two covers at a half turn, an Euler
/// channel's two ends across its gap), so that a stream's history decides many answers.
#[test]
fn a_reset_while_frames_are_in_flight_falls_between_them() {
    use jointlimits::EulerOrder;
    use jointlimits::authored::EulerLimit;
    let mut rng = SplitMix(0x5E7);
    // A native full-space box and Euler ranges, limited on the host; the first (Z) channel's
    // gap runs from 1.2 to 2π − 0.5, its middle at 3.49.
    let euler = EulerLimit {
        order: EulerOrder::ZXY,
        min: Vec3::new(-0.5, -1.0, -0.2),
        max: Vec3::new(1.2, 0.4, 0.9),
    };
    let regions = [
        LimitRegion::from(FullLimit::examples().remove(0)),
        LimitRegion::Euler(euler),
    ];
    let limits: Vec<Option<JointLimit>> = regions
        .into_iter()
        .map(|region| Some(about_random_reference(region, &mut rng)))
        .collect();
    let characters = 300;
    let Some(mut gpu) = gpu_crowd(&limits, characters) else {
        return;
    };
    let mut cpu = Crowd::new(limits.clone(), characters);
    let frames: Vec<Vec<Quat>> = (0..12)
        .map(|f| {
            let mut frame = Vec::new();
            for c in 0..characters {
                let sweep = 0.05 * f as f32 + 0.001 * c as f32;
                let axis = Vec3::new((c as f32).sin(), (0.7 * c as f32).cos(), 0.4).normalize();
                let half_turn = Quat::from_axis_angle(axis, std::f32::consts::PI - 0.3 + sweep);
                let across_gap = Quat::from_rotation_z(3.2 + sweep);
                for (limit, relative) in limits.iter().zip([half_turn, across_gap]) {
                    frame.push(limit.as_ref().expect("limited").local(relative));
                }
            }
            frame
        })
        .collect();
    // GPU: each frame submitted before the one ahead of it is received, resets made right
    // after frames 4 and 9 are submitted (frames 3 and 4, and 8 and 9, in flight).
    let resets = [4, 9];
    let mut from_gpu = Vec::new();
    let mut out = vec![Quat::IDENTITY; frames[0].len()];
    for (f, frame) in frames.iter().enumerate() {
        gpu.submit(frame).unwrap();
        if resets.contains(&f) {
            gpu.reset();
        }
        if f > 0 {
            gpu.receive(&mut out).unwrap();
            from_gpu.push(out.clone());
        }
    }
    gpu.receive(&mut out).unwrap();
    from_gpu.push(out.clone());
    // CPU: the same frames, reset right after frames 4 and 9.
    let mut history_decided = 0;
    for (f, (frame, on_gpu)) in frames.iter().zip(&from_gpu).enumerate() {
        let mut on_cpu = frame.clone();
        cpu.limit_frame(&mut on_cpu);
        let mut stateless = frame.clone();
        Crowd::new(limits.clone(), characters).limit_frame(&mut stateless);
        for (at, (a, b)) in on_cpu.iter().zip(on_gpu).enumerate() {
            if at % limits.len() == 0 {
                // Native: within rounding (a reset out of order would keep another cover).
                assert!(
                    angle_between(*a, *b) <= 1e-4,
                    "frame {f}, slot {at}: {a} {b}"
                );
            } else {
                assert_eq!(bits(*a), bits(*b), "frame {f}, slot {at}: {a} {b}");
            }
            history_decided += usize::from(angle_between(*a, stateless[at]) > 1e-3);
        }
        if resets.contains(&f) {
            cpu.reset();
        }
    }
    // The test can tell: many answers differ from the stateless ones.
    assert!(
        history_decided > 100,
        "{history_decided} answers decided by history"
    );
}
