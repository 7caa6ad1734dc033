//! How a run ends at a limit: what ending costs, so that exploration stops
//! in time, and the paths pending then, each reported with a test while
//! the time left lasts and kept in the trie without one after.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::explore::{finish_with, report, FinishedPath, PathObserver};
use super::States;
use crate::exec::{EarlyReason, Executor, PathEnd, State};
use crate::expr::{Assignment, Evaluator};
use crate::solver::SolverError;
use crate::stop::StopRequest;

/// The share of the time limit that the paths pending at it may take to
/// get their tests, after it: with the trie and statistics written and
/// synced after them, a run ends within 5% of its time limit.
pub(crate) const FINISH_SHARE: f64 = 0.02;

/// What ending a pending path without the solver costs (trying the known
/// models, writing its test, its place in the trie): about proportional to
/// its length in decisions, so the time the paths pending at a time limit
/// will take is foreseeable. Until measured, a cost per decision a little
/// above the one measured on long loops is assumed.
pub(crate) struct ReportCost {
    /// Per decision, until enough are measured.
    assumed: Duration,
    /// Measured so far.
    time: Duration,
    decisions: u64,
}

/// The assumed cost per decision before any was measured.
const ASSUMED_COST_PER_DECISION: Duration = Duration::from_nanos(100);

/// What writing the trie once costs per node, marking the pending paths
/// in it included: on a loop reading fresh input with 92 k paths pending
/// at the limit, 184 k nodes took 0.43 s at the stop's checkpoint.
const WRITE_COST_PER_NODE: Duration = Duration::from_nanos(3_000);

/// What the end of a run costs, measured on a loop reading fresh input and
/// a tokenizer, with one and two workers: the trie's save per node (398 k
/// nodes took 0.36 s), beside it the tests' renumbering by their places
/// in the trie per test (35–52 k tests took 12–14 µs each), and after
/// both the sync of the output per test (2.6–6 µs).
const SAVE_COST_PER_NODE: Duration = Duration::from_nanos(1_200);
const RENUMBER_COST_PER_TEST: Duration = Duration::from_nanos(15_000);
const SYNC_COST_PER_TEST: Duration = Duration::from_nanos(6_000);

/// What a test written at a limit adds to the end of the run.
pub(crate) const FINAL_COST_PER_TEST: Duration =
    RENUMBER_COST_PER_TEST.saturating_add(SYNC_COST_PER_TEST);

/// The time what follows exploration at a time limit takes, besides the
/// solver: reporting the pending paths (`pending` decisions in all), the
/// end of the run ([`final_cost`]), and with `checkpoint` writing the
/// trie at the stop too. A node costs the same whatever the paths' shape;
/// a decision does not (deep paths that share their prefix are walked at a
/// twentieth of the cost of many short ones), and is charged as reporting
/// measures it.
fn end_cost(cost: &ReportCost, pending: u64, made: Made, checkpoint: bool) -> Duration {
    let stop = match checkpoint {
        true => checkpoint_cost(made.nodes),
        false => Duration::ZERO,
    };
    cost.of(pending) + final_cost(made) + stop
}

/// The time the checkpoint at a stop takes with a trie of `nodes` nodes.
pub(crate) fn checkpoint_cost(nodes: u64) -> Duration {
    WRITE_COST_PER_NODE.mul_f64(nodes as f64)
}

/// What a run has made so far, which its end writes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Made {
    /// The trie's nodes (one per decision).
    pub nodes: u64,
    /// The tests (at most one per ended path).
    pub tests: u64,
}

/// The time the run takes after its pending paths are reported: the trie
/// is saved while the tests are renumbered, then the output is synced.
pub(crate) fn final_cost(made: Made) -> Duration {
    let save = SAVE_COST_PER_NODE.mul_f64(made.nodes as f64);
    let renumber = RENUMBER_COST_PER_TEST.mul_f64(made.tests as f64);
    save.max(renumber) + SYNC_COST_PER_TEST.mul_f64(made.tests as f64)
}

/// Decisions measured before the measurement replaces the assumption.
const MEASURED_ENOUGH: u64 = 1 << 14;

impl Default for ReportCost {
    fn default() -> Self {
        ReportCost {
            assumed: ASSUMED_COST_PER_DECISION,
            time: Duration::ZERO,
            decisions: 0,
        }
    }
}

