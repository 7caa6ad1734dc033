//! The klee.h functions whose effect the testsuite's headers cannot state:
//! the inputs `klee_prefer_cex` gives a test, what the engine prints for
//! `klee_print_expr`, `klee_print_range`, `klee_stack_trace` and
//! `klee_warning_once`, how `klee_get_obj_size` fails where it has no
//! answer, and what `--silent-klee-assume` changes.

use std::path::Path;

use mnemo::testgen::KTest;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};

/// A testsuite program's source.
fn suite_program(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite")
        .join(format!("{name}.c"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `mnemo run -q --output-dir OUT BC`: its stderr, the run having succeeded.
fn run(bc: &Path, out: &Path) -> String {
    let o = mnemo()
        .args(["run", "-q", "--output-dir"])
        .arg(out)
        .arg(bc)
        .output()
        .expect("mnemo run starts");
    assert!(o.status.success(), "mnemo run failed: {}", stderr(&o));
    stderr(&o)
}

/// The run's tests: (exit code, the first input's bytes), in test order.
fn tests_of(out: &Path) -> Vec<(u64, Vec<u8>)> {
    let listed = json(&out.join("tests.json"));
    listed["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .map(|t| {
            let ktest = out.join(t["ktest"].as_str().expect("a ktest"));
            let test = KTest::read(&ktest).expect("a readable ktest");
            let code = t["exit_code"].as_u64().expect("an exit");
            (code, test.objects[0].bytes.clone())
        })
        .collect()
}

#[test]
fn preferred_inputs_are_met_where_the_path_allows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "prefer", &suite_program("input_prefer_cex")) else {
        return;
    };
    let out = dir.path().join("out");
    run(&bc, &out);
    let tests = tests_of(&out);
    let mut codes: Vec<u64> = tests.iter().map(|(c, _)| *c).collect();
    codes.sort();
    assert_eq!(codes, [1, 2, 3], "the preferences change no path");
    for (code, s) in &tests {
        let shown = String::from_utf8_lossy(s);
        // 'q' was preferred before 'r', and both fit every path.
        assert_eq!(s[3], b'q', "exit {code}: {shown}");
        assert!(s[2].is_ascii_lowercase(), "exit {code}: {shown}");
        match code {
            1 => assert_eq!(s[0], b'x', "{shown}"),
            // The path rules 'x' out, not lowercase.
            _ => assert!(s[0].is_ascii_lowercase() && s[0] != b'x', "{shown}"),
        }
        match code {
            // The path wants s[1] below 'a': that preference goes.
            2 => assert!(s[1] < b'a', "{shown}"),
            _ => assert!(s[1].is_ascii_lowercase(), "exit {code}: {shown}"),
        }
    }
}

#[test]
fn the_engine_prints_expressions_ranges_stacks_and_a_warning_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(
        dir.path(),
        "looks",
        &suite_program("input_merge_and_replay"),
    ) else {
        return;
    };
    // With two workers too: a warning is printed once a run, not once a
    // worker.
    for jobs in ["1", "2"] {
        let out = dir.path().join(format!("out-{jobs}"));
        let o = mnemo()
            .args(["run", "-q", "--jobs", jobs, "--output-dir"])
            .arg(&out)
            .arg(&bc)
            .output()
            .expect("mnemo run starts");
        assert!(o.status.success(), "mnemo run failed: {}", stderr(&o));
        prints_each_once(&stderr(&o));
    }
}

