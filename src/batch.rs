//! A run split into shard files for batch schedulers (Slurm array jobs,
//! Kubernetes indexed jobs): `mnemo partition` shares the run's candidate
//! nodes out into shard files, `mnemo run --shard` runs one on any machine,
//! and `mnemo merge` joins their tries and tests into the result of a
//! single run.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use clap::ValueEnum;

use crate::ir::Module;
use crate::memo::{self, Plan, Recorded, Trie};
use crate::parallel::partition::{partition, Packing, Weights, PIECES_PER_LIST};
use crate::parallel::shard::{module_hash, prefixes, Shard, ShardOptions};
use crate::run::{check_memo_dir, execute, load_program, program_key, Loaded, Memo, RunConfig};
use crate::stats::RunStats;
use crate::stop::StopRequest;

mod merge;

pub use merge::merge;
pub(crate) use merge::{join, Explored};

/// The file a shard's run keeps a copy of its shard in, for `mnemo merge`.
pub const RUN_SHARD: &str = "run.shard";

/// What `mnemo partition` did.
#[derive(Clone, Debug)]
pub struct PartitionReport {
    /// The depth bound of the trie the partition was made from, and whether
    /// this call ran the shallow phase that recorded it.
    pub trie_depth: Option<u32>,
    pub shallow_run: bool,
    pub candidates: usize,
    /// Nodes the first shard asks again at (`--retry-undecided`).
    pub retries: usize,
    /// Each shard's file and expected cost.
    pub shards: Vec<(PathBuf, f64)>,
}

impl fmt::Display for PartitionReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let costs: Vec<f64> = self.shards.iter().map(|s| s.1).collect();
        writeln!(
            f,
            "{} candidate nodes of a trie of depth bound {} ({}) in {} shards; expected imbalance {:.3}",
            self.candidates,
            memo::trie::bound_text(self.trie_depth),
            if self.shallow_run {
                "recorded by a shallow run now"
            } else {
                "recorded before"
            },
            self.shards.len(),
            crate::parallel::imbalance(&costs)
        )?;
        if self.retries > 0 {
            writeln!(
                f,
                "{} nodes with undecided alternatives, asked again by the first shard",
                self.retries
            )?;
        }
        for (path, weight) in &self.shards {
            writeln!(f, "{}  expected cost {weight:.0}", path.display())?;
        }
        Ok(())
    }
}

/// How many boundary nodes the shallow trie of a partition is deepened to:
/// `need`, then on toward `prefer` while that has taken less than
/// `PREFER_BUDGET` (finer pieces even out subtrees of very different
/// sizes, but on a narrow tree each further depth costs more solving).
#[derive(Clone, Copy, Debug)]
pub struct Want {
    pub need: usize,
    pub prefer: usize,
}

impl Want {
    /// `n` boundary nodes, no more.
    pub fn exactly(n: usize) -> Want {
        Want { need: n, prefer: n }
    }

    /// Whether a shallow trie that leaves `boundary` boundary nodes is
    /// deepened again; `since_need`: how long ago it first left `need`.
    fn deepen_again(self, boundary: usize, since_need: Option<std::time::Duration>) -> bool {
        boundary > 0
            && boundary < self.prefer
            && since_need.is_none_or(|spent| spent < PREFER_BUDGET)
    }
}

/// The time a shallow phase may spend deepening past what it needs.
const PREFER_BUDGET: std::time::Duration = std::time::Duration::from_millis(500);

/// The depths, and the time, a shallow phase deepens without its boundary
/// growing before it goes on with the boundary it has. A loop reading
/// fresh input forks off one ending path at every depth: a chain that
/// leaves one boundary node however deep, where each depth ran the chain
/// again (a 300-round loop made 300 shallow runs).
const STALL_DEPTHS: u32 = 16;
const STALL_TIME: std::time::Duration = std::time::Duration::from_secs(1);

/// How a shallow phase's boundary has grown: the most boundary nodes yet,
/// the depth that left them, and when.
struct Growth {
    most: usize,
    depth: u32,
    at: Instant,
}

impl Growth {
    fn new(now: Instant) -> Self {
        Growth {
            most: 0,
            depth: 0,
            at: now,
        }
    }

