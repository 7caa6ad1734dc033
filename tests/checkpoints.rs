//! Checkpoints: runs killed with SIGKILL (as the OOM killer or a power cut
//! ends them) are resumed from their last checkpoint and end as an
//! uninterrupted run does; a run killed while its pending paths get their
//! tests after SIGTERM leaves the checkpoint taken at the signal; a run
//! stopped by a full disk keeps what it explored, and is resumed from there.

use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};
#[path = "support/programs.rs"]
#[allow(dead_code)] // Of the programs, one is run here.
mod programs;
use programs::FRESH_INPUT_LOOP;
#[path = "support/process.rs"]
mod process;
use process::{signal, wait_for, Running};

/// Twelve symbolic bytes, each compared: 4096 paths and 165 division
/// errors, each path told by its inputs (which comparisons hold) and its
/// outcome. The run lasts seconds, so that several checkpoints lie between
/// the points where the test kills it.
const TWELVE_BYTES: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned char s[12];
  klee_make_symbolic(s, sizeof s, "s");
  int c = 0;
  for (int i = 0; i < 12; i++)
    if (s[i] > 100 + i) c++;
  if (c == 9 && s[0] == 'x') return 100 / (c - 9);
  return c;
}
"#;

/// `mnemo run -q --no-runtime --output-dir OUT --memo MEMO EXTRA... BC`,
/// not waited for.
fn spawn(bc: &Path, out: &Path, memo: &Path, extra: &[&str]) -> Running {
    spawn_with(mnemo(), bc, out, memo, extra)
}

/// `spawn`, with the run stopping itself after each checkpoint (see
/// `run_to_checkpoint`).
fn spawn_stopping(bc: &Path, out: &Path, memo: &Path, extra: &[&str]) -> Running {
    let mut c = mnemo();
    c.env(mnemo::checkpoint::STOP_AT_CHECKPOINTS_ENV, "1");
    spawn_with(c, bc, out, memo, extra)
}

fn spawn_with(mut c: Command, bc: &Path, out: &Path, memo: &Path, extra: &[&str]) -> Running {
    let child = c
        .args(["run", "-q", "--no-runtime", "--output-dir"])
        .arg(out)
        .arg("--memo")
        .arg(memo)
        .args(extra)
        .arg(bc)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mnemo run starts");
    Running::new(child)
}

/// Lets `child` (from `spawn_stopping`) go on from checkpoint to checkpoint
/// until one of the `run`-th run writing `out` (counting the runs it
/// resumed) counts at least `tests` tests, and leaves it stopped there.
///
/// The run stops itself after each checkpoint, having written `tests.json`
/// and `stats.json` there, so every one is seen, however long the loaded
/// machine keeps this thread waiting. It stays stopped as long as it ran
/// since the one before: its checkpoints are timed by the clock, so they
/// come several times between two kill points.
fn run_to_checkpoint(child: &Running, out: &Path, run: u64, tests: u64) {
    let stats = out.join("stats.json");
    let mut ran = Instant::now();
    loop {
        let ended = wait_until_stopped(child) == 'Z';
        let slice = ran.elapsed();
        let s = json(&stats);
        let this_run = s["total"]["runs"] == run;
        if !ended
            && s["in_progress"] == true
            && this_run
            && s["tests"].as_u64().unwrap_or(0) >= tests
        {
            return;
        }
        assert!(
            !ended,
            "run {run} ended before a checkpoint with {tests} tests in {}: {s}",
            out.display()
        );
        std::thread::sleep(slice);
        signal(child, libc::SIGCONT);
        // Past the stop before waiting for the next one.
        while process_state(child) == 'T' {
            std::thread::sleep(Duration::from_millis(1));
        }
        ran = Instant::now();
    }
}

/// The state letter of `child` in /proc (`T` stopped, `Z` ended).
fn process_state(child: &Running) -> char {
    let stat = format!("/proc/{}/stat", child.id());
    let text = std::fs::read_to_string(&stat).expect("the child's /proc stat");
    // The state follows the command's name, which is in parentheses.
    text.rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next())
        .expect("a state in /proc stat")
}