impl ReportCost {
    /// The cost assumed for paths reported by `workers` workers together,
    /// each taking the run's trie in turn: with two workers, a path kept
    /// untested took each of them 185–215 ns a decision against 56 ns
    /// alone (the walk through the shared trie, and the wait for it).
    pub(crate) fn taken_in_turn(workers: usize) -> Self {
        ReportCost {
            assumed: ASSUMED_COST_PER_DECISION * workers.max(1) as u32,
            ..ReportCost::default()
        }
    }

    /// The decisions a path's report is charged for.
    fn weight(state: &State) -> u64 {
        state.path.len() as u64 + 1
    }

    fn add(&mut self, decisions: u64, took: Duration) {
        self.time += took;
        self.decisions += decisions;
    }

    /// The time ending paths of `decisions` decisions in all will take:
    /// the assumption stands in for the decisions not measured yet.
    fn of(&self, decisions: u64) -> Duration {
        let assumed_for = MEASURED_ENOUGH.saturating_sub(self.decisions);
        let time = self.time + self.assumed.mul_f64(assumed_for as f64);
        time.mul_f64(decisions as f64 / (self.decisions + assumed_for) as f64)
    }

    fn measured(&self) -> bool {
        self.decisions >= MEASURED_ENOUGH
    }
}

/// Whether what follows exploration at a time limit ([`end_cost`], with
/// the pending paths' weight `pending` gives and the trie's `nodes`) would
/// take the run past the limit, so that exploration must stop to leave the
/// time after the limit for solving the pending paths' inputs.
pub(crate) fn out_of_time(
    pending: impl FnOnce() -> u64,
    cost: &ReportCost,
    time_limit: Option<Instant>,
    made: Made,
    checkpoint: bool,
) -> bool {
    time_limit.is_some_and(|t| Instant::now() + end_cost(cost, pending(), made, checkpoint) >= t)
}

/// The pending paths' weight for [`out_of_time`], summed again only once
/// the last sum is old enough that summing takes a small share of the run:
/// on a tokenizer of 400 symbolic bytes with 48,000 paths pending, summing
/// them every 64 steps took a tenth of the run.
#[derive(Default)]
pub(crate) struct PendingWeight {
    sum: u64,
    summed_at: Option<Instant>,
    took: Duration,
}

/// Sums are at least this many times as far apart as one takes...
const SUM_SHARE: u32 = 50;
/// ...unless that would leave a sum older than this.
const SUM_AT_MOST_EVERY: Duration = Duration::from_secs(1);

impl PendingWeight {
    pub(crate) fn of(&mut self, states: &States) -> u64 {
        let now = Instant::now();
        let every = (self.took * SUM_SHARE).min(SUM_AT_MOST_EVERY);
        if self.summed_at.is_none_or(|at| now - at >= every) {
            self.sum = states.values().map(ReportCost::weight).sum();
            self.summed_at = Some(now);
            self.took = now.elapsed();
        }
        self.sum
    }
}

/// How the paths pending at a limit end: why, by when, and what reporting
/// them has learnt so far.
pub(crate) struct Ending<'a> {
    pub reason: EarlyReason,
    /// The end of the time the pending paths have for their tests.
    pub finish_by: Option<Instant>,
    pub cost: &'a mut ReportCost,
    pub recent: &'a mut VecDeque<Assignment>,
    /// Leave the pending states to the OS ([`super::ExploreConfig::leave_memory`]).
    pub leave_memory: bool,
    /// The paths get no test: kept in the trie untested
    /// ([`super::ExploreConfig::skip_pending_tests`]).
    pub skip_tests: bool,
    /// The paths that covered no new code get no test: kept in the trie
    /// untested ([`super::ExploreConfig::tests_for_new_coverage`]).
    pub untested_unless_new: bool,
    /// What each test written here adds to the run's end
    /// ([`FINAL_COST_PER_TEST`], for every worker writing tests beside
    /// this one at about the same pace): `finish_by` moves that much
    /// earlier with each.
    pub final_per_test: Duration,
}

impl<'a> Ending<'a> {
    /// How pending paths end to bring the run under `--max-memory`: each
    /// with its test while the time limit (if any) allows, beside
    /// `workers` workers writing theirs; only those that covered new code
    /// where `untested_unless_new`.
    pub(crate) fn for_memory(
        time_limit: Option<Instant>,
        cost: &'a mut ReportCost,
        recent: &'a mut VecDeque<Assignment>,
        workers: u32,
        untested_unless_new: bool,
    ) -> Self {
        Ending {
            reason: EarlyReason::MaxMemory,
            finish_by: time_limit,
            cost,
            recent,
            leave_memory: false,
            skip_tests: false,
            untested_unless_new,
            final_per_test: FINAL_COST_PER_TEST * workers,
        }
    }
}

