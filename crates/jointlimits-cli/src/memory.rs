//! A check, before a long job starts, that the tables it will hold fit in this machine's memory.

use anyhow::{Result, bail};

/// Bytes a table holds per grid vertex while it is fitted, baked or resampled, with the work
/// space of the job: five channels, the packed lookup grid, the boundary hints, and the
/// samples being gathered. Measured as the peak resident size of `fit --shape table` on a
/// 42-joint skeleton at 512² and 1024² (59 bytes per vertex per joint), rounded up.
const BYTES_PER_VERTEX: u64 = 64;

/// The memory `tables` tables of `resolution` cells per side take, bytes.
pub fn tables_bytes(tables: usize, resolution: usize) -> u64 {
    let vertices = (resolution as u64 + 1).pow(2);
    tables as u64 * vertices * BYTES_PER_VERTEX
}

/// The memory the system says is available to a new job (`MemAvailable`), bytes; `None` where
/// it does not say (not Linux, or no `/proc`).
fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Refuses, before any work, a job that would hold `tables` tables of `resolution` cells per
/// side in more memory than is available: it would otherwise run for minutes and then be
/// killed by the system. `what` names the job in the message.
pub fn ensure_tables_fit(what: &str, tables: usize, resolution: usize) -> Result<()> {
    let needed = tables_bytes(tables, resolution);
    let Some(available) = available_bytes() else {
        return Ok(());
    };
    if needed > available {
        let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
        let fitting = (1..=resolution)
            .rev()
            .find(|&r| tables_bytes(tables, r) <= available)
            .unwrap_or(0);
        bail!(
            "{what}: {tables} table(s) of {resolution}×{resolution} cells need about {:.1} GiB of memory and {:.1} GiB is available; use a lower --resolution (at most about {fitting} here) or fewer joints",
            gib(needed),
            gib(available)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_per_joint_at_the_largest_resolution_is_counted_in_gigabytes() {
        // 42 joints at 2048²: about 11 GiB, what a fit was measured to hold.
        let bytes = tables_bytes(42, 2048);
        assert!((10 << 30..12 << 30).contains(&bytes), "{bytes}");
        assert_eq!(tables_bytes(0, 2048), 0);
    }

    #[test]
    fn a_job_beyond_any_memory_is_refused_with_the_resolution_that_fits() {
        if available_bytes().is_none() {
            eprintln!("skipped: this system does not report available memory");
            return;
        }
        let error = ensure_tables_fit("fit", 1 << 20, 2048)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("2048×2048") && error.contains("--resolution"),
            "{error}"
        );
        ensure_tables_fit("fit", 1, 4).unwrap();
    }
}
