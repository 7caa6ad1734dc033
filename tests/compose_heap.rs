//! Summaries with memory inputs (`--compose`): functions taking pointers or
//! reading globals are summarised with their memory made lazily, and
//! composed at calls where the heap check decides each path. Each program
//! is run whole and composed (no C library, so that only its own functions
//! are in the call graph): both find the same tests with the same
//! outcomes, and the composed run's tests replay natively as predicted.
//! Then each reason the heap check, or a summary's memory, makes a call be
//! executed as usual is counted.

use libtest_mimic::{Arguments, Failed, Trial};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/found.rs"]
#[allow(dead_code)] // This file compares outcomes, not tries.
mod found;
#[path = "support/trial.rs"]
mod trial;

use found::{mnemo, unnumbered_tests};
use trial::{keep_on_failure, scratch};

/// Runs `source` whole and composed, checks they agree and that the
/// composed tests replay natively; returns the composed run's `compose`
/// stats.
fn compose(source: &str) -> Result<serde_json::Value, Failed> {
    let tmp = scratch("mnemo-compose-heap-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<serde_json::Value, String> {
        let Some(bc) = cli::compile(&dir, "prog", source) else {
            return Err("clang-14 is needed".into());
        };
        let run = |out: &str, compose: bool| -> Result<serde_json::Value, String> {
            let (o, m) = (dir.join(out), dir.join(format!("{out}-memo")));
            let mut args: Vec<&std::ffi::OsStr> = vec!["run".as_ref(), "-q".as_ref()];
            args.extend([
                "--no-runtime".as_ref(),
                "--output-dir".as_ref(),
                o.as_os_str(),
            ]);
            args.extend(["--memo".as_ref(), m.as_os_str()]);
            if compose {
                args.push("--compose".as_ref());
            }
            args.push(bc.as_os_str());
            mnemo(&args)?;
            Ok(cli::json(&o.join("stats.json")))
        };
        run("whole", false)?;
        let stats = run("composed", true)?;
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
        let c = dir.join("prog.c");
        let out = dir.join("composed");
        let replay = mnemo(&["replay".as_ref(), c.as_os_str(), out.as_os_str()])?;
        if !replay.contains(" 0 mismatch, 0 not predicted, 0 replay failed") {
            return Err(format!("the composed tests do not replay:\n{replay}"));
        }
        Ok(stats["compose"].clone())
    })();
    let stats = result.as_ref().map_err(Clone::clone).cloned();
    keep_on_failure(tmp, result.map(|_| ()))?;
    stats.map_err(Failed::from)
}

fn count(stats: &serde_json::Value, map: &str, key: &str) -> u64 {
    stats[map][key].as_u64().unwrap_or(0)
}

/// The calls executed for a reason other than `allowed`, if any.
fn executed_besides(stats: &serde_json::Value, allowed: &[&str]) -> Vec<String> {
    stats["calls_executed"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, v)| !allowed.contains(&k.as_str()) && v.as_u64() != Some(0))
                .map(|(k, v)| format!("{k}: {v}"))
                .collect()
        })
        .unwrap_or_default()
}

/// `stats` composed at least `calls` calls, and executed none for a
/// reason of memory.
fn composes(stats: &serde_json::Value, calls: u64) -> Result<(), Failed> {
    let composed = stats["calls_composed"].as_u64().unwrap_or(0);
    let others = executed_besides(stats, &[]);
    if composed < calls || !others.is_empty() {
        return Err(format!("wanted {calls} calls composed and none executed: {stats}").into());
    }
    Ok(())
}

/// `stats` executed at least one call for `reason` (and the function was
/// summarised, for a reason of the heap check).
fn executes_for(stats: &serde_json::Value, reason: &str) -> Result<(), Failed> {
    if count(stats, "calls_executed", reason) < 1 {
        return Err(format!("no call executed for {reason}: {stats}").into());
    }
    Ok(())
}

