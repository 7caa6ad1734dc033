//! Parallel exploration (`--jobs N`): N workers, each a rayon task with its
//! own executor, searcher and Z3 context (DESIGN.md, invariant 5), explore
//! one run's states; the module, the expression interner and the solver
//! stores are shared.
//!
//! Balancing is dynamic: a worker that runs dry waits in the [`pool`], and
//! a worker with pending states gives it its shallowest ones (states are
//! `Send`, invariant 3). Every ended path goes to the run's one trie and
//! test writer; the run numbers its tests by their place in the trie
//! afterwards, so without a limit the trie, the paths and the tests'
//! numbering are those of `--jobs 1` (invariant 7). Checkpoints are
//! taken by all the workers together ([`round`]). With `--max-time`,
//! `--max-instructions` or `--max-memory` the paths found by the limit
//! depend on how the workers were scheduled.

mod memory;
pub mod partition;
pub mod pool;
pub mod round;
pub mod shard;
pub mod simulate;
pub mod worker;

use std::sync::atomic::AtomicU64;
use std::sync::Mutex;
use std::time::Instant;

use crate::exec::{Executor, Tally};
use crate::search::{ExploreConfig, PathObserver, RunOutcome, SearcherKind};
use crate::stop::StopRequest;

pub use pool::Pool;
pub use worker::{WorkerLine, WorkerSlot, WorkerTimes};

/// How the work of a parallel run is shared out among its workers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Balance {
    /// One worker starts; idle workers take pending states from busy ones.
    #[default]
    Dynamic,
    /// Each worker starts on its own partition of the trie's candidates
    /// (weighted, packed largest first), replaying its prefixes with the
    /// solver off; idle workers then take pending states as with
    /// `dynamic`. Without a trie, a short shallow run records one.
    Trie,
    /// The trie's partitions, and nothing moves (for comparison).
    Static,
    /// The first branch's children dealt out in turn, and nothing moves
    /// (the naive split, for comparison).
    Naive,
}

impl Balance {
    /// Whether the run starts from partitions of a trie.
    pub fn partitions(self) -> Option<partition::Packing> {
        match self {
            Balance::Dynamic => None,
            Balance::Trie | Balance::Static => Some(partition::Packing::Lpt),
            Balance::Naive => Some(partition::Packing::Naive),
        }
    }

    /// Whether pending states move to idle workers.
    pub fn moves(self) -> bool {
        matches!(self, Balance::Dynamic | Balance::Trie)
    }
}

/// How a parallel run is made up.
pub struct Workers<'a> {
    /// Workers, including the calling thread's (at least 2).
    pub jobs: usize,
    /// Makes the executor of worker `w` (1 and up): called in the worker's
    /// own thread, since a Z3 context stays in the thread that made it.
    pub make_executor: &'a (dyn Fn(usize) -> Executor + Sync),
    pub searcher: SearcherKind,
    pub seed: u64,
    /// The workers that make their own initial state (each follows its own
    /// partition of the trie), or `None`: worker 0 alone starts.
    pub starts: Option<Vec<bool>>,
    /// Whether pending states move to idle workers: with partitions only
    /// those exploring freely do, since a state still replaying follows
    /// its own worker's partition.
    pub moves: bool,
    /// Writes each path's test files before the worker takes the shared
    /// observer, or `None`: the observer writes them.
    pub stage: Option<worker::Stage<'a>>,
}

/// How a parallel exploration went.
#[derive(Clone, Debug, Default)]
pub struct ParallelOutcome {
    pub outcome: RunOutcome,
    /// Seconds each worker was busy (exploring, not waiting for work).
    pub busy_s: Vec<f64>,
    /// Seconds the workers waited for the run's observer, all together.
    pub report_wait_s: f64,
    /// Seconds the observer was held, all together.
    pub report_s: f64,
    /// Seconds the workers waited at checkpoints, all together.
    pub checkpoint_wait_s: f64,
    /// States that changed worker.
    pub moved: u64,
}

/// Why a parallel run could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ParallelError {
    #[error("cannot start {jobs} worker threads: {detail}")]
    Threads { jobs: usize, detail: String },
}

