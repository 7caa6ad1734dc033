//! Compositional runs (`--compose`) against whole-program runs: for every
//! program of `testsuite/`, the same paths with the same outcomes (the
//! tests compared by outcome, error kind and line, and objects' names and
//! sizes, as a sorted list: a composed run forks at call sites, so its
//! tests come in another order), a composed run with two workers finds
//! what one does, and the composed run's tests replay natively. Then each reason a call is executed rather than composed,
//! recursion, and summaries reused by another program.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/found.rs"]
mod found;
#[path = "support/trial.rs"]
mod trial;

use found::{
    cc_args, differ, found, header_args, mnemo, program_args, programs, replay, unnumbered_tests,
};
use trial::{keep_on_failure, scratch};

/// `mnemo run -q --output-dir DIR/OUT --memo DIR/MEMO ARGS BC PROGRAM_ARGS`.
fn run(
    dir: &Path,
    out: &str,
    memo: &str,
    args: &[String],
    bc: &Path,
    program: &[String],
) -> Result<serde_json::Value, String> {
    let (o, m) = (dir.join(out), dir.join(memo));
    let mut all: Vec<&std::ffi::OsStr> = vec!["run".as_ref(), "-q".as_ref()];
    all.extend(["--output-dir".as_ref(), o.as_os_str()]);
    all.extend(["--memo".as_ref(), m.as_os_str()]);
    all.extend(args.iter().map(std::ffi::OsStr::new));
    all.push(bc.as_os_str());
    all.extend(program.iter().map(std::ffi::OsStr::new));
    mnemo(&all)?;
    Ok(cli::json(&o.join("stats.json")))
}

