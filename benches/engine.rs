//! `make bench`: interpreter throughput, exploration rate, the searchers
//! compared on the testsuite (`search` section), `--jobs 2` against
//! `--jobs 1` (`parallel` section), the Unix-style tools on symbolic
//! arguments, files and stdin with their line coverage (`posix` section),
//! compositional runs against whole ones (`compose` section, the ICSE
//! 2015 paper's Tables I and II), and the first error with and without a
//! seed that leads to it (`seeds` section).
//!
//! Prints tables and writes `bench-results/engine.json`,
//! `bench-results/search.json`, `bench-results/parallel.json`,
//! `bench-results/posix.json`, `bench-results/compose.json` and
//! `bench-results/seeds.json`. Figures, not assertions: the tests check
//! behaviour, this measures speed. `cargo bench --bench engine -- SECTION`
//! runs one section (`throughput`, `exploration`, `search`, `parallel`,
//! `posix`, `compose`, `seeds`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mnemo::exec::{ExecConfig, Executor, PathEnd};
use mnemo::ir::Module;
use mnemo::search::{explore, ExploreConfig, FinishedPath, PathObserver, SearcherKind};
use mnemo::stop::StopRequest;
use mnemo::testgen::Toolchain;

#[path = "engine/compose.rs"]
mod compose;
#[path = "engine/parallel.rs"]
mod parallel;
#[path = "engine/posix.rs"]
mod posix;
#[path = "engine/search.rs"]
mod search;
#[path = "engine/seeds.rs"]
mod seeds;
#[path = "support.rs"]
mod support;

/// Counts ended paths, notes when the first error path ended, and stops
/// the run there when asked to.
struct Count<'a> {
    paths: u64,
    start: Instant,
    first_error: Option<Duration>,
    stop_at_error: Option<&'a StopRequest>,
}

impl PathObserver for Count<'_> {
    fn path_ended(&mut self, _: &Executor, path: FinishedPath<'_>) -> anyhow::Result<()> {
        self.paths += 1;
        if matches!(path.end, PathEnd::Error(_)) && self.first_error.is_none() {
            self.first_error = Some(self.start.elapsed());
            if let Some(stop) = self.stop_at_error {
                stop.interrupt();
            }
        }
        Ok(())
    }
}

struct Measure {
    name: String,
    instructions: u64,
    paths: u64,
    seconds: f64,
    solver_seconds: f64,
    queries: u64,
    z3_calls: u64,
    /// Seconds to the end of the first error path, if one ended.
    first_error_s: Option<f64>,
    /// The limit that stopped the run (not counting a stop at the first
    /// error), if one did.
    stopped: bool,
}

