//! The command line on bad input: a clear message and a normal exit, never
//! a crash; problems inside the program end only the paths they concern.

use std::path::Path;
use std::process::{Command, Output};

fn mnemo(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mnemo"))
        .env("MNEMO_STORE", "memory")
        .args(args)
        .output()
        .expect("mnemo runs")
}

/// `mnemo run` of a program that needs no runtime, into `out`.
fn run_no_runtime(out: &Path, program: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mnemo"))
        .env("MNEMO_STORE", "memory")
        .args(["run", "-q", "--no-runtime", "--output-dir"])
        .arg(out)
        .arg(program)
        .output()
        .expect("mnemo runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn tests_json(dir: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("tests.json")).expect("tests.json written");
    serde_json::from_str(&text).expect("tests.json parses")
}

#[test]
fn garbage_is_not_bitcode() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bc = dir.path().join("garbage.bc");
    std::fs::write(&bc, b"this is not bitcode at all").expect("write");
    let out = dir.path().join("out");
    let o = run_no_runtime(&out, &bc);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not valid LLVM bitcode"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn missing_program_is_named() {
    let o = mnemo(&["run", "-q", "--no-runtime", "/no/such/prog.bc"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("/no/such/prog.bc"), "{}", stderr(&o));
}

/// Bit flips in real bitcode: LLVM's reader rejects some and aborts on
/// others; either way mnemo must end with a message, not a signal.
#[test]
fn corrupt_bitcode_never_crashes_mnemo() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(good) = assemble(
        dir.path(),
        "define i32 @main() {\nentry:\n  %a = add i32 1, 2\n  %c = icmp eq i32 %a, 3\n  br i1 %c, label %t, label %f\nt:\n  ret i32 0\nf:\n  ret i32 1\n}\n",
    ) else {
        return;
    };
    let mut seed = 0x9e3779b97f4a7c15u64;
    for trial in 0..24 {
        let mut bytes = good.clone();
        for _ in 0..6 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = 8 + (seed as usize) % (bytes.len() - 8);
            bytes[i] ^= 1 << (seed >> 61);
        }
        let bad = dir.path().join(format!("bad{trial}.bc"));
        std::fs::write(&bad, &bytes).expect("write");
        let out = dir.path().join(format!("out{trial}"));
        let o = run_no_runtime(&out, &bad);
        assert!(
            o.status.code().is_some(),
            "trial {trial}: mnemo died by a signal: {}",
            stderr(&o)
        );
        if o.status.code() != Some(0) {
            assert!(
                stderr(&o).contains("mnemo: error:"),
                "trial {trial}: {}",
                stderr(&o)
            );
        }
    }
}

/// A `main` in textual IR that makes a symbolic int `x` (with `locals`
/// allocated beside it), compares it with 5 into `%c` and goes on with
/// `rest`.
fn symbolic_x_over_5(locals: &str, rest: &str) -> String {
    format!(
        r#"declare void @klee_make_symbolic(i8*, i64, i8*)
@.name = private constant [2 x i8] c"x\00"
define i32 @main() {{
entry:
  %x = alloca i32
{locals}
  %p = bitcast i32* %x to i8*
  call void @klee_make_symbolic(i8* %p, i64 4, i8* getelementptr ([2 x i8], [2 x i8]* @.name, i64 0, i64 0))
  %v = load i32, i32* %x
  %c = icmp sgt i32 %v, 5
{rest}"#
    )
}

#[test]
fn an_unsupported_instruction_ends_only_its_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ll = dir.path().join("atomic.ll");
    std::fs::write(
        &ll,
        symbolic_x_over_5(
            "  %f = alloca float",
            r#"  br i1 %c, label %odd, label %plain
odd:
  %old = atomicrmw fadd float* %f, float 1.0 seq_cst
  ret i32 1
plain:
  ret i32 0
}
"#,
        ),
    )
    .expect("write");
    let out = dir.path().join("out");
    let o = run_no_runtime(&out, &ll);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tests = tests_json(&out);
    let outcomes: Vec<&str> = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["outcome"].as_str().unwrap())
        .collect();
    assert_eq!(outcomes.len(), 2, "{tests}");
    assert!(outcomes.contains(&"exit"), "{tests}");
    let err = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["outcome"] == "error")
        .expect("an error path");
    assert_eq!(err["kind"], "unsupported");
    assert!(
        err["message"].as_str().unwrap().contains("atomicrmw"),
        "{err}"
    );
}

