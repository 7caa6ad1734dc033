//! A whole project through the pipeline the coreutils benchmark uses: the
//! tiny autotools-style project of tests/data/tinyproj configured and built
//! with `mnemo cc-project` as CC, one program's bitcode linked by `mnemo
//! extract`, explored with KLEE's symbolic arguments, files and stdin, and
//! every test replayed against the native program of the same build by
//! the scripts of `mnemo replay --as-commands`.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/cli.rs"]
mod support;
use support::{json, mnemo, stderr};
#[path = "support/native.rs"]
mod native;
use native::{built_elsewhere, explored, ok, replayed};

fn project_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/tinyproj")
}

fn cc() -> String {
    format!("{} cc-project", env!("CARGO_BIN_EXE_mnemo"))
}

/// Configures and builds the tiny project in `build`.
fn build(build: &Path) {
    assert!(
        Command::new("musl-gcc").arg("--version").output().is_ok(),
        "musl-gcc is missing: install Debian's musl-tools (`make setup`)"
    );
    let configure = Command::new(project_dir().join("configure"))
        .arg(format!("CC={}", cc()))
        .arg("CFLAGS=-g -O0")
        .current_dir(build)
        .output()
        .expect("configure starts");
    let log = std::fs::read_to_string(build.join("config.log")).unwrap_or_default();
    let o = ok(configure, &format!("configure (config.log:\n{log})"));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("for strnlen... yes"), "{out}");
    assert!(out.contains("no-such-header.h... no"), "{out}");
    ok(
        Command::new("make")
            .current_dir(build)
            .output()
            .expect("make starts"),
        "make",
    );
}

#[test]
fn a_project_builds_runs_and_replays_natively() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let tool = dir.path().join("src/tiny");
    let native = ok(
        Command::new(&tool)
            .args(["-u", "ab", "c"])
            .output()
            .unwrap(),
        "the native program",
    );
    assert_eq!(native.stdout, b"AB\nC\n");
    let deps = std::fs::read_to_string(dir.path().join("lib/caps.d")).unwrap();
    assert!(
        deps.starts_with("lib/caps.o:") && deps.contains("caps.h"),
        "{deps}"
    );

    let bc = dir.path().join("tiny.bc");
    let o = ok(
        mnemo()
            .arg("extract")
            .arg(&tool)
            .arg("-o")
            .arg(&bc)
            .output()
            .unwrap(),
        "mnemo extract",
    );
    assert!(stderr(&o).contains("2 object(s)"), "{}", stderr(&o));
    let module = std::fs::read(&bc).unwrap();
    let has = |name: &[u8]| module.windows(name.len()).any(|w| w == name);
    // The archive member the program needs is in; the other one is not.
    assert!(has(b"caps") && has(b"count_lines") && !has(b"tiny_unused"));

    let out = dir.path().join("out");
    ok(
        mnemo()
            .args(["run", "-q", "--max-time", "120", "--output-dir"])
            .arg(&out)
            .arg(&bc)
            .args(["--sym-args", "0", "2", "2", "--sym-files", "1", "3"])
            .args(["--sym-stdin", "3"])
            .output()
            .unwrap(),
        "mnemo run",
    );
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["stopped_by"], serde_json::Value::Null, "{stats}");
    assert!(
        stats["paths"]["errors"]
            .as_object()
            .is_none_or(|e| e.is_empty()),
        "{stats}"
    );
    assert!(stats["tests"].as_u64().unwrap() >= 30, "{stats}");

    let o = ok(
        mnemo()
            .arg("replay")
            .arg(&tool)
            .arg(&out)
            .arg("--as-commands")
            .output()
            .unwrap(),
        "mnemo replay --as-commands",
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("running"));
    let tests = json(&out.join("tests.json"));
    let tests = tests["tests"].as_array().unwrap();
    let mut with_stdout = 0;
    for t in tests {
        let ktest = t["ktest"].as_str().unwrap();
        let script = out.join(ktest.replace(".ktest", ".sh"));
        let replay = Command::new("sh").arg(&script).output().unwrap();
        assert_eq!(
            replay.status.code().map(i64::from),
            t["exit_code"].as_i64(),
            "{} replays to another status: {}",
            script.display(),
            stderr(&replay)
        );
        if let Ok(expected) = std::fs::read(out.join(ktest.replace(".ktest", ".stdout"))) {
            assert_eq!(replay.stdout, expected, "stdout of {}", script.display());
            with_stdout += 1;
        }
    }
    assert!(with_stdout > 0, "no test recorded its stdout");
    // Each option has tests, and so has a bad one (status 2).
    let scripts: Vec<String> = tests
        .iter()
        .map(|t| {
            let ktest = t["ktest"].as_str().unwrap();
            let script = std::fs::read(out.join(ktest.replace(".ktest", ".sh"))).unwrap();
            String::from_utf8_lossy(&script).into_owned()
        })
        .collect();
    for option in ["\"$PROG\" -l", "\"$PROG\" -u"] {
        assert!(
            scripts.iter().any(|s| s.contains(option)),
            "no test runs {option}"
        );
    }
    assert!(
        tests.iter().any(|t| t["exit_code"] == 2),
        "no test of a bad option"
    );
}

