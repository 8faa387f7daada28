//! The crowd gives what a limiter per character gives, bit for bit, for every registered kind on
//! the whole input space (Haar-random frames in both covers, slow sweeps through full turns, the
//! boundary and its neighbourhood, 180° swings); and its lane test never passes a rotation the
//! scalar path would change.

mod common;

use std::f32::consts::PI;

use common::oracle::Rng;
use glam::{Quat, Vec3};
use jointlimits::batch::{LANES, SurelyInside};
use jointlimits::prepared::PreparedLimit;
use jointlimits::{Crowd, JointLimit, LimitRegion, Limiter, RotationLimit};

/// The limits of a three-joint skeleton: an unlimited root and two joints limited by `region`
/// about different references.
fn skeleton_limits(region: &LimitRegion, rng: &mut Rng) -> Vec<Option<JointLimit>> {
    let limit = |reference: Quat| JointLimit {
        joint: "joint".into(),
        reference,
        region: region.clone(),
        softening: None,
    };
    vec![
        None,
        Some(limit(Quat::IDENTITY)),
        Some(limit(rng.rotation())),
    ]
}

/// A rotation this close to the boundary of `limit`: its nearest allowed rotation turned by up to
/// `reach` radians about a random axis.
fn near_boundary(limit: &JointLimit, rng: &mut Rng, reach: f64) -> Quat {
    let on_boundary = limit.limit(rng.rotation());
    let nudge = Quat::from_axis_angle(rng.direction().as_vec3(), rng.range(-reach, reach) as f32);
    on_boundary * nudge
}

/// Character `c`'s rotation of a limited joint at `frame`, from one of four families.
fn input(limit: &JointLimit, c: usize, frame: usize, rng: &mut Rng) -> Quat {
    let q = match c % 4 {
        // Discontinuous: a new Haar-random rotation every frame.
        0 => rng.rotation(),
        // A slow sweep through full turns about the character's own axis.
        1 => {
            let axis = Vec3::new((c as f32).sin(), (c as f32 * 0.7).cos(), 0.4).normalize();
            Quat::from_axis_angle(axis, 0.35 * frame as f32 + c as f32)
        }
        // The boundary and its neighbourhood, from 1e-7 to 1e-2 rad away.
        2 => near_boundary(limit, rng, 10f64.powi(-(((c / 4) % 6) as i32) - 2)),
        // Swings of nearly or exactly 180°, with twist.
        _ => {
            let u = Vec3::new(1.0, (c as f32).cos(), 0.0).normalize();
            let e = [0.0, 1e-6, -1e-4, 1e-2][frame % 4];
            Quat::from_axis_angle(u, PI + e) * Quat::from_rotation_z(0.9 * frame as f32)
        }
    };
    // Either cover.
    if rng.next() < 0.5 { -q } else { q }
}

/// Bit patterns, so that the comparison is exact (and -0.0 ≠ 0.0).
fn bits(q: Quat) -> [u32; 4] {
    q.to_array().map(f32::to_bits)
}

/// Runs `frames` frames of a crowd and of a limiter per character side by side; with `proven`,
/// the crowd is told which slots lie in those joints' proven cells.
fn compare(limits: &[Option<JointLimit>], crowd: &mut Crowd, limiters: &mut [Limiter], seed: u64) {
    compare_knowing(limits, crowd, limiters, seed, None);
}