    /// Notes the `boundary` that `depth` left at `now`; whether the
    /// boundary has not grown for [`STALL_DEPTHS`] depths and
    /// [`STALL_TIME`].
    fn stalled(&mut self, boundary: usize, depth: u32, now: Instant) -> bool {
        if boundary > self.most {
            *self = Growth {
                most: boundary,
                depth,
                at: now,
            };
            return false;
        }
        depth.saturating_sub(self.depth) >= STALL_DEPTHS
            && now.saturating_duration_since(self.at) >= STALL_TIME
    }
}

/// Records the trie a partitioned run is made from in the memo directory,
/// when it has none: a shallow run, deepened one decision at a time until
/// it leaves as many boundary nodes as `want` asks (or nothing below, or
/// the run's bound is reached, or the boundary stopped growing). Returns
/// whether it ran.
pub fn shallow_trie(
    config: &RunConfig,
    program: &Loaded,
    want: Want,
    stop: &StopRequest,
) -> anyhow::Result<bool> {
    let memo_dir = config
        .memo_dir
        .clone()
        .context("a partitioned run needs a memo directory (--memo)")?;
    check_memo_dir(&memo_dir)?;
    let trie_file = memo::trie_path(&memo_dir, &program_key(&config.program));
    if trie_file.exists() {
        return Ok(false);
    }
    let scratch = memo_dir.join(".partition-shallow");
    let started = Instant::now();
    let mut needed_at: Option<Instant> = None;
    let mut growth = Growth::new(Instant::now());
    for depth in 1.. {
        let left = config.max_time.map(|t| t.saturating_sub(started.elapsed()));
        if config.max_depth.is_some_and(|b| depth >= b)
            || stop.reason().is_some()
            || left.is_some_and(|t| t.is_zero())
        {
            break;
        }
        let _ = std::fs::remove_dir_all(&scratch);
        let shallow = RunConfig {
            output_dir: scratch.clone(),
            max_depth: Some(depth),
            max_time: left,
            quiet: true,
            // Only its trie is kept.
            test_files: crate::run::TestFiles::None,
            last_in_process: false,
            checkpoint: None,
            resume: false,
            ..config.clone()
        };
        // One load for every depth: it was most of a shallow run's time.
        crate::run::run_loaded(&shallow, program.clone(), Instant::now(), stop)
            .with_context(|| format!("the shallow run at depth {depth} failed"))?;
        let _ = std::fs::remove_dir_all(&scratch);
        let trie = memo::file::load(&trie_file)?;
        let boundary = memo::mark::boundary_nodes(&trie).len();
        if boundary >= want.need {
            needed_at.get_or_insert_with(Instant::now);
        }
        if !want.deepen_again(boundary, needed_at.map(|at| at.elapsed())) {
            break;
        }
        if growth.stalled(boundary, depth, Instant::now()) {
            break;
        }
    }
    Ok(true)
}

/// A run (`mnemo run`) whose workers start from partitions of a trie
/// (`--balance trie|static|naive` with several workers): without a trie in
/// the memo directory, a shallow run records one first. Without `--memo`
/// that is the default memo directory, whose trie of the program this run
/// replaces anyway.
pub fn run(config: &RunConfig, stop: &StopRequest) -> anyhow::Result<RunStats> {
    if config.jobs < 2 || config.balance.partitions().is_none() || config.resume {
        return crate::run::run(config, stop);
    }
    let mut config = with_memo_dir(config)?;
    // The shallow phase is part of the run: its time counts against
    // `--max-time`.
    let started = Instant::now();
    let program = load_program(&config.program, config.link_runtime, config.optimize)?;
    let want = Want::exactly(config.jobs * PIECES_PER_LIST);
    shallow_trie(&config, &program, want, stop)?;
    config.max_time = config.max_time.map(|t| t.saturating_sub(started.elapsed()));
    crate::run::run_loaded(&config, program, Instant::now(), stop)
}

