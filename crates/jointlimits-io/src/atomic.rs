//! Safe file replacement: write to a temporary file beside the target, flush it to disk, then
//! rename it over the target, so the target always holds either its old content or the complete
//! new content.
//!
//! What may be replaced:
//! - a missing file or a regular file (its permissions are kept);
//! - a symbolic link to a regular file: the link is followed, the file it points to is replaced
//!   and the link stays a link;
//! - nothing else: a directory, a device (`/dev/null`), a FIFO, a socket or a link to a missing
//!   file are refused with an error naming the path, because a rename would put a regular file in
//!   their place.
//!
//! Temporary files are named `.NAME.tmp-PID` and are removed on every failure path. A program
//! that wants them removed when it is interrupted too calls [`remove_pending_temporaries`] from its
//! signal handler; a run killed outright (`SIGKILL`) leaves its temporary behind, and the next
//! write of the same file removes it once its process is gone.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Temporary files being written, and whether the process is exiting (after which none may be
/// created). The lock also orders creation and removal against a signal handler's cleanup.
static PENDING: Mutex<Pending> = Mutex::new(Pending {
    paths: Vec::new(),
    exiting: false,
});

struct Pending {
    paths: Vec<PathBuf>,
    exiting: bool,
}

fn pending() -> std::sync::MutexGuard<'static, Pending> {
    PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Writes a file through `fill` so that `path` either keeps its old content or gets the complete
/// new content, never a partial one; see the module documentation for which paths may be
/// replaced. The temporary file is removed if anything fails.
///
/// # Errors
/// An output that may not be replaced, or any I/O error (the message names no path; callers
/// add it).
pub fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let (target, permissions) = replaceable_target(path)?;
    remove_stale_temporaries(&target);
    let temporary = temporary_path(&target);
    let file = create_registered(&temporary)?;
    let result = (|| {
        if let Some(permissions) = permissions {
            file.set_permissions(permissions)?;
        }
        let mut out = BufWriter::new(file);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        let mut pending = pending();
        let renamed = fs::rename(&temporary, &target);
        pending.paths.retain(|p| p != &temporary);
        renamed
    })();
    if result.is_err() {
        let mut pending = pending();
        let _ = fs::remove_file(&temporary);
        pending.paths.retain(|p| p != &temporary);
    }
    result
}

/// Removes every temporary file this process is writing, and refuses to create new ones: for a
/// signal handler, before the process exits. Safe to call from any thread.
pub fn remove_pending_temporaries() {
    let mut pending = pending();
    pending.exiting = true;
    for path in pending.paths.drain(..) {
        let _ = fs::remove_file(path);
    }
}

/// The file to replace for `path` (the path itself, or where its symbolic link points) and the
/// permissions to keep, or an error when `path` is not something a rename may replace.
fn replaceable_target(path: &Path) -> io::Result<(PathBuf, Option<fs::Permissions>)> {
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((path.to_path_buf(), None)),
        Err(e) => return Err(e),
    };
    let (target, metadata) = if metadata.file_type().is_symlink() {
        let target = fs::canonicalize(path).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is a symbolic link to a missing file; refusing to write through it",
            )
        })?;
        let metadata = fs::metadata(&target)?;
        (target, metadata)
    } else {
        (path.to_path_buf(), metadata)
    };
    if metadata.is_file() {
        return Ok((target, Some(metadata.permissions())));
    }
    let what = describe(&metadata.file_type());
    let problem = if target == path {
        format!("it is {what}, not a regular file; refusing to replace it")
    } else {
        format!(
            "it links to {}, which is {what}, not a regular file; refusing to replace it",
            target.display()
        )
    };
    Err(io::Error::new(io::ErrorKind::InvalidInput, problem))
}

/// "a directory", "a character device", … for an error message.
fn describe(file_type: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "a special file"
    }
}

/// Creates `temporary` (replacing a leftover of this very process) and registers it for
/// [`remove_pending_temporaries`], unless the process is exiting.
fn create_registered(temporary: &Path) -> io::Result<File> {
    let mut pending = pending();
    if pending.exiting {
        return Err(io::Error::new(
            io::ErrorKind::Interrupted,
            "the program is exiting",
        ));
    }
    let _ = fs::remove_file(temporary);
    let file = File::options()
        .write(true)
        .create_new(true)
        .open(temporary)?;
    pending.paths.push(temporary.to_path_buf());
    Ok(file)
}

/// `dir/.name.tmp-PID` beside `path`, so the final rename stays on one file system.
fn temporary_path(path: &Path) -> PathBuf {
    path.with_file_name(format!("{}{}", temporary_prefix(path), std::process::id()))
}

/// `.name.tmp-`: what every temporary of `path` starts with.
fn temporary_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".to_string());
    format!(".{name}.tmp-")
}

/// Removes temporaries of `path` left by processes that no longer run (killed outright). Only
/// where running processes can be listed (`/proc`); elsewhere they stay.
fn remove_stale_temporaries(path: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let prefix = temporary_prefix(path);
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let Ok(entries) = fs::read_dir(directory) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(&prefix))
            .and_then(|pid| pid.parse::<u32>().ok())
        else {
            continue;
        };
        let gone = !Path::new(&format!("/proc/{pid}")).exists();
        if gone && entry.file_type().is_ok_and(|t| t.is_file()) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("jl-atomic-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn failed_write_keeps_the_old_file() {
        let dir = scratch("failed");
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

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_and_left_alone() {
        use std::os::unix::fs::FileTypeExt;
        let dir = scratch("special");
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let null = Path::new("/dev/null");
        for (path, what) in [(fifo.as_path(), "a FIFO"), (null, "a character device")] {
            let error = write_atomically(path, |out| out.write_all(b"x")).unwrap_err();
            assert!(error.to_string().contains(what), "{error}");
            let kind = fs::symlink_metadata(path).unwrap().file_type();
            assert!(
                kind.is_fifo() || kind.is_char_device(),
                "{path:?} was replaced"
            );
        }
        let error = write_atomically(&dir, |out| out.write_all(b"x")).unwrap_err();
        assert!(error.to_string().contains("a directory"), "{error}");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1, "no temporary left");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_written_through() {
        let dir = scratch("links");
        let real = dir.join("real.txt");
        fs::write(&real, "old").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomically(&link, |out| out.write_all(b"new")).unwrap();
        assert!(
            fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read_to_string(&real).unwrap(), "new");

        let dangling = dir.join("dangling.txt");
        std::os::unix::fs::symlink(dir.join("missing.txt"), &dangling).unwrap();
        let error = write_atomically(&dangling, |out| out.write_all(b"x")).unwrap_err();
        assert!(error.to_string().contains("missing file"), "{error}");
        assert!(!dir.join("missing.txt").exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("permissions");
        let path = dir.join("script.txt");
        fs::write(&path, "old").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        write_atomically(&path, |out| out.write_all(b"new")).unwrap();
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporaries_of_dead_processes_are_removed() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let dir = scratch("stale");
        let path = dir.join("out.txt");
        // No process has a pid this large (the kernel's limit is 2²²).
        let stale = dir.join(".out.txt.tmp-4294967294");
        let unrelated = dir.join(".other.txt.tmp-4294967294");
        for p in [&stale, &unrelated] {
            fs::write(p, "left behind").unwrap();
        }
        write_atomically(&path, |out| out.write_all(b"new")).unwrap();
        assert!(!stale.exists());
        assert!(
            unrelated.exists(),
            "another file's temporary is not ours to remove"
        );
        fs::remove_dir_all(&dir).unwrap();
    }
}
