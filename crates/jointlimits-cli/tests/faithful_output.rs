//! What `apply`, `ik` and `demo` write changes nothing they did not have to: unchanged joints keep
//! their text, changed ones keep the Euler branch of the input's own angles, and the output reads
//! back inside its limits at tolerance 0.

use std::path::Path;

mod common;
use common::{jointlimits, scratch, succeed};

/// A BVH file's joint names, channel counts and motion lines as number tokens.
struct MotionText {
    names: Vec<String>,
    channel_counts: Vec<usize>,
    frames: Vec<Vec<String>>,
}

impl MotionText {
    /// Read with a minimal reader of this test's own.
    fn read(path: &Path) -> MotionText {
        let text = std::fs::read_to_string(path).unwrap().replace('\r', "");
        let lines: Vec<&str> = text.lines().collect();
        let motion = lines
            .iter()
            .position(|l| l.trim().eq_ignore_ascii_case("MOTION"))
            .unwrap();
        let (mut names, mut channel_counts) = (Vec::new(), Vec::new());
        for line in &lines[..motion] {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.first() {
                Some(&"ROOT") | Some(&"JOINT") => names.push(words[1..].join(" ")),
                Some(&"CHANNELS") => channel_counts.push(words[1].parse().unwrap()),
                _ => {}
            }
        }
        let frames = lines[motion + 3..]
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.split_whitespace().map(str::to_string).collect())
            .collect();
        MotionText {
            names,
            channel_counts,
            frames,
        }
    }

    /// The tokens of joint `joint` in frame `frame`.
    fn joint(&self, frame: usize, joint: usize) -> &[String] {
        let start: usize = self.channel_counts[..joint].iter().sum();
        &self.frames[frame][start..start + self.channel_counts[joint]]
    }
}

/// The joint-frames whose tokens differ between two files of one skeleton.
fn changed_joint_frames(a: &MotionText, b: &MotionText) -> Vec<(usize, usize)> {
    assert_eq!(a.frames.len(), b.frames.len());
    let mut changed = Vec::new();
    for frame in 0..a.frames.len() {
        for joint in 0..a.names.len() {
            if a.joint(frame, joint) != b.joint(frame, joint) {
                changed.push((frame, joint));
            }
        }
    }
    changed
}

