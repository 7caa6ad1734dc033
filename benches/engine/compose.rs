//! The `compose` section: Tables I and II of Qiu et al. (ICSE 2015) on
//! mnemo's own C subjects (`benches/programs/compose/`).
//!
//! Table I: each driver run whole and with `--compose` (summaries built
//! afresh, so Init is counted): Z3 calls (Init: building the summaries,
//! Comp: the composed run, Total) against the whole run's, the times
//! likewise, the calls composed and executed (with why), and the trie's
//! nodes (the compositional run's CTree, with summary nodes at composed
//! calls, against the whole run's Tree), the most a composed run could
//! gain (`xMax`: it executes the same instructions and writes the same
//! tests, so it can save at most the whole run's solver time), and the
//! seconds of a composed run that finds the summaries in its memo
//! directory, as a second run does (`sReuse`, Init included). Targets
//! (issue 12): on subjects whose callees are called many times, at least 5x
//! fewer Z3 calls and 3x less time than the whole run; on none more than
//! 10% slower.
//!
//! Table II: with an error seeded on the first, a middle or the last path
//! of a function (`-DSEED=1|2|3`), the Z3 calls and seconds until the first
//! error path ends: whole run, `--heuristic h1`, and `--heuristic h2` with
//! the seeded line as `--target` (Init included for both).
//!
//! Every run is a whole `mnemo run` in this process, without the C library
//! (the subjects use klee.h alone) and with solver stores off.

use std::path::Path;

use mnemo::memo::heuristic::HeuristicKind;
use mnemo::run::RunConfig;
use mnemo::search::SearcherKind;
use mnemo::stats::RunStats;
use mnemo::stop::StopRequest;
use mnemo::testgen::Toolchain;
use serde_json::{json, Value};

/// A driver of a subject: its program and the function it starts in.
struct Driver {
    subject: &'static str,
    file: &'static str,
    entry: &'static str,
}

const fn driver(subject: &'static str, file: &'static str, entry: &'static str) -> Driver {
    Driver {
        subject,
        file,
        entry,
    }
}

const TABLE_I: [Driver; 11] = [
    driver("BankAccount", "bankaccount.c", "main"),
    driver("Rational", "rational.c", "main"),
    driver("RationalRecursion", "rational_rec.c", "main"),
    driver("WBS", "wbs.c", "main1"),
    driver("WBS", "wbs.c", "main2"),
    driver("WBS", "wbs.c", "launch"),
    driver("TCAS", "tcas.c", "main"),
    driver("SwapNode", "swapnode.c", "call_twice"),
    driver("SwapNode", "swapnode.c", "call3_times"),
    driver("LinkedList", "linkedlist.c", "call3_times"),
    driver("LinkedList", "linkedlist.c", "call5_times"),
];

/// Subjects with a seeded error (`SEED == 1|2|3` on a line of the
/// function named), for Table II.
const TABLE_II: [(Driver, &str); 3] = [
    (driver("BankAccount", "bankaccount.c", "main"), "withdraw"),
    (driver("Rational", "rational.c", "main"), "gcd"),
    (driver("TCAS", "tcas.c", "main"), "alt_sep_test"),
];

/// A Table II run goes on after its first error; only the time to it is
/// measured, so a run may stop after this long.
const SEARCH_LIMIT: Option<std::time::Duration> = Some(std::time::Duration::from_secs(20));

/// Runs of each driver, whole and composed (the median is shown): most of
/// a run's time is writing its tests, which varies from run to run.
const REPEATS: usize = 3;

/// Where the seeds sit on the function's paths.
const SEEDS: [(u32, &str); 3] = [(1, "first"), (2, "middle"), (3, "last")];

fn config(bc: &Path, dir: &Path, entry: &str) -> RunConfig {
    RunConfig {
        program: bc.to_path_buf(),
        output_dir: dir.join("out"),
        program_args: Vec::new(),
        host_files: Vec::new(),
        max_depth: None,
        max_time: None,
        max_instructions: None,
        max_memory_mb: None,
        max_stack_frames: mnemo::exec::DEFAULT_MAX_STACK_FRAMES,
        searcher: SearcherKind::default(),
        seed: 1,
        solver: mnemo::solver::SolverConfig::default(),
        stores: vec!["none".to_string()],
        show_output: false,
        entry: entry.to_string(),
        link_runtime: false,
        optimize: false,
        quiet: true,
        memo_dir: Some(dir.join("memo")),
        resume: false,
        compress: false,
        targets: Vec::new(),
        heuristic: HeuristicKind::Reachability,
        last_in_process: false,
        checkpoint: None,
        jobs: 1,
        balance: mnemo::parallel::Balance::default(),
        compose: None,
        test_files: Default::default(),
        max_site_fork_share: None,
        max_forks: None,
        silent_assume: false,
        retry_undecided: false,
        exit_on_error: Vec::new(),
        max_tests: None,
        skip_pending_tests: false,
        emit_all_errors: true,
        seeds: Vec::new(),
        seed_fit: Default::default(),
        only_seed: false,
        seed_time: None,
        write_conditions: false,
        write_coverage: false,
    }
}

