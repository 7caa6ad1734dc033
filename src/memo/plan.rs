//! What a run reuses from the trie of an earlier run of the same program:
//! which nodes are candidates (explored anew), which tests are kept, and
//! the trie the run's recorder starts from.
//!
//! Iterative deepening: with a deeper bound than the recorded one, the
//! boundary nodes are candidates. Resume: the leaves of paths a limit of
//! the run stopped are candidates. A run at the recorded bound of a run
//! that finished has no candidate: it writes the kept tests and runs
//! nothing. Asked to (`--retry-undecided`), a run also goes back to the
//! nodes with an alternative no run could decide, to ask about it again.

use thiserror::Error;

use super::mark::{boundary_nodes, compress, stopped_nodes, undecided_nodes, Marks};
use super::order::TestPlace;
use super::stored::StoredTest;
use super::trie::{bound_text, End, NodeId, Recorded, Trie};

/// Why a recorded trie cannot guide this run.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum PlanError {
    #[error("the trie was recorded for another version of the program (changed: {})", .0.join(", "))]
    Stale(Vec<String>),
    #[error("the trie was recorded for entry `{recorded}`, not `{now}`")]
    Entry { recorded: String, now: String },
    #[error("the trie was recorded with other program arguments ({recorded:?}, now {now:?})")]
    Args {
        recorded: Vec<String>,
        now: Vec<String>,
    },
    #[error("the trie was recorded with depth bound {recorded}, deeper than this run's {now}")]
    Shallower { recorded: String, now: String },
}

/// A memoized run's plan.
pub struct Plan {
    /// The trie the recorder starts from: the old trie (compressed if asked),
    /// to which the run's paths are added.
    pub base: Trie,
    pub marks: Marks,
    /// Tests of the paths this run does not run again.
    pub kept: Vec<StoredTest>,
    /// Where each of `kept` sits in `base`, for the tests' numbering.
    pub kept_places: Vec<TestPlace>,
    pub candidates: usize,
    /// Nodes the run goes back to, to ask again about the alternatives
    /// they left undecided.
    pub retries: usize,
}

impl Plan {
    /// The plan for a run recording `now` over the trie `old` of an earlier
    /// run (`changed`: the functions whose hashes differ). When the run is
    /// deeper, `select` picks which boundary nodes to explore (a heuristic;
    /// all of them by default). With `retry`, the nodes with an undecided
    /// alternative are marked too.
    pub fn new(
        old: Trie,
        now: &Recorded,
        changed: Vec<String>,
        compress_trie: bool,
        retry: bool,
        select: &mut dyn FnMut(&Trie, Vec<NodeId>) -> Vec<NodeId>,
    ) -> Result<Plan, PlanError> {
        let was = &old.recorded;
        if !changed.is_empty() {
            return Err(PlanError::Stale(changed));
        }
        if was.entry != now.entry {
            return Err(PlanError::Entry {
                recorded: was.entry.clone(),
                now: now.entry.clone(),
            });
        }
        if was.args != now.args {
            return Err(PlanError::Args {
                recorded: was.args.clone(),
                now: now.args.clone(),
            });
        }
        let shallower = match (was.max_depth, now.max_depth) {
            (Some(a), Some(b)) => b < a,
            (None, Some(_)) => true,
            _ => false,
        };
        if shallower {
            return Err(PlanError::Shallower {
                recorded: bound_text(was.max_depth),
                now: bound_text(now.max_depth),
            });
        }
        let mut candidates: Vec<NodeId> = stopped_nodes(&old);
        // A boundary node below the bound is explored: all of them when the
        // bound grew, and those a heuristic left at an earlier bound.
        let below: Vec<NodeId> = boundary_nodes(&old)
            .into_iter()
            .filter(|id| now.max_depth.is_none_or(|b| old.depth_of(*id) < b))
            .collect();
        if !below.is_empty() {
            candidates.extend(select(&old, below));
        }
        let mut marks = Marks::new(&old, &candidates);
        if retry {
            let nodes = undecided_nodes(&old, &marks);
            marks.add_retries(&old, &nodes);
        }
        Ok(Plan::marked(old, now, marks, compress_trie))
    }

    /// The plan that explores anew below `candidates` of `old` and asks
    /// again at `retries` (nodes outside their subtrees); with `redo`
    /// (regression analysis) nothing recorded of the candidates themselves
    /// is trusted: not even their choice points, since the change may come
    /// before them.
    pub fn with_candidates(
        mut old: Trie,
        now: &Recorded,
        candidates: &[NodeId],
        retries: &[NodeId],
        redo: bool,
        compress_trie: bool,
    ) -> Plan {
        let mut marks = Marks::new(&old, candidates);
        marks.add_retries(&old, retries);
        if redo {
            for &c in candidates {
                let n = &mut old.nodes[c.index()];
                n.children.clear();
                n.point = None;
                // A leaf still to explore, as a checkpoint's trie must say
                // for a run resumed from it.
                n.end = Some(End::pending());
                n.test = None;
                n.kept.clear();
                n.stretch = Default::default();
            }
        }
        Plan::marked(old, now, marks, compress_trie)
    }

    /// The plan that follows `old` as `marks` say.
    fn marked(old: Trie, now: &Recorded, marks: Marks, compress_trie: bool) -> Plan {
        let (mut base, marks) = if compress_trie {
            compress(&old, &marks)
        } else {
            (old, marks)
        };
        let (kept_places, kept) = kept_tests_placed(&base, &marks).into_iter().unzip();
        base.recorded = now.clone();
        Plan {
            base,
            candidates: marks.candidates(),
            retries: marks.retry.iter().filter(|r| **r).count(),
            marks,
            kept,
            kept_places,
        }
    }

    /// Whether the run has anything to explore.
    pub fn explores(&self) -> bool {
        self.candidates > 0 || self.retries > 0
    }
}

/// The tests of every path outside the candidates' subtrees.
pub fn kept_tests(trie: &Trie, marks: &Marks) -> Vec<StoredTest> {
    kept_tests_placed(trie, marks)
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

/// The tests of every path outside the candidates' subtrees, in trie
/// order, each with its place.
pub fn kept_tests_placed(trie: &Trie, marks: &Marks) -> Vec<(TestPlace, StoredTest)> {
    let mut out = Vec::new();
    for id in marks.outside_candidates(trie) {
        let n = trie.node(id);
        out.extend(n.test.as_deref().map(|t| (TestPlace::leaf(id), t.clone())));
        out.extend(
            n.kept
                .iter()
                .enumerate()
                .map(|(i, t)| (TestPlace::kept(id, i), t.clone())),
        );
    }
    out
}
