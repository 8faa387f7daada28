//! Reading a command's inputs with the checks a user needs: a limits file and a clip given in the
//! wrong order, and limits made for another skeleton than the clip's.

use crate::suggest::did_you_mean;
use anyhow::{Result, bail};
use jointlimits::{SkeletonDifference, SkeletonLimits};
use jointlimits_io::read_limits_file;
use std::path::Path;

use crate::clips::Clips;

/// How many differing joints an error lists before it says how many more there are.
const LISTED_DIFFERENCES: usize = 8;

/// Reads the limits file at `path`; when it fails because the file is a BVH clip, says that the
/// arguments are in the wrong order and how `usage` expects them.
pub fn read_limits(path: &Path, usage: &str) -> Result<SkeletonLimits> {
    crate::memory::ensure_file_tables_fit(path)?;
    let limits = read_limits_file(path).map_err(|error| {
        if starts_with_word(path, "HIERARCHY") {
            anyhow::anyhow!(
                "{} is a BVH clip, not a limits file: the limits file comes first ({usage})",
                path.display()
            )
        } else {
            anyhow::Error::from(error)
        }
    })?;
    if limits.joints.is_empty() {
        eprintln!(
            "warning: {} holds no joint limits: every rotation passes",
            path.display()
        );
    }
    Ok(limits)
}

/// Reads the clips at `paths`; when one fails because it is a limits file, says that the
/// arguments are in the wrong order and how `usage` expects them.
pub fn read_clips(paths: &[std::path::PathBuf], usage: &str) -> Result<Clips> {
    Clips::read(paths).map_err(
        |error| match paths.iter().find(|p| starts_with_word(p, "{")) {
            Some(path) if usage.contains("LIMITS") => anyhow::anyhow!(
                "{} is a limits file, not a BVH clip: the limits file comes first ({usage})",
                path.display()
            ),
            Some(path) => anyhow::anyhow!(
                "{} is a limits file, not a BVH clip: this command fits limits itself and takes clips ({usage})",
                path.display()
            ),
            None => error,
        },
    )
}

/// Refuses to write `out` when it is one of the command's `inputs` (the same file, by any path).
pub fn ensure_output_is_not_an_input(out: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(written) = std::fs::metadata(out) else {
        return Ok(());
    };
    for input in inputs {
        if std::fs::metadata(input).is_ok_and(|read| same_file(&written, &read)) {
            bail!(
                "refusing to write {} over the input {}: give another output",
                out.display(),
                input.display()
            );
        }
    }
    Ok(())
}

/// Refuses to write into the folder `dir` when one of its entries is one of the command's
/// `inputs` (the same file, by any path): writing a picture through a link in the folder to an
/// input would replace the input. Commands that write many files into a folder check this
/// before writing any.
pub fn ensure_folder_holds_no_input(dir: &Path, inputs: &[&Path]) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        ensure_output_is_not_an_input(&entry.path(), inputs)?;
    }
    Ok(())
}

/// Whether `a` and `b` are one file, or two files with the same bytes (a copy).
pub fn same_or_copy(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(first), Ok(second)) => {
            same_file(&first, &second)
                || (first.len() == second.len()
                    && matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y))
        }
        _ => false,
    }
}

/// Whether two metadata describe one file.
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        a.len() == b.len() && a.modified().ok() == b.modified().ok()
    }
}

