//! `mnemo worker URL`: claims shards of a cluster run, explores below their
//! candidates, several at a time where each takes little time, and sends
//! each run's subtrees back.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;

use super::queue::{Claimed, Plan, Queue, Subtree};
use super::RunUrl;
use crate::batch::explore_shard;
use crate::memo::{self, NodeId};
use crate::parallel::shard::{prefixes, Shard};
use crate::run::{load_program, program_key, Loaded, RunConfig};
use crate::stop::StopRequest;

/// How long a worker waits on the stream before it looks again for shards
/// to reclaim and for the run's end.
const POLL: Duration = Duration::from_secs(1);

/// What `mnemo worker` was asked.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    pub url: String,
    /// Workers exploring each candidate, in this process.
    pub jobs: usize,
    /// `--store` specs; empty: the run's Redis server.
    pub stores: Vec<String>,
    /// A shard its worker has not touched for this long goes to another.
    pub lease: Duration,
    pub quiet: bool,
}

/// What a worker did.
#[derive(Clone, Debug, Default)]
pub struct WorkerReport {
    pub shards: usize,
    /// Of those, taken over from a worker whose lease expired.
    pub reclaimed: usize,
    pub candidates: usize,
    /// Runs that explored them: several candidates a run where each takes
    /// little time.
    pub runs: usize,
    /// Candidates skipped: another worker had explored them.
    pub skipped: usize,
    /// Shards split off to idle workers.
    pub splits: usize,
    /// Retry nodes asked again at (`--retry-undecided`).
    pub retried: usize,
    pub busy_s: f64,
}

impl std::fmt::Display for WorkerReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "worker: {} shards ({} reclaimed), {} candidates explored in {} runs, {} skipped, {} split off, {} retry nodes asked again; busy {:.1}s",
            self.shards,
            self.reclaimed,
            self.candidates,
            self.runs,
            self.skipped,
            self.splits,
            self.retried,
            self.busy_s
        )
    }
}

/// Works for the run at `config.url` until the coordinator has joined it
/// (or a signal stops it).
pub fn work(config: &WorkerConfig, stop: &StopRequest) -> anyhow::Result<WorkerReport> {
    if config.lease < Duration::from_secs(1) {
        // Shorter than a renewal takes on a busy server: every shard would
        // go from worker to worker while they explore it.
        anyhow::bail!("--lease must be at least 1 second");
    }
    let url = RunUrl::parse(&config.url)?;
    let mut queue = Queue::connect(&url)?;
    let me = consumer_name();
    let mut said = false;
    let plan = loop {
        if let Some(plan) = queue.plan()? {
            break plan;
        }
        if stop.reason().is_some() {
            anyhow::bail!("stopped while waiting for the coordinator of {url}");
        }
        if !said && !config.quiet {
            eprintln!("mnemo: waiting for the coordinator of {url}");
            said = true;
        }
        std::thread::sleep(POLL);
    };
    let scratch = tempfile::Builder::new()
        .prefix("mnemo-worker-")
        .tempdir()
        .context("cannot make the worker's scratch directory")?;
    let name = plan
        .program
        .file_name()
        .map_or_else(|| "program.bc".into(), |n| n.to_owned());
    let program = scratch.path().join(name);
    crate::files::write_atomic(&program, &queue.module()?)
        .with_context(|| format!("cannot write {}", program.display()))?;
    let stores = if config.stores.is_empty() {
        vec![url.server.clone()]
    } else {
        config.stores.clone()
    };
    let mut local = Local {
        base: base_config(&program, scratch.path(), stores, config),
        loaded: None,
    };
    let mut report = WorkerReport::default();
    while stop.reason().is_none() && !queue.is_done()? {
        let claimed = match queue.reclaim(&me, config.lease)? {
            Some(c) => {
                report.reclaimed += 1;
                if !config.quiet {
                    eprintln!("mnemo: shard {} was left by its worker: taken over", c.id);
                }
                Some(c)
            }
            None => queue.take(&me, POLL)?,
        };
        let Some(claimed) = claimed else {
            queue.set_idle(&me, true)?;
            continue;
        };
        queue.set_idle(&me, false)?;
        report.shards += 1;
        if !config.quiet {
            eprintln!("mnemo: claimed shard {}", claimed.id);
        }
        let started = Instant::now();
        let lease = Lease::hold(&url, &me, &claimed.id, config.lease)?;
        let result = explore(
            &mut queue,
            &me,
            &plan,
            &claimed,
            &mut local,
            &mut report,
            stop,
        );
        lease.release();
        report.busy_s += started.elapsed().as_secs_f64();
        if result? {
            queue.ack(&claimed.id)?;
        }
    }
    queue.set_idle(&me, false)?;
    Ok(report)
}

/// What a worker keeps from shard to shard: the configuration its runs
/// start from, and the program loaded (with the runtime linked or not).
struct Local {
    base: RunConfig,
    loaded: Option<(bool, Loaded)>,
}

