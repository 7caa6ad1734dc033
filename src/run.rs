//! One `mnemo run`: load the program with the runtime, explore it, write
//! the tests and the statistics. The binary is a thin layer over this.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::checkpoint::Checkpointer;
use crate::exec::posix::{HostFile, PosixArgs};
use crate::exec::{EarlyReason, ExecConfig, Executor};
use crate::ir::{self, Module};
use crate::memo::heuristic::{HeuristicKind, Targets};
use crate::memo::{self, Plan, Recorded, Recorder, Trie, TrieGuide};
use crate::parallel::{self, WorkerLine, Workers};
use crate::search::{explore, ExploreConfig, FinishedPath, SearcherKind};
use crate::solver::store::{self, SharedStore};
use crate::solver::{SharedCanonCache, SolverConfig};
use crate::stats::{MemoStats, ParallelStats, Progress, RunStats, Totals};
use crate::stop::StopRequest;
use crate::testgen::{StagedTest, TestWriter, Toolchain};

mod earlier;
mod outputs;
mod report;
pub use earlier::check_memo_dir;
use earlier::{earlier_trie, plan_over};
use outputs::{Outputs, Staged, WriteFailure};
use report::Report;

/// The program's command line as its tests record it (a ktest's
/// arguments): its path, then its arguments.
pub(crate) fn command_line(program: &Path, args: &[String]) -> Vec<String> {
    std::iter::once(program.display().to_string())
        .chain(args.iter().cloned())
        .collect()
}

/// Which ended paths get test files in the output directory. The trie
/// keeps every path's test whichever it is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TestFiles {
    /// Every path's: what a run writes by default.
    #[default]
    All,
    /// `--only-new-coverage`: errors' and those of paths that executed an
    /// instruction no path had before them.
    NewCoverage,
    /// No path's: `--write-no-tests`, and a run of which only the trie is
    /// kept (a cluster worker's, whose tests get their files where the run
    /// is joined; the shallow runs a partition is cut from).
    None,
}

