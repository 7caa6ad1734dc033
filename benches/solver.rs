//! `make bench`, solver part: the seed papers' solver experiments on the
//! testsuite's subjects and their mutants.
//!
//! 1. Incremental solving (Liu et al.): baseline (fresh Z3), caching, stack
//!    and stackOpt, time and per-layer breakdown.
//! 2. Reuse (Green): the reuse ratio RS and time ratio TS within a run and
//!    across runs of one-operator mutants, and what slicing, canonical form
//!    and the store each contribute.
//! 3. Equivalence store vs implication store vs KLEE's cache (GreenTrie):
//!    Z3 calls and time over an original and its mutants.
//! 4. Two mnemo processes sharing one Redis store, the second on a mutant.
//!
//! Every run is a real `mnemo run` process, so stores are shared the way
//! users share them. Prints tables and writes `bench-results/solver.json`.
//! Figures, not assertions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use anyhow::{bail, Context};
use serde_json::{json, Value};

use mnemo::testgen::Toolchain;

mod support;

#[path = "../tests/support/mutants.rs"]
mod support_mutants;
use support_mutants::mutants;

/// The figures of one run, from its stats.json.
#[derive(Clone, Debug, Default)]
struct Run {
    wall_s: f64,
    paths: u64,
    queries: u64,
    z3_calls: u64,
    solver_s: f64,
    reached: BTreeMap<String, u64>,
    hits: BTreeMap<String, u64>,
    layer_time_s: BTreeMap<String, f64>,
    /// Paths ended by a solver error (a timeout, mostly).
    solver_errors: u64,
    z3_strategy: BTreeMap<String, u64>,
}

impl Run {
    fn from_stats(v: &Value) -> Run {
        let map_u = |v: &Value| -> BTreeMap<String, u64> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let map_f = |v: &Value| -> BTreeMap<String, f64> {
            v.as_object()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| (k.clone(), v.as_f64().unwrap_or(0.0)))
                        .collect()
                })
                .unwrap_or_default()
        };
        let paths = v["paths"]["completed"].as_u64().unwrap_or(0)
            + map_u(&v["paths"]["errors"]).values().sum::<u64>()
            + map_u(&v["paths"]["early"]).values().sum::<u64>();
        let s = &v["solver"];
        Run {
            wall_s: v["wall_s"].as_f64().unwrap_or(0.0),
            paths,
            queries: s["queries"].as_u64().unwrap_or(0),
            z3_calls: s["z3_calls"].as_u64().unwrap_or(0),
            solver_s: s["time_s"].as_f64().unwrap_or(0.0),
            reached: map_u(&s["reached"]),
            hits: map_u(&s["hits"]),
            layer_time_s: map_f(&s["layer_time_s"]),
            solver_errors: v["paths"]["errors"]["solver"].as_u64().unwrap_or(0),
            z3_strategy: map_u(&s["z3_strategy"]),
        }
    }

    /// Green's reuse ratio: of the queries reaching the stores, the share
    /// they answered (the equivalence store, then the implication store
    /// for what it missed).
    fn reuse(&self) -> f64 {
        let (hits, reached) = self.store_counts();
        if reached == 0 {
            return 0.0;
        }
        hits as f64 / reached as f64
    }

    /// (queries the stores answered, queries that reached the first store).
    fn store_counts(&self) -> (u64, u64) {
        let get = |m: &BTreeMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
        let hits = get(&self.hits, "store") + get(&self.hits, "implication");
        let reached = match get(&self.reached, "store") {
            0 => get(&self.reached, "implication"),
            n => n,
        };
        (hits, reached)
    }

    fn json(&self) -> Value {
        json!({
            "wall_s": self.wall_s, "paths": self.paths, "queries": self.queries,
            "z3_calls": self.z3_calls, "solver_s": self.solver_s, "reached": self.reached,
            "hits": self.hits, "layer_time_s": self.layer_time_s,
        })
    }
}

