//! The coverage of a tool's replays: gcov data merged across tests and
//! read back through gcovr's summary.

use anyhow::Context;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Merges the coverage data of each test's directory in `per_test` (each
/// mirroring the gcov tree's absolute path) into `gcda`, with gcc's
/// `gcov-tool`, and removes them.
pub(crate) fn merge_coverage(per_test: &Path, gcda: &Path) -> anyhow::Result<()> {
    if gcda.exists() {
        std::fs::remove_dir_all(gcda)?;
    }
    if !per_test.exists() {
        return Ok(());
    }
    let mut tests: Vec<PathBuf> = std::fs::read_dir(per_test)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    tests.sort();
    let merged = per_test.with_extension("merged");
    for test in tests {
        if !gcda.exists() {
            std::fs::rename(&test, gcda)?;
            continue;
        }
        let status = std::process::Command::new("gcov-tool")
            .arg("merge")
            .arg(gcda)
            .arg(&test)
            .arg("-o")
            .arg(&merged)
            .status()
            .context("gcov-tool (gcc's), to merge the tests' coverage data")?;
        anyhow::ensure!(
            status.success(),
            "gcov-tool merge {}: {status}",
            test.display()
        );
        std::fs::remove_dir_all(gcda)?;
        std::fs::rename(&merged, gcda)?;
    }
    std::fs::remove_dir_all(per_test)?;
    Ok(())
}

/// Copies gcov's notes beside every data file replays wrote under
/// `gcda` (which mirrors the gcov tree's absolute path), so gcovr reads
/// them as a build directory.
pub(crate) fn pair_notes(gcda: &Path, dir: &Path) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            pair_notes(gcda, &path)?;
        } else if path.extension().is_some_and(|x| x == "gcda") {
            let original = Path::new("/").join(path.strip_prefix(gcda)?);
            std::fs::copy(original.with_extension("gcno"), path.with_extension("gcno"))?;
        }
    }
    Ok(())
}

/// (covered, total) over the files of gcovr's summary whose names start
/// with one of `prefixes`.
pub(crate) fn lines_under(summary: &Value, prefixes: &[&str]) -> (u64, u64) {
    summary["files"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| {
            f["filename"]
                .as_str()
                .is_some_and(|n| prefixes.iter().any(|p| n.starts_with(p)))
        })
        .fold((0, 0), |(c, t), f| {
            (
                c + f["line_covered"].as_u64().unwrap_or(0),
                t + f["line_total"].as_u64().unwrap_or(0),
            )
        })
}

/// `covered` as a percentage of `total` (0 where there is nothing).
pub(crate) fn pct(covered: u64, total: u64) -> f64 {
    100.0 * covered as f64 / total.max(1) as f64
}