/// Everything a run needs from the command line.
#[derive(Clone, Debug)]
pub struct RunConfig {
    pub program: PathBuf,
    pub output_dir: PathBuf,
    /// Arguments given to the program after its name (KLEE's `--sym-*`
    /// options among them are expanded before main).
    pub program_args: Vec<String>,
    /// `--file`: host files the program may read (never write).
    pub host_files: Vec<PathBuf>,
    pub max_depth: Option<u32>,
    pub max_time: Option<Duration>,
    pub max_instructions: Option<u64>,
    pub max_memory_mb: Option<u64>,
    /// `--max-stack-frames`: a deeper call ends its path (`max-stack`).
    pub max_stack_frames: u32,
    pub searcher: SearcherKind,
    pub seed: u64,
    pub solver: SolverConfig,
    /// `--store` specs; empty means the default embedded store, `none`
    /// means no store beyond the run.
    pub stores: Vec<String>,
    pub show_output: bool,
    pub entry: String,
    /// Link the runtime's C library into the program.
    pub link_runtime: bool,
    /// `--optimize`: the program is optimized as at -O2 before the run.
    pub optimize: bool,
    pub quiet: bool,
    /// `--memo DIR`: follow the trie an earlier run left there. Without it
    /// the trie is still written, to [`default_memo_dir`], but not read.
    pub memo_dir: Option<PathBuf>,
    /// `--resume`: go on with the paths a stopped run left (implies reading
    /// the trie; the output directory of the stopped run may be reused).
    pub resume: bool,
    /// `--compress`: keep only what later runs need (Memoise's ID-c): the
    /// subtrees the run did not explore are cut, their tests kept.
    pub compress: bool,
    /// `--target`: source lines (`FILE:LINE`) or functions a deeper run
    /// should reach; only boundary nodes the heuristic picks are explored.
    pub targets: Vec<String>,
    /// The heuristic that picks them.
    pub heuristic: HeuristicKind,
    /// The process ends with this run: its memory is left to the operating
    /// system to reclaim rather than freed piece by piece.
    pub last_in_process: bool,
    /// `--checkpoint`: how often the trie, `tests.json` and `stats.json`
    /// are saved while the run goes on (`None`: only at its end).
    pub checkpoint: Option<Duration>,
    /// `--jobs`: workers exploring the run (1: the engine on the calling
    /// thread alone, as before workers existed).
    pub jobs: usize,
    /// `--balance`: how the workers share the run out.
    pub balance: parallel::Balance,
    /// `--compose`: the depth bound summaries are built to (`None`: the
    /// run is not compositional).
    pub compose: Option<u32>,
    /// Which paths get test files (`--only-new-coverage`: errors and paths
    /// that covered a new instruction); the trie keeps every path's test.
    pub test_files: TestFiles,
    /// `--max-site-fork-share`: the share of the run's forks past which a
    /// branch site stops forking. Such a run's trie misses the paths it
    /// cut: it is kept apart and never followed.
    pub max_site_fork_share: Option<f64>,
    /// `--max-forks`: the forks the run may make in all.
    pub max_forks: Option<u64>,
    /// `--silent-klee-assume`: a `klee_assume` the path cannot meet ends
    /// it without a test, not as a user error.
    pub silent_assume: bool,
    /// `--retry-undecided`: the run goes back to the alternatives earlier
    /// runs left undecided (their solver query out of time) and asks about
    /// them again, with the whole `--solver-timeout` each.
    pub retry_undecided: bool,
    /// `--exit-on-error` and `--exit-on-error-type`: the error kinds a
    /// path may end in that stop the run, as a limit does (empty: none).
    pub exit_on_error: Vec<crate::exec::ErrorKind>,
    /// The paths pending when a limit or a signal stops the run get no
    /// test (KLEE's `--dump-states-on-halt=false`): they are kept in the
    /// trie untested (`paths.untested`); see
    /// [`ExploreConfig::skip_pending_tests`].
    pub skip_pending_tests: bool,
    /// Whether every error path gets its test's files (KLEE's
    /// `--emit-all-errors`); without, only the first at each error's kind
    /// and source line does, the others counted in `paths.unwritten` and
    /// kept in the trie.
    pub emit_all_errors: bool,
    /// `--max-tests`: the run stops, as at a limit, once it has written
    /// this many tests (the paths pending then get theirs too).
    pub max_tests: Option<u64>,
    /// `--seed-file` and `--seed-dir`: recorded tests whose paths the run
    /// explores first.
    pub seeds: Vec<Arc<crate::exec::seeds::Seed>>,
    /// `--allow-seed-extension` and `--allow-seed-truncation`.
    pub seed_fit: crate::exec::seeds::SeedFit,
    /// `--only-seed`: a path that leaves the seeds ends there.
    pub only_seed: bool,
    /// `--seed-time`: how long, from the run's start, paths follow seeds.
    pub seed_time: Option<Duration>,
    /// `--write-smt2s`: each test whose path this run explored gets its
    /// path condition in SMT-LIB 2 (`testNNNNNN.smt2`).
    pub write_conditions: bool,
    /// `--write-cov`: write the source lines each explored path executed
    /// beside its test.
    pub write_coverage: bool,
}

/// The memo directory of a run without `--memo`: `mnemo-memo` beside the
/// output directory.
pub fn default_memo_dir(output_dir: &Path) -> PathBuf {
    match output_dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.join("mnemo-memo"),
        _ => PathBuf::from("mnemo-memo"),
    }
}

impl RunConfig {
    /// Where the run's trie is kept: `--memo`, or the default next to the
    /// output directory.
    pub fn memo_dir(&self) -> PathBuf {
        self.memo_dir
            .clone()
            .unwrap_or_else(|| default_memo_dir(&self.output_dir))
    }
}

/// What the key of a trie recorded with `--optimize` adds to the
/// program's: another module, whose choices are not the bitcode's.
pub const OPTIMIZED_KEY: &str = ".optimized";

/// The name a program's trie is kept under: its file's stem.
pub fn program_key(program: &Path) -> String {
    program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".to_string())
}

