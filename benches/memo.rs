//! `make bench`, memo part: Memoise's experiments on the testsuite's
//! subjects.
//!
//! 1. Iterative deepening: for bound pairs A -> B, regular symbolic
//!    execution at B (Reg) against a run at B that follows the trie of a run
//!    at A, without compression (ID-p) and with it (ID-c): time, solver
//!    queries, paths executed, trie size on disk, and the cost of loading
//!    and saving the trie. Then the same run at B again.
//! 2. Regression analysis on one-operator mutants: a fresh run on the
//!    mutant against `mnemo regress` from the original's trie (RA-p, and
//!    RA-c with compression): impacted nodes, paths re-explored, tests
//!    reused, solver queries.
//! 3. Heuristics: a fresh run at B against runs at B that follow the trie
//!    of a run at A but explore only the boundary nodes the reachability
//!    (HR) or counter (HC) heuristic picks for a target line: paths
//!    executed, solver queries, and the queries made when the target was
//!    first reached.
//!
//! Every run is a real `mnemo` process with solver stores off (`--store
//! none`), so runs do not help each other but through the trie. Prints
//! tables and writes `bench-results/memo.json`. Figures, not assertions;
//! the targets are printed next to them.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use mnemo::testgen::Toolchain;

mod support;

#[path = "../tests/support/mutants.rs"]
mod support_mutants;
use support_mutants::mutants;

/// At most this long per run.
const MAX_TIME_S: &str = "300";

/// The figures of one run, from its stats.json.
#[derive(Clone, Debug, Default)]
struct Run {
    wall_s: f64,
    queries: u64,
    z3_calls: u64,
    /// Paths this run executed.
    executed: u64,
    tests: u64,
    trie_bytes: u64,
    load_save_s: f64,
    candidates: u64,
    kept: u64,
    stats: Value,
}

impl Run {
    fn from_stats(v: Value) -> Run {
        let u = |p: &[&str]| p.iter().fold(&v, |x, k| &x[*k]).as_u64().unwrap_or(0);
        let f = |p: &[&str]| p.iter().fold(&v, |x, k| &x[*k]).as_f64().unwrap_or(0.0);
        Run {
            wall_s: f(&["wall_s"]),
            queries: u(&["solver", "queries"]),
            z3_calls: u(&["solver", "z3_calls"]),
            executed: u(&["memo", "recorded_paths"]),
            tests: u(&["tests"]),
            trie_bytes: u(&["memo", "trie_bytes"]),
            load_save_s: f(&["memo", "load_s"]) + f(&["memo", "save_s"]),
            candidates: u(&["memo", "candidates"]),
            kept: u(&["memo", "kept_tests"]),
            stats: v,
        }
    }
}

/// Compiles subjects and runs `mnemo` in a scratch directory.
struct Bench {
    mnemo: PathBuf,
    toolchain: Toolchain,
    scratch: tempfile::TempDir,
    next: u32,
}

impl Bench {
    fn new() -> anyhow::Result<Bench> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let mnemo = root.join("target/release/mnemo");
        if !mnemo.exists() {
            bail!("{} is missing: run `make build` first", mnemo.display());
        }
        Ok(Bench {
            mnemo,
            toolchain: Toolchain::find()?,
            scratch: tempfile::tempdir()?,
            next: 0,
        })
    }

    fn fresh(&mut self, what: &str) -> PathBuf {
        self.next += 1;
        self.scratch.path().join(format!("{what}-{}", self.next))
    }

    /// Compiles C source into `dir/name.bc` (the trie is kept under the
    /// name); `None` if clang refuses it.
    fn compile(&mut self, dir: &Path, name: &str, source: &str) -> anyhow::Result<Option<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let c = dir.join(format!("{name}.c"));
        std::fs::write(&c, source)?;
        let bc = c.with_extension("bc");
        Ok(self
            .toolchain
            .compile_bitcode(&c, &bc, &[])
            .ok()
            .map(|_| bc))
    }

    /// Runs `mnemo SUBCOMMAND ... ARGS` into a new output directory and
    /// returns its figures.
    fn mnemo(&mut self, sub: &[&str], memo: &Path, args: &[String]) -> anyhow::Result<Run> {
        let out = self.fresh("out");
        let o = Command::new(&self.mnemo)
            .args(sub)
            .args(["-q", "--jobs", "1", "--store", "none"])
            .args(["--max-time", MAX_TIME_S])
            .arg("--output-dir")
            .arg(&out)
            .arg("--memo")
            .arg(memo)
            .args(args)
            .output()
            .context("cannot start mnemo")?;
        if !support::ran(&o.status) {
            bail!("mnemo failed: {}", String::from_utf8_lossy(&o.stderr));
        }
        let text = std::fs::read_to_string(out.join("stats.json"))?;
        Ok(Run::from_stats(serde_json::from_str(&text)?))
    }
}