/// Ends every state still pending at a limit, each with its test: from the
/// path's own model, or another model already known where one fits, else
/// from the solver while the time left lasts; the solver stops early
/// enough for every path left to be reported by the deadline.
pub(crate) fn end_pending(
    executor: &mut Executor,
    states: States,
    ending: &mut Ending<'_>,
    observer: &mut dyn PathObserver,
    stop: &StopRequest,
) -> anyhow::Result<()> {
    let (reason, mut finish_by) = (ending.reason, ending.finish_by);
    executor.set_deadline(finish_by);
    let mut pending: u64 = states.values().map(ReportCost::weight).sum();
    // Writing a test costs more than keeping a path untested in the trie:
    // measured apart, so that a test is written only while the paths after
    // it can still at least be kept.
    let mut tested = ReportCost::default();
    let mut untested = Untested::default();
    // Where the time is short, keeping a path untested is measured first,
    // on the first paths: the time the others are given depends on it, and
    // it varies (two workers took 185 to 394 ns a decision, against the
    // 200 assumed). As many paths go untested as would have.
    let short = finish_by.is_some_and(|t| Instant::now() + ending.cost.of(pending) * 2 >= t);
    let mut sampling = match short && !ending.cost.measured() {
        true => MEASURED_ENOUGH,
        false => 0,
    };
    for (_, mut state) in states {
        let weight = ReportCost::weight(&state);
        pending -= weight;
        if sampling > 0 {
            sampling = sampling.saturating_sub(weight);
            // The sample is reported as soon as it is whole.
            if untested.push(state, weight) || sampling == 0 {
                untested.report(executor, ending, observer)?;
            }
            continue;
        }
        if ending.untested_unless_new && !state.covered_new {
            if untested.push(state, weight) {
                untested.report(executor, ending, observer)?;
            }
            continue;
        }
        let at = Instant::now();
        // The time the paths after this one need, before the deadline.
        let reserve = ending.cost.of(pending + untested.weight);
        let fits = |cost: Duration| finish_by.is_none_or(|t| at + cost + reserve < t);
        let mut solving = Duration::ZERO;
        let end = PathEnd::Early(reason);
        // A model the path already has is its test as it is, even where it
        // misses the path's `klee_prefer_cex` preferences: a run at its
        // limit has no time to spend on them.
        let known = match state.hint.take() {
            Some(model) => Some(model),
            None => known_model(ending.recent, &state).map(Arc::new),
        };
        // A test written here makes the end of the run longer too.
        let test_fits = !ending.skip_tests && fits(tested.of(weight) + ending.final_per_test);
        let with_test = match &known {
            Some(model) if test_fits => {
                report(executor, Cow::Borrowed(&state), end, model, observer)?;
                true
            }
            _ if stop.hurry() || !test_fits => false,
            _ => {
                executor.set_deadline(finish_by.map(|t| t - reserve));
                let model = executor.test_model(&state);
                solving = at.elapsed();
                match model {
                    Err(SolverError::Timeout) if finish_by.is_some() => false,
                    model => {
                        let state = Cow::Borrowed(&state);
                        finish_with(executor, state, end, model, observer, ending.recent)?;
                        true
                    }
                }
            }
        };
        // Freeing the state and its model is part of its cost.
        if ending.leave_memory {
            std::mem::forget(known);
        } else {
            drop(known);
        }
        if !with_test {
            if untested.push(state, weight) {
                untested.report(executor, ending, observer)?;
            }
            continue;
        }
        if ending.leave_memory {
            std::mem::forget(state);
        } else {
            drop(state);
        }
        tested.add(weight, at.elapsed().saturating_sub(solving));
        finish_by = finish_by.map(|t| t - ending.final_per_test);
    }
    untested.report(executor, ending, observer)?;
    Ok(())
}

/// Paths pending at a limit reported together, at most: enough that a
/// parallel worker takes the shared observer seldom, few enough that
/// another worker waiting for it is not kept long.
const UNTESTED_TOGETHER: usize = 64;

/// Paths pending at a limit that get no test, waiting to be reported
/// together ([`PathObserver::paths_ended`]).
#[derive(Default)]
struct Untested {
    states: Vec<State>,
    /// Their decisions, as [`ReportCost`] counts them.
    weight: u64,
}

impl Untested {
    /// Keeps a path; whether as many are kept as are reported together.
    fn push(&mut self, state: State, weight: u64) -> bool {
        self.states.push(state);
        self.weight += weight;
        self.states.len() >= UNTESTED_TOGETHER
    }

