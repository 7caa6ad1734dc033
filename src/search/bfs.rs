//! Breadth-first: every state advances to its next fork before any goes deeper.

use std::collections::VecDeque;

use super::{Searcher, States};
use crate::exec::Executor;

/// Breadth-first search: a forked state and its children go to the back.
#[derive(Default)]
pub struct Bfs {
    queue: VecDeque<u64>,
}

impl Searcher for Bfs {
    fn select(&mut self, _: &States, _: &Executor) -> Option<u64> {
        self.queue.front().copied()
    }

    fn forked(&mut self, parent: u64, children: &[u64]) {
        self.queue.retain(|s| *s != parent);
        self.queue.push_back(parent);
        self.queue.extend(children);
    }

    fn add(&mut self, id: u64) {
        self.queue.push_back(id);
    }

    fn remove(&mut self, id: u64) {
        self.queue.retain(|s| *s != id);
    }
}
