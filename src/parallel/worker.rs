//! One worker of a parallel run: the exploration loop of `search::explore`
//! over the worker's own states, executor and searcher, taking states from
//! the pool when it runs dry and giving some when another worker does.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, TryLockError};
use std::time::{Duration, Instant};

use super::memory;
use super::pool::Pool;
use super::round::Rounds;
use crate::exec::{EarlyReason, Executor, PathEnd, State};
use crate::search::ending::{
    checkpoint_cost, end_pending, final_cost, out_of_time, Ending, Made, PendingWeight, ReportCost,
    FINAL_COST_PER_TEST, FINISH_SHARE,
};
use crate::search::explore::{advance, check_limits, take_up_cuts, RECENT_MODELS};
use crate::search::shed::shed_for_memory;
use crate::search::{ExploreConfig, FinishedPath, PathObserver, Searcher, States};
use crate::stop::StopRequest;
use crate::testgen::StagedTest;

/// Steps a worker goes on before it looks again for states to give, after
/// it found none it could.
const GIVE_RETRY_STEPS: u64 = 64;

/// What a worker shows on the progress display, updated as it goes. On a
/// cache line of its own: each worker writes its slot all the time.
#[derive(Debug, Default)]
#[repr(align(128))]
pub struct WorkerSlot {
    pub ended: AtomicU64,
    pub pending: AtomicU64,
    pub instructions: AtomicU64,
    pub queries: AtomicU64,
    /// The weight of its pending paths, as it last summed it, and the
    /// decisions it has made (its part of the trie): the run's time limit
    /// is for all the workers' pending paths, whose reports take the
    /// observer in turn, and for one trie.
    pub weight: AtomicU64,
    pub decisions: AtomicU64,
    /// Whether its last try at bringing the run under `--max-memory` left
    /// it no path to end and the run still at its limit (see
    /// `parallel::memory`).
    pub shed_failed: AtomicBool,
}

/// One line of the progress display: a worker's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerLine {
    pub ended: u64,
    pub pending: u64,
    pub instructions: u64,
    pub queries: u64,
}

impl WorkerSlot {
    pub fn line(&self) -> WorkerLine {
        WorkerLine {
            ended: self.ended.load(Ordering::Relaxed),
            pending: self.pending.load(Ordering::Relaxed),
            instructions: self.instructions.load(Ordering::Relaxed),
            queries: self.queries.load(Ordering::Relaxed),
        }
    }
}

