//! The `posix` section: the Unix-style tools of the testsuite (`tool_*.c`),
//! each explored with the symbolic arguments, files and stdin its header
//! names, as a user runs them:
//!
//! ```text
//! mnemo cc tool_wc.c -o wc.bc
//! mnemo run --output-dir out wc.bc --sym-args 0 2 2 --sym-files 1 2 --sym-stdin 2
//! mnemo replay tool_wc.c out --as-commands     # out/testNNNNNN.sh
//! PROG=./wc.cov sh out/test000001.sh ...        # wc.cov built with --coverage
//! gcovr --gcov-executable "llvm-cov-14 gcov"
//! ```
//!
//! For each tool: paths, tests, exploration time, and the line coverage of
//! the tool's own source by its tests replayed natively under gcov (the
//! target is 95% of the lines that can be reached). Needs `gcovr` (PyPI)
//! and `llvm-cov-14` on the PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::Context;
use mnemo::testgen::Toolchain;
use serde_json::{json, Value};

use crate::support::{command, file_lines, gcovr_summary};

const MNEMO: &str = env!("CARGO_BIN_EXE_mnemo");

/// The program arguments a testsuite header names (`program-args:`).
fn program_args(source: &str) -> Vec<String> {
    source
        .lines()
        .find_map(|l| l.split_once("program-args:"))
        .map(|(_, rest)| rest.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// Line coverage of `source` by every replay script in `out`, run against
/// a `--coverage` build in `dir`: (lines covered, lines).
fn coverage(
    toolchain: &Toolchain,
    source: &Path,
    out: &Path,
    dir: &Path,
) -> anyhow::Result<(u64, u64)> {
    let copy = dir.join(source.file_name().context("a source file")?);
    std::fs::copy(source, &copy)?;
    let prog = dir.join("prog.cov");
    // Notes and counts beside the build, not in the bench's directory.
    let notes = format!("-coverage-notes-file={}", dir.join("tool.gcno").display());
    let data = format!("-coverage-data-file={}", dir.join("tool.gcda").display());
    toolchain.compile_native_with(
        &copy,
        &prog,
        &["--coverage", "-Xclang", &notes, "-Xclang", &data],
    )?;
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(out)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "sh"))
        .collect();
    scripts.sort();
    for script in &scripts {
        // The scripts exit with the program's status, which may be anything.
        Command::new("sh")
            .arg(script)
            .env("PROG", &prog)
            .env("ASAN_OPTIONS", "detect_leaks=0")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .with_context(|| format!("cannot run {}", script.display()))?;
    }
    let summary = gcovr_summary(dir, dir, "llvm-cov-14 gcov", &[])?;
    let name = copy
        .file_name()
        .and_then(|n| n.to_str())
        .context("a source file name")?;
    file_lines(&summary, name)
        .with_context(|| format!("gcovr reports no coverage of {name}: {summary}"))
}

pub fn run(root: &Path, toolchain: &Toolchain) -> anyhow::Result<Vec<Value>> {
    let scratch = tempfile::tempdir()?;
    let mut tools: Vec<PathBuf> = std::fs::read_dir(root.join("testsuite"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tool_") && n.ends_with(".c"))
        })
        .collect();
    tools.sort();
    println!(
        "\n{:<16} {:>6} {:>6} {:>8} {:>10} {:>9}  program arguments",
        "posix", "paths", "tests", "run s", "lines", "coverage"
    );
    let mut results = Vec::new();
    for source in &tools {
        let name = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let text = std::fs::read_to_string(source)?;
        let args = program_args(&text);
        let dir = scratch.path().join(&name);
        std::fs::create_dir_all(&dir)?;
        let bc = dir.join(format!("{name}.bc"));
        toolchain.compile_bitcode(source, &bc, &[])?;
        let out = dir.join("out");
        let start = Instant::now();
        command(
            Command::new(MNEMO)
                .args(["run", "-q", "--jobs", "1", "--store", "none"])
                .arg("--output-dir")
                .arg(&out)
                .arg(&bc)
                .args(&args),
            "mnemo run",
        )?;
        let seconds = start.elapsed().as_secs_f64();
        let stats: Value = serde_json::from_slice(&std::fs::read(out.join("stats.json"))?)?;
        let paths = stats["paths"]["completed"].as_u64().unwrap_or(0)
            + ["errors", "early"]
                .iter()
                .filter_map(|k| stats["paths"][k].as_object())
                .flat_map(|m| m.values().filter_map(Value::as_u64))
                .sum::<u64>();
        let tests = stats["tests"].as_u64().unwrap_or(0);
        command(
            Command::new(MNEMO)
                .arg("replay")
                .arg(source)
                .arg(&out)
                .arg("--as-commands"),
            "mnemo replay --as-commands",
        )?;
        let cov_dir = dir.join("gcov");
        std::fs::create_dir_all(&cov_dir)?;
        let (covered, lines) = coverage(toolchain, source, &out, &cov_dir)?;
        let pct = 100.0 * covered as f64 / lines.max(1) as f64;
        println!(
            "{:<16} {:>6} {:>6} {:>8.2} {:>4}/{:<5} {:>8.1}%  {}",
            name.trim_start_matches("tool_"),
            paths,
            tests,
            seconds,
            covered,
            lines,
            pct,
            args.join(" ")
        );
        results.push(json!({
            "bench": "posix", "tool": name, "args": args, "paths": paths, "tests": tests,
            "seconds": seconds, "lines_covered": covered, "lines": lines, "line_coverage_pct": pct,
        }));
    }
    Ok(results)
}
