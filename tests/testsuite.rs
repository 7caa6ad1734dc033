//! The end-to-end test suite: every C program in `testsuite/` is compiled
//! with `mnemo cc`, explored with `mnemo run` and replayed natively with
//! `mnemo replay`, and the outcome must match the expectations written in
//! the program's header comment exactly.
//!
//! A header looks like this (keys are case-sensitive, one per line):
//!
//! ```text
//! /* what the program exercises
//!  * mnemo-args: --max-depth 12
//!  * program-args: --sym-args 0 2 3 --sym-stdin 4
//!  * cc-args: -O2
//!  * expect-completed: 12
//!  * expect-error: assert 23 1
//!  * expect-early: max-depth 3
//!  * expect-tests: 16
//!  */
//! ```
//!
//! `expect-completed` and `expect-tests` are required; a missing
//! `expect-error` or `expect-early` means "none". Any other `expect-`,
//! `mnemo-`, `program-` or `cc-` key is rejected, so that a typo cannot
//! silently drop a check. `program-args` go to the program, after the
//! bitcode; `cc-args` to clang, after the flags `mnemo cc` passes (`-O2`
//! gives optimized bitcode) and to `mnemo replay`'s native build, so that
//! the native program is the one mnemo ran.
//!
//! Run it with `cargo test --test testsuite` (or `cargo nextest run --test
//! testsuite`); a filter such as `cargo test --test testsuite paper_` runs
//! the matching programs only. `MNEMO_SUITE_TIMEOUT` (seconds, default 300)
//! bounds each mnemo command.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use libtest_mimic::{Arguments, Failed, Trial};
use serde_json::Value;

#[path = "support/mutants.rs"]
mod mutants;
#[path = "support/trial.rs"]
mod trial;

use trial::{keep_on_failure, scratch};

#[path = "support/header.rs"]
mod header;
#[path = "support/suite_memo.rs"]
mod suite_memo;

use suite_memo::check_memo;

#[path = "support/conditions.rs"]
mod conditions;

use conditions::check_conditions;

/// The root of the crate, where `testsuite/` lives.
fn crate_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The suite's programs, sorted by name.
fn programs() -> Result<Vec<PathBuf>, String> {
    let dir = crate_root().join("testsuite");
    let entries = fs::read_dir(&dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    let mut progs = Vec::new();
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .path();
        if path.extension().is_some_and(|ext| ext == "c") {
            progs.push(path);
        }
    }
    progs.sort();
    Ok(progs)
}

