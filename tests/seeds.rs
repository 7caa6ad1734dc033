//! Seeds (`--seed-file`, `--seed-dir`, `--only-seed`): recorded tests whose
//! paths a run explores first, as KLEE's seeding does; with `--only-seed`
//! their paths alone, the rest left for `--resume`.

use std::path::{Path, PathBuf};

use mnemo::testgen::{KTest, KTestObject};

#[path = "support/cli.rs"]
mod support;
use support::{
    compile, json, mnemo, path, path_count, replays_natively, resume_ends_as_whole, run_ended,
    stderr, trie_text,
};

/// Eight input bytes; an assertion fails on the four-byte magic word
/// followed by 'O': a needle the searcher meets after hundreds of paths,
/// 504 paths in all. The score's function is one `--compose` summarises.
const MAGIC: &str = r#"
#include <klee/klee.h>
#include <assert.h>
static int above(unsigned char c) {
  if (c > 'a')
    return 1;
  return 0;
}
int main(void) {
  unsigned char buf[8];
  klee_make_symbolic(buf, sizeof buf, "buf");
  int score = 0;
  for (int i = 0; i < 8; i++)
    score += above(buf[i]);
  if (buf[0] == 'M' && buf[1] == 'N' && buf[2] == 'E' && buf[3] == 'M')
    assert(buf[4] != 'O');
  return score;
}
"#;

/// A ktest with one object, `buf`, of these bytes.
fn seed(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    seed_of(dir, name, &[("buf", bytes)])
}

/// A ktest with these objects (name, bytes), in this order.
fn seed_of(dir: &Path, name: &str, objects: &[(&str, &[u8])]) -> PathBuf {
    let file = dir.join(name);
    KTest {
        args: vec!["magic.bc".into()],
        objects: objects
            .iter()
            .map(|(name, bytes)| KTestObject {
                name: name.to_string(),
                bytes: bytes.to_vec(),
            })
            .collect(),
        ..Default::default()
    }
    .write_atomic(&file)
    .unwrap_or_else(|e| panic!("{e}"));
    file
}

/// How a run's paths ended, besides how many followed a seed.
fn ends(stats: &serde_json::Value) -> serde_json::Value {
    let mut paths = stats["paths"].clone();
    if let Some(p) = paths.as_object_mut() {
        p.remove("seeded");
    }
    paths
}

/// The tests of `out`'s `tests.json` with this outcome.
fn tests_with(out: &Path, outcome: &str) -> Vec<KTest> {
    json(&out.join("tests.json"))["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["outcome"] == outcome)
        .map(|t| {
            let file = out.join(t["ktest"].as_str().expect("ktest name"));
            KTest::read(&file).unwrap_or_else(|e| panic!("{e}"))
        })
        .collect()
}

#[test]
fn only_seed_explores_the_seeds_paths_and_resume_the_rest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "magic", MAGIC) else {
        return;
    };
    let d = dir.path();
    let seeds = d.join("seeds");
    std::fs::create_dir(&seeds).expect("seed dir");
    seed(&seeds, "needle.ktest", b"MNEMOxyz");
    seed(&seeds, "plain.ktest", b"zzzzzzzz");
    let whole_memo = d.join("memo-whole");
    let (_, whole, _) = run_ended(&bc, &d.join("whole"), &["--memo", path(&whole_memo)]);
    assert_eq!(path_count(&whole, "errors", "assert"), 8, "{whole}");

    let (memo, out) = (d.join("memo"), d.join("out"));
    let only = [
        "--memo",
        path(&memo),
        "--only-seed",
        "--seed-dir",
        path(&seeds),
    ];
    let (code, seeded, _) = run_ended(&bc, &out, &only);
    assert_eq!(code, Some(0), "{seeded}");
    // One path per seed; every path branching off them ends there.
    assert_eq!(path_count(&seeded, "errors", "assert"), 1, "{seeded}");
    assert_eq!(seeded["paths"]["completed"], 1, "{seeded}");
    assert_eq!(seeded["paths"]["seeded"], 2, "{seeded}");
    assert!(path_count(&seeded, "early", "only-seed") >= 8, "{seeded}");
    // The seed's path is tested with the seed's inputs.
    let error = tests_with(&out, "error");
    assert_eq!(error.len(), 1);
    assert_eq!(error[0].objects[0].bytes, b"MNEMOxyz");
    replays_natively(&d.join("magic.c"), &out);

    // Resumed without seeds, the run ends as the whole run did.
    resume_ends_as_whole(&bc, &out, &memo, (&whole, &whole_memo));
}

