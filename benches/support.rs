//! What the benchmarks share: the section named on the command line and
//! where their results go.

use std::path::PathBuf;

use serde_json::Value;

/// Whether `mnemo run` ended as it should: everything explored (0), or
/// stopped at a limit such as the benchmarks' `--max-time` (3).
#[allow(dead_code)] // Not every benchmark runs mnemo as a process.
pub fn ran(status: &std::process::ExitStatus) -> bool {
    matches!(status.code(), Some(0 | 3))
}

/// The section `cargo bench --bench NAME -- SECTION` asks for, if any.
#[allow(dead_code)] // Not every benchmark has sections.
pub fn section() -> Option<String> {
    std::env::args().nth(1).filter(|a| !a.starts_with('-'))
}

/// Writes the results into `bench-results/NAME.json`, or `NAME-SECTION.json`
/// for one section.
pub fn write_results(
    name: &str,
    section: &Option<String>,
    results: &[Value],
) -> anyhow::Result<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("bench-results");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(match section {
        Some(s) => format!("{name}-{s}.json"),
        None => format!("{name}.json"),
    });
    std::fs::write(&path, serde_json::to_string_pretty(results)?)?;
    println!("\nwritten: {}", path.display());
    Ok(())
}

/// A scratch directory for runs that write tests, in memory where the
/// machine has a memory file system. On a disk, what writing tens of
/// thousands of small files costs depends on the file system's state (what
/// the run before deleted) by more than the engine's whole time: one
/// worker's run of a subject took 5 s, then 9.7 s; two workers' ran slower
/// than one. In memory, the engine is what is measured.
#[allow(dead_code)] // Not every benchmark writes tests.
pub fn scratch() -> std::io::Result<tempfile::TempDir> {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        tempfile::tempdir_in(shm)
    } else {
        tempfile::tempdir()
    }
}

/// Runs `cmd`; its output, or an error naming `what` with what it printed
/// when it fails.
#[allow(dead_code)] // Not every benchmark runs other tools.
pub fn command(
    cmd: &mut std::process::Command,
    what: &str,
) -> anyhow::Result<std::process::Output> {
    use anyhow::Context;
    let out = cmd
        .output()
        .with_context(|| format!("cannot start {what}"))?;
    if !out.status.success() {
        anyhow::bail!(
            "{what} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out)
}

/// gcovr's JSON summary of the gcov data under `search` (sources named
/// relative to `root`), read with `gcov` (`"llvm-cov-14 gcov"` for clang's
/// data); `extra` asks for more reports (`--html-details FILE`).
#[allow(dead_code)] // Not every benchmark measures coverage.
pub fn gcovr_summary(
    root: &std::path::Path,
    search: &std::path::Path,
    gcov: &str,
    extra: &[&std::ffi::OsStr],
) -> anyhow::Result<Value> {
    use anyhow::Context;
    let report = command(
        std::process::Command::new("gcovr")
            .current_dir(search)
            .args(["--gcov-executable", gcov, "--json-summary", "-", "-r"])
            .arg(root)
            .args(extra)
            .arg(search),
        "gcovr",
    )?;
    serde_json::from_slice(&report.stdout).context("gcovr's summary")
}

/// (lines covered, lines) of the file of gcovr's `summary` whose name ends
/// with `name`, if it has one.
#[allow(dead_code)] // Not every benchmark measures coverage.
pub fn file_lines(summary: &Value, name: &str) -> Option<(u64, u64)> {
    let file = summary["files"]
        .as_array()?
        .iter()
        .find(|f| f["filename"].as_str().is_some_and(|n| n.ends_with(name)))?;
    Some((
        file["line_covered"].as_u64().unwrap_or(0),
        file["line_total"].as_u64().unwrap_or(0),
    ))
}

/// The hard cases users write (nonlinear arithmetic, memory at symbolic
/// indices, loops on fresh input, string code): each C file of
/// `benches/programs/hard/` by name (`.c` included), with its source, in
/// order of name.
#[allow(dead_code)] // Not every benchmark compares on them.
pub fn hard_programs() -> anyhow::Result<Vec<(String, String)>> {
    c_programs("hard")
}

/// Each C file of `benches/programs/DIR/` by name (`.c` included), with
/// its source, in order of name.
#[allow(dead_code)] // Not every benchmark has programs of its own.
pub fn c_programs(dir: &str) -> anyhow::Result<Vec<(String, String)>> {
    use anyhow::Context;
    let programs = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches/programs")
        .join(dir);
    let mut paths: Vec<_> = std::fs::read_dir(&programs)
        .with_context(|| format!("cannot read {}", programs.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "c"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let name = p.file_name().unwrap_or_default().to_string_lossy();
        out.push((name.into_owned(), std::fs::read_to_string(&p)?));
    }
    Ok(out)
}
