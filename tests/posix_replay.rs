//! Replay of tests run in a POSIX environment (`--sym-arg`, `--sym-args`,
//! `--sym-files`, `--sym-stdin`, `--sym-stdout`): natively, as shell
//! scripts, and as an independent reader of KLEE's conventions sees them.
//!
//! The ktests are laid out by hand as KLEE's POSIX runtime lays them out,
//! so these tests pin the format replay reads, whatever produces it.

#[path = "support/cli.rs"]
mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use mnemo::testgen::{
    replay_dir_with, KTest, KTestObject, NativeOutcome, Outcome, PosixEnv, ReplayOptions,
    StreamType, TestRecord, TestsJson, Toolchain, Verdict, TESTS_JSON, TESTS_JSON_VERSION,
};
use support::{mnemo, stderr};

/// The toolchain, with the runtime (the replay library) brought up to date
/// once per test process.
fn toolchain() -> Toolchain {
    static BUILT: OnceLock<Result<(), String>> = OnceLock::new();
    let tc = Toolchain::find().expect("clang-14 and the runtime are needed for replay tests");
    let built = BUILT.get_or_init(|| {
        let status = Command::new("make")
            .args(["-s", "-C"])
            .arg(&tc.runtime_dir)
            .status()
            .map_err(|e| e.to_string())?;
        status
            .success()
            .then_some(())
            .ok_or(format!("make -C runtime: {status}"))
    });
    if let Err(e) = built {
        panic!("cannot build the runtime: {e}");
    }
    tc
}

fn obj(name: &str, bytes: &[u8]) -> KTestObject {
    KTestObject {
        name: name.into(),
        bytes: bytes.to_vec(),
    }
}

/// `argNN` of a `--sym-arg max_len`: the value, NUL padded to max_len + 1.
fn arg(number: u32, max_len: usize, value: &[u8]) -> KTestObject {
    let mut bytes = value.to_vec();
    bytes.resize(max_len + 1, 0);
    obj(&format!("arg{number:02}"), &bytes)
}

/// A `-data` object and its `-stat` (x86-64 `struct stat`, st_mode at 24;
/// its other bytes, st_size among them, are what the solver happened to
/// give them, which replay ignores).
fn file(name: &str, contents: &[u8], mode: u32) -> [KTestObject; 2] {
    let mut stat = vec![0x5au8; 144];
    stat[24..28].copy_from_slice(&mode.to_le_bytes());
    [obj(name, contents), obj(&format!("{name}-stat"), &stat)]
}

fn ktest(args: &[&str], objects: Vec<KTestObject>) -> KTest {
    KTest {
        args: args.iter().map(|a| a.to_string()).collect(),
        objects,
        ..KTest::default()
    }
}

/// Writes tests (with their predictions and optional recorded stdout) and
/// their index into `out`.
fn write_tests(out: &Path, tests: Vec<(KTest, Outcome, Option<&str>)>) {
    fs::create_dir_all(out).unwrap();
    let mut records = Vec::new();
    for (i, (kt, outcome, stdout)) in tests.into_iter().enumerate() {
        let name = format!("test{:06}", i + 1);
        kt.write_atomic(&out.join(format!("{name}.ktest"))).unwrap();
        if let Some(text) = stdout {
            fs::write(out.join(format!("{name}.stdout")), text).unwrap();
        }
        records.push(TestRecord {
            id: i as u32 + 1,
            ktest: format!("{name}.ktest"),
            outcome,
        });
    }
    TestsJson {
        version: TESTS_JSON_VERSION,
        program: "prog.bc".into(),
        tests: records,
    }
    .write_atomic(&out.join(TESTS_JSON))
    .unwrap();
}

/// Prints its arguments, the files they name, how many lines stdin has and
/// whether it is a file (one it can seek in); exits with its own symbolic
/// input `code`, asserting it is not 13.
const PROGRAM: &str = r#"
#include <assert.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include <klee/klee.h>