/// How a run is made: whole unless `compose`.
#[derive(Default)]
struct Run {
    compose: bool,
    heuristic: Option<(HeuristicKind, Vec<String>)>,
    limit: Option<std::time::Duration>,
    /// A directory whose earlier run's summaries (and nothing else of its
    /// memo directory: its trie would have the run replay what it
    /// explored) the run starts with.
    summaries_from: Option<std::path::PathBuf>,
}

const COMPOSED: Run = Run {
    compose: true,
    heuristic: None,
    limit: None,
    summaries_from: None,
};

/// One run in a fresh directory `dir`.
fn measure(bc: &Path, dir: &Path, entry: &str, run: Run) -> anyhow::Result<RunStats> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir)?;
    if let Some(from) = &run.summaries_from {
        let summaries = dir.join("memo/summaries");
        std::fs::create_dir_all(&summaries)?;
        for file in std::fs::read_dir(from.join("memo/summaries"))? {
            let file = file?;
            std::fs::copy(file.path(), summaries.join(file.file_name()))?;
        }
    }
    let mut c = config(bc, dir, entry);
    if run.compose {
        c.compose = Some(32);
    }
    if let Some((h, targets)) = run.heuristic {
        c.heuristic = h;
        c.targets = targets;
    }
    c.max_time = run.limit;
    mnemo::run::run(&c, &StopRequest::default())
}

fn compile(toolchain: &Toolchain, src: &Path, bc: &Path, seed: u32) -> anyhow::Result<()> {
    toolchain.compile_bitcode(src, bc, &[format!("-DSEED={seed}")])?;
    Ok(())
}

