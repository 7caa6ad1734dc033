//! Trie-guided replay, as the executor sees it: a recorded run tells a
//! state which alternatives exist at each choice point and which of them
//! to go down, so the replayed part of a path needs no solver call.
//!
//! The executor knows nothing of tries; `memo` implements [`Guide`] over a
//! marked trie. A guided state carries a [`GuideNode`]; at every choice
//! point it asks the guide, which answers with the recorded alternatives
//! and, for each, whether to skip it (infeasible or already explored), to
//! follow it still guided, or to explore it freely with the solver on
//! (below a candidate node).

use std::sync::Arc;

use super::state::Alt;
use crate::ir::{FuncId, SiteId};

/// A node of the recorded run a guided state is at (an index that only the
/// guide interprets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GuideNode(pub u32);

/// How a state goes on down one alternative of a guided choice point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Next {
    /// No state goes there: the alternative is infeasible, or its paths
    /// were explored before and are kept.
    Skip,
    /// Still following the recorded run, at this node.
    Guided(GuideNode),
    /// Exploring anew with the solver on (a candidate node).
    Free,
    /// An alternative the trie holds undecided, to ask the solver about
    /// again (`--retry-undecided`): explored anew if feasible.
    Ask,
}

impl Next {
    /// The node a state going this way follows (`None`: it goes unguided).
    pub fn node(self) -> Option<GuideNode> {
        match self {
            Next::Guided(g) => Some(g),
            Next::Free | Next::Skip | Next::Ask => None,
        }
    }
}

/// What the recorded run says about the choice point a guided state reached.
#[derive(Clone, Debug)]
pub enum Guidance {
    /// The recorded run reached this same point: its alternatives, and how
    /// to go on down each (`next[i]` for alternative `i`).
    Follow { alts: Arc<[Alt]>, next: Vec<Next> },
    /// The recorded run did something else here: the trie does not fit the
    /// program. The message says what and where.
    Mismatch(String),
}

/// A recorded run that guides states (implemented by `memo`).
pub trait Guide: Send + Sync {
    /// How the initial state starts.
    fn start(&self) -> Next;
    /// The recorded alternatives at the choice point `(func, site)` reached
    /// from `node`.
    fn at_point(&self, node: GuideNode, func: FuncId, site: SiteId) -> Guidance;
    /// The input bytes of a recorded test below `node`, one entry per
    /// symbolic input in creation order. They satisfy the path condition of
    /// every path through `node`, so they answer the questions a replayed
    /// prefix asks besides its choices (a concretized value, an assumption)
    /// exactly as the recorded run answered them.
    fn witness(&self, node: GuideNode) -> Option<Arc<[Vec<u8>]>>;
}

/// What trie-guided replay saved and what went wrong, for `stats.json`.
#[derive(Clone, Debug, Default)]
pub struct GuideCounters {
    /// Feasibility checks and other solver queries answered by the trie.
    pub solver_calls_avoided: u64,
    /// Time spent stepping states still following the trie (replaying a
    /// recorded prefix with the solver off).
    pub replay: std::time::Duration,
    /// Undecided alternatives asked about again (`--retry-undecided`).
    pub asked_again: u64,
    /// Those of them found feasible, and explored.
    pub found_feasible: u64,
    /// Choice points at which the trie did not fit the program.
    pub mismatches: u64,
    /// The first such misfit, described.
    pub first_mismatch: Option<String>,
    /// The latest one (certification reports each path's).
    pub last_mismatch: Option<String>,
}

impl GuideCounters {
    /// Adds another worker's counts; its misfits are kept where this one
    /// has none (the first) or where it saw one (the latest).
    pub fn add(&mut self, other: &GuideCounters) {
        self.solver_calls_avoided += other.solver_calls_avoided;
        self.replay += other.replay;
        self.asked_again += other.asked_again;
        self.found_feasible += other.found_feasible;
        self.mismatches += other.mismatches;
        if self.first_mismatch.is_none() {
            self.first_mismatch = other.first_mismatch.clone();
        }
        if other.last_mismatch.is_some() {
            self.last_mismatch = other.last_mismatch.clone();
        }
    }
}
