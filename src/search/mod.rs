//! Searchers decide which pending state runs next; the explorer drives the
//! executor with one of them until every path is done or a limit is hit.

mod bfs;
mod covnew;
mod dfs;
pub(crate) mod ending;
pub(crate) mod explore;
mod interleaved;
mod random_path;
mod seeded;
pub(crate) mod shed;
mod sum_tree;

pub use bfs::Bfs;
pub use covnew::CovNew;
pub use dfs::Dfs;
pub use explore::{explore, ExploreConfig, FinishedPath, PathObserver, Progress, RunOutcome};
pub use interleaved::Interleaved;
pub use random_path::RandomPath;
pub use seeded::{seeds_first, SeedsFirst};

use std::collections::BTreeMap;

use crate::exec::{Executor, State};

/// The pending states, by id (ordered, so every walk over them is deterministic).
pub type States = BTreeMap<u64, State>;

/// A strategy for picking the next state to run.
pub trait Searcher {
    /// The state to run next, if any is pending.
    fn select(&mut self, states: &States, executor: &Executor) -> Option<u64>;
    /// `parent` forked into `children` (in alternative order); `parent`
    /// continues with the first alternative.
    fn forked(&mut self, parent: u64, children: &[u64]);
    /// `id` ran a slice and goes on (its place in the program changed).
    fn stepped(&mut self, _id: u64) {}
    /// New states with no parent (the initial state).
    fn add(&mut self, id: u64);
    /// A state ended.
    fn remove(&mut self, id: u64);
}

/// The searchers the command line can name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SearcherKind {
    /// Random-path and coverage-new in turn: the default, because no
    /// loop on a symbolic guard can keep it from the code after the loop.
    #[default]
    Interleaved,
    /// Depth-first, alternatives in order: the smallest frontier, but it
    /// can stay in an unbounded loop for ever.
    Dfs,
    /// Breadth-first.
    Bfs,
    /// KLEE's random-path alone.
    RandomPath,
    /// Coverage-new alone.
    Covnew,
}

impl SearcherKind {
    /// A fresh searcher of this kind; `seed` drives the random ones.
    pub fn build(self, seed: u64) -> Box<dyn Searcher> {
        match self {
            SearcherKind::Interleaved => Box::new(Interleaved::new(seed)),
            SearcherKind::Dfs => Box::new(Dfs::default()),
            SearcherKind::Bfs => Box::new(Bfs::default()),
            SearcherKind::RandomPath => Box::new(RandomPath::new(seed)),
            SearcherKind::Covnew => Box::new(CovNew::new(seed)),
        }
    }
}
