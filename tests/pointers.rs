//! Memory through symbolic pointers and sizes: an access past an object
//! is named by the object, a pointer the path fixes is read at its one
//! address, a pointer read whole from input reaches every object, and a
//! free allocation size forks over a bounded number of values.

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, run, stderr};

const OVERRUN: &str = r#"
#include <stdlib.h>
int main(void) {
  char *p = malloc(20);
  volatile char c = p[22];
  return c;
}
"#;

/// Runs `bc` into `dir/out` and gives the first error report it wrote.
fn first_error_report(bc: &std::path::Path, dir: &std::path::Path) -> String {
    let out = dir.join("out");
    let o = run(bc, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().ends_with(".err"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("an .err file")
}

#[test]
fn an_access_past_an_object_names_the_object_it_overran() {
    let dir = tempfile::tempdir().unwrap();
    let Some(bc) = compile(dir.path(), "overrun", OVERRUN) else {
        return;
    };
    let report = first_error_report(&bc, dir.path());
    assert!(
        report.contains("which is in no object (2 bytes past the end of `malloc`, 20 bytes at 0x"),
        "{report}"
    );
}

/// A write of a buffer that runs past its object is a memory error where
/// the bytes leave it, as a native run's (ASan's report of what `write`
/// read).
#[test]
fn a_write_past_its_buffer_is_an_error_where_the_bytes_leave_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = "#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n\
                  int main(void) { char *p = malloc(4); if (!p) return 1;\n\
                  memcpy(p, \"abc\", 4); return write(1, p, 16) == 16; }\n";
    let Some(bc) = compile(dir.path(), "write_past", source) else {
        return;
    };
    let report = first_error_report(&bc, dir.path());
    assert!(report.contains("output read from 0x"), "{report}");
    assert!(report.contains("which is in no object"), "{report}");
}

/// A pointer moved by a symbolic match without a branch forks once per
/// word it may point to; on each of those paths it then has one address,
/// which the run finds once and the later reads through it use.
#[test]
fn a_pointer_the_path_fixes_is_read_at_its_one_address() {
    let dir = tempfile::tempdir().expect("tempdir");
    let source = include_str!("../testsuite/ptr_moved_by_match.c");
    let Some(bc) = compile(dir.path(), "moved", source) else {
        return;
    };
    let out = dir.path().join("out");
    let o = run(&bc, &out, &[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 6, "{stats}");
    // On each word's path: the word's pointer, and, at the next read of
    // `*args`, `args` itself, which the word chosen fixed too.
    assert_eq!(stats["solver"]["fixed_addresses"], 6, "{stats}");
}

/// A pointer read whole from input reaches every object a 4-byte read
/// fits in: more than one fork's targets once the runtime's objects are
/// there, which forks again over the rest in address order.
const WILD_POINTER: &str = r#"
#include <klee/klee.h>
struct conf { int *slot; int mode; };
int g1 = 11, g2 = 22;
int main(void) {
  struct conf c;
  klee_make_symbolic(&c, sizeof c, "c");
  int local = 33;
  if (c.mode != 1) return 0;
  return *c.slot + (local - 33);
}
"#;

#[test]
fn a_pointer_read_from_input_reaches_every_object_and_the_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "wild", WILD_POINTER) else {
        return;
    };
    for runtime in [false, true] {
        let out = dir.path().join(format!("out-{runtime}"));
        let mut c = mnemo();
        c.args(["run", "-q", "--output-dir"]).arg(&out);
        if !runtime {
            c.arg("--no-runtime");
        }
        let o = c.arg(&bc).output().expect("mnemo run");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let stats = json(&out.join("stats.json"));
        // Outside every object: one error path, wherever its model falls.
        let errors = &stats["paths"]["errors"];
        let count: u64 = errors
            .as_object()
            .expect("errors")
            .values()
            .filter_map(|n| n.as_u64())
            .sum();
        assert_eq!(count, 1, "{stats}");
        assert!(
            stats["paths"]["early"]
                .as_object()
                .expect("early")
                .is_empty(),
            "{stats}"
        );
        let tests = json(&out.join("tests.json"));
        let codes: std::collections::BTreeSet<i64> = tests["tests"]
            .as_array()
            .expect("tests")
            .iter()
            .filter_map(|t| t["exit_code"].as_i64())
            .collect();
        for code in [0, 11, 22, 33] {
            assert!(codes.contains(&code), "no path exits {code}: {codes:?}");
        }
        let completed = stats["paths"]["completed"].as_u64().expect("completed");
        // The C library's objects are far more than one fork's 16.
        let least = if runtime { 20 } else { 4 };
        assert!(completed >= least, "{stats}");
    }
}

const ANY_SIZE: &str = r#"
#include <stdlib.h>
#include <klee/klee.h>
int main(void) {
  unsigned short n;
  klee_make_symbolic(&n, sizeof n, "n");
  char *p = malloc(n);
  if (!p) return 1;
  if (n > 3) p[3] = 1;
  free(p);
  return 0;
}
"#;

/// A size free to take 65,536 values forks over 1,024 of them, each path
/// with its own, and the path holding the rest ends early and says so,
/// where it would otherwise fork for ever.
#[test]
fn a_free_allocation_size_forks_over_1024_values_then_ends_early() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "any_size", ANY_SIZE) else {
        return;
    };
    let out = dir.path().join("out");
    run(&bc, &out, &[]);
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 1024, "{stats}");
    assert_eq!(stats["paths"]["early"]["max-values"], 1, "{stats}");
    assert_eq!(stats["tests"], 1025, "{stats}");
    let tests = json(&out.join("tests.json"));
    let mut sizes = std::collections::BTreeSet::new();
    for t in tests["tests"].as_array().expect("tests") {
        let name = t["ktest"].as_str().expect("ktest name");
        let ktest = mnemo::testgen::KTest::read(&out.join(name)).expect("a ktest");
        let n = &ktest.objects[0].bytes;
        sizes.insert(u16::from_le_bytes([n[0], n[1]]));
    }
    // The early path's size is one the completed paths did not take.
    assert_eq!(sizes.len(), 1025);
}
