//! Lookup tables driven from the command line: baking any limit into a table, exporting a table
//! as images and importing painted ones, and coarser levels of detail.

mod common;

use common::{jointlimits, limits_file, scratch, stderr, succeed};
use glam::Vec3;
use jointlimits::authored::ConeLimit;
use jointlimits::measure::SeededRandom;
use jointlimits::{LimitContext, LimitRegion, RotationLimit, TwistRange};
use jointlimits_io::read_limits_file;
use std::path::{Path, PathBuf};

/// A cone of 60° with twist ±0.4 about +Y.
fn cone() -> ConeLimit {
    ConeLimit {
        twist_axis: Vec3::Y,
        max_swing: 60f32.to_radians(),
        twist: TwistRange {
            min: -0.4,
            max: 0.4,
        },
    }
}

/// Bakes the cone into `dir/baked.json` at `resolution` cells, measuring on `samples`; returns
/// the baked file and what bake printed.
fn baked_cone(dir: &Path, resolution: u32, samples: u32) -> (PathBuf, String) {
    baked(dir, "cone.json", cone().into(), resolution, samples)
}

/// Bakes `region` (written to `dir/name`) into `dir/baked.json` at `resolution` cells,
/// measuring on `samples`; returns the baked file and what bake printed.
fn baked(
    dir: &Path,
    name: &str,
    region: LimitRegion,
    resolution: u32,
    samples: u32,
) -> (PathBuf, String) {
    let source = limits_file(dir, name, region);
    let baked = dir.join("baked.json");
    let printed = succeed(&[
        "bake",
        source.to_str().unwrap(),
        "-o",
        baked.to_str().unwrap(),
        "--resolution",
        &resolution.to_string(),
        "--samples",
        &samples.to_string(),
    ]);
    (baked, printed)
}

#[test]
fn bake_turns_a_cone_into_a_table_that_agrees_within_a_cell() {
    let dir = scratch("bake-cone");
    let (out, printed) = baked_cone(&dir, 48, 20_000);
    let worst: f32 = printed
        .lines()
        .find_map(|l| l.strip_prefix("largest gap over all joints: "))
        .and_then(|rest| rest.split(" cell").next()?.parse().ok())
        .unwrap_or_else(|| panic!("no summary in {printed}"));
    assert!(worst < 1.0, "{printed}");
    let baked = read_limits_file(&out).unwrap();
    let LimitRegion::Table(table) = &baked.joints[0].region else {
        panic!("not a table: {:?}", baked.joints[0].region.kind_name())
    };
    assert_eq!(table.resolution(), 48);
    // Away from the boundary the two agree on every rotation.
    let (cone, mut random) = (cone(), SeededRandom::new(4));
    for _ in 0..5000 {
        let q = random.rotation();
        let exact = cone.nearest(q, &LimitContext::NONE);
        let (swing, twist) = jointlimits::rotation::swing_and_twist_angle(q, Vec3::Y);
        let swing_angle = (swing * Vec3::Y).angle_between(Vec3::Y);
        let margin = (swing_angle - cone.max_swing)
            .abs()
            .min((twist.abs() - 0.4).abs());
        if margin > 0.1 {
            assert_eq!(
                table.contains(q, &LimitContext::NONE),
                exact.inside,
                "{q}: swing {swing_angle}, twist {twist}"
            );
        }
    }
}