/// Waits until `child` is stopped by a signal, or has ended; which of the
/// two (`T` or `Z`).
fn wait_until_stopped(child: &Running) -> char {
    loop {
        let state = process_state(child);
        if matches!(state, 'T' | 'Z') {
            return state;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Kills `child` with SIGKILL; it must not have ended before.
fn kill(child: Running, what: &str) {
    signal(&child, libc::SIGKILL);
    let o = child.wait_with_output();
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGKILL),
        "{what} ended before it was killed: {}",
        stderr(&o)
    );
}

/// The trie in `memo` as text, canonical, everything but the tests' inputs:
/// every node's place, choice point, end and stretch of blocks (functions
/// by name, since their numbering depends on the order paths were found).
fn trie_shape(memo: &Path, program: &str) -> Vec<String> {
    let file = mnemo::memo::trie_path(memo, program);
    let t = mnemo::memo::file::load(&file)
        .unwrap_or_else(|e| panic!("{e}"))
        .canonical();
    let name = |f: u32| t.funcs[f as usize].clone();
    let mut out = vec![format!("{:?}", t.recorded)];
    for n in &t.nodes {
        let point = n
            .point
            .as_ref()
            .map(|p| (name(p.func), p.site, p.line, p.alts.clone()));
        let stretch: Vec<(String, u32)> = n.stretch.iter().map(|&(f, b)| (name(f), b)).collect();
        out.push(format!(
            "{:?} {} {point:?} {:?} {:?} {stretch:?} test={} kept={}",
            n.parent,
            n.via,
            n.children,
            n.end,
            n.test.is_some(),
            n.kept.len()
        ));
    }
    out
}

/// The tests in `out`: for each, the comparisons its inputs make hold and
/// its outcome. Every test listed is there, no other test file is, and no
/// two tests are of the same path.
fn tests_of(out: &Path) -> BTreeSet<String> {
    let listed = json(&out.join("tests.json"));
    let listed = listed["tests"].as_array().expect("tests");
    let mut seen = BTreeSet::new();
    for t in listed {
        let file = out.join(t["ktest"].as_str().expect("ktest"));
        let k = mnemo::testgen::KTest::read(&file).unwrap_or_else(|e| panic!("{e}"));
        let s = &k.objects[0].bytes;
        let holds: String = (0..12)
            .map(|i| if s[i] > 100 + i as u8 { '1' } else { '0' })
            .collect();
        let mut outcome = t.clone();
        let o = outcome.as_object_mut().expect("a test");
        o.remove("id");
        o.remove("ktest");
        let key = format!("{holds} {outcome}");
        assert!(seen.insert(key.clone()), "two tests of one path: {key}");
    }
    let files = std::fs::read_dir(out)
        .expect("output directory")
        .filter(|e| {
            let name = e.as_ref().expect("entry").file_name();
            let name = name.to_string_lossy();
            name.starts_with("test") && name.ends_with(".ktest")
        })
        .count();
    assert_eq!(files, listed.len(), "test files not in tests.json");
    seen
}

/// What a killed run leaves for the user: tests.json and stats.json as of
/// its last checkpoint, each test listed there on disk, a trie that loads.
fn check_left_behind(out: &Path, memo: &Path) {
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["in_progress"], true, "{stats}");
    let tests = json(&out.join("tests.json"));
    let tests = tests["tests"].as_array().expect("tests");
    assert_eq!(stats["tests"].as_u64(), Some(tests.len() as u64), "{stats}");
    for t in tests {
        assert!(
            out.join(t["ktest"].as_str().expect("ktest")).exists(),
            "{t}"
        );
    }
    trie_stats(memo);
}

/// `mnemo trie stats MEMO`, which must succeed.
fn trie_stats(memo: &Path) -> String {
    let shown = mnemo()
        .args(["trie", "stats"])
        .arg(memo)
        .output()
        .expect("trie stats");
    assert!(shown.status.success(), "{}", stderr(&shown));
    String::from_utf8_lossy(&shown.stdout).into_owned()
}

#[test]
fn sigkill_at_three_points_then_resume_ends_as_an_uninterrupted_run() {
    kill_at_three_points_and_resume("1");
}

/// Two workers meet for each checkpoint: what they save is resumed as one
/// worker's checkpoints are.
#[test]
fn sigkill_at_three_points_of_two_workers_then_resume_ends_as_an_uninterrupted_run() {
    kill_at_three_points_and_resume("2");
}