fn subject(name: &str) -> anyhow::Result<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("testsuite").join(format!("{name}.c"));
    std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
}

fn depth(d: u32) -> Vec<String> {
    vec!["--max-depth".into(), d.to_string()]
}

/// Memoise's iterative deepening table.
fn deepening(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    let pairs: &[(&str, &[(u32, u32)])] = &[
        ("paper_memoise_testloop1", &[(10, 20), (20, 40), (40, 60)]),
        ("paper_memoise_testloop2", &[(8, 16), (16, 24)]),
        ("paper_wbs", &[(4, 8), (8, 12)]),
        ("paper_bankaccount", &[(4, 8), (8, 12)]),
        ("paper_bintree", &[(5, 10), (10, 15)]),
        ("paper_tcas", &[(8, 16)]),
        ("paper_gcd", &[(8, 16), (16, 24)]),
    ];
    println!("\n== iterative deepening (Memoise): Reg at B vs ID-p / ID-c from a run at A");
    println!(
        "{:<24} {:>7} | {:>7} {:>6} {:>6} | {:>7} {:>6} {:>6} {:>7} {:>5} | {:>7} {:>6} {:>6} {:>7} | {:>9} {:>6}",
        "subject", "A->B", "Reg s", "qry", "paths", "ID-p s", "qry", "paths", "trie KB", "io %",
        "ID-c s", "qry", "paths", "trie KB", "Reg(B-A)", "again"
    );
    for (name, list) in pairs {
        let src = subject(name)?;
        for &(a, bound) in *list {
            let dir = b.fresh(name);
            let bc = b
                .compile(&dir, name, &src)?
                .context("the subject compiles")?;
            let bc_arg = vec![bc.display().to_string()];
            let with = |d: u32| [depth(d), bc_arg.clone()].concat();
            let reg_a = b.mnemo(&["run"], &dir.join("reg-a"), &with(a))?;
            let reg_b = b.mnemo(&["run"], &dir.join("reg-b"), &with(bound))?;
            // ID-p: the trie of the run at A, followed at B.
            let memo_p = dir.join("memo-p");
            b.mnemo(&["run"], &memo_p, &with(a))?;
            let id_p = b.mnemo(&["run"], &memo_p, &with(bound))?;
            let again = b.mnemo(&["run"], &memo_p, &with(bound))?;
            // ID-c: the same with compression.
            let memo_c = dir.join("memo-c");
            b.mnemo(&["run"], &memo_c, &with(a))?;
            let mut compressed = vec!["--compress".to_string()];
            compressed.extend(with(bound));
            let id_c = b.mnemo(&["run"], &memo_c, &compressed)?;
            let bound_q = reg_b.queries.saturating_sub(reg_a.queries);
            println!(
                "{:<24} {:>7} | {:>7.3} {:>6} {:>6} | {:>7.3} {:>6} {:>6} {:>7.1} {:>5.1} | {:>7.3} {:>6} {:>6} {:>7.1} | {:>9} {:>6}",
                name,
                format!("{a}->{bound}"),
                reg_b.wall_s,
                reg_b.queries,
                reg_b.stats["tests"].as_u64().unwrap_or(0),
                id_p.wall_s,
                id_p.queries,
                id_p.executed,
                id_p.trie_bytes as f64 / 1024.0,
                100.0 * id_p.load_save_s / reg_b.wall_s.max(1e-9),
                id_c.wall_s,
                id_c.queries,
                id_c.executed,
                id_c.trie_bytes as f64 / 1024.0,
                bound_q,
                again.queries,
            );
            results.push(json!({
                "bench": "deepening", "subject": name, "from": a, "to": bound,
                "reg_a": reg_a.stats, "reg_b": reg_b.stats, "id_p": id_p.stats,
                "id_c": id_c.stats, "again": again.stats,
                "target_queries": bound_q,
                "id_p_within_target": id_p.queries <= bound_q,
                "io_share_of_reg": id_p.load_save_s / reg_b.wall_s.max(1e-9),
            }));
        }
    }
    println!(
        "(qry: solver queries; paths: paths executed (Reg: all); io %: loading and saving the trie, \
         as a share of Reg's time; Reg(B-A): Reg's queries at B minus at A, the most ID may make; \
         again: queries of the same run at B once more)"
    );
    Ok(())
}

