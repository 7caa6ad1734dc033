//! `mnemo merge`: the outputs of a partition's shards, read back and
//! checked complete, joined with the partition's trie into one trie and one
//! output directory, as a single run writes them. The cluster's
//! coordinator joins the subtrees its workers send back the same way.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;

use super::{trie_hash, RUN_SHARD};
use crate::memo::mark::{graft, take_answers};
use crate::memo::{self, plan::kept_tests_placed, Marks, Trie};
use crate::parallel::shard::Shard;
use crate::run::program_key;
use crate::stats::{ParallelStats, RunStats};
use crate::testgen::TestWriter;

/// One shard's output, read back for the merge.
struct Done {
    dir: PathBuf,
    shard: Shard,
    trie: Trie,
    stats: RunStats,
}

fn read_done(dir: &Path) -> anyhow::Result<Done> {
    let file = dir.join(RUN_SHARD);
    if !file.exists() {
        anyhow::bail!(
            "{} holds no {RUN_SHARD}: it is not the output of `mnemo run --shard` (or that run did not finish)",
            dir.display()
        );
    }
    let shard = Shard::read(&file)?;
    let trie = memo::file::load(&memo::trie_path(dir, &program_key(&shard.program)))?;
    let stats_file = dir.join("stats.json");
    let stats = RunStats::read(&stats_file)
        .with_context(|| format!("cannot read {}", stats_file.display()))?;
    Ok(Done {
        dir: dir.to_path_buf(),
        shard,
        trie,
        stats,
    })
}

/// Refuses outputs that are not every shard of one partition, once each.
fn check_complete(done: &[Done]) -> anyhow::Result<()> {
    let Some(first) = done.first() else {
        anyhow::bail!("no shard outputs to merge");
    };
    let count = first.shard.count;
    let mut seen: Vec<Option<&Path>> = vec![None; count as usize];
    for d in done {
        if d.shard.partition != first.shard.partition || d.shard.count != count {
            anyhow::bail!(
                "{} is a shard of another partition than {} (made by another `mnemo partition`)",
                d.dir.display(),
                first.dir.display()
            );
        }
        if let Some(other) = seen[d.shard.index as usize].replace(&d.dir) {
            anyhow::bail!(
                "{} and {} are both shard {} of {count}",
                other.display(),
                d.dir.display(),
                d.shard.index
            );
        }
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| Shard::file_name(i as u32, count))
        .collect();
    if !missing.is_empty() {
        anyhow::bail!(
            "the outputs of {} of {count} shards are missing: {}",
            missing.len(),
            missing.join(", ")
        );
    }
    Ok(())
}

/// `mnemo merge`: joins the shard outputs `outs` with the partition's trie
/// in `memo_dir` into one trie (saved there) and one output directory,
/// tests numbered by their place in the trie, as a single run writes them.
pub fn merge(outs: &[PathBuf], memo_dir: &Path, output_dir: &Path) -> anyhow::Result<RunStats> {
    let start = Instant::now();
    let done = outs
        .iter()
        .map(|d| read_done(d))
        .collect::<anyhow::Result<Vec<_>>>()?;
    check_complete(&done)?;
    let first = &done[0].shard;
    let key = program_key(&first.program);
    let trie_file = memo::trie_path(memo_dir, &key);
    let base = memo::file::load(&trie_file)?;
    if trie_hash(&base) != first.trie {
        anyhow::bail!(
            "{} is not the trie the shards were made from (it changed after `mnemo partition`, or the memo directory is another)",
            trie_file.display()
        );
    }
    let mut explored = Vec::new();
    for d in &done {
        let retried = d.shard.retries.iter().map(|r| (r, true));
        for (&at, retried) in d.shard.candidates.iter().map(|c| (c, false)).chain(retried) {
            explored.push(Explored {
                path: d.shard.prefixes.path_to(at),
                retried,
                trie: &d.trie,
                origin: d.dir.display().to_string(),
                stats: &d.stats,
                worker: d.shard.index as usize,
            });
        }
    }
    let (program, args) = (first.program.clone(), first.options.args.clone());
    let chain = first.options.solver_chain.clone();
    let workers = done.len();
    join(
        &base, &explored, &trie_file, output_dir, &program, args, &chain, workers, start,
    )
}

/// A subtree explored apart from the run it belongs to, for [`join`]: the
/// path to its root and the trie of the run that explored it.
pub(crate) struct Explored<'a> {
    pub path: Vec<(String, u32, u32)>,
    /// Whether its root is a retry node rather than a candidate: what the
    /// run learned of its undecided alternatives is added to the node,
    /// which keeps what it had.
    pub retried: bool,
    pub trie: &'a Trie,
    /// Where it came from, for errors.
    pub origin: String,
    /// The statistics of the run that explored it (one run may have
    /// explored several subtrees: its counts are added once).
    pub stats: &'a RunStats,
    /// The worker that ran it, from 0: its runs' times add up to the
    /// worker's busy time.
    pub worker: usize,
}

