//! One `mnemo run`: load the program with the runtime, explore it, write
//! the tests and the statistics. The binary is a thin layer over this.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::exec::{ExecConfig, Executor};
use crate::ir;
use crate::search::{explore, ExploreConfig, SearcherKind};
use crate::solver::store::{self, SharedStore};
use crate::solver::SolverConfig;
use crate::stats::{CoverageStats, Progress, RunStats, SolverStats};
use crate::testgen::{TestWriter, Toolchain};

/// Everything a run needs from the command line.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub program: PathBuf,
    pub output_dir: PathBuf,
    /// Arguments given to the program after its name.
    pub program_args: Vec<String>,
    pub max_depth: Option<u32>,
    pub max_time: Option<Duration>,
    pub max_instructions: Option<u64>,
    pub max_memory_mb: Option<u64>,
    pub searcher: SearcherKind,
    pub seed: u64,
    pub solver: SolverConfig,
    /// `--store` specs; empty means the default embedded store, `none`
    /// means no store beyond the run.
    pub stores: Vec<String>,
    pub show_output: bool,
    pub entry: String,
    /// Link the runtime's C library into the program.
    pub link_runtime: bool,
    pub quiet: bool,
}

/// The stores the chain's store layers use, or `None` when the chain has
/// none or `--store none` was given. A store that cannot be opened is a
/// warning: the run goes on without it (and never touches its file).
fn open_stores(config: &RunConfig) -> Option<SharedStore> {
    if !config.solver.chain.uses_stores() {
        return None;
    }
    let specs: Vec<String> = if config.stores.is_empty() {
        store::default_path()
            .map(|p| vec![p.display().to_string()])
            .unwrap_or_default()
    } else {
        config.stores.clone()
    };
    if specs.iter().any(|s| s == "none") {
        return None;
    }
    let (multi, errors) = store::open_all(&specs);
    for e in errors {
        eprintln!("mnemo: warning: {e}; going on without it");
    }
    (!multi.is_empty()).then(|| SharedStore(Arc::new(multi)))
}

/// Runs the program and writes everything into the output directory.
pub fn run(config: &RunConfig, interrupted: &AtomicBool) -> anyhow::Result<RunStats> {
    let toolchain = if config.link_runtime {
        Some(Toolchain::find()?)
    } else {
        None
    };
    let runtime = match &toolchain {
        Some(t) => vec![t.runtime_bitcode()?],
        None => Vec::new(),
    };
    let runtime_refs: Vec<&std::path::Path> = runtime.iter().map(|p| p.as_path()).collect();
    let module = ir::load_module(&config.program, &runtime_refs)
        .with_context(|| format!("cannot load {}", config.program.display()))?;
    let module = Arc::new(module);

    let program_name = config.program.display().to_string();
    let mut argv = vec![program_name.clone()];
    argv.extend(config.program_args.iter().cloned());
    let exec_config = ExecConfig {
        max_depth: config.max_depth,
        argv,
        entry: config.entry.clone(),
        show_output: config.show_output,
        solver: SolverConfig {
            store: open_stores(config),
            ..config.solver.clone()
        },
        runtime_dir: toolchain
            .as_ref()
            .map(|t| t.runtime_dir.join("libc").display().to_string()),
    };
    let mut writer = TestWriter::create(
        &config.output_dir,
        &program_name,
        config.program_args.clone(),
    )?;
    let exec_stores = exec_config
        .solver
        .store
        .as_ref()
        .map(|s| s.0.describe())
        .unwrap_or_default();
    let mut executor = Executor::new(module, exec_config);
    let initial = executor.initial_state()?;
    let mut searcher = config.searcher.build(config.seed);
    let limits = ExploreConfig {
        max_time: config.max_time,
        max_instructions: config.max_instructions,
        max_memory_mb: config.max_memory_mb,
    };
    let progress = Progress::new(config.quiet);
    let outcome = explore(
        &mut executor,
        searcher.as_mut(),
        initial,
        &limits,
        &mut writer,
        interrupted,
        |ex, p| {
            progress.update(
                p.ended,
                p.pending,
                ex.instructions,
                ex.solver_stats().queries,
            )
        },
    );
    progress.finish();
    // Whatever happened, keep what was found.
    let finish = writer.finish();
    let outcome = outcome?;
    finish?;

    let solver = executor.solver_stats();
    let (hit, total, lines_hit, lines) = executor.coverage();
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            100.0 * a as f64 / b as f64
        }
    };
    let stats = RunStats {
        instructions: executor.instructions,
        wall_s: outcome.elapsed.as_secs_f64(),
        paths: writer.paths.clone(),
        tests: writer.tests(),
        solver: SolverStats {
            queries: solver.queries,
            z3_calls: solver.z3_calls,
            time_s: solver.time.as_secs_f64(),
            chain: config.solver.chain.to_string(),
            stores: exec_stores,
            reached: solver
                .reached
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            hits: solver
                .hits
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
            layer_time_s: solver
                .layer_time
                .iter()
                .map(|(k, v)| (k.to_string(), v.as_secs_f64()))
                .collect(),
        },
        coverage: CoverageStats {
            instructions_pct: pct(hit, total),
            lines_pct: pct(lines_hit, lines),
        },
    };
    let path = config.output_dir.join("stats.json");
    stats
        .write(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    if !executor.unsupported_externals.is_empty() {
        let mut names: Vec<_> = executor.unsupported_externals.iter().cloned().collect();
        names.sort();
        eprintln!("mnemo: unsupported external calls: {}", names.join(", "));
    }
    if let Some(reason) = outcome.stopped_by {
        eprintln!(
            "mnemo: stopped at a limit ({}); pending paths got tests",
            reason.as_str()
        );
    }
    Ok(stats)
}