/// `config` with a memo directory for the trie its partition is cut from:
/// `--memo`'s, else the default one, whose trie of the program is removed
/// (this run replaces it anyway).
pub(crate) fn with_memo_dir(config: &RunConfig) -> anyhow::Result<RunConfig> {
    let mut config = config.clone();
    if config.memo_dir.is_none() {
        let memo_dir = crate::run::default_memo_dir(&config.output_dir);
        let trie_file = memo::trie_path(&memo_dir, &program_key(&config.program));
        for f in [memo::journal::journal_path(&trie_file), trie_file] {
            match std::fs::remove_file(&f) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(e).with_context(|| format!("cannot replace {}", f.display()))
                }
                _ => {}
            }
        }
        config.memo_dir = Some(memo_dir);
    }
    Ok(config)
}

/// The trie a partition is made from, the nodes its run explores anew,
/// and those where it asks again (`--retry-undecided`).
fn partition_trie(
    config: &RunConfig,
    module: &Module,
) -> anyhow::Result<(Trie, Vec<memo::NodeId>, Vec<memo::NodeId>)> {
    let memo_dir = config.memo_dir.clone().unwrap_or_default();
    let trie_file = memo::trie_path(&memo_dir, &program_key(&config.program));
    let trie = memo::file::load(&trie_file)?;
    let now = Recorded::of(
        module,
        &program_key(&config.program),
        &config.entry,
        &config.program_args,
        config.max_depth,
    );
    let changed = trie.recorded.changed_functions(module);
    let retry = config.retry_undecided;
    let plan = Plan::new(trie.clone(), &now, changed, false, retry, &mut |_, b| b)
        .map_err(|e| anyhow::anyhow!("{} cannot be partitioned: {e}", trie_file.display()))?;
    Ok((trie, plan.marks.candidate_ids(), plan.marks.retry_ids()))
}

/// The hash of a trie, as the trie file holds it.
pub(crate) fn trie_hash(trie: &Trie) -> String {
    blake3::hash(&memo::file::encode(trie)).to_hex().to_string()
}

/// The hash that names a partition: of its trie, the shards' options, how
/// it was cut, and whether it asks again what the trie left undecided.
fn partition_id(
    trie: &str,
    options: &ShardOptions,
    shards: u32,
    packing: Packing,
    retry: bool,
) -> String {
    let mut h = blake3::Hasher::new();
    h.update(trie.as_bytes());
    h.update(&bincode::serialize(options).expect("options serialize"));
    h.update(&shards.to_le_bytes());
    h.update(format!("{packing:?}").as_bytes());
    if retry {
        h.update(b"retry undecided");
    }
    h.finalize().to_hex().to_string()
}

/// A partition cut into shards, before they are written anywhere.
pub(crate) struct Cut {
    pub trie_depth: Option<u32>,
    pub shallow_run: bool,
    pub candidates: usize,
    /// Nodes where a shard asks again (`--retry-undecided`).
    pub retries: usize,
    pub shards: Vec<Shard>,
}

/// Cuts the run `config` describes into `shards` shards, `program` being
/// its program loaded: a shallow run records a trie first when the memo
/// directory has none.
pub(crate) fn cut(
    config: &RunConfig,
    program: &Loaded,
    shards: u32,
    prefer_per_shard: usize,
    packing: Packing,
    stop: &StopRequest,
) -> anyhow::Result<Cut> {
    let want = Want {
        need: shards as usize * PIECES_PER_LIST,
        prefer: shards as usize * prefer_per_shard.max(PIECES_PER_LIST),
    };
    let shallow_run = shallow_trie(config, program, want, stop)?;
    let module = &program.1;
    let (trie, candidates, retries) = partition_trie(config, module)?;
    let weights = Weights::new(&trie, &candidates, config.max_depth);
    let parts = partition(&trie, &weights, shards as usize, packing);
    let options = shard_options(config);
    let trie_id = trie_hash(&trie);
    let (id, hash) = (
        partition_id(&trie_id, &options, shards, packing, config.retry_undecided),
        module_hash(module),
    );
    // The retry nodes go to the first shard, as the first worker of a run
    // takes them: each alternative is asked about once, and they are few.
    let shards = parts
        .into_iter()
        .enumerate()
        .map(|(i, part)| {
            let first = if i == 0 { &retries[..] } else { &[] };
            let (cut, ids, retry_ids) = prefixes(&trie, &part.candidates, first);
            Shard {
                index: i as u32,
                count: shards,
                partition: id.clone(),
                trie: trie_id.clone(),
                module_hash: hash.clone(),
                program: config.program.clone(),
                options: options.clone(),
                prefixes: cut,
                candidates: ids,
                weight: part.weight,
                retries: retry_ids,
            }
        })
        .collect();
    Ok(Cut {
        trie_depth: trie.recorded.max_depth,
        shallow_run,
        candidates: candidates.len(),
        retries: retries.len(),
        shards,
    })
}

