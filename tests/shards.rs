//! Shards for batch schedulers: a run partitioned into shard files, each
//! run on its own (`mnemo run --shard`) and merged, equals a single run:
//! the same trie, the same tests under the same numbers with the same
//! outcomes. Damaged, foreign and stale shard files, and merges of the
//! wrong outputs, are refused with messages naming what is wrong.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

#[path = "support/cli.rs"]
mod cli;
#[path = "support/found.rs"]
mod found;

use found::{differ, found, header_args, mnemo};

/// Programs partitioned: loops with an error, several assertion errors,
/// a bounded tree, and programs without a bound (the shards run to the
/// end).
const PROGRAMS: [&str; 5] = [
    "svcomp_nested_loops",
    "err_assert_multi",
    "limit_depth_tree",
    "paper_tritype",
    "ptr_symbolic_index",
];

const SHARDS: usize = 5;

fn source(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testsuite")
        .join(format!("{name}.c"))
}

fn os<'a>(parts: &[&'a str]) -> Vec<&'a OsStr> {
    parts.iter().map(|p| OsStr::new(*p)).collect()
}

/// `mnemo ARGS` that must fail: what it printed.
fn refused(args: &[&OsStr]) -> String {
    let o = cli::mnemo().args(args).output().expect("start mnemo");
    assert!(
        !o.status.success(),
        "`mnemo {args:?}` should have failed:\n{}",
        cli::stderr(&o)
    );
    cli::stderr(&o)
}

/// Compiles a testsuite program into `dir/prog.bc`; returns its header's
/// arguments.
fn compile(dir: &Path, name: &str) -> Vec<String> {
    let src = source(name);
    let bc = dir.join("prog.bc");
    mnemo(&[
        "cc".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        bc.as_os_str(),
    ])
    .expect("compile");
    let text = std::fs::read_to_string(&src).expect("read source");
    header_args(&text).0
}

