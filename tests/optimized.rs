//! Optimized bitcode end to end: a program whose loops clang -O2
//! vectorizes runs to the end of every path (vectors are scalarized at
//! load time), its tests replay natively as predicted, and it ends the
//! ways its -O0 build ends, in fewer paths.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

#[path = "support/cli.rs"]
mod support;
use support::{compile_with, json, mnemo, run, stderr};

/// Loops the vectorizer turns into <4 x i32> and <4 x i8> lanes and
/// vector reductions (a sum, a count of a character, a maximum), on
/// symbolic input, whose results decide how the program ends. Two array
/// elements are symbolic, so the -O0 build's branching maximum stays
/// small.
const LOOPS: &str = r#"
#include <assert.h>
#include <klee/klee.h>
#include <stdlib.h>

__attribute__((noinline)) unsigned sum(const unsigned *a, int n) {
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

__attribute__((noinline)) int count(const char *s, int n, char c) {
  int k = 0;
  for (int i = 0; i < n; i++)
    k += s[i] == c;
  return k;
}

__attribute__((noinline)) int maxof(const int *a, int n) {
  int m = a[0];
  for (int i = 1; i < n; i++)
    m = a[i] > m ? a[i] : m;
  return m;
}

int main(void) {
  int a[9];
  char s[16];
  for (int i = 0; i < 9; i++)
    a[i] = 3 * i;
  a[2] = klee_int("x");
  a[6] = klee_int("y");
  klee_make_symbolic(s, sizeof s, "s");
  int k = count(s, 16, 'x');
  assert(k != 16);
  unsigned t = sum((const unsigned *)a, 9);
  int m = maxof(a, 9);
  // exit(), not return: returns of constants would merge into a select,
  // which ends as one path where the branches end as three.
  if (t == 100)
    exit(1);
  if (m > 1000)
    exit(2);
  if (k == 3)
    exit(3);
  return 0;
}
"#;

/// How the run's tests end: error kinds and exit codes, each once.
fn outcomes(out: &Path) -> BTreeSet<String> {
    let tests = json(&out.join("tests.json"));
    tests["tests"]
        .as_array()
        .expect("a list of tests")
        .iter()
        .map(|t| match t["outcome"].as_str() {
            Some("exit") => format!("exit {}", t["exit_code"]),
            Some("error") => format!("error {}", t["kind"]),
            other => format!("{other:?} {}", t["reason"]),
        })
        .collect()
}

/// Runs the bitcode and replays its tests natively; the outcomes and the
/// number of paths.
fn explore(
    dir: &Path,
    src: &Path,
    bc: &Path,
    label: &str,
    extra: &[&str],
) -> (BTreeSet<String>, u64) {
    let out = dir.join(label);
    let o = run(bc, &out, extra);
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert!(
        stats["paths"]["errors"]["unsupported"].is_null(),
        "{label}: a path ended unsupported: {stats}"
    );
    let replay = mnemo()
        .arg("replay")
        .arg(src)
        .arg(&out)
        .output()
        .expect("mnemo replay");
    assert!(
        replay.status.success(),
        "{label}: a native outcome differs from the prediction:\n{}{}",
        String::from_utf8_lossy(&replay.stdout),
        stderr(&replay)
    );
    (outcomes(&out), stats["tests"].as_u64().unwrap_or(0))
}

#[test]
fn vectorized_loops_end_as_their_unoptimized_build_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(o0) = compile_with(dir.path(), "loops", LOOPS, &[]) else {
        return;
    };
    let Some(o2) = compile_with(dir.path(), "loops2", LOOPS, &["-O2"]) else {
        return;
    };
    // The -O2 build has the vector code this test is about.
    if let Ok(dis) = Command::new("llvm-dis-14")
        .arg(&o2)
        .arg("-o")
        .arg("-")
        .output()
    {
        let text = String::from_utf8_lossy(&dis.stdout);
        assert!(
            text.contains("<4 x i32>") && text.contains("@llvm.vector.reduce.smax.v4i32"),
            "clang -O2 did not vectorize the loops"
        );
    }
    let src = dir.path().join("loops.c");
    let (unoptimized, paths0) = explore(dir.path(), &src, &o0, "o0", &[]);
    let (optimized, paths2) = explore(dir.path(), &src, &o2, "o2", &[]);
    assert_eq!(optimized, unoptimized);
    let want: BTreeSet<String> = ["error \"assert\"", "exit 0", "exit 1", "exit 2", "exit 3"]
        .map(String::from)
        .into();
    assert_eq!(optimized, want);
    // The maximum branches at -O0 and is a select at -O2.
    assert!(paths2 < paths0, "-O2: {paths2} paths, -O0: {paths0}");

    // `--optimize` on the -O0 build: LLVM's -O2 pipeline at load, the
    // same ends in as few paths, and a trie of its own beside the -O0
    // run's (the choices are another module's).
    let (at_load, paths) = explore(dir.path(), &src, &o0, "o0-optimized", &["--optimize"]);
    assert_eq!(at_load, want);
    assert!(paths < paths0, "--optimize: {paths} paths, -O0: {paths0}");
    let memo = dir.path().join("mnemo-memo");
    assert!(memo.join("loops.trie").exists() && memo.join("loops.optimized.trie").exists());
    // Each trie is certified against the module it was recorded on.
    for (flags, paths) in [(&[][..], paths0), (&["--optimize"][..], paths)] {
        let o = mnemo()
            .arg("certify")
            .args(flags)
            .arg(&o0)
            .arg("--memo")
            .arg(&memo)
            .output()
            .expect("runs");
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "{flags:?}: {text}");
        let holds = format!("{paths} of {paths} recorded paths hold; 0 solver queries");
        assert!(text.contains(&holds), "{flags:?}: {text}");
    }
}

/// A program that knows whether it was optimized: the exit status says.
const KNOWS_ITS_FLAGS: &str = r#"
int main(void) {
#ifdef __OPTIMIZE__
  return 7;
#else
  return 3;
#endif
}
"#;

#[test]
fn replay_builds_the_native_program_with_the_flags_given_after_dashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile_with(dir.path(), "flags", KNOWS_ITS_FLAGS, &["-O2"]) else {
        return;
    };
    let src = dir.path().join("flags.c");
    let out = dir.path().join("out");
    let o = run(&bc, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(outcomes(&out), BTreeSet::from(["exit 7".to_string()]));
    let replay = |extra: &[&str]| {
        let o = mnemo()
            .arg("replay")
            .arg(&src)
            .arg(&out)
            .args(extra)
            .output()
            .expect("mnemo replay");
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stdout).into_owned(),
        )
    };
    // Built as always (-O0), the native program is not the one mnemo ran.
    let (same, text) = replay(&[]);
    assert!(!same && text.contains("native exit 3"), "{text}");
    let (same, text) = replay(&["--", "-O2"]);
    assert!(same && text.contains("native exit 7"), "{text}");
    // The scripts run a program built the same way.
    let (written, text) = replay(&["--as-commands", "--", "-O2"]);
    assert!(written, "{text}");
    let status = Command::new("sh")
        .arg(out.join("test000001.sh"))
        .status()
        .expect("sh");
    assert_eq!(status.code(), Some(7));
    // A native program is run as it is: flags for building it are refused.
    let native = out.join("flags.native");
    let o = mnemo()
        .arg("replay")
        .arg(&native)
        .arg(&out)
        .args(["--", "-O2"])
        .output()
        .expect("mnemo replay");
    assert!(!o.status.success());
    assert!(stderr(&o).contains("is a native program"), "{}", stderr(&o));
}