#[test]
fn bake_refuses_a_bad_resolution_and_an_unknown_joint() {
    let dir = scratch("bake-refusals");
    let source = limits_file(&dir, "cone.json", cone().into());
    let out = dir.join("table.json");
    let (source, out) = (source.to_str().unwrap(), out.to_str().unwrap());
    let output = jointlimits(&["bake", source, "-o", out, "--resolution", "3"]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("resolution"),
        "{}",
        stderr(&output)
    );
    let output = jointlimits(&["bake", source, "-o", out, "--joint", "jiont"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("\"jiont\""), "{}", stderr(&output));
    assert!(!Path::new(out).exists(), "nothing is written on an error");
}

/// A joint whose region allows no direction of the grid is refused, naming it, and nothing is
/// written (the refusal now comes before any joint is baked: it had come after baking every
/// joint before it).
#[test]
fn bake_refuses_a_joint_too_small_for_the_grid_before_baking_the_others() {
    let dir = scratch("bake-too-small");
    let joint = |name: &str, region: LimitRegion| jointlimits::JointLimit {
        joint: name.into(),
        reference: glam::Quat::IDENTITY,
        region,
        softening: None,
    };
    // Euler ranges a fifth of a degree wide, with the bone swung off every vertex of an 8×8 grid.
    let tiny = jointlimits::authored::EulerLimit {
        order: jointlimits::EulerOrder::XYZ,
        min: Vec3::new(0.5, 0.3, 0.2),
        max: Vec3::new(0.5035, 0.3035, 0.2035),
    };
    let limits = jointlimits::SkeletonLimits::new(
        vec![joint("wide", cone().into()), joint("tiny", tiny.into())],
        None,
    );
    let source = dir.join("two.json");
    jointlimits_io::write_limits_file(&source, &limits).unwrap();
    let out = dir.join("table.json");
    let (source, out) = (source.to_str().unwrap(), out.to_str().unwrap());
    let output = jointlimits(&["bake", source, "-o", out, "--resolution", "8"]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("joint \"tiny\"") && message.contains("allows no bone direction"),
        "{message}"
    );
    assert!(!Path::new(out).exists(), "nothing is written on an error");
}

#[test]
fn exported_images_import_back_bit_for_bit_and_painting_them_changes_the_limits() {
    let dir = scratch("images");
    let (baked, _) = baked_cone(&dir, 32, 1000);
    let images = dir.join("images");
    let back = dir.join("back.json");
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    succeed(&["export-images", &path(&baked), "--out", &path(&images)]);
    succeed(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&back),
    ]);
    assert_eq!(
        read_limits_file(&back).unwrap().joints,
        read_limits_file(&baked).unwrap().joints,
        "export then import keeps the table bit for bit"
    );

    // An image whose name is misspelled is not read, and the import says so.
    let misspelled = images.join("joint.twistmin.png");
    std::fs::copy(images.join("joint.twist_min.png"), &misspelled).unwrap();
    let output = jointlimits(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&back),
    ]);
    assert!(output.status.success());
    assert!(
        stderr(&output).contains("joint.twistmin.png was not read")
            && stderr(&output).contains("did you mean \"joint.twist_min.png\""),
        "{}",
        stderr(&output)
    );
    // Also when one joint is asked for, whose images do not include the stray.
    let output = jointlimits(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&back),
        "--joint",
        "joint",
    ]);
    assert!(output.status.success());
    assert!(
        stderr(&output).contains("joint.twistmin.png was not read"),
        "{}",
        stderr(&output)
    );
    std::fs::remove_file(&misspelled).unwrap();

    // An output that is one of the images read is refused, and the image is kept.
    let image = images.join("joint.twist_min.png");
    let before = std::fs::read(&image).unwrap();
    let output = jointlimits(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&image),
    ]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("refusing"), "{}", stderr(&output));
    assert_eq!(
        std::fs::read(&image).unwrap(),
        before,
        "the image is intact"
    );
    // Exporting into a file instead of a folder says so.
    let output = jointlimits(&["export-images", &path(&baked), "--out", &path(&back)]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("folder"), "{}", stderr(&output));

    // Paint the allowed image: black everywhere but a diamond around the pixel 8 columns right
    // of the centre (the bone swung 41° towards the map's +u direction: cos θ = 1 − 0.5²).
    let allowed = images.join("joint.allowed.png");
    let side = 33usize;
    let mut bytes = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let r = (x as i64 - 24).abs() + (y as i64 - 16).abs();
            bytes.push(if r <= 3 { 255u8 } else { 0 });
        }
    }
    let mut encoder = png::Encoder::new(
        std::fs::File::create(&allowed).unwrap(),
        side as u32,
        side as u32,
    );
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&bytes)
        .unwrap();
    let painted = dir.join("painted.json");
    succeed(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&painted),
    ]);
    let limits = read_limits_file(&painted).unwrap();
    let LimitRegion::Table(table) = &limits.joints[0].region else {
        panic!("not a table")
    };
    let towards = table.swing().map.to_sphere(glam::Vec2::new(0.5, 0.0));
    let (free, painted_spot) = (
        table.swing().contains(Vec3::Y),
        table.swing().contains(towards),
    );
    assert!(
        !free && painted_spot,
        "axis allowed {free}, painted spot {painted_spot}"
    );

    // A painted image that cannot be a table is refused, naming it, and writes nothing.
    std::fs::write(images.join("joint.stress.png"), b"scribble").unwrap();
    let refused = dir.join("refused.json");
    let output = jointlimits(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&refused),
    ]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("joint.stress.png"),
        "{}",
        stderr(&output)
    );
    assert!(!refused.exists());

    // A joint's painted images left without their allowed image are not dropped in silence.
    std::fs::remove_file(&allowed).unwrap();
    let output = jointlimits(&[
        "import-images",
        &path(&baked),
        &path(&images),
        "-o",
        &path(&refused),
    ]);
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("joint.allowed.png is missing")
            && stderr(&output).contains("joint.twist_min.png"),
        "{}",
        stderr(&output)
    );
    assert!(!refused.exists());
}