const SWAP_NODE: &str = r#"
#include <klee/klee.h>
struct node { int elem; struct node *next; };
struct node *swap_node(struct node *this) {
  if (this->next != 0) {
    if (this->elem > this->next->elem) {
      struct node *t = this->next;
      this->next = t->next;
      t->next = this;
      return t;
    }
  }
  return 0;
}
int main(void) {
  struct node a, b, c;
  klee_make_symbolic(&a.elem, sizeof a.elem, "a");
  klee_make_symbolic(&b.elem, sizeof b.elem, "b");
  klee_make_symbolic(&c.elem, sizeof c.elem, "c");
  a.next = &b; b.next = &c; c.next = 0;
  struct node *r = swap_node(&a);
  struct node *s = swap_node(r ? r : &b);
  struct node *t = swap_node(&c);
  if (r && s && a.next == &c) return 1;
  if (t) return 2;
  return 0;
}
"#;

/// The paper's SwapNode, called three times on a list it rewires: each
/// call's heap is concrete, the elements symbolic.
fn swap_node_is_composed() -> Result<(), Failed> {
    let s = compose(SWAP_NODE)?;
    composes(&s, 3)
}

const COUNTER: &str = r#"
#include <klee/klee.h>
int count;
int limit = 3;
int bump(int x) { if (x > count) { count++; return 1; } if (count > limit) return 2; return 0; }
int main(void) {
  int a, b;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  klee_make_symbolic(&limit, sizeof limit, "limit");
  int r = bump(a) + bump(b) + bump(a + b);
  if (r == 3 && count == 3) return 1;
  return 0;
}
"#;

/// A function reading and writing globals (one symbolic in the caller):
/// they are inputs of its summary, mapped to the caller's at each call.
fn global_counter_is_composed() -> Result<(), Failed> {
    let s = compose(COUNTER)?;
    composes(&s, 3)
}

const LIST: &str = r#"
#include <klee/klee.h>
#include <stdlib.h>
struct node { int elem; struct node *next; };
int rep_ok(struct node *n) {
  int k = 0;
  while (n) {
    if (n->next && n->elem > n->next->elem) return 0;
    n = n->next;
    if (++k > 4) return 0;
  }
  return 1;
}
struct node *add(struct node *head, int e) {
  struct node *n = malloc(sizeof *n);
  if (!n) return head;
  n->elem = e;
  n->next = head;
  return n;
}
int main(void) {
  struct node *head = 0;
  for (int i = 0; i < 3; i++) {
    int e;
    klee_make_symbolic(&e, sizeof e, "e");
    head = add(head, e);
    if (!rep_ok(head)) return 2;
  }
  return 1;
}
"#;

/// A linked list's add/repOk driver: repOk walks lists of one, two and
/// three nodes the caller built, each walk one path of its summary.
fn list_walk_is_composed() -> Result<(), Failed> {
    let s = compose(LIST)?;
    composes(&s, 3)
}

const SWAP: &str = r#"
#include <klee/klee.h>
int swap(int *a, int *b) {
  if (*a == *b) return 0;
  int t = *a; *a = *b; *b = t;
  return 1;
}
int main(void) {
  int x, y;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&y, sizeof y, "y");
  int r = swap(&x, &y) + swap(&x, &x);
  if (r == 1 && x > y) return 1;
  return 0;
}
"#;

/// Two pointer parameters, once distinct and once the same address: the
/// summary has paths for both (a parameter may alias an earlier one).
fn aliased_parameters_are_composed() -> Result<(), Failed> {
    let s = compose(SWAP)?;
    composes(&s, 2)
}

const SYMBOLIC_ARGUMENT: &str = r#"
#include <klee/klee.h>
int positive(int *p) { if (*p > 0) return 1; return 0; }
int main(void) {
  int a[2], i;
  klee_make_symbolic(a, sizeof a, "a");
  klee_make_symbolic(&i, sizeof i, "i");
  klee_assume(i >= 0 & i < 2);
  return positive(&a[i]);
}
"#;