/// Runs `mnemo` and the programs it explores, in a scratch directory.
struct Bench {
    mnemo: PathBuf,
    toolchain: Toolchain,
    scratch: tempfile::TempDir,
    next: u32,
    /// The `mnemo-args:` of each compiled program's header.
    args: BTreeMap<PathBuf, Vec<String>>,
}

/// At most this long per run: a mutant may loop where the original did not.
const MAX_TIME_S: &str = "60";

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
            args: BTreeMap::new(),
        })
    }

    fn fresh(&mut self, what: &str) -> PathBuf {
        self.next += 1;
        self.scratch.path().join(format!("{what}-{}", self.next))
    }

    /// Compiles `source` to bitcode; `None` if clang refuses it (a mutant
    /// may not compile).
    fn compile(&mut self, name: &str, source: &str) -> anyhow::Result<Option<PathBuf>> {
        // Each compile gets its own files: mutants must not overwrite the
        // original's bitcode.
        let c = self.fresh(name.trim_end_matches(".c")).with_extension("c");
        std::fs::write(&c, source)?;
        let bc = c.with_extension("bc");
        if self.toolchain.compile_bitcode(&c, &bc, &[]).is_err() {
            return Ok(None);
        }
        let args = source
            .lines()
            .find_map(|l| l.split_once("mnemo-args:"))
            .map(|(_, a)| a.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default();
        self.args.insert(bc.clone(), args);
        Ok(Some(bc))
    }

    fn command(
        &mut self,
        bc: &Path,
        chain: &str,
        stores: &[&str],
        extra: &[&str],
    ) -> (Command, PathBuf) {
        let out = self.fresh("out");
        let mut cmd = Command::new(&self.mnemo);
        // One worker: these sections compare solving, and two workers'
        // shares of the tree differ from run to run.
        cmd.args([
            "run",
            "-q",
            "--jobs",
            "1",
            "--max-time",
            MAX_TIME_S,
            "--solver-chain",
            chain,
        ])
        .arg("--output-dir")
        .arg(&out);
        if stores.is_empty() {
            cmd.args(["--store", "none"]);
        }
        for s in stores {
            cmd.args(["--store", s]);
        }
        cmd.args(extra);
        cmd.args(self.args.get(bc).map_or(&[][..], |a| a.as_slice()));
        cmd.arg(bc).stdout(Stdio::null()).stderr(Stdio::piped());
        (cmd, out)
    }

    fn run(&mut self, bc: &Path, chain: &str, stores: &[&str]) -> anyhow::Result<Run> {
        self.run_with(bc, chain, stores, &[])
    }

    /// A run with `extra` options.
    fn run_with(
        &mut self,
        bc: &Path,
        chain: &str,
        stores: &[&str],
        extra: &[&str],
    ) -> anyhow::Result<Run> {
        let (mut cmd, out) = self.command(bc, chain, stores, extra);
        let o = cmd.output().context("cannot start mnemo")?;
        finish(support::ran(&o.status), &o.stderr, &out)
    }

    fn spawn(
        &mut self,
        bc: &Path,
        chain: &str,
        stores: &[&str],
    ) -> anyhow::Result<(Child, PathBuf)> {
        let (mut cmd, out) = self.command(bc, chain, stores, &[]);
        Ok((cmd.spawn().context("cannot start mnemo")?, out))
    }
}

fn finish(ok: bool, stderr: &[u8], out: &Path) -> anyhow::Result<Run> {
    if !ok {
        bail!("mnemo failed: {}", String::from_utf8_lossy(stderr));
    }
    let text = std::fs::read_to_string(out.join("stats.json"))?;
    Ok(Run::from_stats(&serde_json::from_str(&text)?))
}

fn subject(name: &str) -> anyhow::Result<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("testsuite").join(name);
    std::fs::read_to_string(&path).with_context(|| format!("cannot read {}", path.display()))
}

