//! `fit --config`: per-joint kinds, paddings and calibration from a TOML or JSON file, joints
//! excluded, and clear errors for files that cannot be used.

mod common;

use common::{jointlimits, scratch, stderr};
use jointlimits::LimitRegion;

const CONFIG: &str = r#"
[defaults]
shape = "box"
space = "swing-twist"

[[joints]]
match = "?Shin"
shape = "hinge"
padding = 1.0

[[joints]]
match = "lShldr"
shape = "table"
resolution = 32

[[joints]]
match = "?Thigh"
shape = "cone"
accept = 0.99

[[joints]]
match = "rThigh"
hold = 0.99              # a share of the frames

[[joints]]
match = "*Pinky*"
exclude = true

[[joints]]
match = "lThighh"

[[joints]]
match = "hip"            # the root, which has no limit
shape = "ellipsoid"
"#;

#[test]
fn each_joint_gets_the_kind_its_rules_choose() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("fit-config");
    let config = dir.join("fit.toml");
    std::fs::write(&config, CONFIG).unwrap();
    let out = dir.join("limits.json");
    let output = jointlimits(&[
        "fit",
        clip.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--config",
        config.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("\"lThighh\" matches no joint")
            && stderr(&output).contains("\"hip\" matches no joint with a limit"),
        "{}",
        stderr(&output)
    );
    let printed = String::from_utf8_lossy(&output.stdout);
    let limits = jointlimits_io::read_limits_file(&out).unwrap();
    let kind = |name: &str| {
        limits
            .joints
            .iter()
            .find(|l| l.joint == name)
            .map(|l| &l.region)
    };
    assert!(matches!(kind("lShin"), Some(LimitRegion::Hinge(_))));
    assert!(matches!(kind("rShin"), Some(LimitRegion::Hinge(_))));
    assert!(matches!(kind("lShldr"), Some(LimitRegion::Table(t)) if t.resolution() == 32));
    assert!(matches!(kind("rShldr"), Some(LimitRegion::SwingTwist(_))));
    assert!(matches!(kind("lThigh"), Some(LimitRegion::Cone(_))));
    assert!(kind("lPinky1").is_none() && kind("rPinky2").is_none());
    // Only the thighs were calibrated, and the calibration table says so.
    assert!(printed.contains("calibrated to accept 99.00%"), "{printed}");
    let calibrated: Vec<&str> = printed
        .lines()
        .filter(|l| l.starts_with("  ") && l.contains('%') && !l.contains("mean over"))
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(calibrated, ["rThigh", "lThigh"], "{printed}");
    // The share held (after the padding and the sides grown): the rule's for the right thigh;
    // the left thigh's cone holds every frame (authored kinds leave frames out only when asked).
    let held = |name: &str| {
        let line = printed
            .lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        line.split_whitespace().nth(3).unwrap().to_string()
    };
    assert_eq!(held("rThigh"), "99.0%", "{printed}");
    assert_eq!(held("lThigh"), "100.0%", "{printed}");
    // The file records the defaults once and each joint fitted otherwise: the kind its rule
    // chose, or what the calibration chose (enough to fit it again alone).
    let common = limits.fitted_with.unwrap();
    assert_eq!(common.shape.to_string(), "box");
    let record = |name: &str| limits.fitted_joints.iter().find(|r| r.joint == name);
    assert_eq!(record("lShin").unwrap().options.shape.to_string(), "hinge");
    assert!((record("lShin").unwrap().options.padding - 1f64.to_radians()).abs() < 1e-12);
    assert_eq!(
        record("lShldr").unwrap().options.shape.to_string(),
        "table32"
    );
    let thigh = record("rThigh").unwrap();
    assert_eq!((thigh.accept, thigh.options.hold), (Some(0.99), 0.99));
    assert!(record("neck").is_none() && record("lPinky1").is_none());
    // The limits hold the clip they came from, except the hinges' off-axis motion.
    let check = succeed_or_violations(&["check", out.to_str().unwrap(), clip.to_str().unwrap()]);
    for line in check
        .lines()
        .filter(|l| l.starts_with("lThigh") || l.starts_with("neck"))
    {
        assert!(line.split_whitespace().nth(1) == Some("0"), "{line}");
    }
}

