//! `jointlimits bake`: turn any limits into lookup tables, and say how far each table strays.

use anyhow::{Context, Result, bail};
use glam::Vec3;
use jointlimits::table::bake::{BakeReport, bake, check_bakeable, disagreement};
use jointlimits::{JointLimit, LimitRegion, RotationLimit};

use jointlimits_io::write_limits_file;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

use crate::inputs;
use crate::progress::Progress;

/// Refuses `limit` when baking it at `resolution` about `axis` would fail: a hinge, or a region
/// that allows no direction of the grid (quick: [`check_bakeable`]).
fn ensure_bakeable(limit: &JointLimit, axis: Vec3, resolution: usize) -> Result<()> {
    match &limit.region {
        LimitRegion::Table(_) => Ok(()),
        // A hinge turns the bone about one axis: its directions lie on an arc (or a point),
        // which has no area on a grid of any resolution.
        LimitRegion::Hinge(_) => bail!(
            "joint {:?} (hinge limit): a hinge points the bone along a single arc, which covers no cell of a table at any resolution; bake only the others (--joint NAME)",
            limit.joint
        ),
        region => {
            check_bakeable(region, axis, resolution).with_context(|| cannot_bake(limit, resolution))
        }
    }
}

/// What a user reads when `limit` cannot be baked at `resolution`.
fn cannot_bake(limit: &JointLimit, resolution: usize) -> String {
    format!(
        "joint {:?} ({} limit) at {n}×{n}: bake finer (--resolution {}) or bake only the others (--joint NAME)",
        limit.joint,
        limit.region.label(),
        (resolution * 4).min(2048),
        n = resolution
    )
}

/// How `bake` takes its arguments, for hints.
const USAGE: &str = "jointlimits bake LIMITS.json -o TABLES.json [--resolution N]";

/// Fewer allowed vertices than this make a region too small to trust at that resolution.
const SMALL_REGION: usize = 16;

/// What to bake.
pub struct BakeRequest<'a> {
    /// The limits file.
    pub limits: &'a Path,
    /// The file to write.
    pub out: &'a Path,
    /// Cells per side.
    pub resolution: usize,
    /// Only these joints (all when empty); the others are copied unchanged.
    pub joints: &'a [String],
    /// Random directions and rotations per joint to measure disagreement on.
    pub samples: usize,
}

/// Runs `jointlimits bake`.
pub fn run(request: &BakeRequest) -> Result<()> {
    let mut limits = inputs::read_limits(request.limits, USAGE)?;
    inputs::ensure_output_is_not_an_input(request.out, &[request.limits])?;
    let chosen = inputs::chosen_joints(&limits, request.joints)?;
    crate::memory::ensure_tables_fit("bake", &vec![request.resolution; chosen.len()])?;
    let axes = crate::bones::bone_axes(&limits, None);
    // A joint that cannot be baked is refused before any other is baked.
    for &index in &chosen {
        ensure_bakeable(&limits.joints[index], axes[index], request.resolution)?;
    }
    let progress = Progress::bar("baking", chosen.len() as u64, "joints");
    let mut rows = Vec::with_capacity(chosen.len());
    let mut warnings = Vec::new();
    for index in chosen {
        let limit = &limits.joints[index];
        progress.say(&limit.joint);
        let started = Instant::now();
        let table = match &limit.region {
            // A table is already one: resampling it keeps its own stress and break margin.
            LimitRegion::Table(table) => table.resampled(request.resolution),
            region => bake(region, axes[index], request.resolution)
                .with_context(|| cannot_bake(limit, request.resolution))?,
        };
        table
            .validate()
            .map_err(|e| anyhow::anyhow!("joint {:?}: the baked table: {e}", limit.joint))?;
        let seconds = started.elapsed().as_secs_f64();
        let report = disagreement(&limit.region, &table, axes[index], request.samples, 1);
        let allowed_vertices = table.grids()[0]
            .values
            .iter()
            .filter(|&&v| v <= 0.0)
            .count();
        if allowed_vertices < SMALL_REGION {
            warnings.push(format!(
                "warning: {}: the allowed directions cover only {allowed_vertices} grid vertices at {n}×{n}; a region that small may lose directions the original allows: bake it finer (--resolution {})",
                limit.joint,
                (request.resolution * 4).min(2048),
                n = request.resolution
            ));
        }
        rows.push((limit.joint.clone(), limit.region.label(), report, seconds));
        limits.joints[index].region = LimitRegion::Table(table);
        progress.step();
    }
    drop(progress);
    for warning in &warnings {
        eprintln!("{warning}");
    }
    // The file no longer holds what a fit made.
    limits.fitted_with = None;
    limits.fitted_joints.clear();
    write_limits_file(request.out, &limits)?;
    let mut out = std::io::stdout().lock();
    print_report(&rows, request.samples, &mut out)?;
    writeln!(out, "wrote {}", request.out.display())?;
    Ok(())
}

/// The share of a joint's random rotations that disagree where no table can follow from which
/// `bake` warns rather than notes.
const BEYOND_WARNING: f64 = 0.01;

