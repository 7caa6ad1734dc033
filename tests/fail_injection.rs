//! KLEE's failure injection (`--fd-fail`) end to end: each read, close,
//! getcwd and write of a program fails on a path of its own, and `mnemo
//! replay` fails the same call natively, in a program placed at a fixed
//! address or anywhere (position independent), counting from `main` on;
//! a stripped program, which has no `main` to count from, is a named
//! replay failure rather than a wrong outcome. A test KLEE 3 wrote, with
//! its own names and no `model_version`, seeds the run. The same stop at
//! `main` gives a program an argument with bytes after its NUL, which no
//! exec can.

#[path = "support/cli.rs"]
mod support;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use mnemo::testgen::{KTest, KTestObject, Outcome, TestsJson, Toolchain, TESTS_JSON};
use support::{compile, mnemo, stderr};

/// Each call it makes fails with its own exit status; 8 is a read of `A`
/// as a directory, which the model lets its status say.
const CALLS: &str = r#"
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int main(void) {
  char buf[2], cwd[256];
  int fd = open("A", O_RDONLY);
  if (fd < 0)
    return 9;
  if (read(fd, buf, 2) != 2)
    return errno == EIO ? 1 : 8;
  if (close(fd) != 0)
    return 2;
  if (!getcwd(cwd, sizeof cwd))
    return errno == ENOENT ? 3 : 7;
  if (write(1, "done\n", 5) != 5)
    return 4;
  return 0;
}
"#;

/// `mnemo replay [extra...] PROGRAM OUT`: its exit status and what it printed.
fn replay(program: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let o = mnemo()
        .arg("replay")
        .args(extra)
        .arg(program)
        .arg(out)
        .output()
        .expect("runs");
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    (o.status.code(), text)
}

/// `mnemo run` of `bc` into `out` with the program's arguments after it
/// (`support::run_linked` puts its extra ones before), which must succeed:
/// the tests it lists.
fn run_with_args(bc: &Path, out: &Path, program_args: &[&str]) -> TestsJson {
    let o = mnemo()
        .args(["run", "--store", "none", "--output-dir"])
        .arg(out)
        .arg(bc)
        .args(program_args)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    TestsJson::read(&out.join(TESTS_JSON)).expect("tests.json")
}

/// `source` built natively position independent, and that build stripped.
fn pie_and_stripped(source: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let tc = Toolchain::find().expect("toolchain");
    let pie = source.with_extension("pie");
    tc.compile_native_with(source, &pie, &["-fPIE", "-pie"])
        .expect("native build");
    let stripped = source.with_extension("stripped");
    let s = Command::new("llvm-strip-14")
        .arg(&pie)
        .arg("-o")
        .arg(&stripped)
        .status()
        .expect("llvm-strip-14");
    assert!(s.success());
    (pie, stripped)
}

#[test]
fn every_call_fails_on_a_path_and_natively_on_its_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "calls", CALLS) else {
        return;
    };
    let out = dir.path().join("out");
    let index = run_with_args(&bc, &out, &["--sym-files", "1", "2", "--fd-fail"]);
    let codes: BTreeSet<u8> = index
        .tests
        .iter()
        .map(|t| match t.outcome {
            Outcome::Exit { exit_code } => exit_code,
            ref other => panic!("{}: {other:?}", t.ktest),
        })
        .collect();
    // No failure, then each call's, then A as a directory.
    assert_eq!(codes, BTreeSet::from([0, 1, 2, 3, 4, 8]));
    let n = index.tests.len();
    assert_eq!(n, 7, "a path per failed call, two where A is a directory");

    let src = dir.path().join("calls.c");
    let (status, text) = replay(&src, &out, &[]);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains(&format!("{n} tests: {n} match,")), "{text}");

    // The same program, position independent: main is where the kernel
    // placed the program.
    let (pie, stripped) = pie_and_stripped(&src);
    let image = std::fs::read(&pie).expect("read");
    assert_eq!(image[16], 3, "ET_DYN: a position-independent program");
    let (status, text) = replay(&pie, &out, &[]);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains(&format!("{n} tests: {n} match,")), "{text}");

    // Stripped, it cannot be counted from main: the tests that fail a
    // call are replay failures that say why, the others replay.
    let (_, text) = replay(&stripped, &out, &[]);
    assert!(
        text.contains(&format!(
            "{n} tests: 2 match, 0 mismatch, 0 not predicted, 5 replay failed"
        )),
        "{text}"
    );
    assert!(text.contains("no symbol `main`"), "{text}");

    // A script names the calls its path failed.
    let (status, text) = replay(&src, &out, &["--as-commands"]);
    assert_eq!(status, Some(0), "{text}");
    let scripts: String = index
        .tests
        .iter()
        .map(|t| std::fs::read_to_string(out.join(&t.ktest).with_extension("sh")).expect("script"))
        .collect();
    for call in [
        "read 1 (EIO)",
        "close 1 (EIO)",
        "getcwd 1 (ENOENT)",
        "write 1 (EIO)",
    ] {
        assert!(scripts.contains(call), "{call} in no script");
    }
}