fn symbolic_argument_is_executed() -> Result<(), Failed> {
    executes_for(&compose(SYMBOLIC_ARGUMENT)?, "heap-symbolic-pointer")
}

const FREED: &str = r#"
#include <klee/klee.h>
#include <stdlib.h>
int positive(int *p) { if (*p > 0) return 1; return 0; }
int main(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "x");
  int *p = malloc(sizeof *p);
  *p = x;
  int r = positive(p);
  free(p);
  if (r) return positive(p);
  return 0;
}
"#;

fn freed_object_is_executed() -> Result<(), Failed> {
    let s = compose(FREED)?;
    executes_for(&s, "heap-no-object")?;
    composes_some(&s)
}

/// At least one call was composed (the function is summarised).
fn composes_some(s: &serde_json::Value) -> Result<(), Failed> {
    if s["calls_composed"].as_u64().unwrap_or(0) == 0 {
        return Err(format!("no call composed: {s}").into());
    }
    Ok(())
}

const TOO_SMALL: &str = r#"
#include <klee/klee.h>
int positive(int *p) { if (*p > 0) return 1; return 0; }
int main(void) {
  int x;
  char c;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&c, sizeof c, "c");
  return positive(&x) + positive((int *)&c);
}
"#;

fn small_object_is_executed() -> Result<(), Failed> {
    let s = compose(TOO_SMALL)?;
    executes_for(&s, "heap-size")?;
    composes_some(&s)
}

const OVERLAP: &str = r#"
#include <klee/klee.h>
int ordered(int *a, int *b) { if (a[0] <= a[1] && a[1] <= b[0]) return 1; return 0; }
int main(void) {
  int v[3];
  klee_make_symbolic(v, sizeof v, "v");
  return ordered(v, v + 2) + ordered(v, v + 1);
}
"#;

fn overlapping_inputs_are_executed() -> Result<(), Failed> {
    let s = compose(OVERLAP)?;
    executes_for(&s, "heap-overlap")?;
    composes_some(&s)
}

const CYCLE: &str = r#"
#include <klee/klee.h>
struct node { int elem; struct node *next; };
int sorted2(struct node *n) {
  if (n->next && n->next->elem < n->elem) return 0;
  return 1;
}
int main(void) {
  struct node a, b;
  klee_make_symbolic(&a.elem, sizeof a.elem, "a");
  klee_make_symbolic(&b.elem, sizeof b.elem, "b");
  a.next = &b; b.next = 0;
  int r = sorted2(&a);
  b.next = &b;
  return r + sorted2(&b);
}
"#;

fn pointer_back_into_an_input_is_executed() -> Result<(), Failed> {
    let s = compose(CYCLE)?;
    executes_for(&s, "heap-alias")?;
    composes_some(&s)
}

const READ_ONLY: &str = r#"
#include <klee/klee.h>
int set_first(char *s, char c) { if (s[0] == c) { s[0] = 'b'; return 1; } return 0; }
int main(void) {
  char buf[4] = "abc";
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  int r = set_first(buf, c);
  return r + set_first("abc", c);
}
"#;

fn read_only_input_is_executed() -> Result<(), Failed> {
    let s = compose(READ_ONLY)?;
    executes_for(&s, "heap-read-only")?;
    composes_some(&s)
}

const INDEXED: &str = r#"
#include <klee/klee.h>
int at(int *a, int i) { if (i < 0 || i > 3) return 0; if (a[i] > 0) return 1; return 0; }
int main(void) {
  int v[4], i;
  klee_make_symbolic(v, sizeof v, "v");
  klee_make_symbolic(&i, sizeof i, "i");
  return at(v, i);
}
"#;

fn symbolic_index_refuses_the_summary() -> Result<(), Failed> {
    let s = compose(INDEXED)?;
    if count(&s, "unsummarised", "symbolic-pointer") != 1 {
        return Err(format!("`at` should be refused for its index: {s}").into());
    }
    executes_for(&s, "symbolic-pointer")
}

