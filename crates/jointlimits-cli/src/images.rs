//! `jointlimits export-images` and `import-images`: lookup tables as grayscale PNG images to
//! paint in any image editor (layout: `jointlimits_io::table_images`).

use anyhow::{Context, Result, bail};
use jointlimits::LimitRegion;
use jointlimits::table::Channel;
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
            "joint {:?} is a {}, not a table: bake it into one first (jointlimits bake {} -o tables.json)",
            limit.joint,
            limit.region.kind_name(),
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
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
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
        bail!(
            "{} is not a folder of table images ({IMPORT_USAGE})",
            dir.display()
        );
    }
    let chosen = inputs::chosen_joints(&limits, joints)?;
    let axes = crate::bones::bone_axes(&limits, None);
    let mut imported = 0;
    for index in chosen {
        let joint = limits.joints[index].joint.clone();
        let first = dir.join(image_file_name(&joint, Channel::Allowed));
        if !first.exists() {
            if !joints.is_empty() {
                bail!(
                    "no images for joint {joint:?}: {} is missing",
                    first.display()
                );
            }
            continue;
        }
        let axis = match &limits.joints[index].region {
            LimitRegion::Table(table) => table.twist_axis,
            _ => axes[index],
        };
        let table = import_table_images(dir, &joint, axis)?;
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
    limits.fitted_with = None;
    write_limits_file(out, &limits)?;
    println!("imported {imported} table(s); wrote {}", out.display());
    Ok(())
}