/// `mnemo partition ARGS prog.bc --memo DIR/m --shards K -o DIR/shards`.
fn partition(dir: &Path, args: &[String], shards: usize) -> Result<String, String> {
    let (m, out, bc) = (dir.join("m"), dir.join("shards"), dir.join("prog.bc"));
    let k = shards.to_string();
    let mut all: Vec<&OsStr> = os(&["partition", "-q", "--shards", &k]);
    all.extend([
        "--memo".as_ref(),
        m.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    all.extend(args.iter().map(OsStr::new));
    all.push(bc.as_os_str());
    mnemo(&all)
}

/// Runs shard `i` into `DIR/out-i`.
fn run_shard(dir: &Path, i: usize) -> Result<String, String> {
    let shard = dir.join("shards").join(format!("{i:03}.shard"));
    let out = dir.join(format!("out-{i}"));
    mnemo(&[
        "run".as_ref(),
        "-q".as_ref(),
        "--shard".as_ref(),
        shard.as_os_str(),
        "--output-dir".as_ref(),
        out.as_os_str(),
    ])
}

/// `mnemo merge DIR/out-* --memo DIR/m --output-dir DIR/all`.
fn merge(dir: &Path, outs: &[usize]) -> Result<String, String> {
    let outs: Vec<PathBuf> = outs.iter().map(|i| dir.join(format!("out-{i}"))).collect();
    let (m, all) = (dir.join("m"), dir.join("all"));
    let mut args: Vec<&OsStr> = vec!["merge".as_ref()];
    args.extend(outs.iter().map(|p| p.as_os_str()));
    args.extend(["--memo".as_ref(), m.as_os_str()]);
    args.extend(["--output-dir".as_ref(), all.as_os_str()]);
    mnemo(&args)
}

fn check(name: &str) -> Result<(), String> {
    let tmp = tempfile::Builder::new()
        .prefix("mnemo-shards-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let dir = tmp.path();
    let args = compile(dir, name);
    let (single, single_memo, bc) = (
        dir.join("single"),
        dir.join("single-m"),
        dir.join("prog.bc"),
    );
    let mut run: Vec<&OsStr> = os(&["run", "-q"]);
    run.extend(["--output-dir".as_ref(), single.as_os_str()]);
    run.extend(["--memo".as_ref(), single_memo.as_os_str()]);
    run.extend(args.iter().map(OsStr::new));
    run.push(bc.as_os_str());
    mnemo(&run)?;
    partition(dir, &args, SHARDS)?;
    for i in 0..SHARDS {
        run_shard(dir, i)?;
    }
    merge(dir, &(0..SHARDS).collect::<Vec<_>>())?;
    differ(
        &format!("{name} in {SHARDS} shards, merged"),
        &found(dir, "single", "single-m")?,
        &found(dir, "all", "m")?,
    )?;
    let all = dir.join("all");
    mnemo(&["replay".as_ref(), source(name).as_os_str(), all.as_os_str()])?;
    let stats = cli::json(&all.join("stats.json"));
    if stats["parallel"]["jobs"] != SHARDS {
        return Err(format!("merged stats.json: {}", stats["parallel"]));
    }
    Ok(())
}

#[test]
fn shards_run_apart_and_merged_equal_a_single_run() {
    let failures: Vec<String> = PROGRAMS
        .iter()
        .filter_map(|p| check(p).err().map(|e| format!("{p}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// A partition of `svcomp_nested_loops` into 2 shards, all run.
fn two_shards_run() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("tempdir");
    let args = compile(tmp.path(), "svcomp_nested_loops");
    partition(tmp.path(), &args, 2).expect("partition");
    for i in 0..2 {
        run_shard(tmp.path(), i).expect("run shard");
    }
    tmp
}

#[test]
fn damaged_foreign_and_stale_shards_are_refused() {
    let tmp = two_shards_run();
    let dir = tmp.path();
    let shard = dir.join("shards/000.shard");
    let out = dir.join("fresh");
    let run = |shard: &Path, program: Option<&Path>| {
        let mut a: Vec<&OsStr> = os(&["run", "-q", "--shard"]);
        a.push(shard.as_os_str());
        a.extend(["--output-dir".as_ref(), out.as_os_str()]);
        a.extend(program.map(Path::as_os_str));
        refused(&a)
    };
    let mut bytes = std::fs::read(&shard).expect("read shard");
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    let damaged = dir.join("damaged.shard");
    std::fs::write(&damaged, &bytes).expect("write");
    let msg = run(&damaged, None);
    assert!(
        msg.contains("damaged.shard is damaged (checksum mismatch)"),
        "{msg}"
    );
    let foreign = dir.join("prog.bc");
    let msg = run(&foreign, None);
    assert!(msg.contains("prog.bc is not a mnemo shard file"), "{msg}");
    // Another program under the name the shard gives, and named on the
    // command line: both refused before anything runs.
    let other = dir.join("other.bc");
    mnemo(&[
        "cc".as_ref(),
        source("svcomp_counter_loop").as_os_str(),
        "-o".as_ref(),
        other.as_os_str(),
    ])
    .expect("compile");
    let msg = run(&shard, Some(&other));
    assert!(
        msg.contains("000.shard was made for another build of the program")
            && msg.contains("other.bc's is"),
        "{msg}"
    );
    std::fs::copy(&other, dir.join("prog.bc")).expect("replace the program");
    let msg = run(&shard, None);
    assert!(msg.contains("another build"), "{msg}");
    assert!(!out.join("tests.json").exists());
}

#[test]
fn merges_of_the_wrong_outputs_are_refused() {
    let tmp = two_shards_run();
    let dir = tmp.path();
    let (o, m, all) = (dir.join("out-0"), dir.join("m"), dir.join("all"));
    let msg = refused(&[
        "merge".as_ref(),
        o.as_os_str(),
        o.as_os_str(),
        "--memo".as_ref(),
        m.as_os_str(),
        "--output-dir".as_ref(),
        all.as_os_str(),
    ]);
    assert!(msg.contains("are both shard 0 of 2"), "{msg}");
    let err = merge(dir, &[1]).expect_err("a shard is missing");
    assert!(
        err.contains("the outputs of 1 of 2 shards are missing: 000.shard"),
        "{err}"
    );
    let err = merge(dir, &[0, 1, 2]).expect_err("not an output");
    assert!(err.contains("out-2 holds no run.shard"), "{err}");
    // A second partition into other files: its outputs are another's.
    let again = dir.join("again");
    std::fs::create_dir_all(&again).expect("mkdir");
    std::fs::copy(dir.join("prog.bc"), again.join("prog.bc")).expect("copy");
    let args = header_args(&std::fs::read_to_string(source("svcomp_nested_loops")).expect("src")).0;
    let mut deeper = args.clone();
    if let Some(i) = deeper.iter().position(|a| a == "--max-depth") {
        deeper[i + 1] = "6".into();
    }
    partition(&again, &deeper, 2).expect("partition");
    run_shard(&again, 1).expect("run");
    std::fs::rename(again.join("out-1"), dir.join("out-9")).expect("move");
    let err = merge(dir, &[0, 9]).expect_err("foreign output");
    assert!(err.contains("is a shard of another partition"), "{err}");
    // The memo directory's trie changed after the partition (here: a
    // shard's own trie put in its place).
    std::fs::copy(dir.join("out-0/prog.trie"), dir.join("m/prog.trie")).expect("copy trie");
    let err = merge(dir, &[0, 1]).expect_err("changed trie");
    assert!(
        err.contains("is not the trie the shards were made from"),
        "{err}"
    );
    // And a directory that already holds shards is not written into.
    let err = partition(dir, &args, 2).expect_err("shards there");
    assert!(err.contains("already holds 2 shard files"), "{err}");
}