/// The checks on what `input_merge_and_replay` printed.
fn prints_each_once(err: &str) {
    let lines: Vec<&str> = err.lines().collect();
    let count = |prefix: &str| lines.iter().filter(|l| l.starts_with(prefix)).count();
    // Both paths of the first fork print these before the second fork; the
    // stack trace is taken in `helper`, called by main.
    assert_eq!(count("mnemo: x plus one: (add 1:w32 "), 2, "{err}");
    assert_eq!(count("mnemo: stack trace:"), 2, "{err}");
    assert_eq!(count("  #0 helper at "), 2, "{err}");
    assert_eq!(count("  #1 main at "), 2, "{err}");
    // Each path's range of x, and r, a constant on each.
    for range in ["in [0, 2]", "in [3, 7]", "in [8, 9]"] {
        let found = lines
            .iter()
            .any(|l| l.starts_with("mnemo: x: (") && l.ends_with(range));
        assert!(found, "no range `{range}` of x:\n{err}");
    }
    for r in ["10", "20", "25"] {
        assert!(lines.contains(&format!("mnemo: r: {r}").as_str()), "{err}");
    }
    assert_eq!(count("mnemo: warning: merge hints are ignored"), 1, "{err}");
}

const OBJ_SIZE: &str = r#"
#include <klee/klee.h>
int main(void) {
  int k = klee_range(0, 3, "k");
  char buf[6];
  if (k == 0)
    return (int)klee_get_obj_size(buf + 2);
  if (k == 1)
    return (int)klee_get_obj_size((void *)0x10);
  return (int)klee_get_obj_size((void *)0x12345678);
}
"#;

#[test]
fn an_object_size_is_the_engines_alone() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "objsize", OBJ_SIZE) else {
        return;
    };
    let out = dir.path().join("out");
    run(&bc, &out);
    let listed = json(&out.join("tests.json"));
    let mut outcomes: Vec<String> = listed["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .map(|t| match t["outcome"].as_str() {
            Some("exit") => format!("exit {}", t["exit_code"]),
            _ => format!("{} {}", t["kind"].as_str().unwrap_or("?"), t["message"]),
        })
        .collect();
    outcomes.sort();
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");
    assert_eq!(outcomes[0], "exit 6", "{outcomes:?}");
    assert!(outcomes[1].starts_with("null ") && outcomes[1].contains("0x10"));
    assert!(outcomes[2].starts_with("ptr ") && outcomes[2].contains("0x12345678"));

    // Natively a pointer carries no size: the replay says so rather than
    // guess one.
    let o = mnemo()
        .arg("replay")
        .arg(dir.path().join("objsize.c"))
        .arg(&out)
        .output()
        .expect("mnemo replay starts");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(!o.status.success(), "{text}");
    assert!(
        text.contains("klee_get_obj_size") && text.contains("no native answer"),
        "{text}"
    );
}

#[test]
fn silent_klee_assume_ends_a_path_its_assumption_contradicts_without_a_test() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(bc) = compile(d, "assume", &suite_program("input_assume_infeasible")) else {
        return;
    };
    let memo = d.join("memo");
    let with = |out: &str, extra: &[&str]| {
        let o = mnemo()
            .args(["run", "-q", "--memo"])
            .arg(&memo)
            .arg("--output-dir")
            .arg(d.join(out))
            .args(extra)
            .arg(&bc)
            .output()
            .expect("mnemo run starts");
        assert!(o.status.success(), "mnemo run failed: {}", stderr(&o));
        json(&d.join(out).join("stats.json"))
    };
    // The testsuite's header gives the default: two user errors.
    let loud = with("loud", &[]);
    assert_eq!(loud["paths"]["errors"]["user"], 2, "{loud}");
    let silent = with("silent", &["--silent-klee-assume"]);
    assert_eq!(silent["paths"]["errors"], serde_json::json!({}), "{silent}");
    assert_eq!(silent["tests"], 1, "{silent}");
    // Each keeps a trie of its own: followed again, each gives its own.
    assert!(memo.join("assume.trie").is_file());
    assert!(memo.join("assume.silent-assume.trie").is_file());
    let again = with("again", &[]);
    assert_eq!(again["memo"]["reused"], true, "{again}");
    assert_eq!(again["paths"], loud["paths"], "{again}");
    let again = with("again-silent", &["--silent-klee-assume"]);
    assert_eq!(again["memo"]["reused"], true, "{again}");
    assert_eq!(again["paths"], silent["paths"], "{again}");
}