fn compare_knowing(
    limits: &[Option<JointLimit>],
    crowd: &mut Crowd,
    limiters: &mut [Limiter],
    seed: u64,
    proven: Option<&[Option<PreparedLimit>]>,
) {
    let mut rng = Rng(seed);
    let joints = limits.len();
    let characters = limiters.len();
    let mut known_slots = 0;
    for frame in 0..10 {
        let mut poses = vec![Quat::IDENTITY; characters * joints];
        for c in 0..characters {
            for (j, limit) in limits.iter().enumerate() {
                poses[c * joints + j] = match limit {
                    Some(limit) => input(limit, c, frame, &mut rng),
                    None => rng.rotation(),
                };
            }
        }
        // A cut for some characters halfway.
        if frame == 5 {
            for c in (0..characters).step_by(7) {
                crowd.reset_character(c);
                limiters[c].reset();
            }
        }
        let mut expected = poses.clone();
        let mut expected_outside = 0;
        for (c, limiter) in limiters.iter_mut().enumerate() {
            expected_outside += limiter.limit_pose(&mut expected[c * joints..(c + 1) * joints]);
        }
        let outside = match proven {
            None => crowd.limit_frame(&mut poses),
            Some(prepared) => {
                let input = poses.clone();
                let surely_allowed = |slot: usize| {
                    prepared[slot % joints]
                        .as_ref()
                        .and_then(PreparedLimit::inside_cells)
                        .is_some_and(|cells| cells.surely_allowed(input[slot]))
                };
                let known = (0..input.len()).filter(|&s| surely_allowed(s)).count();
                known_slots += known;
                crowd.limit_frame_knowing(&mut poses, surely_allowed)
            }
        };
        for (at, (got, want)) in poses.iter().zip(&expected).enumerate() {
            assert_eq!(
                bits(*got),
                bits(*want),
                "frame {frame}, character {}, joint {}: crowd {got:?}, limiter {want:?}",
                at / joints,
                at % joints
            );
        }
        assert_eq!(outside, expected_outside, "frame {frame}");
    }
    if proven.is_some() {
        // Enough inputs lie in proven cells for the test to mean something (the sweeps and
        // random rotations that fall well inside).
        eprintln!("seed {seed}: {known_slots} slots known allowed");
        assert!(known_slots >= 20, "{known_slots} slots known allowed");
    }
}

#[test]
fn a_crowd_equals_a_limiter_per_character_bit_for_bit_for_every_kind() {
    let mut rng = Rng(0x0C0D);
    // Past one task of characters, with a partial group of lanes at the end.
    let characters = 300;
    for (index, region) in LimitRegion::examples().iter().enumerate() {
        let limits = skeleton_limits(region, &mut rng);
        // Proven once: the joints without a lane test skip the exact test in their cells.
        let proven = Crowd::new(limits.clone(), characters).with_proven_cells();
        for (margin, path_aware, cells) in [
            (0.1, false, false),
            (0.0, false, false),
            (0.1, true, false),
            (0.1, false, true),
            (0.1, true, true),
        ] {
            let crowd = if cells {
                proven.clone()
            } else {
                Crowd::new(limits.clone(), characters)
            };
            let mut crowd = crowd.with_margin(margin).with_path_aware(path_aware);
            let mut limiters = vec![
                Limiter::new(limits.clone())
                    .with_margin(margin)
                    .with_path_aware(path_aware);
                characters
            ];
            compare(&limits, &mut crowd, &mut limiters, index as u64);
        }
    }
}

/// Slots proven allowed from outside (by the cells a GPU reads) change nothing: every kind with
/// proven cells, in plain and path-aware crowds.
#[test]
fn a_crowd_told_which_slots_are_proven_allowed_still_equals_a_limiter_per_character() {
    let mut rng = Rng(0x7E11);
    let characters = 160;
    for (index, region) in LimitRegion::examples().iter().enumerate() {
        let limits = skeleton_limits(region, &mut rng);
        let prepared: Vec<Option<PreparedLimit>> = limits
            .iter()
            .map(|limit| limit.clone().map(PreparedLimit::new))
            .collect();
        // Cells prove rotations the short way round, which regions past a full turn hardly
        // hold: too few slots known to mean something.
        if prepared[1].as_ref().unwrap().inside_cells().is_none()
            || common::reaches_past_full_turn(region)
        {
            continue;
        }
        for path_aware in [false, true] {
            let mut crowd = Crowd::new(limits.clone(), characters).with_path_aware(path_aware);
            let mut limiters =
                vec![Limiter::new(limits.clone()).with_path_aware(path_aware); characters];
            compare_knowing(
                &limits,
                &mut crowd,
                &mut limiters,
                index as u64,
                Some(&prepared),
            );
        }
    }
}

