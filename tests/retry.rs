//! Alternatives the solver could not decide: kept undecided in the trie,
//! asked about again with `--retry-undecided`, in one process, by
//! workers, by shards run apart and merged, by a cluster's workers, and by
//! a regression run; each ends as a run at the default solver timeout
//! would.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/cli.rs"]
mod cli;
#[path = "support/found.rs"]
mod found;
#[path = "support/process.rs"]
mod process;

use cli::{compile, mnemo, run_memo as run, stderr, trie_text};
use found::{differ, found};
use mnemo::solver::store::LocalServer;
use process::{spawn_logged, Running};

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

/// Copies `from`'s one trie file into a new memo directory `to`.
fn copy_memo(from: &Path, to: &Path, name: &str) {
    let file = format!("{name}.trie");
    std::fs::create_dir_all(to).expect("mkdir");
    std::fs::copy(from.join(&file), to.join(&file)).expect("copy the trie");
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

    let (parallel_memo, static_memo) =
        (dir.path().join("memo-jobs"), dir.path().join("memo-static"));
    for to in [&parallel_memo, &static_memo] {
        copy_memo(&memo, to, "crc");
    }

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

    // A shard's run does what its shard says.
    let o = mnemo()
        .args(["run", "--retry-undecided", "--shard"])
        .arg(dir.path().join("none.shard"))
        .output()
        .expect("mnemo run starts");
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

/// [`CRC_TESTED`]'s tests, then a loop over four more symbolic bytes:
/// sixteen paths below each side of the CRC's tests.
const CRC_THEN_LOOP: &str = r#"
#include <klee/klee.h>
#include <stdint.h>
int main(void) {
  unsigned char d[4], e[4];
  klee_make_symbolic(d, sizeof d, "d");
  klee_make_symbolic(e, sizeof e, "e");
  uint32_t c = 0xFFFFFFFFu;
  for (int i = 0; i < 4; i++) {
    c ^= d[i];
    for (int k = 0; k < 8; k++)
      c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  int r = 0;
  if (~c == 0xCAFEF00Du)
    r = 1;
  else if ((c & 0xFFFF) == 0x4242)
    r = 2;
  for (int i = 0; i < 4; i++)
    if (e[i] > 100)
      r += 10;
  return r;
}
"#;

/// `mnemo ARGS`, which must succeed: what it printed.
fn ok(args: &[&OsStr]) -> String {
    found::mnemo(args).unwrap_or_else(|e| panic!("{e}"))
}

/// `mnemo worker URL -j 1` in the background, its stderr into `log`.
fn worker(url: &str, log: &Path) -> Running {
    spawn_logged(cli::mnemo().args(["worker", url, "-j", "1"]), log)
}

#[test]
fn shards_and_a_cluster_ask_again_as_one_run_does() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let Some(bc) = compile(dir, "crc", CRC_THEN_LOOP) else {
        return;
    };
    // At 10 ms and depth 2: both CRC tests undecided, four boundary nodes.
    let quick = [
        "--store",
        "none",
        "--solver-timeout",
        "10",
        "--max-depth",
        "2",
    ];
    let (_, first) = run(&bc, &dir.join("first-m"), &dir.join("first"), &quick);
    assert_eq!(first["memo"]["undecided"], 2, "{first}");
    assert_eq!(first["paths"]["early"]["max-depth"], 4, "{first}");
    for to in ["single-m", "m", "cluster-m"] {
        copy_memo(&dir.join("first-m"), &dir.join(to), "crc");
    }

    // The reference: one process asks again and deepens.
    let (_, single) = run(&bc, &dir.join("single-m"), &dir.join("single"), &RETRY);
    assert_eq!(single["memo"]["undecided_feasible"], 2, "{single}");
    assert_eq!(single["paths"]["completed"], 48, "{single}");
    let reference = found(dir, "single", "single-m").expect("the single run");

    // Shards: the first asks again, all explore below their candidates.
    let shards = dir.join("shards");
    let said = ok(&[
        "partition".as_ref(),
        "--store".as_ref(),
        "none".as_ref(),
        "--retry-undecided".as_ref(),
        "--memo".as_ref(),
        dir.join("m").as_os_str(),
        "--shards".as_ref(),
        "3".as_ref(),
        "-o".as_ref(),
        shards.as_os_str(),
        bc.as_os_str(),
    ]);
    assert!(
        said.contains("2 nodes with undecided alternatives, asked again by the first shard"),
        "{said}"
    );
    let outs: Vec<PathBuf> = (0..3).map(|i| dir.join(format!("out{i}"))).collect();
    for (i, out) in outs.iter().enumerate() {
        let shard = shards.join(format!("00{i}.shard"));
        ok(&[
            "run".as_ref(),
            "-q".as_ref(),
            "--store".as_ref(),
            "none".as_ref(),
            "--shard".as_ref(),
            shard.as_os_str(),
            "--output-dir".as_ref(),
            out.as_os_str(),
        ]);
    }
    let mut merge: Vec<&OsStr> = vec!["merge".as_ref()];
    merge.extend(outs.iter().map(|o| o.as_os_str()));
    let (m, all) = (dir.join("m"), dir.join("all"));
    merge.extend(["--memo".as_ref(), m.as_os_str()]);
    merge.extend(["--output-dir".as_ref(), all.as_os_str()]);
    ok(&merge);
    let merged = found(dir, "all", "m").expect("the merged run");
    differ("shards", &reference, &merged).unwrap_or_else(|e| panic!("{e}"));
    let stats = cli::json(&all.join("stats.json"));
    assert_eq!(stats["memo"]["retry_nodes"], 2, "{stats}");
    assert_eq!(stats["memo"]["undecided_feasible"], 2, "{stats}");
    assert_eq!(stats["memo"]["undecided"], 0, "{stats}");
    replays_natively(&dir.join("crc.c"), &all);

    // A cluster: the worker that holds the first shard asks again.
    if let Some(server) = LocalServer::start() {
        let url = format!("{}/retry", server.url);
        let logs: Vec<PathBuf> = (0..2).map(|i| dir.join(format!("worker{i}.log"))).collect();
        let workers: Vec<Running> = logs.iter().map(|l| worker(&url, l)).collect();
        let (cm, cluster) = (dir.join("cluster-m"), dir.join("cluster"));
        ok(&[
            "run".as_ref(),
            "--store".as_ref(),
            "none".as_ref(),
            "--retry-undecided".as_ref(),
            "--jobs".as_ref(),
            "2".as_ref(),
            "--cluster".as_ref(),
            url.as_ref(),
            "--memo".as_ref(),
            cm.as_os_str(),
            "--output-dir".as_ref(),
            cluster.as_os_str(),
            bc.as_os_str(),
        ]);
        let mut said = String::new();
        for (w, log) in workers.into_iter().zip(&logs) {
            let o = w.wait_with_output();
            said.push_str(&std::fs::read_to_string(log).unwrap_or_default());
            assert!(o.status.success(), "a worker failed:\n{said}");
        }
        assert!(said.contains(" 2 retry nodes asked again"), "{said}");
        let joined = found(dir, "cluster", "cluster-m").expect("the cluster run");
        differ("cluster", &reference, &joined).unwrap_or_else(|e| panic!("{e}\n{said}"));
    }

    // What a plain run at the default timeout finds.
    let (_, plain) = run(
        &bc,
        &dir.join("plain-m"),
        &dir.join("plain"),
        &["--store", "none"],
    );
    assert_eq!(plain["paths"]["completed"], 48, "{plain}");
    assert_eq!(exits(&dir.join("plain")), exits(&dir.join("single")));
}

#[test]
fn a_regression_run_asks_again_outside_what_the_change_impacts() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let changed = CRC_THEN_LOOP.replace("e[i] > 100", "e[i] > 99");
    assert_ne!(changed, CRC_THEN_LOOP);
    let (Some(old), Some(new)) = (
        compile(dir, "crc", CRC_THEN_LOOP),
        compile(dir, "crc-new", &changed),
    ) else {
        return;
    };
    let quick = ["--store", "none", "--solver-timeout", "10"];
    let (_, first) = run(&old, &dir.join("m"), &dir.join("first"), &quick);
    assert_eq!(first["memo"]["undecided"], 2, "{first}");
    assert_eq!(first["paths"]["completed"], 16, "{first}");

    let out = dir.join("r");
    let said = ok(&[
        "regress".as_ref(),
        "--store".as_ref(),
        "none".as_ref(),
        "--retry-undecided".as_ref(),
        "--memo".as_ref(),
        dir.join("m").as_os_str(),
        "--output-dir".as_ref(),
        out.as_os_str(),
        old.as_os_str(),
        new.as_os_str(),
    ]);
    // The loop changed; the CRC's tests above it did not.
    assert!(said.contains("impacted nodes: 1\n"), "{said}");
    let stats = cli::json(&out.join("stats.json"));
    assert_eq!(stats["memo"]["retry_nodes"], 2, "{stats}");
    assert_eq!(stats["memo"]["undecided_feasible"], 2, "{stats}");
    assert_eq!(stats["paths"]["completed"], 48, "{stats}");

    // A fresh run of the new version at the default timeout.
    run(
        &new,
        &dir.join("fresh-m"),
        &dir.join("fresh"),
        &["--store", "none"],
    );
    differ(
        "regress",
        &found(dir, "fresh", "fresh-m").expect("the fresh run"),
        &found(dir, "r", "m/crc-new.trie").expect("the regression run"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    replays_natively(&dir.join("crc-new.c"), &out);
}