#[test]
fn a_program_without_bitcode_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("plain.c");
    std::fs::write(&c, "int main(void) { return 0; }\n").unwrap();
    let plain = dir.path().join("plain");
    ok(
        Command::new("musl-gcc")
            .arg(&c)
            .arg("-o")
            .arg(&plain)
            .output()
            .unwrap(),
        "musl-gcc",
    );
    for program in [plain, dir.path().join("no-such-program")] {
        let o = mnemo().arg("extract").arg(&program).output().unwrap();
        assert!(!o.status.success());
        let msg = stderr(&o);
        assert!(msg.contains(&*program.to_string_lossy()), "{msg}");
    }
    let o = mnemo()
        .arg("extract")
        .arg(dir.path().join("plain"))
        .output()
        .unwrap();
    assert!(stderr(&o).contains("cc-project"), "{}", stderr(&o));
}

#[test]
fn compiler_errors_reach_the_build() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("bad.c");
    std::fs::write(&c, "int main(void) { return undefined_name; }\n").unwrap();
    let o = mnemo()
        .arg("cc-project")
        .arg("-c")
        .arg(&c)
        .arg("-o")
        .arg(dir.path().join("bad.o"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(stderr(&o).contains("undefined_name"), "{}", stderr(&o));
    assert!(!dir.path().join("bad.o").exists());
    let o = mnemo()
        .args(["cc-project", "-c", "x.c", "-o"])
        .output()
        .unwrap();
    assert!(stderr(&o).contains("-o needs a value"), "{}", stderr(&o));
}

#[test]
fn a_program_built_elsewhere_sees_the_environment_the_engine_gave() {
    let dir = tempfile::tempdir().unwrap();
    // `printenv`'s loop: the whole environment goes to stdout, which the
    // replay compares with the engine's byte for byte.
    let (src, out) = explored(
        dir.path(),
        "printenv",
        "#include <stdio.h>\nextern char **environ;\n\
         int main(int argc, char **argv) {\n\
           if (argc > 1 && argv[1][0] == 'q') return 2;\n\
           for (char **e = environ; *e; e++) puts(*e);\n\
           return 0; }\n",
        &[],
        &["--env", "GREETING=hello", "--sym-args", "0", "1", "1"],
    );
    let printed = out.join(
        json(&out.join("tests.json"))["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["exit_code"] == 0)
            .expect("a path prints the environment")["ktest"]
            .as_str()
            .unwrap(),
    );
    let predicted = std::fs::read(printed.with_extension("stdout")).unwrap();
    assert_eq!(predicted, b"GREETING=hello\n");
    // Neither the replay's test file nor ASan's options are among what a
    // program without the replay library prints.
    let plain = built_elsewhere(&src, &[]);
    let (report, natives) = replayed(&plain, &out, None);
    assert!(report.all_match(), "{report}");
    assert!(natives.iter().any(|n| n == "exit 0"), "{natives:?}");
    let (report, _) = replayed(&src, &out, None);
    assert!(report.all_match(), "{report}");

    // A program built elsewhere with AddressSanitizer is still given ASan's
    // options: a request past the largest object gets null, as in the
    // engine, rather than a report.
    let dir = tempfile::tempdir().unwrap();
    let (src, out) = explored(
        dir.path(),
        "huge",
        "#include <stdlib.h>\n\
         int main(int argc, char **argv) {\n\
           if (argc > 1 && argv[1][0] == 'q') return 2;\n\
           return malloc((size_t)1 << 40) ? 1 : 3; }\n",
        &[],
        &["--sym-args", "0", "1", "1"],
    );
    let sanitized = built_elsewhere(&src, &["-fsanitize=address"]);
    let (report, natives) = replayed(&sanitized, &out, None);
    assert!(report.all_match(), "{report}");
    assert!(natives.iter().any(|n| n == "exit 3"), "{natives:?}");
}

/// A gnulib-style caller of rawmemchr, which musl lacks: built with the
/// runtime's byte-wise one, as the recipe for gnulib projects (docs/coreutils.md) has it,
/// the engine reads no byte past the buffer, where gnulib's word-wise one
/// has every path end in a `ptr` error.
const RAWMEMCHR_USER: &str = r#"
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {
  char *s = malloc(13);
  if (read(0, s, 12) < 0) return 2;
  s[12] = '\n';
  return (int)((char *)rawmemchr(s, '\n') - s) < 12;
}
"#;

/// `source` built as the program `name` of a project (`mnemo cc-project`
/// with `flags`), its bitcode extracted and explored with `run_args`: the
/// native program and the run's output directory.
fn project_program(
    dir: &Path,
    name: &str,
    source: &str,
    flags: &[&str],
    run_args: &[&str],
) -> (PathBuf, PathBuf) {
    let src = dir.join(format!("{name}.c"));
    std::fs::write(&src, source).unwrap();
    let program = dir.join(name);
    ok(
        mnemo()
            .arg("cc-project")
            .args(flags)
            .arg(&src)
            .arg("-o")
            .arg(&program)
            .output()
            .unwrap(),
        "mnemo cc-project",
    );
    let bc = dir.join(format!("{name}.bc"));
    ok(
        mnemo()
            .arg("extract")
            .arg(&program)
            .arg("-o")
            .arg(&bc)
            .output()
            .unwrap(),
        "mnemo extract",
    );
    let out = dir.join("out");
    ok(
        mnemo()
            .args(["run", "-q", "--output-dir"])
            .arg(&out)
            .arg(&bc)
            .args(run_args)
            .output()
            .unwrap(),
        "mnemo run",
    );
    (program, out)
}

/// What the engine predicted `test` (an entry of tests.json) prints.
fn predicted_stdout(out: &Path, test: &serde_json::Value) -> String {
    let ktest = out.join(test["ktest"].as_str().unwrap());
    String::from_utf8_lossy(&std::fs::read(ktest.with_extension("stdout")).unwrap()).into_owned()
}

/// `source`, a program of one path, built as a project's, explored and
/// replayed: its test's entry in tests.json, what the engine predicted it
/// prints, and the replay's report.
fn one_path_replayed(
    dir: &Path,
    name: &str,
    source: &str,
) -> (serde_json::Value, String, mnemo::testgen::ReplayReport) {
    let (program, out) = project_program(dir, name, source, &["-g"], &[]);
    let tests = json(&out.join("tests.json"));
    let ran = tests["tests"][0].clone();
    let predicted = predicted_stdout(&out, &ran);
    let (report, _) = replayed(&program, &out, None);
    (ran, predicted, report)
}

#[test]
fn the_runtime_s_rawmemchr_header_serves_a_project_build() {
    let dir = tempfile::tempdir().unwrap();
    let (program, out) = project_program(
        dir.path(),
        "find",
        RAWMEMCHR_USER,
        &["-g", "-O0", "-include", "mnemo/rawmemchr.h"],
        &["--sym-stdin", "12"],
    );
    let stats = json(&out.join("stats.json"));
    assert!(
        stats["paths"]["errors"].as_object().unwrap().is_empty(),
        "{stats}"
    );
    assert_eq!(stats["paths"]["completed"], 13, "{stats}");
    let (report, _) = replayed(&program, &out, None);
    assert_eq!(report.counts(), (13, 0, 0, 0), "{report}");
}

/// A program that makes names in its directory out of their order, lists
/// the directory, and prints the machine's name and the time.
const LISTS_AND_DATES: &str = r#"
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv) {
  static const char *names[] = {"kiwi", "fig", "apple", "plum",
                                "date", "lime", "pear", "cherry"};
  for (unsigned i = 0; i < sizeof names / sizeof *names; i++)
    close(open(names[i], O_CREAT | O_WRONLY, 0644));
  if (argc > 1 && argv[1][0] == 'q')
    return 2;
  DIR *d = opendir(".");
  struct dirent *e;
  while ((e = readdir(d)))
    puts(e->d_name);
  closedir(d);
  struct utsname u;
  uname(&u);
  printf("%s %lld\n", u.nodename, (long long)time(NULL));
  return 0;
}
"#;

#[test]
fn a_project_s_program_lists_and_dates_as_the_engine_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let (program, out) = project_program(
        dir.path(),
        "lister",
        LISTS_AND_DATES,
        &["-g", "-O0"],
        &["--sym-args", "0", "1", "1"],
    );
    let tests = json(&out.join("tests.json"));
    let listed = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["exit_code"] == 0)
        .expect("a path lists the directory");
    let predicted = predicted_stdout(&out, listed);
    // The model lists names in the order of their bytes, and its clock
    // reads 2024-01-01.
    assert_eq!(
        predicted,
        ".\n..\napple\ncherry\ndate\nfig\nkiwi\nlime\npear\nplum\nmnemo 1704067200\n"
    );
    // Natively the file system's order and the machine's clock and name
    // would print otherwise.
    let (report, _) = replayed(&program, &out, None);
    assert_eq!(report.counts(), (3, 0, 0, 0), "{report}");
}