#[test]
fn a_seeded_path_runs_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "magic", MAGIC) else {
        return;
    };
    let d = dir.path();
    let needle = seed(d, "needle.ktest", b"MNEMOxyz");
    let stop = ["--jobs", "1", "--exit-on-error"];
    // Unseeded, hundreds of paths end before the assertion's.
    let (code, blind, _) = run_ended(&bc, &d.join("blind"), &stop);
    assert_eq!(code, Some(3), "{blind}");
    assert!(blind["paths"]["completed"].as_u64() > Some(10), "{blind}");
    // Seeded, the assertion's path is the first to end.
    let (code, seeded, _) = run_ended(
        &bc,
        &d.join("seeded"),
        &[&stop[..], &["--seed-file", path(&needle)]].concat(),
    );
    assert_eq!(code, Some(3), "{seeded}");
    assert_eq!(path_count(&seeded, "errors", "assert"), 1, "{seeded}");
    assert_eq!(seeded["paths"]["completed"], 0, "{seeded}");
    assert_eq!(seeded["paths"]["seeded"], 1, "{seeded}");
}

#[test]
fn a_whole_runs_tests_as_seeds_give_the_whole_run_back() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "magic", MAGIC) else {
        return;
    };
    let d = dir.path();
    let (whole_memo, whole_out) = (d.join("memo-whole"), d.join("whole"));
    let (_, whole, _) = run_ended(&bc, &whole_out, &["--memo", path(&whole_memo)]);
    // Composed calls too: summaries are built without the seeds.
    for (name, extra) in [
        ("one", &["--jobs", "1"][..]),
        ("three", &["--jobs", "3"]),
        ("composed", &["--compose"]),
    ] {
        let memo = d.join(format!("memo-{name}"));
        let out = d.join(format!("out-{name}"));
        let seeded = [
            "--memo",
            path(&memo),
            "--only-seed",
            "--seed-dir",
            path(&whole_out),
        ];
        let (code, seeded, _) = run_ended(&bc, &out, &[extra, &seeded[..]].concat());
        assert_eq!(code, Some(0), "{seeded}");
        assert_eq!(ends(&seeded), ends(&whole), "{name}");
        assert_eq!(seeded["paths"]["seeded"], 504, "{name}");
        // A composed run's trie records a replayed callee's paths as
        // such: it is compared with a composed run's.
        let plain_memo = d.join(format!("memo-{name}-plain"));
        let plain = ["--memo", path(&plain_memo)];
        run_ended(
            &bc,
            &d.join(format!("plain-{name}")),
            &[extra, &plain[..]].concat(),
        );
        assert!(
            trie_text(&memo) == trie_text(&plain_memo),
            "{name}: the tries differ"
        );
        if name != "composed" {
            assert!(
                trie_text(&memo) == trie_text(&whole_memo),
                "{name}: the tries differ"
            );
        }
        // Each path's test is the seed that took it.
        for t in ["test000001.ktest", "test000200.ktest", "test000504.ktest"] {
            let read = |dir: &Path| KTest::read(&dir.join(t)).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(read(&out).objects, read(&whole_out).objects, "{name}: {t}");
        }
    }
}

#[test]
fn a_seed_that_does_not_fit_is_left_unless_allowed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "magic", MAGIC) else {
        return;
    };
    let d = dir.path();
    let short = seed(d, "short.ktest", b"MNEMO");
    let only = ["--only-seed", "--seed-file", path(&short)];
    // Left at the input it does not fit: no path follows a seed.
    let (code, left, said) = run_ended(&bc, &d.join("left"), &only);
    assert_eq!(code, Some(0), "{left}");
    assert!(said.contains("short.ktest is left"), "{said}");
    assert!(said.contains("--allow-seed-extension"), "{said}");
    assert_eq!(path_count(&left, "early", "only-seed"), 1, "{left}");
    // Padded with zeros, it reaches the assertion.
    let (_, padded, said) = run_ended(
        &bc,
        &d.join("padded"),
        &[&only[..], &["--allow-seed-extension"]].concat(),
    );
    assert!(!said.contains("is left"), "{said}");
    assert_eq!(path_count(&padded, "errors", "assert"), 1, "{padded}");
    assert_eq!(
        tests_with(&d.join("padded"), "error")[0].objects[0].bytes,
        b"MNEMO\0\0\0"
    );
    // Cut to size, a longer one does too.
    let long = seed(d, "long.ktest", b"MNEMOxyz++");
    let (_, cut, _) = run_ended(
        &bc,
        &d.join("cut"),
        &[
            "--only-seed",
            "--allow-seed-truncation",
            "--seed-file",
            path(&long),
        ],
    );
    assert_eq!(path_count(&cut, "errors", "assert"), 1, "{cut}");
}