#[test]
fn a_klee3_test_seeds_the_path_that_fails_its_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "calls", CALLS) else {
        return;
    };
    // As KLEE 3.2 writes it: `A_data`, `A_data_stat`, no model_version;
    // the path that fails the first close.
    let args = ["--sym-files", "1", "2", "--fd-fail"];
    let obj = |name: &str, bytes: Vec<u8>| KTestObject {
        name: name.into(),
        bytes,
    };
    let mut stat = vec![0u8; 144];
    stat[24..28].copy_from_slice(&0o100644u32.to_le_bytes());
    let mut objects = vec![obj("A_data", b"ab".to_vec()), obj("A_data_stat", stat)];
    for (name, index) in [
        ("read_fail", 0),
        ("write_fail", 0),
        ("close_fail", 1),
        ("ftruncate_fail", 0),
        ("getcwd_fail", 0),
    ] {
        objects.push(obj(name, i32::to_le_bytes(index).to_vec()));
    }
    let seed = dir.path().join("klee3.ktest");
    KTest {
        args: std::iter::once("calls.bc")
            .chain(args)
            .map(String::from)
            .collect(),
        objects,
        ..KTest::default()
    }
    .write_atomic(&seed)
    .expect("write seed");
    let out = dir.path().join("out");
    let o = mnemo()
        .args(["run", "--store", "none", "--only-seed", "--seed-file"])
        .arg(&seed)
        .arg("--output-dir")
        .arg(&out)
        .arg(&bc)
        .args(args)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("is left"), "{}", stderr(&o));
    let index = TestsJson::read(&out.join(TESTS_JSON)).expect("tests.json");
    let exits: Vec<u8> = index
        .tests
        .iter()
        .filter_map(|t| match t.outcome {
            Outcome::Exit { exit_code } => Some(exit_code),
            _ => None,
        })
        .collect();
    assert_eq!(exits, [2], "the seed's path, and only it, ran to its end");
}

/// Reads its argument's second byte whatever the first: where that is NUL
/// and the second 'b', the path is one an exec cannot give.
const PAST_NUL: &str = r#"
int main(int argc, char **argv) {
  if (argv[1][0] == 'a')
    return 1;
  if (argv[1][1] == 'b')
    return 2;
  return 0;
}
"#;

#[test]
fn an_argument_with_bytes_after_its_nul_is_laid_out_at_main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "past", PAST_NUL) else {
        return;
    };
    let out = dir.path().join("out");
    let index = run_with_args(&bc, &out, &["--sym-arg", "2"]);
    assert_eq!(index.tests.len(), 3);
    let laid_out: Vec<_> = index
        .tests
        .iter()
        .filter(|t| {
            let test = KTest::read(&out.join(&t.ktest)).expect("ktest");
            test.objects[0].bytes[0] == 0 && test.objects[0].bytes[1] == b'b'
        })
        .collect();
    assert_eq!(laid_out.len(), 1, "one path needs a byte after the NUL");

    let src = dir.path().join("past.c");
    let (status, text) = replay(&src, &out, &[]);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains("3 tests: 3 match,"), "{text}");

    // Built apart (no replay library), position independent, and stripped.
    let (pie, stripped) = pie_and_stripped(&src);
    let (status, text) = replay(&pie, &out, &[]);
    assert_eq!(status, Some(0), "{text}");
    assert!(text.contains("3 tests: 3 match,"), "{text}");
    let (_, text) = replay(&stripped, &out, &[]);
    assert!(
        text.contains("3 tests: 2 match, 0 mismatch, 0 not predicted, 1 replay failed"),
        "{text}"
    );
    assert!(
        text.contains("bytes after its NUL") && text.contains("no symbol `main`"),
        "{text}"
    );

    let (status, text) = replay(&src, &out, &["--as-commands"]);
    assert_eq!(status, Some(0), "{text}");
    let script =
        std::fs::read_to_string(out.join(&laid_out[0].ktest).with_extension("sh")).expect("script");
    assert!(
        script.contains("# Argument 1 has bytes after its NUL"),
        "{script}"
    );
}