#[test]
fn an_unknown_external_function_ends_only_its_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ll = dir.path().join("ext.ll");
    std::fs::write(
        &ll,
        r#"declare i32 @mystery(i32)
declare i32 @klee_int(i8*)
@.name = private constant [2 x i8] c"n\00"
define i32 @main() {
entry:
  %n = call i32 @klee_int(i8* getelementptr ([2 x i8], [2 x i8]* @.name, i64 0, i64 0))
  %c = icmp eq i32 %n, 7
  br i1 %c, label %call, label %done
call:
  %r = call i32 @mystery(i32 %n)
  ret i32 %r
done:
  ret i32 0
}
"#,
    )
    .expect("write");
    let out = dir.path().join("out");
    let o = run_no_runtime(&out, &ll);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unsupported external calls: mystery"),
        "{}",
        stderr(&o)
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("stats.json")).expect("stats"))
            .expect("json");
    assert_eq!(stats["paths"]["completed"], 1);
    assert_eq!(stats["paths"]["errors"]["external"], 1);
    let tests = tests_json(&out);
    let err = tests["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["outcome"] == "error")
        .expect("an error path");
    assert_eq!(err["message"], "unsupported external call mystery");
}

#[test]
fn an_existing_output_directory_is_not_overwritten() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&out).expect("mkdir");
    std::fs::write(out.join("keep.txt"), b"earlier results").expect("write");
    let ll = dir.path().join("p.ll");
    std::fs::write(&ll, "define i32 @main() {\n  ret i32 0\n}\n").expect("write");
    let o = run_no_runtime(&out, &ll);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("already holds files"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(out.join("keep.txt")).expect("kept"),
        b"earlier results"
    );
}

#[test]
fn a_bad_solver_chain_is_refused_with_the_known_layers() {
    let o = mnemo(&["run", "-q", "--solver-chain", "cache,oracle,z3", "prog.bc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("unknown solver layer `oracle`"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("known: "), "{}", stderr(&o));
    let o = mnemo(&["run", "-q", "--solver-chain", "z3,cache", "prog.bc"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("ends with exactly one Z3 layer"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn numeric_options_out_of_range_are_refused_naming_the_option_and_the_range() {
    let cases: &[(&str, &str, &str)] = &[
        ("--max-time", "-5", "from 0 to"),
        ("--max-time", "NaN", "from 0 to"),
        ("--max-time", "inf", "from 0 to"),
        ("--max-time", "1e300", "from 0 to"),
        ("--max-time", "soon", "from 0 to"),
        ("--checkpoint", "-1", "from 0 to"),
        ("--checkpoint", "NaN", "from 0 to"),
        ("--max-depth", "-1", "from 0 to 4294967295"),
        ("--max-depth", "2.5", "from 0 to 4294967295"),
        ("--max-instructions", "0", "from 1 to"),
        ("--max-memory", "0", "from 1 to"),
        ("--max-memory", "99999999999999999999", "from 1 to"),
        ("--max-stack-frames", "0", "from 1 to 4294967295"),
        ("--jobs", "1025", "from 0 to 1024"),
        ("--jobs", "-2", "from 0 to 1024"),
        ("--solver-timeout", "0", "from 1 to 4294967295"),
        ("--solver-timeout", "5000000000", "from 1 to 4294967295"),
        ("--seed", "-1", "from 0 to 18446744073709551615"),
        ("--z3-seed", "4294967296", "from 0 to 4294967295"),
        ("--max-site-fork-share", "0", "above 0 and at most 1"),
        ("--max-site-fork-share", "1.5", "above 0 and at most 1"),
        ("--max-site-fork-share", "NaN", "above 0 and at most 1"),
    ];
    for (option, value, range) in cases {
        let o = mnemo(&["run", "-q", option, value, "prog.bc"]);
        let text = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{option} {value}: {text}");
        assert!(text.contains(option), "{option} {value}: {text}");
        assert!(text.contains(range), "{option} {value}: {text}");
        assert!(!text.contains("panicked"), "{option} {value}: {text}");
    }
}

#[test]
fn a_memo_directory_that_is_a_file_is_refused_before_the_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ll = dir.path().join("p.ll");
    std::fs::write(&ll, "define i32 @main() {\n  ret i32 0\n}\n").expect("write");
    let memo = dir.path().join("memo");
    std::fs::write(&memo, b"a file").expect("write");
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_mnemo"))
        .env("MNEMO_STORE", "memory")
        .args(["run", "-q", "--no-runtime", "--memo"])
        .arg(&memo)
        .arg("--output-dir")
        .arg(&out)
        .arg(&ll)
        .output()
        .expect("mnemo runs");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("is a file, not a directory"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains(&memo.display().to_string()),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists(), "the run began");
}

/// The bitcode of textual IR, or `None` without llvm-as-14.
fn assemble(dir: &Path, ir: &str) -> Option<Vec<u8>> {
    let ll = dir.join("p.ll");
    std::fs::write(&ll, ir).expect("write");
    let bc = dir.join("p.bc");
    let status = Command::new("llvm-as-14")
        .arg(&ll)
        .arg("-o")
        .arg(&bc)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("llvm-as-14 is missing; skipped");
        return None;
    }
    Some(std::fs::read(&bc).expect("read"))
}

#[test]
fn truncated_bitcode_is_called_truncated() {
    let dir = tempfile::tempdir().expect("tempdir");
    let Some(good) = assemble(
        dir.path(),
        "define i32 @main() {\nentry:\n  %a = add i32 1, 2\n  ret i32 %a\n}\n",
    ) else {
        return;
    };
    // Cut at a word boundary and off it: both are short of the blocks'
    // lengths, their magic number intact.
    for cut in [good.len() / 2 / 4 * 4, good.len() / 2 / 4 * 4 + 3] {
        let bc = dir.path().join(format!("cut{cut}.bc"));
        std::fs::write(&bc, &good[..cut]).expect("write");
        let o = run_no_runtime(&dir.path().join(format!("out{cut}")), &bc);
        let text = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{text}");
        assert!(text.contains("truncated LLVM bitcode"), "{text}");
        assert!(text.contains(&bc.display().to_string()), "{text}");
        assert!(!text.contains("signature"), "{text}");
    }
}

#[test]
fn random_bytes_are_named_by_their_first_bytes_not_printed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut seed = 0x2545f4914f6cdd1du64;
    let junk: Vec<u8> = (0..512)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 32) as u8
        })
        .collect();
    let bc = dir.path().join("junk.bc");
    std::fs::write(&bc, &junk).expect("write");
    let o = run_no_runtime(&dir.path().join("out"), &bc);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let start: Vec<String> = junk[..4].iter().map(|b| format!("{b:02x}")).collect();
    let text = stderr(&o);
    assert!(text.contains("is not LLVM bitcode"), "{text}");
    assert!(text.contains(&start.join(" ")), "{text}");
    assert!(
        o.stderr
            .iter()
            .all(|b| *b == b'\n' || (0x20..0x7f).contains(b)),
        "{:?}",
        o.stderr
    );
}