/// Memoise's regression table, on one-operator mutants.
fn regression(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    let subjects = [
        "paper_tritype",
        "paper_tcas",
        "paper_wbs",
        "paper_bankaccount",
        "paper_bintree",
        "paper_gcd",
    ];
    println!("\n== regression analysis (Memoise): fresh run on a mutant vs regress from the original's trie");
    println!(
        "{:<20} {:<18} | {:>7} {:>6} {:>6} | {:>8} {:>7} {:>6} {:>6} {:>6} | {:>7} {:>6} {:>7}",
        "subject",
        "mutant",
        "fresh s",
        "qry",
        "paths",
        "impacted",
        "RA-p s",
        "qry",
        "redone",
        "reused",
        "RA-c s",
        "qry",
        "trie KB"
    );
    for name in subjects {
        let src = subject(name)?;
        let args: Vec<String> = src
            .lines()
            .find_map(|l| l.split_once("mnemo-args:"))
            .map(|(_, a)| a.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        for (what, text) in mutants(&src, 4) {
            let dir = b.fresh(name);
            let Some(old) = b.compile(&dir, "original", &src)? else {
                continue;
            };
            let Some(new) = b.compile(&dir, "mutant", &text)? else {
                continue;
            };
            let with = |p: &Path| [args.clone(), vec![p.display().to_string()]].concat();
            let fresh = b.mnemo(&["run"], &dir.join("fresh"), &with(&new))?;
            if fresh.stats["paths"]["early"]["max-time"]
                .as_u64()
                .unwrap_or(0)
                > 0
            {
                println!("{name:<20} {what:<18} | the mutant runs past {MAX_TIME_S} s: left out");
                continue;
            }
            let old_arg = old.display().to_string();
            let mut ra = |memo: &str, compress: bool| -> anyhow::Result<Run> {
                let memo = dir.join(memo);
                b.mnemo(&["run"], &memo, &with(&old))?;
                let mut a = if compress {
                    vec!["--compress".to_string()]
                } else {
                    Vec::new()
                };
                a.extend(with(&new));
                b.mnemo(&["regress", &old_arg], &memo, &a)
            };
            let ra_p = ra("memo-p", false)?;
            let ra_c = ra("memo-c", true)?;
            println!(
                "{:<20} {:<18} | {:>7.3} {:>6} {:>6} | {:>8} {:>7.3} {:>6} {:>6} {:>6} | {:>7.3} {:>6} {:>7.1}",
                name,
                what,
                fresh.wall_s,
                fresh.queries,
                fresh.tests,
                ra_p.candidates,
                ra_p.wall_s,
                ra_p.queries,
                ra_p.executed,
                ra_p.kept,
                ra_c.wall_s,
                ra_c.queries,
                ra_c.trie_bytes as f64 / 1024.0,
            );
            results.push(json!({
                "bench": "regression", "subject": name, "mutant": what,
                "fresh": fresh.stats, "ra_p": ra_p.stats, "ra_c": ra_c.stats,
                "z3_calls": {"fresh": fresh.z3_calls, "ra_p": ra_p.z3_calls},
            }));
        }
    }
    println!(
        "(impacted: candidate nodes; redone: paths re-explored; reused: tests kept from the trie)"
    );
    Ok(())
}

/// Memoise's heuristics table.
fn heuristics(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    // (subject, target line, bound pairs)
    type Case = (&'static str, u32, &'static [(u32, u32)]);
    let cases: &[Case] = &[
        ("paper_bankaccount", 32, &[(6, 12), (8, 12)]),
        ("paper_memoise_testloop2", 28, &[(20, 40), (40, 60)]),
        ("paper_memoise_testloop2", 20, &[(60, 105)]),
    ];
    println!("\n== heuristics (Memoise): Reg at B vs HR / HC from a run at A, for a target line");
    println!(
        "{:<24} {:>6} {:>7} | {:>6} {:>6} {:>7} | {:>5} {:>6} {:>6} {:>7} | {:>5} {:>6} {:>6} {:>7}",
        "subject", "target", "A->B", "paths", "qry", "qry@hit", "cand", "paths", "qry", "qry@hit",
        "cand", "paths", "qry", "qry@hit"
    );
    let hit = |r: &Run| {
        r.stats["memo"]["target_hit_queries"]
            .as_u64()
            .map_or("never".to_string(), |q| q.to_string())
    };
    for &(name, line, pairs) in cases {
        let src = subject(name)?;
        for &(a, bound) in pairs {
            let dir = b.fresh(name);
            let bc = b
                .compile(&dir, name, &src)?
                .context("the subject compiles")?;
            let target = format!("{name}.c:{line}");
            let with = |d: u32, extra: &[&str]| {
                let mut v: Vec<String> = extra.iter().map(|s| s.to_string()).collect();
                v.extend(["--target".to_string(), target.clone()]);
                v.extend(depth(d));
                v.push(bc.display().to_string());
                v
            };
            let reg = b.mnemo(&["run"], &dir.join("reg"), &with(bound, &[]))?;
            let mut guided = |memo: &str, kind: &str| -> anyhow::Result<Run> {
                let memo = dir.join(memo);
                b.mnemo(&["run"], &memo, &with(a, &[]))?;
                b.mnemo(&["run"], &memo, &with(bound, &["--heuristic", kind]))
            };
            let hr = guided("memo-r", "reachability")?;
            let hc = guided("memo-c", "counter")?;
            println!(
                "{:<24} {:>6} {:>7} | {:>6} {:>6} {:>7} | {:>5} {:>6} {:>6} {:>7} | {:>5} {:>6} {:>6} {:>7}",
                name,
                line,
                format!("{a}->{bound}"),
                reg.tests,
                reg.queries,
                hit(&reg),
                hr.candidates,
                hr.executed,
                hr.queries,
                hit(&hr),
                hc.candidates,
                hc.executed,
                hc.queries,
                hit(&hc),
            );
            results.push(json!({
                "bench": "heuristics", "subject": name, "target_line": line,
                "from": a, "to": bound, "reg": reg.stats, "hr": hr.stats, "hc": hc.stats,
            }));
        }
    }
    println!(
        "(cand: boundary nodes the heuristic explored; paths: paths executed; qry@hit: solver \
         queries made when the target line first ran, `never` if it did not)"
    );
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let mut b = Bench::new()?;
    let mut results = Vec::new();
    let only = support::section();
    let want = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if want("deepening") {
        deepening(&mut b, &mut results)?;
    }
    if want("regression") {
        regression(&mut b, &mut results)?;
    }
    if want("heuristics") {
        heuristics(&mut b, &mut results)?;
    }
    support::write_results("memo", &only, &results)
}
