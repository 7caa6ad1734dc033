//! Whole runs: limits stop cleanly and keep everything, Ctrl-C does the
//! same, runs are deterministic, and every searcher finds the same paths.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, replays_natively, run, stderr};
#[path = "support/programs.rs"]
mod programs;
use programs::{FRESH_INPUT_LOOP, SPIN};

/// The exit status of a run a limit stopped.
const LIMIT: i32 = 3;

/// The `.ktest` files in `dir`.
fn ktest_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .expect("output directory")
        .filter(|e| {
            e.as_ref()
                .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "ktest"))
        })
        .count()
}

#[test]
fn max_instructions_stops_cleanly_and_keeps_every_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "spin", SPIN) else {
        return;
    };
    let out = dir.path().join("out");
    let o = run(&bc, &out, &["--max-instructions", "3000"]);
    assert_eq!(o.status.code(), Some(LIMIT), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    let early = stats["paths"]["early"]["max-instructions"]
        .as_u64()
        .unwrap_or(0);
    assert!(early >= 1, "{stats}");
    let tests = stats["tests"].as_u64().unwrap();
    assert_eq!(tests, stats["paths"]["completed"].as_u64().unwrap() + early);
    let ktests = ktest_files(&out);
    assert_eq!(ktests as u64, tests);
}

#[test]
fn max_memory_stops_cleanly() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "spin", SPIN) else {
        return;
    };
    let out = dir.path().join("out");
    // Any process uses more than 1 MiB: the run stops at its first check.
    let o = run(&bc, &out, &["--max-memory", "1"]);
    assert_eq!(o.status.code(), Some(LIMIT), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert!(
        stats["paths"]["early"]["max-memory"].as_u64().unwrap_or(0) >= 1,
        "{stats}"
    );
    assert!(stderr(&o).contains("max-memory"), "{}", stderr(&o));
}

#[test]
fn max_depth_bounds_the_choices_on_a_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "spin", SPIN) else {
        return;
    };
    let out = dir.path().join("out");
    let o = run(&bc, &out, &["--max-depth", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    // n = 0..4 complete; the path still looping at its sixth choice ends early.
    assert_eq!(stats["paths"]["completed"], 5, "{stats}");
    assert_eq!(stats["paths"]["early"]["max-depth"], 1, "{stats}");
}

#[test]
fn ctrl_c_stops_the_run_and_writes_what_was_found() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "spin", SPIN) else {
        return;
    };
    let out = dir.path().join("out");
    let child = mnemo()
        .arg("run")
        .arg("-q")
        .arg("--no-runtime")
        .arg("--output-dir")
        .arg(&out)
        .arg(&bc)
        .spawn()
        .expect("spawn");
    std::thread::sleep(Duration::from_millis(1500));
    let pid = child.id().to_string();
    Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill");
    let o = child.wait_with_output().expect("wait");
    // 128 + SIGINT, as a shell reports a process Ctrl-C ended.
    assert_eq!(o.status.code(), Some(130), "{:?}", o.status);
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["stopped_by"], "interrupted", "{stats}");
    // An unbounded loop: every pending path ends here, with a test.
    let early = stats["paths"]["early"]["interrupted"].as_u64().unwrap_or(0);
    assert!(early >= 1, "{stats}");
    assert_eq!(
        stats["tests"].as_u64().unwrap(),
        stats["paths"]["completed"].as_u64().unwrap() + early,
        "{stats}"
    );
    assert_eq!(
        json(&out.join("tests.json"))["tests"]
            .as_array()
            .unwrap()
            .len() as u64,
        stats["tests"].as_u64().unwrap()
    );
}

/// Several kinds of choice point: branches, a switch, a checked division,
/// a symbolic index into an array.
const BRANCHY: &str = r#"
#include <klee/klee.h>
int table[4] = {3, 1, 4, 1};
int main(void) {
  int a = klee_range(0, 8, "a");
  int b = klee_range(-2, 3, "b");
  int r = 0;
  switch (a) { case 1: r = 10; break; case 2: case 3: r = 20; break; default: r = 1; }
  if (a < 4 && table[a] > 2) r += 100 / b;
  if (b > 0) r++;
  return r & 0x7f;
}
"#;

/// Words with every value open: its queries reach Z3 whatever the chain.
const WIDE: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned x, y;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&y, sizeof y, "y");
  if (x > 1 && y > 1 && x * y == 391u) return 1;
  if (x % 97u == 13u) return 2;
  return 0;
}
"#;

