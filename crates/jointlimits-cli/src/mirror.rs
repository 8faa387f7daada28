//! `jointlimits mirror`: the other side's limits made from one side's, reflected across the
//! body's sagittal plane.

use anyhow::{Context, Result, bail};
use jointlimits::mirror_limits::{Side, mirror_skeleton_limits};
use jointlimits_io::{read_bvh_file, write_limits_file};
use std::path::Path;

use crate::inputs;

/// How `mirror` takes its arguments, for hints.
const USAGE: &str = "jointlimits mirror LIMITS.json -o OUT.json [--from left|right] [--skeleton CLIP.bvh] [--pair LEFT=RIGHT]...";

/// Parses `left` or `right`.
pub fn parse_side(text: &str) -> Result<Side, String> {
    match text {
        "left" => Ok(Side::Left),
        "right" => Ok(Side::Right),
        _ => Err(format!("expected left or right, found {text:?}")),
    }
}

/// Parses a pair named by hand, `LEFT=RIGHT`, split at the first `=`; a joint name holding `=`
/// is split where the skeleton's names say ([`resolve_pair_names`]).
pub fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((left, right)) if !left.is_empty() && !right.is_empty() => {
            Ok((left.to_string(), right.to_string()))
        }
        _ => Err(format!(
            "expected LEFT=RIGHT (two joint names), found {text:?}"
        )),
    }
}

/// The pairs named by hand as joints of `skeleton`: each `LEFT=RIGHT` split at the one `=` that
/// leaves a joint name on both sides (names may hold `=`). Refuses a pair naming a joint the
/// skeleton lacks, with the nearest name when it looks like a typo (the library's own check
/// says only that the joint is missing), and one that splits into joints more than one way.
pub fn resolve_pair_names(
    skeleton: &jointlimits::Skeleton,
    pairs: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    let names: Vec<&str> = skeleton.joints().iter().map(|j| j.name.as_str()).collect();
    let mut resolved = Vec::with_capacity(pairs.len());
    for (left, right) in pairs {
        let text = format!("{left}={right}");
        let splits: Vec<(&str, &str)> = text
            .match_indices('=')
            .map(|(at, _)| (&text[..at], &text[at + 1..]))
            .filter(|(l, r)| skeleton.find(l).is_some() && skeleton.find(r).is_some())
            .collect();
        match splits.as_slice() {
            [(l, r)] => resolved.push((l.to_string(), r.to_string())),
            [] => {
                // Name the side that is not a joint, as split at the first `=` (one is not, or
                // that split would have been found).
                let missing = if skeleton.find(left).is_none() {
                    left
                } else {
                    right
                };
                bail!(
                    "--pair {text}: the skeleton has no joint {missing:?}{}",
                    crate::suggest::did_you_mean(missing, &names)
                );
            }
            several => bail!(
                "--pair {text}: splits into two joints in {} ways ({}); rename the joints",
                several.len(),
                several
                    .iter()
                    .map(|(l, r)| format!("{l:?} and {r:?}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
    Ok(resolved)
}

/// What `jointlimits mirror` was asked to do.
pub struct MirrorRequest<'a> {
    /// The limits file.
    pub limits: &'a Path,
    /// The limits file to write.
    pub out: &'a Path,
    /// The side whose limits are copied.
    pub from: Side,
    /// A clip of the skeleton, for limits files that record none.
    pub skeleton_clip: Option<&'a Path>,
    /// Left/right pairs named by hand.
    pub pairs: &'a [(String, String)],
}

/// Runs `jointlimits mirror`: reads the limits, finds the partners and the plane in the
/// skeleton recorded with them (or in the clip's), and writes the mirrored limits.
pub fn run(request: &MirrorRequest) -> Result<()> {
    let &MirrorRequest {
        limits: limits_path,
        out,
        from,
        skeleton_clip,
        pairs,
    } = request;
    let limits = inputs::read_limits(limits_path, USAGE)?;
    let mut read = vec![limits_path];
    read.extend(skeleton_clip);
    inputs::ensure_output_is_not_an_input(out, &read)?;
    let skeleton = match (skeleton_clip, &limits.skeleton) {
        (Some(clip), Some(_)) => {
            let skeleton = read_bvh_file(clip)?.skeleton;
            let differences = limits.skeleton_differences(&skeleton);
            if let Some(first) = differences.first() {
                bail!(
                    "{} records another skeleton than {}: {first} ({} difference(s)); leave out --skeleton to use the recorded one",
                    limits_path.display(),
                    clip.display(),
                    differences.len()
                );
            }
            skeleton
        }
        (Some(clip), None) => read_bvh_file(clip)?.skeleton,
        (None, Some(record)) => record
            .to_skeleton()
            .with_context(|| format!("{}: the recorded skeleton", limits_path.display()))?,
        (None, None) => bail!(
            "{} records no skeleton: name a clip of it with --skeleton CLIP.bvh",
            limits_path.display()
        ),
    };
    let pairs = &resolve_pair_names(&skeleton, pairs)?;
    // Every limited joint must be a joint of the skeleton, as for `apply` and `check`.
    limits
        .per_joint(&skeleton)
        .with_context(|| limits_path.display().to_string())?;
    let (mirrored, pairs) = mirror_skeleton_limits(&limits, &skeleton, from, pairs)
        .with_context(|| limits_path.display().to_string())?;
    if pairs.is_empty() {
        bail!(
            "{}: no joint of the {} side has limits to mirror",
            limits_path.display(),
            if from == Side::Left { "left" } else { "right" }
        );
    }
    write_limits_file(out, &mirrored)?;
    println!(
        "mirrored {} joints ({}); wrote {}",
        pairs.len(),
        pairs
            .iter()
            .map(|(a, b)| format!("{a} → {b}"))
            .collect::<Vec<_>>()
            .join(", "),
        out.display()
    );
    Ok(())
}
