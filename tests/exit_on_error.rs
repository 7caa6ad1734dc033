//! `--exit-on-error` and `--exit-on-error-type`: a run that stops at the
//! first error of the kinds asked for, as at a limit, and goes on from
//! there with `--resume`; and `--max-tests N`, which stops it so once it
//! has written N tests (the paths pending then getting theirs too, as
//! KLEE's option does).

use std::path::Path;

#[path = "support/cli.rs"]
mod support;
use support::{
    compile, json, mnemo, path, path_count, replays_natively, resume_ends_as_whole, run_ended,
    stderr, trie_text,
};

/// Six input bytes; an assertion fails where three are above 100, and the
/// program aborts where five are: 64 paths, 26 of them errors.
const TWO_ERRORS: &str = r#"
#include <klee/klee.h>
#include <assert.h>
#include <stdlib.h>
int main(void) {
  unsigned char a[6];
  klee_make_symbolic(a, sizeof a, "a");
  int n = 0;
  for (int i = 0; i < 6; i++)
    if (a[i] > 100)
      n++;
  if (n == 3)
    assert(0 && "three");
  if (n == 5)
    abort();
  return n;
}
"#;

/// A function the engine has no body for, on one path of three.
const EXTERNAL: &str = r#"
#include <klee/klee.h>
int not_defined_anywhere(int);
int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  if (x == 7)
    return not_defined_anywhere(x);
  return x > 0;
}
"#;

fn errors(stats: &serde_json::Value) -> u64 {
    stats["paths"]["errors"]
        .as_object()
        .map_or(0, |m| m.values().filter_map(|v| v.as_u64()).sum())
}

/// Every test listed in `tests.json` is there, as many as `stats.json`
/// counts.
fn tests_listed(out: &Path, stats: &serde_json::Value) {
    let listed = json(&out.join("tests.json"))["tests"]
        .as_array()
        .expect("tests")
        .len() as u64;
    assert_eq!(Some(listed), stats["tests"].as_u64(), "{stats}");
}

/// TWO_ERRORS compiled in a fresh directory and run whole with a memo:
/// the directory, the bitcode, and the run's stats and memo, which a run
/// stopped and resumed must end as. `None` without clang.
fn whole_run() -> Option<(
    tempfile::TempDir,
    std::path::PathBuf,
    (serde_json::Value, std::path::PathBuf),
)> {
    let dir = tempfile::tempdir().expect("tempdir");
    let bc = compile(dir.path(), "two", TWO_ERRORS)?;
    let whole_memo = dir.path().join("memo-whole");
    let (code, whole, _) = run_ended(
        &bc,
        &dir.path().join("whole"),
        &["--memo", path(&whole_memo)],
    );
    assert_eq!(code, Some(0), "{whole}");
    Some((dir, bc, (whole, whole_memo)))
}

#[test]
fn the_run_stops_at_the_first_error_and_resume_goes_on_to_the_next() {
    let Some((dir, bc, (whole, whole_memo))) = whole_run() else {
        return;
    };
    let d = dir.path();
    assert_eq!(errors(&whole), 26, "{whole}");

    // The first error ends the run: it is the only one, and the paths
    // pending then get their tests, ended early for the reason.
    let (memo, out) = (d.join("memo"), d.join("out"));
    let first = ["--memo", path(&memo), "--exit-on-error"];
    let (code, stopped, _) = run_ended(&bc, &out, &first);
    assert_eq!(code, Some(3), "{stopped}");
    assert_eq!(stopped["stopped_by"], "exit-on-error", "{stopped}");
    assert_eq!(errors(&stopped), 1, "{stopped}");
    assert!(
        path_count(&stopped, "early", "exit-on-error") >= 1,
        "{stopped}"
    );
    tests_listed(&out, &stopped);
    // Its error test fails natively as predicted.
    replays_natively(&d.join("two.c"), &out);

    // Resumed, asking for an abort: the error found before does not stop
    // it again, the assertions met on the way do not either.
    let abort = [
        "--memo",
        path(&memo),
        "--resume",
        "--exit-on-error-type",
        "abort",
    ];
    let (code, next, _) = run_ended(&bc, &out, &abort);
    assert_eq!(code, Some(3), "{next}");
    assert_eq!(path_count(&next, "errors", "abort"), 1, "{next}");
    tests_listed(&out, &next);

    // Resumed without it, the run ends as the whole run did.
    resume_ends_as_whole(&bc, &out, &memo, (&whole, &whole_memo));
}

