//! What a run found, compared between runs that must give one result
//! (`--jobs N`, shards): the trie as `mnemo trie show` prints it, and each
//! test's outcome and objects by number.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use mnemo::testgen::KTest;

use super::cli;

/// What a run found, in a form two runs can be compared by.
#[derive(Debug, PartialEq, Eq)]
pub struct Found {
    /// `mnemo trie show`: every choice, unsatisfiable alternative and path
    /// end, in trie order.
    pub trie: String,
    /// Each test by number: its outcome, its command line, and its
    /// objects' names and sizes.
    pub tests: Vec<String>,
}

/// `mnemo ARGS`, failing with what it printed unless it ends well.
pub fn mnemo(args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let o = cli::mnemo()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .map_err(|e| format!("cannot start mnemo: {e}"))?;
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), cli::stderr(&o));
    if o.status.success() {
        Ok(text)
    } else {
        Err(format!("`mnemo {args:?}` failed ({}):\n{text}", o.status))
    }
}

/// `mnemo replay PROG OUT -- FLAGS`: every test of `out` replayed natively,
/// the program built with the header's `cc-args`, as its bitcode was (a
/// sanitizer's checks among them).
#[allow(dead_code)] // Not every suite replays.
pub fn replay(prog: &Path, out: &Path, cc_flags: &[String]) -> Result<String, String> {
    let mut args = vec![
        "replay".as_ref(),
        prog.as_os_str(),
        out.as_os_str(),
        "--".as_ref(),
    ];
    args.extend(cc_flags.iter().map(std::ffi::OsStr::new));
    mnemo(&args)
}

/// The run's tests, one line each by number.
pub fn tests_of(mnemo_out: &Path) -> Result<Vec<String>, String> {
    let json = cli::json(&mnemo_out.join("tests.json"));
    let list = json["tests"]
        .as_array()
        .ok_or("tests.json has no array `tests`")?;
    let mut lines = Vec::new();
    for t in list {
        let mut line = format!("{} {}", t["id"], t["outcome"]);
        for k in ["kind", "line", "reason"] {
            if let Some(v) = t.get(k) {
                let _ = write!(line, " {k}={v}");
            }
        }
        let ktest = mnemo_out.join(t["ktest"].as_str().unwrap_or_default());
        let k = KTest::read(&ktest).map_err(|e| format!("{}: {e}", ktest.display()))?;
        let _ = write!(line, " | args {:?}", k.args);
        for o in &k.objects {
            let _ = write!(line, " | {} {}", o.name, o.bytes.len());
        }
        lines.push(line);
    }
    Ok(lines)
}

/// The run's tests as [`tests_of`] lists them, without their numbers,
/// sorted: runs that fork in another order (at call sites) compare equal.
#[allow(dead_code)] // Only the compositional tests compare runs so.
pub fn unnumbered_tests(mnemo_out: &Path) -> Result<Vec<String>, String> {
    let mut v: Vec<String> = tests_of(mnemo_out)?
        .into_iter()
        .map(|l| {
            l.split_once(' ')
                .map_or(l.clone(), |(_, rest)| rest.to_string())
        })
        .collect();
    v.sort();
    Ok(v)
}

/// The run's trie as `mnemo trie show` prints it.
pub fn trie_of(memo: &Path) -> Result<String, String> {
    mnemo(&["trie".as_ref(), "show".as_ref(), memo.as_os_str()])
}

pub fn found(dir: &Path, out: &str, memo: &str) -> Result<Found, String> {
    Ok(Found {
        trie: trie_of(&dir.join(memo))?,
        tests: tests_of(&dir.join(out))?,
    })
}

/// The first difference of two runs, for the failure message.
pub fn differ(what: &str, a: &Found, b: &Found) -> Result<(), String> {
    if a.trie != b.trie {
        return Err(format!(
            "{what}: the trie differs from the reference run's\n--- reference ---\n{}--- {what} ---\n{}",
            a.trie, b.trie
        ));
    }
    for (i, (x, y)) in a.tests.iter().zip(&b.tests).enumerate() {
        if x != y {
            return Err(format!(
                "{what}: test {} differs from the reference run's:\n  reference: {x}\n  {what}: {y}",
                i + 1
            ));
        }
    }
    if a.tests.len() != b.tests.len() {
        return Err(format!(
            "{what}: {} tests, the reference run wrote {}",
            b.tests.len(),
            a.tests.len()
        ));
    }
    Ok(())
}

/// The words after `key` (`name:`) in a testsuite header, if it has it.
fn header_words(source: &str, key: &str) -> Vec<String> {
    source
        .lines()
        .find_map(|l| l.split_once(key).map(|(_, a)| a))
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The header's `program-args`.
#[allow(dead_code)] // Not every test file runs POSIX programs.
pub fn program_args(source: &str) -> Vec<String> {
    header_words(source, "program-args:")
}

/// The header's `cc-args`, for `mnemo cc` after a `--`.
#[allow(dead_code)] // Not every test file compiles every program.
pub fn cc_args(source: &str) -> Vec<String> {
    header_words(source, "cc-args:")
}

/// The header's `mnemo-args`, split into the depth bound and the rest.
#[allow(dead_code)] // Not every test file reads a header.
pub fn header_args(source: &str) -> (Vec<String>, Option<u32>, Vec<String>) {
    let args = header_words(source, "mnemo-args:");
    let mut bound = None;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--max-depth" {
            bound = it.next().and_then(|n| n.parse().ok());
        } else {
            rest.push(a.clone());
        }
    }
    (args, bound, rest)
}

/// The programs of `testsuite/`, sorted.
#[allow(dead_code)] // Not every test file runs them all.
pub fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testsuite");
    let mut progs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "c"))
                .collect()
        })
        .unwrap_or_default();
    progs.sort();
    progs
}
