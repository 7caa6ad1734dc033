//! `mnemo certify`: replays a whole trie with the solver off and says, for
//! each recorded path, whether the program still takes the recorded
//! choices and ends the same way. A trie that does not fit is reported
//! path by path, never silently followed.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;

use crate::exec::{ExecConfig, Executor, PathEnd};
use crate::memo::record::end_of;
use crate::memo::{self, Marks, NodeId, Trie, TrieGuide};
use crate::run::{load_program, program_key, runtime_sources, OPTIMIZED_KEY};
use crate::search::{explore, Dfs, ExploreConfig, FinishedPath, PathObserver};
use crate::solver::SolverConfig;
use crate::stop::StopRequest;

/// What `mnemo certify` needs.
#[derive(Clone, Debug)]
pub struct CertifyConfig {
    pub program: PathBuf,
    pub memo_dir: PathBuf,
    pub entry: String,
    pub program_args: Vec<String>,
    /// `--file`: the host files the recorded run could read.
    pub host_files: Vec<PathBuf>,
    pub link_runtime: bool,
    /// `--optimize`: the trie is an optimized run's, of the program
    /// optimized as it was.
    pub optimize: bool,
}

/// The verdict on one recorded path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathVerdict {
    /// The program takes the recorded choices and ends as recorded.
    Holds,
    /// The run that recorded the path was stopped on it; the program takes
    /// its choices as far as they go.
    HoldsUntilStopped,
    /// The program ends otherwise than recorded.
    EndsOtherwise { recorded: String, now: String },
    /// The program leaves the recorded choices.
    Leaves(String),
    /// No replayed path reached it (an earlier choice no longer fits).
    NotReached,
}

/// The report of a certification.
#[derive(Clone, Debug)]
pub struct CertifyReport {
    pub trie: PathBuf,
    /// Functions whose bodies changed since the trie was recorded.
    pub changed: Vec<String>,
    /// `(leaf, decisions from the root as text, verdict)` for every
    /// recorded path, in depth-first order.
    pub paths: Vec<(NodeId, String, PathVerdict)>,
    /// Queries that reached the solver (none when the trie fits).
    pub solver_queries: u64,
    pub solver_calls_avoided: u64,
}

impl CertifyReport {
    /// Whether every recorded path holds.
    pub fn holds(&self) -> bool {
        self.paths
            .iter()
            .all(|(_, _, v)| matches!(v, PathVerdict::Holds | PathVerdict::HoldsUntilStopped))
    }

    pub fn count(&self, f: impl Fn(&PathVerdict) -> bool) -> usize {
        self.paths.iter().filter(|(_, _, v)| f(v)).count()
    }
}

impl fmt::Display for CertifyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "trie: {}", self.trie.display())?;
        if !self.changed.is_empty() {
            writeln!(
                f,
                "changed since the trie was recorded: {}",
                self.changed.join(", ")
            )?;
        }
        for (i, (_, path, v)) in self.paths.iter().enumerate() {
            let verdict = match v {
                PathVerdict::Holds => "holds".to_string(),
                PathVerdict::HoldsUntilStopped => "holds (up to where its run stopped)".to_string(),
                PathVerdict::EndsOtherwise { recorded, now } => {
                    format!("DIFFERS: recorded {recorded}, now {now}")
                }
                PathVerdict::Leaves(why) => format!("DIFFERS: {why}"),
                PathVerdict::NotReached => "NOT REACHED: an earlier choice no longer fits".into(),
            };
            writeln!(f, "path {:>4} [{path}]: {verdict}", i + 1)?;
        }
        let ok = self.count(|v| matches!(v, PathVerdict::Holds | PathVerdict::HoldsUntilStopped));
        writeln!(
            f,
            "{ok} of {} recorded paths hold; {} solver queries ({} answered by the trie)",
            self.paths.len(),
            self.solver_queries,
            self.solver_calls_avoided
        )
    }
}

/// Compares each replayed path's end with its leaf.
struct Checker<'a> {
    trie: &'a Trie,
    verdicts: Vec<Option<PathVerdict>>,
}