#[test]
fn a_reset_crowd_starts_over_like_new_limiters() {
    let mut rng = Rng(0xC07);
    let region = LimitRegion::examples()
        .into_iter()
        .find(|r| matches!(r, LimitRegion::SwingTwist(_)))
        .unwrap();
    let limits = skeleton_limits(&region, &mut rng);
    let characters = 40;
    let mut crowd = Crowd::new(limits.clone(), characters);
    let mut limiters = vec![Limiter::new(limits.clone()); characters];
    compare(&limits, &mut crowd, &mut limiters, 1);
    crowd.reset();
    let mut fresh = vec![Limiter::new(limits.clone()); characters];
    compare(&limits, &mut crowd, &mut fresh, 2);
}

#[test]
fn the_lane_test_passes_only_rotations_the_scalar_path_allows() {
    let mut rng = Rng(0x1A7E);
    let mut tested_kinds = 0;
    for region in LimitRegion::examples() {
        let limit = JointLimit {
            joint: "joint".into(),
            reference: rng.rotation(),
            region,
            softening: None,
        };
        let Some(lanes) = SurelyInside::of(&limit) else {
            continue;
        };
        tested_kinds += 1;
        let (mut passed_deep, mut deep) = (0, 0);
        for round in 0..400 {
            let mut group = [Quat::IDENTITY; LANES];
            for (i, q) in group.iter_mut().enumerate() {
                *q = match (round + i) % 3 {
                    0 => rng.rotation(),
                    1 => near_boundary(&limit, &mut rng, 10f64.powi(-(i as i32 % 7) - 1)),
                    // Deep inside: a boundary rotation pulled towards the reference.
                    _ => limit.limit(rng.rotation()).slerp(limit.reference, 0.3),
                };
            }
            let surely = lanes.test(&group);
            for (q, &surely) in group.iter().zip(&surely) {
                let inside = limit.contains(*q);
                // Allowed with room: every nudge of 2e-3 rad stays allowed.
                let roomy = inside
                    && (0..8).all(|_| {
                        let nudge = Quat::from_axis_angle(rng.direction().as_vec3(), 2e-3);
                        limit.contains(*q * nudge)
                    });
                deep += usize::from(roomy);
                passed_deep += usize::from(roomy && surely);
                assert!(
                    !surely || limit.limit(*q) == *q && inside,
                    "{}: the lanes pass {q:?}, which the scalar path changes",
                    limit.region.kind_name()
                );
            }
        }
        assert!(
            deep >= 100,
            "{}: too few roomy rotations",
            limit.region.kind_name()
        );
        // The test is useful: it passes what is allowed with room to spare (the short way
        // round, where regions past a full turn hold hardly anything).
        assert!(
            passed_deep * 10 >= deep * 9 || common::reaches_past_full_turn(&limit.region),
            "{}: lanes pass {passed_deep} of {deep} rotations allowed with room",
            limit.region.kind_name()
        );
    }
    assert!(tested_kinds >= 2);
}

#[test]
fn quaternions_far_from_unit_length_match_a_limiter_too() {
    let mut rng = Rng(0x5CA1E);
    let characters = 64;
    for region in LimitRegion::examples() {
        let limits = skeleton_limits(&region, &mut rng);
        let mut crowd = Crowd::new(limits.clone(), characters);
        let mut limiters = vec![Limiter::new(limits.clone()); characters];
        for scale in [1e-25f32, 1e-3, 1e3, 1e19, 3e19, f32::MAX] {
            let poses: Vec<Quat> = (0..characters * limits.len())
                .map(|_| rng.rotation() * scale)
                .collect();
            let mut expected = poses.clone();
            for (c, limiter) in limiters.iter_mut().enumerate() {
                limiter.limit_pose(&mut expected[c * limits.len()..(c + 1) * limits.len()]);
            }
            let mut got = poses;
            crowd.limit_frame(&mut got);
            for (a, b) in got.iter().zip(&expected) {
                assert_eq!(bits(*a), bits(*b), "{}: scale {scale}", region.kind_name());
            }
        }
    }
}