#[test]
fn lod_prints_every_coarser_level_and_writes_the_one_asked_for() {
    let dir = scratch("lod");
    let (baked, _) = baked_cone(&dir, 64, 1000);
    let small = dir.join("small.json");
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let printed = succeed(&["lod", &path(&baked), "--samples", "2000"]);
    for cells in ["64×64", "32×32", "16×16", "8×8"] {
        assert!(printed.contains(cells), "{cells} missing from {printed}");
    }
    assert!(
        !printed.contains("4×4"),
        "the default coarsest level is 8: {printed}"
    );
    // The rotations drawn near the antipode on purpose are counted apart from the random ones.
    assert!(printed.contains("near the antipode"), "{printed}");
    succeed(&[
        "lod",
        &path(&baked),
        "--resolution",
        "16",
        "-o",
        &path(&small),
    ]);
    let limits = read_limits_file(&small).unwrap();
    let LimitRegion::Table(table) = &limits.joints[0].region else {
        panic!("not a table")
    };
    assert_eq!(table.resolution(), 16);
    // --resolution without --out writes nothing and says so.
    let output = jointlimits(&["lod", &path(&baked), "--resolution", "16"]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("--out"), "{}", stderr(&output));
}

/// `--path-aware` corrects tables only: on limits of another kind, `apply` says which joints
/// take the nearest allowed rotation instead (it used to ignore the flag silently there).
#[test]
fn path_aware_apply_names_the_joints_it_cannot_correct_along_the_path() {
    let dir = scratch("path-aware");
    let (baked, _) = baked_cone(&dir, 16, 2000);
    let source = dir.join("cone.json");
    let clip = dir.join("sweep.bvh");
    let mut text = String::from(
        "HIERARCHY\nROOT joint\n{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Zrotation Xrotation Yrotation\n\
         \tEnd Site\n\t{\n\t\tOFFSET 0 1 0\n\t}\n}\nMOTION\nFrames: 60\nFrame Time: 0.01\n",
    );
    for frame in 0..60 {
        text.push_str(&format!("{} 10 0\n", 2.0 * frame as f32));
    }
    std::fs::write(&clip, text).unwrap();
    let out = dir.join("out.bvh");
    for (limits, noted) in [(&source, true), (&baked, false)] {
        let run = jointlimits(&[
            "apply",
            limits.to_str().unwrap(),
            clip.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--path-aware",
        ]);
        let said = stderr(&run);
        assert!(run.status.success(), "{said}");
        assert_eq!(
            said.contains(
                "--path-aware corrects lookup tables only; 1 of 1 limited joints (joint)"
            ),
            noted,
            "{}: {said}",
            limits.display()
        );
        let check = jointlimits(&[
            "check",
            limits.to_str().unwrap(),
            out.to_str().unwrap(),
            "--tolerance",
            "0",
        ]);
        assert!(check.status.success(), "{}", stderr(&check));
    }
    std::fs::remove_dir_all(dir).unwrap();
}

/// An Euler range wide enough to allow two separate runs of twist at many bone directions: a
/// table keeps one, and `bake` says in its summary, and warns per joint, what share of random
/// rotations disagree there (its summary used to give only the gap where a table can follow).
#[test]
fn bake_reports_the_share_of_rotations_no_table_can_follow() {
    use jointlimits::authored::EulerLimit;
    use jointlimits::euler::EulerOrder;
    let dir = scratch("bake-beyond");
    let euler = EulerLimit {
        order: EulerOrder::YXZ,
        min: Vec3::new(-2.99, -1.546, -2.13),
        max: Vec3::new(2.74, 1.50, 4.0),
    };
    let (_, printed) = baked(&dir, "euler.json", LimitRegion::Euler(euler), 16, 1000);
    let summary = printed
        .lines()
        .find(|l| l.starts_with("largest gap over all joints: "))
        .unwrap_or_else(|| panic!("no summary in {printed}"));
    let share: f64 = summary
        .split_once("rotations (")
        .and_then(|(_, rest)| rest.split_once("%)"))
        .and_then(|(share, _)| share.parse().ok())
        .unwrap_or_else(|| panic!("no share in {summary}"));
    assert!(share > 5.0, "{summary}");
    // The zone near the antipode, which the gaps leave out, is summed up too.
    assert!(
        summary.contains("of the bone pointing against its axis"),
        "{summary}"
    );
    assert!(
        printed.contains("warning: joint: ") && printed.contains("where no table can follow"),
        "{printed}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