fn outcome_multiset(out: &Path) -> BTreeMap<String, usize> {
    let mut m = BTreeMap::new();
    for t in json(&out.join("tests.json"))["tests"].as_array().unwrap() {
        let key = match t["outcome"].as_str().unwrap() {
            "exit" => format!("exit {}", t["exit_code"]),
            "error" => format!("error {} {}", t["kind"], t["line"]),
            other => other.to_string(),
        };
        *m.entry(key).or_default() += 1;
    }
    m
}

#[test]
fn every_searcher_finds_the_same_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "branchy", BRANCHY) else {
        return;
    };
    let mut results = Vec::new();
    for search in ["dfs", "bfs", "random-path", "covnew", "interleaved"] {
        let out = dir.path().join(search);
        let o = run(&bc, &out, &["--search", search]);
        assert!(o.status.success(), "{search}: {}", stderr(&o));
        results.push((search, outcome_multiset(&out)));
    }
    let (_, first) = &results[0];
    assert!(
        first.keys().any(|k| k.starts_with("error \"div-by-zero\"")),
        "{first:?}"
    );
    for (search, m) in &results[1..] {
        assert_eq!(m, first, "{search} differs from dfs");
    }
}

#[test]
fn runs_are_deterministic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "branchy", BRANCHY) else {
        return;
    };
    // Several runs each: a test's inputs once depended on where the
    // expressions lay in memory (maps keyed by them iterated in address
    // order, and so the order Z3 met terms in); with a fresh Z3 per query,
    // two runs of a breadth-first search agreed one time in five.
    let cases = [
        ("dfs", "default"),
        ("bfs", "default"),
        ("random-path", "default"),
        ("interleaved", "default"),
        ("dfs", "z3"),
        ("bfs", "z3"),
    ];
    for (search, chain) in cases {
        let outs: Vec<PathBuf> = (0..4)
            .map(|k| dir.path().join(format!("{search}-{chain}-{k}")))
            .collect();
        for out in &outs {
            let mut args = vec!["--search", search, "--seed", "7"];
            if chain != "default" {
                args.extend(["--solver-chain", chain]);
            }
            let o = run(&bc, out, &args);
            assert!(o.status.success(), "{}", stderr(&o));
        }
        let a = &outs[0];
        for b in &outs[1..] {
            let ta = std::fs::read(a.join("tests.json")).unwrap();
            let tb = std::fs::read(b.join("tests.json")).unwrap();
            assert_eq!(ta, tb, "{search}: tests.json differs between two runs");
            for t in json(&a.join("tests.json"))["tests"].as_array().unwrap() {
                let name = t["ktest"].as_str().unwrap();
                assert_eq!(
                    std::fs::read(a.join(name)).unwrap(),
                    std::fs::read(b.join(name)).unwrap(),
                    "{search}: {name}"
                );
            }
        }
    }
}

#[test]
fn a_solver_store_answers_the_next_run_and_a_bad_one_is_left_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "branchy", BRANCHY) else {
        return;
    };
    let store = dir.path().join("cache").join("solver.db");
    let store_arg = store.display().to_string();
    let chain = ["--solver-chain", "store,z3", "--store", &store_arg];
    let first = dir.path().join("first");
    let o = run(&bc, &first, &chain);
    assert!(o.status.success(), "{}", stderr(&o));
    let second = dir.path().join("second");
    let o = run(&bc, &second, &chain);
    assert!(o.status.success(), "{}", stderr(&o));
    let s1 = json(&first.join("stats.json"))["solver"].clone();
    let s2 = json(&second.join("stats.json"))["solver"].clone();
    assert!(s1["z3_calls"].as_u64().unwrap() > 0);
    assert_eq!(s2["z3_calls"].as_u64(), Some(0), "{s2}");
    assert_eq!(s2["hits"]["store"], s2["reached"]["store"], "{s2}");
    assert_eq!(outcome_multiset(&first), outcome_multiset(&second));

    // A file that is not a store: a warning, a run without it, the file kept.
    let bad = dir.path().join("bad.db");
    std::fs::write(&bad, vec![0x5a; 4096]).expect("write");
    let bad_arg = bad.display().to_string();
    let third = dir.path().join("third");
    let o = run(
        &bc,
        &third,
        &[
            "--solver-chain",
            "store,z3",
            "--store",
            &bad_arg,
            "--store",
            "redis://127.0.0.1:1",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("bad.db") && err.contains("not a mnemo store"),
        "{err}"
    );
    assert!(err.contains("redis://127.0.0.1:1 is unreachable"), "{err}");
    assert_eq!(std::fs::read(&bad).expect("read"), vec![0x5a; 4096]);
    assert_eq!(outcome_multiset(&first), outcome_multiset(&third));
}

