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