/// One testsuite program: whole-program and compositional runs agree, and
/// the compositional run's tests replay natively.
fn check_program(prog: &Path) -> Result<(), Failed> {
    let source = std::fs::read_to_string(prog).map_err(|e| e.to_string())?;
    let (args, _, _) = header_args(&source);
    let program = program_args(&source);
    let cc_flags = cc_args(&source);
    let tmp = scratch("mnemo-compose-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let bc = dir.join("prog.bc");
        let mut cc: Vec<&std::ffi::OsStr> = vec![
            "cc".as_ref(),
            prog.as_os_str(),
            "-o".as_ref(),
            bc.as_os_str(),
            "--".as_ref(),
        ];
        cc.extend(cc_flags.iter().map(std::ffi::OsStr::new));
        mnemo(&cc)?;
        let whole = run(&dir, "whole", "memo-whole", &args, &bc, &program)?;
        let mut composed = args.clone();
        composed.push("--compose".into());
        let stats = run(&dir, "composed", "memo-composed", &composed, &bc, &program)?;
        if stats["compose"]["enabled"] != true {
            return Err("stats.json does not say the run composed".into());
        }
        // A callee is replayed once for all the paths it is entered with,
        // forking where they part: no instruction more than the whole run.
        if stats["compose"]["replays_abandoned"] == 0
            && stats["instructions"] != whole["instructions"]
        {
            return Err(format!(
                "the composed run executed {} instructions, the whole run {}",
                stats["instructions"], whole["instructions"]
            ));
        }
        let (a, b) = (
            unnumbered_tests(&dir.join("whole"))?,
            unnumbered_tests(&dir.join("composed"))?,
        );
        if a != b {
            return Err(format!(
                "--compose found other paths than a whole-program run\n--- whole ---\n{}\n--- composed ---\n{}",
                a.join("\n"),
                b.join("\n")
            ));
        }
        // Summaries to depth 4 cut many functions' paths: each call is
        // composed or, where a cut path is feasible, executed, and the paths
        // are the whole run's all the same.
        let mut shallow = composed.clone();
        shallow.extend(["--summary-depth".to_string(), "4".to_string()]);
        run(&dir, "shallow", "memo-shallow", &shallow, &bc, &program)?;
        let c = unnumbered_tests(&dir.join("shallow"))?;
        if c != a {
            return Err(format!(
                "summaries to depth 4 found other paths\n--- whole ---\n{}\n--- depth 4 ---\n{}",
                a.join("\n"),
                c.join("\n")
            ));
        }
        // A second compositional run reads every summary back, with two
        // workers: its trie and its tests, numbered by their places in it,
        // are the first one's.
        let first = found(&dir, "composed", "memo-composed")?;
        let mut parallel = composed.clone();
        parallel.extend(["--jobs".to_string(), "2".to_string()]);
        let again = run(&dir, "again", "memo-composed", &parallel, &bc, &program)?;
        if again["compose"]["summaries_built"] != 0 {
            return Err(format!(
                "the second run built summaries again: {}",
                again["compose"]
            ));
        }
        differ(
            "a run on stored summaries with --jobs 2",
            &first,
            &found(&dir, "again", "memo-composed")?,
        )?;
        for key in ["calls_composed", "paths_checked", "replayed_choices"] {
            if again["compose"][key] != stats["compose"][key] {
                return Err(format!(
                    "{key}: {} with --jobs 2, {} with one worker",
                    again["compose"][key], stats["compose"][key]
                ));
            }
        }
        if !args.iter().any(|a| a == "--file") {
            let out = dir.join("composed");
            replay(prog, &out, &cc_flags)?;
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

/// Compiles `source`, runs it whole and composed (no C library, so that
/// only the program's own functions are in the call graph), checks both
/// find the same paths, and returns the composed run's `compose` stats.
fn composed_stats(
    dir: &Path,
    name: &str,
    source: &str,
    memo: &str,
) -> Result<serde_json::Value, String> {
    let Some(bc) = cli::compile(dir, name, source) else {
        return Err("clang-14 is needed".into());
    };
    let base = vec!["--no-runtime".to_string()];
    run(
        dir,
        &format!("{name}-whole"),
        &format!("{name}-memo-whole"),
        &base,
        &bc,
        &[],
    )?;
    let mut composed = base.clone();
    composed.push("--compose".into());
    let stats = run(dir, &format!("{name}-composed"), memo, &composed, &bc, &[])?;
    let (a, b) = (
        unnumbered_tests(&dir.join(format!("{name}-whole")))?,
        unnumbered_tests(&dir.join(format!("{name}-composed")))?,
    );
    if a != b {
        return Err(format!("other paths composed:\n{a:?}\n{b:?}"));
    }
    Ok(stats["compose"].clone())
}

fn count(stats: &serde_json::Value, map: &str, key: &str) -> u64 {
    stats[map][key].as_u64().unwrap_or(0)
}

const FALLBACKS: &str = r#"
#include <klee/klee.h>
#include <stdlib.h>
int g;
int reads_global(int x) { if (x > g) return 1; return 0; }
int through_pointer(int *p) { if (*p > 3) return 1; return 0; }
int makes_input(int x) { int y; klee_make_symbolic(&y, sizeof y, "y"); if (x > y) return 1; return 0; }
int fixes_value(int n) { char *p = malloc(n); if (n > 2) { free(p); return 1; } free(p); return 0; }
int no_branch(int x) { return x * 3; }
int deep(int n) { if (n <= 0) return 0; return 1 + deep(n - 1); }
int bits(unsigned long long x) { int c = 0; for (int i = 0; i < 40; i++) if ((x >> i) & 1) c++; return c; }
int variadic(int n, ...) { if (n > 1) return 1; return 0; }
int fine(int x, int y) { if (x > y) return x - y; if (x == y) return 0; return y - x; }
int main(void) {
  int a, b;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  klee_assume(a >= 0 & a < 4);
  int s = reads_global(a) + through_pointer(&b) + makes_input(a) + fixes_value(a)
        + no_branch(a) + deep(a) + variadic(a, b) + fine(a, b) + bits(a);
  if (s == 5) return 1;
  return 0;
}
"#;

fn each_fallback_is_counted() -> Result<(), Failed> {
    let tmp = scratch("mnemo-compose-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let s = composed_stats(&dir, "fallbacks", FALLBACKS, "memo")?;
        let expect = [
            ("unsummarised", "environment", 1),
            ("unsummarised", "fixes-values", 1),
            ("unsummarised", "no-branch", 1),
            ("unsummarised", "bounded", 1),
            ("unsummarised", "variadic", 1),
        ];
        for (map, key, n) in expect {
            if count(&s, map, key) != n {
                return Err(format!("{map}.{key}: wanted {n}, got {s}"));
            }
        }
        // Calls are counted on every path that makes them (`deep`'s at each
        // recursive call too).
        for key in [
            "environment",
            "fixes-values",
            "no-branch",
            "variadic",
            "bounded",
        ] {
            if count(&s, "calls_executed", key) < 1 {
                return Err(format!("calls_executed.{key} is not counted: {s}"));
            }
        }
        // A global and memory behind a pointer are inputs of a summary;
        // `deep`'s path cut by the bound is a leaf of its summary, which
        // `a < 4` rules out at the call. `bits` has more paths cut by the
        // bound than a summary keeps (refused as `bounded`).
        if s["calls_composed"].as_u64().unwrap_or(0) < 4 || s["summaries_built"] != 4 {
            return Err(format!(
                "`fine`, `reads_global`, `through_pointer` and `deep` should be summarised and composed: {s}"
            ));
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

const SYMBOLIC_POINTER: &str = r#"
#include <klee/klee.h>
#include <stdlib.h>
int pick(int i) {
  int *a = malloc(4 * sizeof *a);
  for (int k = 0; k < 4; k++) a[k] = k * k;
  int r = 0;
  if (i >= 0 && i < 4) r = a[i];
  free(a);
  return r;
}
int main(void) {
  int i;
  klee_make_symbolic(&i, sizeof i, "i");
  if (pick(i) > 3) return 1;
  return 0;
}
"#;

/// A symbolic pointer ends a summary's path at once, even into the
/// function's own memory (searching the objects it may reach can take far
/// longer than the program's run): the function is executed at its calls,
/// counted under `symbolic-pointer`, and the paths are those of a whole run.
fn symbolic_pointer_refuses_the_summary() -> Result<(), Failed> {
    let tmp = scratch("mnemo-compose-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let s = composed_stats(&dir, "pointer", SYMBOLIC_POINTER, "memo")?;
        if count(&s, "unsummarised", "symbolic-pointer") != 1
            || count(&s, "calls_executed", "symbolic-pointer") != 1
            || s["summaries_built"] != 0
        {
            return Err(format!("`pick` should be refused for its pointer: {s}"));
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

const RECURSION: &str = r#"
#include <klee/klee.h>
int down(int n) { if (n <= 0) return 0; if (n > 3) return 10 + down(3); return 1 + down(n - 1); }
int is_odd(int n);
int is_even(int n) { if (n <= 0) return 1; if (n > 4) return 0; return is_odd(n - 1); }
int is_odd(int n) { if (n <= 0) return 0; if (n > 4) return 1; return is_even(n - 1); }
int main(void) {
  int a;
  klee_make_symbolic(&a, sizeof a, "a");
  int r = down(a) + is_even(a);
  if (r == 4) return 1;
  return 0;
}
"#;

fn recursion_direct_and_through_a_cycle() -> Result<(), Failed> {
    let tmp = scratch("mnemo-compose-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let s = composed_stats(&dir, "recursion", RECURSION, "memo")?;
        // `down` (direct, bounded for every input) and one function of the
        // is_even/is_odd cycle are summarised; the other runs inside it.
        if s["summaries_built"] != 2 || count(&s, "unsummarised", "in-cycle") != 1 {
            return Err(format!(
                "wanted 2 summaries and one function in a cycle: {s}"
            ));
        }
        if s["calls_composed"].as_u64().unwrap_or(0) < 2 {
            return Err(format!("both calls from main should be composed: {s}"));
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

const CUT_BY_THE_BOUND: &str = r#"
#include <klee/klee.h>
int count(int n) { if (n <= 0) return 0; return 1 + count(n - 1); }
int main(void) {
  int a, b;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  klee_assume(a >= 0 & a < 3);
  klee_assume(b >= 0 & b < 9);
  int r = count(a);
  if (r == 1) r = count(b);
  return r;
}
"#;

/// A summary to depth 4 keeps `count`'s path cut by the bound (`n > 3`)
/// as a leaf: a call whose argument rules it out is composed, one that
/// allows it is executed (`past-bound`), with the paths of a whole run.
/// `count(a)` is composed; `count(b)` is executed, and so are its recursive
/// calls while `n > 3` may hold (`count(b - 1)` to `count(b - 4)`), until
/// `count(b - 5)`, composed.
fn a_path_cut_by_the_bound_decides_at_each_call() -> Result<(), Failed> {
    let tmp = scratch("mnemo-compose-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let Some(bc) = cli::compile(&dir, "cut", CUT_BY_THE_BOUND) else {
            return Err("clang-14 is needed".into());
        };
        let base = vec!["--no-runtime".to_string()];
        run(&dir, "cut-whole", "cut-memo-whole", &base, &bc, &[])?;
        let mut composed = base.clone();
        composed.extend(["--compose", "--summary-depth", "4"].map(String::from));
        let stats = run(&dir, "cut-composed", "memo", &composed, &bc, &[])?;
        let (a, b) = (
            unnumbered_tests(&dir.join("cut-whole"))?,
            unnumbered_tests(&dir.join("cut-composed"))?,
        );
        if a != b || a.len() != 2 + 9 {
            return Err(format!("wanted the whole run's 11 paths:\n{a:?}\n{b:?}"));
        }
        let s = &stats["compose"];
        if s["summaries_built"] != 1
            || count(s, "calls_executed", "past-bound") != 5
            || s["calls_composed"] != 2
        {
            return Err(format!(
                "wanted count(a) and count(b - 5) composed, count(b) to count(b - 4) executed: {s}"
            ));
        }
        let shown = mnemo(&[
            "summary".as_ref(),
            "show".as_ref(),
            dir.join("memo").as_os_str(),
            "count".as_ref(),
        ])?;
        if shown.matches("bound reached").count() != 1 {
            return Err(format!(
                "one leaf of the summary is cut by the bound:\n{shown}"
            ));
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

fn program_with(clamp: &str, caller: &str) -> String {
    format!(
        "#include <klee/klee.h>\n{clamp}\n{caller}\n\
         int main(void) {{ int a; klee_make_symbolic(&a, sizeof a, \"a\"); return use(a); }}\n"
    )
}

const CLAMP: &str = "int clamp(int x) { if (x < 0) return 0; if (x > 9) return 9; return x; }";

fn summaries_are_reused_by_another_program() -> Result<(), Failed> {
    let tmp = scratch("mnemo-compose-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let first = program_with(
            CLAMP,
            "int use(int a) { if (clamp(a) == 9) return 1; return 0; }",
        );
        let s = composed_stats(&dir, "first", &first, "shared")?;
        if s["summaries_built"] != 2 || s["summaries_reused"] != 0 {
            return Err(format!("the first program builds clamp's and use's: {s}"));
        }
        // Another program with the same clamp and another caller.
        let second = program_with(
            CLAMP,
            "int use(int a) { if (clamp(a + 1) < 3) return 1; return 0; }",
        );
        let s = composed_stats(&dir, "second", &second, "shared")?;
        if s["summaries_reused"] != 1 || s["summaries_built"] != 1 {
            return Err(format!("the second program reuses clamp's: {s}"));
        }
        // A changed clamp is built again.
        let changed = program_with(
            "int clamp(int x) { if (x < 0) return 0; if (x > 7) return 7; return x; }",
            "int use(int a) { if (clamp(a) == 9) return 1; return 0; }",
        );
        let s = composed_stats(&dir, "third", &changed, "shared")?;
        if s["summaries_reused"] != 0 || s["summaries_built"] != 2 {
            return Err(format!("a changed clamp is rebuilt: {s}"));
        }
        let shown = mnemo(&[
            "summary".as_ref(),
            "show".as_ref(),
            dir.join("shared").as_os_str(),
            "clamp".as_ref(),
        ])?;
        if !shown.contains("summary of `clamp`(i32)") || !shown.contains("3 paths") {
            return Err(format!("summary show printed:\n{shown}"));
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

fn main() {
    let args = Arguments::from_args();
    let mut trials: Vec<Trial> = programs()
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Trial::test(format!("compose::{name}"), move || check_program(&p))
        })
        .collect();
    trials.push(Trial::test(
        "fallbacks::each_is_counted",
        each_fallback_is_counted,
    ));
    trials.push(Trial::test(
        "fallbacks::symbolic_pointer",
        symbolic_pointer_refuses_the_summary,
    ));
    trials.push(Trial::test(
        "recursion::direct_and_through_a_cycle",
        recursion_direct_and_through_a_cycle,
    ));
    trials.push(Trial::test(
        "recursion::cut_by_the_bound",
        a_path_cut_by_the_bound_decides_at_each_call,
    ));
    trials.push(Trial::test(
        "reuse::across_programs",
        summaries_are_reused_by_another_program,
    ));
    libtest_mimic::run(&args, trials).exit();
}