#[test]
fn the_default_chain_keeps_answers_in_the_default_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "wide", WIDE) else {
        return;
    };
    let store = dir.path().join("home-cache").join("solver.db");
    let mut runs = Vec::new();
    for name in ["first", "second"] {
        let out = dir.path().join(name);
        let o = mnemo()
            .env("MNEMO_STORE", &store)
            .args(["run", "-q", "--no-runtime", "--output-dir"])
            .arg(&out)
            .arg(&bc)
            .output()
            .expect("mnemo run");
        assert!(o.status.success(), "{}", stderr(&o));
        runs.push(json(&out.join("stats.json"))["solver"].clone());
    }
    assert!(store.exists(), "the default store is created");
    assert!(runs[0]["z3_calls"].as_u64().unwrap() > 0);
    assert_eq!(runs[1]["z3_calls"].as_u64(), Some(0), "{}", runs[1]);
    assert_eq!(
        runs[1]["stores"].as_str(),
        Some(format!("file {}", store.display()).as_str())
    );
}

/// The testsuite's SV-COMP-style programs whose loops run on nondet guards,
/// and the line of their `reach_error()` call.
const NONDET_LOOPS: [(&str, u64); 4] = [
    ("svcomp_loop_exit", 22),
    ("svcomp_locks", 43),
    ("svcomp_counter_loop", 17),
    ("svcomp_nested_loops", 20),
];

/// The instruction budget of the unbounded runs below: a tenth of a second
/// or so. With the default seed the default search finds every error within
/// 200 instructions, and an instruction count is the same on a loaded
/// machine, so the outcome does not depend on the machine's speed.
const NONDET_LOOP_BUDGET: &str = "1000";

fn reach_errors(bc: &Path, out: &Path, extra: &[&str]) -> u64 {
    let mut args = vec![
        "--max-instructions",
        NONDET_LOOP_BUDGET,
        // Only a safety net: the instruction budget ends these runs first.
        "--max-time",
        "120",
    ];
    args.extend(extra);
    let o = run(bc, out, &args);
    assert_eq!(o.status.code(), Some(LIMIT), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(
        stats["paths"]["early"]["max-time"].as_u64().unwrap_or(0),
        0,
        "the safety net stopped the run, not the budget: {stats}"
    );
    stats["paths"]["errors"]["reach"].as_u64().unwrap_or(0)
}

#[test]
fn the_default_search_reaches_errors_past_unbounded_nondet_loops() {
    let dir = tempfile::tempdir().expect("tempdir");
    let suite = Path::new(env!("CARGO_MANIFEST_DIR")).join("testsuite");
    for (name, line) in NONDET_LOOPS {
        let source = std::fs::read_to_string(suite.join(format!("{name}.c"))).expect("source");
        assert!(source.contains("reach_error();"), "{name}");
        let Some(bc) = compile(dir.path(), name, &source) else {
            return;
        };
        let out = dir.path().join(format!("{name}-default"));
        assert!(
            reach_errors(&bc, &out, &[]) >= 1,
            "{name}: the default search found no error within {NONDET_LOOP_BUDGET} instructions"
        );
        let errors = json(&out.join("tests.json"))["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["outcome"] == "error")
            .map(|t| t["line"].as_u64().unwrap())
            .collect::<Vec<_>>();
        assert!(errors.iter().all(|l| *l == line), "{name}: {errors:?}");

        // Depth-first takes the loop side of each guard first, and so never
        // leaves the loop: the starvation the default search fixes.
        if name == "svcomp_loop_exit" {
            let out = dir.path().join(format!("{name}-dfs"));
            assert_eq!(
                reach_errors(&bc, &out, &["--search", "dfs"]),
                0,
                "{name}: dfs was expected to stay in the loop"
            );
        }
    }
}

#[test]
fn max_time_holds_with_thousands_of_pending_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "fresh", FRESH_INPUT_LOOP) else {
        return;
    };
    let out = dir.path().join("out");
    let start = std::time::Instant::now();
    let o = run(
        &bc,
        &out,
        &["--search", "dfs", "--store", "none", "--max-time", "3"],
    );
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(LIMIT), "{}", stderr(&o));
    // Solving for every pending path took minutes; the run now ends at its
    // limit (5% over it on an idle machine; the margin is for a busy one).
    assert!(took < Duration::from_millis(4500), "{took:?}");
    let stats = json(&out.join("stats.json"));
    let early = stats["paths"]["early"]["max-time"].as_u64().unwrap_or(0);
    let untested = stats["paths"]["untested"].as_u64().unwrap();
    assert!(early > 100, "{stats}");
    assert!(untested <= early, "{stats}");
    let tests = stats["tests"].as_u64().unwrap();
    assert_eq!(
        tests + untested,
        stats["paths"]["completed"].as_u64().unwrap() + early,
        "{stats}"
    );
    let ktests = ktest_files(&out);
    assert_eq!(ktests as u64, tests);
    // The untested paths stay in the trie: a resumed run takes them up.
    let o = mnemo()
        .args(["run", "-q", "--no-runtime", "--resume", "--search", "dfs"])
        .args(["--store", "none", "--max-time", "2", "--output-dir"])
        .arg(&out)
        .arg(&bc)
        .output()
        .expect("mnemo run --resume");
    assert_eq!(o.status.code(), Some(LIMIT), "{}", stderr(&o));
    let resumed = json(&out.join("stats.json"));
    assert!(
        resumed["memo"]["candidates"].as_u64().unwrap() >= early,
        "{resumed}"
    );
}

