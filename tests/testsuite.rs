//! The end-to-end testsuite: every C program in `testsuite/` states in its
//! header comment what mnemo must find, and every test mnemo writes must
//! replay natively with the outcome mnemo predicted.
//!
//! Header lines (inside the first comment):
//!
//! ```text
//!  * mnemo-args: --max-depth 6        extra arguments of `mnemo run`
//!  * expect-completed: 7              paths that returned from main or exited
//!  * expect-error: assert 24 2        error kind, source line, number of paths
//!  * expect-early: max-depth 1        early reason, number of paths
//!  * expect-tests: 8                  ktest files written
//! ```
//!
//! Everything is exact: an error kind or early reason not listed must not
//! occur. One trial per program (libtest-mimic), so `cargo nextest` runs
//! them in parallel and a filter picks some: `cargo test --test testsuite paper_`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use libtest_mimic::{Arguments, Failed, Trial};

/// What a program's header says mnemo must find.
#[derive(Debug, Default, PartialEq)]
struct Expect {
    args: Vec<String>,
    completed: u64,
    /// (kind, line) -> paths
    errors: BTreeMap<(String, u32), u64>,
    /// reason -> paths
    early: BTreeMap<String, u64>,
    tests: u64,
}

fn parse_count(what: &str, v: &str) -> Result<u64, String> {
    v.trim()
        .parse()
        .map_err(|_| format!("{what}: `{v}` is not a number"))
}

/// Reads the header; unknown `expect-`/`mnemo-` keys are errors, so a typo
/// cannot silently skip a check.
fn parse_header(text: &str) -> Result<Expect, String> {
    let start = text.find("/*").ok_or("no header comment")?;
    let end = text[start..]
        .find("*/")
        .ok_or("the header comment is not closed")?
        + start;
    let mut e = Expect::default();
    let (mut saw_completed, mut saw_tests) = (false, false);
    for raw in text[start + 2..end].lines() {
        let line = raw.trim().trim_start_matches('*').trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        if !(key.starts_with("expect-") || key.starts_with("mnemo-")) {
            continue;
        }
        match key {
            "mnemo-args" => e.args = value.split_whitespace().map(String::from).collect(),
            "expect-completed" => {
                e.completed = parse_count(key, value)?;
                saw_completed = true;
            }
            "expect-tests" => {
                e.tests = parse_count(key, value)?;
                saw_tests = true;
            }
            "expect-error" => {
                let f: Vec<&str> = value.split_whitespace().collect();
                let [kind, line, count] = f[..] else {
                    return Err(format!(
                        "expect-error wants `kind line count`, got `{}`",
                        value.trim()
                    ));
                };
                let line: u32 = line
                    .parse()
                    .map_err(|_| format!("expect-error: bad line `{line}`"))?;
                *e.errors.entry((kind.to_string(), line)).or_default() += parse_count(key, count)?;
            }
            "expect-early" => {
                let f: Vec<&str> = value.split_whitespace().collect();
                let [reason, count] = f[..] else {
                    return Err(format!(
                        "expect-early wants `reason count`, got `{}`",
                        value.trim()
                    ));
                };
                *e.early.entry(reason.to_string()).or_default() += parse_count(key, count)?;
            }
            other => return Err(format!("unknown header key `{other}`")),
        }
    }
    if !saw_completed || !saw_tests {
        return Err("the header must state expect-completed and expect-tests".into());
    }
    Ok(e)
}

fn mnemo() -> Command {
    Command::new(env!("CARGO_BIN_EXE_mnemo"))
}

fn read_json(path: &Path) -> Result<serde_json::Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{} is not JSON: {e}", path.display()))
}

