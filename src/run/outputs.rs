//! What a run does with each ended path: its test's files, its place in
//! the trie, and the checkpoints.

use parking_lot::Mutex;

use super::report::{Counted, Report};
use super::{RunConfig, TestFiles};
use crate::checkpoint::Checkpointer;
use crate::exec::{EarlyReason, Executor, PathEnd, State, Tally};
use crate::memo::{self, NodeId, Recorder, StoredTest, TestPlace, Trie};
use crate::search::{FinishedPath, PathObserver};
use crate::stats::FirstError;
use crate::stop::StopRequest;
use crate::testgen::{PathFiles, StagedTest, Stager, TestWriter};

/// The first test whose files could not be written (a full disk, a
/// quota). The run stops there, as at a second signal: that path and the
/// pending ones are kept in the trie without tests, and everything
/// written so far is listed, so that `--resume` goes on where it stopped
/// once there is room. Shared by the workers.
pub(super) struct WriteFailure<'s> {
    stop: &'s StopRequest,
    first: Mutex<Option<anyhow::Error>>,
}

impl<'s> WriteFailure<'s> {
    pub(super) fn new(stop: &'s StopRequest) -> Self {
        WriteFailure {
            stop,
            first: Mutex::new(None),
        }
    }

    /// Keeps `error` if it is the first, and stops the run.
    fn note(&self, error: anyhow::Error) {
        self.first.lock().get_or_insert(error);
        self.stop.write_failed();
    }

    /// Asked for every path that gets a test: the stop's flag, not the lock.
    fn failed(&self) -> bool {
        self.stop.has_write_failed()
    }

    /// The first failure, if any, told as the error the run ends in, once
    /// everything else is written.
    pub(super) fn into_error(self, tests: u64) -> Option<anyhow::Error> {
        self.first.into_inner().map(|first| {
            anyhow::anyhow!(
                "{first:#}; the run stopped there: its {tests} tests are listed in tests.json, \
                 and the paths without one are kept in the trie; make room, then run again \
                 with --resume to go on"
            )
        })
    }

    /// `error`, of the end of a run, told after the failed write that
    /// stopped the run, if one did (on the same full disk, most likely).
    pub(super) fn attach(&self, error: anyhow::Error) -> anyhow::Error {
        match self.first.lock().take() {
            Some(first) => anyhow::anyhow!(
                "{first:#}; the run stopped there, and then could not finish: {error:#}; \
                 make room, then run again with --resume to go on from what was saved"
            ),
            None => error,
        }
    }
}

/// Hands every ended path to the test writer and to the trie, and saves
/// the checkpoints.
pub(super) struct Outputs<'a> {
    pub(super) writer: &'a mut TestWriter,
    pub(super) recorder: &'a mut Recorder,
    pub(super) checkpoints: Option<&'a mut Checkpointer>,
    pub(super) complete_with: Option<&'a (Trie, memo::Marks)>,
    pub(super) report: &'a Report<'a>,
    /// The place in the trie of every test written, in writing order: the
    /// tests are numbered by it at the end.
    pub(super) places: &'a mut Vec<TestPlace>,
    pub(super) first_error: Option<FirstError>,
    pub(super) failure: &'a WriteFailure<'a>,
}

impl Outputs<'_> {
    /// Keeps what the run had cost when its first error path ended, and
    /// stops the run at an error `--exit-on-error` names.
    fn note_first_error(&mut self, executor: &Executor, path: &FinishedPath<'_>) {
        let PathEnd::Error(e) = &path.end else {
            return;
        };
        if self.report.config.exit_on_error.contains(&e.kind) {
            self.failure.stop.error_found();
        }
        if self.first_error.is_none() {
            let solver = executor.solver_stats();
            self.first_error = Some(FirstError {
                queries: solver.queries,
                z3_calls: solver.z3_calls,
                seconds: self.report.explore_start.elapsed().as_secs_f64(),
            });
        }
    }
}