/// A name for this worker in the group, unique across machines and
/// restarts.
fn consumer_name() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "host".to_string());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!("{host}-{}-{nanos:09}", std::process::id())
}

/// The run configuration each candidate's run starts from; the shard's
/// options replace what the run fixed.
fn base_config(program: &Path, scratch: &Path, stores: Vec<String>, c: &WorkerConfig) -> RunConfig {
    RunConfig {
        program: program.to_path_buf(),
        output_dir: scratch.join("out"),
        program_args: Vec::new(),
        host_files: Vec::new(),
        max_depth: None,
        max_time: None,
        max_instructions: None,
        max_memory_mb: None,
        max_stack_frames: crate::exec::DEFAULT_MAX_STACK_FRAMES,
        searcher: Default::default(),
        seed: 1,
        solver: Default::default(),
        stores,
        show_output: false,
        entry: "main".to_string(),
        link_runtime: true,
        optimize: false,
        quiet: true,
        memo_dir: None,
        resume: false,
        compress: false,
        targets: Vec::new(),
        heuristic: crate::memo::heuristic::HeuristicKind::Reachability,
        last_in_process: false,
        checkpoint: None,
        jobs: c.jobs.max(1),
        balance: Default::default(),
        compose: None,
        // The coordinator writes them from the subtrees' tests.
        test_files: crate::run::TestFiles::None,
        max_site_fork_share: None,
        max_forks: None,
        silent_assume: false,
        retry_undecided: false,
        exit_on_error: Vec::new(),
        max_tests: None,
        skip_pending_tests: false,
        emit_all_errors: true,
        seeds: Vec::new(),
        seed_fit: Default::default(),
        only_seed: false,
        seed_time: None,
        write_conditions: false,
        write_coverage: false,
    }
}

/// Asks again at the claimed shard's retry nodes and explores below each
/// of its candidates, what no worker has done yet; returns whether all of
/// it was done (not stopped by a signal).
fn explore(
    queue: &mut Queue,
    me: &str,
    plan: &Plan,
    claimed: &Claimed,
    local: &mut Local,
    report: &mut WorkerReport,
    stop: &StopRequest,
) -> anyhow::Result<bool> {
    let origin = PathBuf::from(format!("{}#{}", queue.url, claimed.id));
    let shard = Shard::decode(&claimed.shard, &origin)?;
    if shard.partition != plan.partition {
        anyhow::bail!(
            "{} belongs to another partition than the run's plan",
            origin.display()
        );
    }
    // Shards are never of an optimized run (`--optimize` makes none).
    let link = shard.options.link_runtime;
    let loaded = match local.loaded.take() {
        Some((linked, l)) if linked == link => l,
        _ => load_program(&local.base.program, link, false)?,
    };
    shard.check_module(&origin, &local.base.program, &loaded.1)?;
    let loaded = &local.loaded.insert((link, loaded)).1;
    let one = One {
        shard: &shard,
        origin: &origin,
        loaded,
        base: &local.base,
        me,
    };
    // The retry nodes first: they are never split off.
    let retries: Vec<_> = shard
        .retries
        .iter()
        .map(|&r| shard.prefixes.path_to(r))
        .collect();
    let mut asked = false;
    for path in &retries {
        asked |= !queue.finished(path)?;
    }
    if asked {
        if !one.run(queue, &[], &shard.retries, retries, stop)? {
            return Ok(false);
        }
        report.retried += shard.retries.len();
        report.runs += 1;
    }
    let mut todo: Vec<NodeId> = shard.candidates.clone();
    todo.reverse();
    // Seconds a candidate took in this shard's last run; none yet.
    let mut per_candidate: Option<f64> = None;
    while !todo.is_empty() {
        if stop.reason().is_some() {
            return Ok(false);
        }
        if todo.len() > 1 && queue.dry()? && queue.idle_workers()? > 0 {
            let give: Vec<NodeId> = todo.drain(..todo.len() / 2).rev().collect();
            queue.requeue(&split(&shard, &give, &[]).encode())?;
            report.splits += 1;
        }
        let want = group_size(per_candidate, todo.len());
        let (mut group, mut paths) = (Vec::with_capacity(want), Vec::with_capacity(want));
        while group.len() < want {
            let Some(c) = todo.pop() else { break };
            let path = shard.prefixes.path_to(c);
            if queue.finished(&path)? {
                report.skipped += 1;
                continue;
            }
            group.push(c);
            paths.push(path);
        }
        if group.is_empty() {
            continue;
        }
        let started = Instant::now();
        if !one.run(queue, &group, &[], paths, stop)? {
            return Ok(false);
        }
        per_candidate = Some(started.elapsed().as_secs_f64() / group.len() as f64);
        report.candidates += group.len();
        report.runs += 1;
    }
    Ok(true)
}

