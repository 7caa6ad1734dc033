//! `make bench-coreutils`: GNU coreutils as KLEE measured it (OSDI 2008).
//! Each tool of `coreutils-bc/` (`make coreutils`) is explored for
//! `MINUTES` with KLEE's arguments
//!
//! ```text
//! mnemo run --max-time S TOOL.bc --sym-args 0 1 10 --sym-args 0 2 2 --sym-files 1 8 --sym-stdin 8
//! ```
//!
//! and every test is replayed on the tool of the gcov build (as `mnemo
//! replay` does: argv, files and stdin recreated in a scratch directory),
//! each tool's gcov data kept apart with `GCOV_PREFIX`. Reported per tool:
//! paths, tests, time, the unsupported features its paths met, line
//! coverage of its own source (`src/TOOL.c`) and of the `src/` and `lib/`
//! files linked into it, tests whose outcome differs from the engine's
//! prediction, and crashes (a native replay killed by a signal) with their
//! command lines. A table, `bench-results/coreutils.json`, gcovr's HTML
//! (`bench-results/coreutils/TOOL/MODE/html/`) and each replay's report,
//! a line per test (`bench-results/coreutils/TOOL/MODE/replay.txt`).
//!
//! Each test is replayed on the AddressSanitizer build too (`build/asan`,
//! glibc); every report there is listed with the test's command line, and
//! a predicted memory error that the gcov build survives (a read past an
//! object that happens to find a zero) replays with its outcome when ASan
//! reports it.
//!
//! `MODES` sets other runs beside the plain one, each with the same time:
//! `jobs` (`--jobs RUN_JOBS`, default 2), `deepen` (`--deepen DEEPEN`,
//! default 25:25:100, the time shared out evenly among the bounds) and
//! `regress` (coreutils 8.32's tool explored for the time with `--memo`,
//! then `mnemo regress` from it to 9.1 for the time; `make coreutils-old`
//! builds 8.32). Every mode's tests are replayed and measured alike.
//!
//! Environment: `TOOLS` (names; default every tool), `MINUTES` (default
//! 5), `JOBS` (tools explored at once; default 1), `MODES` (default
//! `plain`), `RUN_JOBS`, `DEEPEN`, `ASAN` (0: no replays on the ASan
//! build, which take as long as the others), `ALL_TESTS` (1: a test for
//! every path; by default, as in KLEE's runs, only paths that covered new
//! code and errors get one, which reaches the same coverage), `ENVIRON`
//! (0: the tools run with an empty environment rather than a terminal's,
//! see [`environment`]), `MAX_FAIL` (N: up to N failed system calls a
//! path, KLEE's `--max-fail`; default 0, none).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ffi::OsString;

use std::path::{Path, PathBuf};

use std::sync::Mutex;
use std::time::Duration;

use anyhow::Context;
use mnemo::testgen::{
    commands::shell_word, replay_dir_with, KTest, ModelRoot, NativeOutcome, Outcome, PosixEnv,
    ReplayOptions, ReplayReport, ReplayResult, TestsJson, Toolchain, Verdict, TESTS_JSON,
};
use serde_json::{json, Value};

#[path = "coreutils/coverage.rs"]
mod coverage;
#[path = "coreutils/explore.rs"]
mod explore;
#[path = "support.rs"]
mod support;
use coverage::{lines_under, merge_coverage, pair_notes, pct};
use explore::{explore, paths_of, read_json, Bounds, Mode};
use support::{file_lines, gcovr_summary};

/// The user and group native replays run as when the bench runs as root:
/// the model's own (nobody's), so that the tests end as predicted and no
/// test (`chmod -R 0 /`, `kill -9 -1`) can harm the machine.
const NOBODY: (u32, u32) = (mnemo::exec::NOBODY, mnemo::exec::NOBODY);
/// The signals of a crash (ILL, TRAP, ABRT, BUS, FPE, SEGV, SYS); a tool
/// may send itself others (`kill 0`), and these too (`kill -s FPE 0`),
/// where the engine says so (its path ends early, `signalled`).
const CRASH_SIGNALS: &[i32] = &[4, 5, 6, 7, 8, 11, 31];

