//! The system calls and thread functions GNU coreutils needs beyond
//! files' contents (tests/data/syscalls_more.c states, by assertions, how
//! the model answers each): one path, completed, with no error and no
//! unsupported call.

use std::path::Path;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};

/// `mnemo run -q --output-dir OUT BC PROGRAM_ARGS...`, which must succeed
/// with no unsupported call; its `stats.json`.
fn run_supported(bc: &Path, out: &Path, program_args: &[&str]) -> serde_json::Value {
    let o = mnemo()
        .args(["run", "-q", "--output-dir"])
        .arg(out)
        .arg(bc)
        .args(program_args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("unsupported"), "{}", stderr(&o));
    json(&out.join("stats.json"))
}

#[test]
fn the_model_answers_what_coreutils_asks() {
    let dir = tempfile::tempdir().unwrap();
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syscalls_more.c"),
    )
    .unwrap();
    let Some(bc) = compile(dir.path(), "syscalls_more", &source) else {
        return;
    };
    let out = dir.path().join("out");
    let stats = run_supported(&bc, &out, &["--sym-files", "1", "4"]);
    // A is a regular file or an empty directory.
    assert_eq!(stats["paths"]["completed"], 2, "{stats}");
    assert!(
        stats["paths"]["errors"]
            .as_object()
            .is_none_or(|e| e.is_empty()),
        "{stats}"
    );
}

/// `sleep inf` waits in `pause` and `timeout` in `sigsuspend`, for a
/// signal the engine never delivers; `tail -f` in `read` for an inotify
/// event, and nothing but the program changes the model's files; a read
/// of an empty pipe whose write end is open, and an open of a FIFO, for
/// another process.
const WAITS_FOR_EVER: &str = r#"
#include <fcntl.h>
#include <klee/klee.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>
int main(void) {
  int a = klee_int("a");
  if (a == 1)
    pause();
  if (a == 2) {
    sigset_t none;
    sigemptyset(&none);
    sigsuspend(&none);
  }
  if (a == 3) {
    int in = inotify_init1(0);
    char event[64];
    if (in >= 0 && inotify_add_watch(in, ".", IN_MODIFY) == 1)
      read(in, event, sizeof event);
  }
  if (a == 4) {
    int ends[2];
    char c;
    if (pipe(ends) == 0)
      read(ends[0], &c, 1);
  }
  if (a == 5 && mkfifo("p", 0600) == 0)
    open("p", O_WRONLY);
  return 0;
}
"#;

#[test]
fn a_path_that_waits_for_ever_ends_early_as_blocked() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bc) = compile(dir.path(), "waits", WAITS_FOR_EVER) else {
        return;
    };
    let out = dir.path().join("out");
    let stats = run_supported(&bc, &out, &[]);
    assert_eq!(stats["paths"]["early"]["blocked"], 5, "{stats}");
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert_eq!(early_tests(&out, "blocked"), 5);
}

/// How many of the tests in `out` are of paths ended early for `reason`.
fn early_tests(out: &Path, reason: &str) -> usize {
    let tests = json(&out.join("tests.json"));
    tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["outcome"] == "early" && t["reason"] == reason)
        .count()
}

/// kill to the process itself or its group: the signal is not delivered,
/// and the path ends early, as it does where it waits for one.
#[test]
fn a_signal_the_process_sends_itself_ends_its_path_early() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bc) = compile(
        dir.path(),
        "self_kill",
        "#include <klee/klee.h>\n#include <signal.h>\n#include <unistd.h>\n\
         int main(void) { int a = klee_int(\"a\");\n\
           if (a == 1) kill(0, SIGTERM);\n\
           if (a == 2) kill(getpid(), SIGUSR1);\n\
           return kill(getpid(), 0); }\n",
    ) else {
        return;
    };
    let out = dir.path().join("out");
    let stats = run_supported(&bc, &out, &[]);
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert_eq!(stats["paths"]["early"]["signalled"], 2, "{stats}");
    assert_eq!(early_tests(&out, "signalled"), 2);
}