int main(int argc, char **argv) {
  char cwd[4096];
  int code, c, lines = 0;
  klee_make_symbolic(&code, sizeof code, "code");
  if (getcwd(cwd, sizeof cwd))
    fprintf(stderr, "cwd %s\n", cwd);
  printf("argc %d\n", argc);
  for (int i = 1; i < argc; i++) {
    struct stat st;
    printf("arg %d [%s]", i, argv[i]);
    if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode)) {
      FILE *f = fopen(argv[i], "rb");
      printf(" file mode %o size %ld:", (unsigned)(st.st_mode & 0777), (long)st.st_size);
      while (f && (c = fgetc(f)) != EOF)
        printf(" %02x", c);
      if (f)
        fclose(f);
    }
    printf("\n");
  }
  while ((c = getchar()) != EOF)
    lines += c == '\n';
  printf("stdin lines %d%s\n", lines, lseek(0, 0, SEEK_CUR) < 0 ? "" : " (a file)");
  assert(code != 13);
  return code;
}
"#;

const T1_ARGS: &[&str] = &[
    "prog.bc",
    "-v",
    "--sym-arg",
    "3",
    "--sym-files",
    "1",
    "4",
    "--sym-stdin",
    "8",
];
const T1_STDOUT: &str =
    "argc 3\narg 1 [-v]\narg 2 [A] file mode 640 size 4: 68 69 0a 01\nstdin lines 4 (a file)\n";

fn t1_objects(code: i32) -> Vec<KTestObject> {
    let mut objects = vec![arg(0, 3, b"A")];
    objects.extend(file("A-data", b"hi\n\x01", 0o100640));
    objects.extend(file("stdin", b"a\nb\nc\nd\n", 0o100644));
    objects.push(obj("code", &code.to_le_bytes()));
    objects
}

/// The run's tests: a completed path with its stdout, an assertion failure
/// (an argument whose last byte the runtime overwrites), the first with a wrong recorded stdout,
/// one missing its `n_args`, and one missing the program's own input.
fn posix_tests(out: &Path) {
    let mut t2 = vec![obj("n_args", &2i32.to_le_bytes())];
    t2.extend([obj("arg00", b"abc"), arg(1, 2, b"A\0")]);
    t2.extend(file("A-data", b"xy", 0o100600));
    t2.extend(file("stdin", b"x\ny\n", 0));
    t2.push(obj("model_version", &1u32.to_le_bytes()));
    t2.push(obj("code", &13i32.to_le_bytes()));
    let assert = Outcome::Error {
        kind: "assert".into(),
        file: "prog.c".into(),
        line: 31,
        message: "ASSERTION FAIL: code != 13".into(),
    };
    let wrong = T1_STDOUT.replace("68 69", "68 6a");
    let env_only = t1_objects(0)[..5].to_vec();
    write_tests(
        out,
        vec![
            (
                ktest(T1_ARGS, t1_objects(3)),
                Outcome::Exit { exit_code: 3 },
                Some(T1_STDOUT),
            ),
            (
                ktest(
                    &[
                        "prog.bc",
                        "--sym-args",
                        "1",
                        "2",
                        "2",
                        "--sym-files",
                        "1",
                        "2",
                        "--sym-stdin",
                        "4",
                    ],
                    t2,
                ),
                assert,
                None,
            ),
            (
                ktest(T1_ARGS, t1_objects(3)),
                Outcome::Exit { exit_code: 3 },
                Some(&wrong),
            ),
            (
                ktest(
                    &["prog.bc", "--sym-args", "0", "1", "2"],
                    vec![arg(0, 2, b"a")],
                ),
                Outcome::Exit { exit_code: 0 },
                None,
            ),
            (
                ktest(T1_ARGS, env_only),
                Outcome::Exit { exit_code: 0 },
                None,
            ),
        ],
    );
}

/// A directory holding PROGRAM as `prog.c` and the run of [`posix_tests`]
/// in `out`: (the directory, the source, the output directory).
fn posix_run() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("prog.c");
    fs::write(&src, PROGRAM).unwrap();
    let out = dir.path().join("out");
    posix_tests(&out);
    (dir, src, out)
}

