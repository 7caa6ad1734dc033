//! What the tests of native programs share: builds and runs that must
//! succeed, the replay of a run's tests, a program built without the
//! replay library, and the user a replay runs as.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::{mnemo, stderr};

/// The output of a command that must succeed: fails the test, with what
/// the command printed, where it did not.
pub fn ok(o: Output, what: &str) -> Output {
    assert!(
        o.status.success(),
        "{what} failed ({}):\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        stderr(&o)
    );
    o
}

/// Whether the test runs as root; if not, says which test is skipped.
#[allow(dead_code)] // Only the replays as another user need root.
pub fn root(why_needed: &str) -> bool {
    // SAFETY: getuid has no preconditions.
    let root = unsafe { libc::getuid() } == 0;
    if !root {
        eprintln!("skipped: {why_needed}");
    }
    root
}

/// Writes `source` as `NAME.c` in `dir`, compiles it with `mnemo cc` and
/// runs it (`mnemo run -q OPTIONS --output-dir OUT NAME.bc ARGS`): the
/// source's path and the output directory.
pub fn explored(
    dir: &Path,
    name: &str,
    source: &str,
    options: &[&str],
    args: &[&str],
) -> (PathBuf, PathBuf) {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let bc = dir.join(format!("{name}.bc"));
    ok(
        mnemo()
            .arg("cc")
            .arg(&src)
            .arg("-o")
            .arg(&bc)
            .output()
            .unwrap(),
        "mnemo cc",
    );
    let out = dir.join("out");
    ok(
        mnemo()
            .args(["run", "-q"])
            .args(options)
            .arg("--output-dir")
            .arg(&out)
            .arg(&bc)
            .args(args)
            .output()
            .unwrap(),
        "mnemo run",
    );
    (src, out)
}

/// Replays the tests in `out` of the program `src` natively, as `run_as`
/// (`None`: the caller): the report, and each test's native outcome.
pub fn replayed(
    src: &Path,
    out: &Path,
    run_as: Option<(u32, u32)>,
) -> (mnemo::testgen::ReplayReport, Vec<String>) {
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    let options = mnemo::testgen::ReplayOptions {
        run_as,
        ..Default::default()
    };
    let report = mnemo::testgen::replay_dir_with(&toolchain, src, out, &options).unwrap();
    let natives = report
        .results
        .iter()
        .map(|r| r.native.to_string())
        .collect();
    (report, natives)
}

/// `src` compiled by clang with `flags` and without the replay library, as
/// a project's own build is: the program's path, beside the source.
pub fn built_elsewhere(src: &Path, flags: &[&str]) -> PathBuf {
    let program = src.with_extension("plain");
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    ok(
        Command::new(&toolchain.clang)
            .args(flags)
            .arg(src)
            .arg("-o")
            .arg(&program)
            .output()
            .unwrap(),
        &format!("clang {flags:?}"),
    );
    program
}

/// `src` built for a replay in the model's root: statically linked, as
/// nothing in the model's file system would load a dynamic program, with
/// the replay library, which reads the input from the descriptor the
/// replay gives it. The program's path.
#[allow(dead_code)] // Only the replays in the model's root need it.
pub fn built_static_with_replay_library(src: &Path) -> PathBuf {
    let toolchain = mnemo::testgen::Toolchain::find().unwrap();
    let include = toolchain.include_dir();
    let library = toolchain.replay_library().unwrap();
    built_elsewhere(
        src,
        &[
            "-static",
            "-I",
            include.to_str().unwrap(),
            "-Wl,--whole-archive",
            library.to_str().unwrap(),
            "-Wl,--no-whole-archive",
        ],
    )
}

/// The user and group the replays that need another user run as.
#[allow(dead_code)] // Only the replays as another user need it.
pub const NOBODY: Option<(u32, u32)> = Some((65534, 65534));
