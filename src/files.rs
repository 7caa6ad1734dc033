//! Files mnemo writes: always atomically, so a reader (or a crash) sees the
//! old contents or the new ones, never a mix.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary files of threads writing at the same time.
static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` so that readers see either the old file or the
/// complete new one: a temporary file in the same directory, renamed over
/// the target.
///
/// The file is not synced: a run writes thousands of tests, and a sync per
/// file made the kernel a sixth of a run's time. What a run wrote is made
/// durable once, by [`sync_written`] at its end (and at checkpoints).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".to_string());
    let tmp = dir.join(format!(
        ".{name}.tmp.{}.{}",
        std::process::id(),
        TEMP_COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        drop(f);
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Makes durable everything written (atomically) under the directories
/// `dirs`, renames included. One call at the end of a run replaces a sync
/// per file: on Linux one `syncfs` per file system the directories are on,
/// elsewhere a sync of each file directly inside and of the directory.
/// Directories that do not exist are passed over.
pub fn sync_written(dirs: &[&Path]) -> std::io::Result<()> {
    let mut first_error = None;
    for dir in dirs {
        let Ok(d) = fs::File::open(dir) else {
            continue;
        };
        if let Err(e) = sync_directory(dir, &d) {
            first_error.get_or_insert(e);
        }
    }
    first_error.map_or(Ok(()), Err)
}

#[cfg(target_os = "linux")]
fn sync_directory(_: &Path, d: &fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: `d` is an open descriptor for the duration of the call.
    if unsafe { libc::syncfs(d.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn sync_directory(dir: &Path, d: &fs::File) -> std::io::Result<()> {
    for entry in fs::read_dir(dir)?.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_file()) {
            fs::File::open(entry.path())?.sync_all()?;
        }
    }
    // Not every platform can sync a directory; the renames are then as
    // durable as the platform makes them.
    let _ = d.sync_all();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_the_file_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.json");
        write_atomic(&p, b"one").expect("write");
        write_atomic(&p, b"two").expect("write");
        assert_eq!(fs::read(&p).expect("read"), b"two");
        assert_eq!(fs::read_dir(dir.path()).expect("dir").count(), 1);
    }

    #[test]
    fn syncing_what_was_written_passes_over_missing_directories() {
        let dir = tempfile::tempdir().expect("tempdir");
        write_atomic(&dir.path().join("a"), b"one").expect("write");
        let missing = dir.path().join("missing");
        sync_written(&[dir.path(), &missing]).expect("sync");
        assert_eq!(fs::read(dir.path().join("a")).expect("read"), b"one");
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(write_atomic(&dir.path().join("no/such/dir/f"), b"x").is_err());
    }
}
