//! `--jobs N` gives one result whatever N (DESIGN.md, invariant 7): for
//! every program of `testsuite/`, runs with 1, 2 and 4 workers, and
//! iterative deepening with 3, give the same trie, the same tests under
//! the same numbers with the same outcomes, and the tests of a parallel
//! run replay natively as predicted.
//!
//! A test's input bytes are the solver's choice among the inputs that
//! drive its path, and which one it makes depends on what it was asked
//! before (its caches), so on how the workers shared the run: the tests'
//! objects are compared by name and size, not by their bytes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use mnemo::testgen::KTest;

#[path = "support/cli.rs"]
mod cli;

/// The worker counts every program is run with.
const JOBS: [usize; 3] = [1, 2, 4];

/// The workers of the deepening runs.
const DEEPEN_JOBS: usize = 3;

/// What a run found, in a form two runs can be compared by.
#[derive(Debug, PartialEq, Eq)]
struct Found {
    /// `mnemo trie show`: every choice, unsatisfiable alternative and path
    /// end, in trie order.
    trie: String,
    /// Each test by number: its outcome, and its objects' names and sizes.
    tests: Vec<String>,
}

/// `mnemo ARGS`, failing with what it printed unless it ends well.
fn mnemo(args: &[&std::ffi::OsStr]) -> Result<String, String> {
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

/// The run's tests, one line each by number.
fn tests_of(mnemo_out: &Path) -> Result<Vec<String>, String> {
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
        for o in &k.objects {
            let _ = write!(line, " | {} {}", o.name, o.bytes.len());
        }
        lines.push(line);
    }
    Ok(lines)
}

/// The run's trie as `mnemo trie show` prints it.
fn trie_of(memo: &Path) -> Result<String, String> {
    mnemo(&["trie".as_ref(), "show".as_ref(), memo.as_os_str()])
}

/// `mnemo run -q --jobs N --output-dir DIR/OUT --memo DIR/MEMO ARGS BC
/// PROGRAM_ARGS`.
fn run(
    dir: &Path,
    jobs: usize,
    out: &str,
    memo: &str,
    (args, program_args): (&[String], &[String]),
) -> Result<(), String> {
    let jobs = jobs.to_string();
    let mut all: Vec<&std::ffi::OsStr> = vec![
        "run".as_ref(),
        "-q".as_ref(),
        "--jobs".as_ref(),
        jobs.as_ref(),
    ];
    let (o, m) = (dir.join(out), dir.join(memo));
    all.extend(["--output-dir".as_ref(), o.as_os_str()]);
    all.extend(["--memo".as_ref(), m.as_os_str()]);
    all.extend(args.iter().map(std::ffi::OsStr::new));
    let bc = dir.join("prog.bc");
    all.push(bc.as_os_str());
    all.extend(program_args.iter().map(std::ffi::OsStr::new));
    mnemo(&all).map(|_| ())
}

fn found(dir: &Path, out: &str, memo: &str) -> Result<Found, String> {
    Ok(Found {
        trie: trie_of(&dir.join(memo))?,
        tests: tests_of(&dir.join(out))?,
    })
}

/// The first difference of two runs, for the failure message.
fn differ(what: &str, a: &Found, b: &Found) -> Result<(), String> {
    if a.trie != b.trie {
        return Err(format!(
            "{what}: the trie differs from --jobs 1's\n--- jobs 1 ---\n{}--- {what} ---\n{}",
            a.trie, b.trie
        ));
    }
    for (i, (x, y)) in a.tests.iter().zip(&b.tests).enumerate() {
        if x != y {
            return Err(format!(
                "{what}: test {} differs from --jobs 1's:\n  jobs 1: {x}\n  {what}: {y}",
                i + 1
            ));
        }
    }
    if a.tests.len() != b.tests.len() {
        return Err(format!(
            "{what}: {} tests, --jobs 1 wrote {}",
            b.tests.len(),
            a.tests.len()
        ));
    }
    Ok(())
}

/// The header's `program-args`.
fn program_args(source: &str) -> Vec<String> {
    source
        .lines()
        .find_map(|l| l.split_once("program-args:").map(|(_, a)| a))
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default()
}

/// The header's `mnemo-args`, split into the depth bound and the rest.
fn header_args(source: &str) -> (Vec<String>, Option<u32>, Vec<String>) {
    let args: Vec<String> = source
        .lines()
        .find_map(|l| l.split_once("mnemo-args:").map(|(_, a)| a))
        .map(|a| a.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
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

fn check(prog: &Path) -> Result<(), Failed> {
    let source = std::fs::read_to_string(prog).map_err(|e| e.to_string())?;
    let (args, bound, rest) = header_args(&source);
    let program = program_args(&source);
    let tmp = tempfile::Builder::new()
        .prefix("mnemo-jobs-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let dir = tmp.path().to_path_buf();
    let result = (|| -> Result<(), String> {
        let bc = dir.join("prog.bc");
        mnemo(&[
            "cc".as_ref(),
            prog.as_os_str(),
            "-o".as_ref(),
            bc.as_os_str(),
        ])?;
        let mut one = None;
        for jobs in JOBS {
            let (out, memo) = (format!("out-{jobs}"), format!("memo-{jobs}"));
            run(&dir, jobs, &out, &memo, (&args, &program))?;
            let f = found(&dir, &out, &memo)?;
            match &one {
                None => one = Some(f),
                Some(first) => differ(&format!("--jobs {jobs}"), first, &f)?,
            }
        }
        let one = one.ok_or("no run")?;
        // Iterative deepening, both runs parallel: from half the bound (2
        // without one) to the header's.
        let mut shallow = rest.clone();
        shallow.extend([
            "--max-depth".to_string(),
            bound.map_or(2, |b| b / 2).to_string(),
        ]);
        run(
            &dir,
            DEEPEN_JOBS,
            "shallow",
            "memo-deepen",
            (&shallow, &program),
        )?;
        run(
            &dir,
            DEEPEN_JOBS,
            "deepen",
            "memo-deepen",
            (&args, &program),
        )?;
        differ(
            &format!("deepening with --jobs {DEEPEN_JOBS}"),
            &one,
            &found(&dir, "deepen", "memo-deepen")?,
        )?;
        // Replay recreates the argv, files and stdin of KLEE's POSIX
        // options, but not a `--file` host file's read-only, only-named
        // semantics.
        if !args.iter().any(|a| a == "--file") {
            let last = dir.join(format!("out-{}", JOBS[JOBS.len() - 1]));
            mnemo(&["replay".as_ref(), prog.as_os_str(), last.as_os_str()])?;
        }
        Ok(())
    })();
    result.map_err(|msg| {
        let mut tmp = tmp;
        tmp.disable_cleanup(true);
        format!("{msg}\n(kept the runs in {})", tmp.path().display()).into()
    })
}

fn programs() -> Vec<PathBuf> {
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

fn main() {
    let args = Arguments::from_args();
    let trials = programs()
        .into_iter()
        .map(|p| {
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Trial::test(format!("jobs::{name}"), move || check(&p))
        })
        .collect();
    libtest_mimic::run(&args, trials).exit();
}
