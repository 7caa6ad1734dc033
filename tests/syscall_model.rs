//! The system calls and thread functions GNU coreutils needs beyond
//! files' contents (tests/data/syscalls_more.c states, by assertions, how
//! the model answers each): one path, completed, with no error and no
//! unsupported call.

use std::path::Path;

#[path = "support/cli.rs"]
mod support;
use support::{compile, json, mnemo, stderr};

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
    let o = mnemo()
        .args(["run", "-q", "--output-dir"])
        .arg(&out)
        .arg(&bc)
        .args(["--sym-files", "1", "4"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("unsupported"), "{}", stderr(&o));
    let stats = json(&out.join("stats.json"));
    assert_eq!(stats["paths"]["completed"], 1, "{stats}");
    assert!(
        stats["paths"]["errors"]
            .as_object()
            .is_none_or(|e| e.is_empty()),
        "{stats}"
    );
}