#[test]
fn native_replay_recreates_args_files_and_stdin() {
    let tc = toolchain();
    let (_dir, src, out) = posix_run();

    let options = ReplayOptions::default();
    let report = replay_dir_with(&tc, &src, &out, &options).unwrap();
    let r = &report.results;
    assert_eq!(r.len(), 5, "{report}");
    assert_eq!(
        (&r[0].native, &r[0].verdict, &r[0].stdout_diff),
        (&NativeOutcome::Exit(3), &Verdict::Match, &None),
        "{report}\n{}",
        r[0].stderr
    );
    // The scratch directory the program ran in is gone.
    let cwd = r[0]
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("cwd "))
        .expect("the program printed its working directory");
    assert!(!Path::new(cwd).exists(), "{cwd} was not removed");
    assert_eq!(
        (&r[1].native, &r[1].verdict),
        (&NativeOutcome::Error("assert"), &Verdict::Match),
        "{report}\n{}",
        r[1].stderr
    );
    assert_eq!(r[2].verdict, Verdict::Mismatch, "{report}");
    let diff = r[2].stdout_diff.as_deref().expect("a stdout diff");
    assert!(
        diff.contains("line 3") && diff.contains("68 6a") && diff.contains("68 69"),
        "{diff}"
    );
    assert!(
        matches!(&r[3].verdict, Verdict::ReplayFailed(m)
            if m == "POSIX environment: object 0 should be 'n_args' but the test has 'arg00'"),
        "{report}"
    );
    assert!(
        matches!(&r[4].verdict, Verdict::ReplayFailed(m)
            if m.contains("klee_make_symbolic(\"code\") asks for input 6 but the test has only 5")),
        "{report}"
    );

    // The command line prints the same report and fails on it.
    let (status, text) = replay_cli(&[], &src, &out);
    assert_eq!(status, Some(1), "{text}");
    assert!(
        text.contains(
            "test000003.ktest: predicted exit 3, native exit 3: MISMATCH (stdout differs)"
        ),
        "{text}"
    );
    assert!(
        text.contains("    - expected: \"arg 2 [A] file mode 640 size 4: 68 6a"),
        "{text}"
    );
    assert!(
        text.contains("5 tests: 2 match, 1 mismatch, 0 not predicted, 2 replay failed"),
        "{text}"
    );
}

/// `mnemo replay [extra...] SRC OUT`: its exit status and what it printed.
fn replay_cli(extra: &[&str], src: &Path, out: &Path) -> (Option<i32>, String) {
    let o = mnemo()
        .arg("replay")
        .args(extra)
        .arg(src)
        .arg(out)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    (o.status.code(), text)
}

/// Runs a script with `sh`, from `cwd`, with `PROG` set when given.
fn run_script(script: &Path, cwd: &Path, prog: Option<&str>) -> std::process::Output {
    let mut c = Command::new("sh");
    c.arg(script).current_dir(cwd);
    if let Some(p) = prog {
        c.env("PROG", p);
    }
    c.output().unwrap()
}

