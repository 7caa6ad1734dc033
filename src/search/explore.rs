//! The exploration loop: pick a state, run it to its next fork or end,
//! report every ended path, and stop cleanly at a limit.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ending::{
    checkpoint_cost, end_pending, final_cost, out_of_time, Ending, Made, PendingWeight, ReportCost,
    FINAL_COST_PER_TEST, FINISH_SHARE,
};
use super::shed::{shed_for_memory, Shed};
use super::{Searcher, States};
use crate::exec::{Byte, EarlyReason, ErrorKind, Executor, PathEnd, PathError, State, Step, Tally};
use crate::expr::{self, Assignment};
use crate::solver::SolverError;
use crate::stop::StopRequest;

/// The limits of a run (the executor's own options are in `ExecConfig`).
#[derive(Clone, Debug, Default)]
pub struct ExploreConfig {
    pub max_time: Option<Duration>,
    /// The instant `max_time` counts from: the start of the run, loading
    /// included (the start of the exploration when unset).
    pub started: Option<Instant>,
    pub max_instructions: Option<u64>,
    /// Memory in MiB: the states' objects, checked at every allocation and
    /// instruction, and the process's resident memory, sampled every
    /// millisecond.
    pub max_memory_mb: Option<u64>,
    /// How often the observer saves a checkpoint: at the start, every this
    /// long, and when a limit or a signal stops the run. `None`: never.
    pub checkpoint: Option<Duration>,
    /// The process ends after this run: the states pending at a limit are
    /// left to the OS rather than freed one by one (freeing their models
    /// took a fifth of the time left for their tests on deep loops).
    pub leave_memory: bool,
    /// The paths pending at a limit get no test (KLEE's
    /// `--dump-states-on-halt=false`): they are kept in the trie, untested,
    /// for `--resume`, and the run ends without solving for their inputs.
    pub skip_pending_tests: bool,
    /// Only paths that covered new code get test files
    /// (`--only-new-coverage`): the paths ended to bring the run under
    /// `--max-memory` that covered nothing new are kept in the trie
    /// untested, for `--resume`, as KLEE gives a state it kills at its
    /// memory cap no test under that option. Each would otherwise get a
    /// test no file holds, solved for and kept in the trie, in the memory
    /// the run is short of.
    pub tests_for_new_coverage: bool,
    /// How many tests have been given files so far, counted by the test
    /// writer: what the end of the run renumbers and syncs, and so what
    /// the time it leaves for that is reckoned on. `None`: every ended
    /// path is counted, as at most that many get files. Under
    /// `--only-new-coverage` few do: echo's 577,000 ended paths with 56
    /// files were reckoned at 12 s and stopped a minute's run after 45 s.
    pub test_files: Option<Arc<AtomicUsize>>,
}

impl ExploreConfig {
    /// What a run has made so far: the trie's `nodes`, and the tests given
    /// files (at most the `ended` paths).
    pub(crate) fn made(&self, nodes: u64, ended: u64) -> Made {
        let tests = self
            .test_files
            .as_ref()
            .map_or(ended, |n| n.load(Ordering::Relaxed) as u64);
        Made { nodes, tests }
    }
}

/// A path that ended, with the concrete inputs that drive a native run down it.
pub struct FinishedPath<'a> {
    /// The path's state: owned where it ended during exploration (so that
    /// an observer can keep it without a copy), borrowed at a limit.
    pub state: Cow<'a, State>,
    pub end: PathEnd,
    /// The symbolic inputs, in creation order.
    pub inputs: crate::memo::Inputs,
    /// The exit status of a completed path, as a process would see it.
    pub exit_code: Option<u8>,
    /// What a completed path wrote to stdout, under its inputs.
    pub stdout: Option<Vec<u8>>,
    /// No inputs were found for this path (no test can be written): it was
    /// pending at the time limit, and no time was left to solve for them,
    /// or pending when a second signal asked the run to end at once; or
    /// its test could not be written (see [`FinishedPath::left_for_resume`]).
    pub untested: bool,
}

impl FinishedPath<'_> {
    /// The same path, holding its own state (a copy where it was borrowed).
    pub fn into_owned(self) -> FinishedPath<'static> {
        FinishedPath {
            state: Cow::Owned(self.state.into_owned()),
            end: self.end,
            inputs: self.inputs,
            exit_code: self.exit_code,
            stdout: self.stdout,
            untested: self.untested,
        }
    }

    /// The path as one stopped by `reason` before it got a test: the trie
    /// keeps it pending, and a resumed run explores it again (its end and
    /// its test are found anew).
    pub fn left_for_resume(self, reason: EarlyReason) -> Self {
        FinishedPath {
            state: self.state,
            end: PathEnd::Early(reason),
            inputs: Default::default(),
            exit_code: None,
            stdout: None,
            untested: true,
        }
    }
}

