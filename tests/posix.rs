//! The POSIX environment: KLEE's `--sym-*` options expanded before main
//! into objects KLEE's tools read (checked here with a reader of the ktest
//! format and of KLEE's conventions written apart from mnemo's), the model
//! of files behind musl's system calls, `--file`, each completed test's
//! `.stdout`, and the errors bad options give before a run.

use std::path::{Path, PathBuf};
use std::process::Output;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};

/// `mnemo run -q OPTIONS --output-dir OUT BC ARGS...`.
fn run(bc: &Path, out: &Path, options: &[&str], args: &[&str]) -> Output {
    mnemo()
        .arg("run")
        .arg("-q")
        .args(options)
        .arg("--output-dir")
        .arg(out)
        .arg(bc)
        .args(args)
        .output()
        .expect("mnemo run starts")
}

/// The `.ktest` files of a run, in order.
fn ktests(out: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(out)
        .expect("output directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ktest"))
        .collect();
    files.sort();
    files
}

/// KLEE's ktest format read on its own terms (big-endian, version 3): the
/// command line and the `(name, bytes)` objects.
/// The environment a test stands for, as replay reads it back.
fn posix_env(ktest: &Path) -> mnemo::testgen::posix::PosixEnv {
    let test = mnemo::testgen::KTest::read(ktest).expect("a ktest");
    mnemo::testgen::posix::PosixEnv::from_ktest(&test).expect("objects that fit the command line")
}

fn read_ktest(path: &Path) -> (Vec<String>, Vec<(String, Vec<u8>)>) {
    struct Reader {
        data: Vec<u8>,
        at: usize,
    }
    impl Reader {
        fn take(&mut self, n: usize) -> Vec<u8> {
            let s = self.data[self.at..self.at + n].to_vec();
            self.at += n;
            s
        }
        fn word(&mut self) -> usize {
            u32::from_be_bytes(self.take(4).try_into().expect("4 bytes")) as usize
        }
        fn text(&mut self) -> String {
            let n = self.word();
            String::from_utf8(self.take(n)).expect("utf-8")
        }
    }
    let mut r = Reader {
        data: std::fs::read(path).expect("ktest"),
        at: 0,
    };
    assert_eq!(r.take(5), b"KTEST", "{}", path.display());
    assert_eq!(r.word(), 3, "version");
    let args = (0..r.word()).map(|_| r.text()).collect();
    let (_sym_argvs, _sym_argv_len) = (r.word(), r.word());
    let mut objects = Vec::new();
    for _ in 0..r.word() {
        let name = r.text();
        let n = r.word();
        objects.push((name, r.take(n)));
    }
    assert_eq!(r.at, r.data.len(), "trailing bytes in {}", path.display());
    (args, objects)
}

/// The `(name, size)` of each object KLEE's `klee_init_env` makes for the
/// command line `args` (the program name first), reading `n_args` from the
/// test's own objects as `klee-replay` does.
fn klee_objects(args: &[String], objects: &[(String, Vec<u8>)]) -> Vec<(String, usize)> {
    let mut want: Vec<(String, usize)> = Vec::new();
    let num = |s: &String| s.parse::<usize>().expect("a number");
    let (mut files, mut file_len, mut stdin_len, mut sym_stdout) = (0, 0, 0, false);
    let mut next_arg = 0;
    let mut k = 1;
    while k < args.len() {
        match args[k].trim_start_matches('-') {
            "sym-arg" => {
                want.push((format!("arg{next_arg:02}"), num(&args[k + 1]) + 1));
                next_arg += 1;
                k += 2;
            }
            "sym-args" => {
                let (min, max, len) = (num(&args[k + 1]), num(&args[k + 2]), num(&args[k + 3]));
                let count = if min == max {
                    min
                } else {
                    want.push(("n_args".into(), 4));
                    let bytes = &objects[want.len() - 1].1;
                    i32::from_le_bytes(bytes[..4].try_into().expect("4 bytes")) as usize
                };
                assert!((min..=max).contains(&count), "n_args {count}");
                for _ in 0..count {
                    want.push((format!("arg{next_arg:02}"), len + 1));
                    next_arg += 1;
                }
                k += 4;
            }
            "sym-files" => {
                (files, file_len) = (num(&args[k + 1]), num(&args[k + 2]));
                k += 3;
            }
            "sym-stdin" => {
                stdin_len = num(&args[k + 1]);
                k += 2;
            }
            "sym-stdout" => {
                sym_stdout = true;
                k += 1;
            }
            _ => k += 1,
        }
    }
    for f in 0..files {
        let letter = (b'A' + f as u8) as char;
        want.push((format!("{letter}-data"), file_len));
        want.push((format!("{letter}-data-stat"), 144));
    }
    if stdin_len > 0 {
        want.push(("stdin".into(), stdin_len));
        want.push(("stdin-stat".into(), 144));
    }
    if sym_stdout {
        want.push(("stdout".into(), 1024));
        want.push(("stdout-stat".into(), 144));
    }
    want.push(("model_version".into(), 4));
    want
}

