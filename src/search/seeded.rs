//! Seeded paths first: a run given seeds (`--seed-file`) runs the paths
//! that follow a seed before any other, whatever its searcher, as KLEE's
//! seeding phase does; the searcher picks among the others.

use super::{Searcher, States};
use crate::exec::Executor;

/// Runs seeded states depth-first (one seed's path to its end, then the
/// next), and asks `inner`, which sees every state, once none is left.
pub struct SeedsFirst {
    inner: Box<dyn Searcher>,
    /// States that may follow a seed, the one to run next last; checked
    /// when picked, as a state leaves its seeds at a fork.
    stack: Vec<u64>,
}

/// `inner`, behind seeded states when `executor`'s run has seeds.
pub fn seeds_first(inner: Box<dyn Searcher>, executor: &Executor) -> Box<dyn Searcher> {
    match executor.has_seeds() {
        true => Box::new(SeedsFirst {
            inner,
            stack: Vec::new(),
        }),
        false => inner,
    }
}

impl Searcher for SeedsFirst {
    fn select(&mut self, states: &States, executor: &Executor) -> Option<u64> {
        // Past `--seed-time` the paths that still follow a seed go on as
        // any other: each leaves its seed when it next runs.
        if executor.seeding_over() {
            self.stack.clear();
        }
        while let Some(&id) = self.stack.last() {
            if states.get(&id).is_some_and(|s| s.is_seeded()) {
                return Some(id);
            }
            self.stack.pop();
        }
        self.inner.select(states, executor)
    }

    fn forked(&mut self, parent: u64, children: &[u64]) {
        self.inner.forked(parent, children);
        if self.stack.last() == Some(&parent) {
            self.stack.pop();
        }
        self.stack.extend(children.iter().rev());
        self.stack.push(parent);
    }

    fn stepped(&mut self, id: u64) {
        self.inner.stepped(id);
    }

    fn add(&mut self, id: u64) {
        self.inner.add(id);
        self.stack.push(id);
    }

    fn remove(&mut self, id: u64) {
        self.inner.remove(id);
        if self.stack.last() == Some(&id) {
            self.stack.pop();
        }
    }
}