const FAR: &str = r#"
#include <klee/klee.h>
char big[6000];
int far(char *p) { if (p[5000] == 1) return 1; return 0; }
int main(void) {
  klee_make_symbolic(big, sizeof big, "big");
  return far(big);
}
"#;

fn access_beyond_the_bound_refuses_the_summary() -> Result<(), Failed> {
    let s = compose(FAR)?;
    if count(&s, "unsummarised", "input-bound") != 1 {
        return Err(format!("`far` should be refused for its bound: {s}").into());
    }
    executes_for(&s, "input-bound")
}

/// A program counting with `bump` (of `COUNTER`'s kind), with `pad` bytes
/// of another global laid out before the counter.
fn counting(pad: usize) -> String {
    format!(
        "#include <klee/klee.h>\nchar pad[{pad}];\nint count;\n\
         int bump(int x) {{ pad[0] = 1; if (x > count) {{ count++; return 1; }} return 0; }}\n\
         int main(void) {{ int a; klee_make_symbolic(&a, sizeof a, \"a\"); return bump(a) + bump(a - 1); }}\n"
    )
}

/// A stored summary whose paths read globals is reused by a program whose
/// globals lie where they did, and built again for one where they moved.
fn globals_elsewhere_rebuild_the_summary() -> Result<(), Failed> {
    let tmp = scratch("mnemo-compose-heap-")?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let memo = dir.join("shared");
        let mut stats = Vec::new();
        for (name, pad) in [("first", 16), ("same", 16), ("moved", 4096)] {
            let Some(bc) = cli::compile(&dir, name, &counting(pad)) else {
                return Err("clang-14 is needed".into());
            };
            let out = dir.join(name);
            mnemo(&[
                "run".as_ref(),
                "-q".as_ref(),
                "--no-runtime".as_ref(),
                "--compose".as_ref(),
                "--output-dir".as_ref(),
                out.as_os_str(),
                "--memo".as_ref(),
                memo.as_os_str(),
                bc.as_os_str(),
            ])?;
            stats.push(cli::json(&out.join("stats.json"))["compose"].clone());
        }
        let want = [(1, 0), (0, 1), (1, 0)];
        for (s, (built, reused)) in stats.iter().zip(want) {
            let counts = (s["summaries_built"].clone(), s["summaries_reused"].clone());
            if counts != (built.into(), reused.into()) || s["calls_composed"] != 3 {
                return Err(format!(
                    "wanted {built} built, {reused} reused, 3 composed (the second call on two paths): {s}"
                ));
            }
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
}

fn main() {
    let args = Arguments::from_args();
    let trials = vec![
        Trial::test("composed::swap_node", swap_node_is_composed),
        Trial::test("composed::global_counter", global_counter_is_composed),
        Trial::test("composed::list_walk", list_walk_is_composed),
        Trial::test(
            "composed::aliased_parameters",
            aliased_parameters_are_composed,
        ),
        Trial::test(
            "executed::heap_symbolic_pointer",
            symbolic_argument_is_executed,
        ),
        Trial::test("executed::heap_no_object", freed_object_is_executed),
        Trial::test("executed::heap_size", small_object_is_executed),
        Trial::test("executed::heap_overlap", overlapping_inputs_are_executed),
        Trial::test(
            "executed::heap_alias",
            pointer_back_into_an_input_is_executed,
        ),
        Trial::test("executed::heap_read_only", read_only_input_is_executed),
        Trial::test(
            "refused::symbolic_pointer",
            symbolic_index_refuses_the_summary,
        ),
        Trial::test(
            "refused::input_bound",
            access_beyond_the_bound_refuses_the_summary,
        ),
        Trial::test(
            "reuse::globals_elsewhere",
            globals_elsewhere_rebuild_the_summary,
        ),
    ];
    libtest_mimic::run(&args, trials).exit();
}
