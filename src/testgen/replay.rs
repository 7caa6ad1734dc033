//! Native replay: run each test mnemo wrote against the program compiled
//! natively (under sanitizers, linked with `libmnemo-replay.a`) and check
//! that the program really does what the engine predicted.
//!
//! This module also owns `tests.json`, the index of a run's tests with the
//! predicted outcome of each, as CONTRACT.md specifies it.

use std::fmt;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::ktest::KTest;
use super::toolchain::{Toolchain, ToolchainError};
use crate::files::write_atomic;

/// The `version` field of the `tests.json` files mnemo writes.
pub const TESTS_JSON_VERSION: u32 = 1;

/// The file name of the test index in an output directory.
pub const TESTS_JSON: &str = "tests.json";

/// The index of a run's tests: `tests.json` in the output directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestsJson {
    pub version: u32,
    pub program: String,
    pub tests: Vec<TestRecord>,
}

/// One test: its number, its `.ktest` file (relative to the output
/// directory) and the outcome the engine predicted for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRecord {
    pub id: u32,
    pub ktest: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// How a path ended in the engine; serialized with an `"outcome"` tag
/// (`"exit"`, `"error"`, `"early"`) next to the record's other fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// The program finished; `exit_code` is what a process would report.
    Exit { exit_code: u8 },
    /// The path ended in an error of `kind` (CONTRACT.md's list).
    Error {
        kind: String,
        file: String,
        line: u32,
        message: String,
    },
    /// The run stopped the path at a limit (`max-depth`, `max-time`, ...).
    Early { reason: String },
}

/// Why replay could not run at all (a single bad test is a result instead).
#[derive(Debug, Error)]
pub enum ReplayError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: not a valid tests.json: {source}")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{path}: unsupported tests.json version {version} (mnemo reads version {TESTS_JSON_VERSION})")]
    Version { path: PathBuf, version: u32 },
}

impl TestsJson {
    /// Reads and checks `tests.json`.
    pub fn read(path: &Path) -> Result<TestsJson, ReplayError> {
        let text = fs::read_to_string(path).map_err(|source| ReplayError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let parsed: TestsJson =
            serde_json::from_str(&text).map_err(|source| ReplayError::Json {
                path: path.to_path_buf(),
                source,
            })?;
        if parsed.version != TESTS_JSON_VERSION {
            return Err(ReplayError::Version {
                path: path.to_path_buf(),
                version: parsed.version,
            });
        }
        Ok(parsed)
    }

    /// Writes the index atomically (temporary file, fsync, rename).
    pub fn write_atomic(&self, path: &Path) -> Result<(), ReplayError> {
        let io_err = |source| ReplayError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut text =
            serde_json::to_string_pretty(self).map_err(|e| io_err(std::io::Error::other(e)))?;
        text.push('\n');
        write_atomic(path, text.as_bytes()).map_err(io_err)
    }
}

/// How the native process ended, before looking at what it printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Termination {
    Exited(i32),
    Signaled(i32),
    TimedOut,
}

impl Termination {
    fn from_status(status: ExitStatus) -> Termination {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => Termination::Exited(code),
            (None, Some(sig)) => Termination::Signaled(sig),
            // Neither code nor signal cannot happen for a waited-for child
            // on Unix; report it as a failed exit rather than panicking.
            (None, None) => Termination::Exited(-1),
        }
    }
}

/// What the natively compiled program did with a test's inputs, in the
/// vocabulary of CONTRACT.md's native replay classification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NativeOutcome {
    /// Exited normally with this status and no error report.
    Exit(u8),
    /// An error of one of the contract's kinds (`assert`, `null`, ...).
    Error(&'static str),
    /// A SEGV at an address of 4096 or more: `ptr` or `readonly`.
    WildAccess,
    /// Killed by a signal the contract does not map to a kind.
    Signal(i32),
    /// A sanitizer report of a kind mnemo never predicts (its headline).
    UnknownReport(String),
    /// The replay library could not feed the test to the program (its
    /// message): wrong object sizes, too few objects, failed assumption.
    ReplayFailed(String),
    /// Still running when the time limit was reached; it was killed.
    Timeout,
}

impl fmt::Display for NativeOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NativeOutcome::Exit(code) => write!(f, "exit {code}"),
            NativeOutcome::Error(kind) => write!(f, "{kind}"),
            NativeOutcome::WildAccess => write!(f, "ptr or readonly (SEGV)"),
            NativeOutcome::Signal(sig) => write!(f, "signal {sig}"),
            NativeOutcome::UnknownReport(line) => write!(f, "unclassified report: {line}"),
            NativeOutcome::ReplayFailed(msg) => write!(f, "replay failed: {msg}"),
            NativeOutcome::Timeout => write!(f, "timeout"),
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Exit { exit_code } => write!(f, "exit {exit_code}"),
            Outcome::Error {
                kind, file, line, ..
            } => write!(f, "{kind} at {file}:{line}"),
            Outcome::Early { reason } => write!(f, "early ({reason})"),
        }
    }
}