/// `mnemo partition`: writes `shards` shard files into `out`.
pub fn write_shards(
    config: &RunConfig,
    shards: u32,
    out: &Path,
    packing: Packing,
    stop: &StopRequest,
) -> anyhow::Result<PartitionReport> {
    if shards == 0 {
        anyhow::bail!("--shards must be at least 1");
    }
    if let Ok(entries) = std::fs::read_dir(out) {
        let old = entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "shard"))
            .count();
        if old > 0 {
            anyhow::bail!(
                "{} already holds {old} shard files; remove them or name another directory",
                out.display()
            );
        }
    }
    let program = load_program(&config.program, config.link_runtime, config.optimize)?;
    let cut = cut(config, &program, shards, PIECES_PER_LIST, packing, stop)?;
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let mut report = PartitionReport {
        trie_depth: cut.trie_depth,
        shallow_run: cut.shallow_run,
        candidates: cut.candidates,
        retries: cut.retries,
        shards: Vec::new(),
    };
    for shard in &cut.shards {
        let path = out.join(Shard::file_name(shard.index, shards));
        shard.write(&path)?;
        report.shards.push((path, shard.weight));
    }
    crate::files::sync_written(&[out])
        .with_context(|| format!("cannot sync {} to disk", out.display()))?;
    Ok(report)
}

/// The options a shard's run takes from the partition's command line.
fn shard_options(c: &RunConfig) -> ShardOptions {
    ShardOptions {
        entry: c.entry.clone(),
        args: c.program_args.clone(),
        max_depth: c.max_depth,
        max_time_s: c.max_time.map(|d| d.as_secs_f64()),
        max_instructions: c.max_instructions,
        max_memory_mb: c.max_memory_mb,
        max_stack_frames: c.max_stack_frames,
        searcher: c
            .searcher
            .to_possible_value()
            .map(|v| v.get_name().to_string())
            .unwrap_or_default(),
        seed: c.seed,
        solver_timeout_ms: c.solver.timeout_ms,
        solver_chain: c.solver.chain.to_string(),
        link_runtime: c.link_runtime,
    }
}

/// `config` with a shard's options: what the partition fixed replaces
/// what the command line says.
fn with_options(config: &RunConfig, o: &ShardOptions, path: &Path) -> anyhow::Result<RunConfig> {
    let bad = |what: &str, e: String| anyhow::anyhow!("{} names {what}: {e}", path.display());
    Ok(RunConfig {
        entry: o.entry.clone(),
        program_args: o.args.clone(),
        max_depth: o.max_depth,
        max_time: o
            .max_time_s
            .map(std::time::Duration::try_from_secs_f64)
            .transpose()
            .map_err(|e| bad("a bad time limit", e.to_string()))?,
        max_instructions: o.max_instructions,
        max_memory_mb: o.max_memory_mb,
        max_stack_frames: o.max_stack_frames,
        searcher: <crate::search::SearcherKind as ValueEnum>::from_str(&o.searcher, false)
            .map_err(|e| bad("an unknown searcher", e))?,
        seed: o.seed,
        solver: crate::solver::SolverConfig {
            timeout_ms: o.solver_timeout_ms,
            chain: o
                .solver_chain
                .parse()
                .map_err(|e: crate::solver::ChainError| bad("a bad solver chain", e.to_string()))?,
            ..config.solver.clone()
        },
        link_runtime: o.link_runtime,
        ..config.clone()
    })
}

