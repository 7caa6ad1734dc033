//! Native replay: run each test mnemo wrote against the program compiled
//! natively (under sanitizers, linked with `libmnemo-replay.a`) in the
//! environment the test describes (arguments, symbolic files in a scratch
//! working directory, stdin), and check that the program really does what
//! the engine predicted: its outcome and, where the run recorded it
//! (`testNNNNNN.stdout`), what it wrote on standard output.

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io::{Read, Write};
use std::os::unix::ffi::OsStringExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use thiserror::Error;

use super::classify::{classify_native, verdict, NativeOutcome, Termination, Verdict};
use super::index::{Outcome, TestsJson, TESTS_JSON};
use super::ktest::KTest;
use super::posix::PosixEnv;
use super::toolchain::{is_native_program, Toolchain, ToolchainError};

/// The environment variable telling the replay library how many leading
/// objects of the test describe the POSIX environment, so that the
/// program's own `klee_make_symbolic` and `__VERIFIER_nondet_*` calls start
/// after them.
pub const POSIX_OBJECTS_ENV: &str = "MNEMO_POSIX_OBJECTS";

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
    #[error(
        "{path}: unsupported tests.json version {version} (mnemo reads version {})",
        super::index::TESTS_JSON_VERSION
    )]
    Version { path: PathBuf, version: u32 },
}

/// A closure making a [`ReplayError::Io`] for `path`.
pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ReplayError {
    let path = path.to_path_buf();
    move |source| ReplayError::Io { path, source }
}

/// One replayed test.
#[derive(Clone, Debug)]
pub struct ReplayResult {
    pub id: u32,
    pub ktest: String,
    pub predicted: Outcome,
    pub native: NativeOutcome,
    pub verdict: Verdict,
    /// A short diff when the recorded stdout differs from the native one
    /// (the verdict is then a mismatch).
    pub stdout_diff: Option<String>,
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
            let v = match (&r.verdict, &r.stdout_diff) {
                (Verdict::Match, _) => "match".to_string(),
                (Verdict::Mismatch, Some(_)) => "MISMATCH (stdout differs)".to_string(),
                (Verdict::Mismatch, None) => "MISMATCH".to_string(),
                (Verdict::NotPredicted, _) => "not predicted".to_string(),
                (Verdict::ReplayFailed(m), _) => format!("REPLAY FAILED ({m})"),
            };
            writeln!(
                f,
                "{}: predicted {}, native {}: {v}",
                r.ktest, r.predicted, r.native
            )?;
            if let Some(diff) = &r.stdout_diff {
                for line in diff.lines() {
                    writeln!(f, "    {line}")?;
                }
            }
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
    /// More environment for the program (for instance `GCOV_PREFIX`, so
    /// that replays side by side keep their coverage data apart).
    pub env: Vec<(OsString, OsString)>,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            timeout: Duration::from_secs(10),
            env: Vec::new(),
        }
    }
}

/// The most of a program's stderr kept: its end, where reports are.
const STDERR_KEEP: usize = 64 * 1024;
/// The most of a program's stdout kept: its start, for the comparison.
const STDOUT_KEEP: usize = 16 << 20;

/// What one native run gets: its command line, directory and input.
struct NativeRun<'a> {
    binary: &'a Path,
    /// argv[0] as the engine gave it (the test's first recorded argument).
    arg0: OsString,
    args: Vec<OsString>,
    cwd: &'a Path,
    ktest: &'a Path,
    posix_objects: usize,
    stdin: Stdin,
    env: &'a [(OsString, OsString)],
}

/// Where a native run's stdin comes from.
enum Stdin {
    /// Nothing: the program reads end of file at once.
    Empty,
    /// These bytes, through a pipe.
    Pipe(Vec<u8>),
    /// These bytes, typed into a terminal.
    Terminal(Vec<u8>),
}

/// How long a terminal stays open after its bytes are written: a program
/// reading past them then sees the terminal hang up, its end of input
/// (klee-replay waits likewise before closing its terminal).
const TERMINAL_LINGER: Duration = Duration::from_secs(1);

/// How a native run ended, with what it wrote.
struct NativeResult {
    termination: Termination,
    /// The end of stderr.
    stderr: String,
    /// The start of stdout, and how many bytes it had in all.
    stdout: Vec<u8>,
    stdout_len: usize,
}

/// Reads a pipe to its end on a thread (so a chatty program cannot block on
/// a full pipe while we wait for it), keeping what `keep` selects.
fn drain<R: Read + Send + 'static>(
    mut pipe: R,
    keep: fn(&mut Vec<u8>, &[u8]),
) -> thread::JoinHandle<(Vec<u8>, usize)> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut total = 0;
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n;
                    keep(&mut kept, &chunk[..n]);
                }
            }
        }
        (kept, total)
    })
}