/// Held while gcovr reads the gcov tree (see `bench_tool`).
static GCOV_TREE: Mutex<()> = Mutex::new(());

/// Where the inputs are and the results go.
struct Setup {
    bitcode: PathBuf,
    /// coreutils 8.32's bitcode, for `regress`.
    old_bitcode: PathBuf,
    gcov_tree: PathBuf,
    /// The AddressSanitizer build, when there is one.
    asan_tree: Option<PathBuf>,
    run_jobs: usize,
    deepen: Bounds,
    /// A test for every path, not only for those covering new code.
    all_tests: bool,
    /// KLEE's `--max-fail`: 0, no failed system calls.
    max_fail: u32,
    results: PathBuf,
    seconds: u64,
    toolchain: Toolchain,
    /// Each program's own source file (`src/echo.c`), from the gcov
    /// tree's Makefile.
    own_source: BTreeMap<String, String>,
    /// The tools' environment, `NAME=VALUE` (see [`environment`]).
    environ: Vec<String>,
}

/// The environment every tool runs with (`--env`), unless `ENVIRON=0`:
/// KLEE's runs handed each tool the environment of the shell they ran
/// from, and a tool's code that reads one (ls's `LS_COLORS` parser, `pwd
/// -L`) is unreachable without it. A terminal's, fixed: `TERM`, `PWD` (the
/// working directory, as in the model and the chrooted replay), the
/// `LS_COLORS` that this coreutils' own `dircolors -b` gives for it, and
/// `LC_ALL=C`: KLEE's uclibc had no locales, and musl's default,
/// `C.UTF-8`, has every tool that quotes a name in a message decode it as
/// UTF-8, which spent the search on musl's decoder. At 5 minutes, ls,
/// ginstall and stty gained 8 points of their own lines in the C locale;
/// wc lost 7, its multibyte counting out of reach, and chmod 9.
fn environment(gcov_tree: &Path) -> anyhow::Result<Vec<String>> {
    let term = "xterm";
    // The gcov build's, its coverage data written out of the way.
    let scratch = tempfile::tempdir()?;
    let dircolors = gcov_tree.join("src/dircolors");
    let out = std::process::Command::new(&dircolors)
        .arg("-b")
        .env_clear()
        .env("TERM", term)
        .env("GCOV_PREFIX", scratch.path())
        .output()
        .with_context(|| format!("cannot run {}", dircolors.display()))?;
    anyhow::ensure!(out.status.success(), "{} -b failed", dircolors.display());
    let text = String::from_utf8(out.stdout)?;
    let colors = text
        .strip_prefix("LS_COLORS='")
        .and_then(|t| t.split_once('\''))
        .map(|(colors, _)| colors)
        .with_context(|| format!("unexpected output of {} -b: {text:?}", dircolors.display()))?;
    Ok(vec![
        "LC_ALL=C".into(),
        format!("LS_COLORS={colors}"),
        format!("PWD={}", ModelRoot::WORKING_DIR),
        format!("TERM={term}"),
    ])
}

/// The first source of every program in an automake Makefile
/// (`src_PROG_SOURCES = src/prog.c ...`), keyed by the program's
/// canonical name (non-alphanumerics as `_`), references followed.
fn program_sources(makefile: &str) -> BTreeMap<String, String> {
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    for line in makefile.lines() {
        let Some((name, rest)) = line.split_once("_SOURCES = ") else {
            continue;
        };
        let Some(canon) = name.strip_prefix("src_") else {
            continue;
        };
        if let Some(word) = rest.split_whitespace().next() {
            first.insert(canon.to_string(), word.to_string());
        }
    }
    let resolve = |mut word: String| {
        for _ in 0..8 {
            let Some(inner) = word
                .strip_prefix("$(src_")
                .and_then(|w| w.strip_suffix("_SOURCES)"))
            else {
                break;
            };
            match first.get(inner) {
                Some(next) => word = next.clone(),
                None => break,
            }
        }
        word
    };
    first
        .keys()
        .map(|k| (k.clone(), resolve(first[k].clone())))
        .collect()
}