/// The program's name: its file's stem.
fn stem(source: &Path) -> String {
    source
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The flags a testsuite program's header gives clang (`cc-args: -O2`).
fn cc_args(source: &Path) -> Vec<String> {
    std::fs::read_to_string(source)
        .unwrap_or_default()
        .lines()
        .take_while(|l| !l.contains("*/"))
        .find_map(|l| l.split_once("cc-args:"))
        .map(|(_, a)| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// Compiles `source` (with its header's clang flags) and loads it with the runtime.
fn load(toolchain: &Toolchain, source: &Path) -> anyhow::Result<Arc<Module>> {
    let dir = tempfile::tempdir()?;
    let bc = dir.path().join("prog.bc");
    toolchain.compile_bitcode(source, &bc, &cc_args(source))?;
    let runtime = toolchain.runtime_bitcode()?;
    Ok(Arc::new(mnemo::ir::load_module(
        &bc,
        &[runtime.as_path()],
        false,
    )?))
}

/// How one measured run is set up.
struct Setup {
    max_depth: Option<u32>,
    searcher: SearcherKind,
    limits: ExploreConfig,
    /// End the run when the first error path ends.
    stop_at_error: bool,
}

/// Explores `module` in this process, solver stores off (the default
/// `SolverConfig` has none).
fn measure(module: &Arc<Module>, name: &str, setup: &Setup) -> anyhow::Result<Measure> {
    let config = ExecConfig {
        max_depth: setup.max_depth,
        ..ExecConfig::default()
    };
    let mut executor = Executor::new(module.clone(), config);
    let initial = executor.initial_state()?;
    let mut searcher = setup.searcher.build(1);
    let stop = StopRequest::default();
    let start = Instant::now();
    let mut count = Count {
        paths: 0,
        start,
        first_error: None,
        stop_at_error: setup.stop_at_error.then_some(&stop),
    };
    let outcome = explore(
        &mut executor,
        searcher.as_mut(),
        initial,
        &setup.limits,
        &mut count,
        &stop,
        |_, _| {},
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let s = executor.solver_stats();
    let stopped = matches!(
        outcome.stopped_by,
        Some(r) if r != mnemo::exec::EarlyReason::Interrupted
    );
    Ok(Measure {
        name: name.to_string(),
        instructions: executor.instructions,
        paths: count.paths,
        seconds,
        solver_seconds: s.time.as_secs_f64(),
        queries: s.queries,
        z3_calls: s.z3_calls,
        first_error_s: count.first_error.map(|d| d.as_secs_f64()),
        stopped,
    })
}

/// The engine's figures on one program under the default searcher.
fn measure_default(
    toolchain: &Toolchain,
    source: &Path,
    max_depth: Option<u32>,
) -> anyhow::Result<Measure> {
    let module = load(toolchain, source)?;
    let setup = Setup {
        max_depth,
        searcher: SearcherKind::default(),
        limits: ExploreConfig::default(),
        stop_at_error: false,
    };
    measure(&module, &stem(source), &setup)
}

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let toolchain = Toolchain::find()?;
    let only = support::section();
    let wants = |s: &str| only.as_deref().is_none_or(|o| o == s);
    if wants("throughput") || wants("exploration") {
        let results = engine(&root, &toolchain, &wants)?;
        let out = root.join("bench-results");
        std::fs::create_dir_all(&out)?;
        let file = out.join("engine.json");
        mnemo::files::write_atomic(&file, serde_json::to_string_pretty(&results)?.as_bytes())?;
        println!("\nwritten to {}", file.display());
    }
    if wants("search") {
        let results = search::run(&root, &toolchain)?;
        support::write_results("search", &None, &results)?;
    }
    if wants("parallel") {
        let results = parallel::run(&root, &toolchain)?;
        support::write_results("parallel", &None, &results)?;
    }
    if wants("posix") {
        let results = posix::run(&root, &toolchain)?;
        support::write_results("posix", &None, &results)?;
    }
    if wants("compose") {
        let results = compose::run(&root, &toolchain)?;
        support::write_results("compose", &None, &results)?;
    }
    if wants("seeds") {
        let results = seeds::run(&root)?;
        support::write_results("seeds", &None, &results)?;
    }
    Ok(())
}

/// Interpreter throughput and exploration rate, under the default searcher.
fn engine(
    root: &Path,
    toolchain: &Toolchain,
    wants: &dyn Fn(&str) -> bool,
) -> anyhow::Result<Vec<serde_json::Value>> {
    let mut results = Vec::new();
    if wants("throughput") {
        let m = measure_default(
            toolchain,
            &root.join("benches/programs/concrete_loop.c"),
            None,
        )?;
        println!(
            "interpreter throughput: {} instructions in {:.3}s = {:.2} M instructions/s",
            m.instructions,
            m.seconds,
            m.instructions as f64 / m.seconds / 1e6
        );
        results.push(serde_json::json!({
            "bench": "throughput", "program": m.name, "instructions": m.instructions,
            "seconds": m.seconds, "instructions_per_s": m.instructions as f64 / m.seconds,
        }));
    }
    if !wants("exploration") {
        return Ok(results);
    }

    println!(
        "\n{:<28} {:>7} {:>9} {:>10} {:>9} {:>9} {:>8}",
        "exploration", "paths", "seconds", "paths/s", "queries", "z3 calls", "solver%"
    );
    for (prog, depth) in [
        ("paper_green_m.c", None),
        ("paper_tritype.c", None),
        ("paper_memoise_testloop1.c", None),
        ("paper_bankaccount.c", None),
        ("paper_wbs.c", None),
        ("ptr_symbolic_index.c", None),
    ] {
        let path = root.join("testsuite").join(prog);
        if !path.exists() {
            println!("{prog:<28} (missing)");
            continue;
        }
        let m = measure_default(toolchain, &path, depth)?;
        let share = if m.seconds > 0.0 {
            100.0 * m.solver_seconds / m.seconds
        } else {
            0.0
        };
        println!(
            "{:<28} {:>7} {:>9.3} {:>10.1} {:>9} {:>9} {:>7.1}%",
            m.name,
            m.paths,
            m.seconds,
            m.paths as f64 / m.seconds,
            m.queries,
            m.z3_calls,
            share
        );
        results.push(serde_json::json!({
            "bench": "exploration", "program": m.name, "max_depth": depth, "paths": m.paths,
            "seconds": m.seconds, "paths_per_s": m.paths as f64 / m.seconds, "instructions": m.instructions,
            "solver_queries": m.queries, "z3_calls": m.z3_calls, "solver_share": share / 100.0,
        }));
    }
    Ok(results)
}