/// The replay library's prefix for its own lines on stderr.
const MARKER: &str = "MNEMO-REPLAY: ";
/// The replay library's exit status when the test could not be replayed.
const REPLAY_FAILED_STATUS: i32 = 77;
const SIGABRT: i32 = 6;
const SIGFPE: i32 = 8;
const SIGSEGV: i32 = 11;
/// Faults below this address are null dereferences (null plus an offset).
const NULL_PAGE: u64 = 4096;

/// Maps the headline of an AddressSanitizer report (the text after
/// "ERROR: AddressSanitizer: ") to an outcome.
fn classify_asan(headline: &str) -> NativeOutcome {
    if let Some(rest) = headline.strip_prefix("SEGV on unknown address") {
        // "SEGV on unknown address 0x00000000000c (pc ...)"; a fault on a
        // non-canonical address has no address, only "(pc ...)".
        let addr = rest.trim_start().strip_prefix("0x").and_then(|hex| {
            let end = hex
                .find(|c: char| !c.is_ascii_hexdigit())
                .unwrap_or(hex.len());
            u64::from_str_radix(&hex[..end], 16).ok()
        });
        return match addr {
            Some(a) if a < NULL_PAGE => NativeOutcome::Error("null"),
            _ => NativeOutcome::WildAccess,
        };
    }
    const TABLE: &[(&str, &str)] = &[
        ("heap-use-after-free", "use-after-free"),
        ("attempting double-free", "double-free"),
        (
            "attempting free on address which was not malloc()-ed",
            "invalid-free",
        ),
        ("heap-buffer-overflow", "ptr"),
        ("stack-buffer-overflow", "ptr"),
        ("stack-buffer-underflow", "ptr"),
        ("dynamic-stack-buffer-overflow", "ptr"),
        ("global-buffer-overflow", "ptr"),
        ("stack-use-after-scope", "ptr"),
        ("stack-use-after-return", "ptr"),
        ("FPE on unknown address", "div-by-zero"),
    ];
    for (prefix, kind) in TABLE {
        if headline.starts_with(prefix) {
            return NativeOutcome::Error(kind);
        }
    }
    NativeOutcome::UnknownReport(format!("AddressSanitizer: {headline}"))
}

/// Maps the text after UBSan's "runtime error: " to an outcome.
fn classify_ubsan(message: &str) -> NativeOutcome {
    if message.starts_with("division by zero") {
        NativeOutcome::Error("div-by-zero")
    } else if message.starts_with("shift exponent") {
        NativeOutcome::Error("overshift")
    } else if message.starts_with("execution reached an unreachable program point") {
        NativeOutcome::Error("unreachable")
    } else {
        NativeOutcome::UnknownReport(format!("UBSan: {message}"))
    }
}

/// Classifies a native run from how it ended and what it wrote on stderr,
/// following CONTRACT.md. Reports only count when the process failed, so a
/// program that merely prints such text and exits 0 is an exit.
pub fn classify_native(termination: Termination, stderr: &str) -> NativeOutcome {
    let failed = match termination {
        Termination::TimedOut => return NativeOutcome::Timeout,
        Termination::Exited(code) => code != 0,
        Termination::Signaled(_) => true,
    };
    if failed {
        // The replay library prints its line last, just before exiting.
        let marker = stderr
            .lines()
            .rev()
            .filter_map(|l| l.strip_prefix(MARKER))
            .find(|m| !m.starts_with("warning:"));
        if let Some(m) = marker {
            if m.starts_with("error user") {
                return NativeOutcome::Error("user");
            }
            if m.starts_with("error reach") {
                return NativeOutcome::Error("reach");
            }
            if termination == Termination::Exited(REPLAY_FAILED_STATUS) {
                return NativeOutcome::ReplayFailed(m.to_string());
            }
        }
        for line in stderr.lines() {
            if let Some(pos) = line.find("ERROR: AddressSanitizer: ") {
                return classify_asan(&line[pos + "ERROR: AddressSanitizer: ".len()..]);
            }
            if let Some(pos) = line.find(": runtime error: ") {
                return classify_ubsan(&line[pos + ": runtime error: ".len()..]);
            }
        }
    }
    match termination {
        Termination::Signaled(SIGABRT) => {
            let asserted = stderr
                .lines()
                .any(|l| l.contains(": Assertion `") && l.trim_end().ends_with("' failed."));
            NativeOutcome::Error(if asserted { "assert" } else { "abort" })
        }
        Termination::Signaled(SIGFPE) => NativeOutcome::Error("div-by-zero"),
        Termination::Signaled(SIGSEGV) => NativeOutcome::WildAccess,
        Termination::Signaled(sig) => NativeOutcome::Signal(sig),
        // Only the low 8 bits of a status reach the parent.
        Termination::Exited(code) => NativeOutcome::Exit((code & 0xff) as u8),
        Termination::TimedOut => NativeOutcome::Timeout,
    }
}

/// The kinds CONTRACT.md lists as "not predicted": replayed but not
/// compared, since native code cannot reproduce the engine's reason.
const NOT_PREDICTED_KINDS: &[&str] = &["unsupported", "external", "solver", "bad-call"];

