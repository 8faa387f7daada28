//! `eval`, `compare` and `plot` driven as a user drives them: numbers held against analytic
//! answers and against a second run, pictures decoded back.

mod common;

use common::{jointlimits, limits_file, scratch, stderr, succeed};
use glam::Vec3;
use jointlimits::authored::ConeLimit;
use jointlimits::shape::{EllipsoidShape, Frame};
use jointlimits::{FullLimit, Shape, TwistRange};
use std::path::{Path, PathBuf};

/// A limits file holding one joint limited to a ball of `radius` around its reference.
fn ball_file(dir: &Path, radius: f32) -> PathBuf {
    let ball = FullLimit::new(Shape::Ellipsoid(EllipsoidShape {
        frame: Frame::IDENTITY,
        semi_axes: Vec3::splat(radius),
    }));
    limits_file(dir, "ball.json", ball.into())
}

fn eval_json(path: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["eval", path.to_str().unwrap(), "--json", "--no-timing"];
    args.extend_from_slice(extra);
    serde_json::from_str(&succeed(&args)).unwrap()
}

#[test]
fn eval_measures_a_cone_and_a_ball_as_geometry_says() {
    let dir = scratch("eval-analytic");
    let theta = 60f32.to_radians();
    let cone = limits_file(
        &dir,
        "cone.json",
        ConeLimit {
            twist_axis: Vec3::Y,
            max_swing: theta,
            twist: TwistRange {
                min: -0.4,
                max: 0.4,
            },
        }
        .into(),
    );
    let report = eval_json(&cone, &["--samples", "100000", "--optimality-inputs", "20"]);
    let joint = &report["joints"][0];
    let expected = (1.0 - f64::from(theta).cos()) / 2.0;
    let measured = joint["direction_acceptance"].as_f64().unwrap();
    assert!(
        (measured - expected).abs() < 0.01 * expected,
        "{measured} vs {expected}"
    );
    assert_eq!(joint["projections_not_allowed"], 0);

    // With no path streamed, continuity is not reported as measured.
    let text = succeed(&[
        "eval",
        cone.to_str().unwrap(),
        "--samples",
        "1000",
        "--optimality-inputs",
        "5",
        "--paths",
        "0",
        "--no-timing",
    ]);
    assert!(!text.contains("continuity"), "{text}");
    let row = text.lines().nth(1).expect("a row for the joint");
    assert!(
        row.split_whitespace().filter(|&c| c == "-").count() >= 4,
        "{row}"
    );

    // A ball around the reference is nearest in every metric: no gap.
    let ball = ball_file(&dir, 1.2);
    let report = eval_json(&ball, &["--samples", "20000", "--optimality-inputs", "100"]);
    let joint = &report["joints"][0];
    assert!(joint["optimality_inputs"].as_u64().unwrap() > 50);
    assert!(joint["max_gap_deg"].as_f64().unwrap() < 0.06, "{joint}");
    // Haar measure of rotations by at most 1.2 rad: (1.2 − sin 1.2)/π.
    let expected = (1.2 - 1.2f64.sin()) / std::f64::consts::PI;
    let measured = joint["rotation_acceptance"].as_f64().unwrap();
    assert!(
        (measured - expected).abs() < 0.005,
        "{measured} vs {expected}"
    );
}

#[test]
fn eval_on_clips_reports_every_joint_and_repeats_itself() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/salsa_10.bvh") else {
        return;
    };
    let dir = scratch("eval-clips");
    let limits = dir.join("limits.json");
    let (clip, limits_arg) = (clip.to_str().unwrap(), limits.to_str().unwrap());
    succeed(&["fit", clip, "-o", limits_arg]);
    let quick = [
        "--samples",
        "3000",
        "--optimality-inputs",
        "10",
        "--paths",
        "1",
    ];
    let mut args = vec!["--clips", clip, "--joint", "lShldr", "--joint", "rThigh"];
    args.extend_from_slice(&quick);
    let first = eval_json(&limits, &args);
    assert_eq!(first, eval_json(&limits, &args), "same seed, same numbers");
    let joints = first["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 2);
    for joint in joints {
        // Fitted to this very clip: every frame inside.
        assert_eq!(joint["clips"]["share_inside"], 1.0);
        assert!(joint["rotation_acceptance"].as_f64().unwrap() < 0.5);
    }
    assert_eq!(first["overall"]["share_frames_all_inside"], 1.0);

    // On another clip, "every joint inside" counts the chosen joints alone: with one joint it
    // is that joint's share (it had counted every joint of the file).
    if let Some(other) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") {
        let mut args = vec!["--clips", other.to_str().unwrap(), "--joint", "neck"];
        args.extend_from_slice(&quick);
        let one = eval_json(&limits, &args);
        let share = one["joints"][0]["clips"]["share_inside"].as_f64().unwrap();
        assert!(
            share < 1.0,
            "the other clip leaves the neck's limit sometimes"
        );
        assert_eq!(
            one["overall"]["share_frames_all_inside"].as_f64(),
            Some(share)
        );
    }

    let text = succeed(&[
        "eval",
        limits_arg,
        "--clips",
        clip,
        "--samples",
        "2000",
        "--optimality-inputs",
        "5",
        "--paths",
        "1",
    ]);
    assert!(
        text.contains("tightness:") && text.contains("ns per projection"),
        "{text}"
    );

    let output = jointlimits(&["eval", limits_arg, "--joint", "lShoulder"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("lShldr"), "{}", stderr(&output));
}