#[test]
fn scripts_give_the_predicted_outcome() {
    toolchain();
    let (dir, src, out) = posix_run();
    let (status, text) = replay_cli(&["--as-commands"], &src, &out);
    // The test with inconsistent objects gets no script, and says why.
    assert_eq!(status, Some(1), "{text}");
    assert!(
        text.contains(
            "test000004.ktest: no script: POSIX environment: object 0 should be 'n_args'"
        ),
        "{text}"
    );
    assert!(text.contains("wrote 4 script(s)"), "{text}");
    assert!(!out.join("test000004.sh").exists());

    let script = fs::read_to_string(out.join("test000001.sh")).unwrap();
    assert!(
        script.contains("# The engine predicted: exit status 3."),
        "{script}"
    );
    assert!(
        script.contains("# It recorded the path's stdout in test000001.stdout."),
        "{script}"
    );
    assert!(
        script.contains("printf 'hi\\n\\001' > A\nchmod 640 A\n"),
        "{script}"
    );
    // Its stdin's status says regular file: a file, not a pipe.
    assert!(
        script.contains("printf 'a\\nb\\nc\\nd\\n' > \"$stdin_file\"\n")
            && script.contains(" \"$PROG\" -v A) < \"$stdin_file\" 3>&- 4>&-;"),
        "{script}"
    );

    // Run from elsewhere: the script finds its program and ktest itself.
    let o = run_script(&out.join("test000001.sh"), dir.path(), None);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), T1_STDOUT);
    let o = run_script(&out.join("test000002.sh"), &out, None);
    assert_ne!(o.status.code(), Some(0));
    assert!(
        stderr(&o).contains("Assertion `code != 13' failed"),
        "{}",
        stderr(&o)
    );
    let script = fs::read_to_string(out.join("test000002.sh")).unwrap();
    assert!(
        script.contains("# The engine predicted: error 'assert' at prog.c:31"),
        "{script}"
    );
    assert!(
        script.contains("printf 'x\\ny\\n' | (trap '' PIPE; exec env -i KTEST_FILE=")
            && script.contains(
                " MNEMO_REPLAY_NO_SLEEP=1 MNEMO_REPLAY_ONE_PROCESS=1 \
                 ${model_user:+MNEMO_REPLAY_USER=$model_user} "
            )
            && script.contains(" \"$PROG\" ab A) 3>&- 4>&-;"),
        "{script}"
    );

    // PROG overrides the program, relative to where the script is run.
    fs::create_dir(dir.path().join("other")).unwrap();
    fs::copy(out.join("prog.native"), dir.path().join("other/p")).unwrap();
    fs::remove_file(out.join("prog.native")).unwrap();
    let o = run_script(&out.join("test000001.sh"), dir.path(), Some("other/p"));
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout), T1_STDOUT);
}

/// The independent reader's view of a set of ktests.
fn klee_reader(paths: &[PathBuf]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/klee_posix.py");
    let o = Command::new("python3")
        .arg(script)
        .args(paths)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the reader prints for an environment mnemo rebuilt.
fn as_reader_prints(env: &PosixEnv) -> serde_json::Value {
    serde_json::json!({
        "argv": env.args.iter().map(|a| hex(a)).collect::<Vec<_>>(),
        "files": env.files.iter().map(|f| serde_json::json!({
            "name": f.name, "mode": f.mode, "data": hex(&f.contents), "directory": f.directory,
        })).collect::<Vec<_>>(),
        "stdin": env.stdin.as_deref().map(hex),
        "stdin_terminal": env.stdin_type == StreamType::Terminal,
        "objects": env.objects,
    })
}

#[test]
fn an_independent_reader_of_klee_conventions_sees_the_same_environment() {
    let dir = tempfile::tempdir().unwrap();
    posix_tests(dir.path());
    let mut all = vec![arg(0, 1, b"q"), obj("n_args", &0i32.to_le_bytes())];
    all.extend(file("A-data", b"\0\xff", 0o040000));
    all.extend(file("B-data", b"'$", 0o100400));
    all.extend(file("stdout", &[0; 1024], 0o100644));
    all.push(obj("x", b"own"));
    let extra = ktest(
        &[
            "p",
            "-sym-arg",
            "1",
            "c d",
            "--sym-args",
            "0",
            "3",
            "1",
            "--sym-files",
            "2",
            "2",
            "--sym-stdout",
            "--sym-stdin",
            "0",
        ],
        all,
    );
    extra.write_atomic(&dir.path().join("extra.ktest")).unwrap();
    let mut paths: Vec<PathBuf> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ktest"))
        .collect();
    paths.sort();
    let seen = klee_reader(&paths);
    let mut readable = 0;
    for p in &paths {
        let theirs = &seen[p.to_str().unwrap()];
        match PosixEnv::from_ktest(&KTest::read(p).unwrap()) {
            Ok(env) => {
                readable += 1;
                assert_eq!(theirs, &as_reader_prints(&env), "{}", p.display());
            }
            Err(e) => assert!(
                theirs.get("error").is_some(),
                "{}: mnemo says {e}, the reader {theirs}",
                p.display()
            ),
        }
    }
    assert_eq!(readable, 5, "{seen:#}");
    let extra = &seen[dir.path().join("extra.ktest").to_str().unwrap()];
    assert_eq!(extra["argv"], serde_json::json!(["71", "632064"]));
    assert_eq!(extra["files"][0]["mode"], 0o755);
    assert_eq!(extra["files"][0]["directory"], true);
    assert_eq!(extra["files"][1]["mode"], 0o600);
    assert_eq!(extra["files"][1]["data"], "2724");
}

#[path = "posix_replay/quoting.rs"]
mod quoting;

/// Reads file A when its argument names it, and stdin: 10 paths under
/// `--sym-args 0 1 2 --sym-files 1 2 --sym-stdin 2`. The environment is
/// empty in the engine, and so must it be natively.
const TOOL: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int n = getenv("HOME") || getenv("PATH") ? 4 : 0;
  if (argc > 1 && strcmp(argv[1], "A") == 0) {
    FILE *f = fopen("A", "r");
    if (f && fgetc(f) == 'k')
      n += 2;
  }
  if (getchar() == 'q')
    n += 1;
  printf("n=%d\n", n);
  return n;
}
"#;

