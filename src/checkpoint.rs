//! Checkpoints: while a run goes on, what it found so far and the paths it
//! still has to explore are saved (at its start, every `--checkpoint`
//! seconds, and when a limit or a signal stops it), so that whatever ends
//! it (kill -9, the OOM killer, a power cut) costs at most the work since
//! the last checkpoint: `--resume` goes on from there, and ends as an
//! uninterrupted run would.
//!
//! A checkpoint saves, each file atomically:
//! - the trie, with a `pending` leaf for each path being explored (see
//!   [`Recorder::mark_pending`]): the frontier a resumed run explores. It
//!   is written whole at the first checkpoint and whenever its journal has
//!   grown as large as the trie file; otherwise the nodes that changed are
//!   appended to the journal ([`crate::memo::journal`]), so that a
//!   checkpoint costs what changed since the last one, not the whole trie;
//! - `tests.json`, for the tests written so far, and `stats.json`, marked
//!   `in_progress` (less often when writing them takes more than 2% of the
//!   time: `tests.json` is written whole). The tests themselves need no checkpoint: a resumed run
//!   writes every test again, from the trie and from the paths it explores
//!   again (those ended after the checkpoint among them), numbered afresh.
//!
//! What was written is then synced to disk in the background.

use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::exec::{Executor, State};
use crate::memo::journal::{journal_path, Journal};
use crate::memo::{self, Marks, Recorder, Trie, TrieFileError};
use crate::stats::{CheckpointStats, RunStats};
use crate::testgen::TestWriter;

/// A journal is not worth a whole write of the trie below this size.
const JOURNAL_MIN_BYTES: u64 = 1 << 20;

/// `tests.json` (with `stats.json`, so that the two agree) is written whole
/// at each checkpoint, unless that took more than this share of the time
/// since it was last written (a run of millions of tests, or checkpoints a
/// few milliseconds apart): it is then written less often.
const RESULTS_SHARE: f64 = 0.02;

/// Set (to anything but empty), a run stops itself (SIGSTOP) after each
/// checkpoint, having written `tests.json` and `stats.json` at each: a test
/// looks at every one and kills the run at one, however loaded the machine.
/// Stopping the run from outside at intervals let it run on unobserved
/// whenever the test's own thread was kept waiting; and one slow write on a
/// loaded machine kept the results from being written again before a short
/// run ended.
pub const STOP_AT_CHECKPOINTS_ENV: &str = "MNEMO_STOP_AT_CHECKPOINTS";

/// Saves a run's checkpoints.
pub struct Checkpointer {
    trie_file: PathBuf,
    output_dir: PathBuf,
    /// The journal over the trie file last written whole; `None` until
    /// the trie is written whole (first, or after a failed write).
    journal: Option<Journal>,
    /// Size of the trie file last written whole.
    whole_bytes: u64,
    /// When `tests.json` and `stats.json` were last written, and what that
    /// took.
    results_written: Option<(Instant, Duration)>,
    /// The sync of the last checkpoint's files, if still going on.
    sync: Option<JoinHandle<()>>,
    /// Whether a failure was reported (once is enough).
    warned: bool,
    /// Whether to stop after each checkpoint (see
    /// [`STOP_AT_CHECKPOINTS_ENV`]).
    stop_at_checkpoints: bool,
    pub stats: CheckpointStats,
}

impl Checkpointer {
    /// Checkpoints of the trie `trie_file` and of the results in
    /// `output_dir`. Temporaries of a trie file that a process killed while
    /// writing it left (as big as the trie) are removed.
    pub fn new(trie_file: &Path, output_dir: &Path) -> Checkpointer {
        if let (Some(dir), Some(name)) = (trie_file.parent(), trie_file.file_name()) {
            let name = name.to_string_lossy().into_owned();
            let journal = format!("{name}.journal");
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            let _ = crate::files::remove_dead_temporaries(dir, |n| n == name || n == journal);
        }
        Checkpointer {
            trie_file: trie_file.to_path_buf(),
            output_dir: output_dir.to_path_buf(),
            journal: None,
            whole_bytes: 0,
            results_written: None,
            sync: None,
            warned: false,
            stop_at_checkpoints: std::env::var_os(STOP_AT_CHECKPOINTS_ENV)
                .is_some_and(|v| !v.is_empty()),
            stats: CheckpointStats::default(),
        }
    }