/// Liu et al.: the four approaches on the deep-path subjects.
fn incremental(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    let approaches = [
        ("baseline", "z3"),
        ("caching", "cache,cex,z3"),
        ("stack", "z3-stack"),
        ("stackOpt", "z3-stackopt"),
    ];
    println!("\n== incremental solving (Liu et al.): seconds of the whole run, Z3 calls");
    print!("{:<28}", "subject");
    for (name, _) in approaches {
        print!(" {name:>18}");
    }
    println!(" {:>10}", "base/stack");
    for prog in [
        "paper_memoise_testloop1.c",
        "paper_memoise_testloop2.c",
        "paper_bankaccount.c",
        "paper_wbs.c",
        "paper_gcd.c",
    ] {
        let Some(bc) = b.compile(prog, &subject(prog)?)? else {
            continue;
        };
        print!("{prog:<28}");
        let mut runs = Vec::new();
        for (name, chain) in approaches {
            let r = b.run(&bc, chain, &[])?;
            print!(" {:>9.2}s {:>7}", r.wall_s, r.z3_calls);
            results.push(
                json!({"bench": "incremental", "subject": prog, "approach": name,
                                "chain": chain, "run": r.json()}),
            );
            runs.push(r);
        }
        println!(" {:>9.1}x", runs[0].wall_s / runs[2].wall_s.max(1e-9));
        // Liu et al.'s phases: solving, and the rest of the exploration.
        print!("{:<28}", "  solver / rest");
        for r in &runs {
            print!(
                " {:>8.2}s/{:>7.2}s",
                r.solver_s,
                (r.wall_s - r.solver_s).max(0.0)
            );
        }
        println!();
    }
    Ok(())
}

/// Green: reuse within a run and across mutants, layer by layer.
fn reuse(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    let variants = [
        ("store", "store,z3"),
        ("slice+store", "slice,store,z3"),
        ("canon+store", "canon,store,z3"),
        ("slice+canon+store", "slice,canon,store,z3"),
        ("+reduce", "reduce,slice,canon,store,z3"),
        (
            "+reduce+implication",
            "reduce,slice,canon,store,implication,z3",
        ),
    ];
    println!("\n== reuse (Green): RS = store hits / queries reaching the store; TS = time / time without reuse");
    println!(
        "{:<24} {:<20} {:>9} {:>9} {:>12} {:>9} {:>9}",
        "subject", "layers", "RS orig", "TS orig", "RS mutants", "min RS", "TS mut."
    );
    for prog in [
        "paper_tritype.c",
        "paper_tcas.c",
        "paper_green_m.c",
        "paper_wbs.c",
        "paper_bankaccount.c",
    ] {
        let source = subject(prog)?;
        let Some(orig) = b.compile(prog, &source)? else {
            continue;
        };
        let mut muts = Vec::new();
        for (what, m) in mutants(&source, 4) {
            if let Some(bc) = b.compile(prog, &m)? {
                muts.push((what, bc));
            }
        }
        let plain_orig = b.run(&orig, "z3", &[])?;
        let mut plain_muts = Vec::new();
        for (_, bc) in &muts {
            plain_muts.push(b.run(bc, "z3", &[])?);
        }
        for (name, chain) in variants {
            let store = b.fresh("store").with_extension("db");
            let store = store.to_string_lossy().into_owned();
            let r0 = b.run(&orig, chain, &[&store])?;
            let (mut hits, mut reached, mut t, mut t_plain) = (0, 0, 0.0, 0.0);
            let mut per_mutant = Vec::new();
            let mut rs_min: f64 = 1.0;
            for ((what, bc), plain) in muts.iter().zip(&plain_muts) {
                let r = b.run(bc, chain, &[&store])?;
                rs_min = rs_min.min(r.reuse());
                let (h, n) = r.store_counts();
                hits += h;
                reached += n;
                t += r.wall_s;
                t_plain += plain.wall_s;
                per_mutant.push(json!({"mutant": what, "run": r.json(), "plain": plain.json()}));
            }
            let rs_mut = if reached > 0 {
                hits as f64 / reached as f64
            } else {
                0.0
            };
            println!(
                "{:<24} {:<20} {:>8.1}% {:>9.2} {:>11.1}% {:>8.1}% {:>9.2}",
                prog,
                name,
                100.0 * r0.reuse(),
                r0.wall_s / plain_orig.wall_s.max(1e-9),
                100.0 * rs_mut,
                100.0 * rs_min,
                t / t_plain.max(1e-9)
            );
            results.push(
                json!({"bench": "reuse", "subject": prog, "layers": name, "chain": chain,
                "original": r0.json(), "plain_original": plain_orig.json(),
                "mutants": per_mutant, "rs_mutants": rs_mut, "rs_min_mutant": rs_min}),
            );
        }
    }
    Ok(())
}