/// Compiles `source` as `NAME.c` in a scratch directory and runs mnemo on
/// it with `args`, into `out`: the directory, the source and `out` (`None`
/// without clang).
fn explored(
    name: &str,
    source: &str,
    args: &[&str],
) -> Option<(tempfile::TempDir, PathBuf, PathBuf)> {
    toolchain();
    let dir = tempfile::tempdir().unwrap();
    let bc = support::compile(dir.path(), name, source)?;
    let src = dir.path().join(format!("{name}.c"));
    let out = dir.path().join("out");
    let o = mnemo()
        .args(["run", "--store", "none", "--output-dir"])
        .arg(&out)
        .arg(&bc)
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    Some((dir, src, out))
}

#[test]
fn a_posix_run_replays_natively_as_scripts_and_as_klee_reads_it() {
    let args = [
        "--sym-args",
        "0",
        "1",
        "2",
        "--sym-files",
        "1",
        "2",
        "--sym-stdin",
        "2",
    ];
    let Some((dir, src, out)) = explored("tool", TOOL, &args) else {
        return;
    };
    let index = TestsJson::read(&out.join(TESTS_JSON)).unwrap();
    // Every return value 0..=3 is reached (argument "A", its byte 'k',
    // stdin's 'q'), so the paths did use argv, the file and stdin.
    let mut codes: Vec<i32> = index.tests.iter().map(|t| codes_of(&t.outcome)).collect();
    codes.sort();
    codes.dedup();
    assert_eq!(codes, vec![0, 1, 2, 3]);

    let (status, text) = replay_cli(&[], &src, &out);
    assert_eq!(status, Some(0), "{text}");
    let n = index.tests.len();
    assert!(text.contains(&format!("{n} tests: {n} match,")), "{text}");

    let (status, text) = replay_cli(&["--as-commands"], &src, &out);
    assert_eq!(status, Some(0), "{text}");
    let mut ktests = Vec::new();
    for t in &index.tests {
        let ktest = out.join(&t.ktest);
        let o = run_script(&ktest.with_extension("sh"), dir.path(), None);
        assert_eq!(
            (o.status.code(), o.stdout.clone()),
            (
                Some(codes_of(&t.outcome)),
                fs::read(ktest.with_extension("stdout")).unwrap()
            ),
            "{}: {}",
            t.ktest,
            stderr(&o)
        );
        ktests.push(ktest);
    }

    let seen = klee_reader(&ktests);
    for k in &ktests {
        let env = PosixEnv::from_ktest(&KTest::read(k).unwrap()).unwrap();
        assert_eq!(
            seen[k.to_str().unwrap()],
            as_reader_prints(&env),
            "{}",
            k.display()
        );
    }
}