/// What every run over part of one claimed shard shares.
struct One<'a> {
    shard: &'a Shard,
    origin: &'a Path,
    loaded: &'a Loaded,
    base: &'a RunConfig,
    me: &'a str,
}

impl One<'_> {
    /// Explores below `candidates` and asks again at `retries` (nodes of
    /// the shard's trie, `paths` theirs from the root) in one run, and
    /// sends what it found; whether it ended (not stopped by a signal).
    fn run(
        &self,
        queue: &mut Queue,
        candidates: &[NodeId],
        retries: &[NodeId],
        paths: Vec<super::queue::TriePath>,
        stop: &StopRequest,
    ) -> anyhow::Result<bool> {
        let first = candidates.first().or(retries.first()).map_or(0, |n| n.0);
        let out = self.base.output_dir.with_file_name(format!("out-{first}"));
        let _ = std::fs::remove_dir_all(&out);
        let config = RunConfig {
            output_dir: out.clone(),
            ..self.base.clone()
        };
        let stats = explore_shard(
            &split(self.shard, candidates, retries),
            self.origin,
            &self.base.program,
            Some(self.loaded),
            &config,
            Instant::now(),
            stop,
        )?;
        if stats.stopped_by.is_some() && stop.reason().is_some() {
            return Ok(false);
        }
        let trie_file = memo::trie_path(&out, &program_key(&self.base.program));
        let trie = std::fs::read(&trie_file)
            .with_context(|| format!("cannot read {}", trie_file.display()))?;
        queue.send(&Subtree {
            paths,
            trie,
            stats,
            worker: self.me.to_string(),
        })?;
        let _ = std::fs::remove_dir_all(&out);
        Ok(true)
    }
}

/// How long one run over some of a shard's candidates should take. Each
/// run costs the same whatever it explores (its executor made, its trie
/// written, sent and read back): with one candidate a run, a run deepened
/// from depth 20 to 24, 10,946 candidates of about ten paths each, took
/// 165 s on a cluster of two workers against 21 s on one worker alone.
const RUN_S: f64 = 0.5;

/// Of what is left of a shard, the most one run takes: the rest can be
/// split off to workers that go idle meanwhile.
const MOST_OF_LEFT: usize = 4;

/// How many candidates the next run takes: one while their cost is not
/// known, then as many as [`RUN_S`] holds.
fn group_size(per_candidate: Option<f64>, left: usize) -> usize {
    let most = left.div_ceil(MOST_OF_LEFT).max(1);
    match per_candidate {
        None => 1,
        Some(t) if t <= 0.0 => most,
        Some(t) => ((RUN_S / t) as usize).clamp(1, most),
    }
}

/// The shard for some of `shard`'s candidates.
fn split(shard: &Shard, candidates: &[NodeId], retries: &[NodeId]) -> Shard {
    let (cut, ids, retry_ids) = prefixes(&shard.prefixes, candidates, retries);
    Shard {
        weight: shard.weight * candidates.len() as f64 / shard.candidates.len().max(1) as f64,
        prefixes: cut,
        candidates: ids,
        retries: retry_ids,
        ..shard.clone()
    }
}

/// Renews the lease on a claimed shard from a thread of its own while the
/// shard is explored, so that only a worker that stopped loses it.
struct Lease {
    quit: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Lease {
    fn hold(url: &RunUrl, me: &str, id: &str, lease: Duration) -> anyhow::Result<Lease> {
        let mut queue = Queue::connect(url)?;
        let quit = Arc::new(AtomicBool::new(false));
        let (me, id, flag) = (me.to_string(), id.to_string(), quit.clone());
        let every = (lease / 3).max(Duration::from_millis(100));
        let thread = std::thread::Builder::new()
            .name("mnemo-lease".into())
            .spawn(move || {
                let mut last = Instant::now();
                while !flag.load(Ordering::Acquire) {
                    std::thread::sleep(Duration::from_millis(50));
                    if last.elapsed() >= every {
                        if let Err(e) = queue.touch(&me, &id) {
                            eprintln!("mnemo: {e}");
                        }
                        last = Instant::now();
                    }
                }
            })
            .context("cannot start the lease thread")?;
        Ok(Lease { quit, thread })
    }

    fn release(self) {
        self.quit.store(true, Ordering::Release);
        let _ = self.thread.join();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_take_one_candidate_then_what_half_a_second_holds() {
        assert_eq!(group_size(None, 1000), 1);
        assert_eq!(group_size(Some(0.01), 1000), 50);
        // Never more than a quarter of what is left, never none.
        assert_eq!(group_size(Some(0.001), 1000), 250);
        assert_eq!(group_size(Some(0.0), 10), 3);
        assert_eq!(group_size(Some(2.0), 1000), 1);
        assert_eq!(group_size(Some(0.001), 1), 1);
    }
}