/// One line per joint: what it was, and how the table disagrees with it.
fn print_report(
    rows: &[(String, String, BakeReport, f64)],
    samples: usize,
    out: &mut impl Write,
) -> std::io::Result<()> {
    let Some((_, _, first, _)) = rows.first() else {
        return writeln!(out, "no joints to bake");
    };
    writeln!(
        out,
        "baked into {n}×{n} tables (one cell ≈ {cell:.2}°); disagreement with the original on {samples} random bone directions and {samples} random rotations per joint, and the largest distance from a disagreeing sample to the region refusing it:",
        n = first.resolution,
        cell = first.cell_angle.to_degrees(),
    )?;
    writeln!(
        out,
        "{:<16} {:<28} {:>12} {:>16} {:>12} {:>16} {:>8}",
        "joint", "was", "directions", "largest gap", "rotations", "largest gap", "seconds"
    )?;
    for (joint, kind, report, seconds) in rows {
        let gap = |radians: f32| {
            format!(
                "{:.3}° ({:.2} cell)",
                radians.to_degrees(),
                radians / report.cell_angle
            )
        };
        writeln!(
            out,
            "{joint:<16} {kind:<28} {:>12} {:>16} {:>12} {:>16} {seconds:>8.2}",
            report.directions_disagreeing,
            gap(report.largest_direction_gap),
            report.rotations_disagreeing,
            gap(report.largest_rotation_gap),
        )?;
    }
    for (joint, _, report, _) in rows {
        let cells = report.largest_antipode_gap / report.cell_angle;
        if cells > 1.0 {
            writeln!(
                out,
                "warning: {joint}: with the bone within {:.0}° of pointing against its axis, where twist winds twice round, {} of {} rotations disagree, by up to {:.3}° ({cells:.1} cell); a finer table follows closer (--resolution {})",
                jointlimits::table::bake::ANTIPODE_ZONE.to_degrees(),
                report.antipode_disagreeing,
                report.antipode_rotations,
                report.largest_antipode_gap.to_degrees(),
                (report.resolution * 2).min(2048)
            )?;
        }
    }
    for (joint, _, report, _) in rows {
        if report.largest_gap_beyond_a_table > report.cell_angle {
            let share = report.rotations_beyond_a_table as f64 / report.rotations.max(1) as f64;
            // A share this large changes what the joint allows, not just its edge.
            let label = if share >= BEYOND_WARNING {
                "warning"
            } else {
                "note"
            };
            writeln!(
                out,
                "{label}: {joint}: {} of {} random rotations ({:.1}%) disagree (largest gap {:.3}°) where no table can follow the original at any resolution: the original allows two separate runs of twist there, or its run jumps, and a table keeps one; they are left out of the gaps above.",
                report.rotations_beyond_a_table,
                report.rotations,
                100.0 * share,
                report.largest_gap_beyond_a_table.to_degrees(),
            )?;
        }
    }
    let worst = rows
        .iter()
        .map(|(_, _, r, _)| (r.largest_direction_gap.max(r.largest_rotation_gap)) / r.cell_angle)
        .fold(0.0f32, f32::max);
    let beyond: usize = rows
        .iter()
        .map(|(_, _, r, _)| r.rotations_beyond_a_table)
        .sum();
    let tested: usize = rows.iter().map(|(_, _, r, _)| r.rotations).sum();
    let (antipode_disagreeing, antipode_tested, antipode_gap) =
        rows.iter()
            .fold((0, 0, 0.0f32), |(count, tested, gap), (_, _, r, _)| {
                (
                    count + r.antipode_disagreeing,
                    tested + r.antipode_rotations,
                    gap.max(r.largest_antipode_gap / r.cell_angle),
                )
            });
    // The zone near the antipode is reported apart: the gaps above leave it out.
    let antipode = if antipode_disagreeing > 0 {
        format!(
            "; within {:.0}° of the bone pointing against its axis {antipode_disagreeing} of {antipode_tested} rotations disagree, by up to {antipode_gap:.2} cell",
            jointlimits::table::bake::ANTIPODE_ZONE.to_degrees()
        )
    } else {
        String::new()
    };
    if beyond > 0 {
        let largest = rows
            .iter()
            .map(|(_, _, r, _)| r.largest_gap_beyond_a_table)
            .fold(0.0f32, f32::max);
        writeln!(
            out,
            "largest gap over all joints: {worst:.2} cell where a table can follow; elsewhere {beyond} of {tested} rotations ({:.2}%) disagree, by up to {:.3}°{antipode}",
            100.0 * beyond as f64 / tested.max(1) as f64,
            largest.to_degrees()
        )?;
    } else {
        writeln!(
            out,
            "largest gap over all joints: {worst:.2} cell{antipode}"
        )?;
    }
    for (joint, _, report, _) in rows {
        let gap = report
            .largest_direction_gap
            .max(report.largest_rotation_gap)
            / report.cell_angle;
        if gap > 1.0 {
            writeln!(
                out,
                "warning: {joint}: the table strays {gap:.1} cells from the original; bake it finer (--resolution {})",
                (report.resolution * 2).min(2048)
            )?;
        }
    }
    Ok(())
}