fn number_before(text: &str, words: &str) -> usize {
    let at = text
        .find(words)
        .unwrap_or_else(|| panic!("{words:?} in {text}"));
    text[..at]
        .split_whitespace()
        .last()
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn apply_on_a_clip_inside_its_limits_writes_every_motion_line_unchanged() {
    for fixture in [
        "cmu_mb2008/01_01.bvh",
        "cmu_max/131_01.bvh",
        "cmu_daz/salsa_10.bvh",
    ] {
        let Some(clip) = jointlimits_testdata::fixture(fixture) else {
            return;
        };
        let dir = scratch("inside");
        let (limits, out) = (dir.join("limits.json"), dir.join("out.bvh"));
        let (clip_s, limits_s, out_s) = (
            clip.to_str().unwrap(),
            limits.to_str().unwrap(),
            out.to_str().unwrap(),
        );
        succeed(&["fit", clip_s, "-o", limits_s]);
        let report = succeed(&["apply", limits_s, clip_s, "-o", out_s]);
        assert_eq!(number_before(&report, "of "), 0, "{fixture}: {report}");
        let (input, output) = (MotionText::read(&clip), MotionText::read(&out));
        assert_eq!(
            input.frames, output.frames,
            "{fixture}: motion lines differ"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}

/// For Euler triples `written` and `input` (degrees) of one rotation, `written` is the equivalent
/// triple nearest `input`: each angle within half a turn, and the flipped triple no nearer.
fn is_nearest_branch(written: [f64; 3], input: [f64; 3]) -> bool {
    let wrap_near = |angle: f64, target: f64| angle + ((target - angle) / 360.0).round() * 360.0;
    let distance = |t: [f64; 3]| -> f64 { t.iter().zip(&input).map(|(a, b)| (a - b).abs()).sum() };
    let flipped = [
        wrap_near(written[0] + 180.0, input[0]),
        wrap_near(180.0 - written[1], input[1]),
        wrap_near(written[2] + 180.0, input[2]),
    ];
    let within_half_turn = written
        .iter()
        .zip(&input)
        .all(|(a, b)| (a - b).abs() <= 180.0 + 1e-3);
    within_half_turn && distance(written) <= distance(flipped) + 1e-3
}

#[test]
fn apply_rewrites_only_the_joints_it_corrects_on_the_input_s_own_branch() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_max/131_01.bvh") else {
        return;
    };
    let dir = scratch("corrects");
    let (limits, out) = (dir.join("limits.json"), dir.join("out.bvh"));
    let (limits_s, out_s) = (limits.to_str().unwrap(), out.to_str().unwrap());
    // Tight limits from the clip's last 100 frames push most of the rest.
    succeed(&[
        "fit",
        clip.to_str().unwrap(),
        "-o",
        limits_s,
        "--shape",
        "box",
        "--padding",
        "0",
        "--skip-frames",
        "660",
    ]);
    let report = succeed(&["apply", limits_s, clip.to_str().unwrap(), "-o", out_s]);
    let corrections = number_before(&report, "joint corrections");
    assert!(corrections > 1000, "{report}");

    let (input, output) = (MotionText::read(&clip), MotionText::read(&out));
    let changed = changed_joint_frames(&input, &output);
    assert_eq!(changed.len(), corrections, "the report counts what changed");
    // Exactly the joint-frames `check` finds outside change.
    let checked = jointlimits(&[
        "check",
        limits_s,
        clip.to_str().unwrap(),
        "--tolerance",
        "0",
    ]);
    let table = String::from_utf8_lossy(&checked.stdout).into_owned();
    let outside: usize = table
        .lines()
        .skip_while(|line| !line.starts_with("joint "))
        .skip(1)
        .take_while(|line| !line.starts_with("overall:"))
        .map(|line| {
            line.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(
        changed.len(),
        outside,
        "only joints outside change: {table}"
    );
    let degrees =
        |tokens: &[String]| -> Vec<f64> { tokens.iter().map(|t| t.parse().unwrap()).collect() };
    for &(frame, joint) in &changed {
        // Every joint here has three rotation channels, after three position channels at the root.
        let (a, b) = (
            degrees(input.joint(frame, joint)),
            degrees(output.joint(frame, joint)),
        );
        let (a, b) = (&a[a.len() - 3..], &b[b.len() - 3..]);
        assert!(
            is_nearest_branch([b[0], b[1], b[2]], [a[0], a[1], a[2]]),
            "{} frame {frame}: {a:?} written as {b:?}",
            input.names[joint]
        );
    }
    let check = jointlimits(&["check", limits_s, out_s, "--tolerance", "0"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn ik_leaves_every_joint_outside_the_chain_as_it_was() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_mb2008/01_01.bvh") else {
        return;
    };
    let dir = scratch("ik");
    let (limits, out) = (dir.join("limits.json"), dir.join("out.bvh"));
    let (clip_s, limits_s, out_s) = (
        clip.to_str().unwrap(),
        limits.to_str().unwrap(),
        out.to_str().unwrap(),
    );
    succeed(&["fit", clip_s, "-o", limits_s]);
    succeed(&[
        "ik",
        limits_s,
        clip_s,
        "-o",
        out_s,
        "--chain",
        "LeftArm..LeftHand",
        "--target",
        "10,20,-10@0-400",
    ]);
    let (input, output) = (MotionText::read(&clip), MotionText::read(&out));
    let chain = ["LeftArm", "LeftForeArm"];
    let changed = changed_joint_frames(&input, &output);
    assert!(!changed.is_empty());
    for (frame, joint) in changed {
        assert!(
            chain.contains(&input.names[joint].as_str()) && frame <= 400,
            "{} changed in frame {frame}",
            input.names[joint]
        );
    }
    let check = jointlimits(&["check", limits_s, out_s, "--tolerance", "0"]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );
    std::fs::remove_dir_all(dir).unwrap();
}

/// A clip with a hinge (one rotation channel) and a two-axis joint, swinging each through
/// `scale` times a natural range.
fn few_channel_clip(scale: f64) -> String {
    let mut text = String::from(
        "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n\
         \tJOINT Knee\n\t{\n\t\tOFFSET 0 -10 0\n\t\tCHANNELS 1 Xrotation\n\
         \t\tJOINT Ankle\n\t\t{\n\t\t\tOFFSET 0 -10 0\n\t\t\tCHANNELS 2 Xrotation Zrotation\n\
         \t\t\tEnd Site\n\t\t\t{\n\t\t\t\tOFFSET 0 0 3\n\t\t\t}\n\t\t}\n\t}\n}\nMOTION\nFrames: 200\nFrame Time: 0.01\n",
    );
    for frame in 0..200 {
        let t = f64::from(frame) / 200.0 * std::f64::consts::TAU;
        let knee = scale * (60.0 + 60.0 * t.sin());
        let (ankle_x, ankle_z) = (
            scale * 30.0 * (2.0 * t).sin(),
            scale * 20.0 * (3.0 * t).cos(),
        );
        text.push_str(&format!(
            "0 90 0 0 0 0 {knee:.4} {ankle_x:.4} {ankle_z:.4}\n"
        ));
    }
    text
}

#[test]
fn joints_with_one_or_two_rotation_channels_are_limited_within_them() {
    let dir = scratch("few");
    let (natural, wild, out) = (
        dir.join("natural.bvh"),
        dir.join("wild.bvh"),
        dir.join("out.bvh"),
    );
    std::fs::write(&natural, few_channel_clip(1.0)).unwrap();
    std::fs::write(&wild, few_channel_clip(1.6)).unwrap();
    let limits = dir.join("limits.json");
    let limits_s = limits.to_str().unwrap();
    for (space, shape) in [
        ("full", "box"),
        ("swing-twist", "ellipsoid"),
        ("full", "hull"),
    ] {
        succeed(&[
            "fit",
            natural.to_str().unwrap(),
            "-o",
            limits_s,
            "--space",
            space,
            "--shape",
            shape,
        ]);
        let report = succeed(&[
            "apply",
            limits_s,
            wild.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(number_before(&report, "joint corrections") > 50, "{report}");
        let check = jointlimits(&["check", limits_s, out.to_str().unwrap(), "--tolerance", "0"]);
        assert!(
            check.status.success(),
            "{space} {shape}: {}",
            String::from_utf8_lossy(&check.stdout)
        );
        let written = MotionText::read(&out);
        assert!(written.frames.iter().all(|f| f.len() == 9));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// [`few_channel_clip`]'s skeleton with every rotation channel uniformly random in ±180°.
fn few_channel_random_clip() -> String {
    let natural = few_channel_clip(1.0);
    let header = &natural[..natural.find("MOTION").unwrap()];
    let mut text = format!("{header}MOTION\nFrames: 200\nFrame Time: 0.01\n");
    let mut rng = jointlimits_testdata::SplitMix(7);
    for _ in 0..200 {
        let mut angle = || 180.0 * rng.next_signed();
        let (knee, x, z) = (angle(), angle(), angle());
        text.push_str(&format!("0 90 0 0 0 0 {knee:.4} {x:.4} {z:.4}\n"));
    }
    text
}

/// Where the nearest expressible rotation is outside and an allowed one lies far away in the
/// channels' angles, the writer still finds an allowed one (once, 15° outside was written with a
/// warning that no allowed rotation was expressible).
#[test]
fn few_channel_joints_reach_allowed_rotations_from_anywhere() {
    let dir = scratch("few-random");
    let (natural, random, out) = (
        dir.join("natural.bvh"),
        dir.join("random.bvh"),
        dir.join("out.bvh"),
    );
    std::fs::write(&natural, few_channel_clip(1.0)).unwrap();
    std::fs::write(&random, few_channel_random_clip()).unwrap();
    let limits = dir.join("limits.json");
    let limits_s = limits.to_str().unwrap();
    for (space, shape) in [("full", "box"), ("swing-twist", "box")] {
        succeed(&[
            "fit",
            natural.to_str().unwrap(),
            "-o",
            limits_s,
            "--space",
            space,
            "--shape",
            shape,
            "--padding",
            "0",
        ]);
        let apply = jointlimits(&[
            "apply",
            limits_s,
            random.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ]);
        assert!(apply.status.success());
        let warnings = String::from_utf8_lossy(&apply.stderr);
        assert!(!warnings.contains("warning"), "{space} {shape}: {warnings}");
        let check = jointlimits(&["check", limits_s, out.to_str().unwrap(), "--tolerance", "0"]);
        assert!(
            check.status.success(),
            "{space} {shape}: {}",
            String::from_utf8_lossy(&check.stdout)
        );
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// Limits coupled to the parent: `apply` judges a child given its parent's limited rotation,
/// `check` given the parent as written. Children a hair outside their boxes (the inside
/// tolerance, 1e-5 rad), under parents that `apply` moves, must read back inside given the
/// written parents.
#[test]
fn coupled_children_read_back_inside_given_their_written_parents() {
    use glam::Quat;
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("coupled-written-parents");
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let limits = file("coupled.json");
    succeed(&[
        "fit",
        clip.to_str().unwrap(),
        "-o",
        &limits,
        "--shape",
        "coupled",
    ]);
    // Haar-random rotations for every joint but the root, and their answers: boundary points.
    let bvh = jointlimits_io::read_bvh_file(&clip).unwrap();
    let mut motion = haar_random_motion(&bvh, 300, 29);
    let wild = bvh.with_motion(&motion).unwrap();
    jointlimits_io::write_bvh_file(file("wild.bvh"), &wild).unwrap();
    succeed(&[
        "apply",
        &limits,
        &file("wild.bvh"),
        "-o",
        &file("boundary.bvh"),
    ]);
    // Each answer pushed 1e-5 rad back towards its input: about the inside tolerance outside.
    let wild = wild.to_motion();
    let boundary = jointlimits_io::read_bvh_file(file("boundary.bvh"))
        .unwrap()
        .to_motion();
    for (i, rotation) in motion.rotations.iter_mut().enumerate() {
        let (asked, answer) = (wild.rotations[i], boundary.rotations[i]);
        let back = (answer.conjugate() * asked)
            .to_scaled_axis()
            .normalize_or_zero();
        *rotation = answer * Quat::from_scaled_axis(back * 1e-5);
    }
    jointlimits_io::write_bvh_file(file("hair.bvh"), &bvh.with_motion(&motion).unwrap()).unwrap();
    succeed(&["apply", &limits, &file("hair.bvh"), "-o", &file("out.bvh")]);
    let report = succeed(&["check", &limits, &file("out.bvh"), "--tolerance", "0"]);
    assert!(
        report.contains("300 of 300 frames have every joint"),
        "{report}"
    );
}

/// The first `frames` frames of `bvh` with every joint but the root turned Haar-randomly.
fn haar_random_motion(bvh: &jointlimits_io::Bvh, frames: usize, seed: u64) -> jointlimits::Motion {
    let joints = bvh.skeleton.len();
    let mut random = jointlimits_testdata::SplitMix(seed);
    let mut motion = bvh.to_motion().frames(0..frames);
    for pose in motion.rotations.chunks_mut(joints) {
        for rotation in &mut pose[1..] {
            *rotation = glam::Quat::from_array(random.haar_quaternion());
        }
    }
    motion
}

/// Softened output stays within the softening's radius as written and read back, also where a
/// steep falloff carries it right up to the radius.
#[test]
fn softened_output_reads_back_within_the_radius() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("softened-radius");
    let file = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let limits = file("box.json");
    succeed(&[
        "fit",
        clip.to_str().unwrap(),
        "-o",
        &limits,
        "--shape",
        "box",
    ]);
    let bvh = jointlimits_io::read_bvh_file(&clip).unwrap();
    let wild = bvh.with_motion(&haar_random_motion(&bvh, 400, 31)).unwrap();
    jointlimits_io::write_bvh_file(file("wild.bvh"), &wild).unwrap();
    for radius in [0.2f64, 0.5, 2.0] {
        let soften = format!("10,{radius}");
        succeed(&[
            "apply",
            &limits,
            &file("wild.bvh"),
            "-o",
            &file("soft.bvh"),
            "--soften",
            &soften,
        ]);
        let tolerance = radius.to_degrees().to_string();
        let report = succeed(&[
            "check",
            &limits,
            &file("soft.bvh"),
            "--tolerance",
            &tolerance,
        ]);
        assert!(report.contains("400 of 400 frames"), "{soften}: {report}");
    }
}

/// A limited joint without rotation channels cannot change in the file, so `apply` does not
/// count it as changed (it reported every frame changed while writing the clip unchanged).
#[test]
fn joints_without_rotation_channels_are_not_counted_as_changed() {
    let dir = scratch("no-channels");
    let clip = dir.join("clip.bvh");
    let mut text = String::from(
        "HIERARCHY\nROOT Hips\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Zrotation Xrotation Yrotation\n\
         \tJOINT Fixed\n\t{\n\t\tOFFSET 0 1 0\n\t\tCHANNELS 0\n\
         \t\tEnd Site\n\t\t{\n\t\t\tOFFSET 0 1 0\n\t\t}\n\t}\n}\nMOTION\nFrames: 10\nFrame Time: 0.01\n",
    );
    for frame in 0..10 {
        text.push_str(&format!("{} 0 0\n", frame));
    }
    std::fs::write(&clip, &text).unwrap();
    // A hinge that refuses the identity, the only rotation the channel-less joint has.
    let limits = dir.join("limits.json");
    std::fs::write(
        &limits,
        r#"{"format": "jointlimits", "version": 1, "joints": [{"joint": "Fixed", "reference": [0, 0, 0, 1], "region": {"space": "hinge", "axis": [1, 0, 0], "min": 0.5, "max": 1.0}}]}"#,
    )
    .unwrap();
    let out = dir.join("out.bvh");
    let report = succeed(&[
        "apply",
        limits.to_str().unwrap(),
        clip.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert!(
        report.contains("0 of 10 frames changed, 0 joint corrections"),
        "{report}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), text);
    std::fs::remove_dir_all(dir).unwrap();
}