/// A program that fails an `assert` on one input byte, with a line on
/// stderr before it; given an argument, it first gives stderr a buffer,
/// as patch does.
const ASSERTS: &str = r#"
#include <assert.h>
#include <stdio.h>
#include <unistd.h>
static char buffer[BUFSIZ];
int main(int argc, char **argv) {
  char c = 0;
  if (argc > 1)
    setbuf(stderr, buffer);
  if (read(0, &c, 1) != 1)
    return 1;
  fputs("read\n", stderr);
  assert(c != 'x');
  return 0;
}
"#;

#[test]
fn a_project_s_failed_assert_replays_as_the_assertion() {
    for args in [&["--sym-stdin", "1"][..], &["buffered", "--sym-stdin", "1"]] {
        let dir = tempfile::tempdir().unwrap();
        let (program, out) = project_program(dir.path(), "asserts", ASSERTS, &["-g"], args);
        let tests = json(&out.join("tests.json"));
        let mut kinds: Vec<_> = tests["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["kind"].as_str().unwrap_or("exit"))
            .collect();
        kinds.sort_unstable();
        assert_eq!(kinds, ["assert", "exit"], "{args:?}: {tests}");
        // musl's report, which a buffered stderr would otherwise keep.
        let (report, natives) = replayed(&program, &out, None);
        assert_eq!(report.counts(), (2, 0, 0, 0), "{args:?}: {report}");
        assert!(natives.contains(&"assert".to_string()), "{natives:?}");
    }
}

/// A program that asks system() whether a shell exists and has it run a
/// command, printing what it answered.
const RUNS_A_SHELL: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
int main(void) {
  int shell = system(NULL);
  int status = system("exit 3");
  printf("shell %d, status %d", shell, status);
  if (status != -1 && WIFEXITED(status))
    printf(", exited %d", WEXITSTATUS(status));
  putchar('\n');
  return status == -1;
}
"#;

#[test]
fn a_project_s_system_answers_as_the_engine_predicted() {
    let dir = tempfile::tempdir().unwrap();
    let (ran, predicted, report) = one_path_replayed(dir.path(), "shell", RUNS_A_SHELL);
    assert_eq!(ran["exit_code"], 0, "{ran}");
    // No process can be made: no shell, and the status of one that
    // could not run the command (POSIX's 127), as glibc answers.
    assert_eq!(predicted, "shell 0, status 32512, exited 127\n");
    // musl's own system() would say a shell exists and give -1.
    assert_eq!(report.counts(), (1, 0, 0, 0), "{report}");
}

/// A program that opens "." until it cannot and prints how many it
/// opened, and why it stopped.
const OPENS_UNTIL_FULL: &str = r#"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
int main(void) {
  int opened = 0;
  while (open(".", O_RDONLY) >= 0)
    opened++;
  printf("opened %d, %s\n", opened, errno == EMFILE ? "EMFILE" : "other");
  return 0;
}
"#;

#[test]
fn a_project_s_program_has_the_model_s_descriptors() {
    let dir = tempfile::tempdir().unwrap();
    let (_, predicted, report) = one_path_replayed(dir.path(), "opener", OPENS_UNTIL_FULL);
    // The model's 64, less stdin, stdout and stderr.
    assert_eq!(predicted, "opened 61, EMFILE\n");
    // Natively the machine's limit would let it open a thousand or more.
    assert_eq!(report.counts(), (1, 0, 0, 0), "{report}");
}

/// A name lookup, as tar makes for an archive named `host:file`.
const LOOKS_UP_A_NAME: &str = r#"
#include <netdb.h>
#include <stdio.h>
int main(void) {
  struct addrinfo *found;
  int rc = getaddrinfo("mnemo-no-such-host", "80", 0, &found);
  printf("getaddrinfo: %d, %s\n", rc, rc ? gai_strerror(rc) : "found");
  return rc != 0;
}
"#;

#[test]
fn a_project_s_name_lookup_fails_at_once_as_in_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let (_, predicted, report) = one_path_replayed(dir.path(), "lookup", LOOKS_UP_A_NAME);
    // The model's socket() fails, so musl's resolver cannot ask.
    assert_eq!(predicted, "getaddrinfo: -11, System error\n");
    // Natively the machine's resolver would answer that no such name is
    // known, or, with none to reach, the lookup would wait ten seconds and
    // fail otherwise.
    assert_eq!(report.counts(), (1, 0, 0, 0), "{report}");
}
