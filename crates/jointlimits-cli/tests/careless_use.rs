//! What a careless user does at the command line: outputs that are devices, FIFOs or links,
//! Ctrl-C in the middle of a write, a closed pipe, arguments in the wrong order, typos in names,
//! limits from another skeleton, absurd skeletons. Every case ends cleanly, says what happened,
//! and leaves every file as it was or complete.

use std::path::Path;
use std::process::{Command, Stdio};

mod common;
use common::{jointlimits, scratch, stderr};

fn fixture(relative: &str) -> Option<String> {
    jointlimits_testdata::fixture(relative).map(|p| p.to_str().unwrap().to_string())
}

/// Limits fitted on `clip`, in `dir`.
fn fit(dir: &Path, clip: &str) -> String {
    let limits = dir.join("limits.json");
    let limits = limits.to_str().unwrap();
    let fit = jointlimits(&["fit", clip, "-o", limits]);
    assert!(fit.status.success(), "{}", stderr(&fit));
    limits.to_string()
}

/// Temporary files left in `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect()
}

#[cfg(unix)]
#[test]
fn special_outputs_are_refused_and_links_written_through() {
    use std::os::unix::fs::FileTypeExt;
    let Some(clip) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("special");
    let limits = fit(&dir, &clip);
    let fifo = dir.join("pipe.bvh");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    for out in [Path::new("/dev/null"), fifo.as_path()] {
        let out_s = out.to_str().unwrap();
        for args in [
            vec!["apply", &limits, &clip, "-o", out_s],
            vec!["fit", &clip, "-o", out_s],
            vec![
                "ik",
                &limits,
                &clip,
                "-o",
                out_s,
                "--chain",
                "LeftArm..LeftHand",
                "--target",
                "0,10,0",
            ],
        ] {
            let run = jointlimits(&args);
            assert_eq!(run.status.code(), Some(2), "{args:?}: {}", stderr(&run));
            assert!(
                stderr(&run).contains("not a regular file; refusing to replace it"),
                "{args:?}: {}",
                stderr(&run)
            );
            let kind = std::fs::symlink_metadata(out).unwrap().file_type();
            assert!(kind.is_char_device() || kind.is_fifo(), "{out_s} replaced");
        }
    }
    // A link to a regular file is followed: the file is replaced, the link stays.
    let real = dir.join("real.bvh");
    std::fs::write(&real, "old").unwrap();
    let link = dir.join("link.bvh");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let run = jointlimits(&["apply", &limits, &clip, "-o", link.to_str().unwrap()]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .unwrap()
            .starts_with("HIERARCHY")
    );
    assert!(temporaries(&dir).is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Ctrl-C while the output is being written: the program exits with 130 and removes its
/// temporary file; the old output is untouched.
#[cfg(unix)]
#[test]
fn interrupting_a_write_leaves_no_temporary_file() {
    let Some(clip) = fixture("cmu_max/131_01.bvh") else {
        return;
    };
    let dir = scratch("interrupt");
    let limits = fit(&dir, &clip);
    // A long clip, so that writing it takes a while: the fixture's frames many times over.
    let text = std::fs::read_to_string(&clip).unwrap();
    let (header, motion) = text.split_once("MOTION").unwrap();
    let lines: Vec<&str> = motion
        .lines()
        .skip_while(|l| !l.starts_with("Frame Time"))
        .collect();
    let frames = &lines[1..];
    let repeats = 20;
    let mut long = format!(
        "{header}MOTION\nFrames: {}\n{}\n",
        frames.len() * repeats,
        lines[0]
    );
    for _ in 0..repeats {
        for frame in frames {
            long.push_str(frame);
            long.push('\n');
        }
    }
    let long_clip = dir.join("long.bvh");
    std::fs::write(&long_clip, long).unwrap();
    let out = dir.join("out.bvh");
    std::fs::write(&out, "old").unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_jointlimits"))
        .args([
            "apply",
            &limits,
            long_clip.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
            "--allow-other-skeleton",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the temporary output exists, then interrupt.
    let started = std::time::Instant::now();
    let mut seen = false;
    while started.elapsed() < std::time::Duration::from_secs(120) {
        if !temporaries(&dir).is_empty() {
            seen = true;
            break;
        }
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    }
    assert!(seen, "the write was never seen in progress");
    let interrupted = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(interrupted.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(temporaries(&dir), Vec::<String>::new());
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "old");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_program_quietly() {
    let Some(clip) = fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_jointlimits"))
        .args(["inspect", &clip])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read one line, then close the pipe (what `| head -1` does).
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    assert_eq!(stderr(&output), "", "nothing said about the closed pipe");
}

#[test]
fn arguments_in_the_wrong_order_get_a_hint() {
    let Some(clip) = fixture("cmu_daz/salsa_10.bvh") else {
        return;
    };
    let dir = scratch("order");
    let limits = fit(&dir, &clip);
    let out = dir.join("out.bvh");
    let out = out.to_str().unwrap();
    for args in [
        vec!["apply", &clip, &limits, "-o", out],
        vec!["check", &clip, &limits],
        vec![
            "ik",
            &clip,
            &limits,
            "-o",
            out,
            "--chain",
            "lShldr..lHand",
            "--target",
            "0,0,0",
        ],
    ] {
        let run = jointlimits(&args);
        assert_eq!(run.status.code(), Some(2));
        assert!(
            stderr(&run).contains("is a BVH clip, not a limits file: the limits file comes first"),
            "{args:?}: {}",
            stderr(&run)
        );
    }
    // The clip where the limits should be is caught too, when the limits file parses as a clip
    // cannot: the second argument is a limits file.
    let run = jointlimits(&["check", &limits, &limits]);
    assert!(
        stderr(&run).contains("is a limits file, not a BVH clip"),
        "{}",
        stderr(&run)
    );
    assert!(!Path::new(out).exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn typos_get_suggestions_and_causes_are_said_once() {
    let Some(clip) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("typos");
    let limits = fit(&dir, &clip);
    let out = dir.join("out.bvh");
    let run = jointlimits(&[
        "ik",
        &limits,
        &clip,
        "-o",
        out.to_str().unwrap(),
        "--chain",
        "LeftArm..LeftHnd",
        "--target",
        "0,0,0",
    ]);
    assert!(
        stderr(&run).contains("did you mean \"LeftHand\"?"),
        "{}",
        stderr(&run)
    );
    let run = jointlimits(&["fit", &clip, "-o", "x.json", "--shape", "elipsoid"]);
    assert!(
        stderr(&run).contains("did you mean \"ellipsoid\"?"),
        "{}",
        stderr(&run)
    );
    let run = jointlimits(&["fit", &clip, "-o", "x.json", "--space", "swingtwist"]);
    assert!(
        stderr(&run).contains("did you mean \"swing-twist\"?"),
        "{}",
        stderr(&run)
    );
    // A missing file: the operating system's reason appears once.
    let missing = dir.join("missing.bvh");
    let run = jointlimits(&["inspect", missing.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        stderr(&run).matches("No such file or directory").count(),
        1,
        "{}",
        stderr(&run)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn limits_from_another_skeleton_are_refused_unless_allowed() {
    let (Some(mb2), Some(mb2008)) = (
        fixture("cmu_mb2/12_01_walk.bvh"),
        fixture("cmu_mb2008/01_01.bvh"),
    ) else {
        return;
    };
    let dir = scratch("skeleton");
    let limits = fit(&dir, &mb2);
    let out = dir.join("out.bvh");
    let out_s = out.to_str().unwrap();
    for args in [
        vec!["apply", &limits, &mb2008, "-o", out_s],
        vec!["check", &limits, &mb2008],
        vec![
            "ik",
            &limits,
            &mb2008,
            "-o",
            out_s,
            "--chain",
            "LeftArm..LeftHand",
            "--target",
            "0,10,0",
        ],
    ] {
        let run = jointlimits(&args);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        let message = stderr(&run);
        assert!(
            message.contains("was made for another skeleton")
                && message.contains("\"LeftUpLeg\" has offset")
                && message.contains("--allow-other-skeleton"),
            "{args:?}: {message}"
        );
        assert!(!out.exists());
    }
    // One joint's recorded offset changed: refused naming it, or applied with a warning.
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&limits).unwrap()).unwrap();
    json["skeleton"]["joints"][3]["offset"] = serde_json::json!([0.0, -9.0, 0.0]);
    let changed = dir.join("changed.json");
    std::fs::write(&changed, json.to_string()).unwrap();
    let changed = changed.to_str().unwrap();
    let run = jointlimits(&["apply", changed, &mb2, "-o", out_s]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains("1 difference(s): \"LeftLeg\" has offset"),
        "{}",
        stderr(&run)
    );
    let run = jointlimits(&[
        "apply",
        changed,
        &mb2,
        "-o",
        out_s,
        "--allow-other-skeleton",
    ]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(stderr(&run).contains("warning:"));
    // The clip the limits came from, and `apply`'s output of it, match the record.
    let run = jointlimits(&["apply", &limits, &mb2, "-o", out_s]);
    assert!(run.status.success(), "{}", stderr(&run));
    let run = jointlimits(&["check", &limits, &mb2, out_s]);
    assert!(run.status.success(), "{}", stderr(&run));
    // A joint whose rotation channels became position channels: its offset as the file counts
    // it is animated, and the refusal says by which channels.
    let text = std::fs::read_to_string(&mb2).unwrap();
    // LeftUpLeg's, the second joint's, whose offset is not 0.
    let channels_line = text
        .match_indices("CHANNELS 3 ")
        .nth(1)
        .map(|(at, _)| at)
        .unwrap();
    let end = channels_line + text[channels_line..].find('\n').unwrap();
    let moved = format!(
        "{}CHANNELS 3 Xposition Yposition Zposition{}",
        &text[..channels_line],
        &text[end..]
    );
    let moved_path = dir.join("moved.bvh");
    std::fs::write(&moved_path, moved).unwrap();
    let run = jointlimits(&["check", &limits, moved_path.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(
        stderr(&run).contains(
            "\"LeftUpLeg\" has offset [0.0, 0.0, 0.0], not [2.1066, -1.59283, 1.11709] (its Xposition Yposition Zposition channel(s) animate the offset in their place)"
        ),
        "{}",
        stderr(&run)
    );
    // A limits file that records no skeleton (hand-written) applies by joint names.
    json.as_object_mut().unwrap().remove("skeleton");
    std::fs::write(changed, json.to_string()).unwrap();
    let run = jointlimits(&["apply", changed, &mb2, "-o", out_s]);
    assert!(run.status.success(), "{}", stderr(&run));
    assert!(!stderr(&run).contains("warning:"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_names_the_worst_frame_by_clip_file() {
    let (Some(martial), Some(salsa)) = (
        fixture("cmu_daz/martial_04.bvh"),
        fixture("cmu_daz/salsa_10.bvh"),
    ) else {
        return;
    };
    let dir = scratch("worst");
    let limits = fit(&dir, &martial);
    let run = jointlimits(&["check", &limits, &martial, &salsa, "--allow-other-skeleton"]);
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(text.contains("worst clip:frame"), "{text}");
    assert!(text.contains("salsa_10.bvh:"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A BVH text with one joint per level of a chain `depth` deep, and a root called `root_name`.
fn deep_clip(depth: usize, root_name: &str) -> String {
    let mut text = format!(
        "HIERARCHY\nROOT {root_name}\n{{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
    );
    for i in 0..depth {
        text.push_str(&format!(
            "JOINT j{i}\n{{\nOFFSET 0 1 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
        ));
    }
    text.push_str("End Site\n{\nOFFSET 0 1 0\n}\n");
    for _ in 0..=depth {
        text.push_str("}\n");
    }
    text.push_str("MOTION\nFrames: 1\nFrame Time: 0.033333\n");
    text.push_str(&"0 ".repeat(3 * (depth + 1)));
    text.push('\n');
    text
}

#[test]
fn absurd_skeletons_are_inspected_without_panicking() {
    let dir = scratch("absurd");
    for (name, text) in [
        ("long_name.bvh", deep_clip(2, &"n".repeat(70_000))),
        ("deep.bvh", deep_clip(100_000, "root")),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        for args in [vec!["inspect"], vec!["inspect", "--json"]] {
            let mut args = args.clone();
            args.push(path.to_str().unwrap());
            let run = jointlimits(&args);
            assert!(run.status.success(), "{name} {args:?}: {}", stderr(&run));
            // Lines stay bounded: the tree is not drawn 100,000 levels wide.
            let widest = String::from_utf8_lossy(&run.stdout)
                .lines()
                .map(str::len)
                .max()
                .unwrap_or(0);
            assert!(widest < 71_000 + 200, "{name}: a line of {widest} bytes");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `ik` reports distances with their unit; a target with negative coordinates is taken as
/// written (`--target -1,2,3`, not only `--target=-1,2,3`); and frames whose target lies beyond
/// the chain's length count as beyond reach with limits too (where the solve stalls against them
/// instead of laying the chain straight, the summary counted none).
#[test]
fn ik_reports_distances_with_their_unit_and_frames_beyond_reach() {
    let Some(clip) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("units");
    let limits = fit(&dir, &clip);
    let out = dir.join("out.bvh");
    for (targets, expected) in [
        (&["5,15,0@0-9"][..], "clip units"),
        (&["-500,-400,-300@0-9", "-1e4,0,0@10-14"], "15 beyond reach"),
    ] {
        let mut args = vec![
            "ik",
            &limits,
            &clip,
            "-o",
            out.to_str().unwrap(),
            "--chain",
            "LeftArm..LeftHand",
        ];
        for target in targets {
            args.extend(["--target", target]);
        }
        let run = jointlimits(&args);
        assert!(run.status.success(), "{}", stderr(&run));
        let text = String::from_utf8_lossy(&run.stdout);
        assert!(text.contains(expected), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ik_refuses_options_it_cannot_honour() {
    let Some(clip) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("ik-options");
    let limits = fit(&dir, &clip);
    let out = dir.join("out.bvh");
    let out_s = out.to_str().unwrap();
    for (option, value) in [
        ("--tolerance", "nan"),
        ("--tolerance", "-1"),
        ("--tolerance", "inf"),
        ("--target", "1e30,0,0"),
        ("--target", "nan,0,0"),
        ("--pole", "0,3e38,0"),
        ("--iterations", "0"),
        ("--iterations", "18446744073709551615"),
    ] {
        let mut args = vec![
            "ik",
            &limits,
            &clip,
            "-o",
            out_s,
            "--chain",
            "LeftArm..LeftHand",
        ];
        if option != "--target" {
            args.extend(["--target", "1,1,1@0-3"]);
        }
        args.extend([option, value]);
        let run = jointlimits(&args);
        assert_eq!(
            run.status.code(),
            Some(2),
            "{option} {value}: {}",
            stderr(&run)
        );
        assert!(
            stderr(&run).contains(&format!("for '{option}")),
            "{option} {value}: {}",
            stderr(&run)
        );
        assert!(!out.exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let Some(clip) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("same-file");
    let copy = dir.join("clip.bvh");
    std::fs::copy(&clip, &copy).unwrap();
    let copy_s = copy.to_str().unwrap();
    let limits = fit(&dir, copy_s);
    let before = (
        std::fs::read(&copy).unwrap(),
        std::fs::read(&limits).unwrap(),
    );
    for args in [
        vec!["fit", copy_s, "-o", copy_s],
        vec!["apply", &limits, copy_s, "-o", copy_s],
        vec!["apply", &limits, copy_s, "-o", &limits],
        vec![
            "ik",
            &limits,
            copy_s,
            "-o",
            copy_s,
            "--chain",
            "LeftArm..LeftHand",
            "--target",
            "1,1,1",
        ],
    ] {
        let run = jointlimits(&args);
        assert_eq!(run.status.code(), Some(2), "{args:?}");
        assert!(stderr(&run).contains("over the input"), "{}", stderr(&run));
    }
    let after = (
        std::fs::read(&copy).unwrap(),
        std::fs::read(&limits).unwrap(),
    );
    assert!(before == after, "an input was changed");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `export-images` and `plot` write many files into a folder, each through any link already
/// there: a link in the folder to one of the command's inputs would have the input replaced.
#[test]
fn a_folder_holding_a_link_to_an_input_is_refused() {
    let Some(clip) = fixture("cmu_mb2/12_01_walk.bvh") else {
        return;
    };
    let dir = scratch("folder-link");
    let limits = dir.join("tables.json");
    let limits_s = limits.to_str().unwrap();
    let fit = jointlimits(&[
        "fit",
        &clip,
        "-o",
        limits_s,
        "--shape",
        "table",
        "--resolution",
        "16",
    ]);
    assert!(fit.status.success(), "{}", stderr(&fit));
    let before = std::fs::read(&limits).unwrap();
    for (args, folder, link) in [
        (
            vec!["export-images", limits_s, "-o"],
            "images",
            "LeftArm.allowed.png",
        ),
        (
            vec!["plot", limits_s, "--joint", "LeftArm", "--out"],
            "pictures",
            "overview.png",
        ),
    ] {
        let folder = dir.join(folder);
        std::fs::create_dir_all(&folder).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&limits, folder.join(link)).unwrap();
        #[cfg(not(unix))]
        std::fs::hard_link(&limits, folder.join(link)).unwrap();
        let mut args = args.clone();
        args.push(folder.to_str().unwrap());
        let run = jointlimits(&args);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {}", stderr(&run));
        assert!(stderr(&run).contains("over the input"), "{}", stderr(&run));
        assert_eq!(
            std::fs::read(&limits).unwrap(),
            before,
            "{args:?} changed the input"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A three-joint clip with `offset` as the last joint's offset and `frames` frames.
fn small_clip(offset: &str, frames: usize) -> String {
    let mut text = format!(
        "HIERARCHY\nROOT Hips\n{{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition \
         Zrotation Xrotation Yrotation\n JOINT Spine\n {{\n  OFFSET 0 10 0\n  CHANNELS 3 \
         Zrotation Xrotation Yrotation\n  JOINT Arm\n  {{\n   OFFSET {offset}\n   CHANNELS 3 \
         Xrotation Zrotation Yrotation\n   End Site\n   {{\n    OFFSET 0 5 0\n   }}\n  }}\n \
         }}\n}}\nMOTION\nFrames: {frames}\nFrame Time: 0.0083333\n"
    );
    for f in 0..frames {
        let a = f as f32;
        text.push_str(&format!(
            "0 90 0 {} {} 0 {} {} 0 {} {} 0\n",
            a,
            a * 0.5,
            -a,
            a * 0.3,
            a * 0.7,
            -a * 0.2
        ));
    }
    text
}

/// A skeleton a limits file cannot record (an offset beyond ±1e9) is refused by `fit` before it
/// writes anything, naming the clip and the joint: the file it wrote had been refused by every
/// later command. A clip of no frames shows no channel ranges rather than invented zeros.
#[test]
fn fit_refuses_a_skeleton_no_limits_file_can_record_and_inspect_reads_no_frames() {
    let dir = scratch("careless-skeletons");
    let huge = dir.join("huge.bvh");
    std::fs::write(&huge, small_clip("1e12 -5e11 3", 50)).unwrap();
    let out = dir.join("never.json");
    let output = jointlimits(&["fit", huge.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("huge.bvh") && message.contains("\"Arm\"") && message.contains("1e9"),
        "{message}"
    );
    assert!(!out.exists());

    let empty = dir.join("empty.bvh");
    std::fs::write(&empty, small_clip("0 5 0", 0)).unwrap();
    let output = jointlimits(&["inspect", empty.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(
        text.contains("0 frames")
            && text.contains("[       -,        -]")
            && !text.contains("0.00]"),
        "{text}"
    );
}