    /// Reports the paths kept, frees their states, and charges the time
    /// both took to what ending a path without a test costs.
    fn report(
        &mut self,
        executor: &Executor,
        ending: &mut Ending<'_>,
        observer: &mut dyn PathObserver,
    ) -> anyhow::Result<()> {
        if self.states.is_empty() {
            return Ok(());
        }
        let at = Instant::now();
        let end = PathEnd::Early(ending.reason);
        let paths = self
            .states
            .iter()
            .map(|s| FinishedPath {
                state: Cow::Borrowed(s),
                end: end.clone(),
                inputs: Default::default(),
                exit_code: None,
                stdout: None,
                untested: true,
            })
            .collect();
        observer.paths_ended(executor, paths)?;
        if ending.leave_memory {
            self.states.drain(..).for_each(std::mem::forget);
        } else {
            self.states.clear();
        }
        ending
            .cost
            .add(std::mem::take(&mut self.weight), at.elapsed());
        Ok(())
    }
}

/// A model of the latest tests under which every constraint of `state`
/// holds (its newest constraints, the likeliest to fail, are tried first).
fn known_model(recent: &VecDeque<Assignment>, state: &State) -> Option<Assignment> {
    recent
        .iter()
        .find(|m| {
            let mut ev = Evaluator::new(m);
            state.constraints.iter().rev().all(|c| ev.eval(c) == 1)
        })
        .cloned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::ExecConfig;
    use crate::ir::testutil::load_ll;

    /// Notes the paths reported to it, by their states' ids and whether
    /// they got a test, as they were handed over: one list per call.
    #[derive(Default)]
    struct Calls(Vec<Vec<(u64, bool)>>);

    impl PathObserver for Calls {
        fn path_ended(&mut self, _: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
            self.0.push(vec![(path.state.id, !path.untested)]);
            Ok(())
        }

        fn paths_ended(
            &mut self,
            _: &Executor,
            paths: Vec<FinishedPath<'_>>,
        ) -> anyhow::Result<()> {
            self.0
                .push(paths.iter().map(|p| (p.state.id, !p.untested)).collect());
            Ok(())
        }
    }

    /// The end of a run is reckoned on the tests given files, which it
    /// renumbers and syncs, where the writer counts them: under
    /// `--only-new-coverage` a few among many ended paths.
    #[test]
    fn the_end_of_a_run_is_reckoned_on_its_test_files() {
        use crate::search::ExploreConfig;
        use std::sync::atomic::{AtomicUsize, Ordering};
        let files = Arc::new(AtomicUsize::new(56));
        let counted = ExploreConfig {
            test_files: Some(files.clone()),
            ..ExploreConfig::default()
        };
        let (nodes, ended) = (1_200_000, 577_000);
        assert_eq!(counted.made(nodes, ended).tests, 56);
        let few = final_cost(counted.made(nodes, ended));
        let every = final_cost(ExploreConfig::default().made(nodes, ended));
        assert!(few < Duration::from_secs(2), "{few:?}");
        assert!(every > Duration::from_secs(10), "{every:?}");
        files.store(ended as usize, Ordering::Relaxed);
        assert_eq!(final_cost(counted.made(nodes, ended)), every);
    }

    /// An executor of a one-instruction program and `n` paths pending in
    /// it, numbered from 0, those `covered_new` says having covered new
    /// code.
    fn pending(n: u64, covered_new: impl Fn(u64) -> bool) -> (Executor, States) {
        let module = load_ll("define i32 @main() {\n  ret i32 0\n}\n");
        let mut executor = Executor::new(Arc::new(module), ExecConfig::default());
        let state = executor.initial_state().expect("initial state");
        let states: States = (0..n)
            .map(|id| {
                let mut s = state.clone();
                s.id = id;
                s.covered_new = covered_new(id);
                (id, s)
            })
            .collect();
        (executor, states)
    }

    /// Ends `n` paths pending at a time limit whose pending paths have
    /// until `finish_by`; the calls the observer got, and the decisions
    /// charged to ending a path without a test.
    fn end(n: u64, finish_by: Option<Instant>) -> (Calls, u64) {
        end_costing(n, finish_by, ReportCost::default())
    }

    /// [`end`], where keeping a path untested is assumed to cost as `cost`
    /// says.
    fn end_costing(n: u64, finish_by: Option<Instant>, mut cost: ReportCost) -> (Calls, u64) {
        let (mut executor, states) = pending(n, |_| false);
        let mut recent = VecDeque::new();
        let mut ending = Ending {
            reason: EarlyReason::MaxTime,
            finish_by,
            cost: &mut cost,
            recent: &mut recent,
            leave_memory: false,
            skip_tests: false,
            untested_unless_new: false,
            final_per_test: FINAL_COST_PER_TEST,
        };
        let mut calls = Calls::default();
        end_pending(
            &mut executor,
            states,
            &mut ending,
            &mut calls,
            &StopRequest::default(),
        )
        .expect("the paths end");
        (calls, cost.decisions)
    }

    #[test]
    fn paths_left_no_time_are_kept_untested_together_and_none_is_lost() {
        // Each path is one decision long (no fork yet): the first
        // MEASURED_ENOUGH are the sample, the rest find no time left.
        let together = UNTESTED_TOGETHER as u64;
        let n = MEASURED_ENOUGH + 2 * together + 3;
        let (calls, charged) = end(n, Some(Instant::now()));
        let sizes: Vec<usize> = calls.0.iter().map(Vec::len).collect();
        let mut expected = vec![UNTESTED_TOGETHER; (MEASURED_ENOUGH / together) as usize];
        expected.extend([UNTESTED_TOGETHER, UNTESTED_TOGETHER, 3]);
        assert_eq!(sizes, expected);
        let reported: Vec<(u64, bool)> = calls.0.concat();
        assert_eq!(reported, (0..n).map(|id| (id, false)).collect::<Vec<_>>());
        // Every one was charged to what keeping a path untested costs.
        assert_eq!(charged, n);
    }

    #[test]
    fn where_time_is_short_the_first_paths_measure_what_keeping_one_costs() {
        // Assumed at 50 ms a decision, keeping the 20 paths untested would
        // take 1 s of the 1.5 s left, and each test only microseconds:
        // without the sample, every path would get its test.
        let slow = ReportCost::taken_in_turn(500_000);
        let soon = Instant::now() + Duration::from_millis(1500);
        let (calls, charged) = end_costing(20, Some(soon), slow);
        assert_eq!(calls.0, [(0..20).map(|id| (id, false)).collect::<Vec<_>>()]);
        assert_eq!(charged, 20);
        // With time enough even at that cost, nothing is sampled.
        let later = Instant::now() + Duration::from_secs(60);
        let slow = ReportCost::taken_in_turn(500_000);
        let (calls, charged) = end_costing(20, Some(later), slow);
        assert!(calls.0.iter().flatten().all(|&(_, tested)| tested));
        assert_eq!(charged, 0);
    }

    /// Ends `n` paths to make room under `--max-memory`, the even ones
    /// having covered new code; which got tests.
    fn end_for_memory(n: u64, untested_unless_new: bool) -> Vec<(u64, bool)> {
        let (mut executor, states) = pending(n, |id| id % 2 == 0);
        let (mut cost, mut recent, mut calls) = Default::default();
        let mut ending = Ending::for_memory(None, &mut cost, &mut recent, 1, untested_unless_new);
        let stop = StopRequest::default();
        end_pending(&mut executor, states, &mut ending, &mut calls, &stop).expect("ended");
        let Calls(calls) = calls;
        let mut ended = calls.concat();
        ended.sort();
        ended
    }

    #[test]
    fn paths_ended_for_memory_without_new_coverage_get_no_test_where_only_new_coverage_is_written()
    {
        let all: Vec<(u64, bool)> = (0..6).map(|id| (id, true)).collect();
        assert_eq!(end_for_memory(6, false), all);
        let new_only: Vec<(u64, bool)> = (0..6).map(|id| (id, id % 2 == 0)).collect();
        assert_eq!(end_for_memory(6, true), new_only);
    }

    #[test]
    fn paths_with_time_left_get_their_tests_one_by_one() {
        let (calls, charged) = end(5, None);
        let expected: Vec<Vec<(u64, bool)>> = (0..5).map(|id| vec![(id, true)]).collect();
        assert_eq!(calls.0, expected);
        assert_eq!(charged, 0);
    }

    #[test]
    fn the_end_of_a_run_is_its_save_or_its_renumbering_whichever_is_longer_then_its_sync() {
        let few_tests = Made {
            nodes: 1_000_000,
            tests: 10,
        };
        let many_tests = Made {
            nodes: 10,
            tests: 1_000_000,
        };
        let sync = |tests: u64| SYNC_COST_PER_TEST.mul_f64(tests as f64);
        assert_eq!(
            final_cost(few_tests),
            SAVE_COST_PER_NODE.mul_f64(1e6) + sync(10)
        );
        assert_eq!(
            final_cost(many_tests),
            RENUMBER_COST_PER_TEST.mul_f64(1e6) + sync(1_000_000)
        );
    }
}