#[test]
fn bad_seeds_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "magic", MAGIC) else {
        return;
    };
    let d = dir.path();
    let empty = d.join("empty");
    std::fs::create_dir(&empty).expect("dir");
    let corrupt = d.join("corrupt.ktest");
    std::fs::write(&corrupt, b"KTEST\0\0").expect("write");
    let good = seed(d, "good.ktest", b"MNEMOxyz");
    let refusals: [(&[&str], &str); 6] = [
        (&["--seed-dir", path(&empty)], "holds no .ktest file"),
        (&["--seed-file", path(&corrupt)], "cannot read the seed"),
        (&["--only-seed"], "--only-seed needs seeds"),
        (&["--seed-time", "5"], "--seed-time needs seeds"),
        (
            &["--named-seed-matching"],
            "--named-seed-matching needs seeds",
        ),
        (
            &[
                "--jobs",
                "2",
                "--balance",
                "trie",
                "--seed-file",
                path(&good),
            ],
            "--balance trie",
        ),
    ];
    for (i, (extra, why)) in refusals.into_iter().enumerate() {
        let out = d.join(format!("out{i}"));
        let o = support::run(&bc, &out, extra);
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(why), "{extra:?}: {}", stderr(&o));
    }
}

#[test]
fn seeds_from_a_run_on_symbolic_arguments_and_stdin_take_its_paths() {
    let dir = tempfile::tempdir().expect("tempdir");
    // echo reads no stdin; its object still comes after the arguments'.
    let source = include_str!("../testsuite/tool_echo.c");
    let Some(bc) = compile(dir.path(), "echo", source) else {
        return;
    };
    let d = dir.path();
    let args = ["--sym-args", "0", "2", "2", "--sym-stdin", "1"];
    let run_with = |memo: &Path, out: &Path, extra: &[&str]| {
        let o = mnemo()
            .args(["run", "-q", "--memo", path(memo), "--output-dir", path(out)])
            .args(extra)
            .arg(&bc)
            .args(args)
            .output()
            .expect("mnemo run");
        assert!(o.status.success(), "{}", stderr(&o));
        json(&out.join("stats.json"))
    };
    let whole = run_with(&d.join("memo-args"), &d.join("args"), &[]);
    assert_eq!(whole["paths"]["completed"], 101, "{whole}");
    let seeded = run_with(
        &d.join("memo-seeded"),
        &d.join("seeded"),
        &["--only-seed", "--seed-dir", path(&d.join("args"))],
    );
    assert_eq!(ends(&seeded), ends(&whole));
    assert_eq!(seeded["paths"]["seeded"], 101, "{seeded}");
    assert_eq!(
        trie_text(&d.join("memo-seeded")),
        trie_text(&d.join("memo-args"))
    );
}

/// MAGIC's next version: an input made before `buf`, and a way out on it.
const MAGIC_WITH_MODE: &str = r#"
#include <klee/klee.h>
#include <assert.h>
int main(void) {
  unsigned char mode;
  klee_make_symbolic(&mode, sizeof mode, "mode");
  if (mode > 100)
    return 7;
  unsigned char buf[8];
  klee_make_symbolic(buf, sizeof buf, "buf");
  if (buf[0] == 'M' && buf[1] == 'N' && buf[2] == 'E' && buf[3] == 'M')
    assert(buf[4] != 'O');
  return 0;
}
"#;