/// The kinds whose native counterpart the classifier can recognize.
const PREDICTED_KINDS: &[&str] = &[
    "null",
    "ptr",
    "use-after-free",
    "double-free",
    "invalid-free",
    "readonly",
    "assert",
    "abort",
    "div-by-zero",
    "overshift",
    "user",
    "reach",
    "unreachable",
];

/// How a test's native run compares with the engine's prediction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Match,
    Mismatch,
    /// The engine's outcome is one native code cannot show (early end,
    /// unsupported feature, external call, solver failure, ...).
    NotPredicted,
    /// The test could not be fed to the program (bad or missing ktest,
    /// wrong input sizes, a failed assumption): the test itself is wrong.
    ReplayFailed(String),
}

/// Compares a prediction with a native outcome.
pub fn verdict(predicted: &Outcome, native: &NativeOutcome) -> Verdict {
    let kind = match predicted {
        Outcome::Early { .. } => return Verdict::NotPredicted,
        Outcome::Error { kind, .. } => {
            if NOT_PREDICTED_KINDS.contains(&kind.as_str())
                || !PREDICTED_KINDS.contains(&kind.as_str())
            {
                return Verdict::NotPredicted;
            }
            Some(kind.as_str())
        }
        Outcome::Exit { .. } => None,
    };
    if let NativeOutcome::ReplayFailed(msg) = native {
        return Verdict::ReplayFailed(msg.clone());
    }
    let matched = match (predicted, kind, native) {
        (Outcome::Exit { exit_code }, _, NativeOutcome::Exit(code)) => exit_code == code,
        (_, Some(k), NativeOutcome::Error(n)) => k == *n,
        (_, Some(k), NativeOutcome::WildAccess) => k == "ptr" || k == "readonly",
        _ => false,
    };
    if matched {
        Verdict::Match
    } else {
        Verdict::Mismatch
    }
}

/// One replayed test.
#[derive(Clone, Debug)]
pub struct ReplayResult {
    pub id: u32,
    pub ktest: String,
    pub predicted: Outcome,
    pub native: NativeOutcome,
    pub verdict: Verdict,
    /// The end of what the program wrote on stderr, for diagnosing a
    /// mismatch.
    pub stderr: String,
}

/// The results of replaying every test of an output directory.
#[derive(Clone, Debug, Default)]
pub struct ReplayReport {
    pub results: Vec<ReplayResult>,
}

impl ReplayReport {
    /// True when no test mismatched or failed to replay; tests whose
    /// outcome is not predicted do not count against it.
    pub fn all_match(&self) -> bool {
        self.results
            .iter()
            .all(|r| matches!(r.verdict, Verdict::Match | Verdict::NotPredicted))
    }

    /// How many results have each verdict: (match, mismatch, not predicted,
    /// replay failed).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut c = (0, 0, 0, 0);
        for r in &self.results {
            match r.verdict {
                Verdict::Match => c.0 += 1,
                Verdict::Mismatch => c.1 += 1,
                Verdict::NotPredicted => c.2 += 1,
                Verdict::ReplayFailed(_) => c.3 += 1,
            }
        }
        c
    }
}

impl fmt::Display for ReplayReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.results {
            let v = match &r.verdict {
                Verdict::Match => "match".to_string(),
                Verdict::Mismatch => "MISMATCH".to_string(),
                Verdict::NotPredicted => "not predicted".to_string(),
                Verdict::ReplayFailed(m) => format!("REPLAY FAILED ({m})"),
            };
            writeln!(
                f,
                "{}: predicted {}, native {}: {v}",
                r.ktest, r.predicted, r.native
            )?;
        }
        let (m, mm, np, rf) = self.counts();
        writeln!(
            f,
            "{} tests: {m} match, {mm} mismatch, {np} not predicted, {rf} replay failed",
            self.results.len()
        )
    }
}

/// Settings of a replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// How long one test may run before it is killed.
    pub timeout: Duration,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            timeout: Duration::from_secs(10),
        }
    }
}

/// A directory removed (with its contents) when dropped.
struct TempDir {
    path: PathBuf,
}

static TEMP_DIRS: AtomicU64 = AtomicU64::new(0);

