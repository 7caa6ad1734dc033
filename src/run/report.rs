//! A run's statistics, at its checkpoints and at its end.

use std::time::Instant;

use super::RunConfig;
use crate::exec::{EarlyReason, Executor, Tally};
use crate::stats::{
    CheckpointStats, CoverageStats, MemoStats, ParallelStats, PathStats, RunStats, SolverStats,
    Totals,
};
use crate::testgen::TestWriter;

/// The counters a run's statistics are made of: one executor's, and at a
/// parallel run's checkpoint the other workers' as they left them there.
/// (At the end of a parallel run the executor has absorbed the others'.)
pub(super) struct Counted<'a> {
    pub executor: &'a Executor,
    pub others: &'a [Tally],
}

impl<'a> From<&'a Executor> for Counted<'a> {
    fn from(executor: &'a Executor) -> Self {
        Counted {
            executor,
            others: &[],
        }
    }
}

/// Counters keyed by layer or strategy name, as `stats.json` keeps them.
fn named_counts(
    counts: &std::collections::BTreeMap<&'static str, u64>,
) -> std::collections::BTreeMap<String, u64> {
    counts.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// What a run's statistics are made of besides the executor's and the test
/// writer's counters, for checkpoints and the end.
pub(super) struct Report<'a> {
    pub config: &'a RunConfig,
    /// The trie's statistics as planned.
    pub memo: MemoStats,
    /// The solver stores, described.
    pub stores: String,
    /// The totals of the runs this one resumed.
    pub earlier: Option<Totals>,
    /// The start of the exploration.
    pub explore_start: Instant,
}

impl Report<'_> {
    /// The run's statistics so far (`recorded_paths`: paths the trie
    /// recorded; `stopped_by`: the limit or signal that stopped the run).
    pub fn stats<'c>(
        &self,
        counted: impl Into<Counted<'c>>,
        writer: &TestWriter,
        recorded_paths: u64,
        stopped_by: Option<EarlyReason>,
        checkpoints: &CheckpointStats,
    ) -> RunStats {
        let Counted { executor, others } = counted.into();
        let mut tally = executor.tally();
        others.iter().for_each(|o| tally.add(o));
        let solver = &tally.solver;
        let (hit, total, lines_hit, lines) = executor.coverage_of(&tally.covered);
        let pct = |a: u64, b: u64| {
            if b == 0 {
                0.0
            } else {
                100.0 * a as f64 / b as f64
            }
        };
        let mut stats = RunStats {
            instructions: tally.instructions,
            wall_s: self.explore_start.elapsed().as_secs_f64(),
            paths: PathStats {
                forks_cut: tally.forks_cut,
                cuts_reopened: tally.cuts_reopened,
                ..writer.paths.clone()
            },
            tests: writer.tests(),
            solver: SolverStats {
                queries: solver.queries,
                z3_calls: solver.z3_calls,
                path_model: solver.path_model,
                nearby: solver.nearby,
                gave_up: solver.gave_up,
                clock_timeouts: solver.clock_timeouts,
                fixed_addresses: solver.fixed_addresses,
                time_s: solver.time.as_secs_f64(),
                chain: self.config.solver.chain.to_string(),
                stores: self.stores.clone(),
                reached: named_counts(&solver.reached),
                hits: named_counts(&solver.hits),
                layer_time_s: solver
                    .layer_time
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.as_secs_f64()))
                    .collect(),
                z3_strategy: named_counts(&solver.z3_strategy),
            },
            coverage: CoverageStats {
                instructions_pct: pct(hit, total),
                lines_pct: pct(lines_hit, lines),
            },
            memo: MemoStats {
                recorded_paths,
                solver_calls_avoided: tally.guided.solver_calls_avoided,
                replay_s: tally.guided.replay.as_secs_f64(),
                mismatches: tally.guided.mismatches,
                undecided_asked: tally.guided.asked_again,
                undecided_feasible: tally.guided.found_feasible,
                target_hit_queries: tally.target_hit_queries,
                ..self.memo.clone()
            },
            stopped_by: stopped_by.map(|r| r.as_str().to_string()),
            in_progress: false,
            checkpoints: checkpoints.clone(),
            total: Totals::default(),
            // Filled in at the end of the run (a checkpoint's workers are
            // still busy).
            parallel: ParallelStats::default(),
            compose: Default::default(),
            first_error: None,
        };
        stats.total = self.earlier.clone().unwrap_or_default().plus(&stats);
        stats
    }
}