/// Runs with `jobs` workers, killed at three checkpoints and resumed, end
/// as an uninterrupted run of one worker.
fn kill_at_three_points_and_resume(jobs: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "twelve", TWELVE_BYTES) else {
        return;
    };
    let (full, full_memo) = (dir.path().join("full"), dir.path().join("full-memo"));
    let o = spawn(&bc, &full, &full_memo, &["--checkpoint", "0"]).wait_with_output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole = json(&full.join("stats.json"));
    assert_eq!(whole["tests"], 4261, "{whole}");

    // Killed a fifth of the way, then twice while resuming: after more than
    // two fifths, and after more than three.
    let (out, memo) = (dir.path().join("out"), dir.path().join("memo"));
    let every = ["--checkpoint", "0.01", "--jobs", jobs];
    let resume = ["--checkpoint", "0.01", "--jobs", jobs, "--resume"];
    let first = spawn_stopping(&bc, &out, &memo, &every);
    run_to_checkpoint(&first, &out, 1, 850);
    kill(first, "the run");
    check_left_behind(&out, &memo);
    for (n, tests) in [(1, 1700), (2, 2550)] {
        let again = spawn_stopping(&bc, &out, &memo, &resume);
        run_to_checkpoint(&again, &out, n + 1, tests);
        kill(again, &format!("resume {n}"));
        check_left_behind(&out, &memo);
    }
    let o = spawn(&bc, &out, &memo, &resume).wait_with_output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let resumed = json(&out.join("stats.json"));
    assert_eq!(resumed["in_progress"], false, "{resumed}");
    assert_eq!(resumed["paths"], whole["paths"], "{resumed}");
    assert_eq!(resumed["tests"], whole["tests"], "{resumed}");
    assert_eq!(resumed["total"]["runs"], 4, "{resumed}");
    // Two workers wait for each other at each checkpoint; one never does.
    let waited = resumed["parallel"]["checkpoint_wait_s"].as_f64();
    assert_eq!(waited.map(|w| w > 0.0), Some(jobs != "1"), "{resumed}");
    assert!(
        resumed["total"]["instructions"].as_u64() > resumed["instructions"].as_u64(),
        "{resumed}"
    );
    assert_eq!(tests_of(&out), tests_of(&full));
    assert_eq!(
        trie_shape(&memo, "twelve"),
        trie_shape(&full_memo, "twelve")
    );
    // The trie is whole again: its journal is gone.
    assert!(!memo.join("twelve.trie.journal").exists());
}

#[test]
fn sigkill_while_pending_paths_get_their_tests_after_sigterm_leaves_the_checkpoint_of_the_signal() {
    kill_after_sigterm("1");
}

/// Each worker marks the paths it ends after the signal; the last saves.
#[test]
fn sigkill_after_sigterm_to_two_workers_leaves_the_checkpoint_of_the_signal() {
    kill_after_sigterm("2");
}

