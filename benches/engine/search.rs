//! The `search` section: depth-first against the default searcher on every
//! testsuite program, and on the SV-COMP-style loops without a bound.
//!
//! Bounded programs are run to the end at their header's `--max-depth`
//! (time to complete, and to the first error where there is one). The
//! `svcomp_` programs whose loops are unbounded without their header's
//! bound are run again unbounded, stopped at their first error or at a
//! cap: that is where depth-first search starves.

use std::path::Path;
use std::time::Duration;

use mnemo::search::{ExploreConfig, SearcherKind};
use mnemo::testgen::Toolchain;
use serde_json::{json, Value};

use super::{load, measure, stem, Measure, Setup};

/// How long an unbounded run may look for its first error: an instruction
/// budget (the default search needs a few hundred), and a time as a safety
/// net. Small, because a run stopped at a limit still asks the solver for a
/// test of every pending state, and depth-first leaves one per loop round.
const CAP_INSTRUCTIONS: u64 = 2_000;
const CAP: Duration = Duration::from_secs(5);

/// Bounded runs stop here, so that no single program dominates the section.
const BOUNDED_CAP: Duration = Duration::from_secs(20);

/// The SV-COMP-style programs with an unbounded loop on a nondet guard.
const UNBOUNDED: [&str; 4] = [
    "svcomp_counter_loop.c",
    "svcomp_locks.c",
    "svcomp_loop_exit.c",
    "svcomp_nested_loops.c",
];

/// The `--max-depth` of a testsuite program's `mnemo-args` header line.
fn header_depth(source: &str) -> Option<u32> {
    let line = source
        .lines()
        .take_while(|l| !l.contains("*/"))
        .find_map(|l| l.split_once("mnemo-args:"))?
        .1;
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if w == "--max-depth" {
            return words.next()?.parse().ok();
        }
    }
    None
}

fn secs(m: &Measure) -> String {
    if m.stopped {
        format!(">{:.1}", m.seconds)
    } else {
        format!("{:.3}", m.seconds)
    }
}

fn first_error(m: &Measure) -> String {
    match m.first_error_s {
        Some(s) => format!("{s:.3}"),
        None => "-".to_string(),
    }
}

fn row(kind: &str, name: &str, depth: Option<u32>, dfs: &Measure, new: &Measure) -> Value {
    let one = |m: &Measure| {
        json!({
            "seconds": m.seconds, "stopped_by_cap": m.stopped, "paths": m.paths,
            "instructions": m.instructions, "first_error_s": m.first_error_s,
            "solver_queries": m.queries,
        })
    };
    json!({
        "bench": "search", "run": kind, "program": name, "max_depth": depth,
        "dfs": one(dfs), "default": one(new),
    })
}

/// Runs the section; returns its results for `search.json`.
pub fn run(root: &Path, toolchain: &Toolchain) -> anyhow::Result<Vec<Value>> {
    let mut results = Vec::new();
    let mut sources: Vec<_> = std::fs::read_dir(root.join("testsuite"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    sources.sort();
    println!(
        "\n{:<30} {:>5} | {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7}",
        "search: to the end", "depth", "dfs s", "1st err", "paths", "default s", "1st err", "paths"
    );
    let mut totals = (0.0, 0.0);
    for source in &sources {
        let name = stem(source);
        let depth = header_depth(&std::fs::read_to_string(source)?);
        let module = load(toolchain, source)?;
        let run = |searcher| {
            let setup = Setup {
                max_depth: depth,
                searcher,
                limits: ExploreConfig {
                    max_time: Some(BOUNDED_CAP),
                    ..ExploreConfig::default()
                },
                stop_at_error: false,
            };
            measure(&module, &name, &setup)
        };
        let dfs = run(SearcherKind::Dfs)?;
        let new = run(SearcherKind::default())?;
        totals.0 += dfs.seconds;
        totals.1 += new.seconds;
        println!(
            "{:<30} {:>5} | {:>9} {:>9} {:>7} | {:>9} {:>9} {:>7}",
            name,
            depth.map_or("-".to_string(), |d| d.to_string()),
            secs(&dfs),
            first_error(&dfs),
            dfs.paths,
            secs(&new),
            first_error(&new),
            new.paths
        );
        results.push(row("complete", &name, depth, &dfs, &new));
    }
    println!(
        "{:<30} {:>5} | {:>9.3} {:>9} {:>7} | {:>9.3}",
        "total", "", totals.0, "", "", totals.1
    );

    println!(
        "\n{:<30} | {:>9} {:>12} | {:>9} {:>12}",
        "search: unbounded, 1st error", "dfs s", "instructions", "default s", "instructions"
    );
    for prog in UNBOUNDED {
        let source = root.join("testsuite").join(prog);
        if !source.exists() {
            println!("{prog:<30} (missing)");
            continue;
        }
        let name = stem(&source);
        let module = load(toolchain, &source)?;
        let run = |searcher| {
            let setup = Setup {
                max_depth: None,
                searcher,
                limits: ExploreConfig {
                    max_time: Some(CAP),
                    max_instructions: Some(CAP_INSTRUCTIONS),
                    ..ExploreConfig::default()
                },
                stop_at_error: true,
            };
            measure(&module, &name, &setup)
        };
        let (dfs, new) = (run(SearcherKind::Dfs)?, run(SearcherKind::default())?);
        // Not found: the seconds to the cap, and "none" in the error column.
        let shown = |m: &Measure| match m.first_error_s {
            Some(s) => format!("{s:.3}"),
            None => format!("none/{:.1}", m.seconds),
        };
        println!(
            "{:<30} | {:>9} {:>12} | {:>9} {:>12}",
            name,
            shown(&dfs),
            dfs.instructions,
            shown(&new),
            new.instructions
        );
        results.push(row("first-error", &name, None, &dfs, &new));
    }
    Ok(results)
}