/// Makes a path's test before the observer is taken, and writes its files
/// when it gets them (see [`crate::testgen::StagedTest`]); `None` for a
/// path the observer is to handle itself (it gets no test, or its files
/// could not be written).
pub type Stage<'a> = &'a (dyn Fn(&Executor, &FinishedPath<'_>) -> Option<StagedTest> + Sync);

/// Paths a worker keeps while another holds the observer, at most: past
/// it, the worker waits its turn. Each holds its state until reported.
const MAX_QUEUED: usize = 64;

/// An ended path waiting to be reported. Its state stays behind when it
/// is reported, to be freed after the observer is let go, as freeing one
/// takes a while.
struct Kept {
    path: FinishedPath<'static>,
    staged: Option<StagedTest>,
}

impl Kept {
    /// The path to report, borrowing the state.
    fn take(&mut self) -> (FinishedPath<'_>, Option<StagedTest>) {
        let p = &mut self.path;
        let path = FinishedPath {
            state: Cow::Borrowed(&*p.state),
            end: std::mem::replace(&mut p.end, PathEnd::Silent),
            inputs: std::mem::take(&mut p.inputs),
            exit_code: p.exit_code,
            stdout: p.stdout.take(),
            untested: p.untested,
        };
        (path, self.staged.take())
    }
}

/// The observer every worker reports to, one path at a time (the test
/// writer and the trie are the run's, not a worker's), with the test's
/// files written before it is taken. A worker that finds it taken keeps
/// the path and goes on exploring: with 16 workers, waiting for it was
/// most of what reporting cost. Kept paths are reported, in the order they
/// ended, the next time the worker takes the observer; the trie and the
/// tests' numbering do not depend on that order.
pub struct Locked<'a, 'o> {
    observer: &'a Mutex<&'o mut (dyn PathObserver + Send)>,
    stage: Option<Stage<'a>>,
    queued: Vec<Kept>,
    /// Time spent waiting for the observer, and holding it.
    pub waited: Duration,
    pub held: Duration,
}

type Guard<'a, 'o> = MutexGuard<'a, &'o mut (dyn PathObserver + Send)>;

impl<'a, 'o> Locked<'a, 'o> {
    pub fn new(
        observer: &'a Mutex<&'o mut (dyn PathObserver + Send)>,
        stage: Option<Stage<'a>>,
    ) -> Self {
        Locked {
            observer,
            stage,
            queued: Vec::new(),
            waited: Duration::ZERO,
            held: Duration::ZERO,
        }
    }

    /// Takes the observer, waiting for another worker to be done with it.
    fn take(&mut self) -> anyhow::Result<Guard<'a, 'o>> {
        if let Some(o) = self.try_take()? {
            return Ok(o);
        }
        let asked = Instant::now();
        let o = self.observer.lock().map_err(|_| poisoned())?;
        self.waited += asked.elapsed();
        Ok(o)
    }

    /// Takes the observer if no other worker holds it.
    fn try_take(&self) -> anyhow::Result<Option<Guard<'a, 'o>>> {
        match self.observer.try_lock() {
            Ok(o) => Ok(Some(o)),
            Err(TryLockError::WouldBlock) => Ok(None),
            Err(TryLockError::Poisoned(_)) => Err(poisoned()),
        }
    }

    /// Reports the kept paths, then `paths`, holding the observer taken
    /// once; frees the kept states after letting it go.
    fn report<'p>(
        &mut self,
        executor: &Executor,
        mut observer: Guard<'a, 'o>,
        paths: impl IntoIterator<Item = (FinishedPath<'p>, Option<StagedTest>)>,
    ) -> anyhow::Result<()> {
        let taken = Instant::now();
        let mut kept = std::mem::take(&mut self.queued);
        let mut reported = Ok(());
        for k in &mut kept {
            let (p, staged) = k.take();
            reported = reported.and_then(|()| hand_over(&mut **observer, executor, p, staged));
        }
        for (p, staged) in paths {
            reported = reported.and_then(|()| hand_over(&mut **observer, executor, p, staged));
        }
        drop(observer);
        self.held += taken.elapsed();
        kept.clear();
        self.queued = kept;
        reported
    }

    /// Does `with` to the observer, waiting for it (a checkpoint's marks
    /// and save): the time it is held counts as reporting's.
    pub fn holding<T>(
        &mut self,
        with: impl FnOnce(&mut (dyn PathObserver + Send)) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        let mut observer = self.take()?;
        let taken = Instant::now();
        let done = with(&mut **observer);
        self.held += taken.elapsed();
        done
    }

    /// Reports the paths kept so far, waiting for the observer: before the
    /// worker waits for work, and when it is done.
    pub fn flush(&mut self, executor: &Executor) -> anyhow::Result<()> {
        if self.queued.is_empty() {
            return Ok(());
        }
        let observer = self.take()?;
        self.report(executor, observer, std::iter::empty())
    }
}

fn poisoned() -> anyhow::Error {
    anyhow::anyhow!("another worker failed while reporting a path")
}

fn hand_over(
    observer: &mut (dyn PathObserver + Send),
    executor: &Executor,
    path: FinishedPath<'_>,
    staged: Option<StagedTest>,
) -> anyhow::Result<()> {
    match staged {
        Some(s) => observer.path_ended_staged(executor, path, s),
        None => observer.path_ended(executor, path),
    }
}

impl PathObserver for Locked<'_, '_> {
    fn path_ended(&mut self, executor: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
        let staged = match self.stage {
            Some(stage) => stage(executor, &path),
            None => None,
        };
        // A path pending at a limit: its state is its caller's, and
        // keeping it would take a copy.
        if let Cow::Borrowed(_) = path.state {
            let observer = self.take()?;
            return self.report(executor, observer, Some((path, staged)));
        }
        self.queued.push(Kept {
            path: path.into_owned(),
            staged,
        });
        let observer = match self.queued.len() > MAX_QUEUED {
            true => Some(self.take()?),
            false => self.try_take()?,
        };
        match observer {
            Some(observer) => self.report(executor, observer, std::iter::empty()),
            None => Ok(()),
        }
    }

    fn paths_ended(
        &mut self,
        executor: &Executor,
        paths: Vec<FinishedPath<'_>>,
    ) -> anyhow::Result<()> {
        let staged: Vec<_> = paths
            .into_iter()
            .map(|p| {
                let staged = self.stage.and_then(|stage| stage(executor, &p));
                (p, staged)
            })
            .collect();
        let observer = self.take()?;
        self.report(executor, observer, staged)
    }
}

/// What every worker shares.
pub struct Common<'a, 'o> {
    /// Whether states move to idle workers.
    pub moves: bool,
    /// Whether each worker follows its own partition of the trie: then only
    /// states exploring freely move.
    pub partitioned: bool,
    pub pool: &'a Pool,
    pub limits: &'a ExploreConfig,
    pub stop: &'a StopRequest,
    /// Instructions of every worker, for `--max-instructions`.
    pub instructions: &'a AtomicU64,
    pub slots: &'a [WorkerSlot],
    pub progress: &'a (dyn Fn(&[WorkerLine]) + Sync),
    pub observer: &'a Mutex<&'o mut (dyn PathObserver + Send)>,
    pub stage: Option<Stage<'a>>,
    /// The run's checkpoints, with `--checkpoint`.
    pub rounds: Option<&'a Rounds>,
}

/// How a worker spent its time.
#[derive(Clone, Copy, Debug, Default)]
pub struct WorkerTimes {
    /// Seconds it was busy: not waiting for work (waiting for the observer
    /// counts as busy).
    pub busy_s: f64,
    /// Seconds it waited for another worker to be done with the observer.
    pub report_wait_s: f64,
    /// Seconds it held the observer.
    pub report_s: f64,
    /// Seconds it waited at checkpoints for the other workers and the save.
    pub checkpoint_wait_s: f64,
}

/// Runs worker `w` from `initial` (worker 0's first state; the others
/// start by waiting for one) until the run is over or halted, and ends the
/// states it holds then.
pub fn work(
    w: usize,
    executor: &mut Executor,
    searcher: &mut dyn Searcher,
    initial: Option<State>,
    common: &Common<'_, '_>,
) -> anyhow::Result<WorkerTimes> {
    let start = Instant::now();
    let mut waited = Duration::ZERO;
    let mut round_wait = Duration::ZERO;
    let limits = common.limits;
    let limit_start = limits.started.unwrap_or(start);
    let time_limit = limits.max_time.map(|m| limit_start + m);
    let finish_by = limits
        .max_time
        .map(|m| limit_start + m.mul_f64(1.0 + FINISH_SHARE));
    executor.set_deadline(time_limit);
    executor.set_memory_limit(limits.max_memory_mb);
    // The instruction limit is the run's, over every worker.
    let local_limits = ExploreConfig {
        max_instructions: None,
        ..limits.clone()
    };
    let mut observer = Locked::new(common.observer, common.stage);
    let mut recent = VecDeque::with_capacity(RECENT_MODELS);
    // Exploration stops on every worker's pending paths: their reports
    // take the run's trie one at a time, as one worker's would. Ending its
    // own, a worker also waits for the others', which until measured is
    // assumed to take as long again for each of them.
    let one_at_a_time = ReportCost::default();
    let mut cost = ReportCost::taken_in_turn(common.slots.len());
    let mut weight = PendingWeight::default();
    let mut states = States::new();
    if let Some(s) = initial {
        searcher.add(s.id);
        states.insert(s.id, s);
    }
    let slot = &common.slots[w];
    let mut steps = 0u64;
    let mut give_again = 0u64;
    let mut counted = executor.instructions;
    let result = (|| -> anyhow::Result<()> {
        loop {
            if let Some(rounds) = common.rounds {
                round_wait += rounds.step(w, executor, &states, &mut observer, common.pool)?;
            }
            let id = match searcher
                .select(&states, executor)
                .or_else(|| take_up_cuts(executor, searcher, &mut states))
            {
                Some(id) => id,
                None => {
                    slot.pending.store(0, Ordering::Relaxed);
                    slot.weight.store(0, Ordering::Relaxed);
                    // What it kept is reported before it may wait long,
                    // and its counters noted for a checkpoint meanwhile.
                    observer.flush(executor)?;
                    if let Some(rounds) = common.rounds {
                        rounds.note(w, executor);
                    }
                    let at = Instant::now();
                    let taken = common.pool.take();
                    waited += at.elapsed();
                    match taken {
                        Some(s) => {
                            // Holding a path again: the others are not to
                            // take it for idle ([`super::memory`]).
                            slot.pending.store(1, Ordering::Relaxed);
                            searcher.add(s.id);
                            let id = s.id;
                            states.insert(id, s);
                            id
                        }
                        None => return Ok(()),
                    }
                }
            };
            if advance(
                executor,
                searcher,
                &mut states,
                id,
                &mut observer,
                &mut recent,
            )? {
                slot.ended.fetch_add(1, Ordering::Relaxed);
            }
            steps += 1;
            // Only a limit needs the run's count as it goes: a counter
            // every worker adds to on every step costs each of them a cache
            // miss a step.
            let mut total = 0;
            if limits.max_instructions.is_some() {
                total = common
                    .instructions
                    .fetch_add(executor.instructions - counted, Ordering::Relaxed)
                    + (executor.instructions - counted);
                counted = executor.instructions;
            }
            if common.moves
                && steps >= give_again
                && common.pool.hungry() > 0
                && states.len() >= 2
                && !give(common.pool, searcher, &mut states, common.partitioned)
            {
                // Nothing could move (every state still follows this
                // worker's partition): looking at every state again on
                // each step would cost more than the step.
                give_again = steps + GIVE_RETRY_STEPS;
            }
            if steps.is_multiple_of(64) {
                slot.pending.store(states.len() as u64, Ordering::Relaxed);
                slot.decisions.store(executor.decisions, Ordering::Relaxed);
                slot.instructions
                    .store(executor.instructions, Ordering::Relaxed);
                slot.queries
                    .store(executor.solver_stats().queries, Ordering::Relaxed);
                let lines: Vec<WorkerLine> = common.slots.iter().map(WorkerSlot::line).collect();
                (common.progress)(&lines);
            }
            if common.pool.is_halted() {
                return Ok(());
            }
            let mut reason = check_limits(&local_limits, executor, time_limit, common.stop);
            if reason.is_none() && limits.max_instructions.is_some_and(|m| total >= m) {
                reason = Some(EarlyReason::MaxInstructions);
            }
            if reason.is_none()
                && steps.is_multiple_of(64)
                && out_of_time(
                    || {
                        slot.weight.store(weight.of(&states), Ordering::Relaxed);
                        common
                            .slots
                            .iter()
                            .map(|s| s.weight.load(Ordering::Relaxed))
                            .sum()
                    },
                    &one_at_a_time,
                    time_limit,
                    made(common.limits, common.slots),
                    common.rounds.is_some(),
                )
            {
                reason = Some(EarlyReason::MaxTime);
            }
            if reason == Some(EarlyReason::MaxMemory) {
                let workers = common.slots.len() as u32;
                let new_only = common.limits.tests_for_new_coverage;
                let mut ending =
                    Ending::for_memory(time_limit, &mut cost, &mut recent, workers, new_only);
                let stop_run = memory::at_limit(w, common.slots, || {
                    let before = states.len();
                    let shed = shed_for_memory(
                        executor,
                        searcher,
                        &mut states,
                        &mut ending,
                        &mut observer,
                        common.stop,
                    )?;
                    let left = states.len();
                    Ok((shed, (before - left) as u64, left as u64))
                })?;
                if !stop_run {
                    reason = None;
                }
            } else if limits.max_memory_mb.is_some() {
                memory::under_limit(slot);
            }
            if let Some(r) = reason {
                common.pool.halt(r);
                return Ok(());
            }
        }
    })();
    if let Err(e) = result.and_then(|()| observer.flush(executor)) {
        // The other workers stop too; the error is the run's.
        common.pool.halt(EarlyReason::Interrupted);
        return Err(e);
    }
    if let Some(reason) = common.pool.halted() {
        for s in common.pool.drain() {
            states.insert(s.id, s);
        }
        let ending_states = states.len() as u64;
        // The run's trie is saved after every worker's pending paths.
        slot.decisions.store(executor.decisions, Ordering::Relaxed);
        let made = made(common.limits, common.slots);
        let mut finish_by = finish_by.map(|t| t - final_cost(made));
        if let Some(rounds) = common.rounds {
            let at = Instant::now();
            if rounds.at_halt(w, executor, &states, &mut observer, common.pool, reason)? {
                // What the save took beyond its estimate, which exploration
                // stopped early enough for, is taken from this worker's
                // pending paths' time.
                let took = at.elapsed().saturating_sub(checkpoint_cost(made.nodes));
                finish_by = finish_by.map(|t| t - took);
            }
        }
        let mut ending = Ending {
            reason,
            finish_by,
            cost: &mut cost,
            recent: &mut recent,
            leave_memory: common.limits.leave_memory,
            skip_tests: common.limits.skip_pending_tests,
            untested_unless_new: false,
            final_per_test: FINAL_COST_PER_TEST * common.slots.len() as u32,
        };
        end_pending(executor, states, &mut ending, &mut observer, common.stop)?;
        observer.flush(executor)?;
        slot.ended.fetch_add(ending_states, Ordering::Relaxed);
    }
    slot.pending.store(0, Ordering::Relaxed);
    slot.weight.store(0, Ordering::Relaxed);
    slot.instructions
        .store(executor.instructions, Ordering::Relaxed);
    executor.set_deadline(None);
    executor.lift_memory_limit();
    Ok(WorkerTimes {
        busy_s: (start.elapsed() - waited).as_secs_f64(),
        report_wait_s: observer.waited.as_secs_f64(),
        report_s: observer.held.as_secs_f64(),
        checkpoint_wait_s: round_wait.as_secs_f64(),
    })
}

/// What the run has made, as the workers last counted: the nodes of its
/// trie (their decisions), and its tests (at most their ended paths).
fn made(limits: &ExploreConfig, slots: &[WorkerSlot]) -> Made {
    let sum = |count: fn(&WorkerSlot) -> &AtomicU64| -> u64 {
        slots.iter().map(|s| count(s).load(Ordering::Relaxed)).sum()
    };
    limits.made(sum(|s| &s.decisions), sum(|s| &s.ended))
}

/// Gives the waiting workers states of this one: each as many as this one
/// keeps, the shallowest first (the fewest decisions taken, so likely the
/// most left below), keeping at least one; with `free_only`, only states no
/// longer following the trie (another worker's guide follows another
/// partition). Returns whether any could be given.
///
/// An equal share rather than one state each: a worker given one state of
/// thousands often ran dry again within a millisecond and waited to be
/// handed the next, and the giver looked over all its states each time.
/// On a nested-loops subject with two workers, the one that received its
/// work waited 28% of the run, one state at a time, and under 1% with a
/// share.
fn give(pool: &Pool, searcher: &mut dyn Searcher, states: &mut States, free_only: bool) -> bool {
    let hungry = pool.hungry();
    let share = (states.len() / (hungry + 1)).max(1);
    let n = (hungry * share).min(states.len() - 1);
    if n == 0 {
        return true;
    }
    let mut by_depth: Vec<(u32, u64)> = states
        .values()
        .filter(|s| !free_only || s.guide.is_none())
        .map(|s| (s.depth, s.id))
        .collect();
    by_depth.sort_unstable();
    let mut given = Vec::with_capacity(n);
    for &(_, id) in by_depth.iter().take(n) {
        if let Some(s) = states.remove(&id) {
            searcher.remove(id);
            given.push(s);
        }
    }
    if given.is_empty() {
        return false;
    }
    for s in pool.give(given) {
        searcher.add(s.id);
        states.insert(s.id, s);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ExecConfig;
    use crate::ir::testutil::load_ll;
    use std::sync::Arc;

    /// Notes the paths reported to it, by their states' ids.
    struct Ids(Vec<u64>);

    impl PathObserver for Ids {
        fn path_ended(&mut self, _: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
            self.0.push(path.state.id);
            Ok(())
        }
    }

    fn executor() -> Executor {
        let module = load_ll("define i32 @main() {\n  ret i32 0\n}\n");
        Executor::new(Arc::new(module), ExecConfig::default())
    }

    fn ended(state: &State, id: u64) -> FinishedPath<'static> {
        let mut state = state.clone();
        state.id = id;
        FinishedPath {
            state: Cow::Owned(state),
            end: PathEnd::Silent,
            inputs: Default::default(),
            exit_code: None,
            stdout: None,
            untested: false,
        }
    }

    #[test]
    fn a_path_that_finds_the_observer_taken_is_kept_and_reported_next_in_order() {
        let mut executor = executor();
        let state = executor.initial_state().expect("initial state");
        let mut ids = Ids(Vec::new());
        let observer: Mutex<&mut (dyn PathObserver + Send)> = Mutex::new(&mut ids);
        let mut locked = Locked::new(&observer, None);
        let held = observer.lock().expect("free");
        locked
            .path_ended(&executor, ended(&state, 1))
            .expect("kept");
        locked
            .path_ended(&executor, ended(&state, 2))
            .expect("kept");
        assert_eq!(locked.queued.len(), 2);
        drop(held);
        locked
            .path_ended(&executor, ended(&state, 3))
            .expect("reported");
        assert!(locked.queued.is_empty());
        let held = observer.lock().expect("free");
        locked
            .path_ended(&executor, ended(&state, 4))
            .expect("kept");
        drop(held);
        locked.flush(&executor).expect("reported");
        assert!(locked.queued.is_empty());
        // Paths handed over together come after the ones kept.
        let held = observer.lock().expect("free");
        locked
            .path_ended(&executor, ended(&state, 5))
            .expect("kept");
        drop(held);
        let pending: Vec<State> = (6..9)
            .map(|id| State {
                id,
                ..state.clone()
            })
            .collect();
        let paths = pending
            .iter()
            .map(|s| FinishedPath {
                state: Cow::Borrowed(s),
                ..ended(&state, 0)
            })
            .collect();
        locked.paths_ended(&executor, paths).expect("reported");
        assert!(locked.queued.is_empty());
        assert_eq!(ids.0, [1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn a_waiting_worker_is_given_a_share_the_shallowest_first() {
        let mut executor = executor();
        let state = executor.initial_state().expect("initial state");
        let mut searcher = crate::search::SearcherKind::default().build(1);
        // Ten states, the deepest first: depth 10 - id.
        let mut states = States::new();
        for id in 0..10u64 {
            let mut s = state.clone();
            s.id = id;
            s.depth = 10 - id as u32;
            searcher.add(id);
            states.insert(id, s);
        }
        let pool = Pool::new(2);
        let taken = std::thread::scope(|scope| {
            let waiter = scope.spawn(|| pool.take().map(|s| s.id));
            while pool.hungry() == 0 {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(give(&pool, searcher.as_mut(), &mut states, false));
            waiter.join().expect("the waiting worker")
        });
        // One hungry worker of two: it gets half, and what it does not
        // take at once waits in the pool for whoever runs dry next.
        assert_eq!(pool.moved(), 5);
        let mut given: Vec<u64> = pool.drain().iter().map(|s| s.id).collect();
        given.extend(taken);
        given.sort_unstable();
        assert_eq!(given, [5, 6, 7, 8, 9], "the five shallowest");
        assert_eq!(states.keys().copied().collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_worker_with_a_full_queue_waits_its_turn_and_loses_nothing() {
        let mut executor = executor();
        let state = executor.initial_state().expect("initial state");
        let mut ids = Ids(Vec::new());
        let observer: Mutex<&mut (dyn PathObserver + Send)> = Mutex::new(&mut ids);
        let (taken_tx, taken_rx) = std::sync::mpsc::channel();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let held = observer.lock().expect("free");
                taken_tx.send(()).expect("send");
                std::thread::sleep(Duration::from_millis(50));
                drop(held);
            });
            taken_rx.recv().expect("taken");
            let mut locked = Locked::new(&observer, None);
            for id in 0..=MAX_QUEUED as u64 {
                locked
                    .path_ended(&executor, ended(&state, id))
                    .expect("kept or reported");
            }
            assert!(locked.queued.is_empty());
            assert!(locked.waited > Duration::ZERO);
        });
        assert_eq!(ids.0, (0..=MAX_QUEUED as u64).collect::<Vec<_>>());
    }
}