/// The stores the chain's store layers use, or `None` when the chain has
/// none or `--store none` was given. A store that cannot be opened is a
/// warning: the run goes on without it (and never touches its file).
fn open_stores(config: &RunConfig) -> Option<SharedStore> {
    if !config.solver.chain.uses_stores() {
        return None;
    }
    let specs: Vec<String> = if config.stores.is_empty() {
        store::default_path()
            .map(|p| vec![p.display().to_string()])
            .unwrap_or_default()
    } else {
        config.stores.clone()
    };
    if specs.iter().any(|s| s == "none") {
        return None;
    }
    let (multi, errors) = store::open_all(&specs);
    for e in errors {
        eprintln!("mnemo: warning: {e}; going on without it");
    }
    (!multi.is_empty()).then(|| SharedStore(Arc::new(multi)))
}

/// A program loaded for a run, with the toolchain found for its runtime
/// (none where it is run without).
pub type Loaded = (Option<Toolchain>, Arc<Module>);

/// Loads a program, optimized and linked with the runtime's C library when
/// asked; the toolchain found for the runtime comes along.
pub fn load_program(program: &Path, link_runtime: bool, optimize: bool) -> anyhow::Result<Loaded> {
    let toolchain = if link_runtime {
        Some(Toolchain::find()?)
    } else {
        None
    };
    let runtime = match &toolchain {
        Some(t) => vec![t.runtime_bitcode()?],
        None => Vec::new(),
    };
    let runtime_refs: Vec<&Path> = runtime.iter().map(|p| p.as_path()).collect();
    let module = ir::load_module(program, &runtime_refs, optimize)
        .with_context(|| format!("cannot load {}", program.display()))?;
    Ok((toolchain, Arc::new(module)))
}

/// Where the C library's sources are (musl's and the runtime's own, all
/// under the runtime directory), which coverage leaves out.
pub fn runtime_sources(toolchain: &Option<Toolchain>) -> Option<String> {
    toolchain
        .as_ref()
        .map(|t| format!("{}/", t.runtime_dir.display()))
}

/// Whether the program's arguments ask for KLEE's POSIX environment, and
/// the host files `--file` names, read: a bad `--sym-*` option or a file
/// that cannot be read is an error before the run.
pub fn environment_of(
    program_args: &[String],
    host_files: &[PathBuf],
) -> anyhow::Result<(bool, Vec<HostFile>)> {
    let posix = PosixArgs::parse(program_args)
        .context("bad program arguments")?
        .is_some();
    let mut files = Vec::new();
    for path in host_files {
        files.extend(HostFile::read(&path.display().to_string())?);
    }
    Ok((posix, files))
}

/// Runs the program and writes everything into the output directory.
pub fn run(config: &RunConfig, stop: &StopRequest) -> anyhow::Result<RunStats> {
    let started = Instant::now();
    check_memo_dir(&config.memo_dir())?;
    let program = load_program(&config.program, config.link_runtime, config.optimize)?;
    run_loaded(config, program, started, stop)
}