/// Grafts the `explored` subtrees into `base` at their paths; writes the
/// result's trie to `trie_file` and its tests (numbered by their place in
/// the trie, as a single run writes them) and statistics to `output_dir`.
/// `workers`: how many runs the work was shared among.
#[allow(clippy::too_many_arguments)]
pub(crate) fn join(
    base: &Trie,
    explored: &[Explored<'_>],
    trie_file: &Path,
    output_dir: &Path,
    program: &Path,
    args: Vec<String>,
    chain: &str,
    workers: usize,
    start: Instant,
) -> anyhow::Result<RunStats> {
    let mut merged = base.clone();
    if let Some(first) = explored.first() {
        merged.recorded = first.trie.recorded.clone();
    }
    for e in explored {
        let text = || {
            e.path
                .iter()
                .map(|(f, s, a)| format!("{f}:{s}/{a}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let at = base
            .find(&e.path)
            .with_context(|| format!("the partition's trie has no node {}", text()))?;
        let from = e.trie.find(&e.path).with_context(|| {
            format!(
                "the trie of {} has no node {} it explored",
                e.origin,
                text()
            )
        })?;
        match e.retried {
            true => take_answers(e.trie, from, &mut merged, at),
            false => graft(e.trie, from, &mut merged, at),
        }
    }
    let argv = crate::run::command_line(program, &args);
    let mut writer = TestWriter::create(output_dir, &program.display().to_string(), argv)?;
    for (_, test) in kept_tests_placed(&merged, &Marks::default()) {
        writer.write(&test)?;
    }
    writer.finish()?;
    memo::file::save(&merged, trie_file).context("cannot save the merged trie")?;
    let mut seen = std::collections::HashSet::new();
    let runs: Vec<(usize, &RunStats)> = explored
        .iter()
        .filter(|e| seen.insert(e.stats as *const RunStats))
        .map(|e| (e.worker, e.stats))
        .collect();
    let stats = merged_stats(&runs, chain, workers, &writer, &merged, start);
    let path = output_dir.join("stats.json");
    stats
        .write(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    let memo_dir = trie_file.parent().unwrap_or(Path::new("."));
    crate::files::sync_written(&[output_dir, memo_dir])
        .with_context(|| format!("cannot sync {} to disk", output_dir.display()))?;
    Ok(stats)
}

/// The merged run's statistics: its paths and tests as written, and the
/// work of the `runs` that explored it (each with its worker) added up.
fn merged_stats(
    runs: &[(usize, &RunStats)],
    chain: &str,
    workers: usize,
    writer: &TestWriter,
    merged: &Trie,
    start: Instant,
) -> RunStats {
    let mut s = RunStats {
        paths: writer.paths.clone(),
        tests: writer.tests(),
        ..RunStats::default()
    };
    let mut busy_s = vec![0.0; workers];
    for &(worker, o) in runs {
        s.instructions += o.instructions;
        s.wall_s = s.wall_s.max(o.wall_s);
        s.solver.queries += o.solver.queries;
        s.solver.z3_calls += o.solver.z3_calls;
        s.solver.path_model += o.solver.path_model;
        s.solver.nearby += o.solver.nearby;
        s.solver.gave_up += o.solver.gave_up;
        s.solver.clock_timeouts += o.solver.clock_timeouts;
        s.solver.fixed_addresses += o.solver.fixed_addresses;
        s.solver.time_s += o.solver.time_s;
        s.memo.recorded_paths += o.memo.recorded_paths;
        s.memo.solver_calls_avoided += o.memo.solver_calls_avoided;
        s.memo.mismatches += o.memo.mismatches;
        s.memo.retry_nodes += o.memo.retry_nodes;
        s.memo.undecided_asked += o.memo.undecided_asked;
        s.memo.undecided_feasible += o.memo.undecided_feasible;
        s.memo.replay_s += o.memo.replay_s;
        s.stopped_by = s.stopped_by.take().or_else(|| o.stopped_by.clone());
        if let Some(b) = busy_s.get_mut(worker) {
            *b += o.wall_s;
        }
    }
    s.solver.chain = chain.to_string();
    s.memo.reused = true;
    s.memo.nodes = merged.preorder().len() as u64;
    s.memo.undecided = merged.undecided();
    s.memo.save_s = start.elapsed().as_secs_f64();
    s.parallel = ParallelStats {
        jobs: workers as u64,
        imbalance: crate::parallel::imbalance(&busy_s),
        busy_s,
        ..ParallelStats::default()
    };
    s
}