fn canonical(tool: &str) -> String {
    tool.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// The file whose lines are the tool's own: its first source, or the C
/// file that source merely includes (`lbracket.c` is `test.c`).
fn own_file(setup: &Setup, tool: &str) -> String {
    let first = setup
        .own_source
        .get(&canonical(tool))
        .cloned()
        .unwrap_or_else(|| format!("src/{tool}.c"));
    let text = std::fs::read_to_string(setup.gcov_tree.join(&first)).unwrap_or_default();
    text.lines()
        .find_map(|l| l.trim().strip_prefix("#include \""))
        .and_then(|l| l.strip_suffix('"'))
        .filter(|inc| inc.ends_with(".c"))
        .map_or(first.clone(), |inc| format!("src/{inc}"))
}

/// The unsupported features the run's paths ended on (external calls,
/// system calls, instructions), with how many paths each ended.
fn unsupported(index: &TestsJson) -> BTreeMap<String, u64> {
    let mut found = BTreeMap::new();
    for t in &index.tests {
        if let Outcome::Error { kind, message, .. } = &t.outcome {
            if kind == "external" || kind == "unsupported" {
                *found.entry(message.clone()).or_insert(0) += 1;
            }
        }
    }
    found
}

/// The command line of a test, as its replay script runs it.
fn command_line(ktest: &Path) -> String {
    let Ok(env) = KTest::read(ktest)
        .map_err(|e| e.to_string())
        .and_then(|t| PosixEnv::from_ktest(&t).map_err(|e| e.to_string()))
    else {
        return "(unreadable test)".into();
    };
    let mut line = String::from("TOOL");
    for a in &env.args {
        line.push(' ');
        line.push_str(&String::from_utf8_lossy(&shell_word(a)));
    }
    if let Some(stdin) = &env.stdin {
        line.push_str(&format!(" < stdin {:?}", String::from_utf8_lossy(stdin)));
    }
    line
}

/// The tests of a replay that crashed natively (a crash signal, a wild
/// access, a sanitizer report), with their command lines.
fn crashes_of(report: &ReplayReport, out: &Path) -> Vec<Value> {
    let mut crashes = Vec::new();
    for r in &report.results {
        // Killed by a signal it sent itself, as predicted.
        if matches!(
            &r.predicted,
            Outcome::Early {
                signal: Some(_),
                ..
            }
        ) {
            continue;
        }
        match &r.native {
            NativeOutcome::Signal(sig) if !CRASH_SIGNALS.contains(sig) => {}
            NativeOutcome::Signal(_)
            | NativeOutcome::WildAccess
            | NativeOutcome::Error(_)
            | NativeOutcome::UnknownReport(_) => {
                crashes.push(json!({"test": r.ktest, "native": r.native.to_string(),
                                    "predicted": r.predicted.to_string(),
                                    "command": command_line(&out.join(&r.ktest))}));
            }
            _ => {}
        }
    }
    crashes
}

/// The tests whose predicted error the ASan replay showed: the engine's
/// kind of error, and ASan's report of the same kind.
fn confirmed_by_asan(asan: &ReplayReport) -> BTreeSet<String> {
    asan.results
        .iter()
        .filter(|r| matches!(r.predicted, Outcome::Error { .. }) && r.verdict == Verdict::Match)
        .map(|r| r.ktest.clone())
        .collect()
}

/// Explores, replays and measures one tool in one mode.
fn bench_tool(setup: &Setup, tool: &str, mode: Mode) -> anyhow::Result<Value> {
    let dir = setup.results.join(tool).join(mode.name());
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let out = dir.join("out");
    let explored = explore(setup, tool, mode, &dir)?;
    let (status, stderr, seconds) = (explored.status, explored.stderr, explored.seconds);
    let engine_ok = matches!(status, Some(0 | 3));
    let stats = read_json(&out.join("stats.json"));
    let index = TestsJson::read(&out.join(TESTS_JSON)).ok();
    let paths = paths_of(&stats);
    let unsupported = index.as_ref().map(unsupported).unwrap_or_default();

    let gcda = dir.join("gcda");
    // SAFETY: getuid has no preconditions.
    let run_as = (unsafe { libc::getuid() } == 0).then_some(NOBODY);
    // Run as root, the replays are chrooted into the model's file system
    // (a test of `du /` then walks what the engine's `/` holds), and write
    // their coverage data as they exit, as nobody, where the replay takes
    // it out of the root after each test; the tests' data are merged here.
    let root = dir.join("root");
    let per_test = dir.join("gcda-tests");
    for old in [&root, &per_test] {
        if old.exists() {
            std::fs::remove_dir_all(old)?;
        }
    }
    let (model_root, gcov_prefix) = match run_as {
        Some(_) => {
            let model_root = ModelRoot {
                dir: root.clone(),
                host_files: explore::host_files(),
                kept: Some(per_test.clone()),
            };
            (Some(model_root), OsString::from(ModelRoot::EXIT_DIR))
        }
        None => {
            std::fs::create_dir_all(&gcda)?;
            (None, gcda.clone().into_os_string())
        }
    };
    let program = setup.gcov_tree.join("src").join(tool);
    let timeout = Duration::from_secs(10);
    // A replay killed at the time limit writes no coverage of its own:
    // the gcov build's gcov-flush.c writes it a second before.
    let flush_ms = (timeout - Duration::from_secs(1)).as_millis().to_string();
    let options = ReplayOptions {
        timeout,
        env: vec![
            (OsString::from("GCOV_PREFIX"), gcov_prefix),
            (
                OsString::from("MNEMO_GCOV_FLUSH_MS"),
                OsString::from(flush_ms),
            ),
        ],
        run_as,
        model_root,
        // One gcov build's counters, merged at each exit: one at a time.
        jobs: 1,
        clang_args: Vec::new(),
    };
    let report = if index.is_some() {
        replay_dir_with(&setup.toolchain, &program, &out, &options)?
    } else {
        Default::default()
    };
    if options.model_root.is_some() {
        merge_coverage(&per_test, &gcda)?;
        std::fs::remove_dir_all(&root)?;
    }
    // The same tests on the ASan build: a memory error the plain build
    // survives shows there.
    let asan_report = match (&setup.asan_tree, &index) {
        (Some(tree), Some(_)) => {
            let options = ReplayOptions {
                timeout: Duration::from_secs(20),
                // The replay's own ASAN_OPTIONS (testgen::native).
                env: Vec::new(),
                run_as,
                // ASan's build is linked dynamically: nothing in the
                // model's file system would load it.
                model_root: None,
                // As the gcov replay: a test sees the machine as it did there.
                jobs: 1,
                clang_args: Vec::new(),
            };
            Some(replay_dir_with(
                &setup.toolchain,
                &tree.join("src").join(tool),
                &out,
                &options,
            )?)
        }
        _ => None,
    };
    // Each test's line (predicted and native outcome, the first line of
    // stdout that differs), to see why a test mismatched.
    std::fs::write(dir.join("replay.txt"), report.to_string())?;
    if let Some(r) = &asan_report {
        std::fs::write(dir.join("replay-asan.txt"), r.to_string())?;
    }
    let asan = asan_report.as_ref().map_or(
        Value::Null,
        |r| json!({"replayed": r.results.len(), "crashes": crashes_of(r, &out)}),
    );
    // An error the engine predicted that the plain build survives (a read
    // past an object's end that finds a zero byte) replays with its
    // predicted outcome when ASan reports it.
    let confirmed = asan_report
        .as_ref()
        .map(confirmed_by_asan)
        .unwrap_or_default();
    let unconfirmed = |r: &&ReplayResult| !confirmed.contains(&r.ktest);
    let (mut matched, mut mismatched, not_predicted, failed) = report.counts();
    let confirmed_mismatches = report
        .results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Mismatch) && confirmed.contains(&r.ktest))
        .count();
    matched += confirmed_mismatches;
    mismatched -= confirmed_mismatches;
    let crashes = crashes_of(&report, &out);
    let hangs = report
        .results
        .iter()
        .filter(|r| matches!(r.native, NativeOutcome::Timeout))
        .count();
    let outcome_mismatched = report
        .results
        .iter()
        .filter(|r| r.outcome_differs())
        .filter(unconfirmed)
        .count();
    // A few of each kind, those whose outcome differs first.
    let mut mismatched_results: Vec<_> = report
        .results
        .iter()
        .filter(|r| matches!(r.verdict, Verdict::Mismatch))
        .filter(unconfirmed)
        .collect();
    mismatched_results.sort_by_key(|r| !r.outcome_differs());
    let mismatches: Vec<Value> = mismatched_results
        .iter()
        .take(8)
        .map(|r| {
            json!({"test": r.ktest, "predicted": r.predicted.to_string(),
                   "native": r.native.to_string(), "outcome_differs": r.outcome_differs(),
                   "stdout_diff": r.stdout_diff,
                   "command": command_line(&out.join(&r.ktest))})
        })
        .collect();
    pair_notes(&gcda, &gcda)?;
    let html = dir.join("html");
    std::fs::create_dir_all(&html)?;
    let html_index = html.join("index.html");
    // gcov writes its intermediate files into the gcov tree, named by the
    // source file: two tools' gcovr runs at once removed each other's
    // (basenc's run failed on getopt1.c's while tac's ran).
    let gcov_tree = GCOV_TREE.lock().unwrap_or_else(|e| e.into_inner());
    let summary = gcovr_summary(
        &setup.gcov_tree,
        &gcda,
        "gcov",
        &[
            // Sources bison generated (parse-datetime.y's #line) are not
            // kept; their lines still count.
            "--gcov-ignore-errors=source_not_found".as_ref(),
            "--gcov-ignore-errors=no_working_dir_found".as_ref(),
            "--html-details".as_ref(),
            html_index.as_os_str(),
        ],
    )?;
    drop(gcov_tree);
    let own = own_file(setup, tool);
    let (own_covered, own_total) = file_lines(&summary, &own).unwrap_or((0, 0));
    let (all_covered, all_total) = lines_under(&summary, &["src/", "lib/"]);
    Ok(json!({
        "tool": tool, "mode": mode.name(), "engine_ok": engine_ok, "exit_status": status, "stderr_tail": stderr,
        "seconds": seconds, "paths": paths, "tests": stats["tests"].as_u64().unwrap_or(0),
        "instructions": stats["instructions"].as_u64().unwrap_or(0),
        "stopped_by": stats["stopped_by"],
        "unsupported": unsupported,
        "replay": {"match": matched, "mismatch": mismatched,
                   "outcome_mismatch": outcome_mismatched,
                   "stdout_only": mismatched - outcome_mismatched,
                   "not_predicted": not_predicted,
                   "confirmed_by_asan": confirmed_mismatches,
                   "failed": failed, "hangs": hangs},
        "mismatches": mismatches,
        "crashes": crashes, "asan": asan,
        "solver_queries": explored.extra["solver_queries"]
            .as_u64()
            .or(stats["solver"]["queries"].as_u64())
            .unwrap_or(0),
        "memo": stats["memo"], "mode_detail": explored.extra,
        "own_file": own, "own_lines_covered": own_covered, "own_lines": own_total,
        "own_coverage_pct": pct(own_covered, own_total),
        "all_lines_covered": all_covered, "all_lines": all_total,
        "all_coverage_pct": pct(all_covered, all_total),
        "html": html_index,
    }))
}

