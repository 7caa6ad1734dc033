//! What the executor needs to know from the command line.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use rustc_hash::FxHashSet;

use super::fork_share::SiteForks;
use super::posix::HostFile;
use super::seeds::{Seed, SeedFit};
use crate::solver::SolverConfig;

/// `--max-stack-frames` unless given: KLEE's default.
pub const DEFAULT_MAX_STACK_FRAMES: u32 = 8192;

/// Options of the executor proper (limits of the run are the explorer's),
/// and what it shares with the other executors of its run.
#[derive(Clone, Debug)]
pub struct ExecConfig {
    /// A path taking more choice points than this ends early (`max-depth`).
    pub max_depth: Option<u32>,
    /// A call that would make a path's stack deeper than this many frames
    /// ends the path early (`max-stack`).
    pub max_stack_frames: u32,
    /// The program's argv, the program name first.
    pub argv: Vec<String>,
    /// The function to start in.
    pub entry: String,
    /// The arguments hold KLEE's POSIX options: the run starts in the
    /// runtime's `__mnemo_posix_start`, which expands them before `entry`
    /// (which must then be `main`).
    pub posix: bool,
    /// The host files the program may read (`--file`).
    pub host_files: Vec<HostFile>,
    /// Forward the program's writes to stdout/stderr.
    pub show_output: bool,
    /// The solver chain and its settings.
    pub solver: SolverConfig,
    /// Source files whose lines count for coverage are those outside this
    /// directory (the runtime's own C code).
    pub runtime_dir: Option<String>,
    /// A guided path at which the trie does not fit the program ends there
    /// (certification) instead of going on unguided.
    pub strict_guide: bool,
    /// `--max-site-fork-share`: the share of the run's forks past which a
    /// branch site stops forking (see `fork_share`); `None`: no bound.
    pub max_site_fork_share: Option<f64>,
    /// `--max-forks`: the forks the run may make, all its workers
    /// together; past them a path goes the way its model goes.
    pub max_forks: Option<u64>,
    /// The recorded tests whose inputs the run follows first.
    pub seeds: Vec<Arc<Seed>>,
    /// How a seed's object may differ in size from its input.
    pub seed_fit: SeedFit,
    /// `--only-seed`: a path that leaves its seeds ends there.
    pub only_seed: bool,
    /// `--silent-klee-assume`: a `klee_assume` the path cannot meet ends
    /// it silently rather than as a user error.
    pub silent_assume: bool,
    /// `--write-cov`: each path keeps the source lines it executes.
    pub write_lines: bool,
    /// `--seed-time`: past this moment, paths follow no seed.
    pub seeding_until: Option<Instant>,
    /// What this executor shares with the run's other executors.
    pub shared: RunShared,
}

/// What the executors of one run share: every executor made from clones
/// of one [`ExecConfig`] (a run's workers) sees the same, so that they
/// behave as one executor would.
#[derive(Clone, Debug, Default)]
pub struct RunShared(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    /// The messages `klee_warning_once` has printed.
    said_once: Mutex<FxHashSet<String>>,
    /// The forks of each branch site (`--max-site-fork-share`).
    site_forks: Mutex<SiteForks>,
}

impl RunShared {
    /// Whether `message` is said for the first time in the run (and from
    /// now on, it has been).
    pub fn first_saying(&self, message: &str) -> bool {
        let mut said = self.0.said_once.lock().unwrap_or_else(|p| p.into_inner());
        !said.contains(message) && said.insert(message.to_string())
    }

    /// The run's forks by branch site.
    pub(super) fn site_forks(&self) -> MutexGuard<'_, SiteForks> {
        self.0.site_forks.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Default for ExecConfig {
    fn default() -> Self {
        ExecConfig {
            max_depth: None,
            max_stack_frames: DEFAULT_MAX_STACK_FRAMES,
            argv: vec!["prog".to_string()],
            entry: "main".to_string(),
            posix: false,
            host_files: Vec::new(),
            show_output: false,
            solver: SolverConfig::default(),
            runtime_dir: None,
            strict_guide: false,
            max_site_fork_share: None,
            max_forks: None,
            seeds: Vec::new(),
            seed_fit: SeedFit::default(),
            only_seed: false,
            silent_assume: false,
            write_lines: false,
            seeding_until: None,
            shared: RunShared::default(),
        }
    }
}