/// GreenTrie: Z3 calls of KLEE's cache, the equivalence store and the
/// implication store over an original program followed by its mutants.
fn implication(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    // GreenTrie's L-Trie does both the interval reduction and the
    // implication lookups; Green is the equivalence store alone.
    let variants = [
        ("klee-cache", "cex,z3"),
        ("green", "slice,canon,store,z3"),
        ("green+reduce", "reduce,slice,canon,store,z3"),
        ("greentrie", "reduce,slice,canon,store,implication,z3"),
    ];
    println!("\n== equivalence vs implication vs KLEE's cache (GreenTrie): Z3 calls and seconds over original + mutants");
    print!("{:<24}", "subject");
    for (name, _) in variants {
        print!(" {name:>20}");
    }
    println!(" {:>12} {:>12}", "vs green", "vs +reduce");
    for prog in [
        "paper_tritype.c",
        "paper_tcas.c",
        "paper_wbs.c",
        "paper_bankaccount.c",
    ] {
        let source = subject(prog)?;
        let mut programs = vec![source.clone()];
        programs.extend(mutants(&source, 6).into_iter().map(|(_, m)| m));
        let mut bcs = Vec::new();
        for p in &programs {
            if let Some(bc) = b.compile(prog, p)? {
                bcs.push(bc);
            }
        }
        print!("{prog:<24}");
        let mut calls = Vec::new();
        for (name, chain) in variants {
            let store = b.fresh("store").with_extension("db");
            let store = store.to_string_lossy().into_owned();
            let (mut z3, mut secs) = (0, 0.0);
            for bc in &bcs {
                let stores: Vec<&str> = if chain.contains("store") {
                    vec![&store]
                } else {
                    vec![]
                };
                let r = b.run(bc, chain, &stores)?;
                z3 += r.z3_calls;
                secs += r.wall_s;
            }
            print!(" {z3:>10} {secs:>8.2}s");
            results.push(json!({"bench": "implication", "subject": prog, "variant": name,
                                "chain": chain, "programs": bcs.len(), "z3_calls": z3, "seconds": secs}));
            calls.push(z3);
        }
        let saving = |base: u64| 1.0 - calls[3] as f64 / (base as f64).max(1.0);
        println!(
            " {:>11.1}% {:>11.1}%",
            100.0 * saving(calls[1]),
            100.0 * saving(calls[2])
        );
    }
    Ok(())
}

/// The subjects every chain is compared on: the deep-path testsuite
/// programs, and the hard cases users write (nonlinear arithmetic, memory at
/// symbolic indices, loops on fresh input, string code) in
/// `benches/programs/hard/`.
fn chain_subjects(b: &mut Bench) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let programs = [
        "paper_memoise_testloop1.c",
        "paper_memoise_testloop2.c",
        "paper_bankaccount.c",
        "paper_wbs.c",
        "paper_bintree.c",
        "paper_tcas.c",
        "paper_tritype.c",
        "libc_strcmp.c",
        "ptr_symbolic_index.c",
    ];
    let mut sources = Vec::new();
    for prog in programs {
        sources.push((prog.to_string(), subject(prog)?));
    }
    sources.extend(support::hard_programs()?);
    let mut out = Vec::new();
    for (name, source) in sources {
        if let Some(bc) = b.compile(&name, &source)? {
            out.push((name.trim_end_matches(".c").to_string(), bc));
        }
    }
    Ok(out)
}

