//! Programs running on the C library the engine links (musl in bitcode):
//! stdio's buffers written at exit, atexit, a system call the engine does
//! not model, and a run linking only what its program uses.

use std::path::Path;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};

/// `mnemo run -q --show-output --output-dir OUT BC`: its stdout and stderr.
fn run_showing(bc: &Path, out: &Path) -> (String, String, Option<i32>) {
    let o = mnemo()
        .args(["run", "-q", "--show-output", "--output-dir"])
        .arg(out)
        .arg(bc)
        .output()
        .expect("mnemo run starts");
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr(&o),
        o.status.code(),
    )
}

const STDIO: &str = r#"
#include <stdio.h>
#include <stdlib.h>
static void last(void) { printf("atexit %d\n", 3); }
int main(void) {
  atexit(last);
  printf("%s %d %5.2f|%-4x|\n", "printf", -42, 3.25, 255u);
  puts("puts");
  fputs("stderr\n", stderr);
  char buf[16];
  snprintf(buf, sizeof buf, "%ld", 1234567890123L);
  return buf[12] == '3' ? 0 : 1;
}
"#;

#[test]
fn stdio_output_is_written_at_exit_after_the_atexit_handlers() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "stdio", STDIO) else {
        return;
    };
    let (out, err, code) = run_showing(&bc, &dir.path().join("out"));
    assert_eq!(code, Some(0), "{err}");
    // stdout is fully buffered (no terminal): all of it comes at exit,
    // after what the atexit handler printed into the same buffer.
    assert_eq!(out, "printf -42  3.25|ff  |\nputs\natexit 3\n", "{err}");
    assert!(err.contains("stderr\n"), "{err}");
    let stats = json(&dir.path().join("out/stats.json"));
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    // The library's own code is not the program's coverage.
    let pct = stats["coverage"]["instructions_pct"]
        .as_f64()
        .unwrap_or(0.0);
    assert!(pct > 99.0, "{stats}");
}

const PTRACE: &str = r#"
#include <sys/ptrace.h>
#include <klee/klee.h>
int main(void) {
  int a = klee_int("a");
  if (a == 7)
    ptrace(PTRACE_TRACEME, 0, 0, 0);
  return 0;
}
"#;

#[test]
fn a_system_call_the_engine_does_not_model_ends_its_path_and_is_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "ptrace", PTRACE) else {
        return;
    };
    let out = dir.path().join("out");
    let (_, err, code) = run_showing(&bc, &out);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("unsupported system calls: 101 (ptrace)"),
        "{err}"
    );
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert_eq!(stats["paths"]["errors"]["external"], 1, "{stats}");
    let report = std::fs::read_dir(&out)
        .expect("output")
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".err"))
        .map(|e| std::fs::read_to_string(e.path()).expect("read"))
        .expect("an .err file");
    assert!(
        report.contains("unsupported system call 101 (ptrace)"),
        "{report}"
    );
}

#[test]
fn every_worker_s_unsupported_system_calls_are_named() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "ptrace", PTRACE) else {
        return;
    };
    for jobs in ["2", "3"] {
        let o = mnemo()
            .args(["run", "-q", "--jobs", jobs, "--output-dir"])
            .arg(dir.path().join(format!("out{jobs}")))
            .arg(&bc)
            .output()
            .expect("mnemo run starts");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        assert!(
            err.contains("unsupported system calls: 101 (ptrace)"),
            "--jobs {jobs}: {err}"
        );
    }
}

#[test]
fn a_run_links_only_the_library_objects_its_program_uses() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "stdio", STDIO) else {
        return;
    };
    let runtime = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime/build/musl");
    let module = mnemo::ir::load_module(&bc, &[runtime.as_path()], false).expect("loads");
    let defined = |name: &str| {
        module
            .functions
            .iter()
            .any(|f| f.name == name && f.body.is_some())
    };
    for name in ["printf", "vfprintf", "puts", "atexit", "exit", "snprintf"] {
        assert!(defined(name), "{name} is linked");
    }
    // Nothing the program does not reach: no scanf, no regex, no math.
    for name in ["scanf", "regcomp", "sin", "qsort", "getopt"] {
        assert!(!defined(name), "{name} is not linked");
    }
    let bodies = module.functions.iter().filter(|f| f.body.is_some()).count();
    // The model of system calls is linked whole (about 275 functions
    // with stdio's); the runtime's musl defines thousands of symbols.
    assert!(bodies < 300, "{bodies} functions linked");
}