fn keep_end(kept: &mut Vec<u8>, chunk: &[u8]) {
    kept.extend_from_slice(chunk);
    if kept.len() > 2 * STDERR_KEEP {
        kept.drain(..kept.len() - STDERR_KEEP);
    }
}

fn keep_start(kept: &mut Vec<u8>, chunk: &[u8]) {
    let room = STDOUT_KEEP.saturating_sub(kept.len());
    kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
}

/// Runs the replay binary once and waits for it, up to `timeout`.
fn run_one(run: NativeRun<'_>, timeout: Duration) -> std::io::Result<NativeResult> {
    let (stdin, feed, terminal) = match run.stdin {
        Stdin::Empty => (Stdio::null(), None, None),
        Stdin::Pipe(bytes) => (Stdio::piped(), Some(bytes), None),
        Stdin::Terminal(bytes) => {
            let pty = super::pty::open_raw()?;
            (Stdio::from(pty.slave), Some(bytes), Some(pty.master))
        }
    };
    let mut child = Command::new(run.binary)
        .arg0(&run.arg0)
        .args(&run.args)
        .current_dir(run.cwd)
        .env("KTEST_FILE", run.ktest)
        .env(POSIX_OBJECTS_ENV, run.posix_objects.to_string())
        .env("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=0")
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    let exited = Arc::new(AtomicBool::new(false));
    let linger = if terminal.is_some() {
        TERMINAL_LINGER
    } else {
        Duration::ZERO
    };
    // A program that stops reading early closes the pipe: the write error
    // that follows is expected, not a failure of the replay.
    let sink: Option<Box<dyn Write + Send>> = match terminal {
        Some(master) => Some(Box::new(master)),
        None => child
            .stdin
            .take()
            .map(|p| Box::new(p) as Box<dyn Write + Send>),
    };
    let feeder = sink.zip(feed).map(|(mut sink, bytes)| {
        let exited = Arc::clone(&exited);
        thread::spawn(move || {
            let _ = sink.write_all(&bytes);
            let until = Instant::now() + linger;
            while !exited.load(Ordering::Relaxed) && Instant::now() < until {
                thread::sleep(Duration::from_millis(5));
            }
        })
    });
    let stderr = child.stderr.take().map(|p| drain(p, keep_end));
    let stdout = child.stdout.take().map(|p| drain(p, keep_start));
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
    exited.store(true, Ordering::Relaxed);
    if let Some(h) = feeder {
        let _ = h.join();
    }
    let (mut err, _) = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    if err.len() > STDERR_KEEP {
        err.drain(..err.len() - STDERR_KEEP);
    }
    let (stdout, stdout_len) = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(NativeResult {
        termination,
        stderr: String::from_utf8_lossy(&err).into_owned(),
        stdout,
        stdout_len,
    })
}

