//! What spares a store file SQLite's integrity check when it is opened
//! again: a note (`FILE-checked`), written when a run has finished writing
//! to the file, of the state mnemo left it in.
//!
//! The check reads every page, so its cost grows with the store: a tenth
//! of a second for 650,000 answers (56 MB), paid by every run, most of which
//! ask the store a few dozen questions. A file is checked once; after that,
//! each process that finishes with it records the file's and its journal's device,
//! inode, length and change time, and the next one to open it skips the
//! check when all of these are still the same. Anything else that writes to
//! the file, renames another over it or copies one into it changes its
//! change time (which, unlike the modification time, no tool can set back),
//! and the file is checked again.
//!
//! Change times advance in clock ticks, not nanoseconds: a write in the
//! tick the note was written in could leave the time as noted. A note is
//! therefore trusted only when it is itself younger than the files it
//! describes by at least a tick, and closing waits (a few milliseconds at
//! most) for that to be so.

use crate::files::with_suffix;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// First line of a note: another one is some other program's file.
const HEADER: &str = "mnemo store checked 1";

/// The note beside the store at `path`.
fn note_path(path: &Path) -> PathBuf {
    with_suffix(path, "-checked")
}

/// Whether the store at `path` is in the state the last process to finish
/// with it left it in, as its note says (`false` where there is no note, or no
/// trustworthy one).
pub(super) fn unchanged_since_noted(path: &Path) -> bool {
    let note = note_path(path);
    let (Ok(noted), Ok(note_meta), Some(now)) = (
        fs::read_to_string(&note),
        fs::metadata(&note),
        State::of(path),
    ) else {
        return false;
    };
    noted == now.text() && ctime(&note_meta) > now.newest_change
}

/// Notes the state of the store at `path` once everything is written to it:
/// at the end of a run (which leaves the process without closing the file),
/// or after its connection closed (a closing connection may fold the
/// journal into the file, so not before). Failing to write the note only
/// costs the next run the check.
pub(super) fn record(path: &Path) {
    let note = note_path(path);
    for _ in 0..20 {
        let Some(now) = State::of(path) else {
            let _ = fs::remove_file(&note);
            return;
        };
        if crate::files::write_atomic(&note, now.text().as_bytes()).is_err() {
            return;
        }
        match fs::metadata(&note) {
            Ok(m) if ctime(&m) > now.newest_change => return,
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
            Err(_) => return,
        }
    }
}

/// Removes the note of a store found damaged, or moved aside: a file in
/// its place is checked when next opened.
pub(super) fn forget(path: &Path) {
    let _ = fs::remove_file(note_path(path));
}

/// The identity and size of a store file and of its journal.
struct State {
    file: String,
    journal: String,
    /// The later of the two change times, in nanoseconds.
    newest_change: i128,
}

impl State {
    /// `None` where the store file itself cannot be read.
    fn of(path: &Path) -> Option<State> {
        let file = fs::metadata(path).ok()?;
        let journal = fs::metadata(with_suffix(path, "-wal")).ok();
        let describe = |m: &fs::Metadata| {
            format!(
                "{}:{} {} bytes, changed {}",
                m.dev(),
                m.ino(),
                m.len(),
                ctime(m)
            )
        };
        Some(State {
            file: describe(&file),
            journal: journal
                .as_ref()
                .map_or_else(|| "none".to_string(), describe),
            newest_change: ctime(&file).max(journal.as_ref().map_or(i128::MIN, ctime)),
        })
    }

    fn text(&self) -> String {
        format!("{HEADER}\nfile {}\njournal {}\n", self.file, self.journal)
    }
}

/// A file's change time in nanoseconds.
fn ctime(m: &fs::Metadata) -> i128 {
    i128::from(m.ctime()) * 1_000_000_000 + i128::from(m.ctime_nsec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_holds_until_the_file_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        fs::write(&path, b"pages").unwrap();
        assert!(!unchanged_since_noted(&path), "no note yet");
        record(&path);
        assert!(unchanged_since_noted(&path));
        // Same length, same inode, written at once: only the change time
        // tells.
        fs::write(&path, b"PAGES").unwrap();
        assert!(!unchanged_since_noted(&path));
        record(&path);
        assert!(unchanged_since_noted(&path));
        // A journal appearing is a change too.
        fs::write(with_suffix(&path, "-wal"), b"frames").unwrap();
        assert!(!unchanged_since_noted(&path));
        record(&path);
        assert!(unchanged_since_noted(&path));
        forget(&path);
        assert!(!unchanged_since_noted(&path));
    }

    #[test]
    fn a_file_put_in_the_place_of_a_noted_one_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        fs::write(&path, b"pages").unwrap();
        record(&path);
        let other = dir.path().join("other");
        fs::write(&other, b"pages").unwrap();
        fs::rename(&other, &path).unwrap();
        assert!(!unchanged_since_noted(&path));
    }

    #[test]
    fn a_note_of_another_file_or_program_is_not_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        fs::write(&path, b"pages").unwrap();
        fs::write(note_path(&path), "anything").unwrap();
        assert!(!unchanged_since_noted(&path));
    }
}
