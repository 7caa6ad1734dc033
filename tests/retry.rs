//! Alternatives the solver could not decide: kept undecided in the trie,
//! and asked about again with `--retry-undecided`.

use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/cli.rs"]
mod cli;

use cli::{compile, mnemo, run_memo as run, stderr, trie_text};

/// A CRC-32 of four symbolic bytes, tested twice. At a solver timeout of
/// 10 ms a probe (a tenth of it) cannot answer the first test's other
/// side; at the default timeout it takes tens of milliseconds.
const CRC_TESTED: &str = r#"
#include <klee/klee.h>
#include <stdint.h>
int main(void) {
  unsigned char d[4];
  klee_make_symbolic(d, sizeof d, "d");
  uint32_t c = 0xFFFFFFFFu;
  for (int i = 0; i < 4; i++) {
    c ^= d[i];
    for (int k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  if (~c == 0xCAFEF00Du)
    return 1;
  if ((c & 0xFFFF) == 0x4242)
    return 2;
  return 0;
}
"#;

/// The exit codes of a run's tests, sorted.
fn exits(out: &Path) -> Vec<i64> {
    let index = cli::json(&out.join("tests.json"));
    let mut codes: Vec<i64> = index["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .map(|t| t["exit_code"].as_i64().expect("an exit"))
        .collect();
    codes.sort();
    codes
}

/// `mnemo replay SOURCE OUT`: every test of `out` does natively what the
/// run said it would.
fn replays_natively(source: &Path, out: &Path) {
    let replay = mnemo()
        .arg("replay")
        .arg(source)
        .arg(out)
        .output()
        .expect("mnemo replay starts");
    assert!(replay.status.success(), "{}", stderr(&replay));
}

/// A retry at the default solver timeout.
const RETRY: [&str; 3] = ["--store", "none", "--retry-undecided"];

/// Compiles `source` as NAME in `dir` and runs it at a solver timeout of
/// 10 ms, its trie in `dir/memo` and its output in `dir/a`: the program,
/// the memo directory, and the run's output and `stats.json`. `None`
/// without clang-14.
fn run_quickly(
    dir: &Path,
    name: &str,
    source: &str,
) -> Option<(PathBuf, PathBuf, Output, serde_json::Value)> {
    let bc = compile(dir, name, source)?;
    let memo = dir.join("memo");
    let quick = ["--store", "none", "--solver-timeout", "10"];
    let (o, first) = run(&bc, &memo, &dir.join("a"), &quick);
    Some((bc, memo, o, first))
}

#[test]
fn undecided_alternatives_are_kept_and_asked_again_on_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some((bc, memo, o, first)) = run_quickly(dir.path(), "crc", CRC_TESTED) else {
        return;
    };
    assert_eq!(first["paths"]["completed"], 1, "{first}");
    assert_eq!(first["solver"]["gave_up"], 1, "{first}");
    assert_eq!(first["memo"]["undecided"], 2, "{first}");
    assert!(stderr(&o).contains("--retry-undecided"), "{}", stderr(&o));
    // The first test's side timed out; the second's the pinned bytes
    // decided, which says nothing of other bytes: both are undecided.
    let show = trie_text(&memo);
    assert_eq!(show.matches(": undecided").count(), 2, "{show}");
    assert!(!show.contains("unsat"), "{show}");

    let copy_memo = |name: &str| {
        let to = dir.path().join(name);
        std::fs::create_dir(&to).expect("mkdir");
        std::fs::copy(memo.join("crc.trie"), to.join("crc.trie")).expect("copy");
        to
    };
    let parallel_memo = copy_memo("memo-jobs");
    let static_memo = copy_memo("memo-static");

    // Asked again in too little time, the first times out again, and the
    // second, about the same bytes, is not asked: both stay undecided.
    let tiny = [
        "--store",
        "none",
        "--solver-timeout",
        "1",
        "--retry-undecided",
    ];
    let (_, short) = run(&bc, &memo, &dir.path().join("s"), &tiny);
    assert_eq!(short["memo"]["retry_nodes"], 2, "{short}");
    assert_eq!(short["memo"]["undecided_asked"], 1, "{short}");
    assert_eq!(short["memo"]["undecided_feasible"], 0, "{short}");
    assert_eq!(short["memo"]["undecided"], 2, "{short}");
    assert_eq!(trie_text(&memo).matches(": undecided").count(), 2);

    // A plain re-run trusts the trie: nothing to do.
    let (_, again) = run(&bc, &memo, &dir.path().join("b"), &["--store", "none"]);
    assert_eq!(again["memo"]["candidates"], 0, "{again}");
    assert_eq!(exits(&dir.path().join("b")), [0]);

    // Asked again with the whole default timeout, both are feasible.
    let out = dir.path().join("c");
    let (o, retried) = run(&bc, &memo, &out, &RETRY);
    assert_eq!(retried["memo"]["retry_nodes"], 2, "{retried}");
    assert_eq!(retried["memo"]["undecided_asked"], 2, "{retried}");
    assert_eq!(retried["memo"]["undecided_feasible"], 2, "{retried}");
    assert_eq!(retried["memo"]["undecided"], 0, "{retried}");
    assert!(
        stderr(&o).contains("2 undecided alternatives asked again"),
        "{}",
        stderr(&o)
    );
    assert_eq!(exits(&out), [0, 1, 2]);
    let show = trie_text(&memo);
    assert!(!show.contains("undecided"), "{show}");
    replays_natively(&dir.path().join("crc.c"), &out);

    // Workers share the retries out as they do candidates: the same tests.
    let jobs = dir.path().join("e");
    let args = ["--store", "none", "--retry-undecided", "--jobs", "2"];
    let (_, parallel) = run(&bc, &parallel_memo, &jobs, &args);
    assert_eq!(parallel["memo"]["undecided_feasible"], 2, "{parallel}");
    assert_eq!(exits(&jobs), [0, 1, 2]);
    // Partitions that move nothing: the first worker takes the retries.
    let parts = dir.path().join("f");
    let args = [
        "--store",
        "none",
        "--retry-undecided",
        "--jobs",
        "2",
        "--balance",
        "static",
    ];
    let (_, partitioned) = run(&bc, &static_memo, &parts, &args);
    assert_eq!(
        partitioned["memo"]["undecided_feasible"], 2,
        "{partitioned}"
    );
    assert_eq!(exits(&parts), [0, 1, 2]);

    // What a plain run at the default timeout finds.
    let (_, plain) = run(
        &bc,
        &dir.path().join("memo2"),
        &dir.path().join("d"),
        &["--store", "none"],
    );
    assert_eq!(plain["paths"]["completed"], 3, "{plain}");
    assert_eq!(exits(&dir.path().join("d")), exits(&out));

    // Where it would do nothing, it is refused.
    let o = mnemo()
        .args(["regress", "--retry-undecided", "--memo"])
        .arg(&memo)
        .arg(&bc)
        .arg(&bc)
        .output()
        .expect("mnemo regress starts");
    assert!(
        !o.status.success() && stderr(&o).contains("--retry-undecided"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_assumption_false_only_for_pinned_inputs_is_undecided() {
    // The CRC's other side given up, its bytes pinned: the assumption about
    // the CRC is false for them, true for others.
    let source = CRC_TESTED.replace(
        "  if ((c & 0xFFFF) == 0x4242)\n    return 2;",
        "  klee_assume((c & 0xFFFF) == 0x4242);",
    );
    assert_ne!(source, CRC_TESTED);
    let dir = tempfile::tempdir().expect("tempdir");
    let Some((bc, memo, _, first)) = run_quickly(dir.path(), "assume", &source) else {
        return;
    };
    assert_eq!(first["paths"]["completed"], 0, "{first}");
    let show = trie_text(&memo);
    assert_eq!(show.matches(": undecided").count(), 2, "{show}");

    let out = dir.path().join("b");
    let (_, retried) = run(&bc, &memo, &out, &RETRY);
    assert_eq!(retried["memo"]["undecided_feasible"], 2, "{retried}");
    assert_eq!(exits(&out), [0, 1]);
    replays_natively(&dir.path().join("assume.c"), &out);
}

#[test]
fn an_undecided_alternative_found_infeasible_is_kept_as_unsat() {
    // The one 4-byte input whose CRC-32 is 0xCAFEF00D starts with 113: with
    // `& d[0] == 0x55` the side is infeasible, which a probe of a
    // millisecond cannot tell.
    let source = CRC_TESTED.replace(
        "  if (~c == 0xCAFEF00Du)\n    return 1;\n  if ((c & 0xFFFF) == 0x4242)\n    return 2;",
        "  if ((~c == 0xCAFEF00Du) & (d[0] == 0x55))\n    return 3;",
    );
    assert_ne!(source, CRC_TESTED);
    let dir = tempfile::tempdir().expect("tempdir");
    let Some((bc, memo, _, first)) = run_quickly(dir.path(), "unsat", &source) else {
        return;
    };
    assert_eq!(first["memo"]["undecided"], 1, "{first}");
    // The retry's path has nothing left to explore and is not recorded:
    // what it learned reaches the trie all the same.
    let out = dir.path().join("b");
    let (_, retried) = run(&bc, &memo, &out, &RETRY);
    assert_eq!(retried["memo"]["undecided_asked"], 1, "{retried}");
    assert_eq!(retried["memo"]["undecided_feasible"], 0, "{retried}");
    assert_eq!(retried["memo"]["undecided"], 0, "{retried}");
    let show = trie_text(&memo);
    assert!(
        show.contains(": unsat") && !show.contains("undecided"),
        "{show}"
    );
    assert_eq!(exits(&out), [0]);
    // Nothing is left to ask.
    let (_, again) = run(&bc, &memo, &dir.path().join("c"), &RETRY);
    assert_eq!(again["memo"]["retry_nodes"], 0, "{again}");
}