/// Runs `bc` under each of `chains` with Z3 seeds `first_seed`,
/// `first_seed + 1`, ... : the first `min_seeds`, then more (up to ten)
/// while the fastest chain has spent less than three seconds and all of
/// them less than two minutes; gives
/// each chain's mean time (with the most paths lost to timeouts among its
/// runs).
///
/// On hard queries Z3's time depends on its heuristics' random choices as
/// much as on the query (a factor of 10 on one query of `hash_mul`): one
/// run is one draw, and the fastest of several runs with one seed measures
/// the machine's noise, not that. Each chain gets the same seeds, and a
/// short run gets more of them, since its few queries average less luck
/// out. The chains take turns seed by seed, so that a change in the
/// machine's load while a subject is measured falls on all of them alike.
fn over_seeds(
    b: &mut Bench,
    bc: &Path,
    chains: &[&str],
    (first_seed, min_seeds): (u32, u32),
) -> anyhow::Result<Vec<Run>> {
    let mut runs: Vec<Vec<Run>> = chains.iter().map(|_| Vec::new()).collect();
    for seed in 0..10 {
        let spent: Vec<f64> = runs
            .iter()
            .map(|r| r.iter().map(|r| r.wall_s).sum::<f64>())
            .collect();
        let fastest = spent.iter().copied().fold(f64::INFINITY, f64::min);
        if seed >= min_seeds && (fastest > 3.0 || spent.iter().sum::<f64>() > 120.0) {
            break;
        }
        // `--store none`: the store layers keep their answers in memory for
        // the run, so that chains are compared on solving alone (what a
        // file store costs and saves is the `incremental` and `reuse`
        // sections' subject).
        let seed = (first_seed + seed).to_string();
        for (chain, runs) in chains.iter().zip(&mut runs) {
            runs.push(b.run_with(bc, chain, &[], &["--z3-seed", &seed])?);
        }
    }
    runs.into_iter()
        .map(|runs| {
            let n = runs.len() as f64;
            let mean = runs.iter().map(|r| r.wall_s).sum::<f64>() / n;
            let mut worst = runs
                .into_iter()
                .max_by_key(|r| r.solver_errors)
                .context("no run")?;
            worst.wall_s = mean;
            Ok(worst)
        })
        .collect()
}

/// Above this ratio of the default's time to the best chain's, the two are
/// measured again on fresh seeds.
const CONFIRM_ABOVE: f64 = 1.05;

/// Whether the subject is one `cargo bench --bench solver -- chains
/// SUBJECT...` names (every subject when none is named).
fn wanted_subject(name: &str) -> bool {
    let named: Vec<String> = std::env::args()
        .skip(2)
        .filter(|a| !a.starts_with('-'))
        .collect();
    named.is_empty() || named.iter().any(|n| n == name)
}

