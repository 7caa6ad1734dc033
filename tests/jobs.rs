//! `--jobs N` gives one result whatever N (DESIGN.md, invariant 7): for
//! every program of `testsuite/`, runs with 1, 2 and 4 workers, with 3
//! started on partitions of a trie (`--balance trie` and `static`), and
//! iterative deepening with 3, give the same trie, the same tests under
//! the same numbers with the same outcomes, and the tests of a parallel
//! run replay natively as predicted.
//!
//! A test's input bytes are the solver's choice among the inputs that
//! drive its path, and which one it makes depends on what it was asked
//! before (its caches), so on how the workers shared the run: the tests'
//! objects are compared by name and size, not by their bytes.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/found.rs"]
mod found;
#[path = "support/trial.rs"]
mod trial;

use found::{cc_args, differ, found, header_args, mnemo, program_args, programs, replay};
use trial::{keep_on_failure, scratch};

/// The worker counts every program is run with.
const JOBS: [usize; 3] = [1, 2, 4];

/// The workers of the deepening runs.
const DEEPEN_JOBS: usize = 3;

/// The workers of the runs started from partitions of a trie.
const PARTITION_JOBS: usize = 3;

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

fn check(prog: &Path) -> Result<(), Failed> {
    let source = std::fs::read_to_string(prog).map_err(|e| e.to_string())?;
    let (args, bound, rest) = header_args(&source);
    let program = program_args(&source);
    let cc_flags = cc_args(&source);
    let tmp = scratch("mnemo-jobs-")?;
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
        // Workers started on partitions of a trie that a shallow run
        // records first, states moving on top; and the static ones.
        for balance in ["trie", "static"] {
            let mut with = args.clone();
            with.extend(["--balance".to_string(), balance.to_string()]);
            let (out, memo) = (format!("out-{balance}"), format!("memo-{balance}"));
            run(&dir, PARTITION_JOBS, &out, &memo, (&with, &program))?;
            differ(
                &format!("--jobs {PARTITION_JOBS} --balance {balance}"),
                &one,
                &found(&dir, &out, &memo)?,
            )?;
        }
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
            replay(prog, &last, &cc_flags)?;
        }
        Ok(())
    })();
    keep_on_failure(tmp, result)
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
