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