/// A short description of how `got` (the start of `got_len` bytes) differs
/// from `expected`, or `None` when they are equal: the first differing
/// line of each, escaped.
pub fn stdout_diff(expected: &[u8], got: &[u8], got_len: usize) -> Option<String> {
    if expected == got && got.len() == got_len {
        return None;
    }
    let at = expected
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(expected.len().min(got.len()));
    let line_start = expected[..at]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let line_no = expected[..line_start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    let line_of = |bytes: &[u8]| -> String {
        let rest = bytes.get(line_start..).unwrap_or(&[]);
        let end = rest
            .iter()
            .position(|&b| b == b'\n')
            .map_or(rest.len(), |p| p + 1);
        let shown = &rest[..end.min(200)];
        let more = if end > shown.len() { "..." } else { "" };
        if rest.is_empty() {
            "(end of output)".to_string()
        } else {
            format!("\"{}\"{more}", shown.escape_ascii())
        }
    };
    Some(format!(
        "stdout differs at byte {at} (line {line_no}): expected {} bytes, got {got_len}\n\
         - expected: {}\n\
         + native:   {}",
        expected.len(),
        line_of(expected),
        line_of(got)
    ))
}

/// Replays every test listed in `out_dir/tests.json` on `src` compiled
/// natively (or on `src` itself when it is a native program), with a 10 s
/// limit per test.
pub fn replay_dir(
    toolchain: &Toolchain,
    src: &Path,
    out_dir: &Path,
) -> Result<ReplayReport, ReplayError> {
    replay_dir_with(toolchain, src, out_dir, &ReplayOptions::default())
}

/// Recreates one test's environment in a fresh scratch directory, runs the
/// program there and classifies the result. A test that cannot be fed to
/// the program is a `ReplayFailed` outcome; only a failure of this machine
/// (spawning, a temporary directory) is an error.
fn replay_one(
    binary: &Path,
    ktest_path: &Path,
    options: &ReplayOptions,
) -> Result<(NativeOutcome, NativeResult), ReplayError> {
    let failed = |msg: String| {
        let result = NativeResult {
            termination: Termination::Exited(0),
            stderr: String::new(),
            stdout: Vec::new(),
            stdout_len: 0,
        };
        Ok((NativeOutcome::ReplayFailed(msg), result))
    };
    let test = match KTest::read(ktest_path) {
        Ok(t) => t,
        Err(e) => return failed(e.to_string()),
    };
    let env = match PosixEnv::from_ktest(&test) {
        Ok(env) => env,
        Err(e) => return failed(format!("POSIX environment: {e}")),
    };
    let scratch = tempfile::Builder::new()
        .prefix("mnemo-replay-")
        .tempdir()
        .map_err(io_err(&std::env::temp_dir()))?;
    env.create_files(scratch.path())
        .map_err(io_err(scratch.path()))?;
    let run = NativeRun {
        binary,
        arg0: OsString::from(test.args.first().map_or("", String::as_str)),
        args: env.args.into_iter().map(OsString::from_vec).collect(),
        cwd: scratch.path(),
        ktest: ktest_path,
        posix_objects: env.objects,
        stdin: match env.stdin {
            None => Stdin::Empty,
            Some(bytes) if env.stdin_terminal => Stdin::Terminal(bytes),
            Some(bytes) => Stdin::Pipe(bytes),
        },
        env: &options.env,
    };
    let result = run_one(run, options.timeout).map_err(io_err(binary))?;
    let native = classify_native(result.termination, &result.stderr);
    Ok((native, result))
}

/// [`replay_dir`] with explicit options.
pub fn replay_dir_with(
    toolchain: &Toolchain,
    src: &Path,
    out_dir: &Path,
    options: &ReplayOptions,
) -> Result<ReplayReport, ReplayError> {
    let index = TestsJson::read(&out_dir.join(TESTS_JSON))?;
    let build = tempfile::Builder::new()
        .prefix("mnemo-replay-build-")
        .tempdir()
        .map_err(io_err(&std::env::temp_dir()))?;
    // A program of a project's own build replays as it is.
    let binary = if is_native_program(src) {
        std::path::absolute(src).map_err(io_err(src))?
    } else {
        let binary = build.path().join("replay-prog");
        toolchain.compile_native(src, &binary)?;
        binary
    };
    let out_abs = std::path::absolute(out_dir).map_err(io_err(out_dir))?;

    let mut report = ReplayReport::default();
    for record in &index.tests {
        let ktest_path = out_abs.join(&record.ktest);
        let (native, result) = replay_one(&binary, &ktest_path, options)?;
        let mut verdict = verdict(&record.outcome, &native);
        let expected_path = ktest_path.with_extension("stdout");
        let stdout_diff = match (&verdict, fs::read(&expected_path)) {
            (Verdict::Match | Verdict::Mismatch, Ok(expected)) => {
                stdout_diff(&expected, &result.stdout, result.stdout_len)
            }
            _ => None,
        };
        if stdout_diff.is_some() {
            verdict = Verdict::Mismatch;
        }
        report.results.push(ReplayResult {
            id: record.id,
            ktest: record.ktest.clone(),
            verdict,
            predicted: record.outcome.clone(),
            native,
            stdout_diff,
            stderr: result.stderr,
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::classify::tests::err;
    use crate::testgen::index::{TestRecord, TESTS_JSON_VERSION};
    use crate::testgen::ktest::KTestObject;

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
            ..ReplayOptions::default()
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
    fn stdout_diffs_name_the_first_differing_line() {
        assert_eq!(stdout_diff(b"a\nb\n", b"a\nb\n", 4), None);
        let d = stdout_diff(b"a\nb\n", b"a\nc\n", 4).unwrap();
        assert!(d.starts_with("stdout differs at byte 2 (line 2)"), "{d}");
        assert!(
            d.contains("- expected: \"b\\n\"") && d.contains("+ native:   \"c\\n\""),
            "{d}"
        );
        let d = stdout_diff(b"a\n", b"a\nmore", 6).unwrap();
        assert!(
            d.contains("(end of output)") && d.contains("\"more\""),
            "{d}"
        );
        // Only the start of a long output is kept: its length still counts.
        let d = stdout_diff(b"ab", b"ab", 3).unwrap();
        assert!(d.contains("expected 2 bytes, got 3"), "{d}");
    }

    #[test]
    fn missing_index_is_an_error() {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let e = replay_dir(&tc, &dir.path().join("p.c"), dir.path()).unwrap_err();
        assert!(e.to_string().contains("tests.json"), "{e}");
    }
}
