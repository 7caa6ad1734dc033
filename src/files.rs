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

/// Moves a file mnemo cannot use out of the way as `PATH.SUFFIX`, or
/// `PATH.SUFFIX.1`, `PATH.SUFFIX.2`, ...: the first name that is free, so an
/// earlier copy kept the same way is never replaced (not even by another
/// process setting a file aside at the same moment). Returns the new name.
pub fn keep_aside(path: &Path, suffix: &str) -> std::io::Result<PathBuf> {
    let mut n = 0u32;
    loop {
        let mut name = path.as_os_str().to_owned();
        name.push(format!(".{suffix}"));
        if n > 0 {
            name.push(format!(".{n}"));
        }
        let to = PathBuf::from(name);
        // A hard link fails where the name is taken, where a rename would
        // replace what is there.
        match fs::hard_link(path, &to) {
            Ok(()) => {
                fs::remove_file(path)?;
                return Ok(to);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => n += 1,
            // File systems without hard links: the same free name, checked
            // first (a race with another process is then possible).
            Err(_) if !to.exists() && path.exists() => {
                fs::rename(path, &to)?;
                return Ok(to);
            }
            Err(e) => return Err(e),
        }
    }
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
    fn files_kept_aside_never_replace_an_earlier_one() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("prog.trie");
        for (i, expect) in ["prog.trie.bad", "prog.trie.bad.1", "prog.trie.bad.2"]
            .iter()
            .enumerate()
        {
            fs::write(&p, format!("copy {i}")).expect("write");
            let kept = keep_aside(&p, "bad").expect("kept");
            assert_eq!(kept, dir.path().join(expect));
            assert!(!p.exists());
        }
        for (i, name) in ["prog.trie.bad", "prog.trie.bad.1", "prog.trie.bad.2"]
            .iter()
            .enumerate()
        {
            let text = fs::read_to_string(dir.path().join(name)).expect("read");
            assert_eq!(text, format!("copy {i}"));
        }
        assert!(keep_aside(&dir.path().join("missing"), "bad").is_err());
    }

    #[test]
    fn a_missing_directory_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(write_atomic(&dir.path().join("no/such/dir/f"), b"x").is_err());
    }
}
