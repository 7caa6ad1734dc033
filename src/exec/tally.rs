//! What an executor counted, for the run's statistics: each worker of a
//! parallel run has its own executor, and the run reports their sum.

use rustc_hash::FxHashSet;

use super::composing::ReplayCounters;
use super::executor::Executor;
use super::guide::GuideCounters;
use crate::solver::SolverStats;

/// The counters of one worker's executor, `Send` so that they leave the
/// worker's thread (the executor itself, with its Z3 context, stays there).
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub instructions: u64,
    pub solver: SolverStats,
    /// Instructions executed at least once, per function.
    pub covered: Vec<Vec<bool>>,
    pub guided: GuideCounters,
    pub target_hit_queries: Option<u64>,
    pub unsupported_externals: FxHashSet<String>,
    pub unsupported_syscalls: FxHashSet<String>,
    /// Alternatives left unasked (`--max-site-fork-share`).
    pub forks_cut: u64,
    /// Cut choice points taken up again.
    pub cuts_reopened: u64,
    /// What replaying callees at composed calls did.
    pub replay: ReplayCounters,
}

impl Executor {
    /// Numbers this executor's states `first`, `first + stride`, ...: the
    /// workers of a parallel run number theirs apart, so that a state keeps
    /// its id when it moves to another worker.
    pub fn set_id_stride(&mut self, first: u64, stride: u64) {
        self.next_state_id = first;
        self.id_stride = stride.max(1);
    }

    /// The recorded run guiding this executor's states, if any (the other
    /// workers follow it too).
    pub fn guide(&self) -> Option<std::sync::Arc<dyn super::guide::Guide>> {
        self.guide.clone()
    }

    /// This executor's counters.
    pub fn tally(&self) -> Tally {
        Tally {
            instructions: self.instructions,
            solver: self.solver.stats(),
            covered: self.covered.clone(),
            guided: self.guided.clone(),
            target_hit_queries: self.target_hit_queries,
            unsupported_externals: self.unsupported_externals.clone(),
            unsupported_syscalls: self.unsupported_syscalls.clone(),
            forks_cut: self.fork_share.cut,
            cuts_reopened: self.fork_share.reopened,
            replay: self.replay,
        }
    }

    /// Adds another worker's counters to this executor's, so that the
    /// run's statistics and coverage read as those of one executor.
    pub fn absorb(&mut self, other: &Tally) {
        self.instructions += other.instructions;
        self.solver.add_stats(&other.solver);
        self.covered_count += cover(&mut self.covered, &other.covered);
        self.guided.add(&other.guided);
        self.fork_share.cut += other.forks_cut;
        self.fork_share.reopened += other.cuts_reopened;
        self.replay.add(&other.replay);
        self.target_hit_queries = earliest(self.target_hit_queries, other.target_hit_queries);
        self.unsupported_externals
            .extend(other.unsupported_externals.iter().cloned());
        self.unsupported_syscalls
            .extend(other.unsupported_syscalls.iter().cloned());
    }
}

impl Tally {
    /// Adds another worker's counters, as [`Executor::absorb`] does.
    pub fn add(&mut self, other: &Tally) {
        self.instructions += other.instructions;
        self.solver.add(&other.solver);
        cover(&mut self.covered, &other.covered);
        self.guided.add(&other.guided);
        self.forks_cut += other.forks_cut;
        self.cuts_reopened += other.cuts_reopened;
        self.replay.add(&other.replay);
        self.target_hit_queries = earliest(self.target_hit_queries, other.target_hit_queries);
        self.unsupported_externals
            .extend(other.unsupported_externals.iter().cloned());
        self.unsupported_syscalls
            .extend(other.unsupported_syscalls.iter().cloned());
    }
}

/// Marks in `mine` the instructions `theirs` covered; how many it had not.
fn cover(mine: &mut [Vec<bool>], theirs: &[Vec<bool>]) -> u64 {
    let mut new = 0;
    for (m, t) in mine.iter_mut().zip(theirs) {
        for (m, t) in m.iter_mut().zip(t) {
            if *t && !*m {
                *m = true;
                new += 1;
            }
        }
    }
    new
}

/// The query count at the first target hit: the smallest of the workers'
/// (each counts its own queries).
fn earliest(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
