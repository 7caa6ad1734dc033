//! The memo commands from the command line: heuristics, tries that do not
//! fit (stale, damaged), deepening in one call, resuming after Ctrl-C,
//! compression, certification of a changed program, and the trie views.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

#[path = "support/cli.rs"]
mod support;
use support::{compile, mnemo, run_memo as run, stderr, trie_text};

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Two loops, as in Memoise's Figure 9: a target in the first loop cannot
/// be reached from boundary nodes in the second.
const TWO_LOOPS: &str = r#"
#include <klee/klee.h>
int main(void) {
  int x = klee_int("x"), y = klee_int("y");
  int c = 0, p = 0;
  while (x > 0) {
    if (c == 20)
      klee_report_error(__FILE__, __LINE__, "first", "user");
    c++;
    x--;
  }
  while (y > 0) {
    if (p == 20 && c == 2)
      klee_report_error(__FILE__, __LINE__, "second", "user");
    p++;
    y--;
  }
  return 0;
}
"#;

#[test]
fn reachability_explores_only_boundary_nodes_that_reach_the_target() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "loops", TWO_LOOPS) else {
        return;
    };
    let memo = dir.path().join("memo");
    let (_, first) = run(&bc, &memo, &dir.path().join("a"), &["--max-depth", "6"]);
    let boundary = first["paths"]["early"]["max-depth"]
        .as_u64()
        .expect("boundary paths");
    assert!(boundary >= 2, "{first}");
    let (o, deeper) = run(
        &bc,
        &memo,
        &dir.path().join("b"),
        &["--max-depth", "30", "--target", "loops.c:8"],
    );
    // Only the path still in the first loop can reach line 8.
    assert_eq!(deeper["memo"]["candidates"], 1, "{deeper}\n{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("1 of {boundary} boundary nodes")),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        deeper["paths"]["errors"]["user"], 1,
        "the target is reached: {deeper}"
    );
    assert!(deeper["memo"]["target_hit_queries"].is_u64(), "{deeper}");
    // The boundary nodes left out are explored by the next run at that bound,
    // which then ends where a fresh run does.
    let (_, rest) = run(&bc, &memo, &dir.path().join("c"), &["--max-depth", "30"]);
    assert!(
        rest["memo"]["candidates"].as_u64().unwrap_or(0) >= boundary - 1,
        "{rest}"
    );
    run(
        &bc,
        &dir.path().join("fresh"),
        &dir.path().join("d"),
        &["--max-depth", "30"],
    );
    assert_eq!(trie_text(&memo), trie_text(&dir.path().join("fresh")));
}

#[test]
fn counter_prefers_the_paths_that_took_the_nearest_branch_most() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "loops", TWO_LOOPS) else {
        return;
    };
    let memo = dir.path().join("memo");
    run(&bc, &memo, &dir.path().join("a"), &["--max-depth", "6"]);
    let (o, deeper) = run(
        &bc,
        &memo,
        &dir.path().join("b"),
        &[
            "--max-depth",
            "8",
            "--heuristic",
            "counter",
            "--target",
            "loops.c:14",
        ],
    );
    let text = stderr(&o);
    assert!(
        text.contains("counter heuristic: counting choice site"),
        "{text}"
    );
    // One boundary path went round the second loop most often.
    assert_eq!(deeper["memo"]["candidates"], 1, "{deeper}\n{text}");
}

#[test]
fn a_target_naming_nothing_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "loops", TWO_LOOPS) else {
        return;
    };
    let memo = dir.path().join("memo");
    run(&bc, &memo, &dir.path().join("a"), &["--max-depth", "3"]);
    for target in ["loops.c:9999", "no_such_function"] {
        let o = mnemo()
            .args(["run", "-q", "--memo"])
            .arg(&memo)
            .arg("--output-dir")
            .arg(dir.path().join(format!("x{}", target.len())))
            .args(["--max-depth", "5", "--target", target])
            .arg(&bc)
            .output()
            .expect("mnemo run");
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        assert!(stderr(&o).contains(target), "{}", stderr(&o));
    }
}

const BRANCHES: &str = r#"
#include <klee/klee.h>
int main(void) {
  int a = klee_int("a");
  int r = 0;
  if (a > 10) r += 1;
  if (a > 20) r += 2;
  if (a == 15) r += 4;
  return r;
}
"#;