/// Explores the program with `workers.jobs` workers, worker 0 on the
/// calling thread with `executor`; every other worker's counters are added
/// to `executor`'s at the end, so that the run's statistics read as one
/// executor's. `progress` gets every worker's counts.
pub fn explore(
    executor: &mut Executor,
    workers: &Workers<'_>,
    limits: &ExploreConfig,
    observer: &mut (dyn PathObserver + Send),
    stop: &StopRequest,
    progress: &(dyn Fn(&[WorkerLine]) + Sync),
) -> anyhow::Result<ParallelOutcome> {
    let start = Instant::now();
    let jobs = workers.jobs.max(1);
    executor.set_id_stride(0, jobs as u64);
    let starts = |w: usize| {
        workers
            .starts
            .as_ref()
            .map_or(w == 0, |s| s.get(w).copied().unwrap_or(false))
    };
    let initial = if starts(0) {
        Some(executor.initial_state()?)
    } else {
        None
    };
    let threads = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs - 1)
        .thread_name(|i| format!("mnemo-worker-{}", i + 1))
        .build()
        .map_err(|e| ParallelError::Threads {
            jobs,
            detail: e.to_string(),
        })?;
    let pool = Pool::new(jobs);
    let slots: Vec<WorkerSlot> = (0..jobs).map(|_| WorkerSlot::default()).collect();
    let instructions = AtomicU64::new(0);
    let observer = Mutex::new(observer);
    let rounds = limits
        .checkpoint
        .map(|every| round::Rounds::new(every, jobs));
    let common = worker::Common {
        moves: workers.moves,
        partitioned: workers.starts.is_some(),
        pool: &pool,
        limits,
        stop,
        instructions: &instructions,
        slots: &slots,
        progress,
        observer: &observer,
        stage: workers.stage,
        rounds: rounds.as_ref(),
    };
    type Ended = anyhow::Result<(WorkerTimes, Tally)>;
    let others: Vec<Mutex<Option<Ended>>> = (1..jobs).map(|_| Mutex::new(None)).collect();
    let first = threads.in_place_scope(|scope| {
        for w in 1..jobs {
            let (common, others) = (&common, &others);
            scope.spawn(move |_| {
                // Leaves the pool even if the worker panics, so that the
                // others do not wait for it for ever.
                let _leave = Leave(common.pool);
                let mut ex = (workers.make_executor)(w);
                ex.set_id_stride(w as u64, jobs as u64);
                let mut searcher = crate::search::seeds_first(
                    workers.searcher.build(workers.seed.wrapping_add(w as u64)),
                    &ex,
                );
                let busy = if starts(w) {
                    ex.initial_state().map(Some)
                } else {
                    Ok(None)
                }
                .and_then(|initial| worker::work(w, &mut ex, searcher.as_mut(), initial, common));
                let ended = busy.map(|b| (b, ex.tally()));
                *others[w - 1].lock().unwrap_or_else(|e| e.into_inner()) = Some(ended);
                if limits.leave_memory {
                    // A worker's solver caches hold expressions that every
                    // worker shares: freeing them takes the interner's
                    // locks, all workers at once, inside the run's time.
                    std::mem::forget(ex);
                }
            });
        }
        let _leave = Leave(&pool);
        let mut searcher =
            crate::search::seeds_first(workers.searcher.build(workers.seed), executor);
        worker::work(0, executor, searcher.as_mut(), initial, &common)
    });
    let mut times = vec![first?];
    for (w, slot) in others.into_iter().enumerate() {
        let ended = slot
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .ok_or_else(|| anyhow::anyhow!("worker {} ended without a result", w + 1))?;
        let (t, tally) = ended?;
        executor.absorb(&tally);
        times.push(t);
    }
    Ok(ParallelOutcome {
        outcome: RunOutcome {
            stopped_by: pool.halted(),
            elapsed: start.elapsed(),
        },
        busy_s: times.iter().map(|t| t.busy_s).collect(),
        report_wait_s: times.iter().map(|t| t.report_wait_s).sum(),
        report_s: times.iter().map(|t| t.report_s).sum(),
        checkpoint_wait_s: times.iter().map(|t| t.checkpoint_wait_s).sum(),
        moved: pool.moved(),
    })
}

/// Takes a worker out of the pool when it ends, however it ends.
struct Leave<'a>(&'a Pool);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        self.0.leave();
    }
}

/// The imbalance of a parallel run: the longest busy time over the mean
/// (1 when every worker was busy as long as the others).
pub fn imbalance(busy_s: &[f64]) -> f64 {
    let mean = busy_s.iter().sum::<f64>() / busy_s.len().max(1) as f64;
    let max = busy_s.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 {
        max / mean
    } else {
        1.0
    }
}

/// The default number of workers: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
