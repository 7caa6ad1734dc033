//! Memoized symbolic execution (Memoise): every run is recorded as a trie
//! of the choices it took, kept on disk, and the next run is guided by it
//! with the solver off wherever the answer is already known.
//!
//! - [`trie`]: the trie (arena of nodes, typed indices) and path insertion;
//! - [`record`]: builds a run's trie as its paths end;
//! - [`mod@file`]: the trie on disk (version, checksum, atomic writes), with
//!   `canonical` writing a trie in its canonical numbering;
//! - [`journal`]: what checkpoints add to the trie file between whole writes;
//! - [`mark`]: marking, compression and merging, as the paper defines them;
//! - [`guide`]: a marked trie guiding the executor (trie-guided replay);
//! - [`impact`]: regression analysis, the nodes a program change impacts;
//! - [`heuristic`]: reachability and counter heuristics for deeper runs;
//! - [`plan`]: what a run reuses from the trie of an earlier one;
//! - [`order`]: the tests' numbering by their place in the trie;
//! - [`show`]: `mnemo trie show|stats|dot`.

mod canonical;
pub mod file;
pub mod guide;
pub mod heuristic;
pub mod impact;
pub mod journal;
pub mod mark;
pub mod order;
pub mod plan;
pub mod record;
mod share;
pub mod show;
pub mod stored;
pub mod trie;

pub use file::{trie_path, TrieFileError, FORMAT_VERSION};
pub use guide::TrieGuide;
pub use mark::{compress, merge, Marks};
pub use order::{trie_order, TestPlace};
pub use plan::{Plan, PlanError};
pub use record::Recorder;
pub use stored::{Inputs, StoredError, StoredOutcome, StoredTest};
pub use trie::{End, NodeId, Recorded, Trie};

#[cfg(test)]
mod tests;