fn row(r: &Value) -> String {
    let features = r["unsupported"].as_object().map_or(0, |m| m.len());
    format!(
        "{:<10} {:<7} {:>7} {:>7} {:>7.0} {:>5} {:>8.1}% {:>8.1}% {:>7} {:>5} {:>8} {:>6} {:>6}",
        r["tool"].as_str().unwrap_or("?"),
        r["mode"].as_str().unwrap_or("?"),
        r["paths"].as_u64().unwrap_or(0),
        r["tests"].as_u64().unwrap_or(0),
        r["seconds"].as_f64().unwrap_or(0.0),
        features,
        r["own_coverage_pct"].as_f64().unwrap_or(0.0),
        r["all_coverage_pct"].as_f64().unwrap_or(0.0),
        r["crashes"].as_array().map_or(0, Vec::len),
        r["asan"]["crashes"].as_array().map_or(0, Vec::len),
        r["replay"]["outcome_mismatch"].as_u64().unwrap_or(0),
        r["replay"]["stdout_only"].as_u64().unwrap_or(0),
        if r["engine_ok"].as_bool() == Some(true) {
            "ok"
        } else {
            "ERROR"
        },
    )
}

/// `outcome` counts the tests whose native run ended otherwise than
/// predicted, `stdout` those that ended as predicted but printed otherwise.
const HEADER: &str = "tool       mode      paths   tests   run s unsup   own cov  src+lib crashes  asan  outcome stdout engine";