/// Refuses limits made for another skeleton than each clip's (unless `allow`), naming the joints
/// that differ. Limits that record no skeleton are taken as they are. When allowed, limits of
/// joints a clip lacks are dropped (with the warning), so the rest apply.
pub fn ensure_same_skeleton(
    mut limits: SkeletonLimits,
    limits_path: &Path,
    clips: &Clips,
    allow: bool,
) -> Result<SkeletonLimits> {
    for (path, file) in clips.paths.iter().zip(&clips.files) {
        let differences = limits.skeleton_differences(&file.skeleton_as_written());
        if differences.is_empty() {
            continue;
        }
        let listed = describe(&differences, file);
        if allow {
            eprintln!(
                "warning: {} was made for another skeleton than {}'s ({listed}); going on as asked",
                limits_path.display(),
                path.display()
            );
            limits
                .joints
                .retain(|limit| file.skeleton.find(&limit.joint).is_some());
            if limits.joints.is_empty() {
                eprintln!(
                    "warning: no joint of {} has a limit in {}: nothing will be limited",
                    path.display(),
                    limits_path.display()
                );
            }
        } else {
            bail!(
                "{} was made for another skeleton than {}'s: {listed}. Limits are measured in each \
                 joint's rest frame, so they mean other poses on another skeleton; pass \
                 --allow-other-skeleton to use them anyway",
                limits_path.display(),
                path.display()
            );
        }
    }
    Ok(limits)
}

/// `N joints differ: a; b; … (and M more)`.
/// An offset difference on a joint whose position channels animate its offset says so: the file's
/// `OFFSET` line then differs from the offset that counts.
fn describe(differences: &[SkeletonDifference], file: &jointlimits_io::Bvh) -> String {
    let listed: Vec<String> = differences
        .iter()
        .take(LISTED_DIFFERENCES)
        .map(|difference| {
            let SkeletonDifference::Offset { joint, .. } = difference else {
                return difference.to_string();
            };
            let positions: Vec<String> = file
                .skeleton
                .find(joint)
                .map(|j| &file.channels[j])
                .into_iter()
                .flatten()
                .filter(|c| matches!(c, jointlimits_io::Channel::Position(_)))
                .map(ToString::to_string)
                .collect();
            if positions.is_empty() {
                difference.to_string()
            } else {
                format!(
                    "{difference} (its {} channel(s) animate the offset in their place)",
                    positions.join(" ")
                )
            }
        })
        .collect();
    let more = differences.len().saturating_sub(LISTED_DIFFERENCES);
    let tail = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    format!(
        "{} difference(s): {}{tail}",
        differences.len(),
        listed.join("; ")
    )
}

/// Whether the file's first non-blank text starts with `word` (ASCII case ignored).
fn starts_with_word(path: &Path, word: &str) -> bool {
    use std::io::Read;
    let mut head = [0u8; 256];
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(read) = file.read(&mut head) else {
        return false;
    };
    let text = String::from_utf8_lossy(&head[..read]);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    text.get(..word.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(word))
}

/// Reads the limits file and, when `clip_paths` is not empty, the clips, refusing limits of
/// another skeleton unless `allow_other_skeleton` (see [`ensure_same_skeleton`]).
pub fn read_limits_and_clips(
    limits_path: &Path,
    clip_paths: &[std::path::PathBuf],
    usage: &str,
    allow_other_skeleton: bool,
) -> Result<(SkeletonLimits, Option<Clips>)> {
    let limits = read_limits(limits_path, usage)?;
    if clip_paths.is_empty() {
        return Ok((limits, None));
    }
    let clips = read_clips(clip_paths, usage)?;
    let limits = ensure_same_skeleton(limits, limits_path, &clips, allow_other_skeleton)?;
    Ok((limits, Some(clips)))
}

/// The indices in `limits.joints` of the joints named in `names` (all joints when it is empty);
/// an unknown name is an error with a suggestion.
pub fn chosen_joints(limits: &SkeletonLimits, names: &[String]) -> Result<Vec<usize>> {
    let known: Vec<&str> = limits.joints.iter().map(|l| l.joint.as_str()).collect();
    if names.is_empty() {
        return Ok((0..known.len()).collect());
    }
    names
        .iter()
        .map(|name| match known.iter().position(|n| n == name) {
            Some(index) => Ok(index),
            None => bail!(
                "no joint {name:?} in the limits{}",
                did_you_mean(name, &known)
            ),
        })
        .collect()
}