fn check_program(source: &Path) -> Result<(), Failed> {
    let text = std::fs::read_to_string(source)
        .map_err(|e| format!("cannot read {}: {e}", source.display()))?;
    let expect = parse_header(&text).map_err(|e| format!("{}: {e}", source.display()))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let bc = dir.path().join("prog.bc");
    let out = dir.path().join("out");

    let cc = mnemo()
        .arg("cc")
        .arg(source)
        .arg("-o")
        .arg(&bc)
        .output()
        .map_err(|e| e.to_string())?;
    if !cc.status.success() {
        return Err(format!("mnemo cc failed:\n{}", String::from_utf8_lossy(&cc.stderr)).into());
    }
    let run = mnemo()
        .arg("run")
        .arg("-q")
        .arg("--output-dir")
        .arg(&out)
        .args(&expect.args)
        .arg(&bc)
        .output()
        .map_err(|e| e.to_string())?;
    let run_log = String::from_utf8_lossy(&run.stderr).into_owned();
    if !run.status.success() {
        return Err(format!("mnemo run failed ({}):\n{run_log}", run.status).into());
    }

    let stats = read_json(&out.join("stats.json"))?;
    let tests = read_json(&out.join("tests.json"))?;
    let records = tests["tests"]
        .as_array()
        .ok_or("tests.json has no tests array")?;
    let mut actual = Expect {
        args: expect.args.clone(),
        ..Expect::default()
    };
    actual.completed = stats["paths"]["completed"].as_u64().unwrap_or(u64::MAX);
    actual.tests = stats["tests"].as_u64().unwrap_or(u64::MAX);
    for r in records {
        match r["outcome"].as_str() {
            Some("error") => {
                let key = (
                    r["kind"].as_str().unwrap_or("?").to_string(),
                    r["line"].as_u64().unwrap_or(0) as u32,
                );
                *actual.errors.entry(key).or_default() += 1;
            }
            Some("early") => {
                *actual
                    .early
                    .entry(r["reason"].as_str().unwrap_or("?").to_string())
                    .or_default() += 1
            }
            _ => {}
        }
    }
    let mut problems = Vec::new();
    if actual.completed != expect.completed {
        problems.push(format!(
            "completed paths: expected {}, got {}",
            expect.completed, actual.completed
        ));
    }
    if actual.errors != expect.errors {
        problems.push(format!(
            "errors (kind, line) -> paths: expected {:?}, got {:?}",
            expect.errors, actual.errors
        ));
    }
    if actual.early != expect.early {
        problems.push(format!(
            "early paths: expected {:?}, got {:?}",
            expect.early, actual.early
        ));
    }
    if actual.tests != expect.tests {
        problems.push(format!(
            "tests: expected {}, got {}",
            expect.tests, actual.tests
        ));
    }
    // stats.json, tests.json and the files on disk must agree with each other.
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    for ((kind, _), n) in &actual.errors {
        *by_kind.entry(kind.clone()).or_default() += n;
    }
    let stats_errors: BTreeMap<String, u64> = stats["paths"]["errors"]
        .as_object()
        .map(|m| {
            m.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default();
    if stats_errors != by_kind {
        problems.push(format!(
            "stats.json errors {stats_errors:?} disagree with tests.json {by_kind:?}"
        ));
    }
    let ktests = std::fs::read_dir(&out)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ktest"))
        .count() as u64;
    if ktests != records.len() as u64 || ktests != actual.tests {
        problems.push(format!(
            "{ktests} ktest files, {} records in tests.json, stats says {}",
            records.len(),
            actual.tests
        ));
    }
    if !problems.is_empty() {
        return Err(format!(
            "{}:\n  {}\nmnemo run said:\n{run_log}",
            source.display(),
            problems.join("\n  ")
        )
        .into());
    }

    let replay = mnemo()
        .arg("replay")
        .arg(source)
        .arg(&out)
        .output()
        .map_err(|e| e.to_string())?;
    if !replay.status.success() {
        return Err(format!(
            "{}: native replay does not match mnemo's predictions:\n{}{}",
            source.display(),
            String::from_utf8_lossy(&replay.stdout),
            String::from_utf8_lossy(&replay.stderr)
        )
        .into());
    }
    Ok(())
}

/// The header parser's own checks, run as trials of this harness.
fn header_trials() -> Vec<Trial> {
    vec![
        Trial::test("header::full", || {
            let e = parse_header(
                "/* what\n * mnemo-args: --max-depth 3\n * expect-completed: 2\n * expect-error: assert 9 1\n * expect-error: assert 9 1\n * expect-early: max-depth 4\n * expect-tests: 8\n */",
            )?;
            let want = Expect {
                args: vec!["--max-depth".into(), "3".into()],
                completed: 2,
                errors: [(("assert".to_string(), 9), 2)].into_iter().collect(),
                early: [("max-depth".to_string(), 4)].into_iter().collect(),
                tests: 8,
            };
            if e != want {
                return Err(format!("{e:?}").into());
            }
            Ok(())
        }),
        Trial::test("header::rejects_typos_and_gaps", || {
            for bad in [
                "/* expect-completd: 1\n expect-tests: 1 */",
                "/* expect-completed: 1 */",
                "/* expect-completed: x\n expect-tests: 1 */",
                "/* expect-completed: 1\n expect-tests: 1\n expect-error: assert 9 */",
                "int main() { return 0; }",
            ] {
                if parse_header(bad).is_ok() {
                    return Err(format!("accepted: {bad}").into());
                }
            }
            Ok(())
        }),
    ]
}

fn main() {
    let args = Arguments::from_args();
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testsuite");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "c"))
                .collect()
        })
        .unwrap_or_default();
    sources.sort();
    let mut trials = header_trials();
    for source in sources {
        let name = source
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        trials.push(Trial::test(name, move || check_program(&source)));
    }
    libtest_mimic::run(&args, trials).exit();
}
