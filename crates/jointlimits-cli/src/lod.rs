//! `jointlimits lod`: coarser levels of detail of lookup tables, with what each costs in memory
//! and loses in accuracy; optionally writes one level.

use anyhow::{Result, bail};
use jointlimits::LimitRegion;
use jointlimits::table::TableLimit;
use jointlimits::table::bake::level_disagreement;
use jointlimits_io::write_limits_file;
use std::path::Path;

use crate::inputs;

/// How `lod` takes its arguments, for hints.
const USAGE: &str = "jointlimits lod TABLES.json [--resolution N -o OUT.json]";

/// What to measure, and what to write.
pub struct LodRequest<'a> {
    /// The limits file holding tables.
    pub limits: &'a Path,
    /// Only these joints (all tables when empty).
    pub joints: &'a [String],
    /// The coarsest level, cells per side.
    pub coarsest: usize,
    /// Random directions and rotations per level to measure the loss on.
    pub samples: usize,
    /// Write the tables resampled to this resolution into `out`.
    pub write: Option<(usize, &'a Path)>,
}

/// Runs `jointlimits lod`.
pub fn run(request: &LodRequest) -> Result<()> {
    let mut limits = inputs::read_limits(request.limits, USAGE)?;
    let chosen: Vec<usize> = inputs::chosen_joints(&limits, request.joints)?
        .into_iter()
        .filter(|&i| matches!(limits.joints[i].region, LimitRegion::Table(_)))
        .collect();
    if chosen.is_empty() {
        bail!(
            "{} holds no tables among these joints: bake limits into tables first (jointlimits bake)",
            request.limits.display()
        );
    }
    if let Some((resolution, out)) = request.write {
        inputs::ensure_output_is_not_an_input(out, &[request.limits])?;
        crate::memory::ensure_tables_fit("lod", &vec![resolution; chosen.len()])?;
    }
    println!(
        "each level against the joint's table on {n} random bone directions and {n} random rotations: how many disagree, and the largest distance from a disagreeing one to the table refusing it (in cells of that level); apart, with the bone within {zone:.0}° of pointing against its axis (where twist winds twice round), the random rotations that land there and a tenth as many drawn there on purpose",
        n = request.samples,
        zone = jointlimits::table::bake::ANTIPODE_ZONE.to_degrees()
    );
    println!(
        "{:<16} {:>10} {:>10} {:>10} {:>12} {:>10} {:>18} {:>30}",
        "joint",
        "cells",
        "memory",
        "file",
        "directions",
        "rotations",
        "largest gap",
        "near the antipode"
    );
    for &index in &chosen {
        let limit = &limits.joints[index];
        let LimitRegion::Table(table) = &limit.region else {
            unreachable!("filtered to tables")
        };
        print_level(&limit.joint, table, None);
        for level in table.levels_of_detail(request.coarsest) {
            if jointlimits::RotationLimit::validate(&level).is_err() {
                println!(
                    "{:<16} {:>10} allows no direction: coarser levels lose the region",
                    limit.joint,
                    format!("{0}×{0}", level.resolution())
                );
                break;
            }
            let report = level_disagreement(table, &level, request.samples, 1);
            print_level(&limit.joint, &level, Some(&report));
        }
    }
    if let Some((resolution, out)) = request.write {
        for &index in &chosen {
            let LimitRegion::Table(table) = &limits.joints[index].region else {
                unreachable!("filtered to tables")
            };
            if resolution > table.resolution() {
                eprintln!(
                    "warning: joint {:?}: {resolution}×{resolution} is finer than its table ({n}×{n}); the resampled table holds no more detail and takes more memory",
                    limits.joints[index].joint,
                    n = table.resolution()
                );
            }
            let level = table.resampled(resolution);
            jointlimits::RotationLimit::validate(&level).map_err(|e| {
                anyhow::anyhow!(
                    "joint {:?} at {resolution} cells per side: {e}",
                    limits.joints[index].joint
                )
            })?;
            limits.joints[index].region = LimitRegion::Table(level);
        }
        write_limits_file(out, &limits)?;
        println!(
            "wrote {} with the tables at {resolution}×{resolution} cells",
            out.display()
        );
    }
    Ok(())
}

/// One line: a level's size and, for a coarser one, its loss.
fn print_level(
    joint: &str,
    table: &TableLimit,
    report: Option<&jointlimits::table::bake::BakeReport>,
) {
    let file = serde_json::to_string(table).map_or(0, |text| text.len());
    let kib = |bytes: usize| format!("{:.0} KiB", bytes as f64 / 1024.0);
    let gap = |radians: f32, cell: f32| {
        format!("{:.2}° ({:.2} cell)", radians.to_degrees(), radians / cell)
    };
    let (directions, rotations, largest, antipode) = match report {
        None => (
            "(finest)".to_string(),
            String::new(),
            String::new(),
            String::new(),
        ),
        Some(r) => (
            format!("{}", r.directions_disagreeing),
            format!("{}", r.rotations_disagreeing),
            // Over the random samples: those a table cannot follow too.
            gap(
                r.largest_direction_gap
                    .max(r.largest_rotation_gap)
                    .max(r.largest_gap_beyond_a_table),
                r.cell_angle,
            ),
            format!(
                "{} of {}, {}",
                r.antipode_disagreeing,
                r.antipode_rotations,
                gap(r.largest_antipode_gap, r.cell_angle)
            ),
        ),
    };
    println!(
        "{joint:<16} {:>10} {:>10} {:>10} {directions:>12} {rotations:>10} {largest:>18} {antipode:>30}",
        format!("{0}×{0}", table.resolution()),
        kib(table.memory_bytes()),
        kib(file),
    );
}