/// `mnemo run --shard FILE`: explores below the shard's candidates, into
/// `config.output_dir`, which also gets the run's trie and a copy of the
/// shard. `program` overrides the bitcode the shard names.
pub fn run_shard(
    shard_file: &Path,
    program: Option<&Path>,
    config: &RunConfig,
    stop: &StopRequest,
) -> anyhow::Result<RunStats> {
    let started = Instant::now();
    let shard = Shard::read(shard_file)?;
    let program = program.map_or(shard.program.clone(), Path::to_path_buf);
    let stats = explore_shard(&shard, shard_file, &program, None, config, started, stop)?;
    shard.write(&config.output_dir.join(RUN_SHARD))?;
    Ok(stats)
}

/// Explores below `shard`'s candidates with the shard's options, the
/// program's bitcode read from `program` (unless `loaded` holds it), into
/// `config.output_dir` (its trie too); `origin` names the shard in errors.
pub(crate) fn explore_shard(
    shard: &Shard,
    origin: &Path,
    program: &Path,
    loaded: Option<&Loaded>,
    config: &RunConfig,
    started: Instant,
    stop: &StopRequest,
) -> anyhow::Result<RunStats> {
    let mut config = with_options(config, &shard.options, origin)?;
    config.program = program.to_path_buf();
    config.memo_dir = Some(config.output_dir.clone());
    config.resume = false;
    let (toolchain, module) = match loaded {
        Some((toolchain, module)) => (toolchain.clone(), module.clone()),
        None => {
            let (toolchain, module) = load_program(program, config.link_runtime, config.optimize)?;
            shard.check_module(origin, program, &module)?;
            (toolchain, module)
        }
    };
    let key = program_key(program);
    let now = Recorded::of(
        &module,
        &key,
        &config.entry,
        &config.program_args,
        config.max_depth,
    );
    let plan = Plan::with_candidates(
        shard.prefixes.clone(),
        &now,
        &shard.candidates,
        &shard.retries,
        false,
        false,
    );
    execute(
        &config,
        &toolchain,
        module,
        Memo {
            plan: Some(plan),
            now,
            trie_file: memo::trie_path(&config.output_dir, &key),
            load_s: started.elapsed().as_secs_f64(),
            max_depth: config.max_depth,
            watch: Vec::new(),
            complete_with: None,
            started,
        },
        stop,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_shallow_trie_deepens_to_what_it_needs_then_toward_what_it_prefers_while_cheap() {
        let exactly = Want::exactly(8);
        assert!(exactly.deepen_again(7, None));
        assert!(!exactly.deepen_again(8, Some(Duration::ZERO)));
        // Nothing left below: no deeper run finds more.
        assert!(!exactly.deepen_again(0, None));
        let cluster = Want {
            need: 8,
            prefer: 128,
        };
        // Short of the need, however long it takes.
        assert!(cluster.deepen_again(5, None));
        assert!(cluster.deepen_again(20, Some(Duration::from_millis(100))));
        assert!(!cluster.deepen_again(20, Some(PREFER_BUDGET)));
        assert!(!cluster.deepen_again(128, Some(Duration::ZERO)));
    }

    /// A boundary that stops growing (a loop on fresh input leaves one
    /// boundary node at every depth) stalls the shallow phase once both
    /// enough depths and enough time have passed; growth starts it afresh.
    #[test]
    fn a_shallow_phase_stalls_when_its_boundary_stops_growing() {
        let t0 = Instant::now();
        let mut g = Growth::new(t0);
        let late = t0 + STALL_TIME;
        for depth in 1..=4 {
            assert!(!g.stalled(depth as usize, depth, t0));
        }
        // Flat: not for fewer depths, however long; nor sooner.
        assert!(!g.stalled(4, 4 + STALL_DEPTHS - 1, late));
        assert!(!g.stalled(4, 4 + STALL_DEPTHS, t0));
        assert!(!g.stalled(3, 4 + STALL_DEPTHS, t0 + STALL_TIME / 2));
        assert!(g.stalled(4, 4 + STALL_DEPTHS, late));
        // Grown again: counted from there.
        assert!(!g.stalled(5, 30, late));
        assert!(!g.stalled(5, 30 + STALL_DEPTHS, late));
        assert!(g.stalled(5, 30 + STALL_DEPTHS, late + STALL_TIME));
    }
}