/// Which chain is fastest on a first run of each program (an empty store):
/// the measurement behind the default `--solver-chain`, per subject, and
/// how the default does against the best chain on each.
fn chains(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    let candidates = [
        "z3",
        "z3-stack",
        "z3-auto",
        "slice,store,cache,cex,z3",
        "slice,store,cache,cex,z3-stack",
        "slice,store,cache,cex,z3-auto",
        "slice,cache,cex,z3-auto",
        "reduce,slice,canon,store,cache,cex,z3-auto",
        "reduce,slice,canon,store,implication,cache,cex,z3-auto",
        "slice,canon,store,cache,cex,z3-stackopt",
        "reduce,slice,store,cache,cex,z3-auto",
        "slice,store,cache,cex,reduce,z3-auto",
        "slice,store,cache,cex,reduce,canon-cache,z3-auto",
        "slice,store,cache,cex,reduce,canon-cache,enumerate,z3-auto",
        "slice,store,cache,cex,reduce,canon-cache,enumerate,narrow,z3-auto",
        "slice,store,cache,cex,reduce,canon-cache,enumerate,facts,narrow,z3-auto",
        "slice,store,implication,cache,cex,z3-auto",
        "reduce,slice,store,implication,cache,cex,z3-auto",
    ];
    let default = mnemo::solver::DEFAULT_CHAIN;
    let subjects = chain_subjects(b)?;
    println!(
        "\n== chains over {} subjects: seconds of a run with --store none --jobs 1, the mean over Z3 seeds 0-2 (and more for short runs); \"confirmed\": the default against the best chain again, on seeds 100 and up",
        subjects.len()
    );
    for (i, c) in candidates.iter().enumerate() {
        println!(
            "  c{i}: {c}{}",
            if *c == default { "  (default)" } else { "" }
        );
    }
    print!("{:<22}", "subject");
    for i in 0..candidates.len() {
        print!(" {:>7}", format!("c{i}"));
    }
    println!(" {:>8} {:>9} {:>7}", "dflt/best", "confirmed", "lost");
    let mut totals = vec![0.0; candidates.len()];
    let mut worst_ratio: f64 = 0.0;
    for (name, bc) in &subjects {
        if !wanted_subject(name) {
            continue;
        }
        let runs = over_seeds(b, bc, &candidates, (0, 3))?;
        let best = runs.iter().map(|r| r.wall_s).fold(f64::INFINITY, f64::min);
        let fewest_lost = runs.iter().map(|r| r.solver_errors).min().unwrap_or(0);
        let d = candidates
            .iter()
            .position(|c| *c == default)
            .context("the default chain is a candidate")?;
        let first_ratio = runs[d].wall_s / best.max(1e-9);
        // The best of fourteen chains measured on the same seeds is partly
        // the luckiest: a default that looks slower is measured again
        // beside that chain on ten seeds neither has seen (on euclid_rec
        // one seed's run differs from another's by up to 30%, so three
        // cannot tell 10% apart).
        let ratio = match runs.iter().position(|r| r.wall_s == best) {
            Some(bi) if bi != d && first_ratio > CONFIRM_ABOVE => {
                let again = over_seeds(b, bc, &[candidates[d], candidates[bi]], (100, 10))?;
                again[0].wall_s / again[1].wall_s.max(1e-9)
            }
            _ => first_ratio,
        };
        // Below 50 ms a run is start-up and noise, not solving.
        if best >= 0.05 {
            worst_ratio = worst_ratio.max(ratio);
        }
        let lost = runs[d].solver_errors - fewest_lost;
        print!("{name:<22}");
        for (i, r) in runs.iter().enumerate() {
            totals[i] += r.wall_s;
            print!(" {:>7.2}", r.wall_s);
        }
        println!(" {first_ratio:>8.2} {ratio:>9.2} {lost:>7}");
        results.push(json!({
            "bench": "chains", "subject": name, "default": default,
            "best_s": best, "default_over_best": ratio, "default_over_best_first": first_ratio,
            "paths_lost_to_timeouts": lost,
            "runs": candidates.iter().zip(&runs).map(|(c, r)| json!({
                "chain": c, "seconds": r.wall_s, "z3_calls": r.z3_calls, "paths": r.paths,
                "solver_errors": r.solver_errors, "z3_strategy": r.z3_strategy,
            })).collect::<Vec<_>>(),
        }));
    }
    print!("{:<22}", "total");
    for t in &totals {
        print!(" {t:>7.2}");
    }
    println!();
    println!("default: at most {worst_ratio:.2}x the best chain on subjects of 50 ms or more");
    results.push(json!({"bench": "chains-summary", "default": default,
        "worst_default_over_best": worst_ratio,
        "totals": candidates.iter().zip(&totals).map(|(c, t)| json!({"chain": c, "seconds": t}))
            .collect::<Vec<_>>()}));
    Ok(())
}

/// Whether `e` multiplies, divides or takes the remainder of two
/// non-constant terms somewhere.
fn nonlinear(e: &mnemo::expr::ExprRef) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![e.clone()];
    while let Some(e) = stack.pop() {
        if !seen.insert(e.clone()) {
            continue;
        }
        if mnemo::solver::is_nonlinear(&e) {
            return true;
        }
        e.for_each_child(|c| stack.push(c.clone()));
    }
    false
}