/// Whoever wants to hear about ended paths: the test writer, the trie.
pub trait PathObserver {
    fn path_ended(&mut self, executor: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()>;

    /// [`Self::path_ended`] for a path whose test's files a parallel worker
    /// has already written under temporary names (see
    /// [`crate::testgen::StagedTest`]). By default they are dropped (which
    /// removes them) and the path is reported as usual.
    fn path_ended_staged(
        &mut self,
        executor: &Executor,
        path: FinishedPath<'_>,
        staged: crate::testgen::StagedTest,
    ) -> anyhow::Result<()> {
        drop(staged);
        self.path_ended(executor, path)
    }

    /// [`Self::path_ended`] for paths pending at a limit that get no test,
    /// handed over together: a parallel worker then takes the shared
    /// observer once for them rather than once each (with two workers
    /// taking it in turn, a decision kept untested cost each 185 ns rather
    /// than 215).
    fn paths_ended(
        &mut self,
        executor: &Executor,
        paths: Vec<FinishedPath<'_>>,
    ) -> anyhow::Result<()> {
        paths
            .into_iter()
            .try_for_each(|p| self.path_ended(executor, p))
    }

    /// Saves what was found so far with the paths still `pending`, so that
    /// a run killed after it can be resumed from it; `stopping`: the limit
    /// or signal that is ending the run (its pending paths are reported
    /// next); `others`: the counters of a parallel run's other workers, for
    /// the statistics. By default nothing is saved.
    fn checkpoint(
        &mut self,
        _executor: &Executor,
        _pending: &mut dyn Iterator<Item = &State>,
        _stopping: Option<EarlyReason>,
        _others: &[Tally],
    ) -> anyhow::Result<()> {
        Ok(())
    }

    /// Marks paths still being explored as pending, for the checkpoint
    /// saved next: each worker of a parallel run marks its own, and one of
    /// them saves. By default nothing is marked.
    fn mark_pending(
        &mut self,
        _executor: &Executor,
        _pending: &mut dyn Iterator<Item = &State>,
    ) -> anyhow::Result<()> {
        Ok(())
    }
}

/// What the progress display shows.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Paths ended so far.
    pub ended: u64,
    /// States still pending.
    pub pending: usize,
}

/// How the exploration went.
#[derive(Clone, Debug, Default)]
pub struct RunOutcome {
    /// The limit that stopped the run, if one did.
    pub stopped_by: Option<EarlyReason>,
    pub elapsed: Duration,
}

/// Models of the latest tests, tried on the paths pending at a limit before
/// the solver is asked (a pending path often shares its inputs' constraints
/// with a path that just ended).
pub(crate) const RECENT_MODELS: usize = 8;