const ARGC: &str = r#"
int main(int argc, char **argv) { return argc > 4; }
"#;

#[test]
fn tests_hold_the_command_line_and_klees_objects_in_klees_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "argc", ARGC) else {
        return;
    };
    let out = dir.path().join("out");
    let args = [
        "-v",
        "--sym-args",
        "1",
        "2",
        "2",
        "--sym-arg",
        "3",
        "--sym-files",
        "2",
        "5",
        "-sym-stdin",
        "4",
        "--sym-stdout",
    ];
    let o = run(&bc, &out, &[], &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let files = ktests(&out);
    // n_args is 1 or 2.
    assert_eq!(files.len(), 2, "{}", stderr(&o));
    let mut counts = Vec::new();
    for f in &files {
        let (line, objects) = read_ktest(f);
        let mut expect_line = vec![bc.display().to_string()];
        expect_line.extend(args.iter().map(|a| a.to_string()));
        assert_eq!(line, expect_line);
        let got: Vec<(String, usize)> = objects.iter().map(|(n, b)| (n.clone(), b.len())).collect();
        assert_eq!(got, klee_objects(&line, &objects), "{}", f.display());
        assert_eq!(objects.last().map(|o| &o.1[..]), Some(&[1u8, 0, 0, 0][..]));
        counts.push(objects[0].1[0]);
        // Each symbolic argument ends in a NUL, as KLEE makes it.
        for (name, bytes) in &objects {
            if name.starts_with("arg") {
                assert_eq!(bytes.last(), Some(&0), "{name}");
            }
        }
        // The argv the objects stand for, as mnemo reads them back.
        let env = posix_env(f);
        assert_eq!(
            env.args.len(),
            1 + counts.last().copied().unwrap_or(0) as usize + 1
        );
        assert_eq!(env.args[0], b"-v");
        assert_eq!(env.files.len(), 2);
        assert_eq!(env.stdin.as_ref().map(Vec::len), Some(4));
        assert_eq!(env.objects, objects.len());
    }
    counts.sort();
    assert_eq!(counts, [1, 2]);
}

const ECHO: &str = r#"
#include <stdio.h>
int main(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    printf("%s|", argv[i]);
  if (argc > 2 && argv[2][0] == 'z')
    return 1;
  return 0;
}
"#;