#[test]
fn workers_stop_at_an_error_and_a_resumed_run_with_them_ends_as_a_whole_one() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "two", TWO_ERRORS) else {
        return;
    };
    let d = dir.path();
    let whole_memo = d.join("memo-whole");
    run_ended(&bc, &d.join("whole"), &["--memo", path(&whole_memo)]);
    let (memo, out) = (d.join("memo"), d.join("out"));
    let jobs = ["--jobs", "3", "--memo", path(&memo)];
    let (code, stopped, _) = run_ended(&bc, &out, &[&jobs[..], &["--exit-on-error"]].concat());
    assert_eq!(code, Some(3), "{stopped}");
    assert_eq!(stopped["stopped_by"], "exit-on-error", "{stopped}");
    // Other workers may end an error path of their own before they see
    // the stop; the run still ends far short of the 26.
    assert!((1..26).contains(&errors(&stopped)), "{stopped}");
    tests_listed(&out, &stopped);
    let (code, _, _) = run_ended(&bc, &out, &[&jobs[..], &["--resume"]].concat());
    assert_eq!(code, Some(0));
    assert_eq!(trie_text(&memo), trie_text(&whole_memo));
}

#[test]
fn the_engine_s_own_gaps_stop_only_a_run_that_names_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "external", EXTERNAL) else {
        return;
    };
    let d = dir.path();
    let (code, all, _) = run_ended(&bc, &d.join("all"), &["--exit-on-error"]);
    assert_eq!(code, Some(0), "{all}");
    assert_eq!(path_count(&all, "errors", "external"), 1, "{all}");
    assert!(all["stopped_by"].is_null(), "{all}");
    // Named, in KLEE's spelling or this one's, among others.
    for kinds in ["external", "Assert,External"] {
        let out = d.join(format!("named-{}", kinds.len()));
        let (code, named, _) = run_ended(&bc, &out, &["--exit-on-error-type", kinds]);
        assert_eq!(code, Some(3), "{named}");
        assert_eq!(named["stopped_by"], "exit-on-error", "{named}");
        assert_eq!(path_count(&named, "errors", "external"), 1, "{named}");
    }
}

#[test]
fn an_unknown_kind_or_a_partitioned_run_is_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "external", EXTERNAL) else {
        return;
    };
    let out = dir.path().join("out");
    let o = mnemo()
        .args([
            "run",
            "-q",
            "--no-runtime",
            "--exit-on-error-type",
            "nosuch",
        ])
        .arg("--output-dir")
        .arg(&out)
        .arg(&bc)
        .output()
        .expect("runs");
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("no such error kind") && e.contains("use-after-free"),
        "{e}"
    );
    let o = mnemo()
        .args([
            "run",
            "-q",
            "--no-runtime",
            "--exit-on-error",
            "--jobs",
            "2",
        ])
        .args(["--balance", "trie", "--output-dir"])
        .arg(&out)
        .arg(&bc)
        .output()
        .expect("runs");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("--balance dynamic"), "{}", stderr(&o));
    // Shards write no tests of their own for --max-tests to count; 0 is
    // no limit, which a partition keeps.
    for (max_tests, refused) in [("3", true), ("0", false)] {
        let o = mnemo()
            .args(["partition", "-q", "--no-runtime", "--max-tests", max_tests])
            .args(["--shards", "2", "--memo"])
            .arg(dir.path().join("memo"))
            .arg("-o")
            .arg(dir.path().join("shards"))
            .arg(&bc)
            .output()
            .expect("runs");
        assert_eq!(o.status.success(), !refused, "{}", stderr(&o));
        if refused {
            assert!(stderr(&o).contains("--max-tests"), "{}", stderr(&o));
        }
    }
}