/// [`run`] with `config.program` loaded already (by [`load_program`]):
/// runs one after the other on a program load it once. `--max-time`
/// counts from `started`.
pub fn run_loaded(
    config: &RunConfig,
    (toolchain, module): Loaded,
    started: Instant,
    stop: &StopRequest,
) -> anyhow::Result<RunStats> {
    let memo_dir = config.memo_dir();
    check_memo_dir(&memo_dir)?;

    crate::compose::check_heuristic(
        config.heuristic,
        config.compose.is_some(),
        !config.targets.is_empty(),
    )?;
    let mut key = program_key(&config.program);
    if config.compose.is_some() {
        crate::compose::check_run(config.resume)?;
        // A compositional run's trie has summary nodes at call sites; it is
        // kept apart from the whole-program runs' trie, and not followed.
        key.push_str(".compose");
    }
    // A trie that lacks the alternatives its run cut is kept apart, and
    // not followed, as a compositional run's is.
    if config.max_site_fork_share.is_some() {
        key.push_str(".fork-share");
    }
    if config.max_forks.is_some() {
        key.push_str(".max-forks");
    }
    // Another module, whose choices are not the bitcode's.
    if config.optimize {
        key.push_str(OPTIMIZED_KEY);
    }
    if config.silent_assume {
        // Its trie has no leaf where the default's has a user error.
        key.push_str(".silent-assume");
    }
    let trie_file = memo::trie_path(&memo_dir, &key);
    let load_start = Instant::now();
    let whole = config.max_site_fork_share.is_none() && config.max_forks.is_none();
    let old = match config.compose.is_none() && whole {
        true => earlier_trie(config, &trie_file)?,
        false => None,
    };
    // A resumed run keeps the depth bound of the run it resumes.
    let max_depth = match (&old, config.resume) {
        (Some(t), true) => config.max_depth.or(t.recorded.max_depth),
        _ => config.max_depth,
    };
    let now = Recorded::of(
        &module,
        &key,
        &config.entry,
        &config.program_args,
        max_depth,
    );
    let targets = if config.targets.is_empty() {
        None
    } else {
        Some(Targets::parse(&module, &config.targets)?)
    };
    let plan = match old {
        Some(t) => plan_over(config, t, targets.as_ref(), &module, &now, &trie_file)?,
        None => None,
    };
    let load_s = load_start.elapsed().as_secs_f64();
    execute(
        config,
        &toolchain,
        module,
        Memo {
            plan,
            now,
            trie_file,
            load_s,
            max_depth,
            watch: targets.map(|t| t.instructions()).unwrap_or_default(),
            complete_with: None,
            started,
        },
        stop,
    )
}

/// What a run does with tries: the plan over an earlier trie (if any), what
/// it records, and where.
pub struct Memo {
    pub plan: Option<Plan>,
    pub now: Recorded,
    pub trie_file: PathBuf,
    /// Seconds spent reading and planning over the earlier trie.
    pub load_s: f64,
    /// The depth bound of the run.
    pub max_depth: Option<u32>,
    /// Target instructions whose first execution is reported.
    pub watch: Vec<(crate::ir::FuncId, crate::ir::InstId)>,
    /// The complete trie the plan compressed and the plan's marks: the
    /// run's trie is merged with it before it is saved, so it is complete.
    pub complete_with: Option<(Trie, memo::Marks)>,
    /// When the run started (loading included): `--max-time` counts from
    /// here.
    pub started: Instant,
}

