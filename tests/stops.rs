//! Runs that end before they are done, and what they leave: SIGTERM, SIGHUP
//! and a second signal.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

#[path = "support/cli.rs"]
mod support;
use support::{compile, mnemo, stderr};
#[path = "support/programs.rs"]
mod programs;
use programs::{FRESH_INPUT_LOOP, SPIN};
#[path = "support/process.rs"]
mod process;
use process::{json, signal, wait_for, Running};

/// `mnemo run -q --no-runtime --output-dir OUT EXTRA... BC`, not waited for.
fn spawn(bc: &Path, out: &Path, extra: &[&str]) -> Running {
    let child = mnemo()
        .args(["run", "-q", "--no-runtime", "--output-dir"])
        .arg(out)
        .args(extra)
        .arg(bc)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mnemo run starts");
    Running::new(child)
}

#[test]
fn sigterm_leaves_a_loadable_trie_and_stats_and_resume_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "spin", SPIN) else {
        return;
    };
    let memo = dir.path().join("memo");
    let out = dir.path().join("out");
    let bound = ["--max-depth", "400", "--memo"];
    let child = mnemo()
        .args(["run", "-q", "--no-runtime", "--output-dir"])
        .arg(&out)
        .args(bound)
        .arg(&memo)
        .arg(&bc)
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let child = Running::new(child);
    wait_for(&out.join("test000003.ktest"));
    signal(&child, libc::SIGTERM);
    let o = child.wait_with_output();
    // 128 + SIGTERM, as a shell reports a process SIGTERM ended.
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["stopped_by"], "terminated", "{stats}");
    let early = stats["paths"]["early"]["terminated"].as_u64().unwrap_or(0);
    assert!(early >= 1, "{stats}");
    let tests = json(&out.join("tests.json"))["tests"]
        .as_array()
        .expect("tests")
        .len() as u64;
    assert_eq!(tests, stats["tests"].as_u64().unwrap(), "{stats}");
    let shown = mnemo()
        .args(["trie", "stats"])
        .arg(&memo)
        .output()
        .expect("trie stats");
    assert!(shown.status.success(), "{}", stderr(&shown));

    // The stopped run goes on where it stopped and ends as a whole run.
    let o = mnemo()
        .args(["run", "-q", "--no-runtime", "--resume", "--output-dir"])
        .arg(&out)
        .arg("--memo")
        .arg(&memo)
        .arg(&bc)
        .output()
        .expect("resume");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let resumed = json(&out.join("stats.json"));
    assert_eq!(resumed["paths"]["completed"], 400, "{resumed}");
    assert_eq!(resumed["paths"]["early"]["max-depth"], 1, "{resumed}");
    assert_eq!(resumed["tests"], 401, "{resumed}");
}

#[test]
fn sighup_stops_a_run_as_sigterm_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "spin", SPIN) else {
        return;
    };
    let out = dir.path().join("out");
    let child = spawn(&bc, &out, &[]);
    wait_for(&out.join("test000002.ktest"));
    signal(&child, libc::SIGHUP);
    let o = child.wait_with_output();
    assert_eq!(o.status.code(), Some(129), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert!(
        stats["paths"]["early"]["terminated"].as_u64().unwrap_or(0) >= 1,
        "{stats}"
    );
    assert!(out
        .parent()
        .expect("dir")
        .join("mnemo-memo/spin.trie")
        .exists());
}

#[test]
fn a_second_signal_ends_the_run_at_once_and_still_writes_the_trie() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "fresh", FRESH_INPUT_LOOP) else {
        return;
    };
    let out = dir.path().join("out");
    let child = spawn(&bc, &out, &["--search", "dfs", "--store", "none"]);
    // Two seconds of `dfs` leave enough pending paths that solving for
    // each takes minutes.
    wait_for(&out);
    std::thread::sleep(Duration::from_millis(2000));
    signal(&child, libc::SIGTERM);
    std::thread::sleep(Duration::from_millis(300));
    let second = Instant::now();
    signal(&child, libc::SIGINT);
    let o = child.wait_with_output();
    let took = second.elapsed();
    assert!(took < Duration::from_secs(10), "{took:?}: {}", stderr(&o));
    // The first signal names the reason and the exit status.
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert!(
        stats["paths"]["untested"].as_u64().unwrap() > 0,
        "the pending paths were all solved: {stats}"
    );
    let trie = dir.path().join("mnemo-memo").join("fresh.trie");
    let shown = mnemo()
        .args(["trie", "stats"])
        .arg(&trie)
        .output()
        .expect("trie stats");
    assert!(shown.status.success(), "{}", stderr(&shown));
}