/// Long concrete work before every choice: each shallow run that records
/// the trie a partitioned run starts from spends its time there.
const SLOW_START: &str = r#"
#include <klee/klee.h>
int main(void) {
  volatile unsigned warm = 0;
  for (unsigned i = 0; i < 400000000u; i++) warm += i;
  int x = klee_int("x");
  while (x > 0) x -= klee_int("step") > 3 ? 2 : 1;
  return warm & 1;
}
"#;

#[test]
fn max_time_counts_the_shallow_phase_of_a_partitioned_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "slow", SLOW_START) else {
        return;
    };
    let out = dir.path().join("out");
    let start = std::time::Instant::now();
    let o = run(
        &bc,
        &out,
        &[
            "--jobs",
            "2",
            "--balance",
            "trie",
            "--store",
            "none",
            "--max-time",
            "2",
        ],
    );
    let took = start.elapsed();
    assert_eq!(o.status.code(), Some(LIMIT), "{}", stderr(&o));
    // Each shallow run and the run itself once had the whole limit; the
    // margin is for a busy machine.
    assert!(took < Duration::from_millis(3500), "{took:?}");
}

/// A multiplicative hash looked up in buckets: inverting it is where Z3's
/// time depends on its seed.
const HASHED: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned char key[3];
  klee_make_symbolic(key, sizeof key, "key");
  unsigned h = 2166136261u;
  for (int i = 0; i < 3; i++) {
    h ^= key[i];
    h *= 16777619u;
  }
  switch ((h ^ (h >> 16)) % 5) {
  case 1: return 1;
  case 3:
    if (key[0] == 'k')
      return 4;
    return 3;
  default: return 0;
  }
}
"#;

#[test]
fn another_z3_seed_finds_the_same_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "hashed", HASHED) else {
        return;
    };
    let mut results = Vec::new();
    for seed in ["0", "1", "12345"] {
        let out = dir.path().join(format!("seed-{seed}"));
        let o = run(&bc, &out, &["--z3-seed", seed, "--store", "none"]);
        assert!(o.status.success(), "seed {seed}: {}", stderr(&o));
        results.push((seed, outcome_multiset(&out)));
    }
    let (_, first) = &results[0];
    assert_eq!(first.len(), 4, "every bucket's exit: {first:?}");
    for (seed, m) in &results[1..] {
        assert_eq!(m, first, "seed {seed} differs from seed 0");
    }
    let o = run(&bc, &dir.path().join("bad"), &["--z3-seed", "-1"]);
    assert!(!o.status.success(), "a negative seed is refused");
}

/// Counts the characters of a symbolic string by class: every mix of
/// classes is a path of its own, while the instructions are all covered
/// by a handful of them; a digit after a letter fails an assertion.
const CLASSES: &str = r#"
#include <assert.h>
#include <klee/klee.h>
int main(void) {
  char s[5];
  klee_make_symbolic(s, sizeof s, "s");
  int letters = 0, digits = 0, other = 0;
  for (int i = 0; i < 4; i++) {
    if (s[i] >= 'a' && s[i] <= 'z') letters++;
    else if (s[i] >= '0' && s[i] <= '9') {
      assert(!(i == 3 && letters == 3));
      digits++;
    } else other++;
  }
  return letters > digits ? 1 : other > 0 ? 2 : 0;
}
"#;