#[test]
fn a_stale_or_damaged_trie_is_reported_kept_and_not_followed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "prog", BRANCHES) else {
        return;
    };
    let memo = dir.path().join("memo");
    run(&bc, &memo, &dir.path().join("a"), &[]);
    let trie = memo.join("prog.trie");
    let recorded = std::fs::read(&trie).expect("trie written");

    // The program changes under the same name.
    let changed = BRANCHES.replace("a == 15", "a == 16");
    compile(dir.path(), "prog", &changed).expect("compiles");
    let (o, stats) = run(&bc, &memo, &dir.path().join("b"), &[]);
    let text = stderr(&o);
    assert!(
        text.contains("another version of the program (changed: main)"),
        "{text}"
    );
    assert_eq!(stats["memo"]["reused"], false);
    assert_eq!(
        std::fs::read(memo.join("prog.trie.old")).expect("kept"),
        recorded
    );

    // A damaged file: one byte flipped.
    let mut bytes = std::fs::read(&trie).expect("the new trie");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&trie, &bytes).expect("write");
    let (o, stats) = run(&bc, &memo, &dir.path().join("c"), &[]);
    assert!(
        stderr(&o).contains("damaged (checksum mismatch)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stats["memo"]["reused"], false);
    assert_eq!(
        std::fs::read(memo.join("prog.trie.bad")).expect("kept"),
        bytes
    );

    // Not a trie at all, read by `trie show`: an error naming the file.
    std::fs::write(memo.join("x.trie"), b"hello").expect("write");
    let o = mnemo()
        .arg("trie")
        .arg("stats")
        .arg(memo.join("x.trie"))
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("x.trie is not a mnemo trie file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_second_damaged_trie_never_replaces_the_copy_of_the_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "prog", BRANCHES) else {
        return;
    };
    let memo = dir.path().join("memo");
    let trie = memo.join("prog.trie");
    run(&bc, &memo, &dir.path().join("a"), &[]);
    for (round, kept) in ["prog.trie.bad", "prog.trie.bad.1", "prog.trie.bad.2"]
        .iter()
        .enumerate()
    {
        let mut bytes = std::fs::read(&trie).expect("a trie");
        let i = bytes.len() - 1 - round;
        bytes[i] ^= 0x40;
        std::fs::write(&trie, &bytes).expect("damage");
        let (o, _) = run(&bc, &memo, &dir.path().join(format!("r{round}")), &[]);
        let text = stderr(&o);
        assert!(text.contains(&trie.display().to_string()), "{text}");
        assert!(text.contains("checksum mismatch"), "{text}");
        let kept = memo.join(kept);
        assert!(text.contains(&kept.display().to_string()), "{text}");
        assert_eq!(std::fs::read(&kept).expect("kept"), bytes, "round {round}");
    }
}

#[test]
fn certify_names_the_paths_a_changed_program_leaves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "prog", BRANCHES) else {
        return;
    };
    let memo = dir.path().join("memo");
    run(&bc, &memo, &dir.path().join("a"), &[]);
    let ok = mnemo()
        .arg("certify")
        .arg(&bc)
        .arg("--memo")
        .arg(&memo)
        .output()
        .expect("runs");
    assert!(ok.status.success(), "{}", stdout(&ok));
    assert!(
        stdout(&ok).contains("4 of 4 recorded paths hold; 0 solver queries"),
        "{}",
        stdout(&ok)
    );

    // The recorded test of the path with 10 < a <= 20 now goes the other way
    // at the first branch.
    let changed = BRANCHES.replace("a > 10", "a > 100000");
    compile(dir.path(), "prog", &changed).expect("compiles");
    let o = mnemo()
        .arg("certify")
        .arg(&bc)
        .arg("--memo")
        .arg(&memo)
        .output()
        .expect("runs");
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("changed since the trie was recorded: main"),
        "{text}"
    );
    assert!(
        text.contains("DIFFERS") || text.contains("NOT REACHED"),
        "{text}"
    );
}

#[test]
fn deepen_in_one_call_ends_as_a_fresh_run_at_the_last_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "loops", TWO_LOOPS) else {
        return;
    };
    let memo = dir.path().join("memo");
    let o = mnemo()
        .args(["run", "-q", "--deepen", "2:3:11", "--memo"])
        .arg(&memo)
        .arg("--output-dir")
        .arg(dir.path().join("out"))
        .arg(&bc)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    for bound in [2, 5, 8, 11] {
        assert!(
            stderr(&o).contains(&format!("depth {bound}:")),
            "{}",
            stderr(&o)
        );
    }
    run(
        &bc,
        &dir.path().join("fresh"),
        &dir.path().join("f"),
        &["--max-depth", "11"],
    );
    assert_eq!(trie_text(&memo), trie_text(&dir.path().join("fresh")));
    let tests = |d: &str| std::fs::read_dir(dir.path().join(d)).expect("dir").count();
    assert_eq!(tests("out"), tests("f"));
    let bad = mnemo()
        .args(["run", "--deepen", "5:0:3"])
        .arg(&bc)
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

