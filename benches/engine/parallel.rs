//! The `parallel` section: `--jobs 2` against `--jobs 1` on subjects whose
//! single-core run takes 10 to 60 seconds: the speedup of the exploration's
//! wall time, and the imbalance of the two workers' busy times (the
//! longest over the mean). Targets: a speedup of 1.8 or more, an imbalance
//! of 1.1 or less.
//!
//! Each run is a whole `mnemo run` in this process (trie and tests
//! written), solver stores off, so that the runs do not help each other.
//! The machine's load average is printed beside each pair of runs: on a
//! machine whose cores are busy with other work, two workers cannot run
//! twice as fast as one.

use std::path::{Path, PathBuf};

use mnemo::run::RunConfig;
use mnemo::search::SearcherKind;
use mnemo::stats::RunStats;
use mnemo::stop::StopRequest;
use serde_json::{json, Value};

/// A subject: a testsuite program and its bound, explored fresh or
/// deepened from a shallower bound (`from`), where the deeper run is the
/// one measured.
struct Subject {
    program: &'static str,
    from: Option<u32>,
    depth: u32,
}

const SUBJECTS: [Subject; 3] = [
    // Nested loops on nondet guards: thousands of short paths.
    Subject {
        program: "svcomp_nested_loops",
        from: None,
        depth: 19,
    },
    // The same, deepened: the trie replays the paths to depth 15 with the
    // solver off, and the workers share the boundary nodes below.
    Subject {
        program: "svcomp_nested_loops",
        from: Some(15),
        depth: 19,
    },
    // Euclid's gcd by subtraction: few paths, long solver calls.
    Subject {
        program: "paper_gcd",
        from: None,
        depth: 44,
    },
];

fn config(bc: &Path, out: PathBuf, memo: PathBuf, depth: u32, jobs: usize) -> RunConfig {
    RunConfig {
        program: bc.to_path_buf(),
        output_dir: out,
        program_args: Vec::new(),
        max_depth: Some(depth),
        max_time: None,
        max_instructions: None,
        max_memory_mb: None,
        max_stack_frames: mnemo::exec::DEFAULT_MAX_STACK_FRAMES,
        searcher: SearcherKind::default(),
        seed: 1,
        solver: mnemo::solver::SolverConfig::default(),
        stores: vec!["none".to_string()],
        show_output: false,
        entry: "main".to_string(),
        link_runtime: true,
        quiet: true,
        memo_dir: Some(memo),
        resume: false,
        compress: false,
        targets: Vec::new(),
        heuristic: mnemo::memo::heuristic::HeuristicKind::Reachability,
        last_in_process: false,
        // Measured without checkpoints, which workers do not take.
        checkpoint: None,
        jobs,
        balance: mnemo::parallel::Balance::Dynamic,
    }
}

/// The machine's load average over the last minute.
fn load_average() -> f64 {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(f64::NAN)
}

/// Runs `s` with `jobs` workers in a fresh directory under `scratch`.
fn measure(scratch: &Path, bc: &Path, s: &Subject, jobs: usize) -> anyhow::Result<RunStats> {
    let dir = scratch.join(format!("{}-{:?}-{}-j{jobs}", s.program, s.from, s.depth));
    let memo = dir.join("memo");
    let stop = StopRequest::default();
    if let Some(from) = s.from {
        let c = config(bc, dir.join("shallow"), memo.clone(), from, jobs);
        mnemo::run::run(&c, &stop)?;
    }
    let c = config(bc, dir.join("out"), memo, s.depth, jobs);
    mnemo::run::run(&c, &stop)
}

pub fn run(root: &Path, toolchain: &mnemo::testgen::Toolchain) -> anyhow::Result<Vec<Value>> {
    let scratch = tempfile::tempdir()?;
    let mut results = Vec::new();
    println!(
        "\n{:<28} {:>7} {:>6} | {:>8} {:>8} {:>7} | {:>9} {:>7} {:>7} {:>5}",
        "parallel",
        "depth",
        "paths",
        "jobs1 s",
        "jobs2 s",
        "speedup",
        "imbalance",
        "z3 j1",
        "z3 j2",
        "load"
    );
    for s in &SUBJECTS {
        let source = root.join("testsuite").join(format!("{}.c", s.program));
        let bc = scratch.path().join(format!("{}.bc", s.program));
        toolchain.compile_bitcode(&source, &bc, &[])?;
        let load = load_average();
        let one = measure(scratch.path(), &bc, s, 1)?;
        let two = measure(scratch.path(), &bc, s, 2)?;
        let speedup = one.wall_s / two.wall_s.max(1e-9);
        let depth = match s.from {
            Some(a) => format!("{a}->{}", s.depth),
            None => s.depth.to_string(),
        };
        let paths = two.memo.recorded_paths;
        println!(
            "{:<28} {:>7} {:>6} | {:>8.2} {:>8.2} {:>6.2}x | {:>9.3} {:>7} {:>7} {:>5.1}",
            s.program,
            depth,
            paths,
            one.wall_s,
            two.wall_s,
            speedup,
            two.parallel.imbalance,
            one.solver.z3_calls,
            two.solver.z3_calls,
            load
        );
        results.push(json!({
            "bench": "parallel", "program": s.program, "from": s.from, "max_depth": s.depth,
            "paths": paths, "jobs1_s": one.wall_s, "jobs2_s": two.wall_s, "speedup": speedup,
            "imbalance": two.parallel.imbalance, "busy_s": two.parallel.busy_s,
            "moved": two.parallel.moved, "z3_calls_jobs1": one.solver.z3_calls,
            "z3_calls_jobs2": two.solver.z3_calls, "load_average": load,
        }));
    }
    println!("(targets: speedup >= 1.8x, imbalance <= 1.1; load: the machine's 1-minute load average before the pair)");
    Ok(results)
}