/// A whole-number setting from the environment, `default` when unset.
fn setting<T: std::str::FromStr>(name: &str, default: T) -> anyhow::Result<T>
where
    T::Err: std::error::Error + Send + Sync + 'static,
{
    match std::env::var(name).ok().filter(|v| !v.is_empty()) {
        Some(v) => v
            .parse()
            .with_context(|| format!("{name} must be a number, not {v:?}")),
        None => Ok(default),
    }
}

/// Averages and totals of one mode's rows.
fn mode_summary(mode: Mode, rows: &[&Value], seconds: u64) -> Value {
    let n = rows.len().max(1) as f64;
    let mean = |key: &str| rows.iter().filter_map(|r| r[key].as_f64()).sum::<f64>() / n;
    let total = |key: &str| rows.iter().filter_map(|r| r[key].as_u64()).sum::<u64>();
    // The entries of the lists at `pointer` (a JSON pointer), over the rows.
    let count = |pointer: &str| -> usize {
        rows.iter()
            .filter_map(|r| Some(r.pointer(pointer)?.as_array()?.len()))
            .sum()
    };
    let total_at = |pointer: &str| -> u64 {
        rows.iter()
            .filter_map(|r| r.pointer(pointer)?.as_u64())
            .sum()
    };
    let engine_errors: Vec<&str> = rows
        .iter()
        .filter(|r| r["engine_ok"].as_bool() != Some(true))
        .filter_map(|r| r["tool"].as_str())
        .collect();
    json!({
        "summary": true, "mode": mode.name(), "tools": rows.len(), "seconds_per_tool": seconds,
        "mean_own_coverage_pct": mean("own_coverage_pct"),
        "mean_all_coverage_pct": mean("all_coverage_pct"),
        "mean_seconds": mean("seconds"),
        "paths": total("paths"), "tests": total("tests"), "solver_queries": total("solver_queries"),
        "crashes": count("/crashes"), "asan_reports": count("/asan/crashes"),
        "outcome_mismatches": total_at("/replay/outcome_mismatch"),
        "stdout_only_mismatches": total_at("/replay/stdout_only"),
        "engine_errors": engine_errors,
    })
}

