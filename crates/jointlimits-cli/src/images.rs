//! `jointlimits export-images` and `import-images`: lookup tables as grayscale PNG images to
//! paint in any image editor (layout: `jointlimits_io::table_images`).

use anyhow::{Context, Result, bail};
use jointlimits::table::Channel;
use jointlimits::{LimitRegion, RotationLimit, SkeletonLimits};
use jointlimits_io::table_images::{export_table_images, image_file_name, import_table_images};
use jointlimits_io::write_limits_file;
use std::path::Path;

use crate::inputs;

/// How `export-images` takes its arguments, for hints.
const EXPORT_USAGE: &str = "jointlimits export-images LIMITS.json --out DIR";
/// How `import-images` takes its arguments, for hints.
const IMPORT_USAGE: &str = "jointlimits import-images LIMITS.json DIR -o OUT.json";

/// Runs `jointlimits export-images`.
pub fn export(limits_path: &Path, out: &Path, joints: &[String]) -> Result<()> {
    let limits = inputs::read_limits(limits_path, EXPORT_USAGE)?;
    let chosen = inputs::chosen_joints(&limits, joints)?;
    let tables: Vec<usize> = chosen
        .iter()
        .copied()
        .filter(|&i| matches!(limits.joints[i].region, LimitRegion::Table(_)))
        .collect();
    if let Some(&other) = chosen.iter().find(|i| !tables.contains(i))
        && !joints.is_empty()
    {
        let limit = &limits.joints[other];
        bail!(
            "joint {:?} holds no table (its limit: {}): bake it into one first (jointlimits bake {} -o tables.json)",
            limit.joint,
            limit.region.label(),
            limits_path.display()
        );
    }
    if tables.is_empty() {
        bail!(
            "{} holds no tables: bake its limits into tables first (jointlimits bake {} -o tables.json)",
            limits_path.display(),
            limits_path.display()
        );
    }
    if out.is_file() {
        bail!(
            "{} is a file: export-images writes five images per joint into a folder ({EXPORT_USAGE})",
            out.display()
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    inputs::ensure_folder_holds_no_input(out, &[limits_path])?;
    for &index in &tables {
        let limit = &limits.joints[index];
        let LimitRegion::Table(table) = &limit.region else {
            unreachable!("filtered to tables")
        };
        export_table_images(table, &limit.joint, out)?;
        let n = table.resolution() + 1;
        println!(
            "{:<16} {n}×{n} pixels: {}",
            limit.joint,
            image_file_name(&limit.joint, Channel::Allowed).replace(".allowed.png", ".*.png")
        );
    }
    println!(
        "wrote {} table(s) as 16-bit gray PNGs into {}: allowed (white allowed, mid-gray the boundary), twist_min and twist_max (black −360°, white +360°), stress (0 to 1), break_margin (0 to 180°); the centre pixel is the bone along its axis, the corners the bone pointing back",
        tables.len(),
        out.display()
    );
    Ok(())
}

/// Runs `jointlimits import-images`.
pub fn import(limits_path: &Path, dir: &Path, out: &Path, joints: &[String]) -> Result<()> {
    let mut limits = inputs::read_limits(limits_path, IMPORT_USAGE)?;
    inputs::ensure_output_is_not_an_input(out, &[limits_path])?;
    if !dir.is_dir() {
        if dir
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
            && out.is_dir()
        {
            bail!(
                "{} is a limits file and {} a folder: the folder of images comes before the output ({IMPORT_USAGE})",
                dir.display(),
                out.display()
            );
        }
        bail!(
            "{} is not a folder of table images ({IMPORT_USAGE})",
            dir.display()
        );
    }
    let chosen = inputs::chosen_joints(&limits, joints)?;
    let axes = crate::bones::bone_axes(&limits, None);
    let mut imported = 0;
    let mut images_read = Vec::new();
    for index in chosen {
        let joint = limits.joints[index].joint.clone();
        let first = dir.join(image_file_name(&joint, Channel::Allowed));
        if !first.exists() {
            // The joint's other images, painted and then left behind, would be lost in silence.
            let others: Vec<String> = Channel::ALL
                .into_iter()
                .map(|channel| image_file_name(&joint, channel))
                .filter(|name| dir.join(name).exists())
                .collect();
            if !joints.is_empty() || !others.is_empty() {
                let found = if others.is_empty() {
                    String::new()
                } else {
                    format!(" (found {})", others.join(", "))
                };
                bail!(
                    "no table for joint {joint:?}: {} is missing{found}; every channel's image is needed",
                    first.display()
                );
            }
            continue;
        }
        let axis = match &limits.joints[index].region {
            LimitRegion::Table(table) => table.twist_axis,
            other => {
                // Images do not record the axis they were painted about: say which one is used.
                let source = if other.bone_axis().is_some() {
                    "its limit's own bone axis".to_string()
                } else if crate::bones::recorded_children_direction(&limits, &joint).is_some() {
                    "the direction to its children in the recorded skeleton".to_string()
                } else {
                    "+Y, as the file records no child of it".to_string()
                };
                eprintln!(
                    "warning: joint {joint:?} holds no table (its limit: {}): its images are read as a table about ({:.3}, {:.3}, {:.3}) ({source}); if they were painted about another axis, bake the limits into tables first (jointlimits bake {} -o tables.json) and import onto that file",
                    other.label(),
                    axes[index].x,
                    axes[index].y,
                    axes[index].z,
                    limits_path.display()
                );
                axes[index]
            }
        };
        let table = import_table_images(dir, &joint, axis)?;
        images_read.extend(Channel::ALL.map(|c| dir.join(image_file_name(&joint, c))));
        for warning in &table.warnings {
            eprintln!("warning: {warning}");
        }
        let n = table.table.resolution();
        println!("{joint:<16} {n}×{n} cells");
        limits.joints[index].region = LimitRegion::Table(table.table);
        imported += 1;
    }
    if imported == 0 {
        bail!(
            "{} holds no table images of these limits' joints (expected names like {})",
            dir.display(),
            image_file_name(&limits.joints[0].joint, Channel::Allowed)
        );
    }
    // With --joint, the other joints' images are left out on purpose: only strays are named.
    warn_of_images_not_read(&limits, dir, &images_read, !joints.is_empty());
    limits.fitted_with = None;
    limits.fitted_joints.clear();
    let images_read: Vec<&Path> = images_read.iter().map(|p| p.as_path()).collect();
    inputs::ensure_output_is_not_an_input(out, &images_read)?;
    write_limits_file(out, &limits)?;
    println!("imported {imported} table(s); wrote {}", out.display());
    Ok(())
}

/// Warns of each PNG in `dir` that the import did not read (a misspelled joint or channel name
/// would otherwise be dropped silently), suggesting the image name it may have meant; with
/// `only_strays`, of those only that are named for no joint of the limits.
fn warn_of_images_not_read(
    limits: &SkeletonLimits,
    dir: &Path,
    read: &[std::path::PathBuf],
    only_strays: bool,
) {
    let expected: Vec<String> = limits
        .joints
        .iter()
        .flat_map(|limit| Channel::ALL.map(|channel| image_file_name(&limit.joint, channel)))
        .collect();
    let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut ignored: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.to_lowercase().ends_with(".png"))
        .filter(|name| !read.iter().any(|p| p.file_name() == Some(name.as_ref())))
        .filter(|name| !only_strays || !expected.contains(&name.as_str()))
        .collect();
    ignored.sort();
    for name in ignored {
        eprintln!(
            "warning: {} was not read: it is not named JOINT.CHANNEL.png for a joint of these limits (channels: allowed, twist_min, twist_max, stress, break_margin){}",
            dir.join(&name).display(),
            crate::suggest::did_you_mean(&name, &expected)
        );
    }
}