/// A run of `jobs` workers killed while its pending paths get their tests
/// after SIGTERM is resumed from the checkpoint taken at the signal.
fn kill_after_sigterm(jobs: &str) {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "fresh", FRESH_INPUT_LOOP) else {
        return;
    };
    let (out, memo) = (dir.path().join("out"), dir.path().join("memo"));
    // A checkpoint at the start only, then the one at the signal.
    let extra = ["--search", "dfs", "--store", "none", "--jobs", jobs];
    let child = spawn(&bc, &out, &memo, &extra);
    wait_for(&out.join("stats.json"));
    // Two seconds of `dfs` leave enough pending paths that solving for
    // each takes minutes: `timeout -k` would kill the run meanwhile.
    std::thread::sleep(Duration::from_millis(2000));
    signal(&child, libc::SIGTERM);
    let start = Instant::now();
    loop {
        let s = json(&out.join("stats.json"));
        if s["stopped_by"] == "terminated" {
            assert_eq!(s["in_progress"], true, "{s}");
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(60), "{s}");
        std::thread::sleep(Duration::from_millis(10));
    }
    kill(child, "the run stopped by SIGTERM");
    let text = trie_stats(&memo);
    let leaves = |kind: &str| -> Option<u64> {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("leaves {kind}")))
            .and_then(|n| n.trim().parse().ok())
    };
    let marked = leaves("pending").unwrap_or_else(|| panic!("no pending leaves:\n{text}"));
    assert!(marked > 100, "{text}");
    // One worker saves before any pending path ends. Of several, those that
    // marked their paths before the last one saved have gone on ending
    // them: the paths ended so far are saved as stopped by the signal.
    let ended = leaves("terminated").unwrap_or(0);
    if jobs == "1" {
        assert_eq!(ended, 0, "{text}");
    }
    let pending = marked + ended;

    // Resumed, it explores the paths pending at the signal.
    let mut resume = extra.to_vec();
    resume.extend(["--resume", "--max-time", "2"]);
    let o = spawn(&bc, &out, &memo, &resume).wait_with_output();
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(
        stats["memo"]["candidates"].as_u64(),
        Some(pending),
        "{stats}"
    );
    assert_eq!(stats["total"]["runs"], 2, "{stats}");
    assert!(stats["checkpoints"]["count"].as_u64() >= Some(2), "{stats}");
    let _: Value = json(&out.join("tests.json"));
}

/// A file system of its own, mounted on `at` (made here) for as long as it
/// lives: a disk that fills up. `None` where this process may not mount
/// one.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(at: std::path::PathBuf, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir(&at).expect("mount point");
        let o = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .output();
        match o {
            Ok(o) if o.status.success() => Some(SmallDisk(at)),
            Ok(o) => {
                eprintln!("skipped: cannot mount a file system: {}", stderr(&o));
                None
            }
            Err(e) => {
                eprintln!("skipped: cannot run mount: {e}");
                None
            }
        }
    }

    fn resize(&self, size: &str) {
        let o = std::process::Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .output()
            .expect("mount runs");
        assert!(o.status.success(), "{}", stderr(&o));
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(&self.0)
            .status();
    }
}

#[test]
fn a_full_disk_stops_the_run_keeping_what_it_explored_for_resume() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "twelve", TWELVE_BYTES) else {
        return;
    };
    let (full, full_memo) = (dir.path().join("full"), dir.path().join("full-memo"));
    let o = spawn(&bc, &full, &full_memo, &[]).wait_with_output();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole = json(&full.join("stats.json"));
    for jobs in ["1", "2"] {
        // A megabyte holds about 250 of the 4261 tests' files.
        let Some(disk) = SmallDisk::mount(dir.path().join(format!("disk-{jobs}")), "1m") else {
            return;
        };
        let out = disk.0.join("out");
        // The trie is on another disk, which has room.
        let memo = dir.path().join(format!("memo-{jobs}"));
        let o = spawn(&bc, &out, &memo, &["--jobs", jobs]).wait_with_output();
        let message = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{message}");
        assert!(message.contains("No space left on device"), "{message}");
        // The file named is one of a test's (its ktest or its report).
        assert!(
            message.contains("cannot write") && message.contains("/test0"),
            "{message}"
        );
        assert!(message.contains("--resume"), "{message}");
        // The paths explored are in the trie, and those that got no test,
        // the one whose test failed among them, are pending in it.
        let text = trie_stats(&memo);
        let count = |kind: &str| -> u64 {
            text.lines()
                .find_map(|l| l.strip_prefix(kind))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0)
        };
        assert!(count("leaves completed") > 100, "{text}");
        assert!(count("leaves write-failed") > 0, "{text}");

        disk.resize("64m");
        let o = spawn(&bc, &out, &memo, &["--jobs", jobs, "--resume"]).wait_with_output();
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let resumed = json(&out.join("stats.json"));
        assert_eq!(resumed["paths"], whole["paths"], "{resumed}");
        assert_eq!(resumed["tests"], whole["tests"], "{resumed}");
        // What the first run explored was not explored again.
        assert!(
            resumed["instructions"].as_u64() < whole["instructions"].as_u64(),
            "{resumed}"
        );
        assert_eq!(tests_of(&out), tests_of(&full));
        assert_eq!(
            trie_shape(&memo, "twelve"),
            trie_shape(&full_memo, "twelve")
        );
    }
}
