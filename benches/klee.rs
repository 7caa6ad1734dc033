//! `make bench-klee KLEE=path/to/klee`: mnemo beside KLEE on the same
//! bitcode.
//!
//! The subjects are those the solver chains are compared on (the deep-path
//! testsuite programs and the hard cases in `benches/programs/hard/`), and,
//! when Csmith is installed, random programs with one global made symbolic
//! (long path conditions through CRC tables at symbolic indices). Each is
//! compiled once by `mnemo cc`; KLEE runs that bitcode with its own C
//! library (`--libc=klee`) and a small shim for the SV-COMP functions the
//! hard subjects call. Both run with their default search and a time limit
//! (`KLEE_TIME`, seconds, default 60), mnemo without a solver store (KLEE
//! has none across runs), one worker.
//!
//! Paths are each engine's own count: KLEE prepares a module with passes
//! that fold `if (a || b)` into one branch where both lead to one block,
//! so it may count fewer paths on the same bitcode.
//!
//! Figures, not assertions. Writes `bench-results/klee.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use mnemo::testgen::Toolchain;

mod support;

/// What KLEE needs besides the program: SV-COMP's input and error
/// functions, which mnemo knows by name.
const SHIM: &str = r#"
#include <klee/klee.h>
int __VERIFIER_nondet_int(void) {
  int x;
  klee_make_symbolic(&x, sizeof x, "nondet");
  return x;
}
void reach_error(void) { klee_report_error(__FILE__, __LINE__, "reach_error", "reach.err"); }
"#;

/// Deep-path testsuite programs without command-line arguments.
const TESTSUITE: [&str; 8] = [
    "paper_memoise_testloop1.c",
    "paper_memoise_testloop2.c",
    "paper_bankaccount.c",
    "paper_wbs.c",
    "paper_tcas.c",
    "paper_tritype.c",
    "libc_strcmp.c",
    "ptr_symbolic_index.c",
];

/// Csmith's seeds whose symbolic global reaches branches (others run one
/// path in both engines).
const CSMITH_SEEDS: [u32; 3] = [2, 3, 4];

/// One engine's run of one subject.
#[derive(Debug)]
struct Run {
    wall_s: f64,
    /// Paths run to their end, those ended by an error among them.
    completed: u64,
    /// Paths ended early (by the time limit, mostly).
    cut: u64,
    tests: u64,
    errors: u64,
}

impl Run {
    fn json(&self) -> Value {
        json!({"wall_s": self.wall_s, "completed": self.completed, "cut": self.cut,
               "tests": self.tests, "errors": self.errors})
    }
}

struct Bench {
    mnemo: PathBuf,
    klee: PathBuf,
    toolchain: Toolchain,
    scratch: tempfile::TempDir,
    shim: PathBuf,
    time: String,
}

impl Bench {
    fn compile(&self, name: &str, source: &str) -> anyhow::Result<(PathBuf, PathBuf)> {
        let c = self.scratch.path().join(format!("{name}.c"));
        std::fs::write(&c, source)?;
        let bc = c.with_extension("bc");
        self.toolchain
            .compile_bitcode(&c, &bc, &[])
            .with_context(|| format!("cannot compile {name}"))?;
        let linked = self.scratch.path().join(format!("{name}.klee.bc"));
        support::command(
            Command::new(&self.toolchain.llvm_link)
                .arg(&bc)
                .arg(&self.shim)
                .arg("-o")
                .arg(&linked),
            "llvm-link",
        )?;
        Ok((bc, linked))
    }

    fn mnemo(&self, name: &str, bc: &Path) -> anyhow::Result<Run> {
        let out = self.scratch.path().join(format!("{name}.mnemo"));
        let start = Instant::now();
        let status = Command::new(&self.mnemo)
            .args(["run", "-q", "--jobs", "1", "--store", "none"])
            .args(["--max-time", &self.time, "--output-dir"])
            .arg(&out)
            .arg(bc)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()?;
        let wall_s = start.elapsed().as_secs_f64();
        if !support::ran(&status) {
            bail!("mnemo failed on {name} ({status})");
        }
        let stats: Value = serde_json::from_slice(&std::fs::read(out.join("stats.json"))?)?;
        let sum = |v: &Value| {
            v.as_object()
                .map_or(0, |m| m.values().filter_map(Value::as_u64).sum())
        };
        let paths = &stats["paths"];
        Ok(Run {
            wall_s,
            completed: paths["completed"].as_u64().unwrap_or(0) + sum(&paths["errors"]),
            cut: sum(&paths["early"]),
            tests: count(&out, ".ktest")?,
            errors: sum(&paths["errors"]),
        })
    }

    fn klee(&self, name: &str, bc: &Path) -> anyhow::Result<Run> {
        let out = self.scratch.path().join(format!("{name}.klee"));
        let start = Instant::now();
        let output = Command::new(&self.klee)
            .args(["--libc=klee", "--emit-all-errors"])
            .arg(format!("--max-time={}s", self.time))
            .arg(format!("--output-dir={}", out.display()))
            .arg(bc)
            .output()?;
        let wall_s = start.elapsed().as_secs_f64();
        let text = String::from_utf8_lossy(&output.stderr);
        let done = |what: &str| -> anyhow::Result<u64> {
            let key = format!("KLEE: done: {what} = ");
            text.lines()
                .find_map(|l| l.strip_prefix(&key))
                .and_then(|n| n.trim().parse().ok())
                .with_context(|| format!("KLEE on {name} did not finish:\n{text}"))
        };
        // KLEE counts paths ended by an error among the partially
        // completed ones, mnemo among the completed.
        let errors = count(&out, ".err")?;
        let partial = done("partially completed paths")?;
        Ok(Run {
            wall_s,
            completed: done("completed paths")? + errors.min(partial),
            cut: partial.saturating_sub(errors),
            tests: done("generated tests")?,
            errors,
        })
    }
}

