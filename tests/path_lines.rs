//! `--write-cov`: the source lines each test's path executed, beside it,
//! checked against what the test's inputs make the program do.

use std::collections::BTreeSet;
use std::path::Path;

use mnemo::testgen::KTest;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, path, run_linked, stderr};

/// Each of four bytes above 'a' or not (a helper's line each way), then an
/// assertion on a magic word: which lines run follows from the bytes.
const BYTES: &str = r#"
#include <assert.h>
#include <klee/klee.h>
static int above(unsigned char c) {
  if (c > 'a')
    return 1;
  return 0;
}
int main(void) {
  unsigned char b[4];
  klee_make_symbolic(b, sizeof b, "b");
  int n = 0;
  for (int i = 0; i < 4; i++)
    n += above(b[i]);
  if (b[0] == 'M' && b[1] == 'N')
    assert(b[2] != 'E');
  return n;
}
"#;

/// The lines of BYTES a run on `b` executes, as `mnemo run` names them
/// (the string's first line is empty; a call runs its function's opening
/// line, and `above`'s return is at its closing brace).
fn expected(source: &str, b: &[u8]) -> BTreeSet<String> {
    let mut lines: BTreeSet<u32> = [4, 5, 8, 9, 11, 12, 13, 14, 15].into();
    for &c in b {
        lines.insert(if c > b'a' { 6 } else { 7 });
    }
    let magic = b[0] == b'M' && b[1] == b'N';
    if magic {
        lines.insert(16);
    }
    // The assertion's failure ends the path where it is.
    if !(magic && b[2] == b'E') {
        lines.insert(17);
    }
    lines.iter().map(|l| format!("{source}:{l}")).collect()
}

/// Checks each test of `out` that has a `.cov` against its inputs;
/// returns how many had one.
fn check(out: &Path, source: &str) -> usize {
    let listed = json(&out.join("tests.json"));
    let mut with = 0;
    for t in listed["tests"].as_array().expect("tests") {
        let ktest = out.join(t["ktest"].as_str().expect("ktest"));
        let cov = ktest.with_extension("cov");
        let Ok(text) = std::fs::read_to_string(&cov) else {
            continue;
        };
        with += 1;
        let test = KTest::read(&ktest).unwrap_or_else(|e| panic!("{e}"));
        let lines: BTreeSet<String> = text.lines().map(str::to_string).collect();
        assert_eq!(
            lines,
            expected(source, &test.objects[0].bytes),
            "{}",
            cov.display()
        );
    }
    with
}

#[test]
fn each_tests_lines_are_those_its_inputs_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(bc) = compile(d, "bytes", BYTES) else {
        return;
    };
    let source = d.join("bytes.c").display().to_string();
    // Renumbered by their place in the trie, the files go with their tests.
    for jobs in ["1", "3"] {
        let out = d.join(format!("jobs{jobs}"));
        let stats = run_linked(&bc, &out, &["--write-cov", "--jobs", jobs]);
        let tests = stats["tests"].as_u64().expect("tests") as usize;
        assert_eq!(tests, 30, "{stats}");
        assert_eq!(check(&out, &source), tests, "jobs {jobs}");
    }
    // Without the option, none.
    let plain = d.join("plain");
    run_linked(&bc, &plain, &[]);
    assert_eq!(check(&plain, &source), 0);
    // A deeper re-run keeps the trie's tests, which have no lines, and
    // writes them for the paths it explores.
    let memo = d.join("memo");
    let shallow = ["--write-cov", "--memo", path(&memo), "--max-depth", "5"];
    run_linked(&bc, &d.join("shallow"), &shallow);
    let deeper = d.join("deeper");
    let stats = run_linked(&bc, &deeper, &["--write-cov", "--memo", path(&memo)]);
    let explored = check(&deeper, &source);
    let kept = stats["memo"]["kept_tests"].as_u64().expect("kept") as usize;
    assert!(explored > 0 && kept > 0, "{stats}");
    assert_eq!(explored + kept, 30, "{stats}");
}

#[test]
fn write_cov_is_refused_where_tests_come_from_elsewhere() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "bytes", BYTES) else {
        return;
    };
    let o = mnemo()
        .args(["run", "--write-cov", "--compose"])
        .arg(&bc)
        .output()
        .expect("mnemo run");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The lines llvm-cov's gcov counts in `source` after the native program
/// in `dir` ran once (`None` without llvm-cov), named as `mnemo run` names
/// them.
fn gcov_lines(dir: &Path, source: &Path) -> Option<BTreeSet<String>> {
    let o = std::process::Command::new("llvm-cov-14")
        .args(["gcov", "-t"])
        .arg(source)
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines = text
        .lines()
        .filter_map(|l| {
            let mut cells = l.splitn(3, ':');
            let (count, line) = (cells.next()?.trim(), cells.next()?.trim());
            let ran = count
                .trim_end_matches('*')
                .parse::<u64>()
                .is_ok_and(|n| n > 0);
            ran.then(|| format!("{}:{line}", source.display()))
        })
        .collect();
    Some(lines)
}

#[test]
fn each_tests_lines_are_those_gcov_counts_when_it_runs_natively() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let program = include_str!("../testsuite/paper_tcas.c");
    let Some(bc) = compile(d, "tcas", program) else {
        return;
    };
    let source = d.join("tcas.c");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let native = d.join("tcas.native");
    let built = std::process::Command::new("clang-14")
        .args(["-g", "-O0", "--coverage", "-I"])
        .arg(root.join("runtime/include"))
        .arg(&source)
        .arg(root.join("runtime/build/libmnemo-replay.a"))
        .arg("-o")
        .arg(&native)
        .current_dir(d)
        .output()
        .expect("clang-14 runs");
    assert!(built.status.success(), "{}", stderr(&built));
    let out = d.join("out");
    let stats = run_linked(&bc, &out, &["--write-cov"]);
    assert_eq!(stats["tests"], 14, "{stats}");
    for t in json(&out.join("tests.json"))["tests"]
        .as_array()
        .expect("tests")
    {
        let ktest = out.join(t["ktest"].as_str().expect("ktest"));
        let _ = std::fs::remove_file(d.join("tcas.gcda"));
        let ran = std::process::Command::new(&native)
            .env("KTEST_FILE", &ktest)
            .current_dir(d)
            .output()
            .expect("the native program runs");
        assert_eq!(ran.status.code(), t["exit_code"].as_i64().map(|c| c as i32));
        let Some(counted) = gcov_lines(d, &source) else {
            return;
        };
        let cov = std::fs::read_to_string(ktest.with_extension("cov")).expect(".cov");
        let written: BTreeSet<String> = cov.lines().map(str::to_string).collect();
        assert_eq!(written, counted, "{}", ktest.display());
    }
}
