//! Malformed BVH gives an error that names line, column and what was expected; nothing panics.

use jointlimits_io::bvh::{BvhError, parse_bvh, parse_bvh_named};
use proptest::prelude::*;

const VALID: &str = "HIERARCHY
ROOT Hips
{
\tOFFSET 0 0 0
\tCHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
\tJOINT Spine
\t{
\t\tOFFSET 0 10 0
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
0 90 0 10 20 30 1 2 3
0 90 0 11 21 31 4 5 6
";

/// The error for `text`, as (line, column, message).
fn error_of(text: &str) -> (usize, usize, String) {
    match parse_bvh(text) {
        Err(BvhError::Syntax {
            line,
            column,
            problem,
            ..
        }) => (line, column, problem.to_string()),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn the_valid_sample_parses() {
    let bvh = parse_bvh(VALID).unwrap();
    assert_eq!(bvh.frame_count(), 2);
    assert_eq!(
        bvh.skeleton.joints()[1].end_site,
        Some(glam::Vec3::new(0.0, 5.0, 0.0))
    );
    // CRLF, keywords in other cases and a tab after the labels read the same.
    let variant = VALID
        .replace("End Site", "end site")
        .replace("Frames: ", "Frames:\t")
        .replace('\n', "\r\n");
    assert_eq!(parse_bvh(&variant).unwrap(), bvh);
    // Lines ended by a bare carriage return (classic Mac OS) read the same too.
    assert_eq!(parse_bvh(&VALID.replace('\n', "\r")).unwrap(), bvh);
}

#[test]
fn errors_in_files_with_bare_carriage_returns_name_the_same_line() {
    for ending in ["\r", "\r\n"] {
        let text = VALID.replace("4 5 6", "4 5").replace('\n', ending);
        let (line, column, message) = error_of(&text);
        assert_eq!((line, column), (20, 20), "{ending:?}");
        assert!(message.contains("frame 1 has 8 values"), "{message}");
    }
    // Text that is not UTF-8 is placed by the same line count.
    let mut bytes = VALID.replace('\n', "\r").into_bytes();
    let at = VALID.find("4 5 6").unwrap();
    bytes[at + 2] = 0xff;
    let column = at + 2 - VALID[..at].rfind('\n').unwrap();
    match parse_bvh_named(&bytes, "mac.bvh") {
        Err(BvhError::Syntax {
            line, column: c, ..
        }) => assert_eq!((line, c), (20, column)),
        other => panic!("expected a syntax error, got {other:?}"),
    }
}

#[test]
fn truncated_hierarchy() {
    let cut = &VALID[..VALID.find("\t}\n}").unwrap()];
    let (line, column, message) = error_of(cut);
    assert_eq!((line, column), (14, 1));
    assert!(
        message.contains("expected }") && message.contains("end of file"),
        "{message}"
    );
}

#[test]
fn missing_value_on_a_motion_line() {
    let text = VALID.replace("4 5 6", "4 5");
    let (line, column, message) = error_of(&text);
    assert_eq!((line, column), (20, 20));
    assert!(
        message.contains("frame 1 has 8 values, expected 9"),
        "{message}"
    );
}

#[test]
fn extra_value_on_a_motion_line() {
    let text = VALID.replace("1 2 3", "1 2 3 7");
    let (line, column, message) = error_of(&text);
    assert_eq!((line, column), (19, 23));
    assert!(message.contains("more than the 9 values"), "{message}");
}

#[test]
fn non_numeric_and_non_finite_numbers() {
    let (line, column, message) = error_of(&VALID.replace("11 21", "11 x21"));
    assert_eq!((line, column), (20, 11));
    assert!(
        message.contains("expected a number, found \"x21\""),
        "{message}"
    );
    for bad in ["nan", "inf", "-infinity", "1e400"] {
        let (line, _, message) = error_of(&VALID.replace("11 21", &format!("11 {bad}")));
        assert_eq!(line, 20);
        assert!(message.contains("not finite"), "{bad}: {message}");
    }
    let (line, column, message) = error_of(&VALID.replace("OFFSET 0 10 0", "OFFSET 0 1O 0"));
    assert_eq!((line, column), (8, 12));
    assert!(message.contains("\"1O\""), "{message}");
}

#[test]
fn unbalanced_braces() {
    let (line, _, message) = error_of(&VALID.replace("}\nMOTION", "}\n}\nMOTION"));
    assert_eq!(line, 16);
    assert!(message.contains("ROOT or MOTION"), "{message}");
    let (line, _, message) = error_of(&VALID.replace("\t}\n}\nMOTION", "\t}\nMOTION"));
    assert_eq!(line, 15);
    assert!(
        message.contains("expected JOINT, End Site, OFFSET, CHANNELS or }"),
        "{message}"
    );
}

#[test]
fn unknown_channel_and_wrong_channel_count() {
    let (line, column, message) =
        error_of(&VALID.replace("Xrotation Yrotation\n", "Xrotation Wrotation\n"));
    assert_eq!((line, column), (9, 34));
    assert!(
        message.contains("unknown channel \"Wrotation\""),
        "{message}"
    );
    let (line, _, message) = error_of(&VALID.replace("CHANNELS 3", "CHANNELS 4"));
    assert_eq!(line, 9);
    assert!(
        message.contains("declares 4 channels but lists 3"),
        "{message}"
    );
}

#[test]
fn fewer_motion_lines_than_frames() {
    let text = VALID.replace("Frames: 2", "Frames: 3");
    let (line, _, message) = error_of(&text);
    assert_eq!(line, 21);
    assert!(
        message.contains("after 2 motion lines, but Frames: says 3"),
        "{message}"
    );
    let text = VALID.replace("Frames: 2", "Frames: 1");
    let (line, _, message) = error_of(&text);
    assert_eq!(line, 20);
    assert!(message.contains("more motion lines"), "{message}");
}

#[test]
fn bad_headers() {
    let (_, _, message) = error_of(&VALID.replace("Frame Time: .0083333", "Frame Time: 0"));
    assert!(message.contains("positive"), "{message}");
    let (line, _, message) = error_of(&VALID.replace("HIERARCHY", "HIERARCHX"));
    assert_eq!(line, 1);
    assert!(message.contains("expected HIERARCHY"), "{message}");
    let (_, _, message) = error_of(&VALID.replace("Spine\n", "Hips\n"));
    assert!(message.contains("used twice"), "{message}");
    let (_, _, message) = error_of("");
    assert!(message.contains("end of file"), "{message}");
}

#[test]
fn errors_name_the_file() {
    let err = parse_bvh_named(b"HIERARCHY\nROOT\n", "clip.bvh").unwrap_err();
    assert!(err.to_string().starts_with("clip.bvh:2:"), "{err}");
    let err = parse_bvh_named(b"HIERARCHY\n\xff", "clip.bvh").unwrap_err();
    assert_eq!(err.to_string(), "clip.bvh:2:1: file is not UTF-8 text");
}

/// One edit of a byte string.
#[derive(Clone, Debug)]
enum Mutation {
    Delete { at: usize, len: usize },
    Insert { at: usize, bytes: Vec<u8> },
    Replace { at: usize, byte: u8 },
    Duplicate { at: usize, len: usize },
    Truncate { at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Bytes that matter to the grammar are over-represented so mutations hit interesting paths.
    let byte = prop_oneof![
        Just(b'{'),
        Just(b'}'),
        Just(b'\n'),
        Just(b'\r'),
        Just(b' '),
        Just(b'\t'),
        Just(b'-'),
        Just(b'.'),
        Just(b'e'),
        Just(b':'),
        b'0'..=b'9',
        any::<u8>(),
    ];
    let at = any::<prop::sample::Index>();
    prop_oneof![
        (at.clone(), 1usize..40).prop_map(|(i, len)| Mutation::Delete {
            at: i.index(1 << 20),
            len
        }),
        (at.clone(), prop::collection::vec(byte.clone(), 1..8)).prop_map(|(i, bytes)| {
            Mutation::Insert {
                at: i.index(1 << 20),
                bytes,
            }
        }),
        (at.clone(), byte).prop_map(|(i, byte)| Mutation::Replace {
            at: i.index(1 << 20),
            byte
        }),
        (at.clone(), 1usize..200).prop_map(|(i, len)| Mutation::Duplicate {
            at: i.index(1 << 20),
            len
        }),
        at.prop_map(|i| Mutation::Truncate {
            at: i.index(1 << 20)
        }),
    ]
}

fn apply(data: &mut Vec<u8>, mutation: &Mutation) {
    let n = data.len().max(1);
    match *mutation {
        Mutation::Delete { at, len } => {
            let start = at % n;
            let end = (start + len).min(data.len());
            data.drain(start.min(end)..end);
        }
        Mutation::Insert { at, ref bytes } => {
            let at = at % (data.len() + 1);
            data.splice(at..at, bytes.iter().copied());
        }
        Mutation::Replace { at, byte } => {
            if !data.is_empty() {
                let at = at % data.len();
                data[at] = byte;
            }
        }
        Mutation::Duplicate { at, len } => {
            let start = at % n;
            let end = (start + len).min(data.len());
            let copy: Vec<u8> = data[start.min(end)..end].to_vec();
            data.splice(end..end, copy);
        }
        Mutation::Truncate { at } => data.truncate(at % n),
    }
}

/// The head of a real fixture (hierarchy and the first frames) as the seed for mutations; the
/// embedded sample when the data is absent.
fn seed() -> Vec<u8> {
    let Some(path) = jointlimits_testdata::fixture("cmu_max/131_01.bvh") else {
        return VALID.as_bytes().to_vec();
    };
    let text = std::fs::read_to_string(path).unwrap();
    let motion = text.find("MOTION").unwrap();
    let end = text[motion..]
        .match_indices('\n')
        .nth(6)
        .map_or(text.len(), |(i, _)| motion + i + 1);
    text[..end].replace("Frames: 994", "Frames: 4").into_bytes()
}

proptest! {
    // Each case runs one mutated copy of a real file through the reader and the converter.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("BVH_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(2000),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]
    #[test]
    fn mutated_real_files_never_panic(mutations in prop::collection::vec(mutation(), 1..5)) {
        let mut data = seed();
        for m in &mutations {
            apply(&mut data, m);
        }
        match parse_bvh_named(&data, "fuzz.bvh") {
            Ok(bvh) => {
                prop_assert!(bvh.values.iter().all(|v| v.is_finite()));
                let motion = bvh.to_motion();
                prop_assert!(motion.rotations.iter().all(|q| q.is_finite()));
                prop_assert!(motion.translations.iter().all(|t| t.is_finite()));
            }
            Err(e) => {
                let message = e.to_string();
                prop_assert!(message.starts_with("fuzz.bvh:"), "{message}");
            }
        }
    }
}

#[test]
fn a_very_deep_hierarchy_reads_and_writes_without_recursion() {
    let depth = 20_000;
    let mut text = String::from("HIERARCHY\n");
    for i in 0..depth {
        let keyword = if i == 0 { "ROOT" } else { "JOINT" };
        text.push_str(&format!(
            "{keyword} j{i}\n{{\nOFFSET 0 1 0\nCHANNELS 1 Zrotation\n"
        ));
    }
    text.push_str(&"}\n".repeat(depth));
    text.push_str(&format!(
        "MOTION\nFrames: 1\nFrame Time: 0.1\n{}\n",
        "1 ".repeat(depth)
    ));
    let bvh = parse_bvh(&text).unwrap();
    assert_eq!(bvh.skeleton.len(), depth);
    let mut written = Vec::new();
    bvh.write(&mut written).unwrap();
    let again = parse_bvh(std::str::from_utf8(&written).unwrap()).unwrap();
    assert_eq!(again.skeleton, bvh.skeleton);
}

#[test]
fn a_name_with_a_brace_is_refused_at_read_time() {
    // `ROOT a{ {` used to read as joint `a{`, which the writer wrote and the reader then refused.
    let text = VALID.replace("ROOT Hips\n{", "ROOT a{ {");
    let (line, column, message) = error_of(&text);
    assert_eq!((line, column), (2, 7));
    assert!(
        message.contains("\"a{\"") && message.contains("brace"),
        "{message}"
    );
    let text = VALID.replace("JOINT Spine", "JOINT Sp}ine");
    assert!(error_of(&text).2.contains("brace"));
}
