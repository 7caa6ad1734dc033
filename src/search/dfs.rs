//! Depth-first: finish a path, then backtrack to the latest fork.

use super::{Searcher, States};
use crate::exec::Executor;

/// Depth-first search over pending states; alternatives in order.
#[derive(Default)]
pub struct Dfs {
    stack: Vec<u64>,
}

impl Searcher for Dfs {
    fn select(&mut self, _: &States, _: &Executor) -> Option<u64> {
        self.stack.last().copied()
    }

    fn forked(&mut self, parent: u64, children: &[u64]) {
        if self.stack.last() == Some(&parent) {
            self.stack.pop();
        } else {
            self.stack.retain(|s| *s != parent);
        }
        self.stack.extend(children.iter().rev());
        self.stack.push(parent);
    }

    fn add(&mut self, id: u64) {
        self.stack.push(id);
    }

    fn remove(&mut self, id: u64) {
        if self.stack.last() == Some(&id) {
            self.stack.pop();
        } else {
            self.stack.retain(|s| *s != id);
        }
    }
}
