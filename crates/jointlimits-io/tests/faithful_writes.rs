//! The writer keeps what did not change, never writes a number a reader refuses, and writes
//! position channels so that every reader convention agrees.

use jointlimits_io::bvh::{parse_bvh, write_bvh_file};

const SAMPLE: &str = "HIERARCHY
ROOT Hips
{
\tOFFSET 0 95 0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
\tJOINT Spine
\t{
\t\tOFFSET 0.00000 10.000 0
\t\tCHANNELS 3 Zrotation Xrotation Yrotation
\t\tEnd Site
\t\t{
\t\t\tOFFSET 0 5 0
\t\t}
\t}
}
MOTION
Frames: 2
Frame Time: .0083333
0.000000 90.00 -0 170.0000 -35.5 1e1 1.000000 2 3
0 90 0 11 21 31 4.50 5 6
";

fn written(bvh: &jointlimits_io::Bvh) -> String {
    let mut out = Vec::new();
    bvh.write(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

fn motion_lines(text: &str) -> Vec<&str> {
    text.lines()
        .skip_while(|l| !l.starts_with("Frame Time"))
        .skip(1)
        .collect()
}

#[test]
fn unchanged_values_keep_their_text_and_changed_ones_their_branch() {
    let bvh = parse_bvh(SAMPLE).unwrap();
    assert_eq!(motion_lines(&written(&bvh)), motion_lines(SAMPLE));

    // Through the motion and back, nothing changes either.
    let same = bvh.with_motion(&bvh.to_motion()).unwrap();
    assert_eq!(motion_lines(&written(&same)), motion_lines(SAMPLE));

    // Turning the spine in frame 0 rewrites only its three values, on the input's branch.
    let mut motion = bvh.to_motion();
    motion.rotations[1] = (motion.rotations[1] * glam::Quat::from_rotation_y(0.01)).normalize();
    let changed = bvh.with_motion(&motion).unwrap();
    let text = written(&changed);
    let lines = motion_lines(&text);
    let (before, after): (Vec<&str>, Vec<&str>) = (
        motion_lines(SAMPLE)[0].split(' ').collect(),
        lines[0].split(' ').collect(),
    );
    assert_eq!(before[..6], after[..6], "the root keeps its text");
    assert_ne!(before[6..], after[6..]);
    for (a, b) in before[6..].iter().zip(&after[6..]) {
        let (a, b): (f64, f64) = (a.parse().unwrap(), b.parse().unwrap());
        assert!((a - b).abs() < 2.0, "{before:?} became {after:?}");
    }
    assert_eq!(lines[1], motion_lines(SAMPLE)[1]);
}

/// What follows the `Frame Time` line: the motion section, byte for byte.
fn motion_section(text: &str) -> &str {
    let header_end = text.find("Frame Time").unwrap();
    let line_end = text[header_end..].find('\n').unwrap();
    &text[header_end + line_end + 1..]
}

#[test]
fn unchanged_motion_lines_keep_their_bytes_and_the_file_its_line_endings() {
    // CRLF endings, tabs and doubled spaces between values, trailing blanks, a blank line
    // between frames; the last line either without a terminator or followed by blank lines.
    let odd_line = "0\t90  0 11 21 31 4.50 5 6 \t";
    let crlf = SAMPLE
        .replace('\n', "\r\n")
        .replace("\r\n0 90 0", "\r\n \t\r\n\r\n0 90 0");
    let without_terminator = crlf.replace("0 90 0 11 21 31 4.50 5 6\r\n", odd_line);
    let with_blank_tail = crlf.replace(
        "0 90 0 11 21 31 4.50 5 6\r\n",
        &format!("{odd_line}\r\n\r\n  \r\n"),
    );
    for source in [without_terminator, with_blank_tail] {
        let bvh = parse_bvh(&source).unwrap();
        let text = written(&bvh);
        let (lf, crlf) = (text.matches('\n').count(), text.matches("\r\n").count());
        assert_eq!(lf, crlf, "every line ends as the file's do: {text:?}");
        assert_eq!(motion_section(&text), motion_section(&source));

        // A changed line is written anew, with its own terminator; the rest keeps its bytes.
        let mut motion = bvh.to_motion();
        motion.rotations[1] = (motion.rotations[1] * glam::Quat::from_rotation_y(0.01)).normalize();
        let text = written(&bvh.with_motion(&motion).unwrap());
        let (kept, changed) = (motion_section(&source), motion_section(&text));
        let first_end = kept.find("\r\n").unwrap();
        assert!(!changed.contains("1.000000 2 3"), "{changed:?}");
        assert!(changed.starts_with("0.000000 90.00 -0 170.0000 -35.5 1e1 "));
        let changed_end = changed.find("\r\n").unwrap();
        assert_eq!(changed[changed_end..], kept[first_end..], "{changed:?}");
    }
}

#[test]
fn a_file_whose_lines_end_in_bare_carriage_returns_keeps_them() {
    let source = SAMPLE.replace('\n', "\r");
    let bvh = parse_bvh(&source).unwrap();
    assert_eq!(bvh, parse_bvh(SAMPLE).unwrap());
    let text = written(&bvh);
    assert!(!text.contains('\n'), "{text:?}");
    let motion = |text: &str| text[text.find("Frame Time").unwrap()..].to_string();
    let section = motion(&text);
    let kept = motion(&source);
    assert_eq!(
        section[section.find('\r').unwrap()..],
        kept[kept.find('\r').unwrap()..]
    );
    assert_eq!(parse_bvh(&text).unwrap().to_motion(), bvh.to_motion());
}

#[test]
fn the_root_offset_along_position_channels_is_written_as_zero() {
    // three.js adds position channels to the OFFSET; other readers replace it. A zero offset
    // along every animated axis reads the same both ways.
    let bvh = parse_bvh(SAMPLE).unwrap();
    let text = written(&bvh);
    assert!(text.contains("\tOFFSET 0 0 0\n"), "{text}");
    let reread = parse_bvh(&text).unwrap();
    assert_eq!(
        reread.to_motion().translations,
        bvh.to_motion().translations
    );
}

#[test]
fn no_non_finite_number_is_ever_written() {
    let mut bvh = parse_bvh(SAMPLE).unwrap();
    bvh.values[7] = f32::NAN;
    let mut out = Vec::new();
    assert!(bvh.write(&mut out).is_err());
    assert!(out.is_empty(), "nothing written before the check");
    let path = std::env::temp_dir().join(format!("jl-nan-{}.bvh", std::process::id()));
    let error = write_bvh_file(&path, &bvh).unwrap_err().to_string();
    assert!(
        error.contains("Spine") && error.contains("frame 0") && error.contains("Xrotation"),
        "{error}"
    );
    assert!(!path.exists());

    let bvh = parse_bvh(SAMPLE).unwrap();
    let mut motion = bvh.to_motion();
    motion.rotations[1] = glam::Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
    let error = bvh.with_motion(&motion).unwrap_err().to_string();
    assert!(
        error.contains("Spine") && error.contains("frame 0"),
        "{error}"
    );
}

/// Joints with two rotation channels under hinges about axes those channels cannot turn about:
/// nothing they express is allowed, and the writer leaves the least violation they can reach (a
/// brute force over the channels' angles), not merely the best of its projections (once 7.99°
/// where 0.70° was reachable).
#[test]
fn channels_expressing_nothing_allowed_get_the_least_violation_they_can_reach() {
    use glam::{Quat, Vec3};
    use jointlimits::JointLimit;
    use jointlimits::authored::HingeLimit;
    use jointlimits::measure::SeededRandom;
    use jointlimits::region::LimitRegion;
    let mut random = SeededRandom::new(17);
    let pairs = [("X", "Z"), ("Z", "Y"), ("Y", "X"), ("X", "Y")];
    let mut worst_excess = 0.0f32;
    for case in 0..24 {
        let (first, second) = pairs[case % pairs.len()];
        let text = format!(
            "HIERARCHY\nROOT Hips\n{{\n\tOFFSET 0 0 0\n\tCHANNELS 3 Zrotation Xrotation Yrotation\n\
             \tJOINT Ankle\n\t{{\n\t\tOFFSET 0 -10 0\n\t\tCHANNELS 2 {first}rotation {second}rotation\n\
             \t\tEnd Site\n\t\t{{\n\t\t\tOFFSET 0 0 3\n\t\t}}\n\t}}\n}}\nMOTION\nFrames: 1\nFrame Time: 0.01\n\
             0 0 0 10 20\n"
        );
        let bvh = parse_bvh(&text).unwrap();
        let about = |name: &str, degrees: f32| {
            let axis = match name {
                "X" => Vec3::X,
                "Y" => Vec3::Y,
                _ => Vec3::Z,
            };
            Quat::from_axis_angle(axis, degrees.to_radians())
        };
        let expressed = |a: f32, b: f32| about(first, a) * about(second, b);
        let axis = random.direction();
        let min = -180.0 + 300.0 * random.next_unit() as f32;
        let max = min + 5.0 + 55.0 * random.next_unit() as f32;
        let limit = JointLimit {
            joint: "Ankle".into(),
            reference: Quat::IDENTITY,
            region: LimitRegion::Hinge(HingeLimit {
                axis,
                min: min.to_radians(),
                max: max.to_radians(),
            }),
            softening: None,
        };
        let asked = min + (max - min) * random.next_unit() as f32;
        let mut motion = bvh.to_motion();
        motion.rotations[1] = Quat::from_axis_angle(axis, asked.to_radians());
        let (written, report) = bvh
            .with_allowed_motion(&motion, &[None, Some(&limit)])
            .unwrap();
        let left = limit.violation(written.transform(0, 1).0);
        // Brute force: a 0.5° grid over both angles, then a 0.01° grid around its best.
        let violation = |a: f32, b: f32| limit.violation(expressed(a, b));
        let mut best = (f32::INFINITY, 0.0, 0.0);
        for i in 0..720 {
            for j in 0..720 {
                let (a, b) = (-180.0 + 0.5 * i as f32, -180.0 + 0.5 * j as f32);
                let v = violation(a, b);
                if v < best.0 {
                    best = (v, a, b);
                }
            }
        }
        let (coarse_a, coarse_b) = (best.1, best.2);
        for i in 0..=100 {
            for j in 0..=100 {
                let a = coarse_a - 0.5 + 0.01 * i as f32;
                let b = coarse_b - 0.5 + 0.01 * j as f32;
                best.0 = best.0.min(violation(a, b));
            }
        }
        worst_excess = worst_excess.max(left - best.0);
        assert!(
            left <= best.0 + 1e-4,
            "{first}{second}, hinge about {axis} over [{min}°, {max}°]: written {left} rad outside, {} reachable",
            best.0
        );
        assert_eq!(report.worst_violation, left, "{report:?}");
    }
    eprintln!("largest excess over the brute force: {worst_excess:e} rad");
}

#[test]
fn huge_angles_are_read_modulo_a_turn_in_full_precision_and_keep_their_text() {
    // 1e15° is 280° modulo a turn; rounded to f32 first it would read as 999999986991104°,
    // which is 344°. A position channel of the same size is a length, kept as it is. Beyond
    // what f64 holds to the degree, the text decides: 10ⁿ ≡ 280 (mod 360) for n ≥ 3, and the
    // 27 digits below are 127 modulo 360 (their nearest f64 is not).
    for (angles, modulo_a_turn) in [
        ("1e15 -12345678.9 100000.123456", "280 161.1 280.123456"),
        ("1e20 123456789012345678901234567 -1e30", "280 127 80"),
        ("3e38 1E37 -2.5e4", "120 280 -160"),
    ] {
        let huge = SAMPLE.replace(
            "0 90 0 11 21 31 4.50 5 6",
            &format!("1e15 90 0 {angles} 4.50 5 6"),
        );
        let bvh = parse_bvh(&huge).unwrap();
        let reference = parse_bvh(&SAMPLE.replace(
            "0 90 0 11 21 31 4.50 5 6",
            &format!("1e15 90 0 {modulo_a_turn} 4.50 5 6"),
        ))
        .unwrap();
        let channels = bvh.channel_count();
        let (read, expected) = (&bvh.values[channels..], &reference.values[channels..]);
        assert_eq!(read[0], 1e15, "a position is not an angle");
        for k in 3..6 {
            let apart = f64::from(read[k] - expected[k]).rem_euclid(360.0);
            assert!(
                apart.min(360.0 - apart) < 1e-3,
                "{angles}, channel {k}: read {} for {}",
                read[k],
                expected[k]
            );
        }
        // Written back unchanged, every token keeps its text.
        assert_eq!(motion_lines(&written(&bvh)), motion_lines(&huge));
    }
}