/// Without `--jobs`, a run takes a worker per core; `MNEMO_JOBS` sets
/// another default, `--jobs` overrides both and `--jobs 0` asks for the
/// cores again. The paths are the same either way.
#[test]
fn workers_default_to_the_cores_and_mnemo_jobs_or_jobs_say_otherwise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ll = dir.path().join("branch.ll");
    std::fs::write(
        &ll,
        symbolic_x_over_5(
            "",
            r#"  br i1 %c, label %big, label %small
big:
  ret i32 1
small:
  ret i32 0
}
"#,
        ),
    )
    .expect("write");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cases: [(Option<&str>, &[&str], usize); 4] = [
        (None, &[], cores),
        (Some("1"), &[], 1),
        (Some("1"), &["--jobs", "3"], 3),
        (Some("1"), &["--jobs", "0"], cores),
    ];
    for (i, (env, args, jobs)) in cases.into_iter().enumerate() {
        let out = dir.path().join(format!("out{i}"));
        let mut c = Command::new(env!("CARGO_BIN_EXE_mnemo"));
        c.env("MNEMO_STORE", "memory").env_remove("MNEMO_JOBS");
        if let Some(v) = env {
            c.env("MNEMO_JOBS", v);
        }
        let o = c
            .args(["run", "-q", "--no-runtime", "--output-dir"])
            .arg(&out)
            .args(args)
            .arg(&ll)
            .output()
            .expect("mnemo runs");
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let stats: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("stats.json")).expect("stats.json"))
                .expect("json");
        let case = format!("MNEMO_JOBS={env:?} {args:?}");
        assert_eq!(stats["parallel"]["jobs"], jobs as u64, "{case}: {stats}");
        assert_eq!(stats["paths"]["completed"], 2, "{case}: {stats}");
    }
}

#[test]
fn stats_shows_each_output_directory_as_a_row_and_names_one_it_cannot_read() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ll = dir.path().join("x.ll");
    std::fs::write(&ll, symbolic_x_over_5("", "  ret i32 0\n}\n")).expect("write");
    let (one, two) = (dir.path().join("one"), dir.path().join("two"));
    for out in [&one, &two] {
        let o = run_no_runtime(out, &ll);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let path = |p: &Path| p.to_str().expect("utf-8 path").to_string();
    let o = mnemo(&["stats", "--csv", &path(&one), &path(&two)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = String::from_utf8_lossy(&o.stdout).into_owned();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("Path,Instrs,Time(s),ICov(%)"), "{csv}");
    for (line, out) in lines[1..].iter().zip([&one, &two]) {
        let cells: Vec<&str> = line.split(',').collect();
        // Path, ..., Completed, Errors, Early, Tests, ..., Stopped.
        assert_eq!(cells[0], path(out));
        assert_eq!(&cells[5..9], ["1", "0", "0", "1"], "{line}");
        assert_eq!(cells[11], "-", "{line}");
    }
    // A directory without statistics is named; the others still show.
    let missing = dir.path().join("missing");
    let o = mnemo(&["stats", &path(&one), &path(&missing)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("missing/stats.json"), "{}", stderr(&o));
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 2);
}