#[test]
fn only_new_coverage_and_write_no_tests_write_fewer_tests_with_the_same_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "classes", CLASSES) else {
        return;
    };
    let all = dir.path().join("all");
    let few = dir.path().join("few");
    for (out, extra) in [(&all, &[][..]), (&few, &["--only-new-coverage"][..])] {
        let o = run(&bc, out, extra);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (a, f) = (json(&all.join("stats.json")), json(&few.join("stats.json")));
    // The same paths end the same ways, and cover the same code.
    for key in ["completed", "errors", "early"] {
        assert_eq!(a["paths"][key], f["paths"][key], "paths.{key}");
    }
    assert_eq!(a["coverage"], f["coverage"]);
    let (tests_all, tests_few) = (ktest_files(&all), ktest_files(&few));
    assert_eq!(a["paths"]["unwritten"], 0);
    assert_eq!(
        f["paths"]["unwritten"].as_u64(),
        Some((tests_all - tests_few) as u64),
        "every path without a file is counted"
    );
    assert!(
        tests_few > 0 && tests_few * 4 < tests_all,
        "{tests_few} of {tests_all} tests written"
    );
    // Every error keeps its test.
    let errors = |m: &BTreeMap<String, usize>| -> Vec<(String, usize)> {
        m.iter()
            .filter(|(k, _)| k.starts_with("error"))
            .map(|(k, n)| (k.clone(), *n))
            .collect()
    };
    let errs = errors(&outcome_multiset(&few));
    assert!(!errs.is_empty(), "the assertion is reached");
    assert_eq!(errs, errors(&outcome_multiset(&all)));
    // The tests written replay natively as predicted.
    replays_natively(&dir.path().join("classes.c"), &few);

    // --write-no-tests: the same run, no files; its memo's trie keeps
    // every test, and a run from it writes them all.
    let (none, back, memo) = (
        dir.path().join("none"),
        dir.path().join("back"),
        dir.path().join("memo"),
    );
    let o = run(
        &bc,
        &none,
        &["--write-no-tests", "--memo", support::path(&memo)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let n = json(&none.join("stats.json"));
    assert_eq!(ktest_files(&none), 0);
    assert_eq!(n["tests"], 0);
    assert_eq!(
        n["paths"]["unwritten"].as_u64(),
        Some(tests_all as u64),
        "{n}"
    );
    assert_eq!(n["paths"]["completed"], a["paths"]["completed"]);
    let o = run(&bc, &back, &["--memo", support::path(&memo)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(ktest_files(&back), tests_all);
    assert_eq!(outcome_multiset(&back), outcome_multiset(&all));
}

/// Four bytes above 100 or not: an assertion fails on the 6 paths where
/// two are, an abort on the 4 where three are.
const REPEATED_ERRORS: &str = r#"
#include <assert.h>
#include <stdlib.h>
#include <klee/klee.h>
int main(void) {
  unsigned char a[4];
  klee_make_symbolic(a, sizeof a, "a");
  int n = 0;
  for (int i = 0; i < 4; i++)
    if (a[i] > 100)
      n++;
  assert(n != 2);
  if (n == 3)
    abort();
  return n;
}
"#;

#[test]
fn emit_all_errors_false_writes_one_test_for_each_errors_place() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "repeated", REPEATED_ERRORS) else {
        return;
    };
    let (all, one) = (dir.path().join("all"), dir.path().join("one"));
    for (out, extra) in [(&all, &[][..]), (&one, &["--emit-all-errors=false"][..])] {
        let o = run(&bc, out, extra);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (every, once) = (outcome_multiset(&all), outcome_multiset(&one));
    assert_eq!(every.len(), 5, "{every:?}");
    // One test for each error's kind and line, as KLEE writes by default;
    // every other path's as before.
    for (key, n) in &every {
        let expected = if key.starts_with("error") { 1 } else { *n };
        assert_eq!(once.get(key), Some(&expected), "{key}: {once:?}");
    }
    let stats = json(&one.join("stats.json"));
    assert_eq!(stats["paths"]["unwritten"], 8, "{stats}");
    assert_eq!(
        stats["paths"]["errors"],
        json(&all.join("stats.json"))["paths"]["errors"]
    );
    replays_natively(&dir.path().join("repeated.c"), &one);
}
