//! A check, before a long job starts, that the tables it will hold fit in this machine's memory.

use anyhow::{Result, bail};
use jointlimits::table::RESOLUTIONS;

/// Bytes a table holds per grid vertex while it is fitted, baked, resampled or read, with the
/// work space of the job: five channels, the packed lookup grid, the boundary hints, and the
/// samples being gathered or the codes being decoded. Measured as the peak resident size on a
/// 42-joint skeleton at 512² and 1024² (59 bytes per vertex per joint while fitting) and on
/// 30-joint files of 512² and 2048² tables read back by `check` (81 to 89), rounded up.
const BYTES_PER_VERTEX: u64 = 96;

/// The memory tables of the given resolutions take, bytes.
pub fn tables_bytes(resolutions: impl IntoIterator<Item = usize>) -> u64 {
    resolutions
        .into_iter()
        .map(|resolution| (resolution as u64 + 1).pow(2) * BYTES_PER_VERTEX)
        .sum()
}

/// The value of the `/proc` line starting with `key` (the first number after it), if any.
fn proc_number(file: &str, key: &str) -> Option<u64> {
    let text = std::fs::read_to_string(file).ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    line[key.len()..].split_whitespace().next()?.parse().ok()
}

/// The memory this process may still take, bytes: what the system says is available
/// (`MemAvailable`), less where a control group caps the process's memory or a limit caps its
/// address space (`ulimit -v`) below that; `None` where the system does not say (not Linux).
fn available_bytes() -> Option<u64> {
    let mut available = proc_number("/proc/meminfo", "MemAvailable:")? * 1024;
    let cgroup = |name: &str| {
        std::fs::read_to_string(format!("/sys/fs/cgroup/{name}"))
            .ok()?
            .trim()
            .parse::<u64>()
            .ok()
    };
    if let (Some(cap), Some(used)) = (cgroup("memory.max"), cgroup("memory.current")) {
        available = available.min(cap.saturating_sub(used));
    }
    // `Max address space  SOFT  HARD  bytes`: the soft limit, a number or "unlimited".
    if let Some(cap) = proc_number("/proc/self/limits", "Max address space") {
        let mapped = proc_number("/proc/self/status", "VmSize:").unwrap_or(0) * 1024;
        available = available.min(cap.saturating_sub(mapped));
    }
    Some(available)
}

/// Refuses, before any work, a job that would hold tables of `resolutions` in more memory than
/// is available: it would otherwise run for minutes and then be killed by the system, or abort
/// when an allocation fails. `what` names the job in the message. Resolutions no table may have
/// are left to the check that refuses them, which names the joint and the range.
pub fn ensure_tables_fit(what: &str, resolutions: &[usize]) -> Result<()> {
    let resolutions: Vec<usize> = resolutions
        .iter()
        .copied()
        .filter(|resolution| RESOLUTIONS.contains(resolution))
        .collect();
    let resolutions = resolutions.as_slice();
    let needed = tables_bytes(resolutions.iter().copied());
    let Some(available) = available_bytes() else {
        return Ok(());
    };
    if needed > available {
        let gib = |bytes: u64| bytes as f64 / (1u64 << 30) as f64;
        let largest = resolutions.iter().copied().max().unwrap_or(0);
        // The memory grows with the resolution: the largest that fits, by bisection.
        let fits =
            |r: &usize| tables_bytes(resolutions.iter().map(|&own| own.min(*r))) <= available;
        let fitting = (1..=largest).collect::<Vec<_>>().partition_point(fits);
        bail!(
            "{what}: {} table(s) of up to {largest}×{largest} cells need about {:.1} GiB of memory and {:.1} GiB is available; use a lower resolution (at most about {fitting} here) or fewer joints",
            resolutions.len(),
            gib(needed),
            gib(available)
        );
    }
    Ok(())
}

/// Refuses to read the limits file `path` when its tables would not fit in memory (see
/// [`ensure_tables_fit`]); a file that cannot be read or parsed passes, for the reader to
/// report.
pub fn ensure_file_tables_fit(path: &std::path::Path) -> Result<()> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Ok(());
    };
    let Ok(document) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(());
    };
    let Some(joints) = document["joints"].as_array() else {
        return Ok(());
    };
    let resolutions: Vec<usize> = joints
        .iter()
        .map(|joint| &joint["region"])
        .filter(|region| region["space"] == "table")
        .filter_map(|region| region["resolution"].as_u64())
        .map(|resolution| resolution.min(1 << 16) as usize)
        .collect();
    ensure_tables_fit(&format!("reading {}", path.display()), &resolutions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_per_joint_at_the_largest_resolution_is_counted_in_gigabytes() {
        // 42 joints at 2048²: about 16 GiB, a little above what reading such a file back was
        // measured to hold (81 to 89 bytes per vertex).
        let bytes = tables_bytes([2048; 42]);
        assert!((15 << 30..17 << 30).contains(&bytes), "{bytes}");
        assert_eq!(tables_bytes([]), 0);
    }

    #[test]
    fn a_job_beyond_any_memory_is_refused_with_the_resolution_that_fits() {
        if available_bytes().is_none() {
            eprintln!("skipped: this system does not report available memory");
            return;
        }
        let error = ensure_tables_fit("fit", &[2048; 1 << 20])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("2048×2048") && error.contains("lower resolution"),
            "{error}"
        );
        ensure_tables_fit("fit", &[4]).unwrap();
        // Resolutions no table may have are left to the range check, which names the joint.
        ensure_tables_fit("fit", &[70_000, 16]).unwrap();
    }
}
