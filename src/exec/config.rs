//! What the executor needs to know from the command line.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashSet;

use super::posix::HostFile;
use crate::solver::SolverConfig;

/// `--max-stack-frames` unless given: KLEE's default.
pub const DEFAULT_MAX_STACK_FRAMES: u32 = 8192;

/// Options of the executor proper (limits of the run are the explorer's).
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
    /// The messages `klee_warning_once` has printed in the run.
    pub said_once: SaidOnce,
}

/// What a run has said once (`klee_warning_once`): one set for every
/// executor made from clones of one [`ExecConfig`], so that a run's
/// workers print each message once between them, as one executor does.
#[derive(Clone, Debug, Default)]
pub struct SaidOnce(Arc<Mutex<FxHashSet<String>>>);

impl SaidOnce {
    /// Whether `message` is said for the first time in the run (and from
    /// now on, it has been).
    pub fn first(&self, message: &str) -> bool {
        let mut said = self.0.lock().unwrap_or_else(|p| p.into_inner());
        !said.contains(message) && said.insert(message.to_string())
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
            said_once: SaidOnce::default(),
        }
    }
}