/// Explores from `initial` until no state is left or a limit is reached.
/// A request to `stop` (a signal) stops the run as a limit would; a second
/// one leaves the paths pending then without tests.
pub fn explore(
    executor: &mut Executor,
    searcher: &mut dyn Searcher,
    initial: State,
    limits: &ExploreConfig,
    observer: &mut dyn PathObserver,
    stop: &StopRequest,
    mut progress: impl FnMut(&Executor, Progress),
) -> anyhow::Result<RunOutcome> {
    let start = Instant::now();
    let limit_start = limits.started.unwrap_or(start);
    let time_limit = limits.max_time.map(|m| limit_start + m);
    // No solver call runs past the time limit: one that would ends its
    // path as the limit does.
    executor.set_deadline(time_limit);
    executor.set_memory_limit(limits.max_memory_mb);
    let mut recent = VecDeque::with_capacity(RECENT_MODELS);
    let mut cost = ReportCost::default();
    let mut weight = PendingWeight::default();
    // The end of the time the paths pending at the limit have for their
    // tests.
    let finish_by = limits
        .max_time
        .map(|m| limit_start + m.mul_f64(1.0 + FINISH_SHARE));
    let mut states = States::new();
    searcher.add(initial.id);
    states.insert(initial.id, initial);
    let mut stopped_by = None;
    let mut steps = 0u64;
    let mut ended = 0u64;
    let mut next_checkpoint = limits.checkpoint.map(|_| Instant::now());
    while let Some(id) = searcher
        .select(&states, executor)
        .or_else(|| take_up_cuts(executor, searcher, &mut states))
    {
        if let (Some(at), Some(every)) = (next_checkpoint, limits.checkpoint) {
            if Instant::now() >= at {
                observer.checkpoint(executor, &mut states.values(), None, &[])?;
                next_checkpoint = Some(Instant::now() + every);
            }
        }
        if advance(executor, searcher, &mut states, id, observer, &mut recent)? {
            ended += 1;
        }
        steps += 1;
        if steps.is_multiple_of(64) {
            progress(
                executor,
                Progress {
                    ended,
                    pending: states.len(),
                },
            );
        }
        stopped_by = check_limits(limits, executor, time_limit, stop);
        if stopped_by == Some(EarlyReason::MaxMemory) {
            let before = states.len();
            let new_only = limits.tests_for_new_coverage;
            let mut ending = Ending::for_memory(time_limit, &mut cost, &mut recent, 1, new_only);
            let shed =
                shed_for_memory(executor, searcher, &mut states, &mut ending, observer, stop)?;
            if shed != Shed::Exhausted {
                stopped_by = None;
            }
            ended += (before - states.len()) as u64;
            executor.set_deadline(time_limit);
        }
        // Exploration stops when reporting the pending paths would take
        // it past the limit, so that the time after the limit is left for
        // solving their inputs.
        if stopped_by.is_none()
            && steps.is_multiple_of(64)
            && out_of_time(
                || weight.of(&states),
                &cost,
                time_limit,
                limits.made(executor.decisions, ended),
                limits.checkpoint.is_some(),
            )
        {
            stopped_by = Some(EarlyReason::MaxTime);
        }
        if stopped_by.is_some() {
            break;
        }
    }
    let states_left = states.len() as u64;
    if let Some(reason) = stopped_by {
        // The run's end comes after the pending paths' tests.
        let made = limits.made(executor.decisions, ended);
        let mut finish_by = finish_by.map(|t| t - final_cost(made));
        // Reporting the pending paths may take a while (their inputs are
        // solved for); a run killed meanwhile resumes from here.
        if limits.checkpoint.is_some() {
            let at = Instant::now();
            observer.checkpoint(executor, &mut states.values(), Some(reason), &[])?;
            // Exploration stopped early enough for this write's estimate;
            // what it took beyond is taken from the pending paths' time
            // (not all of it: on a tokenizer stopped with 105,000 paths
            // pending, that left them 0.12 s of their 0.9 s, and none got
            // a test).
            let took = at.elapsed().saturating_sub(checkpoint_cost(made.nodes));
            finish_by = finish_by.map(|t| t - took);
        }
        let pending = std::mem::take(&mut states);
        let mut ending = Ending {
            reason,
            finish_by,
            cost: &mut cost,
            recent: &mut recent,
            leave_memory: limits.leave_memory,
            skip_tests: limits.skip_pending_tests,
            untested_unless_new: false,
            final_per_test: FINAL_COST_PER_TEST,
        };
        end_pending(executor, pending, &mut ending, observer, stop)?;
    }
    executor.set_deadline(None);
    executor.lift_memory_limit();
    progress(
        executor,
        Progress {
            ended: ended + states_left,
            pending: 0,
        },
    );
    Ok(RunOutcome {
        stopped_by,
        elapsed: start.elapsed(),
    })
}

/// For a run (or a worker) with nothing left to explore: the choice points
/// cut under `--max-site-fork-share` that it kept, added as pending paths
/// that fork there after all. The state to run first, if any.
pub(crate) fn take_up_cuts(
    executor: &mut Executor,
    searcher: &mut dyn Searcher,
    states: &mut States,
) -> Option<u64> {
    for s in executor.reopen_cuts() {
        searcher.add(s.id);
        states.insert(s.id, s);
    }
    searcher.select(states, executor)
}

/// Runs the state `id` to its next fork or end (a state the searcher still
/// names but that is gone is dropped from it); true when its path ended.
pub(crate) fn advance(
    executor: &mut Executor,
    searcher: &mut dyn Searcher,
    states: &mut States,
    id: u64,
    observer: &mut dyn PathObserver,
    recent: &mut VecDeque<Assignment>,
) -> anyhow::Result<bool> {
    let Some(mut state) = states.remove(&id) else {
        searcher.remove(id);
        return Ok(false);
    };
    // A state that follows the trie replays a recorded prefix: its time is
    // what partitions of a run cost beyond exploring.
    let replaying = state.guide.is_some().then(std::time::Instant::now);
    let step = executor.step(&mut state);
    if let Some(t) = replaying {
        executor.guided.replay += t.elapsed();
    }
    match step {
        Step::Yield => {
            states.insert(id, state);
            searcher.stepped(id);
        }
        Step::Forked(children) => {
            let ids: Vec<u64> = children.iter().map(|c| c.id).collect();
            states.insert(id, state);
            for c in children {
                states.insert(c.id, c);
            }
            searcher.forked(id, &ids);
        }
        Step::Ended(end) => {
            searcher.remove(id);
            finish(executor, state, end, observer, recent)?;
            return Ok(true);
        }
    }
    Ok(false)
}

