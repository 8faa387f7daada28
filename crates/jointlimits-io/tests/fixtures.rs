//! The BVH reader and writer on the real motion capture fixtures.

use jointlimits::rotation::angle_between;
use jointlimits_io::bvh::{Bvh, parse_bvh, read_bvh_file};

/// Frame and joint counts from the fixtures' provenance notes.
const EXPECTED: &[(&str, usize, usize)] = &[
    ("cmu_daz/indian_13.bvh", 1996, 43),
    ("cmu_daz/martial_04.bvh", 1317, 43),
    ("cmu_daz/martial_07.bvh", 1473, 43),
    ("cmu_daz/salsa_10.bvh", 1198, 43),
    ("cmu_max/131_01.bvh", 994, 31),
    ("cmu_mb2/12_01_walk.bvh", 524, 31),
    ("cmu_mb2008/01_01.bvh", 2752, 31),
];

#[test]
fn every_fixture_parses_with_the_documented_counts() {
    let Some(files) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    assert_eq!(
        files.len(),
        EXPECTED.len(),
        "fixture set changed: {files:?}"
    );
    for (relative, frames, joints) in EXPECTED {
        let path = jointlimits_testdata::fixture(relative).unwrap();
        let bvh = read_bvh_file(&path).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(bvh.frame_count(), *frames, "{relative}");
        assert_eq!(bvh.skeleton.len(), *joints, "{relative}");
        assert!((bvh.frame_time - 0.008_333).abs() < 1e-5, "{relative}");
        let motion = bvh.to_motion();
        assert_eq!(motion.frame_count(), *frames);
        assert!(
            motion
                .rotations
                .iter()
                .all(|q| q.is_finite() && q.is_normalized())
        );
    }
}

#[test]
fn mixed_rotation_orders_are_kept_per_joint() {
    let Some(path) = jointlimits_testdata::fixture("cmu_max/131_01.bvh") else {
        return;
    };
    let bvh = read_bvh_file(path).unwrap();
    let order_of = |name: &str| {
        let index = bvh.skeleton.find(name).unwrap();
        bvh.channels[index]
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(order_of("LeftHip"), "Zrotation Yrotation Xrotation");
    assert_eq!(order_of("LeftShoulder"), "Zrotation Xrotation Yrotation");
    assert_eq!(bvh.channels[0].len(), 6);
}

/// An independent reader of frame 0, written for this test only: plain whitespace tokens and
/// explicit 3×3 matrix products in f64, sharing no code with the library.
mod reference {
    type Mat = [[f64; 3]; 3];

    fn mul(a: &Mat, b: &Mat) -> Mat {
        let mut m = [[0.0; 3]; 3];
        for (r, row) in m.iter_mut().enumerate() {
            for (c, cell) in row.iter_mut().enumerate() {
                *cell = (0..3).map(|k| a[r][k] * b[k][c]).sum();
            }
        }
        m
    }

    fn apply(m: &Mat, v: [f64; 3]) -> [f64; 3] {
        [0, 1, 2].map(|r| (0..3).map(|k| m[r][k] * v[k]).sum())
    }

    fn axis_rotation(axis: char, degrees: f64) -> Mat {
        let (s, c) = degrees.to_radians().sin_cos();
        match axis {
            'X' => [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
            'Y' => [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]],
            _ => [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]],
        }
    }

    /// World positions of every joint in frame 0, in file order.
    pub fn frame0_positions(text: &str) -> Vec<[f64; 3]> {
        let tokens: Vec<&str> = text.split_whitespace().collect();
        // (parent, offset, channel names) per joint.
        let mut joints: Vec<(Option<usize>, [f64; 3], Vec<String>)> = Vec::new();
        let mut stack: Vec<usize> = Vec::new();
        let mut i = 0;
        while !tokens[i].eq_ignore_ascii_case("MOTION") {
            match tokens[i] {
                "ROOT" | "JOINT" => {
                    let parent = stack.last().copied();
                    joints.push((parent, [0.0; 3], Vec::new()));
                    stack.push(joints.len() - 1);
                    i += 3; // keyword, name, "{"
                }
                t if t.eq_ignore_ascii_case("End") => i += 8, // End Site { OFFSET x y z }
                "OFFSET" => {
                    let last = joints.len() - 1;
                    joints[last].1 = [1, 2, 3].map(|k| tokens[i + k].parse().unwrap());
                    i += 4;
                }
                "CHANNELS" => {
                    let n: usize = tokens[i + 1].parse().unwrap();
                    let last = joints.len() - 1;
                    joints[last].2 = tokens[i + 2..i + 2 + n]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                    i += 2 + n;
                }
                "}" => {
                    stack.pop();
                    i += 1;
                }
                _ => i += 1,
            }
        }
        // MOTION Frames: N Frame Time: T, then the values of frame 0.
        let mut values = tokens[i + 6..].iter().map(|t| t.parse::<f64>().unwrap());
        let mut world: Vec<(Mat, [f64; 3])> = Vec::new();
        for (parent, offset, channels) in &joints {
            let mut local = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
            let mut translation = *offset;
            for channel in channels {
                let value = values.next().unwrap();
                let axis = channel.chars().next().unwrap().to_ascii_uppercase();
                if channel[1..].eq_ignore_ascii_case("position") {
                    translation["XYZ".find(axis).unwrap()] = value;
                } else {
                    local = mul(&local, &axis_rotation(axis, value));
                }
            }
            world.push(match parent {
                None => (local, translation),
                Some(p) => {
                    let (parent_rotation, parent_position) = world[*p];
                    let moved = apply(&parent_rotation, translation);
                    (
                        mul(&parent_rotation, &local),
                        [0, 1, 2].map(|k| parent_position[k] + moved[k]),
                    )
                }
            });
        }
        world.into_iter().map(|(_, p)| p).collect()
    }
}

