//! What the command-line tests share: `mnemo` with solver stores kept in
//! memory (no test touches the user's store), and C compiled by `mnemo cc`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// `mnemo`, with solver stores in memory unless a test names one, and one
/// worker unless a test asks for more: these tests compare inputs, exit
/// statuses and solver calls from run to run, and with several workers
/// the solver's caches, and so the inputs it picks and the queries that
/// get past them, depend on how the workers shared the run (the paths,
/// their outcomes and numbering do not: `tests/jobs.rs`).
pub fn mnemo() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_mnemo"));
    c.env("MNEMO_STORE", "memory");
    c.env("MNEMO_JOBS", "1");
    c
}

/// A JSON file a run wrote (`stats.json`, `tests.json`).
#[allow(dead_code)] // Not every test file reads a run's JSON.
pub fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} is not there: {e}", path.display()));
    serde_json::from_str(&text).expect("valid json")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Compiles C source to bitcode with `mnemo cc`, or `None` without clang-14.
#[allow(dead_code)] // Not every test file compiles its own C.
pub fn compile(dir: &Path, name: &str, source: &str) -> Option<PathBuf> {
    compile_with(dir, name, source, &[])
}

/// [`compile`] with more flags for clang (`-O2`), after `mnemo cc`'s own.
#[allow(dead_code)] // Not every test file compiles its own C.
pub fn compile_with(dir: &Path, name: &str, source: &str, clang: &[&str]) -> Option<PathBuf> {
    let c = dir.join(format!("{name}.c"));
    std::fs::write(&c, source).expect("write source");
    let bc = dir.join(format!("{name}.bc"));
    let o = mnemo()
        .arg("cc")
        .arg(&c)
        .arg("-o")
        .arg(&bc)
        .arg("--")
        .args(clang)
        .output()
        .expect("mnemo cc runs");
    if !o.status.success() {
        let msg = stderr(&o);
        assert!(msg.contains("clang"), "mnemo cc failed: {msg}");
        eprintln!("skipped: {msg}");
        return None;
    }
    Some(bc)
}

/// `mnemo run -q` of `bc` without the C library, its output in `out`.
#[allow(dead_code)] // Not every test file runs bare bitcode.
pub fn run(bc: &Path, out: &Path, extra: &[&str]) -> Output {
    mnemo()
        .arg("run")
        .arg("-q")
        .arg("--no-runtime")
        .arg("--output-dir")
        .arg(out)
        .args(extra)
        .arg(bc)
        .output()
        .expect("mnemo run")
}

/// `mnemo run -q --store none` of `bc` with the C library, which must
/// succeed: its `stats.json`.
#[allow(dead_code)] // Not every test file links the C library.
pub fn run_linked(bc: &Path, out: &Path, extra: &[&str]) -> serde_json::Value {
    let o = mnemo()
        .args(["run", "-q", "--store", "none", "--output-dir", path(out)])
        .args(extra)
        .arg(bc)
        .output()
        .expect("mnemo run");
    assert!(o.status.success(), "{}", stderr(&o));
    json(&out.join("stats.json"))
}

/// [`run`], which must end with 0 (done) or 3 (stopped as at a limit):
/// its exit status, `stats.json` and what it printed.
#[allow(dead_code)] // Not every test file stops its runs.
pub fn run_ended(
    bc: &Path,
    out: &Path,
    extra: &[&str],
) -> (Option<i32>, serde_json::Value, String) {
    let o = run(bc, out, extra);
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "mnemo run failed: {}",
        stderr(&o)
    );
    (o.status.code(), json(&out.join("stats.json")), stderr(&o))
}

/// The paths `stats.json` counts under `paths.MAP.KEY` (`errors`,
/// `assert`), 0 where it has none.
#[allow(dead_code)] // Not every test file counts paths by kind.
pub fn path_count(stats: &serde_json::Value, map: &str, key: &str) -> u64 {
    stats["paths"][map][key].as_u64().unwrap_or(0)
}

/// A path as a command-line argument.
#[allow(dead_code)] // Not every test file passes paths as options.
pub fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// `mnemo run -q --memo MEMO --output-dir OUT EXTRA... BC`, which must
/// succeed: what it printed and its `stats.json`.
#[allow(dead_code)] // Not every test file keeps a trie.
pub fn run_memo(bc: &Path, memo: &Path, out: &Path, extra: &[&str]) -> (Output, serde_json::Value) {
    let o = mnemo()
        .args(["run", "-q", "--memo"])
        .arg(memo)
        .arg("--output-dir")
        .arg(out)
        .args(extra)
        .arg(bc)
        .output()
        .expect("mnemo run");
    assert!(o.status.success(), "{}", stderr(&o));
    (o, json(&out.join("stats.json")))
}

/// `mnemo trie show` of a trie file or a memo directory.
#[allow(dead_code)] // Not every test file keeps a trie.
pub fn trie_text(memo: &Path) -> String {
    let o = mnemo()
        .arg("trie")
        .arg("show")
        .arg(memo)
        .output()
        .expect("trie show");
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Replays every test of `out` natively, the program built from `source`;
/// fails with replay's report unless each does what the engine said.
#[allow(dead_code)] // Not every test file replays.
pub fn replays_natively(source: &Path, out: &Path) {
    let o = mnemo()
        .arg("replay")
        .arg(source)
        .arg(out)
        .output()
        .expect("replay");
    assert!(
        o.status.success(),
        "{}{}",
        stderr(&o),
        String::from_utf8_lossy(&o.stdout)
    );
}

/// Resumes the run of `bc` in `out` from `memo` with no more options: it
/// must end as `whole`, the run that explored everything at once (its
/// stats and its memo), did: nothing left, the same paths, the same trie.
#[allow(dead_code)] // Not every test file resumes.
pub fn resume_ends_as_whole(
    bc: &Path,
    out: &Path,
    memo: &Path,
    (whole, whole_memo): (&serde_json::Value, &Path),
) {
    let (code, rest, _) = run_ended(bc, out, &["--memo", path(memo), "--resume"]);
    assert_eq!(code, Some(0), "{rest}");
    assert!(rest["stopped_by"].is_null(), "{rest}");
    assert_eq!(rest["paths"], whole["paths"]);
    assert_eq!(trie_text(memo), trie_text(whole_memo));
}