#[test]
fn deepening_stopped_at_an_error_leaves_that_bound_s_tests_as_the_output() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "two", TWO_ERRORS) else {
        return;
    };
    let out = dir.path().join("out");
    let memo = dir.path().join("memo");
    // Bounds 4, 8, 12, 16: no error within 4 choices; the run at 8 meets
    // one and is the last.
    let deepen = [
        "--memo",
        path(&memo),
        "--deepen",
        "4:4:16",
        "--exit-on-error",
    ];
    let (code, stats, _) = run_ended(&bc, &out, &deepen);
    assert_eq!(code, Some(3), "{stats}");
    assert_eq!(stats["stopped_by"], "exit-on-error", "{stats}");
    assert_eq!(errors(&stats), 1, "{stats}");
    tests_listed(&out, &stats);
    let err = std::fs::read_dir(&out)
        .expect("output")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".err"))
        .count();
    assert_eq!(err, 1);
}

/// The paths `stats.json` counts as run to their end: completed or errors.
fn ended(stats: &serde_json::Value) -> u64 {
    stats["paths"]["completed"].as_u64().unwrap_or(0) + errors(stats)
}

#[test]
fn max_tests_stops_the_run_once_it_has_written_n_and_resume_finishes_it() {
    let Some((dir, bc, (whole, whole_memo))) = whole_run() else {
        return;
    };
    let d = dir.path();
    assert_eq!(ended(&whole), 64, "{whole}");

    // One worker: the tenth test stops the run, and every path pending
    // then ends early with a test of its own.
    let (memo, out) = (d.join("memo"), d.join("out"));
    let args = ["--jobs", "1", "--memo", path(&memo), "--max-tests", "10"];
    let (code, stopped, _) = run_ended(&bc, &out, &args);
    assert_eq!(code, Some(3), "{stopped}");
    assert_eq!(stopped["stopped_by"], "max-tests", "{stopped}");
    assert_eq!(ended(&stopped), 10, "{stopped}");
    let early = path_count(&stopped, "early", "max-tests");
    assert!(early >= 1, "{stopped}");
    assert_eq!(stopped["tests"].as_u64(), Some(10 + early), "{stopped}");
    tests_listed(&out, &stopped);
    replays_natively(&d.join("two.c"), &out);
    resume_ends_as_whole(&bc, &out, &memo, (&whole, &whole_memo));
}

#[test]
fn workers_count_their_tests_together_and_zero_is_no_limit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "two", TWO_ERRORS) else {
        return;
    };
    let d = dir.path();
    let three = ["--jobs", "3", "--max-tests", "10"];
    let (code, stopped, _) = run_ended(&bc, &d.join("three"), &three);
    assert_eq!(code, Some(3), "{stopped}");
    assert_eq!(stopped["stopped_by"], "max-tests", "{stopped}");
    // Other workers may end a path or two before they see the stop.
    assert!((10..64).contains(&ended(&stopped)), "{stopped}");

    let (code, all, _) = run_ended(&bc, &d.join("zero"), &["--max-tests", "0"]);
    assert_eq!(code, Some(0), "{all}");
    assert!(all["stopped_by"].is_null(), "{all}");
    assert_eq!(ended(&all), 64, "{all}");
}

#[test]
fn without_dump_states_on_halt_the_pending_paths_wait_untested_for_resume() {
    let Some((dir, bc, (whole, whole_memo))) = whole_run() else {
        return;
    };
    let d = dir.path();
    let (memo, out) = (d.join("memo"), d.join("out"));
    let args = [
        "--jobs",
        "1",
        "--memo",
        path(&memo),
        "--max-tests",
        "10",
        "--dump-states-on-halt=false",
    ];
    let (code, stopped, said) = run_ended(&bc, &out, &args);
    assert_eq!(code, Some(3), "{stopped}");
    assert_eq!(stopped["tests"], 10, "{stopped}");
    let early = path_count(&stopped, "early", "max-tests");
    assert!(early >= 1, "{stopped}");
    assert_eq!(
        stopped["paths"]["untested"].as_u64(),
        Some(early),
        "{stopped}"
    );
    assert!(said.contains("kept in the trie for --resume"), "{said}");
    tests_listed(&out, &stopped);
    replays_natively(&d.join("two.c"), &out);
    resume_ends_as_whole(&bc, &out, &memo, (&whole, &whole_memo));
}