#[test]
fn each_completed_test_has_the_stdout_its_argv_prints() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "echo", ECHO) else {
        return;
    };
    let out = dir.path().join("out");
    let o = run(&bc, &out, &[], &["x", "--sym-args", "0", "2", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let files = ktests(&out);
    assert!(files.len() >= 4, "{}", files.len());
    for f in &files {
        check_echo_stdout(f);
    }
}

/// The `.stdout` of an ECHO test is what ECHO prints for the argv its
/// objects stand for.
fn check_echo_stdout(ktest: &Path) {
    let env = posix_env(ktest);
    let mut printed = Vec::new();
    for arg in &env.args {
        printed.extend_from_slice(arg);
        printed.push(b'|');
    }
    let stdout = std::fs::read(ktest.with_extension("stdout")).expect(".stdout");
    assert_eq!(
        String::from_utf8_lossy(&stdout),
        String::from_utf8_lossy(&printed),
        "{}",
        ktest.display()
    );
}

/// The model's calls, one assertion each: any that fails is an error path.
const CALLS: &str = r#"
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  char buf[8], c;
  struct stat st;
  const char *none = 0;
  assert(open("missing", O_RDONLY) == -1 && errno == ENOENT);
  assert(open(none, O_RDONLY) == -1 && errno == EFAULT);
  assert(open("B", O_RDONLY) == -1 && errno == ENOENT);
  assert(read(42, buf, 1) == -1 && errno == EBADF);
  assert(close(42) == -1 && errno == EBADF);
  int fd = open("A", O_RDONLY);
  assert(fd == 3);
  /* A's status says whether it is a regular file or an empty directory. */
  assert(fstat(fd, &st) == 0);
  if (S_ISDIR(st.st_mode)) {
    assert(st.st_size == 4096 && st.st_nlink == 2);
    assert(read(fd, buf, 1) == -1 && errno == EISDIR);
    return 0;
  }
  assert(st.st_size == 4);
  assert(stat("A", &st) == 0 && st.st_size == 4 && st.st_blocks == 8);
  assert(read(fd, buf, 3) == 3);
  assert(read(fd, buf + 3, 8) == 1);
  assert(read(fd, buf, 8) == 0);
  assert(lseek(fd, 0, SEEK_END) == 4);
  assert(lseek(fd, -1, SEEK_SET) == -1 && errno == EINVAL);
  assert(lseek(fd, 1, SEEK_SET) == 1);
  assert(read(fd, &c, 1) == 1);
  assert(pread(fd, &c, 1, 3) == 1 && lseek(fd, 0, SEEK_CUR) == 2);
  assert(lseek(0, 0, SEEK_SET) == -1 && errno == ESPIPE);
  int d = dup(fd);
  assert(d == 4 && lseek(d, 0, SEEK_CUR) == 2);
  assert(lseek(d, 0, SEEK_SET) == 0 && lseek(fd, 0, SEEK_CUR) == 0);
  assert(dup2(fd, 9) == 9 && close(fd) == 0 && close(d) == 0);
  assert(read(9, &c, 1) == 1 && (fcntl(9, F_GETFL) & O_ACCMODE) == O_RDONLY);
  assert(read(fd, &c, 1) == -1 && errno == EBADF);
  assert(write(9, "x", 1) == -1 && errno == EBADF);
  assert(!isatty(1) && errno == ENOTTY);
  assert(read(0, buf, 8) == 0);
  char cwd[32];
  assert(getcwd(cwd, 8) == 0 && errno == ERANGE);
  assert(getcwd(cwd, sizeof cwd) && strcmp(cwd, "/tmp/mnemo-replay/cwd") == 0);
  DIR *dir = opendir(".");
  assert(dir);
  int seen = 0;
  struct dirent *e;
  while ((e = readdir(dir)))
    seen += strcmp(e->d_name, "A") == 0;
  assert(seen == 1 && closedir(dir) == 0);
  assert(access("A", F_OK) == 0 && access("zz", F_OK) == -1 && errno == ENOENT);
  /* A's permission bits are symbolic: made concrete, they answer. */
  assert(chmod("A", 0500) == 0 && access("A", R_OK | X_OK) == 0);
  assert(access("A", W_OK) == -1 && errno == EACCES);
  assert(access(".", W_OK) == 0 && access("/", W_OK) == -1 && errno == EACCES);
  assert(readlink("A", buf, sizeof buf) == -1 && errno == EINVAL);
  assert(open("../new", O_WRONLY | O_CREAT, 0644) == -1 && errno == EACCES);
  int made = open("new", O_WRONLY | O_CREAT, 0644);
  assert(made >= 0 && write(made, "ab", 2) == 2 && close(made) == 0);
  assert(stat("new", &st) == 0 && st.st_size == 2 && (st.st_mode & 0777) == 0644);
  assert(umask(077) == 022 && umask(022) == 077);
  char *m = mmap(0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert(m != MAP_FAILED && m[100] == 0);
  m[8191] = 1;
  assert(munmap(m, 8192) == 0 && munmap(buf, 8) == -1);
  struct timespec ts;
  assert(clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts.tv_sec == time(0));
  return 0;
}
"#;

#[test]
fn the_model_answers_each_call_as_the_kernel_would() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "calls", CALLS) else {
        return;
    };
    let out = dir.path().join("out");
    let o = run(&bc, &out, &[], &["--sym-files", "1", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    let reports: Vec<String> = std::fs::read_dir(&out)
        .expect("output")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".err"))
        .map(|e| std::fs::read_to_string(e.path()).expect("read"))
        .collect();
    assert!(reports.is_empty(), "{}", reports.join("\n"));
    assert_eq!(stats["paths"]["completed"], 2, "{stats}");
}

const HOST: &str = r#"
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char text[64];
  struct stat st;
  int fd = open(argv[1], O_RDONLY);
  assert(fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode));
  assert(!(st.st_mode & 0222) && st.st_size == 9);
  long n = read(fd, text, sizeof text);
  assert(n == 9 && write(fd, "x", 1) == -1 && errno == EBADF);
  assert(open(argv[1], O_WRONLY) == -1 && errno == EROFS);
  assert(open(argv[1], O_RDWR | O_TRUNC) == -1 && errno == EROFS);
  assert(open(argv[2], O_RDONLY) >= 0);
  fwrite(text, 1, n, stdout);
  return 0;
}
"#;