#[test]
fn compare_tables_every_kind_and_repeats_itself() {
    let (Some(a), Some(b)) = (
        jointlimits_testdata::fixture("cmu_daz/salsa_10.bvh"),
        jointlimits_testdata::fixture("cmu_daz/indian_13.bvh"),
    ) else {
        return;
    };
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let quick = [
        "--joint",
        "lShldr",
        "--samples",
        "2000",
        "--optimality-inputs",
        "5",
        "--paths",
        "1",
        "--no-timing",
    ];
    let run = |format: &str| {
        let mut args = vec!["compare", a, b, format];
        args.extend_from_slice(&quick);
        succeed(&args)
    };
    let json = run("--json");
    assert_eq!(json, run("--json"), "same seed, same numbers");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let rows = report["rows"].as_array().unwrap();
    // Eight shapes in two spaces, the reach cone, the table and four authored kinds.
    assert_eq!(rows.len(), 22);
    for row in rows {
        assert!(row["error"].is_null(), "{row}");
        let heldout = row["measures"]["heldout_acceptance"].as_f64().unwrap();
        // A hinge allows nothing off its axis, so it may accept no recorded frame at all.
        let least = if row["shape"] == "hinge" {
            0.0
        } else {
            f64::MIN_POSITIVE
        };
        assert!(heldout >= least && heldout <= 1.0, "{row}");
    }
    assert!(
        report["validation"]
            .as_str()
            .unwrap()
            .contains("leave-one-clip-out")
    );
    let markdown = run("--markdown");
    assert_eq!(markdown.lines().filter(|l| l.starts_with("| ")).count(), 23);

    // One clip: time blocks; a held-out clip: that clip.
    let mut args = vec!["compare", a, "--json"];
    args.extend_from_slice(&quick);
    let single: serde_json::Value = serde_json::from_str(&succeed(&args)).unwrap();
    assert!(
        single["validation"]
            .as_str()
            .unwrap()
            .contains("time blocks")
    );
    let mut args = vec!["compare", a, "--holdout", b, "--json"];
    args.extend_from_slice(&quick);
    let held: serde_json::Value = serde_json::from_str(&succeed(&args)).unwrap();
    assert!(held["validation"].as_str().unwrap().contains("held-out"));
    // A clip to fit held out too (or a copy of it) would measure fitted motion as unseen: 100%.
    let copy = std::env::temp_dir().join(format!(
        "jointlimits-heldout-copy-{}.bvh",
        std::process::id()
    ));
    std::fs::copy(a, &copy).unwrap();
    for held in [a, copy.to_str().unwrap()] {
        let mut args = vec!["compare", a, "--holdout", held];
        args.extend_from_slice(&quick);
        let output = jointlimits(&args);
        assert_eq!(output.status.code(), Some(2), "{held}");
        assert!(
            stderr(&output).contains("also a clip to fit"),
            "{}",
            stderr(&output)
        );
    }
    std::fs::remove_file(copy).unwrap();
}

/// Width, height and the number of distinct colours of a PNG.
fn decode(path: &Path) -> (u32, u32, usize) {
    let file = std::fs::File::open(path).unwrap();
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap();
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).unwrap();
    pixels.truncate(info.buffer_size());
    let mut colours: Vec<&[u8]> = pixels.chunks(3).collect();
    colours.sort_unstable();
    colours.dedup();
    (info.width, info.height, colours.len())
}

/// Every picture in `dir` decodes, is a sensible size and is not blank, and every PNG has its SVG.
fn check_pictures(dir: &Path, expected: &[&str]) {
    let names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for part in expected {
        assert!(
            names
                .iter()
                .any(|n| n.contains(part) && n.ends_with(".png")),
            "{part} missing in {names:?}"
        );
    }
    for name in names.iter().filter(|n| n.ends_with(".png")) {
        let (width, height, colours) = decode(&dir.join(name));
        assert!(
            (300..4000).contains(&width) && (300..4000).contains(&height),
            "{name}: {width}×{height}"
        );
        assert!(colours > 20, "{name} is nearly blank");
        let svg = std::fs::read_to_string(dir.join(name.replace(".png", ".svg"))).unwrap();
        assert!(svg.starts_with("<svg"), "{name}: no SVG");
    }
}

