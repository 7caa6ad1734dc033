//! Builds the run's trie as paths end (DESIGN.md, invariant 6).

use super::stored::StoredTest;
use super::trie::{End, NodeId, Trie};
use crate::exec::{Executor, PathEnd, State};
use crate::search::FinishedPath;

/// Records every ended path into a trie: a fresh one, or the (marked,
/// perhaps compressed) trie of an earlier run that this run extends.
pub struct Recorder {
    pub trie: Trie,
    /// Paths recorded by this run.
    pub paths: u64,
}

impl Recorder {
    pub fn new(trie: Trie) -> Recorder {
        Recorder { trie, paths: 0 }
    }

    /// Records an ended path with its test; returns its leaf (`None` for a
    /// pruned replay, which adds nothing but what it learned of the
    /// alternatives its last point held undecided: asked again, they may
    /// have turned out infeasible).
    pub fn record(
        &mut self,
        executor: &Executor,
        path: &FinishedPath<'_>,
        test: Option<StoredTest>,
    ) -> Option<NodeId> {
        let Some(end) = end_of(&path.end) else {
            if let Some(point) = &path.state.stopped_at {
                self.trie.settle_along(&path.state.path, point);
            }
            return None;
        };
        self.paths += 1;
        Some(self.trie.insert_path(
            executor.module(),
            &|g| executor.block_at(g),
            &path.state.path,
            path.state.stopped_at.as_ref(),
            &Executor::stretch_blocks(&path.state.stretch),
            end,
            test,
        ))
    }
}

impl Recorder {
    /// Records a path still being explored, for a checkpoint: a `pending`
    /// leaf without a test, which a run resumed from the checkpoint explores
    /// again (and this run replaces as the path goes on). A path replayed
    /// along an earlier trie is left out: the candidates it heads for are
    /// leaves of the trie still, and marking the inner node it is at would
    /// have a resumed run explore that node's whole subtree again.
    pub fn mark_pending(&mut self, executor: &Executor, state: &State) {
        if state.guide.is_some() {
            return;
        }
        self.trie.insert_path(
            executor.module(),
            &|g| executor.block_at(g),
            &state.path,
            state.stopped_at.as_ref(),
            &Executor::stretch_blocks(&state.stretch),
            End::pending(),
            None,
        );
    }
}

/// The trie's record of a path end (`None`: the path is not recorded).
pub fn end_of(end: &PathEnd) -> Option<End> {
    Some(match end {
        PathEnd::Completed { .. } => End::Completed,
        PathEnd::Error(e) => End::Error {
            kind: e.kind.to_string(),
            line: e.loc.map_or(0, |l| l.line),
        },
        PathEnd::Early(r) => End::Early {
            reason: r.as_str().to_string(),
        },
        PathEnd::Silent => End::Silent,
        PathEnd::Pruned => return None,
    })
}