fn timeout() -> Duration {
    let secs = std::env::var("MNEMO_SUITE_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(300);
    Duration::from_secs(secs)
}

/// What one finished command printed and how it ended.
struct Output {
    status: ExitStatus,
    text: String,
}

/// Runs a command with its output sent to files in `dir` (so a chatty
/// command cannot block on a full pipe) and kills it past the time limit.
fn run(mut cmd: Command, dir: &Path, label: &str) -> Result<Output, String> {
    let out_path = dir.join(format!("{label}.stdout"));
    let err_path = dir.join(format!("{label}.stderr"));
    let stdout = fs::File::create(&out_path).map_err(|e| format!("{label}: {e}"))?;
    let stderr = fs::File::create(&err_path).map_err(|e| format!("{label}: {e}"))?;
    let shown = format!("{cmd:?}");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    let limit = timeout();
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if start.elapsed() > limit => {
                // Best effort: the process may have exited in between.
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("{shown} did not finish within {limit:?}"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(format!("waiting for {shown}: {e}")),
        }
    };
    let mut text = String::new();
    for (name, path) in [("stdout", &out_path), ("stderr", &err_path)] {
        let content = fs::read_to_string(path).unwrap_or_default();
        if !content.is_empty() {
            let _ = writeln!(text, "--- {name} ---\n{}", content.trim_end());
        }
    }
    Ok(Output { status, text })
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text =
        fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not valid JSON: {e}", path.display()))
}

fn count_map(value: Option<&Value>, what: &str) -> Result<BTreeMap<String, u64>, String> {
    let mut map = BTreeMap::new();
    let Some(value) = value else {
        return Err(format!("stats.json has no `{what}`"));
    };
    let obj = value
        .as_object()
        .ok_or_else(|| format!("stats.json `{what}` is not an object"))?;
    for (k, v) in obj {
        let n = v
            .as_u64()
            .ok_or_else(|| format!("stats.json `{what}.{k}` is not a count"))?;
        if n > 0 {
            map.insert(k.clone(), n);
        }
    }
    Ok(map)
}

/// What the run's output directory says happened.
#[derive(Debug, Default)]
struct Actual {
    stats_completed: u64,
    stats_errors: BTreeMap<String, u64>,
    stats_early: BTreeMap<String, u64>,
    stats_tests: u64,
    json_completed: u64,
    /// (kind, file name, line) -> test ids
    json_errors: BTreeMap<(String, String, u32), Vec<u64>>,
    json_early: BTreeMap<String, u64>,
    json_tests: u64,
    missing_ktests: Vec<String>,
    ktest_files: u64,
    err_files: u64,
    stdout_files: u64,
}

fn collect(out: &Path) -> Result<Actual, String> {
    let mut act = Actual::default();
    let stats = read_json(&out.join("stats.json"))?;
    let paths = stats
        .get("paths")
        .ok_or_else(|| "stats.json has no `paths`".to_string())?;
    act.stats_completed = paths
        .get("completed")
        .and_then(Value::as_u64)
        .ok_or_else(|| "stats.json has no count `paths.completed`".to_string())?;
    act.stats_errors = count_map(paths.get("errors"), "paths.errors")?;
    act.stats_early = count_map(paths.get("early"), "paths.early")?;
    act.stats_tests = stats
        .get("tests")
        .and_then(Value::as_u64)
        .ok_or_else(|| "stats.json has no count `tests`".to_string())?;

    let tests = read_json(&out.join("tests.json"))?;
    let list = tests
        .get("tests")
        .and_then(Value::as_array)
        .ok_or_else(|| "tests.json has no array `tests`".to_string())?;
    act.json_tests = list.len() as u64;
    for t in list {
        let id = t.get("id").and_then(Value::as_u64).unwrap_or(0);
        let field = |name: &str| t.get(name).and_then(Value::as_str).unwrap_or("");
        let ktest = field("ktest");
        if ktest.is_empty() || !out.join(ktest).is_file() {
            act.missing_ktests
                .push(format!("test {id}: ktest `{ktest}`"));
        }
        match field("outcome") {
            "exit" => act.json_completed += 1,
            "error" => {
                let file = Path::new(field("file"))
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let line = t.get("line").and_then(Value::as_u64).unwrap_or(0) as u32;
                act.json_errors
                    .entry((field("kind").to_string(), file, line))
                    .or_default()
                    .push(id);
            }
            "early" => {
                *act.json_early
                    .entry(field("reason").to_string())
                    .or_insert(0) += 1
            }
            other => return Err(format!("tests.json: test {id} has outcome `{other}`")),
        }
    }

    let entries = fs::read_dir(out).map_err(|e| format!("cannot list {}: {e}", out.display()))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("test") && name.ends_with(".ktest") {
            act.ktest_files += 1;
        } else if name.starts_with("test") && name.ends_with(".err") {
            act.err_files += 1;
        } else if name.starts_with("test") && name.ends_with(".stdout") {
            act.stdout_files += 1;
        }
    }
    Ok(act)
}

fn fmt_map<K: std::fmt::Debug, V: std::fmt::Debug>(m: &BTreeMap<K, V>) -> String {
    if m.is_empty() {
        "{}".into()
    } else {
        format!("{m:?}")
    }
}

