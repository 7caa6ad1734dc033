//! The default search: random-path and coverage-new take turns choosing
//! the next state (KLEE's default pairing).
//!
//! Neither half can starve the run on its own terms. Depth-first search
//! follows the first alternative of every fork, so a loop whose guard is a
//! fresh symbolic value keeps it on the "stay in the loop" side for ever and
//! the code after the loop never runs. Random-path picks a child at random
//! at every fork on the way down from the root, so a shallow state (the one
//! that left the loop early) is chosen with a fixed probability however
//! deep the loop side goes. Coverage-new is drawn to states near code no
//! path has run yet, which is exactly the loop exit and what follows it;
//! but it weighs states one by one, so a subtree that forks a lot gets a
//! large share of its picks, which random-path corrects.

use super::{CovNew, RandomPath, Searcher, States};
use crate::exec::Executor;

/// Random-path and coverage-new in turn, one selection each, both seeded
/// from one seed so that a run is reproducible.
pub struct Interleaved {
    random_path: RandomPath,
    covnew: CovNew,
    /// Whose turn it is: even for random-path, odd for coverage-new.
    turn: u64,
}

impl Interleaved {
    /// Both halves are seeded from `seed`, but not with the same stream:
    /// two equal random sequences would correlate their choices.
    pub fn new(seed: u64) -> Interleaved {
        Interleaved {
            random_path: RandomPath::new(seed),
            covnew: CovNew::new(seed ^ 0x9e37_79b9_7f4a_7c15),
            turn: 0,
        }
    }
}

impl Searcher for Interleaved {
    fn select(&mut self, states: &States, executor: &Executor) -> Option<u64> {
        let turn = self.turn;
        self.turn = self.turn.wrapping_add(1);
        // Both halves track the same pending states, so either one answers
        // `None` only when nothing is pending; the other is asked anyway
        // so that a bookkeeping slip in one cannot end the run early.
        if turn.is_multiple_of(2) {
            self.random_path
                .select(states, executor)
                .or_else(|| self.covnew.select(states, executor))
        } else {
            self.covnew
                .select(states, executor)
                .or_else(|| self.random_path.select(states, executor))
        }
    }

    fn forked(&mut self, parent: u64, children: &[u64]) {
        self.random_path.forked(parent, children);
        self.covnew.forked(parent, children);
    }

    fn stepped(&mut self, id: u64) {
        self.random_path.stepped(id);
        self.covnew.stepped(id);
    }

    fn add(&mut self, id: u64) {
        self.random_path.add(id);
        self.covnew.add(id);
    }

    fn remove(&mut self, id: u64) {
        self.random_path.remove(id);
        self.covnew.remove(id);
    }
}