/// How many files in `dir` end with `suffix`.
fn count(dir: &Path, suffix: &str) -> anyhow::Result<u64> {
    let mut n = 0;
    for e in std::fs::read_dir(dir)? {
        if e?.file_name().to_string_lossy().ends_with(suffix) {
            n += 1;
        }
    }
    Ok(n)
}

/// The subjects: name and source.
fn subjects() -> anyhow::Result<Vec<(String, String)>> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for name in TESTSUITE {
        let path = root.join("testsuite").join(name);
        let source = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        out.push((name.trim_end_matches(".c").to_string(), source));
    }
    for (name, source) in support::hard_programs()? {
        out.push((name.trim_end_matches(".c").to_string(), source));
    }
    Ok(out)
}

/// Csmith's program for `seed` with its first scalar global made symbolic
/// after the CRC table is built, and its checksum returned rather than
/// printed; `None` without Csmith or where no global suits.
fn csmith_subject(scratch: &Path, seed: u32) -> anyhow::Result<Option<(String, String)>> {
    let headers = Path::new("/usr/include/csmith");
    if !headers.join("csmith.h").is_file() {
        return Ok(None);
    }
    // Csmith writes platform.info where it runs.
    let dir = scratch.join(format!("csmith-{seed}"));
    std::fs::create_dir_all(&dir)?;
    let Ok(out) = Command::new("csmith")
        .args(["--seed", &seed.to_string()])
        .current_dir(&dir)
        .output()
    else {
        return Ok(None);
    };
    let source = String::from_utf8(out.stdout)?;
    let global = source.lines().find_map(|l| {
        let rest = l.strip_prefix("static ")?;
        let rest = rest.strip_prefix("volatile ").unwrap_or(rest);
        let (ty, rest) = rest.split_once(' ')?;
        let name = rest.split_whitespace().next()?;
        (ty.ends_with("int8_t") || ty.ends_with("int16_t") || ty.ends_with("int32_t"))
            .then_some(name)
            .filter(|n| n.starts_with("g_") && n[2..].chars().all(|c| c.is_ascii_digit()))
    });
    let Some(global) = global else {
        return Ok(None);
    };
    let Some(end) = source.find("platform_main_end(") else {
        return Ok(None);
    };
    let Some(close) = source[end..].find(';') else {
        return Ok(None);
    };
    let mut program = String::new();
    program.push_str(&format!(
        "#include \"{}\"\n",
        headers.join("csmith.h").display()
    ));
    program.push_str("#include <klee/klee.h>\n");
    program.push_str(
        &source[..end]
            .replacen("#include \"csmith.h\"", "", 1)
            .replacen(
                "crc32_gentab();",
                &format!(
                    "crc32_gentab(); klee_make_symbolic(&{global}, sizeof {global}, \"{global}\");"
                ),
                1,
            ),
    );
    program.push_str("return (int)((crc32_context ^ 0xFFFFFFFFUL) & 0xff);");
    program.push_str(&source[end + close + 1..]);
    Ok(Some((format!("csmith-{seed}"), program)))
}

fn main() -> anyhow::Result<()> {
    let Some(klee) = std::env::var_os("KLEE")
        .filter(|k| !k.is_empty())
        .map(PathBuf::from)
    else {
        println!(
            "KLEE is not set: build KLEE 3.2 against LLVM 14 and Z3 (docs/benchmarks.md, \
             \"Beside KLEE\") and run `make bench-klee KLEE=path/to/bin/klee`"
        );
        return Ok(());
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let toolchain = Toolchain::find()?;
    let scratch = support::scratch()?;
    let shim_c = scratch.path().join("shim.c");
    std::fs::write(&shim_c, SHIM)?;
    let shim = scratch.path().join("shim.bc");
    toolchain.compile_bitcode(&shim_c, &shim, &[])?;
    let b = Bench {
        mnemo: root.join("target/release/mnemo"),
        klee,
        toolchain,
        shim,
        time: std::env::var("KLEE_TIME").unwrap_or_else(|_| "60".to_string()),
        scratch,
    };
    let mut all = subjects()?;
    for seed in CSMITH_SEEDS {
        all.extend(csmith_subject(b.scratch.path(), seed)?);
    }
    println!(
        "{:<26} {:>8} {:>6} {:>4} {:>6} {:>4} | {:>8} {:>6} {:>4} {:>6} {:>4}",
        "subject",
        "mnemo s",
        "paths",
        "cut",
        "tests",
        "err",
        "KLEE s",
        "paths",
        "cut",
        "tests",
        "err"
    );
    let mut results = Vec::new();
    let (mut mnemo_total, mut klee_total) = (0.0, 0.0);
    for (name, source) in all {
        let (bc, linked) = b.compile(&name, &source)?;
        let m = b.mnemo(&name, &bc)?;
        let k = b.klee(&name, &linked)?;
        println!(
            "{:<26} {:>8.2} {:>6} {:>4} {:>6} {:>4} | {:>8.2} {:>6} {:>4} {:>6} {:>4}",
            name,
            m.wall_s,
            m.completed,
            m.cut,
            m.tests,
            m.errors,
            k.wall_s,
            k.completed,
            k.cut,
            k.tests,
            k.errors
        );
        mnemo_total += m.wall_s;
        klee_total += k.wall_s;
        results.push(json!({"subject": name, "mnemo": m.json(), "klee": k.json()}));
    }
    println!(
        "{:<26} {:>8.2} {:>24} | {:>8.2}",
        "total", mnemo_total, "", klee_total
    );
    support::write_results("klee", &None, &results)
}
