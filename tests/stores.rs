//! Solver stores under stress: shared by two processes while one is killed
//! (both saving checkpoints of one trie), and damaged between runs.

use std::path::{Path, PathBuf};
use std::process::Stdio;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};
#[path = "support/process.rs"]
mod process;
use process::{signal, wait_for, Running};

/// Twelve symbolic bytes, each compared: thousands of paths and solver
/// answers for a store.
const BYTES: &str = r#"
#include <klee/klee.h>
int main(void) {
  unsigned char s[12];
  klee_make_symbolic(s, sizeof s, "s");
  int c = 0;
  for (int i = 0; i < 12; i++)
    if (s[i] > 100 + i) c++;
  return c;
}
"#;

/// A run of at most `seconds` with the solver store `store`, saving a
/// checkpoint every 0.2 s.
fn store_run(bc: &Path, out: &Path, store: &Path, seconds: &str) -> Running {
    let child = mnemo()
        .args(["run", "-q", "--no-runtime", "--checkpoint", "0.2"])
        .args(["--max-time", seconds, "--store"])
        .arg(store)
        .arg("--output-dir")
        .arg(out)
        .arg(bc)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    Running::new(child)
}

/// Whether SQLite finds the store whole.
fn store_is_whole(path: &Path) -> bool {
    let conn = rusqlite::Connection::open(path).expect("opens");
    let check: String = conn
        .query_row("PRAGMA quick_check", [], |r| r.get(0))
        .expect("checks");
    check == "ok"
}

#[test]
fn two_processes_sharing_a_store_while_one_is_killed_leave_it_usable() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "bytes", BYTES) else {
        return;
    };
    let store = dir.path().join("shared.db");
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let killed = store_run(&bc, &a, &store, "6");
    let survivor = store_run(&bc, &b, &store, "6");
    wait_for(&a.join("test000020.ktest"));
    signal(&killed, libc::SIGKILL);
    drop(killed.wait_with_output());
    let o = survivor.wait_with_output();
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    assert!(store_is_whole(&store));
    // The killed run left its last checkpoint's statistics; the trie the two
    // wrote in turn (the same program, the same memo directory) loads.
    assert_eq!(json(&a.join("stats.json"))["in_progress"], true);
    let shown = mnemo()
        .args(["trie", "stats"])
        .arg(dir.path().join("mnemo-memo"))
        .output()
        .expect("trie stats");
    assert!(shown.status.success(), "{}", stderr(&shown));

    // A third run uses it: no warning, and answers found there.
    let c = dir.path().join("c");
    let o = store_run(&bc, &c, &store, "3").wait_with_output();
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    let stats = json(&c.join("stats.json"));
    assert_eq!(
        stats["solver"]["stores"],
        format!("file {}", store.display()),
        "{stats}"
    );
    assert!(
        stats["solver"]["hits"]["store"].as_u64().unwrap_or(0) > 0,
        "{stats}"
    );
}

/// `path` with `suffix` added to its name.
fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

#[test]
fn a_damaged_store_is_kept_aside_untouched_and_the_run_goes_on() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "bytes", BYTES) else {
        return;
    };
    let store = dir.path().join("s.db");
    let o = store_run(&bc, &dir.path().join("a"), &store, "2").wait_with_output();
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    // The run noted the state it left the file in, which spares the next
    // run the check only as long as nothing else writes to the file.
    let note = with_suffix(&store, "-checked");
    assert!(note.exists());
    // Everything into the file itself (a run leaves its last answers in
    // SQLite's journal), then garbage over the pages after the schema and
    // the meta table: SQLite opens the file, and reads of entries fail.
    rusqlite::Connection::open(&store)
        .expect("opens")
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .expect("checkpoint");
    let mut bytes = std::fs::read(&store).expect("store written");
    assert!(bytes.len() > 3 * 4096, "{} bytes", bytes.len());
    bytes[2 * 4096..2 * 4096 + 300].fill(0x5a);
    std::fs::write(&store, &bytes).expect("damaged");

    let out = dir.path().join("b");
    let o = store_run(&bc, &out, &store, "1").wait_with_output();
    let text = stderr(&o);
    assert!(matches!(o.status.code(), Some(0 | 3)), "{text}");
    let kept = with_suffix(&store, ".bad");
    assert!(text.contains(&store.display().to_string()), "{text}");
    assert!(text.contains("integrity check"), "{text}");
    assert!(text.contains(&kept.display().to_string()), "{text}");
    assert!(!note.exists(), "the note goes with the damaged file");
    // Neither read nor written.
    assert_eq!(std::fs::read(&kept).expect("kept"), bytes);
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["solver"]["stores"], "", "{stats}");
    // The next run starts a fresh store.
    let o = store_run(&bc, &dir.path().join("c"), &store, "1").wait_with_output();
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
    assert!(store_is_whole(&store));
    assert!(note.exists());
}
