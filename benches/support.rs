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
