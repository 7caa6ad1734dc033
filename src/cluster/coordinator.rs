//! `mnemo run --cluster URL`: sets a cluster run up (or finds the one it
//! set up before it was restarted), waits for every candidate's subtree,
//! and joins them into one trie and one output directory.

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::queue::{Plan, Queue, TriePath};
use super::RunUrl;
use crate::batch::{cut, join, trie_hash, with_memo_dir, Explored};
use crate::memo::{self, Trie};
use crate::parallel::partition::Packing;
use crate::parallel::shard::module_hash;
use crate::run::{load_program, program_key, RunConfig};
use crate::stats::RunStats;
use crate::stop::StopRequest;

/// How long the coordinator waits on the results stream between looks at
/// signals.
const POLL: Duration = Duration::from_secs(1);

/// Candidates a shard the coordinator's shallow trie is deepened toward
/// while that is cheap (see `batch::Want`). A worker runs candidates in
/// groups and splits the rest of its shard off to an idle one; with four a
/// shard, as `mnemo partition` cuts for batch schedulers, a subject whose
/// subtrees differ widely left one worker on its last heavy candidate
/// while the other sat idle.
const PREFER_PER_SHARD: usize = 64;

/// Runs `config` on the workers of the cluster run `url`: `config.jobs`
/// shards to start with (one per worker expected; idle workers split the
/// busy ones' later). Stopped by a signal, the same command goes on.
pub fn coordinate(config: &RunConfig, url: &str, stop: &StopRequest) -> anyhow::Result<RunStats> {
    let start = Instant::now();
    let url = RunUrl::parse(url)?;
    let mut queue = Queue::connect(&url)?;
    let program = load_program(&config.program, config.link_runtime, config.optimize)?;
    let module = &program.1;
    let (plan, config) = match queue.plan()? {
        Some(plan) => {
            if plan.module_hash != module_hash(module) {
                anyhow::bail!(
                    "{url} was set up for another build of {}: name another run, or rebuild the program it was set up for",
                    plan.program.display()
                );
            }
            let mut config = config.clone();
            config.memo_dir = Some(config.memo_dir());
            if !config.quiet {
                eprintln!("mnemo: {url} was set up before: going on with it");
            }
            (plan, config)
        }
        None => {
            let config = with_memo_dir(config)?;
            let shards = config.jobs.max(1) as u32;
            let cut = cut(
                &config,
                &program,
                shards,
                PREFER_PER_SHARD,
                Packing::Lpt,
                stop,
            )?;
            let trie_file = trie_file(&config);
            let trie = memo::file::load(&trie_file)?;
            let (mut candidates, mut retries): (Vec<TriePath>, Vec<TriePath>) = Default::default();
            for s in &cut.shards {
                candidates.extend(s.candidates.iter().map(|&c| s.prefixes.path_to(c)));
                retries.extend(s.retries.iter().map(|&r| s.prefixes.path_to(r)));
            }
            let plan = Plan {
                partition: cut
                    .shards
                    .first()
                    .map(|s| s.partition.clone())
                    .unwrap_or_default(),
                trie: trie_hash(&trie),
                module_hash: module_hash(module),
                program: config.program.clone(),
                candidates,
                retries,
            };
            let bitcode = std::fs::read(&config.program)
                .with_context(|| format!("cannot read {}", config.program.display()))?;
            let work: Vec<Vec<u8>> = cut
                .shards
                .iter()
                .filter(|s| !s.candidates.is_empty() || !s.retries.is_empty())
                .map(|s| s.encode())
                .collect();
            queue.publish(&plan, &bitcode, &work)?;
            if !config.quiet {
                let retries = match plan.retries.len() {
                    0 => String::new(),
                    n => format!(" and {n} nodes to ask again at"),
                };
                eprintln!(
                    "mnemo: {url}: {} candidates{retries} in {} shards, waiting for workers",
                    plan.candidates.len(),
                    work.len()
                );
            }
            (plan, config)
        }
    };
    let trie_file = trie_file(&config);
    let base = memo::file::load(&trie_file)?;
    if trie_hash(&base) != plan.trie {
        anyhow::bail!(
            "{} is not the trie {url} was partitioned from (it changed, or the memo directory is another)",
            trie_file.display()
        );
    }
    let (runs, found) = gather(&mut queue, &plan, config.quiet, stop)?;
    let workers: Vec<&str> = {
        let mut w: Vec<&str> = runs.iter().map(|r| r.worker.as_str()).collect();
        w.sort_unstable();
        w.dedup();
        w
    };
    let mut explored = Vec::new();
    let retried = plan.retries.iter().map(|p| (p, true));
    for (path, retried) in plan.candidates.iter().map(|p| (p, false)).chain(retried) {
        let run = &runs[found[path]];
        explored.push(Explored {
            path: path.clone(),
            retried,
            trie: &run.trie,
            origin: format!("worker {}", run.worker),
            stats: &run.stats,
            worker: workers.binary_search(&run.worker.as_str()).unwrap_or(0),
        });
    }
    let args = config.program_args.clone();
    let chain = config.solver.chain.to_string();
    let stats = join(
        &base,
        &explored,
        &trie_file,
        &config.output_dir,
        &config.program,
        args,
        &chain,
        workers.len().max(1),
        start,
    )?;
    queue.set_done()?;
    Ok(stats)
}

