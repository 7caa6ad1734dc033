//! The compositional run's heuristics (`--compose --heuristic h1|h2`): each
//! finds the seeded error, its test replays natively with the outcome
//! predicted, and it needs fewer solver calls and paths than the same run
//! without it (counted in `stats.json`).

use std::path::Path;

#[path = "support/cli.rs"]
mod cli;

/// A callee called on every step of a loop, with an error on one of its
/// paths (the SV-COMP call: `assert`'s message strings are globals, which
/// a summary cannot read yet).
const SOURCE: &str = r#"#include <klee/klee.h>
void reach_error(void);
int step(int balance, int op, int amount) {
  if (op == 0) {
    if (amount > 0)
      return balance + amount;
    return balance;
  }
  if (amount > balance)
    return balance;
  if (balance - amount == 7)
    reach_error();
  return balance - amount;
}
int main(void) {
  int b = 10;
  for (int i = 0; i < 4; i++) {
    int op, amount;
    klee_make_symbolic(&op, sizeof op, "op");
    klee_make_symbolic(&amount, sizeof amount, "amount");
    klee_assume(amount >= 0 & amount < 4);
    b = step(b, op, amount);
  }
  return b;
}
"#;

/// The line of `reach_error();` in `SOURCE`.
const ERROR_LINE: u32 = 12;

fn run(dir: &Path, bc: &Path, name: &str, extra: &[&str]) -> serde_json::Value {
    let out = dir.join(name);
    let o = cli::mnemo()
        .args(["run", "-q", "--no-runtime", "--compose", "--output-dir"])
        .arg(&out)
        .arg("--memo")
        .arg(dir.join(format!("memo-{name}")))
        .args(extra)
        .arg(bc)
        .output()
        .expect("mnemo runs");
    assert!(
        o.status.code() == Some(0) || o.status.code() == Some(1),
        "mnemo run {extra:?} failed: {}",
        cli::stderr(&o)
    );
    cli::json(&out.join("stats.json"))
}

fn num(v: &serde_json::Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

/// The solver calls to the first error, summaries included.
fn calls_to_error(s: &serde_json::Value) -> u64 {
    num(&s["compose"]["init_z3_calls"]) + num(&s["first_error"]["z3_calls"])
}

fn paths(s: &serde_json::Value) -> u64 {
    let errors: u64 = s["paths"]["errors"]
        .as_object()
        .map_or(0, |m| m.values().map(num).sum());
    num(&s["paths"]["completed"]) + errors
}

/// The run's error test replays natively with its predicted outcome.
fn replays(dir: &Path, src: &Path, name: &str) {
    let o = cli::mnemo()
        .arg("replay")
        .arg(src)
        .arg(dir.join(name))
        .output()
        .expect("mnemo replay runs");
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success() && text.contains("native reach: match") && text.contains("0 mismatch"),
        "{name}'s tests do not replay as predicted:\n{text}{}",
        cli::stderr(&o)
    );
}

/// The one error test of a run: its kind and line in `tests.json`.
fn error_of(dir: &Path, name: &str) -> (String, u64) {
    let tests = cli::json(&dir.join(name).join("tests.json"));
    let errors: Vec<&serde_json::Value> = tests["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .filter(|t| t["outcome"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "one error test: {tests}");
    let e = errors[0];
    (
        e["kind"].as_str().unwrap_or_default().to_string(),
        num(&e["line"]),
    )
}

fn setup() -> Option<(tempfile::TempDir, std::path::PathBuf, std::path::PathBuf)> {
    let tmp = tempfile::tempdir().expect("a scratch directory");
    let bc = cli::compile(tmp.path(), "acc", SOURCE)?;
    let src = tmp.path().join("acc.c");
    Some((tmp, bc, src))
}

#[test]
fn h1_reports_the_error_of_a_summary_without_replaying_it() {
    let Some((tmp, bc, src)) = setup() else {
        return;
    };
    let dir = tmp.path();
    let plain = run(dir, &bc, "plain", &[]);
    let h1 = run(dir, &bc, "h1", &["--heuristic", "h1"]);
    assert_eq!(h1["compose"]["heuristic"], "h1");
    assert_eq!(
        num(&h1["compose"]["errors_reported"]),
        1,
        "{}",
        h1["compose"]
    );
    assert_eq!(
        error_of(dir, "h1"),
        ("reach".to_string(), ERROR_LINE as u64)
    );
    replays(dir, &src, "h1");
    assert!(
        calls_to_error(&h1) < calls_to_error(&plain),
        "h1 {} against {} Z3 calls to the error",
        calls_to_error(&h1),
        calls_to_error(&plain)
    );
    assert!(num(&h1["solver"]["z3_calls"]) < num(&plain["solver"]["z3_calls"]));
    assert!(paths(&h1) < paths(&plain), "{} paths", paths(&h1));
    assert!(num(&h1["compose"]["paths_checked"]) < num(&plain["compose"]["paths_checked"]));
}

#[test]
fn h2_composes_only_the_paths_that_lead_to_the_target() {
    let Some((tmp, bc, src)) = setup() else {
        return;
    };
    let dir = tmp.path();
    let target = format!("acc.c:{ERROR_LINE}");
    let plain = run(dir, &bc, "plain", &["--target", &target]);
    let h2 = run(dir, &bc, "h2", &["--heuristic", "h2", "--target", &target]);
    assert_eq!(h2["compose"]["heuristic"], "h2");
    // Of step's paths only the one that ends at the target is kept.
    assert!(num(&h2["compose"]["paths_pruned"]) > 0, "{}", h2["compose"]);
    assert_eq!(
        error_of(dir, "h2"),
        ("reach".to_string(), ERROR_LINE as u64)
    );
    replays(dir, &src, "h2");
    assert!(calls_to_error(&h2) < calls_to_error(&plain));
    assert!(num(&h2["solver"]["z3_calls"]) < num(&plain["solver"]["z3_calls"]));
    assert!(paths(&h2) < paths(&plain));
    assert!(num(&h2["compose"]["paths_checked"]) < num(&plain["compose"]["paths_checked"]));
}

#[test]
fn h2_keeps_every_path_of_a_callee_that_cannot_reach_the_target() {
    let Some((tmp, bc, _)) = setup() else {
        return;
    };
    let dir = tmp.path();
    // A target in main after the calls: every path of step may lead there.
    let plain = run(dir, &bc, "plain", &[]);
    let h2 = run(
        dir,
        &bc,
        "h2",
        &["--heuristic", "h2", "--target", "acc.c:24"],
    );
    assert_eq!(num(&h2["compose"]["paths_pruned"]), 0, "{}", h2["compose"]);
    assert_eq!(h2["paths"], plain["paths"]);
}

#[test]
fn heuristics_that_do_not_fit_the_run_are_refused() {
    let Some((tmp, bc, _)) = setup() else {
        return;
    };
    let out = tmp.path().join("o");
    for (args, says) in [
        (vec!["--heuristic", "h1"], "needs --compose"),
        (vec!["--compose", "--heuristic", "h2"], "needs a --target"),
        (
            vec!["--compose", "--heuristic", "counter", "--target", "main"],
            "--compose takes h1 or h2",
        ),
    ] {
        let o = cli::mnemo()
            .args(["run", "-q", "--no-runtime", "--output-dir"])
            .arg(&out)
            .args(&args)
            .arg(&bc)
            .output()
            .expect("mnemo runs");
        let err = cli::stderr(&o);
        assert!(!o.status.success() && err.contains(says), "{args:?}: {err}");
    }
}