#[test]
fn resuming_after_ctrl_c_ends_as_an_uninterrupted_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "loops", TWO_LOOPS) else {
        return;
    };
    let memo = dir.path().join("memo");
    let out = dir.path().join("out");
    let child = mnemo()
        .args(["run", "-q", "--max-depth", "40", "--memo"])
        .arg(&memo)
        .arg("--output-dir")
        .arg(&out)
        .arg(&bc)
        .spawn()
        .expect("runs");
    // Once the output directory exists the run is exploring (and Ctrl-C is
    // handled); then SIGINT, as Ctrl-C sends. The run may finish first.
    for _ in 0..200 {
        if out.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(150));
    let _ = Command::new("kill")
        .arg("-INT")
        .arg(child.id().to_string())
        .status();
    let o = child.wait_with_output().expect("ends");
    // 130: stopped by Ctrl-C; 0: it finished first.
    assert!(matches!(o.status.code(), Some(0 | 130)), "{:?}", o.status);
    let (_, resumed) = run(&bc, &memo, &out, &["--resume"]);
    let (_, fresh) = run(
        &bc,
        &dir.path().join("fresh"),
        &dir.path().join("f"),
        &["--max-depth", "40"],
    );
    assert_eq!(trie_text(&memo), trie_text(&dir.path().join("fresh")));
    assert_eq!(resumed["paths"], fresh["paths"]);
    assert_eq!(resumed["tests"], fresh["tests"]);
    // Nothing left to resume: a second resume runs nothing.
    let (_, again) = run(&bc, &memo, &out, &["--resume"]);
    assert_eq!(again["instructions"], 0, "{again}");
}

/// One side finishes early with a subtree of its own; the other loops on.
const FINISHED_AND_LOOPING: &str = r#"
#include <klee/klee.h>
int main(void) {
  int a = klee_int("a"), b = klee_int("b"), c = klee_int("c"), n = klee_int("n");
  int r = 0;
  if (a > 0) {
    if (b > 0) r += 1;
    if (c > 0) r += 2;
    return r;
  }
  while (n > 0) { r++; n--; }
  return r;
}
"#;

#[test]
fn compression_keeps_the_tests_and_a_smaller_trie() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "loops", FINISHED_AND_LOOPING) else {
        return;
    };
    let (p, c) = (dir.path().join("p"), dir.path().join("c"));
    for (memo, out) in [(&p, "ap"), (&c, "ac")] {
        run(&bc, memo, &dir.path().join(out), &["--max-depth", "6"]);
    }
    run(&bc, &p, &dir.path().join("bp"), &["--max-depth", "10"]);
    let (_, sc) = run(
        &bc,
        &c,
        &dir.path().join("bc"),
        &["--max-depth", "10", "--compress"],
    );
    let (_, sp) = run(&bc, &p, &dir.path().join("again"), &["--max-depth", "10"]);
    let size = |m: &Path| std::fs::metadata(m.join("loops.trie")).expect("trie").len();
    assert!(size(&c) < size(&p), "{} vs {}", size(&c), size(&p));
    assert_eq!(sc["tests"], sp["tests"]);
    assert_eq!(sc["paths"], sp["paths"]);
    // A compressed trie still serves the next deeper run.
    let (_, deeper_c) = run(&bc, &c, &dir.path().join("cc"), &["--max-depth", "14"]);
    let (_, deeper_p) = run(&bc, &p, &dir.path().join("pp"), &["--max-depth", "14"]);
    assert_eq!(deeper_c["paths"], deeper_p["paths"]);
}

#[test]
fn the_trie_views_name_choices_and_ends() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "prog", BRANCHES) else {
        return;
    };
    let memo = dir.path().join("memo");
    run(&bc, &memo, &dir.path().join("a"), &[]);
    let show = trie_text(&memo);
    assert!(show.starts_with("root\n"), "{show}");
    assert!(
        show.contains("main:") && show.contains("completed") && show.contains("unsat"),
        "{show}"
    );
    let o = mnemo()
        .arg("trie")
        .arg("dot")
        .arg(&memo)
        .output()
        .expect("runs");
    let dot = stdout(&o);
    assert!(
        dot.starts_with("digraph trie {") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
    let o = mnemo()
        .arg("trie")
        .arg("stats")
        .arg(&memo)
        .output()
        .expect("runs");
    let stats = stdout(&o);
    assert!(stats.contains("leaves completed    4"), "{stats}");
}