/// What `check` printed (it exits 1 when some frame is outside).
fn succeed_or_violations(args: &[&str]) -> String {
    let output = jointlimits(args);
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        stderr(&output)
    );
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn unusable_configurations_name_the_file_and_the_place() {
    let dir = scratch("fit-config-errors");
    // The configuration is read first: the clip is never reached.
    let clip = dir.join("clip.bvh");
    for (name, text, expected) in [
        (
            "a.toml",
            "[defaults]\nshape = \"cube\"\n",
            "a.toml:2:9: unknown shape \"cube\"",
        ),
        // A likely typo gets the suggestion the command line's option gives.
        (
            "typo.toml",
            "[defaults]\nshape = \"elipsoid\"\n",
            "(did you mean \"ellipsoid\"?)",
        ),
        (
            "b.toml",
            "[[joints]]\nshape = \"box\"\n",
            "b.toml: joints[0] (match \"\"): needs `match`",
        ),
        (
            "c.json",
            "{\"defaults\": {\"padding\": 200}}",
            "c.json: defaults: padding: 3.49065850399 rad (200°)",
        ),
        (
            "f.toml",
            "[[joints]]\nmatch = \"*Shin\"\nhold = 2.0\n",
            "f.toml: joints[0] (match \"*Shin\"): hold: 2 is not a share in (0, 1]",
        ),
        (
            "d.json",
            "{\"joints\": [{\"match\": \"a\", \"acept\": 1}]}",
            "d.json:1:",
        ),
        (
            "e.toml",
            "[defaults]\naccept = 2\n",
            "accept 2 is not a share",
        ),
        (
            "g.toml",
            "[[joints]]\nmatch = \"?ForeArm\"\nshape = \"coupled\"\ncoupling_margin = 500\n",
            "g.toml: joints[0] (match \"?ForeArm\"): coupling_margin: 8.72664625997 rad (500°)",
        ),
    ] {
        let config = dir.join(name);
        std::fs::write(&config, text).unwrap();
        let out = dir.join("never.json");
        let output = jointlimits(&[
            "fit",
            clip.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--config",
            config.to_str().unwrap(),
        ]);
        assert_eq!(output.status.code(), Some(2), "{name}");
        let message = stderr(&output);
        assert!(message.contains(expected), "{name}: {message}");
        assert!(!message.contains("panicked"), "{message}");
        assert!(!out.exists(), "{name}: nothing is written");
    }
}

