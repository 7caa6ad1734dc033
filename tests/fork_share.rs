//! `--max-site-fork-share`: a branch site past its share of the run's
//! forks stops forking, except toward code no path has run, and takes up
//! what it cut once nothing else is left; a site's count is its
//! function's, whatever the call.

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, run, stderr};

/// A message quoting a symbolic name byte by byte, nine ways a byte
/// (quotearg's shape), before the program's own decision.
const QUOTING: &str = r#"
#include <assert.h>
#include <klee/klee.h>
static int width;
static void quote(const char *s) {
  for (int i = 0; i < 4; i++) {
    switch (s[i]) {
    case '\n': width += 2; break;
    case '\t': width += 2; break;
    case '\\': width += 2; break;
    case '"': width += 2; break;
    case '\'': width += 4; break;
    case ' ': width += 3; break;
    case '$': width += 3; break;
    case '`': width += 3; break;
    default: width += 1; break;
    }
  }
}
int main(void) {
  char name[4];
  klee_make_symbolic(name, sizeof name, "name");
  if (klee_int("flag") == 12345) {
    quote(name);
    assert(width == 0);
  }
  quote(name);
  return width > 8;
}
"#;

#[test]
fn a_site_past_its_share_of_the_forks_stops_forking_until_nothing_else_is_left() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "quoting", QUOTING) else {
        return;
    };
    let all = dir.path().join("all");
    let cut = dir.path().join("cut");
    for (out, extra) in [
        (&all, &[][..]),
        (&cut, &["--max-site-fork-share", "0.3"][..]),
    ] {
        let o = run(&bc, out, extra);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let (a, c) = (json(&all.join("stats.json")), json(&cut.join("stats.json")));
    // Unbounded, every way of quoting the name is a path: 9^4 on each
    // side of the first choice.
    assert_eq!(a["paths"]["completed"], 9 * 9 * 9 * 9, "{a}");
    assert_eq!(a["paths"]["errors"]["assert"], 9 * 9 * 9 * 9, "{a}");
    assert_eq!(a["paths"]["forks_cut"], 0);
    // Bounded, the switch stops forking once it has made most of the
    // run's first thousand forks, and alternatives are cut. The points
    // where they were cut, fewer than the sample holds, are all kept, and
    // once the other paths have ended they fork after all: a run no limit
    // stops explores every path all the same, later.
    let cut_forks = c["paths"]["forks_cut"].as_u64().expect("forks_cut");
    assert!(cut_forks > 0, "{c}");
    assert!(c["paths"]["cuts_reopened"].as_u64() > Some(0), "{c}");
    assert_eq!(c["paths"]["completed"], a["paths"]["completed"], "{c}");
    assert_eq!(c["paths"]["errors"], a["paths"]["errors"], "{c}");
    assert_eq!(c["tests"], a["tests"], "{c}");
    // Each worker of a parallel run takes up the points it cut once it
    // has nothing else, before it waits for work.
    let jobs = dir.path().join("jobs");
    let o = run(&bc, &jobs, &["--max-site-fork-share", "0.3", "--jobs", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let j = json(&jobs.join("stats.json"));
    assert!(j["paths"]["cuts_reopened"].as_u64() > Some(0), "{j}");
    assert_eq!(j["paths"]["completed"], a["paths"]["completed"], "{j}");
    assert_eq!(j["paths"]["errors"], a["paths"]["errors"], "{j}");
    // The bounded run's trie lacks what it cut: it is kept apart from the
    // whole run's, which a later run may follow.
    let memo = dir.path().join("mnemo-memo");
    assert!(memo.join("quoting.trie").is_file());
    assert!(memo.join("quoting.fork-share.trie").is_file());
    let o = run(
        &bc,
        &dir.path().join("again"),
        &["--max-site-fork-share", "0.3"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let again = json(&dir.path().join("again/stats.json"));
    assert_eq!(again["memo"]["reused"], false, "{again}");
    assert_eq!(again["paths"], c["paths"], "the run is deterministic");
}

/// A classifier's switch, and a program whose first loop makes the run's
/// forks up to the warm-up (1,000, after which a site can be past its
/// share). One of the two ends below follows.
const RARE_CASE_HEAD: &str = r#"
#include <assert.h>
#include <klee/klee.h>
static int kind(unsigned char c) {
  switch (c) {
  case 0: return 0;
  case 1: return 1;
  case 200: return 7;
  default: return 2;
  }
}
int main(void) {
  unsigned char pad[489], b[10];
  klee_make_symbolic(pad, sizeof pad, "pad");
  klee_make_symbolic(b, sizeof b, "b");
  for (int j = 0; j < 489; j++)
    if (pad[j] == 0)
      return 0;
"#;

/// The classifier forks two ways a byte in a loop, and then, at the same
/// call, meets a byte that can take a case no path could take before:
/// breadth first, the last of its 511 forks in the loop is the run's
/// 1,000th.
const AT_THE_SAME_CALL: &str = r#"
  int ones = 0, last = 0;
  for (int i = 0; i < 10; i++) {
    last = kind(i < 9 ? b[i] & 1 : b[9]);
    if (i < 9)
      ones += last;
  }
  assert(last != 7);
  return ones;
}
"#;

/// The last byte classified from a call site of its own: a site's count
/// is its function's, whatever calls it, so the switch is past its share
/// there too.
const AT_A_CALL_OF_ITS_OWN: &str = r#"
  int ones = 0;
  for (int i = 0; i < 9; i++)
    ones += kind(b[i] & 1);
  assert(kind(b[9]) != 7);
  return ones;
}
"#;

/// The stats of breadth-first runs, shares at half the forks, of the
/// classifier program ending in `end`: with one worker and with two, which
/// count the run's forks together, each with the share of the paths at the
/// last call that are to go their model's way; `None` without clang-14.
///
/// With two, the paths of a worker a level ahead of the other can reach
/// the last call before the run has made its 1,000th fork, and fork there
/// (three forks each, so the count soon gets there): the bound is looser,
/// but far above what each worker counting its own forks gave (about 175
/// paths).
fn rare_case(end: &str) -> Option<Vec<(serde_json::Value, u64)>> {
    let dir = tempfile::tempdir().expect("tempdir");
    let bc = compile(dir.path(), "rare_case", &format!("{RARE_CASE_HEAD}{end}"))?;
    let runs = ["1", "2"].map(|jobs| {
        let out = dir.path().join(format!("out-{jobs}"));
        let o = run(
            &bc,
            &out,
            &[
                "--search",
                "bfs",
                "--max-site-fork-share",
                "0.5",
                "--jobs",
                jobs,
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let paths_cut = if jobs == "1" { 500 } else { 350 };
        (json(&out.join("stats.json")), paths_cut)
    });
    Some(runs.into())
}

#[test]
fn a_site_past_its_share_forks_once_toward_a_block_no_path_has_run() {
    let Some(runs) = rare_case(AT_THE_SAME_CALL) else {
        return;
    };
    for (s, paths_cut) in runs {
        // The 512 paths at the last call find the switch past its share
        // (511 of 1,000 forks). The first to get there still forks toward
        // the case no path has taken, and fails the assertion; nearly all
        // the others go their model's way, three alternatives cut each.
        assert!(s["paths"]["errors"]["assert"].as_u64() >= Some(1), "{s}");
        let cut = s["paths"]["forks_cut"].as_u64().expect("forks_cut");
        assert!(cut >= 3 * paths_cut, "{s}");
    }
}

#[test]
fn a_site_shares_its_count_with_every_call_of_its_function() {
    let Some(runs) = rare_case(AT_A_CALL_OF_ITS_OWN) else {
        return;
    };
    for (s, paths_cut) in runs {
        // As at the same call: the paths reaching the call of its own go
        // their model's way, three alternatives cut each, and fork toward
        // the rare case only when the cut points are taken up again.
        let cut = s["paths"]["forks_cut"].as_u64().expect("forks_cut");
        assert!(cut >= 3 * paths_cut, "{s}");
        let reopened = s["paths"]["cuts_reopened"].as_u64().expect("cuts_reopened");
        assert!(reopened >= paths_cut, "{s}");
        assert_eq!(s["paths"]["errors"]["assert"].as_u64(), Some(512), "{s}");
    }
}

/// The paths a run's `stats.json` counts to their end, errors among them.
fn ended(stats: &serde_json::Value) -> u64 {
    let errors: u64 = stats["paths"]["errors"]
        .as_object()
        .map(|e| e.values().filter_map(|n| n.as_u64()).sum())
        .unwrap_or(0);
    stats["paths"]["completed"].as_u64().expect("completed") + errors
}

#[test]
fn past_max_forks_no_path_forks_and_every_test_replays() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "quoting", QUOTING) else {
        return;
    };
    let d = dir.path();
    let bounded = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let o = run(&bc, &out, extra);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("--max-forks allows"),
            "{name}: {}",
            stderr(&o)
        );
        json(&out.join("stats.json"))
    };
    // None: one path, its model's.
    let none = bounded("none", &["--max-forks", "0"]);
    assert_eq!(ended(&none), 1, "{none}");
    // Fifty: the fork that makes the fiftieth new path may make up to
    // eight at once (a switch on a byte), and none forks after it.
    let fifty = bounded("fifty", &["--max-forks", "50", "--jobs", "1"]);
    let paths = ended(&fifty);
    assert!((51..=58).contains(&paths), "{fifty}");
    assert_eq!(fifty["tests"], paths, "{fifty}");
    assert!(fifty["paths"]["forks_cut"].as_u64() > Some(0), "{fifty}");
    assert_eq!(fifty["paths"]["cuts_reopened"], 0, "cut for good: {fifty}");
    let again = bounded("again", &["--max-forks", "50", "--jobs", "1"]);
    assert_eq!(again["paths"], fifty["paths"], "the run is deterministic");
    // Two workers count their forks together.
    let two = bounded("two", &["--max-forks", "50", "--jobs", "2"]);
    assert!((51..=66).contains(&ended(&two)), "{two}");
    // Each path went the way its model went: its test does what the
    // engine said natively.
    let o = support::mnemo()
        .arg("replay")
        .arg(d.join("quoting.c"))
        .arg(d.join("fifty"))
        .output()
        .expect("replay");
    assert!(o.status.success(), "{}", stderr(&o));
    // The trie, missing what was cut, is kept apart from a whole run's.
    let memo = d.join("mnemo-memo");
    assert!(memo.join("quoting.max-forks.trie").is_file());
    assert!(!memo.join("quoting.trie").exists());
    let o = run(&bc, &d.join("resumed"), &["--max-forks", "5", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}
