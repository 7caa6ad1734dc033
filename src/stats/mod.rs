//! Run statistics: the counters of `stats.json` (a stable interface scripts
//! rely on; `docs/output.md` documents it), and the progress display.

mod progress;
mod table;

pub use progress::Progress;
pub use table::{table, TableFormat};

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The contents of `stats.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunStats {
    /// LLVM instructions executed, over all paths.
    pub instructions: u64,
    pub wall_s: f64,
    pub paths: PathStats,
    /// Test files written.
    pub tests: u64,
    pub solver: SolverStats,
    pub coverage: CoverageStats,
    #[serde(default)]
    pub memo: MemoStats,
    /// The limit or signal that stopped the run (an early reason:
    /// `max-time`, `interrupted`, ...); `None` when it explored everything.
    #[serde(default)]
    pub stopped_by: Option<String>,
    /// Written at a checkpoint, while the run was going on: what it had
    /// found by then (the file a run killed after it leaves).
    #[serde(default)]
    pub in_progress: bool,
    #[serde(default)]
    pub checkpoints: CheckpointStats,
    /// This run and the runs it resumed, as their statistics in the output
    /// directory counted them.
    #[serde(default)]
    pub total: Totals,
    #[serde(default)]
    pub parallel: ParallelStats,
    /// What `--compose` did (all zero without it).
    #[serde(default)]
    pub compose: ComposeStats,
    /// When the first error path ended (`None`: none did).
    #[serde(default)]
    pub first_error: Option<FirstError>,
}

/// The work a run had done when its first error path ended: what a search
/// for one error costs (the summaries' work, `compose.init_*`, not
/// included).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FirstError {
    pub queries: u64,
    pub z3_calls: u64,
    /// Seconds since the exploration started.
    pub seconds: f64,
}

/// Compositional runs (`--compose`): the summaries and the calls composed
/// from them.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ComposeStats {
    pub enabled: bool,
    /// Summaries built by this run, and read from the memo directory.
    pub summaries_built: u64,
    pub summaries_reused: u64,
    /// Functions reachable from the entry without a summary, by reason.
    pub unsummarised: BTreeMap<String, u64>,
    /// Paths over all summaries.
    pub summary_paths: u64,
    /// The solver's work building summaries (counted apart from the
    /// run's `solver`), and the time building or reading them.
    pub init_queries: u64,
    pub init_z3_calls: u64,
    pub init_s: f64,
    /// Calls composed from a summary, and executed as usual by reason.
    pub calls_composed: u64,
    pub calls_executed: BTreeMap<String, u64>,
    /// A callee's paths checked against a caller's path, and found
    /// feasible there.
    pub paths_checked: u64,
    pub paths_feasible: u64,
    /// The heuristic directing the composed calls (`h1`, `h2`; empty:
    /// none).
    #[serde(default)]
    pub heuristic: String,
    /// H1: errors of a summary's paths reported at calls, the callee not
    /// replayed.
    #[serde(default)]
    pub errors_reported: u64,
    /// H2: a summary's paths left out at calls as leading to no target, and
    /// calls where no path kept was feasible (the caller's path ended).
    #[serde(default)]
    pub paths_pruned: u64,
    #[serde(default)]
    pub calls_pruned: u64,
    /// Choice points inside replayed callees decided with the solver off,
    /// and the feasibility checks that saved.
    pub replayed_choices: u64,
    pub solver_calls_avoided: u64,
    /// Replays where the model did not decide a choice and the solver
    /// decided the rest of the callee.
    pub replays_abandoned: u64,
}

/// What the run's checkpoints cost.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CheckpointStats {
    /// Checkpoints written.
    pub count: u64,
    /// Seconds spent writing them, in all and for the longest one.
    pub time_s: f64,
    pub longest_s: f64,
    /// Of those, the checkpoints that wrote the trie whole (the others
    /// appended its changes to its journal).
    pub whole_tries: u64,
}

/// Counters summed over a run and the runs it resumed.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Totals {
    /// Runs: 1, and 1 more per resume.
    pub runs: u64,
    pub instructions: u64,
    pub wall_s: f64,
    pub solver_queries: u64,
    pub solver_time_s: f64,
}

impl Totals {
    /// What an earlier run's statistics count: its own totals, or its own
    /// counters when it resumed nothing (or was written before totals were).
    pub fn of(stats: &RunStats) -> Totals {
        if stats.total.runs > 0 {
            return stats.total.clone();
        }
        Totals {
            runs: 1,
            instructions: stats.instructions,
            wall_s: stats.wall_s,
            solver_queries: stats.solver.queries,
            solver_time_s: stats.solver.time_s,
        }
    }

    /// These totals with one more run's counters added.
    pub fn plus(&self, run: &RunStats) -> Totals {
        Totals {
            runs: self.runs + 1,
            instructions: self.instructions + run.instructions,
            wall_s: self.wall_s + run.wall_s,
            solver_queries: self.solver_queries + run.solver.queries,
            solver_time_s: self.solver_time_s + run.solver.time_s,
        }
    }
}

/// How the workers of the run shared it (`--jobs`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ParallelStats {
    /// Workers.
    pub jobs: u64,
    /// Seconds each worker explored (not waiting for work), worker 0 first.
    pub busy_s: Vec<f64>,
    /// The longest busy time over the mean: 1 when the work was evenly
    /// shared.
    pub imbalance: f64,
    /// Pending states that moved from one worker to another.
    pub moved: u64,
    /// Seconds the workers waited, all together, for another to be done
    /// reporting a path (the trie and the test writer are the run's).
    #[serde(default)]
    pub report_wait_s: f64,
    /// Seconds, all together, the workers spent reporting paths: what no
    /// two workers can do at once.
    #[serde(default)]
    pub report_s: f64,
    /// Seconds, all together, the workers waited at checkpoints for the
    /// others to mark their paths and for the save.
    #[serde(default)]
    pub checkpoint_wait_s: f64,
}

/// What the run's trie did: reuse of an earlier run, and its own cost.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct MemoStats {
    /// The trie file the run read and wrote.
    pub trie: String,
    /// Whether the run followed the trie of an earlier run.
    pub reused: bool,
    /// Candidate nodes explored anew (boundary nodes, stopped paths).
    pub candidates: u64,
    /// Tests of paths not run again, written from the trie.
    pub kept_tests: u64,
    /// Paths this run executed and recorded.
    pub recorded_paths: u64,
    /// Solver queries answered by the trie on replayed prefixes.
    pub solver_calls_avoided: u64,
    /// Seconds spent replaying recorded prefixes with the solver off
    /// (over every worker).
    #[serde(default)]
    pub replay_s: f64,
    /// Choice points where the trie did not fit the program.
    pub mismatches: u64,
    /// With `--retry-undecided`: the recorded choice points with an
    /// undecided alternative the run went back to, the alternatives it
    /// asked about again, and those found feasible (and explored).
    #[serde(default)]
    pub retry_nodes: u64,
    #[serde(default)]
    pub undecided_asked: u64,
    #[serde(default)]
    pub undecided_feasible: u64,
    /// Alternatives the saved trie holds undecided (see `--retry-undecided`).
    #[serde(default)]
    pub undecided: u64,
    /// Nodes of the saved trie.
    pub nodes: u64,
    /// Size of the saved trie file.
    pub trie_bytes: u64,
    pub load_s: f64,
    pub save_s: f64,
    /// With `--target`: the solver queries made by the time a target was
    /// first executed (`null`: never).
    pub target_hit_queries: Option<u64>,
}

/// How paths ended.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PathStats {
    pub completed: u64,
    /// Error kind -> paths.
    pub errors: BTreeMap<String, u64>,
    /// Early reason -> paths.
    pub early: BTreeMap<String, u64>,
    /// Paths pending at the time limit that got no test: the time left
    /// ran out before their inputs were solved (counted in `early` too).
    #[serde(default)]
    pub untested: u64,
    /// Paths that covered no new instruction and got no test file
    /// (`--only-new-coverage`; the trie keeps their tests, counted above).
    #[serde(default)]
    pub unwritten: u64,
    /// Alternatives left unasked at branch sites past their share of the
    /// run's forks (`--max-site-fork-share`): paths the run did not
    /// explore, some of them perhaps infeasible.
    #[serde(default)]
    pub forks_cut: u64,
    /// Choice points among those cut that were kept, and taken up again
    /// when nothing else was left to explore: their alternatives were
    /// explored after all.
    #[serde(default)]
    pub cuts_reopened: u64,
    /// Paths that ended still following a seed (`--seed-file`): the
    /// seeds' own paths, each tested with a seed's inputs.
    #[serde(default)]
    pub seeded: u64,
}

/// What the solver did.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct SolverStats {
    /// Queries entering the solver's entry point.
    pub queries: u64,
    /// Queries that reached Z3.
    pub z3_calls: u64,
    /// Feasibility questions the path's own model answered without a
    /// query.
    #[serde(default)]
    pub path_model: u64,
    /// Feasibility questions the inputs next to the path's model answered
    /// by evaluation (one input byte changed, or every byte the question
    /// reads fixed), without a query.
    #[serde(default)]
    pub nearby: u64,
    /// Alternatives of forks given up because their query timed out while
    /// the path's model showed another one feasible (the path went on with
    /// the inputs of the hard condition fixed).
    #[serde(default)]
    pub gave_up: u64,
    /// Z3 calls of probes stopped by the wall clock rather than by their
    /// work running out: the load decided those (0: no alternative the
    /// run gave up depended on it).
    #[serde(default)]
    pub clock_timeouts: u64,
    /// Symbolic pointers the path's constraints gave one address: the
    /// accesses through them after the first are at a known place.
    #[serde(default)]
    pub fixed_addresses: u64,
    pub time_s: f64,
    /// The layers of the solver chain, in order (`--solver-chain`).
    #[serde(default)]
    pub chain: String,
    /// The solver stores in use, in lookup order (empty: none).
    #[serde(default)]
    pub stores: String,
    /// Layer name -> queries that reached that layer.
    #[serde(default)]
    pub reached: BTreeMap<String, u64>,
    /// Layer name -> queries that layer answered without the layers after it.
    #[serde(default)]
    pub hits: BTreeMap<String, u64>,
    /// Layer name -> seconds spent in that layer itself.
    #[serde(default)]
    pub layer_time_s: BTreeMap<String, f64>,
    /// Z3 attempts of the `z3-auto` layer by strategy (`stack`, `fresh`),
    /// and `retried`: attempts that timed out and went to the other one.
    #[serde(default)]
    pub z3_strategy: BTreeMap<String, u64>,
}

/// Coverage of the program's own code (the runtime's excluded).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CoverageStats {
    pub instructions_pct: f64,
    pub lines_pct: f64,
}

impl RunStats {
    pub fn errors(&self) -> u64 {
        self.paths.errors.values().sum()
    }

    pub fn early(&self) -> u64 {
        self.paths.early.values().sum()
    }

    /// Reads a `stats.json`.
    pub fn read(path: &Path) -> std::io::Result<RunStats> {
        let text = std::fs::read(path)?;
        serde_json::from_slice(&text).map_err(std::io::Error::other)
    }

    /// Writes `stats.json` atomically.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        crate::files::write_atomic(path, text.as_bytes())
    }

    /// The summary printed at the end of a run.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "mnemo: done: {} paths completed, {} with errors, {} ended early; {} tests\n",
            self.paths.completed,
            self.errors(),
            self.early(),
            self.tests
        );
        for (k, n) in &self.paths.errors {
            s += &format!("mnemo:   error {k}: {n}\n");
        }
        for (k, n) in &self.paths.early {
            s += &format!("mnemo:   early {k}: {n}\n");
        }
        if self.paths.forks_cut > 0 {
            s += &format!(
                "mnemo:   alternatives cut (past a site's share of the forks, the run's --max-forks, or klee_set_forking(0)): {}\n",
                self.paths.forks_cut
            );
        }
        if self.paths.seeded > 0 {
            s += &format!(
                "mnemo:   paths that followed a seed: {}\n",
                self.paths.seeded
            );
        }
        if self.paths.cuts_reopened > 0 {
            s += &format!(
                "mnemo:   cut choice points taken up again when nothing else was left: {}\n",
                self.paths.cuts_reopened
            );
        }
        // Paths are missing then, which stats.json alone said.
        if self.solver.gave_up > 0 {
            s += &format!(
                "mnemo:   alternatives given up, their solver query past its probe's time: {}\n",
                self.solver.gave_up
            );
        }
        // Which of those a machine as fast but less busy would have kept.
        if self.solver.clock_timeouts > 0 {
            s += &format!(
                "mnemo:   probes stopped by the clock before their work ran out \
                 (the machine's load decided them): {}\n",
                self.solver.clock_timeouts
            );
        }
        if self.memo.undecided > 0 {
            s += &format!(
                "mnemo:   alternatives the trie holds undecided (a re-run with \
                 --retry-undecided and a larger --solver-timeout asks again): {}\n",
                self.memo.undecided
            );
        }
        s += &format!(
            "mnemo: {} instructions in {:.2}s; solver: {} queries, {} Z3 calls, {:.2}s; coverage: {:.1}% instructions, {:.1}% lines\n",
            self.instructions,
            self.wall_s,
            self.solver.queries,
            self.solver.z3_calls,
            self.solver.time_s,
            self.coverage.instructions_pct,
            self.coverage.lines_pct
        );
        if self.memo.retry_nodes > 0 {
            s += &format!(
                "mnemo: memo: {} undecided alternatives asked again at {} choice points: {} feasible\n",
                self.memo.undecided_asked, self.memo.retry_nodes, self.memo.undecided_feasible
            );
        }
        if self.memo.reused {
            s += &format!(
                "mnemo: memo: {} tests kept, {} candidates explored, {} solver queries answered by the trie\n",
                self.memo.kept_tests, self.memo.candidates, self.memo.solver_calls_avoided
            );
        }
        if self.parallel.jobs > 1 {
            let busy: Vec<String> = self
                .parallel
                .busy_s
                .iter()
                .map(|b| format!("{b:.2}"))
                .collect();
            s += &format!(
                "mnemo: {} workers, busy {}s; imbalance {:.2}; {} states moved; \
                 {:.2}s reporting paths, {:.2}s waiting to report, {:.2}s at checkpoints\n",
                self.parallel.jobs,
                busy.join("/"),
                self.parallel.imbalance,
                self.parallel.moved,
                self.parallel.report_s,
                self.parallel.report_wait_s,
                self.parallel.checkpoint_wait_s
            );
        }
        if self.memo.mismatches > 0 {
            s += &format!(
                "mnemo: memo: the trie did not fit the program at {} choice points\n",
                self.memo.mismatches
            );
        }
        s
    }
}

/// The process's own resident memory in MiB (Linux), for `--max-memory`:
/// the pages it allocated (heap, stacks), not those of the libraries and
/// other files it maps, which are 50 MiB of LLVM and Z3 code before a run
/// has allocated anything.
pub fn resident_mb() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mut fields = statm.split_whitespace().skip(1);
    let resident: u64 = fields.next()?.parse().ok()?;
    let file_backed: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf only reads a constant of the system.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096);
    Some(resident.saturating_sub(file_backed) * page / (1024 * 1024))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_json_has_the_documented_keys() {
        let mut s = RunStats::default();
        s.paths.errors.insert("assert".into(), 2);
        let v: serde_json::Value = serde_json::to_value(&s).expect("serializes");
        for key in ["instructions", "wall_s", "tests"] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert_eq!(v["paths"]["errors"]["assert"], 2);
        assert!(v["paths"]["completed"].is_u64());
        assert!(v["paths"]["early"].is_object());
        assert!(
            v["solver"]["queries"].is_u64()
                && v["solver"]["z3_calls"].is_u64()
                && v["solver"]["time_s"].is_f64()
        );
        assert!(v["coverage"]["instructions_pct"].is_f64() && v["coverage"]["lines_pct"].is_f64());
    }

    #[test]
    fn the_summary_says_when_the_solver_gave_alternatives_up() {
        let mut s = RunStats::default();
        assert!(!s.summary().contains("given up"));
        s.solver.gave_up = 3;
        let text = s.summary();
        assert!(text.contains("alternatives given up"), "{text}");
        assert!(text.contains(": 3\n"), "{text}");
        assert!(!text.contains("undecided"), "{text}");
        assert!(!text.contains("clock"), "{text}");
        s.solver.clock_timeouts = 2;
        let text = s.summary();
        assert!(text.contains("stopped by the clock"), "{text}");
        assert!(text.contains("decided them): 2\n"), "{text}");
        // Given up or not, what the trie keeps undecided is named, with
        // the way to ask again.
        s.memo.undecided = 4;
        let text = s.summary();
        assert!(text.contains("holds undecided"), "{text}");
        assert!(
            text.contains("--retry-undecided and a larger --solver-timeout"),
            "{text}"
        );
        assert!(text.contains(": 4\n"), "{text}");
    }

    #[test]
    fn the_summary_says_what_several_workers_waited_for() {
        let mut s = RunStats::default();
        assert!(!s.summary().contains("workers"));
        s.parallel = ParallelStats {
            jobs: 2,
            busy_s: vec![1.0, 0.5],
            imbalance: 1.33,
            moved: 7,
            report_wait_s: 0.25,
            report_s: 0.5,
            checkpoint_wait_s: 0.1,
        };
        let text = s.summary();
        assert!(
            text.contains(
                "mnemo: 2 workers, busy 1.00/0.50s; imbalance 1.33; 7 states moved; \
                 0.50s reporting paths, 0.25s waiting to report, 0.10s at checkpoints\n"
            ),
            "{text}"
        );
    }
}