impl PathObserver for Checker<'_> {
    fn path_ended(&mut self, executor: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
        let Some(node) = path.state.guide.map(|g| NodeId(g.0)) else {
            return Ok(());
        };
        let recorded = self.trie.node(node).end.clone();
        let verdict = match (&recorded, end_of(&path.end)) {
            (Some(r), _) if r.is_stopped() => PathVerdict::HoldsUntilStopped,
            (_, None) => PathVerdict::Leaves(
                executor
                    .guided
                    .last_mismatch
                    .clone()
                    .unwrap_or_else(|| "the replay left the trie".into()),
            ),
            (Some(r), Some(now)) if *r == now => match self.trie.node(node).test.as_ref() {
                // The recorded test must still drive the program down every
                // recorded choice (certification adds each as a constraint).
                Some(t) if !satisfies(&path.state, t) => PathVerdict::Leaves(
                    "its recorded test no longer takes the recorded choices".into(),
                ),
                _ => PathVerdict::Holds,
            },
            (r, Some(now)) => PathVerdict::EndsOtherwise {
                recorded: r.as_ref().map_or("a choice point".into(), |e| e.describe()),
                now: now.describe(),
            },
        };
        // A path that leaves the trie (ends pruned) fails every leaf below
        // where it left; any other path ends at its own node.
        let judged = if matches!(path.end, PathEnd::Pruned) {
            self.trie.subtree(node)
        } else {
            vec![node]
        };
        for id in judged {
            if self.verdicts[id.index()].is_none() && self.trie.node(id).end.is_some() {
                self.verdicts[id.index()] = Some(verdict.clone());
            }
        }
        Ok(())
    }
}

/// Whether a test's inputs satisfy a state's path condition.
fn satisfies(state: &crate::exec::State, test: &memo::StoredTest) -> bool {
    let a = state.assignment(test.inputs.iter().map(|(_, bytes)| bytes));
    state
        .constraints
        .iter()
        .all(|c| crate::expr::eval(c, &a) != 0)
}

/// Certifies the program's trie in the memo directory.
pub fn certify(config: &CertifyConfig) -> anyhow::Result<CertifyReport> {
    let (toolchain, module) = load_program(&config.program, config.link_runtime, config.optimize)?;
    let mut key = program_key(&config.program);
    if config.optimize {
        key.push_str(OPTIMIZED_KEY);
    }
    let trie_file = memo::trie_path(&config.memo_dir, &key);
    let trie = memo::file::load(&trie_file)
        .with_context(|| format!("cannot certify {}", config.program.display()))?;
    let changed = trie.recorded.changed_functions(&module);
    let trie = Arc::new(trie);
    let mut program_name = config.program.display().to_string();
    if program_name.is_empty() {
        program_name = "prog".into();
    }
    let mut argv = vec![program_name];
    argv.extend(config.program_args.iter().cloned());
    let (posix, host_files) = crate::run::environment_of(&config.program_args, &config.host_files)?;
    let exec_config = ExecConfig {
        max_depth: trie.recorded.max_depth,
        max_stack_frames: crate::exec::DEFAULT_MAX_STACK_FRAMES,
        argv,
        entry: config.entry.clone(),
        posix,
        host_files,
        show_output: false,
        solver: SolverConfig::default(),
        runtime_dir: runtime_sources(&toolchain),
        strict_guide: true,
        max_site_fork_share: None,
        max_forks: None,
        ..Default::default()
    };
    let mut executor = Executor::new(module.clone(), exec_config);
    executor.set_guide(Arc::new(TrieGuide::new(
        trie.clone(),
        Marks::all(&trie),
        &module,
    )));
    let mut checker = Checker {
        trie: &trie,
        verdicts: vec![None; trie.arena_len()],
    };
    let initial = executor.initial_state()?;
    let mut searcher = Dfs::default();
    explore(
        &mut executor,
        &mut searcher,
        initial,
        &ExploreConfig::default(),
        &mut checker,
        &StopRequest::default(),
        |_, _| {},
    )?;
    let paths = trie
        .leaves()
        .map(|leaf| {
            let text = trie.path_text(leaf);
            let v = checker.verdicts[leaf.index()]
                .clone()
                .unwrap_or(PathVerdict::NotReached);
            (leaf, text, v)
        })
        .collect();
    let solver = executor.solver_stats();
    Ok(CertifyReport {
        trie: trie_file,
        changed,
        paths,
        solver_queries: solver.queries,
        solver_calls_avoided: executor.guided.solver_calls_avoided,
    })
}
