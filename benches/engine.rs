//! `make bench`: interpreter throughput and exploration rate.
//!
//! Prints a table and writes `bench-results/engine.json`. Figures, not
//! assertions: the tests check behaviour, this measures speed.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use mnemo::exec::{ExecConfig, Executor};
use mnemo::search::{explore, ExploreConfig, FinishedPath, PathObserver, SearcherKind};
use mnemo::testgen::Toolchain;

/// Counts ended paths and nothing else.
#[derive(Default)]
struct Count {
    paths: u64,
}

impl PathObserver for Count {
    fn path_ended(&mut self, _: &Executor, _: &FinishedPath<'_>) -> anyhow::Result<()> {
        self.paths += 1;
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
}

fn measure(
    toolchain: &Toolchain,
    source: &Path,
    max_depth: Option<u32>,
) -> anyhow::Result<Measure> {
    let dir = tempfile::tempdir()?;
    let bc = dir.path().join("prog.bc");
    toolchain.compile_bitcode(source, &bc, &[])?;
    let runtime = toolchain.runtime_bitcode()?;
    let module = Arc::new(mnemo::ir::load_module(&bc, &[runtime.as_path()])?);
    let config = ExecConfig {
        max_depth,
        ..ExecConfig::default()
    };
    let mut executor = Executor::new(module, config);
    let initial = executor.initial_state()?;
    let mut searcher = SearcherKind::Dfs.build(1);
    let mut count = Count::default();
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    explore(
        &mut executor,
        searcher.as_mut(),
        initial,
        &ExploreConfig::default(),
        &mut count,
        &stop,
        |_, _| {},
    )?;
    let seconds = start.elapsed().as_secs_f64();
    let s = executor.solver_stats();
    Ok(Measure {
        name: source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
        instructions: executor.instructions,
        paths: count.paths,
        seconds,
        solver_seconds: s.time.as_secs_f64(),
        queries: s.queries,
        z3_calls: s.z3_calls,
    })
}

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let toolchain = Toolchain::find()?;
    let mut results = Vec::new();

    let m = measure(
        &toolchain,
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
        let m = measure(&toolchain, &path, depth)?;
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
    let out = root.join("bench-results");
    std::fs::create_dir_all(&out)?;
    let file = out.join("engine.json");
    mnemo::files::write_atomic(&file, serde_json::to_string_pretty(&results)?.as_bytes())?;
    println!("\nwritten to {}", file.display());
    Ok(())
}