#[test]
fn regress_with_compression_still_saves_a_complete_trie() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(old) = compile(dir.path(), "old", FINISHED_AND_LOOPING) else {
        return;
    };
    let new = compile(
        dir.path(),
        "new",
        &FINISHED_AND_LOOPING.replace("r += 2", "r -= 2"),
    )
    .expect("compiles");
    let regress = |memo: &str, extra: &[&str]| {
        let memo = dir.path().join(memo);
        run(
            &old,
            &memo,
            &dir.path().join(format!("{}-old", memo.display())),
            &["--max-depth", "5"],
        );
        let o = mnemo()
            .args(["regress", "-q", "--memo"])
            .arg(&memo)
            .arg("--output-dir")
            .arg(dir.path().join(format!("{}-new", memo.display())))
            .args(extra)
            .arg(&old)
            .arg(&new)
            .output()
            .expect("runs");
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(
            stdout(&o).contains("changed functions: main"),
            "{}",
            stdout(&o)
        );
        trie_text(&memo.join("new.trie"))
    };
    let plain = regress("p", &[]);
    let compressed = regress("c", &["--compress"]);
    assert_eq!(plain, compressed);
    run(
        &new,
        &dir.path().join("fresh"),
        &dir.path().join("f"),
        &["--max-depth", "5"],
    );
    assert_eq!(plain, trie_text(&dir.path().join("fresh")));
}

/// A program of three files, two of which define a static `helper`:
/// llvm-link numbers the second `helper.1`.
const HELPER_A: &str =
    "static int helper(int x) { return x > 5; }\nint fa(int x) { return helper(x); }\n";
const HELPER_B: &str =
    "static int helper(int x) { return x < 3; }\nint fb(int x) { return helper(x) + 1; }\n";
const HELPER_C: &str =
    "static int helper(int x) { return x == 9; }\nint fc(int x) { return helper(x) + 2; }\n";
const HELPER_MAIN: &str = r#"
#include <klee/klee.h>
int fa(int x);
int fb(int x);
int main(void) {
    int x;
    klee_make_symbolic(&x, sizeof x, "x");
    if (fa(x)) return 1;
    if (fb(x) == 2) return 2;
    return 0;
}
"#;

/// Compiles `files` (name, source) and links them in that order.
fn linked(dir: &Path, name: &str, files: &[(&str, &str)]) -> Option<std::path::PathBuf> {
    let mut parts = Vec::new();
    for (file, source) in files {
        parts.push(compile(dir, &format!("{name}-{file}"), source)?);
    }
    let out = dir.join(format!("{name}.bc"));
    let toolchain = mnemo::testgen::Toolchain::find().ok()?;
    let o = Command::new(&toolchain.llvm_link)
        .args(&parts)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("llvm-link runs");
    assert!(o.status.success(), "{}", stderr(&o));
    Some(out)
}

#[test]
fn regress_pairs_static_functions_that_linking_numbered_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let Some(old) = linked(
        d,
        "old",
        &[("a", HELPER_A), ("b", HELPER_B), ("main", HELPER_MAIN)],
    ) else {
        return;
    };
    // A file linked first takes the plain name: a's `helper` becomes
    // `helper.1` and b's `helper.2`, their bodies unchanged.
    let new = linked(
        d,
        "new",
        &[
            ("c", HELPER_C),
            ("a", HELPER_A),
            ("b", HELPER_B),
            ("main", HELPER_MAIN),
        ],
    )
    .expect("links");
    let memo = d.join("memo");
    run(&old, &memo, &d.join("old-out"), &[]);
    let o = mnemo()
        .args(["regress", "-q", "--memo"])
        .arg(&memo)
        .arg("--output-dir")
        .arg(d.join("new-out"))
        .arg(&old)
        .arg(&new)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    let report = stdout(&o);
    // Only what the new file adds changed; nothing is explored again.
    assert!(
        report.contains("changed functions: fc, helper\n"),
        "{report}"
    );
    assert!(report.contains("impacted nodes: 0"), "{report}");
    assert!(
        report.contains("re-explored paths: 0; reused tests: 3"),
        "{report}"
    );
    // The saved trie is the one a fresh run on the new version records.
    run(&new, &d.join("fresh"), &d.join("fresh-out"), &[]);
    assert_eq!(
        trie_text(&memo.join("new.trie")),
        trie_text(&d.join("fresh"))
    );
}