/// Time per Z3 call on small linear queries: the recorded testsuite
/// queries (`tests/data/queries.corpus`) of fewer than 20 conjuncts with no
/// product, quotient or remainder of unknowns, asked in their recorded
/// order of each Z3 layer alone, wall time per call, the fastest of 3
/// passes.
fn per_call(_: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    use mnemo::solver::{Solver, SolverConfig};
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/queries.corpus");
    let queries: Vec<_> = mnemo::solver::corpus::read_corpus(&path)?
        .into_iter()
        .filter(|q| q.constraints.len() + 1 < 20)
        .filter(|q| !nonlinear(&q.expr) && !q.constraints.iter().any(nonlinear))
        .collect();
    println!(
        "\n== time per Z3 call: {} recorded queries of fewer than 20 linear conjuncts, each Z3 layer alone",
        queries.len()
    );
    for layer in ["z3", "z3-stack", "z3-auto"] {
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let mut solver = Solver::new(SolverConfig {
                chain: layer.parse()?,
                ..SolverConfig::default()
            });
            let start = Instant::now();
            for q in &queries {
                q.ask(&mut solver)?;
            }
            let calls = solver.stats().z3_calls.max(1);
            best = best.min(start.elapsed().as_secs_f64() * 1000.0 / calls as f64);
        }
        println!("{layer:<10} {best:>8.3} ms per call");
        results.push(
            json!({"bench": "per-call", "layer": layer, "queries": queries.len(),
            "ms_per_z3_call": best}),
        );
    }
    Ok(())
}

/// Two processes at once on one Redis store: the original and a mutant.
fn shared_redis(b: &mut Bench, results: &mut Vec<Value>) -> anyhow::Result<()> {
    println!("\n== two mnemo processes sharing one Redis store");
    let Some(server) = mnemo::solver::store::LocalServer::start() else {
        println!("(no Redis server could be started: skipped)");
        return Ok(());
    };
    let url = server.url.clone();
    let outcome = (|| -> anyhow::Result<()> {
        let prog = "paper_wbs.c";
        let source = subject(prog)?;
        let orig = b.compile(prog, &source)?.context("the subject compiles")?;
        let (what, m) = mutants(&source, 3).into_iter().nth(1).context("a mutant")?;
        let mutant = b.compile(prog, &m)?.context("the mutant compiles")?;
        let chain = "slice,canon,store,z3";
        let (p1, out1) = b.spawn(&orig, chain, &[&url])?;
        let (p2, out2) = b.spawn(&mutant, chain, &[&url])?;
        let o1 = p1.wait_with_output()?;
        let o2 = p2.wait_with_output()?;
        let r1 = finish(support::ran(&o1.status), &o1.stderr, &out1)?;
        let r2 = finish(support::ran(&o2.status), &o2.stderr, &out2)?;
        // Then the mutant again, alone, after both have filled the store.
        let r3 = b.run(&mutant, chain, &[&url])?;
        println!(
            "{prog} and mutant ({what}) at once: RS {:.1}% and {:.1}%; the mutant again: RS {:.1}%, {} Z3 calls",
            100.0 * r1.reuse(),
            100.0 * r2.reuse(),
            100.0 * r3.reuse(),
            r3.z3_calls
        );
        results.push(json!({"bench": "redis", "subject": prog, "mutant": what,
            "original": r1.json(), "mutant_concurrent": r2.json(), "mutant_after": r3.json()}));
        Ok(())
    })();
    drop(server);
    outcome
}

fn main() -> anyhow::Result<()> {
    let mut b = Bench::new()?;
    let mut results = Vec::new();
    let only = support::section();
    let want = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if want("incremental") {
        incremental(&mut b, &mut results)?;
    }
    if want("reuse") {
        reuse(&mut b, &mut results)?;
    }
    if want("implication") {
        implication(&mut b, &mut results)?;
    }
    if want("chains") {
        chains(&mut b, &mut results)?;
    }
    if want("per-call") {
        per_call(&mut b, &mut results)?;
    }
    if want("redis") {
        shared_redis(&mut b, &mut results)?;
    }
    support::write_results("solver", &only, &results)
}