/// Lists every way the run differs from the header; empty when it matches.
fn compare(exp: &header::Expectation, act: &Actual, prog_name: &str) -> Vec<String> {
    let mut diffs = Vec::new();
    fn check(diffs: &mut Vec<String>, what: &str, expected: String, actual: String) {
        if expected != actual {
            diffs.push(format!("{what}: expected {expected}, actual {actual}"));
        }
    }
    check(
        &mut diffs,
        "completed paths (stats.json paths.completed)",
        exp.completed.to_string(),
        act.stats_completed.to_string(),
    );
    check(
        &mut diffs,
        "completed paths (tests.json outcome exit)",
        exp.completed.to_string(),
        act.json_completed.to_string(),
    );
    let expected_errors: BTreeMap<(String, String, u32), u64> = exp
        .errors
        .iter()
        .map(|((k, l), n)| ((k.clone(), prog_name.to_string(), *l), *n))
        .collect();
    let actual_errors: BTreeMap<(String, String, u32), u64> = act
        .json_errors
        .iter()
        .map(|(k, ids)| (k.clone(), ids.len() as u64))
        .collect();
    if expected_errors != actual_errors {
        let mut text = String::from("error paths (kind, file, line) -> count in tests.json:");
        let _ = write!(text, "\n    expected {}", fmt_map(&expected_errors));
        let _ = write!(text, "\n    actual   {}", fmt_map(&actual_errors));
        for (key, ids) in &act.json_errors {
            if expected_errors.get(key) != Some(&(ids.len() as u64)) {
                let _ = write!(text, "\n    {key:?} came from tests {ids:?}");
            }
        }
        diffs.push(text);
    }
    check(
        &mut diffs,
        "error paths per kind (stats.json paths.errors)",
        fmt_map(&exp.errors_by_kind()),
        fmt_map(&act.stats_errors),
    );
    check(
        &mut diffs,
        "early paths per reason (stats.json paths.early)",
        fmt_map(&exp.early),
        fmt_map(&act.stats_early),
    );
    check(
        &mut diffs,
        "early paths per reason (tests.json)",
        fmt_map(&exp.early),
        fmt_map(&act.json_early),
    );
    check(
        &mut diffs,
        "tests (stats.json tests)",
        exp.tests.to_string(),
        act.stats_tests.to_string(),
    );
    check(
        &mut diffs,
        "tests (entries in tests.json)",
        exp.tests.to_string(),
        act.json_tests.to_string(),
    );
    check(
        &mut diffs,
        "tests (.ktest files on disk)",
        exp.tests.to_string(),
        act.ktest_files.to_string(),
    );
    check(
        &mut diffs,
        ".err files on disk (one per error path)",
        exp.error_total().to_string(),
        act.err_files.to_string(),
    );
    check(
        &mut diffs,
        ".stdout files on disk (one per completed path)",
        exp.completed.to_string(),
        act.stdout_files.to_string(),
    );
    if !act.missing_ktests.is_empty() {
        diffs.push(format!(
            "tests.json names ktest files that do not exist: {}",
            act.missing_ktests.join(", ")
        ));
    }
    diffs
}

/// Compiles the program at `prog` to `bc` with `mnemo cc` and the
/// header's `cc_args`, its output kept in `dir`.
fn compile(prog: &Path, bc: &Path, cc_args: &[String], dir: &Path) -> Result<(), String> {
    let mut cc = Command::new(env!("CARGO_BIN_EXE_mnemo"));
    cc.current_dir(crate_root())
        .arg("cc")
        .arg(prog)
        .arg("-o")
        .arg(bc)
        .arg("--")
        .args(cc_args);
    let o = run(cc, dir, "cc")?;
    if !o.status.success() {
        return Err(format!("`mnemo cc` failed ({}):\n{}", o.status, o.text));
    }
    Ok(())
}