/// Looks its argument up in the user database.
const USERS: &str = r#"
#include <pwd.h>
#include <stdio.h>

int main(int argc, char **argv) {
  struct passwd *p = getpwnam(argv[1]);
  if (p)
    printf("%s %d\n", p->pw_name, (int)p->pw_uid);
  else
    puts("none");
  return 0;
}
"#;

/// With the host's `/etc/passwd` given by `--file`, a user name is found
/// or not as natively: a name the file lacks makes musl ask nscd, whose
/// socket the model refuses as a machine without one answers.
#[test]
fn user_lookups_in_a_host_passwd_replay_natively() {
    toolchain();
    let passwd = fs::read_to_string("/etc/passwd").unwrap_or_default();
    if !passwd.lines().any(|l| l.starts_with("root:x:0:")) {
        eprintln!("skipped: no /etc/passwd with root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let Some(bc) = support::compile(dir.path(), "users", USERS) else {
        return;
    };
    let out = dir.path().join("out");
    let o = mnemo()
        .args(["run", "--store", "none", "--file", "/etc/passwd"])
        .arg("--output-dir")
        .arg(&out)
        .arg(&bc)
        .args(["--sym-arg", "4"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let index = TestsJson::read(&out.join(TESTS_JSON)).unwrap();
    let printed: Vec<Vec<u8>> = index
        .tests
        .iter()
        .map(|t| {
            assert_eq!(codes_of(&t.outcome), 0, "{}", t.ktest);
            fs::read(out.join(&t.ktest).with_extension("stdout")).unwrap()
        })
        .collect();
    assert!(printed.iter().any(|p| p == b"root 0\n"), "{printed:?}");
    assert!(printed.iter().any(|p| p == b"none\n"), "{printed:?}");

    let (status, text) = replay_cli(&[], &dir.path().join("users.c"), &out);
    assert_eq!(status, Some(0), "{text}");
    let n = index.tests.len();
    assert!(text.contains(&format!("{n} tests: {n} match,")), "{text}");
}

fn codes_of(outcome: &Outcome) -> i32 {
    match outcome {
        Outcome::Exit { exit_code } => i32::from(*exit_code),
        other => panic!("{other}"),
    }
}

/// Sleeps a day when its argument is `s`.
const SLEEPER: &str = r#"
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc > 1 && argv[1][0] == 's') {
    sleep(24 * 60 * 60);
    return 3;
  }
  return 0;
}
"#;

/// A script runs its program as replay does, sleeps answered at once as
/// the model answers them: the test of a day's sleep ends in seconds.
#[test]
fn a_script_s_sleeps_take_no_time() {
    use std::os::unix::process::CommandExt;
    let Some((dir, src, out)) = explored("sleeper", SLEEPER, &["--sym-arg", "1"]) else {
        return;
    };
    let (status, text) = replay_cli(&["--as-commands"], &src, &out);
    assert_eq!(status, Some(0), "{text}");
    let index = TestsJson::read(&out.join(TESTS_JSON)).unwrap();
    let mut codes = Vec::new();
    for t in &index.tests {
        // Its own process group, so that a sleep that is not answered is
        // killed with the shell at the watchdog.
        let mut child = Command::new("sh")
            .arg(out.join(&t.ktest).with_extension("sh"))
            .current_dir(dir.path())
            .stdout(std::process::Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if started.elapsed() > std::time::Duration::from_secs(60) {
                // SAFETY: kill takes no pointers.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        };
        let status = status.unwrap_or_else(|| panic!("{} still sleeps after 60 s", t.ktest));
        assert_eq!(status.code(), Some(codes_of(&t.outcome)), "{}", t.ktest);
        codes.push(codes_of(&t.outcome));
    }
    codes.sort();
    assert_eq!(codes, [0, 3], "one test sleeps");
}