/// Explores the loaded program as `memo` says and writes everything.
pub fn execute(
    config: &RunConfig,
    toolchain: &Option<Toolchain>,
    module: Arc<Module>,
    memo: Memo,
    stop: &StopRequest,
) -> anyhow::Result<RunStats> {
    let Memo {
        plan,
        now,
        trie_file,
        load_s,
        max_depth,
        watch,
        complete_with,
        started,
    } = memo;
    let program_name = config.program.display().to_string();
    let argv = command_line(&config.program, &config.program_args);
    let (posix, host_files) = environment_of(&config.program_args, &config.host_files)?;
    let exec_config = ExecConfig {
        max_depth,
        max_stack_frames: config.max_stack_frames,
        argv: argv.clone(),
        entry: config.entry.clone(),
        posix,
        host_files,
        show_output: config.show_output,
        solver: SolverConfig {
            store: open_stores(config),
            canon_cache: (config.jobs > 1).then(SharedCanonCache::default),
            ..config.solver.clone()
        },
        runtime_dir: runtime_sources(toolchain),
        strict_guide: false,
        max_site_fork_share: config.max_site_fork_share,
        max_forks: config.max_forks,
        silent_assume: config.silent_assume,
        write_lines: config.write_coverage,
        seeds: config.seeds.clone(),
        seed_fit: config.seed_fit,
        only_seed: config.only_seed,
        // 0 is no limit, as in KLEE.
        seeding_until: config
            .seed_time
            .filter(|t| !t.is_zero())
            .map(|t| started + t),
        shared: Default::default(),
    };
    // Read before anything in the directory is replaced.
    let earlier = config
        .resume
        .then(|| RunStats::read(&config.output_dir.join("stats.json")).ok())
        .flatten()
        .map(|s| Totals::of(&s));
    let mut writer = if config.resume {
        TestWriter::resume(&config.output_dir, &program_name, argv)?
    } else {
        TestWriter::create(&config.output_dir, &program_name, argv)?
    };
    let mut memo_stats = MemoStats {
        trie: trie_file.display().to_string(),
        load_s,
        ..MemoStats::default()
    };
    let stores = exec_config.solver.store.clone();
    let exec_stores = stores.as_ref().map(|s| s.0.describe()).unwrap_or_default();
    let mut checkpoints = config
        .checkpoint
        .map(|_| Checkpointer::new(&trie_file, &config.output_dir));
    // The other workers' executors are made as this one is.
    let worker_config = (config.jobs > 1).then(|| (exec_config.clone(), watch.clone()));
    let composer = match config.compose {
        Some(bound) => {
            let memo_dir = trie_file.parent().unwrap_or(Path::new("."));
            Some(crate::compose::attach(
                &module,
                &exec_config,
                memo_dir,
                bound,
                (config.heuristic, &watch),
                (config.max_time.map(|m| started + m), stop),
            )?)
        }
        None => None,
    };
    let mut executor = Executor::new(module.clone(), exec_config);
    executor.watch(watch);
    if let Some((c, _)) = &composer {
        executor.set_composer(c.clone());
    }
    let mut places = Vec::new();
    let explores = plan.as_ref().is_none_or(|p| p.explores());
    let mut partitions = None;
    let mut recorder = match plan {
        Some(p) => {
            memo_stats.reused = true;
            memo_stats.candidates = p.candidates as u64;
            memo_stats.retry_nodes = p.retries as u64;
            memo_stats.kept_tests = p.kept.len() as u64;
            // A run that writes no test files (a shallow run a partition is
            // cut from, deepened a decision at a time) keeps these in the
            // trie alone, as it does its own paths' tests.
            if config.test_files == TestFiles::None {
                p.kept.iter().for_each(|t| writer.count_unwritten(t));
            } else {
                for t in &p.kept {
                    writer.write(t)?;
                }
                places.extend(p.kept_places.iter().copied());
            }
            // The guide reads the trie as it was; the recorder adds to it.
            let base = Arc::new(p.base.clone());
            if let Some(packing) = config.balance.partitions().filter(|_| config.jobs > 1) {
                let guides = parallel::partition::worker_guides(
                    &base,
                    &p.marks,
                    max_depth,
                    config.jobs,
                    packing,
                    &module,
                );
                partitions = Some(guides);
            }
            executor.set_guide(Arc::new(TrieGuide::new(base, p.marks, &module)));
            Recorder::new(p.base)
        }
        None => Recorder::new(Trie::new(now)),
    };
    let limits = ExploreConfig {
        max_time: config.max_time,
        started: Some(started),
        max_instructions: config.max_instructions,
        max_memory_mb: config.max_memory_mb,
        checkpoint: config.checkpoint,
        leave_memory: config.last_in_process,
        skip_pending_tests: config.skip_pending_tests,
        tests_for_new_coverage: config.test_files == TestFiles::NewCoverage,
        test_files: Some(writer.stager().numbered()),
    };
    let progress = Progress::new(config.quiet);
    let report = Report {
        config,
        memo: memo_stats,
        stores: exec_stores,
        earlier,
        explore_start: Instant::now(),
    };
    // Set before the initial state, whose globals count against it.
    executor.set_memory_limit(config.max_memory_mb);
    let stager = writer.stager().clone();
    let failure = WriteFailure::new(stop);
    let stage = |ex: &Executor, path: &FinishedPath<'_>| -> Option<StagedTest> {
        match outputs::stage(config, &stager, ex, path, &failure) {
            Staged::Test(t) => Some(t),
            // The observer keeps a path whose test failed for `--resume`.
            Staged::None | Staged::Failed => None,
        }
    };
    let mut outputs = Outputs {
        writer: &mut writer,
        recorder: &mut recorder,
        checkpoints: checkpoints.as_mut(),
        complete_with: complete_with.as_ref(),
        report: &report,
        places: &mut places,
        first_error: None,
        failure: &failure,
    };
    // How the workers spent their time (one worker: its busy time alone).
    let mut workers_did = parallel::ParallelOutcome::default();
    let outcome = if !explores {
        Ok(Default::default())
    } else if let Some((exec_config, watch)) = worker_config {
        let guide = executor.guide();
        // Each worker follows its own partition; worker 0 is this executor.
        if let Some((g, _)) = partitions.as_ref().and_then(|p| p.first()) {
            executor.set_guide(g.clone());
        }
        let composing = composer.as_ref().map(|(c, _)| c.clone());
        let make_executor = |w: usize| {
            let mut ex = Executor::new(module.clone(), exec_config.clone());
            ex.watch(watch.iter().copied());
            if let Some(c) = &composing {
                ex.set_composer(c.clone());
            }
            let own = partitions.as_ref().and_then(|p| p.get(w)).map(|(g, _)| g);
            if let Some(g) = own.or(guide.as_ref()) {
                ex.set_guide(g.clone());
            }
            ex
        };
        let workers = Workers {
            jobs: config.jobs,
            make_executor: &make_executor,
            searcher: config.searcher,
            seed: config.seed,
            starts: partitions
                .as_ref()
                .map(|p| p.iter().map(|(_, has)| *has).collect()),
            moves: config.balance.moves(),
            stage: Some(&stage),
        };
        let show = |lines: &[WorkerLine]| progress.update_workers(lines);
        parallel::explore(&mut executor, &workers, &limits, &mut outputs, stop, &show).map(|p| {
            workers_did = p;
            workers_did.outcome.clone()
        })
    } else {
        let initial = executor.initial_state()?;
        let mut searcher =
            crate::search::seeds_first(config.searcher.build(config.seed), &executor);
        explore(
            &mut executor,
            searcher.as_mut(),
            initial,
            &limits,
            &mut outputs,
            stop,
            |ex, p| {
                progress.update(
                    p.ended,
                    p.pending,
                    ex.instructions,
                    ex.solver_stats().queries,
                )
            },
        )
        .inspect(|o| workers_did.busy_s = vec![o.elapsed.as_secs_f64()])
    };
    progress.finish();
    let first_error = outputs.first_error.take();
    // Whatever happened, keep what was found, numbered by the tests' places
    // in the trie whatever order their paths ended in.
    let order = memo::trie_order(&recorder.trie, &places);
    // The renumbering (the output directory's files) and the trie's save
    // (its encoding and the memo directory) share nothing; each was a few
    // tenths of a second of a run writing a test per path, while the
    // workers had ended.
    let (renumbered, (saved, save_s)) = std::thread::scope(|scope| {
        let saving = scope.spawn(|| {
            let save_start = Instant::now();
            if let Some((old, marks)) = &complete_with {
                recorder.trie = memo::merge(old, &recorder.trie, marks);
            }
            let saved = memo::file::save(&recorder.trie, &trie_file)
                .map(|nodes| (nodes, recorder.trie.undecided()));
            (saved, save_start.elapsed().as_secs_f64())
        });
        let renumbered = writer.renumber(&order);
        let saved = saving
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (renumbered, saved)
    });
    let outcome = outcome.map_err(|e| failure.attach(e))?;
    renumbered.map_err(|e| failure.attach(e))?;
    let (nodes, undecided) = saved
        .with_context(|| "cannot save the run's trie")
        .map_err(|e| failure.attach(e))?;
    if let Some(m) = &executor.guided.first_mismatch {
        eprintln!("mnemo: warning: the trie does not fit the program: {m}");
    }
    let checkpoint_stats = checkpoints.as_ref().map(|c| c.stats.clone());
    let mut stats = report.stats(
        &executor,
        &writer,
        recorder.paths,
        outcome.stopped_by,
        &checkpoint_stats.unwrap_or_default(),
    );
    stats.wall_s = outcome.elapsed.as_secs_f64();
    stats.first_error = first_error;
    stats.total = report.earlier.clone().unwrap_or_default().plus(&stats);
    stats.memo.save_s = save_s;
    stats.memo.nodes = nodes;
    stats.memo.undecided = undecided;
    stats.memo.trie_bytes = std::fs::metadata(&trie_file).map_or(0, |m| m.len());
    if let Some((c, prepared)) = &composer {
        stats.compose = crate::compose::stats(
            prepared,
            &c.counts(),
            &executor.replay,
            Some(config.heuristic),
        );
    }
    stats.parallel = ParallelStats {
        jobs: config.jobs.max(1) as u64,
        imbalance: parallel::imbalance(&workers_did.busy_s),
        busy_s: workers_did.busy_s,
        moved: workers_did.moved,
        report_wait_s: workers_did.report_wait_s,
        report_s: workers_did.report_s,
        checkpoint_wait_s: workers_did.checkpoint_wait_s,
    };
    // tests.json right before stats.json: a run killed at its end leaves
    // the pair of its last checkpoint or the final pair, unless it dies in
    // the moment between the two writes.
    writer.finish().map_err(|e| failure.attach(e))?;
    let path = config.output_dir.join("stats.json");
    stats
        .write(&path)
        .with_context(|| format!("cannot write {}", path.display()))
        .map_err(|e| failure.attach(e))?;
    // The files above were written atomically but not synced one by one.
    if let Some(c) = &mut checkpoints {
        c.finish();
    }
    let memo_dir = trie_file.parent().unwrap_or(Path::new("."));
    if let Err(e) = crate::files::sync_written(&[&config.output_dir, memo_dir]) {
        eprintln!(
            "mnemo: warning: cannot sync the results in {} to disk: {e}",
            config.output_dir.display()
        );
    }
    for (what, names) in [
        ("external calls", &executor.unsupported_externals),
        ("system calls", &executor.unsupported_syscalls),
    ] {
        if !names.is_empty() {
            let mut names: Vec<_> = names.iter().cloned().collect();
            names.sort();
            eprintln!("mnemo: unsupported {what}: {}", names.join(", "));
        }
    }
    if let Some(e) = failure.into_error(stats.tests) {
        return Err(e);
    }
    if config.max_memory_mb.is_none() && stats.paths.early.contains_key("max-memory") {
        if let Some(guard) = crate::exec::default_guard_mb() {
            eprintln!(
                "mnemo: the run reached its memory guard, {guard} MiB (half of the memory \
                 this machine gives it): pending paths ended early with their tests \
                 (--max-memory sets another limit)"
            );
        }
    }
    if let Some(reason) = outcome.stopped_by {
        let untested = match stats.paths.untested {
            0 => String::new(),
            n if config.memo_dir.is_some() => format!(" but {n}, kept in the trie for --resume"),
            n => format!(" but {n} (only counted: --memo keeps them for --resume)"),
        };
        let by = match reason {
            EarlyReason::Interrupted | EarlyReason::Terminated => "stopped",
            EarlyReason::ExitOnError => "stopped at an error",
            EarlyReason::MaxTests => "stopped at --max-tests",
            _ => "stopped at a limit",
        };
        eprintln!(
            "mnemo: {by} ({}); pending paths got tests{untested}",
            reason.as_str()
        );
    }
    if config.last_in_process {
        // Everything is written and synced, the stores' background writes
        // included. Freeing the engine's memory (Z3's context, the
        // expression memos, the trie: half a second after a long run)
        // would only hold up the end of the process, past the time limit.
        if let Some(Err(e)) = stores.as_ref().map(|s| s.0.flush()) {
            eprintln!("mnemo: warning: cannot finish writing the solver stores: {e}");
        }
        std::mem::forget(executor);
        std::mem::forget(recorder);
        std::mem::forget(module);
    }
    Ok(stats)
}