/// Compiles, runs and replays one program and checks it against its header.
fn check_program(prog: &Path) -> Result<(), Failed> {
    let source =
        fs::read_to_string(prog).map_err(|e| format!("cannot read {}: {e}", prog.display()))?;
    let exp = header::parse(&source).map_err(|e| format!("{}: {e}", prog.display()))?;
    let prog_name = prog
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();

    let tmp = scratch("mnemo-suite-")?;
    let dir = tmp.path().to_path_buf();
    let bc = dir.join("prog.bc");
    let out = dir.join("out");
    let mnemo = env!("CARGO_BIN_EXE_mnemo");

    let result = (|| -> Result<(), String> {
        compile(prog, &bc, &exp.cc_args, &dir)?;

        let mut cmd = Command::new(mnemo);
        // Each program's run starts with an empty solver store, as a user's
        // first run does, and leaves nothing behind.
        cmd.env("MNEMO_STORE", dir.join("solver.db"));
        cmd.current_dir(crate_root())
            .arg("run")
            .arg("--output-dir")
            .arg(&out)
            .arg("--write-smt2s")
            .arg("--write-cov")
            .args(&exp.args)
            .arg(&bc)
            .args(&exp.program_args);
        let o = run(cmd, &dir, "run")?;
        if !o.status.success() {
            return Err(format!(
                "`mnemo run {} prog.bc {}` exited with {} (it must exit 0 even when the program has errors):\n{}",
                exp.args.join(" "),
                exp.program_args.join(" "),
                o.status,
                o.text
            ));
        }
        let act = collect(&out).map_err(|e| format!("{e}\n`mnemo run` output:\n{}", o.text))?;
        let diffs = compare(&exp, &act, &prog_name);
        if !diffs.is_empty() {
            let mut msg = format!("{} differs from its header:\n", prog.display());
            for d in diffs {
                let _ = writeln!(msg, "  - {d}");
            }
            let _ = write!(msg, "`mnemo run` output:\n{}", o.text);
            return Err(msg);
        }

        let checked = check_conditions(&out).map_err(|e| format!("{}: {e}", prog.display()))?;
        if checked.without > 0 {
            return Err(format!(
                "{}: {} tests have no path condition",
                prog.display(),
                checked.without
            ));
        }
        check_lines(&out).map_err(|e| format!("{}: {e}", prog.display()))?;
        if !replays_natively(&exp) {
            return Ok(());
        }
        let mut replay = Command::new(mnemo);
        replay
            .current_dir(crate_root())
            .arg("replay")
            .arg(prog)
            .arg(&out)
            .arg("--")
            .args(&exp.cc_args);
        let o = run(replay, &dir, "replay")?;
        if !o.status.success() {
            return Err(format!(
                "`mnemo replay` exited with {}: a native outcome differs from the prediction:\n{}",
                o.status, o.text
            ));
        }
        Ok(())
    })();

    keep_on_failure(tmp, result)
}

/// Checks the `--write-cov` files of a run that explored every path: each
/// test has one, and an error's line in the program is among its path's.
fn check_lines(out: &Path) -> Result<(), String> {
    let files: Vec<String> = std::fs::read_dir(out)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    let count = |ext: &str| files.iter().filter(|f| f.ends_with(ext)).count();
    if count(".cov") != count(".ktest") {
        return Err(format!(
            "{} tests but {} .cov files",
            count(".ktest"),
            count(".cov")
        ));
    }
    for err in files.iter().filter(|f| f.ends_with(".err")) {
        let report = std::fs::read_to_string(out.join(err)).map_err(|e| e.to_string())?;
        let field = |key: &str| {
            report
                .lines()
                .find_map(|l| l.strip_prefix(key))
                .map(str::trim)
        };
        let (Some(file), Some(line)) = (field("File:"), field("Line:")) else {
            continue;
        };
        if file.contains("/runtime/") || line == "0" {
            continue;
        }
        let cov = out.join(format!("{}.cov", &err[..10]));
        let lines = std::fs::read_to_string(&cov).map_err(|e| format!("{}: {e}", cov.display()))?;
        if !lines.lines().any(|l| l == format!("{file}:{line}")) {
            return Err(format!(
                "{err}: {file}:{line} is not among its path's lines"
            ));
        }
    }
    Ok(())
}

/// Whether `mnemo replay` can run the program's tests natively: all can
/// (their argv, symbolic files and stdin recreated, their `.stdout`
/// compared) but those of a program reading a `--file` host file, whose
/// read-only, only-named-files semantics a native run does not have.
fn replays_natively(exp: &header::Expectation) -> bool {
    !exp.args.iter().any(|a| a == "--file")
}