#[test]
fn demo_draws_every_picture_type() {
    let dir = scratch("demo-pictures");
    succeed(&["demo", "--out", dir.to_str().unwrap()]);
    check_pictures(
        &dir.join("pictures"),
        &["overview", "-swing", "-space", "timeline-"],
    );
}

#[test]
fn plot_draws_every_picture_type_for_every_fixture() {
    let Some(fixtures) = jointlimits_testdata::bvh_fixtures() else {
        return;
    };
    for (index, clip) in fixtures.iter().enumerate() {
        let dir = scratch(&format!("plot-{index}"));
        let limits = dir.join("limits.json");
        let (clip, limits_arg) = (clip.to_str().unwrap(), limits.to_str().unwrap());
        succeed(&["fit", clip, "-o", limits_arg, "--skip-frames", "1"]);
        let parsed: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&limits).unwrap()).unwrap();
        let joint = parsed["joints"][1]["joint"].as_str().unwrap().to_string();
        let out = dir.join("pictures");
        succeed(&[
            "plot",
            limits_arg,
            "--clip",
            clip,
            "--joint",
            &joint,
            "--out",
            out.to_str().unwrap(),
        ]);
        check_pictures(&out, &["overview", "-swing", "-space", "timeline-"]);
    }
}

#[test]
fn plot_refuses_what_it_cannot_draw() {
    let dir = scratch("plot-refusals");
    let limits = ball_file(&dir, 1.0);
    let limits = limits.to_str().unwrap();
    let output = jointlimits(&[
        "plot",
        limits,
        "--joint",
        "jiont",
        "--out",
        dir.join("p").to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("did you mean \"joint\""),
        "{}",
        stderr(&output)
    );
    let file = dir.join("a-file");
    std::fs::write(&file, "keep").unwrap();
    let output = jointlimits(&["plot", limits, "--out", file.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep");
    let output = jointlimits(&[
        "plot",
        limits,
        "--out",
        dir.join("q").to_str().unwrap(),
        "--format",
        "jpg",
    ]);
    assert_eq!(output.status.code(), Some(2));
    // Without clips: the overview and the joint's pictures.
    succeed(&["plot", limits, "--out", dir.join("r").to_str().unwrap()]);
    check_pictures(
        &dir.join("r"),
        &["overview", "00-joint-swing", "00-joint-space"],
    );
}

#[test]
fn eval_and_compare_refuse_what_they_cannot_measure() {
    let dir = scratch("measure-refusals");
    let empty = dir.join("empty.json");
    std::fs::write(
        &empty,
        r#"{"format":"jointlimits","version":1,"joints":[]}"#,
    )
    .unwrap();
    let output = jointlimits(&["eval", empty.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no joint to evaluate"),
        "{}",
        stderr(&output)
    );

    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/salsa_10.bvh") else {
        return;
    };
    // A clip of three frames: too short to cut into time blocks.
    let text = std::fs::read_to_string(&clip).unwrap();
    let motion = text.find("MOTION").unwrap();
    let header: String = text[..motion].to_string();
    let lines: Vec<&str> = text[motion..].lines().collect();
    let short = format!(
        "{header}MOTION\nFrames: 3\n{}\n{}\n",
        lines[2],
        lines[3..6].join("\n")
    );
    let short_path = dir.join("short.bvh");
    std::fs::write(&short_path, short).unwrap();
    let output = jointlimits(&["compare", short_path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("3 frame(s)"),
        "{}",
        stderr(&output)
    );

    let output = jointlimits(&["compare", clip.to_str().unwrap(), "--joint", "hip"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("root"), "{}", stderr(&output));

    // A clip with no frames is no fold: left out, and said; held out alone, refused.
    let empty_clip = dir.join("empty.bvh");
    std::fs::write(
        &empty_clip,
        format!("{header}MOTION\nFrames: 0\n{}\n", lines[2]),
    )
    .unwrap();
    let output = jointlimits(&[
        "compare",
        short_path.to_str().unwrap(),
        empty_clip.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let text = stderr(&output);
    assert!(
        text.contains("empty.bvh has no frames: left out") && text.contains("3 frame(s)"),
        "{text}"
    );
    let output = jointlimits(&[
        "compare",
        clip.to_str().unwrap(),
        "--holdout",
        empty_clip.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the held-out clips have no frames"),
        "{}",
        stderr(&output)
    );
}