#[test]
fn a_configuration_that_excludes_everything_or_is_the_output_is_refused() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("fit-config-refusals");
    let clip = clip.to_str().unwrap();
    let everything = dir.join("everything.toml");
    std::fs::write(&everything, "[defaults]\nexclude = true\n").unwrap();
    let out = dir.join("never.json");
    let output = jointlimits(&[
        "fit",
        clip,
        "-o",
        out.to_str().unwrap(),
        "--config",
        everything.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("excludes every joint"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
    // A later rule brings excluded joints back.
    let back = dir.join("back.toml");
    std::fs::write(
        &back,
        "[[joints]]\nmatch = \"*\"\nexclude = true\n[[joints]]\nmatch = \"lShin\"\nexclude = false\n",
    )
    .unwrap();
    let output = jointlimits(&[
        "fit",
        clip,
        "-o",
        out.to_str().unwrap(),
        "--config",
        back.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let limits = jointlimits_io::read_limits_file(&out).unwrap();
    let names: Vec<&str> = limits.joints.iter().map(|l| l.joint.as_str()).collect();
    assert_eq!(names, ["lShin"]);
    // The configuration is an input: writing over it is refused, and it is kept.
    let output = jointlimits(&[
        "fit",
        clip,
        "-o",
        back.to_str().unwrap(),
        "--config",
        back.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        std::fs::read_to_string(&back)
            .unwrap()
            .contains("exclude = false")
    );
}

/// A hinge allows no turn off its axis, so calibrating it to accept unseen frames is refused,
/// from the command line and from a rule that asks for it with the hinge, instead of widening
/// it past a full turn. (A hinge rule without an `accept` turns an inherited one off.)
#[test]
fn calibrating_a_hinge_is_refused() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("fit-hinge-accept");
    let out = dir.join("never.json");
    let config = dir.join("hinge.toml");
    std::fs::write(
        &config,
        "[[joints]]\nmatch = \"?Shin\"\nshape = \"hinge\"\naccept = 0.99\n",
    )
    .unwrap();
    for args in [
        vec!["--shape", "hinge", "--accept", "0.99"],
        vec!["--config", config.to_str().unwrap()],
    ] {
        let output = fit_to(&clip, &out, &args);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {message}");
        assert!(
            message.contains("a hinge allows no turn off its axis"),
            "{args:?}: {message}"
        );
        // From a rule, the message names the file and the rule's field, not `--accept`.
        if args[0] == "--config" {
            let from_rule = format!("{}: a rule's `accept`: joint", config.display());
            assert!(message.contains(&from_rule), "{message}");
            assert!(!message.contains("--accept:"), "{message}");
        }
        assert!(!out.exists(), "{args:?}: nothing is written");
    }
}

/// A clip too short to leave one part out reports that nothing was validated, not a mean over
/// no joints (which printed `-0.00%`); a tolerance of `-0` reads as 0.
#[test]
fn a_clip_too_short_to_validate_says_so() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let text = std::fs::read_to_string(&clip).unwrap();
    let (hierarchy, motion) = text.split_once("MOTION").unwrap();
    let frames: Vec<&str> = motion
        .lines()
        .filter(|line| !line.trim().is_empty())
        .skip(2)
        .take(2)
        .collect();
    let dir = scratch("fit-two-frames");
    let short = dir.join("two.bvh");
    std::fs::write(
        &short,
        format!(
            "{hierarchy}MOTION\nFrames: 2\nFrame Time: 0.0083333\n{}\n",
            frames.join("\n")
        ),
    )
    .unwrap();
    let out = dir.join("two.json");
    let output = fit_to(&short, &out, &["--shape", "cone", "--accept", "0.99"]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}{}", stderr(&output));
    assert!(
        printed.contains("validated acceptance not measured (too few frames)"),
        "{printed}"
    );
    assert!(!printed.contains("-0.00"), "{printed}");
    let checked = jointlimits(&[
        "check",
        out.to_str().unwrap(),
        short.to_str().unwrap(),
        "--tolerance=-0",
    ]);
    let printed = String::from_utf8_lossy(&checked.stdout);
    assert!(printed.contains("within 0° of its limit"), "{printed}");
}

/// `jointlimits fit CLIP -o OUT ARGS...`.
fn fit_to(clip: &std::path::Path, out: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["fit", clip.to_str().unwrap(), "-o", out.to_str().unwrap()];
    all.extend_from_slice(args);
    jointlimits(&all)
}

/// `fit --coupling-margin`: each parent direction's box grows by the margin beyond the padding and
/// stays within the independent box, which the margin never changes; 180° gives every parent
/// direction the independent box.
#[test]
fn the_coupling_margin_grows_each_parent_box_up_to_the_independent_one() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("coupling-margin");
    let fit = |margin: &str| {
        let out = dir.join(format!("coupled-{margin}.json"));
        let output = fit_to(
            &clip,
            &out,
            &["--shape", "coupled", "--coupling-margin", margin],
        );
        assert!(output.status.success(), "{margin}: {}", stderr(&output));
        let limits = jointlimits_io::read_limits_file(&out).unwrap();
        let limit = limits.find("lForeArm").unwrap().clone();
        let LimitRegion::Coupled(coupled) = limit.region else {
            panic!("{margin}: {:?}", limit.region.kind_name())
        };
        coupled.record().clone()
    };
    let (tight, default, loose) = (fit("0"), fit("10"), fit("180"));
    assert_eq!(tight.independent, loose.independent);
    assert_eq!(default.independent, loose.independent);
    let inside = |inner: (glam::Vec3, glam::Vec3), outer: (glam::Vec3, glam::Vec3)| {
        outer.0.cmple(inner.0).all() && inner.1.cmple(outer.1).all()
    };
    let independent = (loose.independent.min, loose.independent.max);
    let mut grown = 0;
    for v in 0..tight.min.len() {
        let boxes = [&tight, &default, &loose].map(|r| (r.min[v], r.max[v]));
        assert!(
            inside(boxes[0], boxes[1]),
            "vertex {v}: the margin only grows"
        );
        assert!(inside(boxes[1], boxes[2]), "vertex {v}");
        assert_eq!(
            boxes[2], independent,
            "vertex {v}: 180° is the independent box"
        );
        grown += usize::from(boxes[0] != boxes[1]);
    }
    assert!(grown > 0, "the default margin grows some parent's box");
    assert!(
        (0..tight.min.len()).any(|v| (tight.min[v], tight.max[v]) != independent),
        "without a margin some parent's box is tighter than the independent one"
    );
    // A margin past half a turn is refused before anything is read.
    let output = jointlimits(&[
        "fit",
        clip.to_str().unwrap(),
        "-o",
        dir.join("never.json").to_str().unwrap(),
        "--coupling-margin",
        "200",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--coupling-margin"),
        "{}",
        stderr(&output)
    );
}

/// `--resolution` sizes a coupled limit's grid as it sizes a table (it was silently ignored),
/// is refused outside the grid sizes a coupled limit has, and is said to be ignored by kinds
/// without a grid.
#[test]
fn the_resolution_sizes_a_coupled_grid() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("coupled-resolution");
    let fit = |shape: &str, resolution: &str| {
        let out = dir.join(format!("{shape}-{resolution}.json"));
        let output = fit_to(&clip, &out, &["--shape", shape, "--resolution", resolution]);
        (output, out)
    };
    let (output, out) = fit("coupled", "2");
    assert!(output.status.success(), "{}", stderr(&output));
    let limits = jointlimits_io::read_limits_file(&out).unwrap();
    let LimitRegion::Coupled(coupled) = &limits.find("lForeArm").unwrap().region else {
        panic!("lForeArm is not coupled")
    };
    assert_eq!(coupled.record().resolution, 2);
    let (output, out) = fit("coupled", "65");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("--resolution"),
        "{}",
        stderr(&output)
    );
    assert!(!out.exists());
    let (output, _) = fit("ellipsoid", "32");
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stderr(&output).contains("ignored"), "{}", stderr(&output));
}
