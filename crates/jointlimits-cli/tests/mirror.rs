//! `jointlimits mirror`: one side's limits copied onto the other, and clear refusals.

mod common;

use common::{jointlimits, limits_file, scratch, stderr, succeed};

#[test]
fn mirror_copies_the_left_side_onto_the_right() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("mirror");
    let fitted = dir.join("fitted.json");
    let mirrored = dir.join("mirrored.json");
    let (fitted, mirrored) = (fitted.to_str().unwrap(), mirrored.to_str().unwrap());
    succeed(&[
        "fit",
        clip.to_str().unwrap(),
        "-o",
        fitted,
        "--shape",
        "cone",
    ]);
    let printed = succeed(&["mirror", fitted, "-o", mirrored]);
    assert!(printed.starts_with("mirrored 19 joints"), "{printed}");
    assert!(printed.contains("lShldr → rShldr"), "{printed}");
    let before = jointlimits_io::read_limits_file(fitted.as_ref()).unwrap();
    let after = jointlimits_io::read_limits_file(mirrored.as_ref()).unwrap();
    let find = |limits: &jointlimits::SkeletonLimits, name: &str| {
        limits
            .joints
            .iter()
            .find(|l| l.joint == name)
            .cloned()
            .unwrap()
    };
    // The left side and the middle are kept; the right side is the left's reflection.
    assert_eq!(find(&before, "lShldr"), find(&after, "lShldr"));
    assert_eq!(find(&before, "neck"), find(&after, "neck"));
    assert_ne!(find(&before, "rShldr"), find(&after, "rShldr"));
    let (jointlimits::LimitRegion::Cone(left), jointlimits::LimitRegion::Cone(right)) =
        (find(&after, "lShldr").region, find(&after, "rShldr").region)
    else {
        panic!("cones")
    };
    assert_eq!(left.max_swing, right.max_swing);
    // From the right, the other way round.
    let back = dir.join("back.json");
    succeed(&[
        "mirror",
        fitted,
        "-o",
        back.to_str().unwrap(),
        "--from",
        "right",
    ]);
    let back = jointlimits_io::read_limits_file(&back).unwrap();
    assert_eq!(find(&before, "rShldr"), find(&back, "rShldr"));
}

/// A copy of `clip` in `dir` with the joint `from` renamed `to`.
fn renamed_joint(clip: &std::path::Path, dir: &std::path::Path, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(clip).unwrap();
    let (joint, renamed) = (format!("JOINT {from}\n"), format!("JOINT {to}\n"));
    let text = text.replace("\r\n", "\n");
    assert!(text.contains(&joint), "{from} in {}", clip.display());
    let path = dir.join("renamed.bvh");
    std::fs::write(&path, text.replacen(&joint, &renamed, 1)).unwrap();
    path.to_str().unwrap().to_string()
}

