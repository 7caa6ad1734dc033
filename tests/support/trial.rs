//! What the tests that run one trial per testsuite program share: a
//! scratch directory per trial, kept and named when the trial fails.

use libtest_mimic::Failed;

/// A trial's temporary directory.
pub fn scratch(prefix: &str) -> Result<tempfile::TempDir, String> {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))
}

/// A trial's verdict; on failure its temporary directory is kept, and
/// named, as evidence for whoever reads the failure.
pub fn keep_on_failure(
    mut tmp: tempfile::TempDir,
    result: Result<(), String>,
) -> Result<(), Failed> {
    result.map_err(|msg| {
        tmp.disable_cleanup(true);
        format!("{msg}\n(kept the runs in {})", tmp.path().display()).into()
    })
}