/// The `--file PATH` options among the header's `mnemo-args`, which a
/// certification needs as the run did.
fn host_files(exp: &header::Expectation) -> Vec<String> {
    let mut files = Vec::new();
    let mut it = exp.args.iter();
    while let Some(a) = it.next() {
        if a == "--file" {
            files.push(a.clone());
            files.extend(it.next().cloned());
        }
    }
    files
}

/// Checks of the comparison against a hand-written output directory, so the
/// harness is known to catch differences before mnemo ever runs.
fn harness_trials() -> Vec<Trial> {
    fn fake_run() -> Result<tempfile::TempDir, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let write = |name: &str, text: &str| {
            fs::write(dir.path().join(name), text).map_err(|e| format!("{name}: {e}"))
        };
        write(
            "stats.json",
            r#"{"instructions": 10, "paths": {"completed": 1, "errors": {"assert": 1},
               "early": {"max-depth": 1}}, "tests": 3}"#,
        )?;
        write(
            "tests.json",
            r#"{"version": 1, "program": "prog.bc", "tests": [
                {"id": 1, "ktest": "test000001.ktest", "outcome": "exit", "exit_code": 0},
                {"id": 2, "ktest": "test000002.ktest", "outcome": "error", "kind": "assert",
                 "file": "/somewhere/prog.c", "line": 7, "message": "m"},
                {"id": 3, "ktest": "test000003.ktest", "outcome": "early", "reason": "max-depth"}]}"#,
        )?;
        for n in 1..=3 {
            write(&format!("test00000{n}.ktest"), "KTEST")?;
        }
        write("test000002.assert.err", "Error: m")?;
        write("test000001.stdout", "")?;
        Ok(dir)
    }
    fn expectation(src: &str) -> Result<header::Expectation, Failed> {
        Ok(header::parse(src)?)
    }
    vec![
        Trial::test("harness::matching_run_has_no_differences", || {
            let dir = fake_run()?;
            let exp = expectation(
                "/* x\n * mnemo-args: --max-depth 1\n * expect-completed: 1\n \
                 * expect-error: assert 7 1\n * expect-early: max-depth 1\n \
                 * expect-tests: 3\n */",
            )?;
            let diffs = compare(&exp, &collect(dir.path())?, "prog.c");
            if diffs.is_empty() {
                Ok(())
            } else {
                Err(diffs.join("\n").into())
            }
        }),
        Trial::test("harness::differences_are_named", || {
            let dir = fake_run()?;
            let exp = expectation(
                "/* x\n * expect-completed: 2\n * expect-error: assert 8 1\n \
                 * expect-tests: 3\n */",
            )?;
            let diffs = compare(&exp, &collect(dir.path())?, "prog.c").join("\n");
            for needle in [
                "completed paths (stats.json paths.completed): expected 2, actual 1",
                "(\"assert\", \"prog.c\", 8): 1",
                "(\"assert\", \"prog.c\", 7) came from tests [2]",
                "early paths per reason (tests.json): expected {}, actual {\"max-depth\": 1}",
            ] {
                if !diffs.contains(needle) {
                    return Err(format!("`{needle}` missing from:\n{diffs}").into());
                }
            }
            // A ktest file that disappeared is reported too.
            fs::remove_file(dir.path().join("test000003.ktest")).map_err(|e| e.to_string())?;
            let diffs = compare(&exp, &collect(dir.path())?, "prog.c").join("\n");
            if !diffs.contains("tests (.ktest files on disk): expected 3, actual 2")
                || !diffs.contains("test 3: ktest `test000003.ktest`")
            {
                return Err(format!("missing ktest not reported:\n{diffs}").into());
            }
            Ok(())
        }),
    ]
}

fn main() {
    let args = Arguments::from_args();
    let mut trials = header::trials(programs);
    trials.extend(harness_trials());
    match programs() {
        Ok(progs) => {
            for prog in progs {
                let name = prog
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let p = prog.clone();
                trials.push(Trial::test(format!("memo::{name}"), move || check_memo(&p)));
                trials.push(Trial::test(name, move || check_program(&prog)));
            }
        }
        Err(e) => trials.push(Trial::test("testsuite::list_programs", move || {
            Err(e.into())
        })),
    }
    libtest_mimic::run(&args, trials).exit();
}