    /// Saves a checkpoint: the trie with the `pending` paths (merged with
    /// `complete_with`'s, as at the end of the run, when set), `tests.json`
    /// and `stats` (marked in progress); `stopping`: a limit or a signal is
    /// ending the run. A file that cannot be written is reported once; the
    /// run goes on.
    #[allow(clippy::too_many_arguments)]
    pub fn save(
        &mut self,
        recorder: &mut Recorder,
        executor: &Executor,
        pending: &mut dyn Iterator<Item = &State>,
        complete_with: Option<&(Trie, Marks)>,
        writer: &TestWriter,
        stopping: bool,
        stats: impl FnOnce(&CheckpointStats) -> RunStats,
    ) {
        let start = Instant::now();
        for state in pending {
            recorder.mark_pending(executor, state);
        }
        let trie = self.save_trie(&mut recorder.trie, complete_with);
        self.warn(trie.map_err(anyhow::Error::from));
        self.stats.count += 1;
        if stopping || self.results_due() {
            let results_start = Instant::now();
            let mut counted = self.stats.clone();
            let so_far = start.elapsed().as_secs_f64();
            counted.time_s += so_far;
            counted.longest_s = counted.longest_s.max(so_far);
            let mut stats = stats(&counted);
            stats.in_progress = true;
            let path = self.output_dir.join("stats.json");
            let written = writer.write_index().and_then(|()| {
                stats
                    .write(&path)
                    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))
            });
            self.warn(written);
            self.results_written = Some((Instant::now(), results_start.elapsed()));
        }
        let took = start.elapsed().as_secs_f64();
        self.stats.time_s += took;
        self.stats.longest_s = self.stats.longest_s.max(took);
        if self.stop_at_checkpoints {
            // SAFETY: raise has no preconditions.
            unsafe { libc::raise(libc::SIGSTOP) };
        }
        self.sync_in_background();
    }

    /// Whether `tests.json` and `stats.json` are to be written now.
    fn results_due(&self) -> bool {
        self.stop_at_checkpoints || results_due(self.results_written, Instant::now())
    }

    /// Writes the trie: its changes appended to the journal, or whole.
    fn save_trie(
        &mut self,
        trie: &mut Trie,
        complete_with: Option<&(Trie, Marks)>,
    ) -> Result<(), TrieFileError> {
        if let Some((old, marks)) = complete_with {
            // The trie saved is a merge, not the run's own arena, which a
            // journal's node numbers would refer to.
            self.stats.whole_tries += 1;
            return memo::file::save(&memo::merge(old, trie, marks), &self.trie_file).map(drop);
        }
        if let Some(journal) = &mut self.journal {
            if journal.bytes() < self.whole_bytes.max(JOURNAL_MIN_BYTES) {
                return journal.append(trie).map_err(|error| {
                    self.journal = None;
                    TrieFileError::Io {
                        doing: "write",
                        path: journal_path(&self.trie_file),
                        error,
                    }
                });
            }
        }
        self.journal = None;
        let (bytes, sum) = memo::file::save_arena(trie, &self.trie_file)?;
        trie.track_changes();
        self.whole_bytes = bytes;
        self.stats.whole_tries += 1;
        let journal = Journal::start(&self.trie_file, &sum).map_err(|error| TrieFileError::Io {
            doing: "write",
            path: journal_path(&self.trie_file),
            error,
        })?;
        self.journal = Some(journal);
        Ok(())
    }

    /// Syncs the output and memo directories on another thread, unless
    /// the last checkpoint's sync is still going on.
    fn sync_in_background(&mut self) {
        if self.sync.as_ref().is_some_and(|s| !s.is_finished()) {
            return;
        }
        let dirs = [
            self.output_dir.clone(),
            self.trie_file
                .parent()
                .map_or_else(|| PathBuf::from("."), Path::to_path_buf),
        ];
        // A sync that fails is retried at the next checkpoint and at the
        // end of the run, which reports it.
        self.sync = std::thread::Builder::new()
            .name("mnemo-checkpoint-sync".into())
            .spawn(move || {
                let _ = crate::files::sync_written(&[&dirs[0], &dirs[1]]);
            })
            .ok();
    }

    fn warn(&mut self, result: anyhow::Result<()>) {
        if let Err(e) = result {
            if !std::mem::replace(&mut self.warned, true) {
                eprintln!(
                    "mnemo: warning: checkpoint: {e:#}; the run goes on, but a run killed now loses more (further failures are not reported)"
                );
            }
        }
    }

    /// Waits for the last sync to end (the run syncs everything once more).
    pub fn finish(&mut self) {
        if let Some(s) = self.sync.take() {
            let _ = s.join();
        }
    }
}

/// Whether results last `written` (when, and what writing them took) are
/// due again at `now`: always, unless writing them took more than
/// [`RESULTS_SHARE`] of the time since (`tests.json` is written whole).
fn results_due(written: Option<(Instant, Duration)>, now: Instant) -> bool {
    written.is_none_or(|(at, took)| {
        took.as_secs_f64() <= RESULTS_SHARE * now.duration_since(at).as_secs_f64()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_written_again_once_writing_them_is_a_small_share_of_the_time() {
        let at = Instant::now();
        let ms = Duration::from_millis;
        assert!(results_due(None, at));
        // Writing took 10 ms: due once 0.5 s have gone by, not before.
        assert!(!results_due(Some((at, ms(10))), at + ms(100)));
        assert!(!results_due(Some((at, ms(10))), at + ms(499)));
        assert!(results_due(Some((at, ms(10))), at + ms(500)));
        // A write that took nothing is due at once.
        assert!(results_due(Some((at, ms(0))), at));
    }

    #[test]
    fn a_run_stopping_at_each_checkpoint_writes_the_results_at_each() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut c = Checkpointer::new(&dir.path().join("p.trie"), dir.path());
        // As if the last write took a second, a moment ago.
        c.results_written = Some((Instant::now(), Duration::from_secs(1)));
        assert!(!c.results_due());
        c.stop_at_checkpoints = true;
        assert!(c.results_due());
    }
}
