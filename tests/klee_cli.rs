//! `mnemo klee`: KLEE's command lines, translated and run. The tests of
//! such a run replay natively, its output goes where KLEE's goes, and the
//! options mnemo cannot honour stop it with a reason before anything is
//! made.

use std::path::Path;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, path, replays_natively, stderr};

/// One symbolic argument of two characters; the assertion fails on two
/// paths, at one place.
const TWO_WAYS_TO_FAIL: &str = r#"
#include <assert.h>
int main(int argc, char **argv) {
  if (argc < 2)
    return 0;
  int a = argv[1][0] == 'a';
  int b = argv[1][0] == 'b';
  assert(!(a || b));
  return 1;
}
"#;

/// KLEE's options as a user's script would give them: one dash and two,
/// values inline and apart, a time with units, and options mnemo has no
/// use for.
const KLEE_OPTIONS: &[&str] = &[
    "-libc=uclibc",
    "--posix-runtime",
    "--max-time=1min",
    "-search",
    "random-path",
    "--search=nurs:covnew",
    "--use-batching-search",
    "--batch-instructions=10000",
    "--max-static-fork-pct=1",
    "--watchdog",
];

fn klee(dir: &Path, extra: &[&str], bc: &Path) -> std::process::Output {
    mnemo()
        .arg("klee")
        .args(KLEE_OPTIONS)
        .args(["--store", "none", "-q"])
        .args(extra)
        .arg(bc)
        .args(["--sym-arg", "2"])
        .current_dir(dir)
        .output()
        .expect("mnemo klee")
}

fn tests_in(out: &Path) -> usize {
    json(&out.join("tests.json"))["tests"]
        .as_array()
        .map_or(0, Vec::len)
}

#[test]
fn a_klee_command_runs_into_klee_out_n_and_its_tests_replay() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bc) = compile(dir.path(), "fail", TWO_WAYS_TO_FAIL) else {
        return;
    };

    let printed = mnemo()
        .args(["klee", "--print-command"])
        .args(KLEE_OPTIONS)
        .arg("fail.bc")
        .args(["--sym-arg", "2"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(printed.status.success(), "{}", stderr(&printed));
    assert_eq!(
        String::from_utf8_lossy(&printed.stdout).trim(),
        "mnemo run --output-dir klee-out-0 --max-time 60 --search interleaved \
         --emit-all-errors=false fail.bc --sym-arg 2"
    );
    assert!(
        !dir.path().join("klee-out-0").exists(),
        "printing makes nothing"
    );

    // As KLEE, one test for the error's place, one for the path that
    // passes; the other error path is counted.
    let o = klee(dir.path(), &[], &bc);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    for noted in [
        "--use-batching-search: ignored",
        "--batch-instructions: ignored",
    ] {
        assert!(err.contains(noted), "no note `{noted}`: {err}");
    }
    assert!(!err.contains("--watchdog"), "{err}");
    let first = dir.path().join("klee-out-0");
    let stats = json(&first.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert_eq!(stats["paths"]["errors"]["assert"], 2, "{stats}");
    assert_eq!(stats["paths"]["unwritten"], 1, "{stats}");
    assert_eq!(tests_in(&first), 2);
    assert_eq!(
        std::fs::read_link(dir.path().join("klee-last")).unwrap(),
        Path::new("klee-out-0")
    );
    replays_natively(&dir.path().join("fail.c"), &first);

    // A second run takes the next directory; `--emit-all-errors` gives
    // each error path its test.
    let o = klee(dir.path(), &["--emit-all-errors"], &bc);
    assert!(o.status.success(), "{}", stderr(&o));
    let second = dir.path().join("klee-out-1");
    assert_eq!(tests_in(&second), 3);
    assert_eq!(
        std::fs::read_link(dir.path().join("klee-last")).unwrap(),
        Path::new("klee-out-1")
    );
    replays_natively(&dir.path().join("fail.c"), &second);

    // The same as `mnemo run` with the translated options.
    let plain = dir.path().join("plain");
    let o = mnemo()
        .args([
            "run",
            "-q",
            "--store",
            "none",
            "--optimize",
            "--max-time",
            "60",
        ])
        .arg("--emit-all-errors=false")
        .args(["--output-dir", path(&plain)])
        .arg(&bc)
        .args(["--sym-arg", "2"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        json(&plain.join("tests.json"))["tests"],
        json(&first.join("tests.json"))["tests"]
    );
}

#[test]
fn what_mnemo_cannot_honour_stops_the_run_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bc) = compile(dir.path(), "fail", TWO_WAYS_TO_FAIL) else {
        return;
    };
    for (options, status, says) in [
        (
            &["--write-paths"][..],
            1,
            "--write-paths is not supported: mnemo keeps every path in its trie",
        ),
        (
            &["--search=nurs:md2u"],
            1,
            "mnemo's searchers are dfs, bfs, random-path and nurs:covnew",
        ),
        (&["--max-tme=5"], 1, "unknown option `--max-tme=5`"),
        (
            &["--libc=glibc"],
            1,
            "KLEE's choices are none, klee and uclibc",
        ),
        // KLEE's option, whose value only `mnemo run` reads.
        (
            &["--exit-on-error-type=Bogus"],
            2,
            "translates to `mnemo run",
        ),
    ] {
        let o = mnemo()
            .arg("klee")
            .args(options)
            .arg(&bc)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(status), "{options:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{options:?}: {}", stderr(&o));
        assert!(
            !dir.path().join("klee-out-0").exists(),
            "{options:?} made a directory"
        );
    }
    let help = mnemo().args(["klee", "--help"]).output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(
        text.contains("--max-solver-time") && text.contains("--solver-timeout"),
        "{text}"
    );
}
