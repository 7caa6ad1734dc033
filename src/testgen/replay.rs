//! Native replay: run each test mnemo wrote against the program compiled
//! natively (under sanitizers, linked with `libmnemo-replay.a`) in the
//! environment the test describes (arguments, symbolic files in a scratch
//! working directory, stdin), and check that the program really does what
//! the engine predicted: its outcome and, where the run recorded it
//! (`testNNNNNN.stdout`), what it wrote on standard output.

use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::thread;
use std::time::Duration;

use thiserror::Error;

use super::classify::{classify_native, verdict, NativeOutcome, Termination, Verdict};
use super::index::{TestRecord, TestsJson, TESTS_JSON};
use super::inject::{Failures, Traced};
use super::ktest::KTest;
use super::model_root::{LaidOut, ModelRoot};
use super::native::{give_contents_to, run_one, NativeResult, NativeRun, Stdin};
use super::posix::{PosixEnv, StreamType};
use super::program::Program;
use super::report::stdout_diff;
pub use super::report::{ReplayReport, ReplayResult};
use super::toolchain::{is_native_program, Toolchain, ToolchainError};

/// The environment variable telling the replay library how many leading
/// objects of the test describe the POSIX environment, so that the
/// program's own `klee_make_symbolic` and `__VERIFIER_nondet_*` calls start
/// after them.
pub const POSIX_OBJECTS_ENV: &str = "MNEMO_POSIX_OBJECTS";

/// Set for a program that links the replay library: it makes its sleeps
/// take no time, as the model's do, before main.
pub const NO_SLEEP_ENV: &str = "MNEMO_REPLAY_NO_SLEEP";

/// Set for a program that links the replay library: it holds itself to
/// one process before main, so that a fork fails with EAGAIN as in the
/// engine, root or not, while its threads are made.
pub const ONE_PROCESS_ENV: &str = "MNEMO_REPLAY_ONE_PROCESS";

/// Set for a program that links the replay library when the replay traces
/// it (failing its system calls, `--max-fail`, or laying out arguments at
/// `main`): it reads the test before main, where the calls are not yet
/// counted, rather than at the first input.
pub const EARLY_TEST_ENV: &str = "MNEMO_REPLAY_EARLY_TEST";

/// Set for a program that links the replay library, started by root, to
/// run as another user (`UID:GID`, the model's): it reads its test, then
/// becomes that user with no supplementary groups, before main.
pub const USER_ENV: &str = "MNEMO_REPLAY_USER";

/// In place of `KTEST_FILE` for a program chrooted into the model's file
/// system: the descriptor the test is open on, which the replay library
/// reads and closes before main. The test stays outside the root, where no
/// listing of `/` sees it.
pub const KTEST_FD_ENV: &str = "MNEMO_KTEST_FD";

/// Why replay could not run at all (a single bad test is a result instead).
#[derive(Debug, Error)]
pub enum ReplayError {
    #[error(transparent)]
    Toolchain(#[from] ToolchainError),
    #[error("{path}: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}: not a valid tests.json: {error}")]
    Json {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error(
        "{path}: unsupported tests.json version {version} (mnemo reads version {})",
        super::index::TESTS_JSON_VERSION
    )]
    Version { path: PathBuf, version: u32 },
    #[error("{0} is a native program: clang flags after `--` are for building a C source")]
    FlagsForNative(PathBuf),
}

/// A closure making a [`ReplayError::Io`] for `path`.
pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> ReplayError {
    let path = path.to_path_buf();
    move |error| ReplayError::Io { path, error }
}

/// Settings of a replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// How long one test may run before it is killed.
    pub timeout: Duration,
    /// More environment for the program (for instance `GCOV_PREFIX`, so
    /// that replays side by side keep their coverage data apart).
    pub env: Vec<(OsString, OsString)>,
    /// A user and group to run the program as, with no supplementary
    /// groups, the files of its scratch directory (not the directory)
    /// given to them. The model's user is nobody ([`crate::exec::NOBODY`]):
    /// run so by root, the program meets the permissions the engine's did
    /// (a file of mode 0 may not be read), and a test of a tool that
    /// changes files (`chmod -R 0 /`) cannot harm the machine.
    pub run_as: Option<(u32, u32)>,
    /// Each test chrooted into a directory laid out as the engine's model
    /// of the file system, rather than run in a scratch directory of the
    /// machine's (root only, for a statically linked program).
    pub model_root: Option<ModelRoot>,
    /// How many tests replay at once (each in its own scratch directory,
    /// or its own model root, its own process group, and signalling no
    /// other process).
    pub jobs: usize,
    /// Flags for clang's native build of a C source, after its own (the
    /// bitcode's `-O2`, so that the native program is the one the engine
    /// ran, undefined behaviour the optimizer used included).
    pub clang_args: Vec<String>,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            timeout: Duration::from_secs(10),
            env: Vec::new(),
            run_as: None,
            model_root: None,
            jobs: crate::parallel::default_jobs(),
            clang_args: Vec::new(),
        }
    }
}