#[test]
fn named_seed_matching_gives_each_input_the_object_of_its_name() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "mode", MAGIC_WITH_MODE) else {
        return;
    };
    let d = dir.path();
    // Recorded with the objects in another order than the program makes them.
    let swapped = seed_of(d, "swapped.ktest", &[("buf", b"MNEMOxyz"), ("mode", &[3])]);
    let only = ["--only-seed", "--seed-file", path(&swapped)];
    // By place, `mode` would take `buf`'s eight bytes: the seed is left.
    let (_, by_place, said) = run_ended(&bc, &d.join("place"), &only);
    assert!(said.contains("swapped.ktest is left"), "{said}");
    assert!(
        said.contains("--named-seed-matching") || said.contains("'buf'"),
        "{said}"
    );
    assert_eq!(path_count(&by_place, "errors", "assert"), 0, "{by_place}");
    assert_eq!(by_place["paths"]["seeded"], 0, "{by_place}");
    // By name, each takes its own: the seed's path reaches the assertion,
    // and its test lists the objects as the program makes them.
    let out = d.join("name");
    let (code, by_name, said) =
        run_ended(&bc, &out, &[&only[..], &["--named-seed-matching"]].concat());
    assert_eq!(code, Some(0), "{by_name}");
    assert!(!said.contains("is left"), "{said}");
    assert_eq!(path_count(&by_name, "errors", "assert"), 1, "{by_name}");
    assert_eq!(by_name["paths"]["seeded"], 1, "{by_name}");
    let error = &tests_with(&out, "error")[0];
    let objects: Vec<(&str, &[u8])> = error
        .objects
        .iter()
        .map(|o| (o.name.as_str(), &o.bytes[..]))
        .collect();
    assert_eq!(objects, [("mode", &[3u8][..]), ("buf", b"MNEMOxyz")]);
    replays_natively(&d.join("mode.c"), &out);
}

#[test]
fn the_last_versions_tests_seed_the_next_version_which_adds_an_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    let (Some(old), Some(new)) = (
        compile(d, "magic", MAGIC),
        compile(d, "mode", MAGIC_WITH_MODE),
    ) else {
        return;
    };
    let old_out = d.join("old");
    let (_, whole, _) = run_ended(&old, &old_out, &[]);
    assert_eq!(whole["tests"], 504, "{whole}");
    // `mode` is no object of theirs: made zero, it lets every seed on to
    // `buf`, where they take each of the new version's six paths there;
    // the way out on `mode` is the only path none takes.
    let named = [
        "--only-seed",
        "--named-seed-matching",
        "--allow-seed-extension",
        "--seed-dir",
        path(&old_out),
    ];
    let (code, seeded, _) = run_ended(&new, &d.join("new"), &named);
    assert_eq!(code, Some(0), "{seeded}");
    assert_eq!(seeded["paths"]["seeded"], 6, "{seeded}");
    assert_eq!(path_count(&seeded, "errors", "assert"), 1, "{seeded}");
    assert_eq!(path_count(&seeded, "early", "only-seed"), 1, "{seeded}");
    // By place, each seed's `buf` goes to `mode`, one byte, and is left.
    let by_place = [&named[..1], &named[2..]].concat();
    let (_, left, _) = run_ended(&new, &d.join("place"), &by_place);
    assert_eq!(left["paths"]["seeded"], 0, "{left}");
}

#[test]
fn past_the_seed_time_paths_leave_their_seeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(bc) = compile(dir.path(), "magic", MAGIC) else {
        return;
    };
    let d = dir.path();
    let needle = seed(d, "needle.ktest", b"MNEMOxyz");
    // A microsecond is over before the first instruction: the seeded
    // path leaves its seed at once, and under `--only-seed` ends there.
    let over = ["--seed-time", "0.000001", "--seed-file", path(&needle)];
    let (code, ended, _) = run_ended(
        &bc,
        &d.join("ended"),
        &[&over[..], &["--only-seed"]].concat(),
    );
    assert_eq!(code, Some(0), "{ended}");
    assert_eq!(path_count(&ended, "early", "only-seed"), 1, "{ended}");
    assert_eq!(ended["paths"]["seeded"], 0, "{ended}");
    // Without it, the run goes on as an unseeded one: hundreds of paths
    // end before the assertion's.
    let stop = ["--jobs", "1", "--exit-on-error"];
    let (code, blind, _) = run_ended(&bc, &d.join("blind"), &[&stop[..], &over[..]].concat());
    assert_eq!(code, Some(3), "{blind}");
    assert!(blind["paths"]["completed"].as_u64() > Some(10), "{blind}");
    // Given time (0 is no limit, as in KLEE), the seed's path is the first.
    for time in ["600", "0"] {
        let (code, seeded, _) = run_ended(
            &bc,
            &d.join(format!("seeded-{time}")),
            &[
                &stop[..],
                &["--seed-time", time, "--seed-file", path(&needle)],
            ]
            .concat(),
        );
        assert_eq!(code, Some(3), "{seeded}");
        assert_eq!(seeded["paths"]["completed"], 0, "{time}: {seeded}");
        assert_eq!(seeded["paths"]["seeded"], 1, "{time}: {seeded}");
    }
}
