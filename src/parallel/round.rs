//! Checkpoints of a parallel run (`--checkpoint` with `--jobs`): when one
//! is due, every worker reports the paths it has ended, marks the paths it
//! is exploring as pending in the run's trie, and waits in the pool; the
//! last to arrive marks the states given and not yet taken, and saves the
//! checkpoint as a single worker does. Workers mark and wait between two
//! steps, so the trie saved holds every path at one moment: none has
//! ended, forked or moved between the first mark and the save. At a limit
//! or a signal each marks the paths it is about to end, and the last to
//! do so saves the checkpoint of the stop.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::pool::{Pool, Turn};
use super::worker::Locked;
use crate::exec::{EarlyReason, Executor, Tally};
use crate::search::States;

/// When the run's checkpoints are due, and the workers' counters for the
/// statistics each one writes.
pub struct Rounds {
    every: Duration,
    start: Instant,
    /// When the next checkpoint is due, in nanoseconds from `start` (the
    /// first at once, as a single worker takes it).
    next_ns: AtomicU64,
    /// Each worker's counters as of its last checkpoint or its last wait
    /// for work (a waiting worker's do not change).
    tallies: Vec<Mutex<Option<Tally>>>,
}

impl Rounds {
    pub fn new(every: Duration, workers: usize) -> Rounds {
        Rounds {
            every,
            start: Instant::now(),
            next_ns: AtomicU64::new(0),
            tallies: (0..workers).map(|_| Mutex::new(None)).collect(),
        }
    }

    fn due(&self) -> bool {
        self.start.elapsed().as_nanos() as u64 >= self.next_ns.load(Ordering::Relaxed)
    }

    /// Keeps worker `w`'s counters for the next checkpoint.
    pub fn note(&self, w: usize, executor: &Executor) {
        *self.tallies[w].lock().unwrap_or_else(|e| e.into_inner()) = Some(executor.tally());
    }

    /// Between two steps of worker `w`: takes its part in a checkpoint if
    /// one is due or under way, saving it if it arrives last. Returns how
    /// long it waited for the others and the save.
    pub fn step(
        &self,
        w: usize,
        executor: &Executor,
        states: &States,
        observer: &mut Locked<'_, '_>,
        pool: &Pool,
    ) -> anyhow::Result<Duration> {
        if !pool.round_open() {
            if !self.due() {
                return Ok(Duration::ZERO);
            }
            pool.open_round();
            if !pool.round_open() {
                // The run is over or halted: its end saves everything.
                return Ok(Duration::ZERO);
            }
        }
        self.mark(w, executor, states, observer)?;
        let arrived = Instant::now();
        if pool.arrive() == Turn::Resume {
            return Ok(arrived.elapsed());
        }
        let waited = arrived.elapsed();
        let given = pool.given_for_checkpoint();
        let others = self.others(w);
        let saved = observer.holding(|o| o.checkpoint(executor, &mut given.iter(), None, &others));
        let next = self.start.elapsed() + self.every;
        self.next_ns
            .store(next.as_nanos() as u64, Ordering::Relaxed);
        pool.end_round(given);
        saved.map(|()| waited)
    }

    /// After the halt, before worker `w` ends its pending paths (`states`,
    /// the given ones among them): marks them, and saves the checkpoint of
    /// the halt if it is the last to mark, so that a run killed while the
    /// paths get their tests resumes from there. Whether it saved.
    pub fn at_halt(
        &self,
        w: usize,
        executor: &Executor,
        states: &States,
        observer: &mut Locked<'_, '_>,
        pool: &Pool,
        reason: EarlyReason,
    ) -> anyhow::Result<bool> {
        self.mark(w, executor, states, observer)?;
        if !pool.marked_at_halt() {
            return Ok(false);
        }
        let others = self.others(w);
        observer
            .holding(|o| o.checkpoint(executor, &mut std::iter::empty(), Some(reason), &others))?;
        Ok(true)
    }

    /// Worker `w`'s part of a checkpoint: the paths it ended and kept go
    /// into the trie, its `states` are marked pending there, and its
    /// counters are noted.
    fn mark(
        &self,
        w: usize,
        executor: &Executor,
        states: &States,
        observer: &mut Locked<'_, '_>,
    ) -> anyhow::Result<()> {
        observer.flush(executor)?;
        observer.holding(|o| o.mark_pending(executor, &mut states.values()))?;
        self.note(w, executor);
        Ok(())
    }

    /// The other workers' counters, as they last noted them.
    fn others(&self, w: usize) -> Vec<Tally> {
        self.tallies
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != w)
            .filter_map(|(_, t)| t.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .collect()
    }
}