fn trie_file(config: &RunConfig) -> std::path::PathBuf {
    memo::trie_path(
        config.memo_dir.as_deref().unwrap_or(Path::new(".")),
        &program_key(&config.program),
    )
}

/// A worker's run that explored some of the candidates.
struct Run {
    trie: Trie,
    worker: String,
    stats: RunStats,
}

/// The workers' runs, and which of them explored each candidate. Reads
/// the results stream from its start, so that a coordinator restarted
/// loses nothing; a candidate explored twice is taken once.
fn gather(
    queue: &mut Queue,
    plan: &Plan,
    quiet: bool,
    stop: &StopRequest,
) -> anyhow::Result<(Vec<Run>, HashMap<TriePath, usize>)> {
    let mut runs: Vec<Run> = Vec::new();
    let mut found: HashMap<TriePath, usize> = HashMap::new();
    let wanted: std::collections::HashSet<&TriePath> =
        plan.candidates.iter().chain(&plan.retries).collect();
    let mut after = "0".to_string();
    let mut shown = usize::MAX;
    while found.len() < wanted.len() {
        if let Some(reason) = stop.reason() {
            anyhow::bail!(
                "stopped ({reason:?}) with {} of {} subtrees in: the same command goes on with the run",
                found.len(),
                wanted.len()
            );
        }
        let (subtrees, last) = queue.results(&after, POLL)?;
        after = last;
        for s in subtrees {
            let new: Vec<TriePath> = s
                .paths
                .into_iter()
                .filter(|p| wanted.contains(p) && !found.contains_key(p))
                .collect();
            if new.is_empty() {
                continue;
            }
            let origin = Path::new(&s.worker);
            let trie = memo::file::decode(&s.trie, origin)
                .with_context(|| format!("the subtrees worker {} sent", s.worker))?;
            for p in new {
                found.insert(p, runs.len());
            }
            runs.push(Run {
                trie,
                worker: s.worker,
                stats: s.stats,
            });
        }
        if !quiet && found.len() != shown {
            shown = found.len();
            let mut by: std::collections::BTreeMap<&str, usize> = Default::default();
            for &r in found.values() {
                *by.entry(runs[r].worker.as_str()).or_default() += 1;
            }
            let by: Vec<String> = by.iter().map(|(w, n)| format!("{w}: {n}")).collect();
            eprintln!(
                "mnemo: {} of {} subtrees explored ({})",
                found.len(),
                wanted.len(),
                by.join(", ")
            );
        }
    }
    Ok((runs, found))
}
