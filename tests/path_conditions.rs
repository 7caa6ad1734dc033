//! `--write-smt2s`: each test's path condition in SMT-LIB 2 beside it,
//! checked with Z3 against the tests (the testsuite checks it on every
//! program; these check it across workers, memoized runs and refusals).

use std::path::Path;

#[path = "support/cli.rs"]
mod support;
use support::{compile, mnemo, path, run_linked, stderr};

#[path = "support/conditions.rs"]
mod conditions;
use conditions::check_conditions;

/// Four input bytes compared in turn with "abcd": 5 paths, each leaving
/// the ladder at another rung, each fork's two sides a byte apart.
const LADDER: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned char b[4];
  klee_make_symbolic(b, sizeof b, "b");
  int steps = 0;
  for (int i = 0; i < 4; i++) {
    if (b[i] != 'a' + i)
      break;
    steps++;
  }
  return steps;
}
"#;

/// A 1,024-byte table of non-zero bytes read at a symbolic index, too
/// many cases to split on: the condition reads it as a tree on the index's
/// bits; a byte written at a symbolic place, read back at another; and a
/// 1,024-byte input read at a symbolic index, which the condition reads
/// as an array.
const TABLE: &str = r#"
#include <klee/klee.h>
static unsigned char table[1024];
int main(void) {
  for (int n = 0; n < 1024; n++)
    table[n] = (unsigned char)((n * 37 + 11) % 251 + 1);
  unsigned short i;
  unsigned char k, big[1024];
  klee_make_symbolic(&i, sizeof i, "i");
  klee_make_symbolic(&k, sizeof k, "k");
  klee_make_symbolic(big, sizeof big, "big");
  unsigned char buf[600] = {0};
  buf[k] = 9;
  if (table[i % 1024] == 71 && buf[i % 600] == 9 && big[i % 1024] == 5)
    return 1;
  return 0;
}
"#;

fn smt2_files(out: &Path) -> usize {
    std::fs::read_dir(out)
        .expect("output directory")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "smt2"))
        .count()
}

#[test]
fn every_test_of_a_run_on_several_workers_has_its_own_condition() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(bc) = compile(d, "ladder", LADDER) else {
        return;
    };
    for jobs in ["1", "3"] {
        let out = d.join(format!("out{jobs}"));
        let stats = run_linked(&bc, &out, &["--write-smt2s", "--jobs", jobs]);
        assert_eq!(stats["tests"], 5, "{stats}");
        let checked = check_conditions(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((checked.own, checked.next, checked.without), (5, 4, 0));
        assert_eq!(smt2_files(&out), 5);
    }
    // Without the option, no conditions.
    let out = d.join("plain");
    run_linked(&bc, &out, &[]);
    assert_eq!(smt2_files(&out), 0);
}

#[test]
fn a_condition_reading_a_constant_table_and_a_symbolic_write_holds_for_its_test_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(bc) = compile(d, "table", TABLE) else {
        return;
    };
    let out = d.join("out");
    let stats = run_linked(&bc, &out, &["--write-smt2s"]);
    assert_eq!(stats["tests"], 4, "{stats}");
    let texts: Vec<String> = (1..=4)
        .map(|n| std::fs::read_to_string(out.join(format!("test{n:06}.smt2"))).expect("condition"))
        .collect();
    assert!(texts.iter().all(|t| !t.contains("(as const")), "{texts:?}");
    assert!(
        texts.iter().any(|t| t.contains("(select |big#2|")),
        "{texts:?}"
    );
    let checked = check_conditions(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((checked.own, checked.next), (4, 3), "{checked:?}");
}

#[test]
fn a_memoized_rerun_writes_conditions_for_the_paths_it_explores_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(bc) = compile(d, "ladder", LADDER) else {
        return;
    };
    let memo = d.join("memo");
    let first = d.join("first");
    let stats = run_linked(
        &bc,
        &first,
        &["--write-smt2s", "--memo", path(&memo), "--max-depth", "2"],
    );
    assert_eq!(stats["tests"], 3, "{stats}");
    assert_eq!(check_conditions(&first).expect("checked").own, 3);
    // The deeper run keeps the two paths that ended before the bound from
    // the trie, and explores below the one the bound cut.
    let deeper = d.join("deeper");
    let stats = run_linked(
        &bc,
        &deeper,
        &["--write-smt2s", "--memo", path(&memo), "--max-depth", "4"],
    );
    assert_eq!(stats["tests"], 5, "{stats}");
    let checked = check_conditions(&deeper).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((checked.own, checked.without), (3, 2), "{checked:?}");
    assert_eq!(smt2_files(&deeper), 3);
}

#[test]
fn conditions_are_refused_where_the_tests_come_from_elsewhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bc = dir.path().join("absent.bc");
    for other in [
        ["--cluster", "redis://127.0.0.1:1/run"],
        ["--shard", "absent.shard"],
    ] {
        let o = mnemo()
            .args(["run", "--write-smt2s"])
            .args(other)
            .arg(&bc)
            .output()
            .expect("mnemo run");
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let msg = stderr(&o);
        assert!(
            msg.contains("--write-smt2s") && msg.contains(other[0]),
            "{msg}"
        );
    }
}

#[test]
fn a_resumed_run_takes_over_a_directory_holding_conditions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(bc) = compile(d, "ladder", LADDER) else {
        return;
    };
    let (memo, out) = (d.join("memo"), d.join("out"));
    let args = ["--write-smt2s", "--memo", path(&memo), "--jobs", "1"];
    let o = mnemo()
        .args(["run", "-q", "--store", "none", "--output-dir", path(&out)])
        .args(args)
        .args(["--max-instructions", "60"])
        .arg(&bc)
        .output()
        .expect("mnemo run");
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let stopped = check_conditions(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(stopped.without, 0, "{stopped:?}");
    // The resumed run writes the stopped run's tests again from the trie,
    // without their conditions (the files of their old numbers go), and
    // the paths it explores with theirs.
    let stats = run_linked(&bc, &out, &[&args[..], &["--resume"]].concat());
    assert_eq!(stats["tests"], 5, "{stats}");
    let checked = check_conditions(&out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(checked.own + checked.without, 5, "{checked:?}");
    assert_eq!(checked.without, stopped.own - 1, "{checked:?}");
    assert_eq!(smt2_files(&out), checked.own);
}