#[test]
fn forward_kinematics_of_frame_zero_matches_an_independent_reference() {
    let Some(files) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let expected = reference::frame0_positions(&text);
        let bvh = parse_bvh(&text).unwrap();
        let motion = bvh.to_motion();
        let global = bvh.skeleton.forward_kinematics(&motion.pose(0));
        assert_eq!(global.positions.len(), expected.len());
        for (joint, (got, want)) in global.positions.iter().zip(&expected).enumerate() {
            let scale = 1.0 + want.iter().map(|v| v.abs()).fold(0.0, f64::max);
            let error = (0..3)
                .map(|k| (f64::from(got[k]) - want[k]).abs())
                .fold(0.0, f64::max);
            assert!(
                error < 1e-5 * scale,
                "{}: joint {joint} at {got:?}, reference {want:?}",
                path.display()
            );
        }
    }
}

#[test]
fn write_then_read_round_trips_every_fixture() {
    let Some(files) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    for path in files {
        let original = read_bvh_file(&path).unwrap();
        let motion = original.to_motion();
        let rebuilt = Bvh::from_motion(&original.skeleton, &original.channels, &motion)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut written = Vec::new();
        rebuilt.write(&mut written).unwrap();
        let reread = parse_bvh(std::str::from_utf8(&written).unwrap()).unwrap();
        assert_eq!(reread.skeleton, original.skeleton, "{}", path.display());
        assert_eq!(reread.channels, original.channels);
        assert_eq!(reread.frame_count(), original.frame_count());
        assert_eq!(reread.frame_time, original.frame_time);
        let motion_again = reread.to_motion();
        let worst = motion
            .rotations
            .iter()
            .zip(&motion_again.rotations)
            .map(|(a, b)| angle_between(*a, *b).to_degrees())
            .fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "{}: worst {worst}°", path.display());
        let worst_translation = motion
            .translations
            .iter()
            .zip(&motion_again.translations)
            .map(|(a, b)| (*a - *b).abs().max_element())
            .fold(0.0f32, f32::max);
        assert!(worst_translation < 1e-4);
    }
}

#[test]
fn written_euler_curves_stay_continuous() {
    let Some(path) = jointlimits_testdata::fixture("cmu_daz/indian_13.bvh") else {
        return;
    };
    let original = read_bvh_file(path).unwrap();
    let rebuilt = Bvh::from_motion(
        &original.skeleton,
        &original.channels,
        &original.to_motion(),
    )
    .unwrap();
    // Where the source curves are continuous, so are the written ones: no ±360° or flip jumps.
    let channels = original.channel_count();
    let frames = original.frame_count();
    let jump = |values: &[f32], frame: usize, channel: usize| {
        (values[frame * channels + channel] - values[(frame - 1) * channels + channel]).abs()
    };
    for frame in 6..frames {
        for channel in 0..channels {
            if jump(&original.values, frame, channel) < 20.0 {
                assert!(
                    jump(&rebuilt.values, frame, channel) < 60.0,
                    "frame {frame} channel {channel}"
                );
            }
        }
    }
}