#[test]
fn pairs_named_by_hand_mirror_and_pool_joints_the_names_do_not_pair() {
    let Some(clip) = jointlimits_testdata::fixture("cmu_daz/martial_04.bvh") else {
        return;
    };
    let dir = scratch("mirror-pairs");
    // The right shoulder renamed so that no naming habit pairs it with lShldr, with an `=` in
    // its name: `--pair` splits where the skeleton's names say.
    let clip = renamed_joint(&clip, &dir, "rShldr", "Shoulder=Other");
    let fitted = dir.join("fitted.json");
    let fitted = fitted.to_str().unwrap();
    succeed(&["fit", &clip, "-o", fitted, "--shape", "cone"]);
    let mirrored = dir.join("mirrored.json");
    let mirrored = mirrored.to_str().unwrap();
    let printed = succeed(&["mirror", fitted, "-o", mirrored]);
    assert!(!printed.contains("lShldr →"), "{printed}");
    let printed = succeed(&[
        "mirror",
        fitted,
        "-o",
        mirrored,
        "--pair",
        "lShldr=Shoulder=Other",
    ]);
    assert!(printed.contains("lShldr → Shoulder=Other"), "{printed}");
    let after = jointlimits_io::read_limits_file(mirrored.as_ref()).unwrap();
    let cone = |name: &str| match &after
        .joints
        .iter()
        .find(|l| l.joint == name)
        .unwrap()
        .region
    {
        jointlimits::LimitRegion::Cone(cone) => cone.max_swing,
        other => panic!("{other:?}"),
    };
    assert_eq!(cone("lShldr"), cone("Shoulder=Other"));

    // fit --mirror pools the pair named by hand, and says so.
    let pooled = dir.join("pooled.json");
    let printed = succeed(&[
        "fit",
        &clip,
        "-o",
        pooled.to_str().unwrap(),
        "--mirror",
        "--pair",
        "lShldr=Shoulder=Other",
    ]);
    assert!(printed.contains("lShldr/Shoulder=Other"), "{printed}");

    // Unusable pairs are refused, naming the joint; pairs without --mirror too; and coupled
    // limits chosen by a configuration under --mirror (mirrored samples have no parent state).
    let out = dir.join("refused.json");
    let out = out.to_str().unwrap();
    let coupled = dir.join("coupled.toml");
    std::fs::write(
        &coupled,
        "[[joints]]\nmatch = \"l*\"\nshape = \"coupled\"\n",
    )
    .unwrap();
    let coupled = coupled.to_str().unwrap();
    for (args, expected) in [
        (
            vec!["mirror", fitted, "-o", out, "--pair", "lShldr=Nobody"],
            "no joint \"Nobody\"",
        ),
        (
            vec!["mirror", fitted, "-o", out, "--pair", "lShldr"],
            "expected LEFT=RIGHT",
        ),
        (
            vec!["fit", &clip, "-o", out, "--pair", "lShldr=Shoulder=Other"],
            "add --mirror",
        ),
        (
            vec![
                "fit",
                &clip,
                "-o",
                out,
                "--mirror",
                "--pair",
                "lShldr=lShldr",
            ],
            "its own partner",
        ),
        (
            vec!["mirror", fitted, "-o", out, "--pair", "lShldr=hip"],
            "is the root",
        ),
        (
            vec!["mirror", fitted, "-o", out, "--pair", "lShldr=lForeArm"],
            "not mirror images",
        ),
        (
            vec![
                "mirror",
                fitted,
                "-o",
                out,
                "--pair",
                "lShldrr=Shoulder=Other",
            ],
            "did you mean \"lShldr\"",
        ),
        (
            vec!["fit", &clip, "-o", out, "--mirror", "--config", coupled],
            "coupled limits",
        ),
    ] {
        let output = jointlimits(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(message.contains(expected), "{args:?}: {message}");
        assert!(!std::path::Path::new(out).exists(), "{args:?}");
    }
}

#[test]
fn mirror_refuses_what_it_cannot_do() {
    let dir = scratch("mirror-refusals");
    let region = <jointlimits::LimitRegion as jointlimits::RotationLimit>::examples().remove(0);
    let bare = limits_file(&dir, "bare.json", region);
    let bare = bare.to_str().unwrap();
    let out = dir.join("out.json");
    let out = out.to_str().unwrap();
    for (args, expected) in [
        (vec!["mirror", bare, "-o", out], "records no skeleton"),
        (vec!["mirror", bare, "-o", bare], "input"),
        (
            vec!["mirror", bare, "-o", out, "--from", "up"],
            "expected left or right",
        ),
    ] {
        let output = jointlimits(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(message.contains(expected), "{args:?}: {message}");
        assert!(!std::path::Path::new(out).exists());
    }
}

#[test]
fn mirror_refuses_another_skeleton_and_joints_it_lacks() {
    let (Some(daz), Some(other)) = (
        jointlimits_testdata::fixture("cmu_daz/martial_04.bvh"),
        jointlimits_testdata::fixture("cmu_max/131_01.bvh"),
    ) else {
        return;
    };
    let dir = scratch("mirror-skeletons");
    let fitted = dir.join("fitted.json");
    let fitted = fitted.to_str().unwrap();
    succeed(&["fit", daz.to_str().unwrap(), "-o", fitted]);
    let out = dir.join("out.json");
    let out = out.to_str().unwrap();
    let output = jointlimits(&[
        "mirror",
        fitted,
        "-o",
        out,
        "--skeleton",
        other.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("records another skeleton"),
        "{}",
        stderr(&output)
    );
    // The same skeleton given again is fine.
    succeed(&[
        "mirror",
        fitted,
        "-o",
        out,
        "--skeleton",
        daz.to_str().unwrap(),
    ]);
    std::fs::remove_file(out).unwrap();
    // A limited joint the recorded skeleton lacks.
    let renamed = dir.join("renamed.json");
    let text = std::fs::read_to_string(fitted).unwrap().replacen(
        "\"joint\": \"neck\"",
        "\"joint\": \"NoSuchJoint\"",
        1,
    );
    std::fs::write(&renamed, text).unwrap();
    let output = jointlimits(&["mirror", renamed.to_str().unwrap(), "-o", out]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("NoSuchJoint"),
        "{}",
        stderr(&output)
    );
    assert!(!std::path::Path::new(out).exists());
}