impl TempDir {
    fn new() -> std::io::Result<TempDir> {
        let base = std::env::temp_dir();
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let mut last_err = None;
        for _ in 0..16 {
            let path = base.join(format!(
                "mnemo-replay-{}-{}-{nanos}",
                std::process::id(),
                TEMP_DIRS.fetch_add(1, Ordering::Relaxed)
            ));
            match fs::create_dir(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) => last_err = Some(e),
            }
        }
        Err(last_err
            .unwrap_or_else(|| std::io::Error::other("cannot create a temporary directory")))
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// The most of a program's stderr kept: its end, where reports are.
const STDERR_KEEP: usize = 64 * 1024;

/// Runs the replay binary on one ktest file and returns how it ended and
/// the end of its stderr.
fn run_one(
    binary: &Path,
    cwd: &Path,
    ktest: &Path,
    args: &[String],
    timeout: Duration,
) -> std::io::Result<(Termination, String)> {
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env("KTEST_FILE", ktest)
        .env("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()?;
    // Drained on a thread so a chatty program cannot block on a full pipe
    // while we wait for it.
    let reader = child.stderr.take().map(|mut pipe| {
        thread::spawn(move || {
            let mut kept: Vec<u8> = Vec::new();
            let mut chunk = [0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        kept.extend_from_slice(&chunk[..n]);
                        if kept.len() > 2 * STDERR_KEEP {
                            kept.drain(..kept.len() - STDERR_KEEP);
                        }
                    }
                }
            }
            if kept.len() > STDERR_KEEP {
                kept.drain(..kept.len() - STDERR_KEEP);
            }
            String::from_utf8_lossy(&kept).into_owned()
        })
    });
    let deadline = Instant::now() + timeout;
    let termination = loop {
        if let Some(status) = child.try_wait()? {
            break Termination::from_status(status);
        }
        if Instant::now() >= deadline {
            // The child may have exited just now; either way it is reaped.
            let _ = child.kill();
            let _ = child.wait();
            break Termination::TimedOut;
        }
        thread::sleep(Duration::from_millis(5));
    };
    let stderr = reader.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok((termination, stderr))
}

/// Replays every test listed in `out_dir/tests.json` on `src` compiled
/// natively, with a 10 s limit per test.
pub fn replay_dir(
    toolchain: &Toolchain,
    src: &Path,
    out_dir: &Path,
) -> Result<ReplayReport, ReplayError> {
    replay_dir_with(toolchain, src, out_dir, &ReplayOptions::default())
}