/// `reason=count` pairs of a map of counts.
fn reasons(m: &std::collections::BTreeMap<String, u64>) -> String {
    if m.is_empty() {
        return "-".to_string();
    }
    m.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// A run's seconds, building its summaries included.
fn seconds(s: &RunStats) -> f64 {
    s.compose.init_s + s.wall_s
}

/// The run whose `key` is the median of `runs` (not empty).
fn median_by(mut runs: Vec<RunStats>, key: impl Fn(&RunStats) -> f64) -> RunStats {
    runs.sort_by(|a, b| key(a).total_cmp(&key(b)));
    runs.swap_remove(runs.len() / 2)
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

pub fn run(root: &Path, toolchain: &Toolchain) -> anyhow::Result<Vec<Value>> {
    let programs = root.join("benches/programs/compose");
    // Both runs of a driver write the same tests.
    let scratch = crate::support::scratch()?;
    let mut results = Vec::new();
    println!(
        "\nTable I: compositional runs (--compose, summaries built afresh) against whole runs"
    );
    println!(
        "(seconds: the median of {REPEATS} runs of each, whole and composed taking turns to go first)"
    );
    println!(
        "{:<18} {:<12} {:>6} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>6} {:>6} {:>6} {:>7} {:>13} {:<26}",
        "subject",
        "driver",
        "z3Init",
        "z3Comp",
        "z3Tot",
        "z3Whole",
        "sInit",
        "sComp",
        "sTot",
        "sWhole",
        "xZ3",
        "xTime",
        "xMax",
        "sReuse",
        "CTree/Tree",
        "calls composed / executed"
    );
    for d in &TABLE_I {
        let bc = scratch.path().join(format!("{}.bc", d.file));
        compile(toolchain, &programs.join(d.file), &bc, 0)?;
        let dir = scratch.path().join(format!("{}-{}", d.file, d.entry));
        let (mut wholes, mut comps, mut reuses) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..REPEATS {
            // Whole and composed take turns to go first.
            for composed in [i % 2 == 1, i % 2 == 0] {
                let (runs, name, run) = if composed {
                    (&mut comps, "compose", COMPOSED)
                } else {
                    (&mut wholes, "whole", Run::default())
                };
                runs.push(measure(&bc, &dir.join(name), d.entry, run)?);
            }
        }
        for _ in 0..REPEATS {
            let run = Run {
                summaries_from: Some(dir.join("compose")),
                ..COMPOSED
            };
            reuses.push(measure(&bc, &dir.join("reuse"), d.entry, run)?);
        }
        let whole = median_by(wholes, seconds);
        let comp = median_by(comps, seconds);
        let reuse = median_by(reuses, seconds);
        let s_reuse = seconds(&reuse);
        let c = &comp.compose;
        let z3_total = c.init_z3_calls + comp.solver.z3_calls;
        let s_total = seconds(&comp);
        let same_paths = comp.paths == whole.paths;
        let fewer_calls = ratio(whole.solver.z3_calls as f64, z3_total as f64);
        let faster = ratio(whole.wall_s, s_total);
        // A composed run executes the same instructions and writes the same
        // tests as the whole run: all it can save is the whole run's solver
        // time.
        let ceiling = ratio(whole.wall_s, whole.wall_s - whole.solver.time_s);
        println!(
            "{:<18} {:<12} {:>6} {:>7} {:>7} {:>7} {:>7.2} {:>7.2} {:>7.2} {:>7.2} {:>6.2} {:>6.2} {:>6.2} {:>7.2} {:>13} {:<26}{}",
            d.subject,
            d.entry,
            c.init_z3_calls,
            comp.solver.z3_calls,
            z3_total,
            whole.solver.z3_calls,
            c.init_s,
            comp.wall_s,
            s_total,
            whole.wall_s,
            fewer_calls,
            faster,
            ceiling,
            s_reuse,
            format!("{}/{}", comp.memo.nodes, whole.memo.nodes),
            format!("{} / {}", c.calls_composed, reasons(&c.calls_executed)),
            if same_paths { "" } else { "  (other paths!)" }
        );
        results.push(json!({
            "table": "I", "subject": d.subject, "driver": d.entry,
            "z3_init": c.init_z3_calls, "z3_comp": comp.solver.z3_calls, "z3_total": z3_total,
            "z3_whole": whole.solver.z3_calls,
            "seconds_init": c.init_s, "seconds_comp": comp.wall_s, "seconds_total": s_total,
            "seconds_whole": whole.wall_s,
            "fewer_z3_calls_x": fewer_calls, "faster_x": faster,
            "solver_seconds_whole": whole.solver.time_s, "faster_at_most_x": ceiling,
            "repeats": REPEATS,
            "seconds_reusing": s_reuse, "z3_reusing": reuse.compose.init_z3_calls + reuse.solver.z3_calls,
            "summaries_reused": reuse.compose.summaries_reused,
            "ctree_nodes": comp.memo.nodes, "tree_nodes": whole.memo.nodes,
            "calls_composed": c.calls_composed, "calls_executed": c.calls_executed,
            "unsummarised": c.unsummarised, "summaries_built": c.summaries_built,
            "paths": whole.paths.completed + whole.errors(), "same_paths": same_paths,
        }));
    }
    println!("\nTable II: Z3 calls and seconds until a seeded error is found (Init included)");
    println!(
        "{:<12} {:<13} {:<7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
        "subject", "function", "seed", "z3Whole", "z3H1", "z3H2", "sWhole", "sH1", "sH2"
    );
    for (d, function) in &TABLE_II {
        let src = programs.join(d.file);
        let text = std::fs::read_to_string(&src)?;
        for (seed, place) in SEEDS {
            let bc = scratch.path().join(format!("{}-seed{seed}.bc", d.file));
            compile(toolchain, &src, &bc, seed)?;
            let line = text
                .lines()
                .position(|l| l.contains(&format!("SEED == {seed}")))
                .map(|i| i + 1)
                .ok_or_else(|| anyhow::anyhow!("{} has no SEED == {seed}", d.file))?;
            let target = vec![format!("{}:{line}", d.file)];
            let dir = scratch.path().join(format!("{}-seed{seed}", d.file));
            let limited = |heuristic: Option<(HeuristicKind, Vec<String>)>| Run {
                compose: heuristic.is_some(),
                heuristic,
                limit: SEARCH_LIMIT,
                summaries_from: None,
            };
            let whole = measure(&bc, &dir.join("whole"), d.entry, limited(None))?;
            let h1 = limited(Some((HeuristicKind::H1, Vec::new())));
            let h1 = measure(&bc, &dir.join("h1"), d.entry, h1)?;
            let h2 = limited(Some((HeuristicKind::H2, target)));
            let h2 = measure(&bc, &dir.join("h2"), d.entry, h2)?;
            // Calls and seconds to the first error, `None` when none was found.
            let to_error = |s: &RunStats| {
                s.first_error.as_ref().map(|f| {
                    (
                        s.compose.init_z3_calls + f.z3_calls,
                        s.compose.init_s + f.seconds,
                    )
                })
            };
            let (w, a, b) = (to_error(&whole), to_error(&h1), to_error(&h2));
            let calls =
                |x: Option<(u64, f64)>| x.map_or("none".to_string(), |(c, _)| c.to_string());
            let secs =
                |x: Option<(u64, f64)>| x.map_or("none".to_string(), |(_, s)| format!("{s:.3}"));
            println!(
                "{:<12} {:<13} {:<7} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}",
                d.subject,
                function,
                place,
                calls(w),
                calls(a),
                calls(b),
                secs(w),
                secs(a),
                secs(b)
            );
            let pair = |x: Option<(u64, f64)>| x.map(|(c, s)| json!({"z3_calls": c, "seconds": s}));
            results.push(json!({
                "table": "II", "subject": d.subject, "function": function, "seed": place,
                "target": format!("{}:{line}", d.file),
                "whole": pair(w), "h1": pair(a), "h2": pair(b),
                "h1_errors_reported": h1.compose.errors_reported,
                "h2_paths_pruned": h2.compose.paths_pruned,
                "calls_executed_h1": h1.compose.calls_executed,
            }));
        }
    }
    println!("(none: no error found. H2 keeps only the summary paths that pass the target, as the paper's does, and is incomplete: where an earlier call must take another path for a later one to reach the target, it finds nothing)");
    Ok(results)
}
