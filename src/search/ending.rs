//! How a run ends at a limit: what ending costs, so that exploration stops
//! in time, and the paths pending then, each reported with a test while
//! the time left lasts and kept in the trie without one after.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::explore::{finish_with, report, report_without_inputs, PathObserver};
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
    time: Duration,
    decisions: u64,
}

/// The assumed cost per decision before any was measured.
const ASSUMED_COST_PER_DECISION: Duration = Duration::from_nanos(100);

/// What writing the trie once costs per node, marking the pending paths
/// in it included: on a loop reading fresh input with 92 k paths pending
/// at the limit, 184 k nodes took 0.43 s at the stop's checkpoint and
/// 0.55 s at the end, with the sync and the statistics.
const WRITE_COST_PER_NODE: Duration = Duration::from_nanos(3_000);

/// The time what follows exploration at a time limit takes, besides the
/// solver: reporting the pending paths (`pending` decisions in all), and
/// writing the trie of `nodes` nodes with them at the end, and with
/// `checkpoint` at the stop too. A node costs the same whatever the
/// paths' shape; a decision does not (deep paths that share their prefix
/// are walked at a twentieth of the cost of many short ones), and is
/// charged as reporting measures it.
fn end_cost(cost: &ReportCost, pending: u64, nodes: u64, checkpoint: bool) -> Duration {
    let writes = 1 + u32::from(checkpoint);
    cost.of(pending) + write_cost(nodes) * writes
}

/// The time writing a trie of `nodes` nodes once takes.
pub(crate) fn write_cost(nodes: u64) -> Duration {
    WRITE_COST_PER_NODE.mul_f64(nodes as f64)
}

/// Decisions measured before the measurement replaces the assumption.
const MEASURED_ENOUGH: u64 = 1 << 14;

impl Default for ReportCost {
    fn default() -> Self {
        ReportCost {
            time: ASSUMED_COST_PER_DECISION * MEASURED_ENOUGH as u32,
            decisions: MEASURED_ENOUGH,
        }
    }
}

impl ReportCost {
    /// The decisions a path's report is charged for.
    fn weight(state: &State) -> u64 {
        state.path.len() as u64 + 1
    }

    fn add(&mut self, decisions: u64, took: Duration) {
        self.time += took;
        self.decisions += decisions;
    }

    /// The time ending paths of `decisions` decisions in all will take.
    fn of(&self, decisions: u64) -> Duration {
        self.time
            .mul_f64(decisions as f64 / self.decisions.max(1) as f64)
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
    nodes: u64,
    checkpoint: bool,
) -> bool {
    time_limit.is_some_and(|t| Instant::now() + end_cost(cost, pending(), nodes, checkpoint) >= t)
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
    /// Leave the pending states to the OS ([`ExploreConfig::leave_memory`]).
    pub leave_memory: bool,
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
    let (reason, finish_by) = (ending.reason, ending.finish_by);
    executor.set_deadline(finish_by);
    let mut pending: u64 = states.values().map(ReportCost::weight).sum();
    // Writing a test costs more than keeping a path untested in the trie:
    // measured apart, so that a test is written only while the paths after
    // it can still at least be kept.
    let mut tested = ReportCost::default();
    for (_, mut state) in states {
        let weight = ReportCost::weight(&state);
        pending -= weight;
        let at = Instant::now();
        // The time the paths after this one need, before the deadline.
        let reserve = ending.cost.of(pending);
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
        // A test written at the limit costs as much again twice after it:
        // when the run syncs its files, and when it renumbers the tests by
        // their places in the trie. Each is charged three times.
        let test_fits = fits(tested.of(weight) * 3);
        let with_test = match &known {
            Some(model) if test_fits => {
                report(executor, Cow::Borrowed(&state), end, model, observer)?;
                true
            }
            _ if stop.hurry() || !test_fits => {
                report_without_inputs(executor, Cow::Borrowed(&state), end, observer, true)?;
                false
            }
            _ => {
                executor.set_deadline(finish_by.map(|t| t - reserve));
                let model = executor.test_model(&state);
                solving = at.elapsed();
                match model {
                    Err(SolverError::Timeout) if finish_by.is_some() => {
                        report_without_inputs(
                            executor,
                            Cow::Borrowed(&state),
                            end,
                            observer,
                            true,
                        )?;
                        false
                    }
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
            std::mem::forget(state);
            std::mem::forget(known);
        } else {
            drop(state);
            drop(known);
        }
        let took = at.elapsed().saturating_sub(solving);
        if with_test {
            tested.add(weight, took);
        } else {
            ending.cost.add(weight, took);
        }
    }
    Ok(())
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