fn main() -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let bitcode = root.join("coreutils-bc");
    let gcov_tree = root.join("coreutils/build/gcov");
    anyhow::ensure!(
        bitcode.is_dir() && gcov_tree.join(".built").is_file(),
        "{} or the gcov build is missing: run `make coreutils` first",
        bitcode.display()
    );
    // gcov's data names the tree by its real path, which gcovr's root must
    // match when the build directory is a link.
    let gcov_tree = gcov_tree.canonicalize()?;
    let minutes: f64 = setting("MINUTES", 5.0)?;
    let jobs: usize = setting("JOBS", 1)?;
    let modes: Vec<Mode> = std::env::var("MODES")
        .ok()
        .filter(|m| !m.trim().is_empty())
        .map_or(Ok(vec![Mode::Plain]), |m| {
            m.split([',', ' '])
                .filter(|w| !w.is_empty())
                .map(Mode::parse)
                .collect()
        })?;
    let mut tools: Vec<String> = std::env::var("TOOLS")
        .unwrap_or_default()
        .split_whitespace()
        .map(String::from)
        .collect();
    if tools.is_empty() {
        for e in std::fs::read_dir(&bitcode)? {
            let name = e?.file_name().to_string_lossy().into_owned();
            if let Some(tool) = name.strip_suffix(".bc") {
                tools.push(tool.to_string());
            }
        }
        tools.sort();
    }
    for t in &tools {
        anyhow::ensure!(
            bitcode.join(format!("{t}.bc")).is_file(),
            "no bitcode for {t} in {}",
            bitcode.display()
        );
    }
    let old_bitcode = root.join("coreutils-bc-8.32");
    anyhow::ensure!(
        !modes.contains(&Mode::Regress) || old_bitcode.join(".done").is_file(),
        "the regress mode needs coreutils 8.32's bitcode: run `make coreutils-old` first"
    );
    let asan_tree = root.join("coreutils/build/asan");
    let makefile = std::fs::read_to_string(gcov_tree.join("Makefile"))?;
    let environ = if setting("ENVIRON", 1)? != 0 {
        environment(&gcov_tree)?
    } else {
        Vec::new()
    };
    let setup = Setup {
        environ,
        bitcode,
        old_bitcode,
        own_source: program_sources(&makefile),
        gcov_tree,
        asan_tree: (setting("ASAN", 1)? != 0 && asan_tree.join(".built").is_file())
            .then_some(asan_tree),
        run_jobs: setting("RUN_JOBS", 2)?,
        all_tests: setting("ALL_TESTS", 0)? != 0,
        max_fail: setting("MAX_FAIL", 0)?,
        deepen: Bounds::parse(&std::env::var("DEEPEN").unwrap_or_else(|_| "25:25:100".into()))?,
        results: root.join("bench-results/coreutils"),
        seconds: (minutes * 60.0).round().max(1.0) as u64,
        toolchain: Toolchain::find()?,
    };
    let mode_names: Vec<&str> = modes.iter().map(|m| m.name()).collect();
    let names: Vec<&str> = setup
        .environ
        .iter()
        .filter_map(|v| v.split_once('=').map(|(name, _)| name))
        .collect();
    println!(
        "coreutils: {} tool(s), {} s each, {} at a time; modes: {}; ASan replays: {}; environment: {}; failures a path: {}\n{HEADER}",
        tools.len(),
        setup.seconds,
        jobs.max(1),
        mode_names.join(", "),
        if setup.asan_tree.is_some() {
            "yes"
        } else {
            "no"
        },
        if names.is_empty() {
            "empty".to_string()
        } else {
            names.join(" ")
        },
        setup.max_fail,
    );
    let queue = Mutex::new(
        tools
            .iter()
            .flat_map(|t| modes.iter().map(move |m| (t.clone(), *m)))
            .collect::<VecDeque<_>>(),
    );
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let Some((tool, mode)) =
                    queue.lock().unwrap_or_else(|e| e.into_inner()).pop_front()
                else {
                    break;
                };
                let r = bench_tool(&setup, &tool, mode).unwrap_or_else(|e| {
                    json!({"tool": tool, "mode": mode.name(), "engine_ok": false,
                           "bench_error": format!("{e:#}")})
                });
                println!("{}", row(&r));
                results.lock().unwrap_or_else(|e| e.into_inner()).push(r);
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let order = |r: &Value| {
        modes
            .iter()
            .position(|m| r["mode"].as_str() == Some(m.name()))
    };
    results.sort_by(|a, b| (a["tool"].as_str(), order(a)).cmp(&(b["tool"].as_str(), order(b))));
    println!("\n{HEADER}");
    for r in &results {
        println!("{}", row(r));
    }
    let mut summaries = Vec::new();
    for &mode in &modes {
        let rows: Vec<&Value> = results
            .iter()
            .filter(|r| r["mode"].as_str() == Some(mode.name()))
            .collect();
        let sum = mode_summary(mode, &rows, setup.seconds);
        println!(
            "\n{}: average line coverage {:.1}% of the tools' own files, {:.1}% of src/ and lib/; \
             {:.0} s a tool; {} paths, {} solver queries; {} crash(es), {} ASan report(s); \
             {} test(s) ending otherwise than predicted, {} only printing otherwise; \
             engine errors: {}",
            mode.name(),
            sum["mean_own_coverage_pct"].as_f64().unwrap_or(0.0),
            sum["mean_all_coverage_pct"].as_f64().unwrap_or(0.0),
            sum["mean_seconds"].as_f64().unwrap_or(0.0),
            sum["paths"],
            sum["solver_queries"],
            sum["crashes"],
            sum["asan_reports"],
            sum["outcome_mismatches"],
            sum["stdout_only_mismatches"],
            match sum["engine_errors"].as_array() {
                Some(e) if !e.is_empty() => e
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
                _ => "none".to_string(),
            }
        );
        summaries.push(sum);
    }
    for r in &results {
        let (tool, mode) = (
            r["tool"].as_str().unwrap_or("?"),
            r["mode"].as_str().unwrap_or("?"),
        );
        for c in r["crashes"].as_array().into_iter().flatten() {
            println!("crash: {tool} ({mode}) {}: {}", c["native"], c["command"]);
        }
        for c in r["asan"]["crashes"].as_array().into_iter().flatten() {
            println!("asan: {tool} ({mode}) {}: {}", c["native"], c["command"]);
        }
        for m in r["mismatches"].as_array().into_iter().flatten() {
            if m["outcome_differs"].as_bool() == Some(true) {
                println!(
                    "mismatch: {tool} ({mode}) predicted {}, native {}: {}",
                    m["predicted"], m["native"], m["command"]
                );
            }
        }
        if let Some(m) = r["unsupported"].as_object().filter(|m| !m.is_empty()) {
            let names: Vec<String> = m.iter().map(|(k, v)| format!("{k} ({v})")).collect();
            println!("unsupported in {tool} ({mode}): {}", names.join(", "));
        }
        if let Some(e) = r["bench_error"].as_str() {
            println!("bench error: {tool} ({mode}): {e}");
        }
        if r["mode"] == "regress" {
            let d = &r["mode_detail"];
            println!(
                "regress: {tool}: 8.32 run {:.0} s, {} paths; {} functions changed, {} impacted nodes; \
                 9.1: {} paths explored again, {} tests kept",
                d["old_seconds"].as_f64().unwrap_or(0.0),
                d["old_paths"],
                d["changed_functions"],
                d["impacted_nodes"],
                r["memo"]["recorded_paths"],
                r["memo"]["kept_tests"]
            );
        }
    }
    results.extend(summaries);
    support::write_results("coreutils", &None, &results)
}