#[test]
fn a_host_file_named_with_file_is_read_and_never_written() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "host", HOST) else {
        return;
    };
    let data = dir.path().join("data.txt");
    std::fs::write(&data, "hi there\n").expect("data");
    let full = std::fs::canonicalize(&data).expect("resolves");
    let out = dir.path().join("out");
    // Named relative to the working directory; opened by that name and by
    // its resolved path.
    let o = mnemo()
        .current_dir(dir.path())
        .args(["run", "-q", "--file", "data.txt", "--output-dir"])
        .arg(&out)
        .arg(&bc)
        .arg("data.txt")
        .arg(&full)
        .output()
        .expect("mnemo run starts");
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert_eq!(stats["paths"]["errors"], serde_json::json!({}), "{stats}");
    let stdout = std::fs::read(out.join("test000001.stdout")).expect(".stdout");
    assert_eq!(stdout, b"hi there\n");
    assert_eq!(std::fs::read(&data).expect("data"), b"hi there\n");

    // Not named: it does not exist for the program.
    let out = dir.path().join("out2");
    let o = run(&bc, &out, &[], &[&full.display().to_string(), "x"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["errors"]["assert"], 1, "{stats}");
}

#[test]
fn a_file_that_cannot_be_read_is_an_error_before_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "argc", ARGC) else {
        return;
    };
    let out = dir.path().join("out");
    let missing = dir.path().join("missing.txt");
    let o = run(&bc, &out, &["--file", &missing.display().to_string()], &[]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains(&format!("--file {}", missing.display())) && err.contains("No such file"),
        "{err}"
    );
    assert!(!out.exists());
    let o = run(
        &bc,
        &out,
        &["--file", &dir.path().display().to_string()],
        &[],
    );
    assert!(stderr(&o).contains("not a regular file"), "{}", stderr(&o));
    assert!(!out.exists());
}

#[test]
fn bad_sym_options_are_errors_before_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "argc", ARGC) else {
        return;
    };
    let out = dir.path().join("out");
    for (args, message) in [
        (
            &["--sym-args", "3", "1", "4"][..],
            "--sym-args: MIN 3 is more than MAX 1 (program argument 0)",
        ),
        (
            &["a", "--sym-arg"][..],
            "--sym-arg expects one number <max-len>",
        ),
        (&["--sym-files", "1", "x"][..], "`x` is not a number"),
        (&["--sym-stdin", "4000000000"][..], "out of range"),
        (&["--bout-file", "x"][..], "does not support"),
        (&["--max-fail", "0"][..], "0 failures"),
    ] {
        let o = run(&bc, &out, &[], args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let err = stderr(&o);
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!out.exists(), "{args:?}");
    }
}

const PTRACE: &str = r#"
#include <sys/ptrace.h>
int main(int argc, char **argv) {
  if (argv[1][0] == 's')
    ptrace(PTRACE_TRACEME, 0, 0, 0);
  return 0;
}
"#;

#[test]
fn a_call_the_model_does_not_answer_ends_its_path_with_its_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "ptrace", PTRACE) else {
        return;
    };
    let out = dir.path().join("out");
    let o = run(&bc, &out, &[], &["--sym-arg", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unsupported system calls: 101 (ptrace)"),
        "{}",
        stderr(&o)
    );
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert_eq!(stats["paths"]["errors"]["external"], 1, "{stats}");
    let tests = json(&out.join("tests.json"));
    let error = tests["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|t| t["outcome"] == "error")
        .expect("an error test")
        .clone();
    assert_eq!(
        error["message"], "unsupported system call 101 (ptrace)",
        "{error}"
    );
    // The error path has no .stdout; the completed one has.
    let id = error["id"].as_u64().expect("id");
    assert!(!out.join(format!("test{id:06}.stdout")).exists());
    assert!(out.join(format!("test{:06}.stdout", 3 - id)).exists());
}

/// The names of a run's test files, sorted.
fn test_file_names(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out)
        .expect("output")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("test") && (n.ends_with(".ktest") || n.ends_with(".stdout")))
        .collect();
    names.sort();
    names
}

#[test]
fn a_stopped_and_resumed_run_keeps_each_stdout_with_its_test() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "echo", ECHO) else {
        return;
    };
    let args = ["--sym-args", "0", "3", "1"];
    let whole = dir.path().join("whole");
    let o = run(&bc, &whole, &[], &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = dir.path().join("parts");
    let o = run(&bc, &out, &["--max-instructions", "30000"], &args);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let o = run(&bc, &out, &["--resume"], &args);
    assert!(o.status.success(), "{}", stderr(&o));
    let names = test_file_names(&whole);
    assert!(names.iter().filter(|n| n.ends_with(".stdout")).count() >= 8);
    assert_eq!(names, test_file_names(&out));
    // The inputs may differ from the whole run's (the solver's caches saw
    // other queries); each test's output is its own inputs'.
    for f in ktests(&out) {
        check_echo_stdout(&f);
    }
}