impl ReplayOptions {
    /// The model's user, as a [`ReplayOptions::run_as`].
    pub const MODEL_USER: (u32, u32) = (crate::exec::NOBODY, crate::exec::NOBODY);

    /// Whom a replay runs the program as unless asked otherwise: the
    /// model's user where the replay runs as root, whose permissions the
    /// engine's program did not have; the caller where it cannot be
    /// another (not root, or root of a user namespace that has no such
    /// user: a rootless container's may map root alone).
    pub fn default_user() -> Option<(u32, u32)> {
        let (uid, gid) = Self::MODEL_USER;
        let mapped = |map: &str, id| fs::read_to_string(map).map_or(true, |m| maps(&m, id));
        (Self::caller_is_root()
            && mapped("/proc/self/uid_map", uid)
            && mapped("/proc/self/gid_map", gid))
        .then_some(Self::MODEL_USER)
    }

    /// Whether the replay runs as root, who could run the program as
    /// another user.
    pub fn caller_is_root() -> bool {
        // SAFETY: geteuid has no preconditions.
        let euid = unsafe { libc::geteuid() };
        euid == 0
    }
}

/// Whether a user namespace's map of ids (`/proc/self/uid_map`: lines of
/// the first id inside, the first outside, and how many) has `id` inside.
fn maps(map: &str, id: u32) -> bool {
    map.lines().any(|line| {
        let fields: Vec<u64> = line
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        matches!(fields[..], [inside, _, count] if (inside..inside + count).contains(&u64::from(id)))
    })
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
    program: &Program,
    ktest_path: &Path,
    options: &ReplayOptions,
    root: Option<&LaidOut>,
) -> Result<(NativeOutcome, NativeResult), ReplayError> {
    let binary = program.binary.as_path();
    let failed = |msg: String| {
        let result = NativeResult {
            termination: Termination::Exited(0),
            stderr: String::new(),
            stdout: Vec::new(),
        };
        Ok((NativeOutcome::ReplayFailed(msg), result))
    };
    let test = match KTest::read(ktest_path) {
        Ok(t) => t,
        Err(e) => return failed(e.to_string()),
    };
    let mut env = match PosixEnv::from_ktest(&test) {
        Ok(env) => env,
        Err(e) => return failed(format!("POSIX environment: {e}")),
    };
    let failures = env.failures.take().filter(Failures::any);
    let traced = if failures.is_none() && env.arg_buffers.is_empty() {
        None
    } else {
        let Some(main) = program.main()? else {
            let why = match failures {
                Some(_) => "fails system calls, counted from main on,",
                None => "has an argument with bytes after its NUL, laid out at main,",
            };
            return failed(format!(
                "the test {why} and {} has no symbol `main` (stripped?)",
                binary.display()
            ));
        };
        // A placeholder as long as the buffer, written over at `main`.
        for (place, buffer) in &env.arg_buffers {
            env.args[*place] = vec![b'x'; buffer.len() - 1];
        }
        Some(Traced {
            failures: failures.unwrap_or(Failures::NONE),
            arg_buffers: std::mem::take(&mut env.arg_buffers),
            main,
        })
    };
    // The scratch directory has a parent of its own: in the model the
    // working directory's parent holds nothing the program may change, and
    // so is it natively when the test runs as another user.
    let (outer, scratch) = match root {
        Some(root) => (None, root.ready()?),
        None => {
            let outer = tempfile::Builder::new()
                .prefix("mnemo-replay-")
                .tempdir()
                .map_err(io_err(&std::env::temp_dir()))?;
            let scratch = outer.path().join("cwd");
            fs::create_dir(&scratch).map_err(io_err(&scratch))?;
            (Some(outer), scratch)
        }
    };
    env.create_files(&scratch).map_err(io_err(&scratch))?;
    if let Some((uid, gid)) = options.run_as {
        // The directory and its files become the user's, as in the
        // engine's model the program owns them and makes names there; the
        // parent stays the caller's, and no name can be made in it.
        let searchable = || fs::Permissions::from_mode(0o755);
        give_contents_to(&scratch, uid, gid)
            .and_then(|()| std::os::unix::fs::lchown(&scratch, Some(uid), Some(gid)))
            .and_then(|()| fs::set_permissions(&scratch, searchable()))
            .and_then(|()| match &outer {
                Some(outer) => fs::set_permissions(outer.path(), searchable()),
                None => Ok(()),
            })
            .map_err(io_err(&scratch))?;
    }
    let cwd = match root {
        Some(root) => root.cwd(),
        None => scratch.clone(),
    };
    let run = NativeRun {
        binary,
        arg0: OsString::from(test.args.first().map_or("", String::as_str)),
        args: env.args.into_iter().map(OsString::from_vec).collect(),
        cwd: &cwd,
        // The program's own inputs, beyond the environment's, are read
        // from the test; otherwise a program without the replay library
        // has nothing to read there, and its environment stays the
        // engine's.
        ktest: (program.links_replay_library || test.objects.len() > env.objects)
            .then_some(ktest_path),
        posix_objects: env.objects,
        asan_options: program.takes_asan_options()?,
        stdin: match env.stdin {
            None => Stdin::Empty,
            Some(bytes) => match env.stdin_type {
                StreamType::Terminal => Stdin::Terminal(bytes),
                StreamType::File => Stdin::File(bytes),
                StreamType::Pipe => Stdin::Pipe(bytes),
            },
        },
        vars: env
            .vars
            .into_iter()
            .map(|(name, value)| (OsString::from_vec(name), OsString::from_vec(value)))
            .collect(),
        env: &options.env,
        run_as: options.run_as,
        root: root.map(|r| r.dir.as_path()),
        links_replay_library: program.links_replay_library,
        traced,
        stdout: env.stdout_type,
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
    // A source is compiled with the replay library; a program of a
    // project's own build replays as it is.
    let links_replay_library = !is_native_program(src);
    let binary = if links_replay_library {
        let binary = build.path().join("replay-prog");
        toolchain.compile_native_with(src, &binary, &options.clang_args)?;
        binary
    } else if !options.clang_args.is_empty() {
        return Err(ReplayError::FlagsForNative(src.to_path_buf()));
    } else {
        std::path::absolute(src).map_err(io_err(src))?
    };
    let out_abs = std::path::absolute(out_dir).map_err(io_err(out_dir))?;
    let jobs = options.jobs.max(1).min(index.tests.len().max(1));
    let roots = match &options.model_root {
        Some(root) => root.lay_out(&binary, jobs)?,
        None => Vec::new(),
    };

    let program = Program::new(binary, links_replay_library);
    let check = |worker: usize, record: &TestRecord| -> Result<ReplayResult, ReplayError> {
        let ktest_path = out_abs.join(&record.ktest);
        let root = roots.get(worker);
        let (native, result) = replay_one(&program, &ktest_path, options, root)?;
        if let Some(root) = root {
            root.keep(record.id)?;
        }
        let mut verdict = verdict(&record.outcome, &native);
        let expected_path = ktest_path.with_extension("stdout");
        let stdout_diff = match (&verdict, fs::read(&expected_path)) {
            (Verdict::Match | Verdict::Mismatch, Ok(expected)) => {
                stdout_diff(&expected, &result.stdout)
            }
            _ => None,
        };
        if stdout_diff.is_some() {
            verdict = Verdict::Mismatch;
        }
        Ok(ReplayResult {
            id: record.id,
            ktest: record.ktest.clone(),
            verdict,
            predicted: record.outcome.clone(),
            native,
            stdout_diff,
            stderr: result.stderr,
        })
    };
    let results = in_parallel(&index.tests, jobs, check)?;
    Ok(ReplayReport { results })
}

/// `f` of every item, on up to `jobs` threads, in the items' order; the
/// first error (in that order) if any. A thread takes the next item as it
/// finishes one, so one slow test holds up only its own thread. `f` is
/// told which thread it runs on (from 0), whose items are done one at a
/// time.
fn in_parallel<T: Sync, R: Send, E: Send>(
    items: &[T],
    jobs: usize,
    f: impl Fn(usize, &T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<Option<Result<R, E>>>> = Mutex::new(items.iter().map(|_| None).collect());
    thread::scope(|scope| {
        let (f, next, done) = (&f, &next, &done);
        for worker in 0..jobs.min(items.len()) {
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(worker, item);
                let failed = r.is_err();
                done.lock().unwrap_or_else(PoisonError::into_inner)[i] = Some(r);
                if failed {
                    // The others finish what they hold and take no more.
                    next.store(items.len(), Ordering::Relaxed);
                }
            });
        }
    });
    // Every item before a failure was done; items after it may not be.
    done.into_inner()
        .unwrap_or_else(PoisonError::into_inner)
        .into_iter()
        .map_while(|r| r)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testgen::classify::tests::err;
    use crate::testgen::index::{Outcome, TestRecord, TESTS_JSON_VERSION};
    use crate::testgen::ktest::KTestObject;
    use std::process::Command;

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
    fn a_user_namespace_maps_the_model_user_or_not() {
        let whole = "         0          0 4294967295\n";
        assert!(maps(whole, 65534));
        // A rootless container's: root alone, or root and a range of
        // subordinate ids that stops short of nobody.
        assert!(!maps("0 1000 1\n", 65534));
        assert!(!maps("0 1000 1\n1 100000 65533\n", 65534));
        assert!(maps("0 1000 1\n1 100000 65534\n", 65534));
        assert!(!maps("", 65534));
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
            // Inputs that violate an assumption: natively the user error
            // the engine reports for a provably false one.
            (ktest(0, 0, &["prog.bc"]), Outcome::Exit { exit_code: 0 }),
            // A hang is cut off by the time limit.
            (ktest(7, 1, &["prog.bc"]), Outcome::Exit { exit_code: 0 }),
            // Early ends are replayed but not compared.
            (
                ktest(7, 1, &["prog.bc"]),
                Outcome::Early {
                    reason: "max-time".into(),
                    signal: None,
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
        assert_eq!(
            got[5],
            (&NativeOutcome::Error("user"), &Verdict::Mismatch),
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
        assert_eq!(report.counts(), (4, 3, 1, 1));
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
    fn tests_replayed_at_once_report_in_their_order_and_stop_at_an_error() {
        let items: Vec<u32> = (0..50).collect();
        for jobs in [1, 3, 64] {
            let slow_first = |_, &i: &u32| -> Result<u32, String> {
                // Early items finish last, so order is not finishing order.
                std::thread::sleep(Duration::from_micros(u64::from(50 - i) * 20));
                Ok(i * 2)
            };
            let got = in_parallel(&items, jobs, slow_first).unwrap();
            assert_eq!(got, items.iter().map(|i| i * 2).collect::<Vec<_>>());
            // Each thread does its items one at a time: a model root is
            // one thread's.
            let busy: Vec<AtomicUsize> = (0..jobs).map(|_| AtomicUsize::new(0)).collect();
            let alone = |worker: usize, &i: &u32| -> Result<u32, String> {
                if busy[worker].fetch_add(1, Ordering::SeqCst) != 0 {
                    return Err(format!("thread {worker} took item {i} while busy"));
                }
                std::thread::sleep(Duration::from_micros(50));
                busy[worker].fetch_sub(1, Ordering::SeqCst);
                Ok(i)
            };
            assert_eq!(in_parallel(&items, jobs, alone), Ok(items.clone()));
            let failing = |_, &i: &u32| if i % 20 == 7 { Err(i) } else { Ok(i) };
            assert_eq!(in_parallel(&items, jobs, failing), Err(7), "{jobs} jobs");
        }
        assert_eq!(
            in_parallel(&[] as &[u32], 4, |_, &i| Ok::<_, ()>(i)),
            Ok(vec![])
        );
    }

    #[test]
    fn missing_index_is_an_error() {
        let tc = toolchain();
        let dir = tempfile::tempdir().unwrap();
        let e = replay_dir(&tc, &dir.path().join("p.c"), dir.path()).unwrap_err();
        assert!(e.to_string().contains("tests.json"), "{e}");
    }
}