/// [`replay_dir`] with explicit options.
pub fn replay_dir_with(
    toolchain: &Toolchain,
    src: &Path,
    out_dir: &Path,
    options: &ReplayOptions,
) -> Result<ReplayReport, ReplayError> {
    let index = TestsJson::read(&out_dir.join(TESTS_JSON))?;
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReplayError::Io { path, source }
    };
    let tmp = TempDir::new().map_err(io_err(&std::env::temp_dir()))?;
    let binary = tmp.path.join("replay-prog");
    toolchain.compile_native(src, &binary)?;
    let out_abs = std::path::absolute(out_dir).map_err(io_err(out_dir))?;

    let mut report = ReplayReport::default();
    for record in &index.tests {
        let ktest_path = out_abs.join(&record.ktest);
        let (native, stderr) = match KTest::read(&ktest_path) {
            Err(e) => (NativeOutcome::ReplayFailed(e.to_string()), String::new()),
            Ok(test) => {
                // args[0] is the program's name in the engine; the native
                // binary gets its own.
                let args = test.args.get(1..).unwrap_or(&[]);
                let (termination, stderr) =
                    run_one(&binary, &tmp.path, &ktest_path, args, options.timeout)
                        .map_err(io_err(&binary))?;
                (classify_native(termination, &stderr), stderr)
            }
        };
        report.results.push(ReplayResult {
            id: record.id,
            ktest: record.ktest.clone(),
            verdict: verdict(&record.outcome, &native),
            predicted: record.outcome.clone(),
            native,
            stderr,
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::ktest::KTestObject;

    // Real reports, captured from programs built with the native replay
    // flags (toolchain::NATIVE_FLAGS) and run with ASAN_OPTIONS as above.
    const UBSAN_DIV: &str = "ub.c:9:21: runtime error: division by zero\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:9:21 in \n";
    const UBSAN_SHIFT: &str =
        "ub.c:10:20: runtime error: shift exponent 40 is too large for 32-bit type 'int'\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:10:20 in \n";
    const UBSAN_NEG_SHIFT: &str = "ub.c:24:21: runtime error: shift exponent -1 is negative\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:24:21 in \n";
    const UBSAN_UNREACHABLE: &str =
        "ub.c:11:11: runtime error: execution reached an unreachable program point\n\
SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior ub.c:11:11 in \n";
    const ASAN_NULL: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==5458==ERROR: AddressSanitizer: SEGV on unknown address 0x00000000000c (pc 0x55a23bc012e5 bp 0x7ffd8ea1e7b0 sp 0x7ffd8ea1e5c0 T0)\n\
==5458==The signal is caused by a READ memory access.\n\
==5458==Hint: address points to the zero page.\n\
    #0 0x55a23bc012e5 in main /home/dev/ub.c:12:25\n\
\n\
AddressSanitizer can not provide additional info.\n\
SUMMARY: AddressSanitizer: SEGV /home/dev/ub.c:12:25 in main\n\
==5458==ABORTING\n";
    const ASAN_WILD_WRITE: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==5478==ERROR: AddressSanitizer: SEGV on unknown address 0x5612f22a7460 (pc 0x5612f229441b bp 0x7ffdb7a6a800 sp 0x7ffdb7a6a600 T0)\n\
==5478==The signal is caused by a WRITE memory access.\n\
    #0 0x5612f229441b in main /home/dev/ub.c:16:16\n\
SUMMARY: AddressSanitizer: SEGV /home/dev/ub.c:16:16 in main\n\
==5478==ABORTING\n";
    const ASAN_UAF: &str = "=================================================================\n\
==5463==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010 at pc 0x55837bdc9359 bp 0x7ffef837c3d0 sp 0x7ffef837c3c8\n\
READ of size 4 at 0x602000000010 thread T0\n\
    #0 0x55837bdc9358 in main /home/dev/ub.c:13:42\n";
    const ASAN_DOUBLE_FREE: &str = "=================================================================\n\
==5468==ERROR: AddressSanitizer: attempting double-free on 0x602000000010 in thread T0:\n\
    #0 0x564c0c260eb2 in free (/home/dev/ub+0xa3eb2) (BuildId: d564332142855fe236e9bce437faab407061e227)\n";
    const ASAN_STACK_FREE: &str = "=================================================================\n\
==5473==ERROR: AddressSanitizer: attempting free on address which was not malloc()-ed: 0x7ffeedc9e100 in thread T0\n\
    #0 0x556866a68eb2 in free (/home/dev/ub+0xa3eb2) (BuildId: d564332142855fe236e9bce437faab407061e227)\n";
    const ASAN_HEAP_OVERFLOW: &str = "=================================================================\n\
==5483==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc 0x55b4172884eb bp 0x7ffe27df3ab0 sp 0x7ffe27df3aa8\n\
READ of size 4 at 0x602000000018 thread T0\n";
    const ASAN_STACK_OVERFLOW: &str = "=================================================================\n\
==5488==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ffe7e003d14 at pc 0x55ab3336459e bp 0x7ffe7e003cb0 sp 0x7ffe7e003ca8\n\
READ of size 4 at 0x7ffe7e003d14 thread T0\n";
    const ASAN_FPE: &str = "AddressSanitizer:DEADLYSIGNAL\n\
=================================================================\n\
==5509==ERROR: AddressSanitizer: FPE on unknown address 0x55ef8f60581c (pc 0x55ef8f60581c bp 0x7ffd2af3f710 sp 0x7ffd2af3f520 T0)\n\
SUMMARY: AddressSanitizer: FPE /home/dev/ub.c:23:76 in main\n";
    const GLIBC_ASSERT: &str = "ub: ub.c:19: int main(int, char **): Assertion `k == 3' failed.\n";

    #[test]
    fn classifies_sanitizer_reports() {
        let e1 = Termination::Exited(1);
        assert_eq!(
            classify_native(e1, UBSAN_DIV),
            NativeOutcome::Error("div-by-zero")
        );
        assert_eq!(
            classify_native(e1, UBSAN_SHIFT),
            NativeOutcome::Error("overshift")
        );
        assert_eq!(
            classify_native(e1, UBSAN_NEG_SHIFT),
            NativeOutcome::Error("overshift")
        );
        assert_eq!(
            classify_native(e1, UBSAN_UNREACHABLE),
            NativeOutcome::Error("unreachable")
        );
        assert_eq!(classify_native(e1, ASAN_NULL), NativeOutcome::Error("null"));
        assert_eq!(
            classify_native(e1, ASAN_WILD_WRITE),
            NativeOutcome::WildAccess
        );
        assert_eq!(
            classify_native(e1, ASAN_UAF),
            NativeOutcome::Error("use-after-free")
        );
        assert_eq!(
            classify_native(e1, ASAN_DOUBLE_FREE),
            NativeOutcome::Error("double-free")
        );
        assert_eq!(
            classify_native(e1, ASAN_STACK_FREE),
            NativeOutcome::Error("invalid-free")
        );
        assert_eq!(
            classify_native(e1, ASAN_HEAP_OVERFLOW),
            NativeOutcome::Error("ptr")
        );
        assert_eq!(
            classify_native(e1, ASAN_STACK_OVERFLOW),
            NativeOutcome::Error("ptr")
        );
        assert_eq!(
            classify_native(e1, ASAN_FPE),
            NativeOutcome::Error("div-by-zero")
        );
        let odd = "==1==ERROR: AddressSanitizer: stack-overflow on address 0x7ffe\n";
        assert!(matches!(
            classify_native(e1, odd),
            NativeOutcome::UnknownReport(_)
        ));
    }

    #[test]
    fn classifies_signals_and_exits() {
        let abrt = Termination::Signaled(SIGABRT);
        assert_eq!(
            classify_native(abrt, GLIBC_ASSERT),
            NativeOutcome::Error("assert")
        );
        assert_eq!(classify_native(abrt, ""), NativeOutcome::Error("abort"));
        assert_eq!(
            classify_native(Termination::Signaled(SIGFPE), ""),
            NativeOutcome::Error("div-by-zero")
        );
        assert_eq!(
            classify_native(Termination::Signaled(SIGSEGV), ""),
            NativeOutcome::WildAccess
        );
        assert_eq!(
            classify_native(Termination::Signaled(9), ""),
            NativeOutcome::Signal(9)
        );
        assert_eq!(
            classify_native(Termination::Exited(0), ""),
            NativeOutcome::Exit(0)
        );
        assert_eq!(
            classify_native(Termination::Exited(300), ""),
            NativeOutcome::Exit(44)
        );
        assert_eq!(
            classify_native(Termination::TimedOut, ASAN_NULL),
            NativeOutcome::Timeout
        );
        // Text that only looks like a report does not count on success.
        assert_eq!(
            classify_native(Termination::Exited(0), UBSAN_DIV),
            NativeOutcome::Exit(0)
        );
        assert_eq!(
            classify_native(Termination::Exited(0), GLIBC_ASSERT),
            NativeOutcome::Exit(0)
        );
    }

    #[test]
    fn classifies_replay_library_lines() {
        let e1 = Termination::Exited(1);
        let user = "MNEMO-REPLAY: warning: w\nMNEMO-REPLAY: error user: bad input\n";
        assert_eq!(classify_native(e1, user), NativeOutcome::Error("user"));
        assert_eq!(
            classify_native(e1, "MNEMO-REPLAY: error reach\n"),
            NativeOutcome::Error("reach")
        );
        let failed = "MNEMO-REPLAY: assumption failed\n";
        assert_eq!(
            classify_native(Termination::Exited(77), failed),
            NativeOutcome::ReplayFailed("assumption failed".into())
        );
        // A program that exits 77 by itself is an ordinary exit.
        assert_eq!(
            classify_native(Termination::Exited(77), ""),
            NativeOutcome::Exit(77)
        );
    }

    fn err(kind: &str) -> Outcome {
        Outcome::Error {
            kind: kind.into(),
            file: "p.c".into(),
            line: 3,
            message: "m".into(),
        }
    }

    #[test]
    fn verdicts() {
        let exit0 = Outcome::Exit { exit_code: 0 };
        assert_eq!(verdict(&exit0, &NativeOutcome::Exit(0)), Verdict::Match);
        assert_eq!(verdict(&exit0, &NativeOutcome::Exit(1)), Verdict::Mismatch);
        assert_eq!(
            verdict(&exit0, &NativeOutcome::Error("assert")),
            Verdict::Mismatch
        );
        assert_eq!(verdict(&exit0, &NativeOutcome::Timeout), Verdict::Mismatch);
        assert_eq!(
            verdict(&err("assert"), &NativeOutcome::Error("assert")),
            Verdict::Match
        );
        assert_eq!(
            verdict(&err("assert"), &NativeOutcome::Error("abort")),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&err("ptr"), &NativeOutcome::WildAccess),
            Verdict::Match
        );
        assert_eq!(
            verdict(&err("readonly"), &NativeOutcome::WildAccess),
            Verdict::Match
        );
        assert_eq!(
            verdict(&err("null"), &NativeOutcome::WildAccess),
            Verdict::Mismatch
        );
        assert_eq!(
            verdict(&err("external"), &NativeOutcome::Exit(0)),
            Verdict::NotPredicted
        );
        assert_eq!(
            verdict(&err("solver"), &NativeOutcome::Timeout),
            Verdict::NotPredicted
        );
        let early = Outcome::Early {
            reason: "max-depth".into(),
        };
        assert_eq!(
            verdict(&early, &NativeOutcome::ReplayFailed("x".into())),
            Verdict::NotPredicted
        );
        assert_eq!(
            verdict(
                &exit0,
                &NativeOutcome::ReplayFailed("assumption failed".into())
            ),
            Verdict::ReplayFailed("assumption failed".into())
        );
    }

    #[test]
    fn tests_json_matches_the_contract() {
        let index = TestsJson {
            version: 1,
            program: "prog.bc".into(),
            tests: vec![
                TestRecord {
                    id: 1,
                    ktest: "test000001.ktest".into(),
                    outcome: Outcome::Exit { exit_code: 0 },
                },
                TestRecord {
                    id: 2,
                    ktest: "test000002.ktest".into(),
                    outcome: Outcome::Error {
                        kind: "assert".into(),
                        file: "prog.c".into(),
                        line: 23,
                        message: "...".into(),
                    },
                },
                TestRecord {
                    id: 3,
                    ktest: "test000003.ktest".into(),
                    outcome: Outcome::Early {
                        reason: "max-depth".into(),
                    },
                },
            ],
        };
        let contract = r#"{"version": 1, "program": "prog.bc", "tests": [
     {"id": 1, "ktest": "test000001.ktest", "outcome": "exit", "exit_code": 0},
     {"id": 2, "ktest": "test000002.ktest", "outcome": "error", "kind": "assert", "file": "prog.c", "line": 23, "message": "..."},
     {"id": 3, "ktest": "test000003.ktest", "outcome": "early", "reason": "max-depth"} ]}"#;
        let parsed: TestsJson = serde_json::from_str(contract).unwrap();
        assert_eq!(parsed, index);
        let as_value = serde_json::to_value(&index).unwrap();
        assert_eq!(
            as_value,
            serde_json::from_str::<serde_json::Value>(contract).unwrap()
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TESTS_JSON);
        index.write_atomic(&path).unwrap();
        assert_eq!(TestsJson::read(&path).unwrap(), index);
        fs::write(&path, r#"{"version": 2, "program": "p", "tests": []}"#).unwrap();
        assert!(matches!(
            TestsJson::read(&path),
            Err(ReplayError::Version { version: 2, .. })
        ));
        fs::write(
            &path,
            r#"{"version": 1, "program": "p", "tests": [{"id": 1}]}"#,
        )
        .unwrap();
        assert!(matches!(
            TestsJson::read(&path),
            Err(ReplayError::Json { .. })
        ));
    }

    /// The toolchain with an up-to-date runtime, built once per test process.
    fn toolchain() -> Toolchain {
        static BUILT: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
        let tc = Toolchain::find().expect("clang-14 and the runtime are needed for replay tests");
        // make rebuilds only what is out of date, so the tests never run
        // against a stale replay library.
        let built = BUILT.get_or_init(|| {
            let status = Command::new("make")
                .arg("-s")
                .arg("-C")
                .arg(&tc.runtime_dir)
                .status()
                .map_err(|e| e.to_string())?;
            if status.success() {
                Ok(())
            } else {
                Err(format!("make -C runtime failed: {status}"))
            }
        });
        if let Err(e) = built {
            panic!("cannot build the runtime: {e}");
        }
        tc
    }

    const PROGRAM: &str = r#"
#include <assert.h>
#include <klee/klee.h>

int main(int argc, char **argv) {
  int x;
  unsigned char tag;
  klee_make_symbolic(&x, sizeof x, "x");
  klee_make_symbolic(&tag, sizeof tag, "tag");
  if (argc > 1 && argv[1][0] == 'u')
    klee_report_error(__FILE__, __LINE__, "user error", "user");
  klee_assume(tag != 0);
  assert(x != 1234);
  if (x == 7)
    for (;;) {}
  return x == 5 ? 3 : 0;
}
"#;

    fn ktest(x: i32, tag: u8, args: &[&str]) -> KTest {
        KTest {
            args: args.iter().map(|a| a.to_string()).collect(),
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: vec![
                KTestObject {
                    name: "x".into(),
                    bytes: x.to_le_bytes().to_vec(),
                },
                KTestObject {
                    name: "tag".into(),
                    bytes: vec![tag],
                },
            ],
        }
    }

    #[test]
    fn replays_a_directory_natively() {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("prog.c");
        fs::write(&src, PROGRAM).unwrap();
        let out = dir.path().join("mnemo-out");
        fs::create_dir(&out).unwrap();

        let cases: Vec<(KTest, Outcome)> = vec![
            (ktest(1234, 1, &["prog.bc"]), err("assert")),
            (ktest(0, 1, &["prog.bc"]), Outcome::Exit { exit_code: 0 }),
            (ktest(5, 1, &["prog.bc"]), Outcome::Exit { exit_code: 3 }),
            // Wrong prediction: the program exits 0 here.
            (ktest(6, 1, &["prog.bc"]), err("assert")),
            // Program arguments come from the ktest.
            (ktest(0, 1, &["prog.bc", "u"]), err("user")),
            // Inputs that violate an assumption are not a valid test.
            (ktest(0, 0, &["prog.bc"]), Outcome::Exit { exit_code: 0 }),
            // A hang is cut off by the time limit.
            (ktest(7, 1, &["prog.bc"]), Outcome::Exit { exit_code: 0 }),
            // Early ends are replayed but not compared.
            (
                ktest(7, 1, &["prog.bc"]),
                Outcome::Early {
                    reason: "max-time".into(),
                },
            ),
        ];
        let mut tests = Vec::new();
        for (i, (kt, outcome)) in cases.into_iter().enumerate() {
            let name = format!("test{:06}.ktest", i + 1);
            kt.write_atomic(&out.join(&name)).unwrap();
            tests.push(TestRecord {
                id: i as u32 + 1,
                ktest: name,
                outcome,
            });
        }
        // A test whose ktest has too few objects.
        let short = KTest {
            args: vec!["prog.bc".into()],
            objects: vec![KTestObject {
                name: "x".into(),
                bytes: vec![0; 4],
            }],
            ..KTest::default()
        };
        short.write_atomic(&out.join("test000009.ktest")).unwrap();
        tests.push(TestRecord {
            id: 9,
            ktest: "test000009.ktest".into(),
            outcome: Outcome::Exit { exit_code: 0 },
        });
        TestsJson {
            version: TESTS_JSON_VERSION,
            program: "prog.bc".into(),
            tests,
        }
        .write_atomic(&out.join(TESTS_JSON))
        .unwrap();

        let options = ReplayOptions {
            timeout: Duration::from_secs(4),
        };
        let report = replay_dir_with(&tc, &src, &out, &options).unwrap();
        let got: Vec<(&NativeOutcome, &Verdict)> = report
            .results
            .iter()
            .map(|r| (&r.native, &r.verdict))
            .collect();
        assert_eq!(
            got[0],
            (&NativeOutcome::Error("assert"), &Verdict::Match),
            "{report}"
        );
        assert_eq!(
            got[1],
            (&NativeOutcome::Exit(0), &Verdict::Match),
            "{report}"
        );
        assert_eq!(
            got[2],
            (&NativeOutcome::Exit(3), &Verdict::Match),
            "{report}"
        );
        assert_eq!(
            got[3],
            (&NativeOutcome::Exit(0), &Verdict::Mismatch),
            "{report}"
        );
        assert_eq!(
            got[4],
            (&NativeOutcome::Error("user"), &Verdict::Match),
            "{report}"
        );
        assert!(
            matches!(got[5].1, Verdict::ReplayFailed(m) if m.contains("assumption")),
            "{report}"
        );
        assert_eq!(
            got[6],
            (&NativeOutcome::Timeout, &Verdict::Mismatch),
            "{report}"
        );
        assert_eq!(
            got[7],
            (&NativeOutcome::Timeout, &Verdict::NotPredicted),
            "{report}"
        );
        assert!(
            matches!(got[8].1, Verdict::ReplayFailed(m) if m.contains("only 1 object(s)")),
            "{report}"
        );
        assert!(!report.all_match());
        assert_eq!(report.counts(), (4, 2, 1, 2));
    }

    #[test]
    fn two_tests_match_and_a_wrong_prediction_does_not() {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("prog.c");
        fs::write(&src, PROGRAM).unwrap();
        let out = dir.path().join("out");
        fs::create_dir(&out).unwrap();
        ktest(1234, 1, &["prog.bc"])
            .write_atomic(&out.join("test000001.ktest"))
            .unwrap();
        ktest(1, 1, &["prog.bc"])
            .write_atomic(&out.join("test000002.ktest"))
            .unwrap();
        let mut index = TestsJson {
            version: TESTS_JSON_VERSION,
            program: "prog.bc".into(),
            tests: vec![
                TestRecord {
                    id: 1,
                    ktest: "test000001.ktest".into(),
                    outcome: err("assert"),
                },
                TestRecord {
                    id: 2,
                    ktest: "test000002.ktest".into(),
                    outcome: Outcome::Exit { exit_code: 0 },
                },
            ],
        };
        index.write_atomic(&out.join(TESTS_JSON)).unwrap();
        let report = replay_dir(&tc, &src, &out).unwrap();
        assert!(report.all_match(), "{report}");
        assert_eq!(report.counts(), (2, 0, 0, 0));

        index.tests[1].outcome = err("assert");
        index.write_atomic(&out.join(TESTS_JSON)).unwrap();
        let report = replay_dir(&tc, &src, &out).unwrap();
        assert!(!report.all_match());
        assert_eq!(report.results[1].verdict, Verdict::Mismatch);
    }

    #[test]
    fn nondet_functions_and_reach_error_replay() {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("sv.c");
        fs::write(
            &src,
            r#"
extern void reach_error(void);
extern int __VERIFIER_nondet_int(void);
extern _Bool __VERIFIER_nondet_bool(void);
extern unsigned long __VERIFIER_nondet_ulong(void);
int main(void) {
  int a = __VERIFIER_nondet_int();
  _Bool b = __VERIFIER_nondet_bool();
  unsigned long c = __VERIFIER_nondet_ulong();
  if (a == 42 && b && c == 9) reach_error();
  return 0;
}
"#,
        )
        .unwrap();
        let out = dir.path().join("out");
        fs::create_dir(&out).unwrap();
        let obj = |name: &str, bytes: Vec<u8>| KTestObject {
            name: name.into(),
            bytes,
        };
        let mk = |a: i32, c: u64| KTest {
            args: vec!["sv.bc".into()],
            objects: vec![
                obj("__VERIFIER_nondet_int", a.to_le_bytes().to_vec()),
                obj("__VERIFIER_nondet_bool", vec![1]),
                obj("__VERIFIER_nondet_ulong", c.to_le_bytes().to_vec()),
            ],
            ..KTest::default()
        };
        mk(42, 9)
            .write_atomic(&out.join("test000001.ktest"))
            .unwrap();
        mk(42, 8)
            .write_atomic(&out.join("test000002.ktest"))
            .unwrap();
        TestsJson {
            version: TESTS_JSON_VERSION,
            program: "sv.bc".into(),
            tests: vec![
                TestRecord {
                    id: 1,
                    ktest: "test000001.ktest".into(),
                    outcome: err("reach"),
                },
                TestRecord {
                    id: 2,
                    ktest: "test000002.ktest".into(),
                    outcome: Outcome::Exit { exit_code: 0 },
                },
            ],
        }
        .write_atomic(&out.join(TESTS_JSON))
        .unwrap();
        let report = replay_dir(&tc, &src, &out).unwrap();
        assert!(report.all_match(), "{report}");
        assert_eq!(report.results[0].native, NativeOutcome::Error("reach"));
    }

    #[test]
    fn missing_index_is_an_error() {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let e = replay_dir(&tc, &dir.path().join("p.c"), dir.path()).unwrap_err();
        assert!(e.to_string().contains("tests.json"), "{e}");
    }
}
