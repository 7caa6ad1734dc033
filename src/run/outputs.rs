//! What a run does with each ended path: its test's files, its place in
//! the trie, and the checkpoints.

use super::{Report, RunConfig, TestFiles};
use crate::checkpoint::Checkpointer;
use crate::exec::{EarlyReason, Executor, PathEnd, State};
use crate::memo::{self, NodeId, Recorder, StoredTest, TestPlace, Trie};
use crate::search::{FinishedPath, PathObserver};
use crate::stats::FirstError;
use crate::testgen::{StagedTest, Stager, TestWriter};

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
}

impl Outputs<'_> {
    /// Keeps what the run had cost when its first error path ended.
    fn note_first_error(&mut self, executor: &Executor, path: &FinishedPath<'_>) {
        if self.first_error.is_none() && matches!(path.end, PathEnd::Error(_)) {
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
            |checkpoints| report.stats(executor, writer, paths, stopping, checkpoints),
        );
        Ok(())
    }

    fn path_ended(&mut self, executor: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
        match stage(self.report.config, self.writer.stager(), executor, &path)? {
            Some(staged) => self.path_ended_staged(executor, path, staged),
            None => {
                self.note_first_error(executor, &path);
                if path.untested {
                    // Recorded without a test: a resumed run explores it
                    // again.
                    if let PathEnd::Early(reason) = path.end {
                        self.writer.count_untested(reason.as_str());
                    }
                }
                self.recorder.record(executor, &path, None);
                Ok(())
            }
        }
    }

    fn path_ended_staged(
        &mut self,
        executor: &Executor,
        path: FinishedPath<'_>,
        mut staged: StagedTest,
    ) -> anyhow::Result<()> {
        self.note_first_error(executor, &path);
        if let Some(test) = staged.take_unwritten() {
            self.writer.count_unwritten(&test);
            self.recorder.record(executor, &path, Some(test));
            return Ok(());
        }
        let test = self.writer.commit(staged)?;
        let leaf = self.recorder.record(executor, &path, Some(test));
        self.places
            .push(TestPlace::leaf(leaf.unwrap_or(NodeId::ROOT)));
        Ok(())
    }
}

/// A path's test, its files written under temporary names when it gets
/// them (`None`: the path gets no test). Parallel workers call it before
/// they take the run's observer.
pub(super) fn stage(
    config: &RunConfig,
    stager: &Stager,
    executor: &Executor,
    path: &FinishedPath<'_>,
) -> anyhow::Result<Option<StagedTest>> {
    if path.untested {
        return Ok(None);
    }
    StoredTest::of_path(executor, path)
        .map(|t| match config.writes_test(path) {
            true => stager.stage(t),
            false => Ok(StagedTest::unwritten(t)),
        })
        .transpose()
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