pub(crate) fn check_limits(
    limits: &ExploreConfig,
    executor: &Executor,
    time_limit: Option<Instant>,
    stop: &StopRequest,
) -> Option<EarlyReason> {
    if let Some(reason) = stop.reason() {
        return Some(reason);
    }
    if limits
        .max_instructions
        .is_some_and(|m| executor.instructions >= m)
    {
        return Some(EarlyReason::MaxInstructions);
    }
    if time_limit.is_some_and(|t| Instant::now() >= t) {
        return Some(EarlyReason::MaxTime);
    }
    if executor.memory_exceeded() {
        return Some(EarlyReason::MaxMemory);
    }
    None
}

/// Reports an ended path with the inputs that reproduce it.
fn finish(
    executor: &mut Executor,
    state: State,
    end: PathEnd,
    observer: &mut dyn PathObserver,
    recent: &mut VecDeque<Assignment>,
) -> anyhow::Result<()> {
    if matches!(end, PathEnd::Silent | PathEnd::Pruned) {
        return report_without_inputs(executor, Cow::Owned(state), end, observer, false);
    }
    let model = executor.test_model(&state);
    finish_with(executor, Cow::Owned(state), end, model, observer, recent)
}

/// Reports an ended path with the model found for it (or the reason none
/// was), and keeps the model for the paths pending at a limit.
pub(super) fn finish_with(
    executor: &mut Executor,
    state: Cow<'_, State>,
    end: PathEnd,
    model: Result<Assignment, SolverError>,
    observer: &mut dyn PathObserver,
    recent: &mut VecDeque<Assignment>,
) -> anyhow::Result<()> {
    let model = match model {
        Ok(m) => m,
        Err(e) => {
            // Without a model there is no test input; say so on the path.
            let err = PathEnd::Error(PathError {
                kind: ErrorKind::Solver,
                message: format!("no test input for this path: {e}"),
                loc: None,
                stack: Vec::new(),
            });
            return report(executor, state, err, &Assignment::new(), observer);
        }
    };
    report(executor, state, end, &model, observer)?;
    if recent.len() == RECENT_MODELS {
        recent.pop_back();
    }
    recent.push_front(model);
    Ok(())
}

/// Reports a path that ended with `model` as its inputs.
pub(super) fn report(
    executor: &mut Executor,
    state: Cow<'_, State>,
    end: PathEnd,
    model: &Assignment,
    observer: &mut dyn PathObserver,
) -> anyhow::Result<()> {
    let inputs = state
        .symbolics
        .iter()
        .map(|s| {
            // Borrowed from the model: the inputs copy every byte once.
            let bytes = model
                .get(&s.array)
                .map_or_else(|| Cow::Owned(vec![0; s.array.size as usize]), Cow::Borrowed);
            (s.name.clone(), bytes)
        })
        .collect();
    let exit_code = match &end {
        PathEnd::Completed { status } => Some(match status.as_concrete() {
            Some(v) => v as u8,
            None => expr::eval(&status.to_expr(), model) as u8,
        }),
        _ => None,
    };
    let stdout = exit_code.map(|_| {
        state
            .stdout
            .bytes()
            .map(|b| match b {
                Byte::Concrete(v) => *v,
                Byte::Symbolic(e) => expr::eval(e, model) as u8,
            })
            .collect()
    });
    observer.path_ended(
        executor,
        FinishedPath {
            state,
            end,
            inputs,
            exit_code,
            stdout,
            untested: false,
        },
    )
}

/// Reports a path that gets no test: one that needs none (silent, pruned),
/// or, `untested`, one pending at the time limit that no time was left for
/// (or at a second signal).
fn report_without_inputs(
    executor: &mut Executor,
    state: Cow<'_, State>,
    end: PathEnd,
    observer: &mut dyn PathObserver,
    untested: bool,
) -> anyhow::Result<()> {
    observer.path_ended(
        executor,
        FinishedPath {
            state,
            end,
            inputs: Default::default(),
            exit_code: None,
            stdout: None,
            untested,
        },
    )
}