impl PathObserver for Outputs<'_> {
    fn checkpoint(
        &mut self,
        executor: &Executor,
        pending: &mut dyn Iterator<Item = &State>,
        stopping: Option<EarlyReason>,
        others: &[Tally],
    ) -> anyhow::Result<()> {
        let Some(c) = self.checkpoints.as_deref_mut() else {
            return Ok(());
        };
        let (writer, report) = (&*self.writer, self.report);
        let paths = self.recorder.paths;
        c.save(
            self.recorder,
            executor,
            pending,
            self.complete_with,
            writer,
            stopping.is_some(),
            |checkpoints| {
                let counted = Counted { executor, others };
                report.stats(counted, writer, paths, stopping, checkpoints)
            },
        );
        Ok(())
    }

    fn mark_pending(
        &mut self,
        executor: &Executor,
        pending: &mut dyn Iterator<Item = &State>,
    ) -> anyhow::Result<()> {
        if self.checkpoints.is_some() {
            pending.for_each(|s| self.recorder.mark_pending(executor, s));
        }
        Ok(())
    }

    fn path_ended(&mut self, executor: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
        let staged = stage(
            self.report.config,
            self.writer.stager(),
            executor,
            &path,
            self.failure,
        );
        let path = match staged {
            Staged::Test(staged) => return self.path_ended_staged(executor, path, staged),
            Staged::Failed => path.left_for_resume(EarlyReason::WriteFailed),
            Staged::None => path,
        };
        self.note_first_error(executor, &path);
        if path.state.is_seeded() {
            self.writer.count_seeded();
        }
        if path.untested {
            // Recorded without a test: a resumed run explores it again.
            if let PathEnd::Early(reason) = path.end {
                self.writer.count_untested(reason.as_str());
            }
        }
        self.recorder.record(executor, &path, None);
        Ok(())
    }

    fn path_ended_staged(
        &mut self,
        executor: &Executor,
        path: FinishedPath<'_>,
        mut staged: StagedTest,
    ) -> anyhow::Result<()> {
        self.note_first_error(executor, &path);
        if path.state.is_seeded() {
            self.writer.count_seeded();
        }
        if let Some(test) = staged.take_unwritten() {
            self.writer.count_unwritten(&test);
            self.recorder.record(executor, &path, Some(test));
            return Ok(());
        }
        let test = self.writer.commit(staged)?;
        if let Some(most) = self.report.config.max_tests {
            if self.writer.tests() >= most {
                self.failure.stop.enough_tests();
            }
        }
        let leaf = self.recorder.record(executor, &path, Some(test));
        self.places
            .push(TestPlace::leaf(leaf.unwrap_or(NodeId::ROOT)));
        Ok(())
    }
}

/// What [`stage`] made of a path.
pub(super) enum Staged {
    /// The path gets no test.
    None,
    /// Its test, with its files written when it gets them.
    Test(StagedTest),
    /// Its test's files could not be written, now or at an earlier path:
    /// the path is kept for `--resume`.
    Failed,
}

/// A path's test, its files written under its number when it gets them.
/// A failure to write them is noted in `failure` (which stops the run),
/// and no files are written after one. Parallel workers call it before
/// they take the run's observer.
pub(super) fn stage(
    config: &RunConfig,
    stager: &Stager,
    executor: &Executor,
    path: &FinishedPath<'_>,
    failure: &WriteFailure<'_>,
) -> Staged {
    if path.untested {
        return Staged::None;
    }
    let Some(test) = StoredTest::of_path(executor, path) else {
        return Staged::None;
    };
    if !config.writes_test(path)
        || (!config.emit_all_errors && !stager.first_error_at(&test.outcome))
    {
        return Staged::Test(StagedTest::unwritten(test));
    }
    if failure.failed() {
        return Staged::Failed;
    }
    let files = PathFiles {
        condition: config
            .write_conditions
            .then(|| path_condition(path))
            .flatten(),
        coverage: executor.covered_lines(&path.state),
    };
    match stager.stage(test, files) {
        Ok(staged) => Staged::Test(staged),
        Err(e) => {
            failure.note(e);
            Staged::Failed
        }
    }
}

/// The path's condition in SMT-LIB 2 (`--write-smt2s`). The test matters
/// more than its condition: where the condition cannot be printed, the
/// test is written without one, and the reason said.
fn path_condition(path: &FinishedPath<'_>) -> Option<String> {
    let inputs: Vec<_> = path.state.symbolics.iter().cloned().collect();
    crate::solver::path_condition_smtlib(&path.state.constraints, &inputs)
        .map_err(|e| eprintln!("mnemo: warning: a test is written without its path condition: {e}"))
        .ok()
}

impl RunConfig {
    /// Whether an ended path gets its test's files in the output
    /// directory (it gets its place in the trie either way).
    pub(super) fn writes_test(&self, path: &FinishedPath<'_>) -> bool {
        match self.test_files {
            TestFiles::All => true,
            TestFiles::NewCoverage => {
                path.state.covered_new || matches!(path.end, PathEnd::Error(_))
            }
            TestFiles::None => false,
        }
    }
}
