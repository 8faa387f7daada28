//! Atomic file replacement: write to a temporary file beside the target, flush it to disk, then
//! rename it over the target.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};

/// Writes a file through `fill` so that `path` either keeps its old content or gets the complete
/// new content, never a partial one. The temporary file is removed if `fill` fails.
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let temporary = temporary_path(path);
    let result = (|| {
        let mut out = BufWriter::new(File::create(&temporary)?);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

/// `dir/.name.tmp-PID` beside `path`, so the final rename stays on one file system.
fn temporary_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_string());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn failed_write_keeps_the_old_file() {
        let dir = std::env::temp_dir().join(format!("jl-atomic-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("out.txt");
        fs::write(&path, "old").unwrap();
        let err = write_atomically(&path, |out| {
            out.write_all(b"partial")?;
            Err(io::Error::other("interrupted"))
        });
        assert!(err.is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "temporary removed");
        write_atomically(&path, |out| out.write_all(b"new")).unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "new");
        fs::remove_dir_all(&dir).unwrap();
    }
}
