//! The `mnemo` command line: a thin layer over the library.

use std::path::PathBuf;

use anyhow::Context;
use clap::Parser;

use mnemo::exec::seeds::{Seed, SeedFit};
use mnemo::exec::ErrorKind;
use mnemo::run::RunConfig;
use mnemo::stats::RunStats;
use mnemo::stop::StopRequest;
use mnemo::testgen::{replay_dir_with, write_commands, KTest, ModelRoot, ReplayOptions, Toolchain};

mod check;
mod cli;
mod klee;
use check::check_loadable;
use cli::{Cli, Command, Deepen, PackingArg, RunArgs, SummaryCommand, TrieCommand};

/// The exit status of an error: mnemo could not do what was asked (clap
/// exits with 2 for a bad command line).
const EXIT_ERROR: u8 = 1;
/// The exit status of `certify` and `replay` when the trie or a test does
/// not hold.
const EXIT_CHECK_FAILED: u8 = 1;
/// The exit status of a run a limit stopped (`--max-time`,
/// `--max-instructions`, `--max-memory`): everything found was written,
/// and `--resume` goes on.
const EXIT_LIMIT: u8 = 3;

/// The exit status of a command that did what was asked.
const EXIT_OK: u8 = 0;

fn main() {
    let status = real_main().unwrap_or_else(|e| {
        eprintln!("mnemo: error: {e:#}");
        EXIT_ERROR
    });
    // Every file is written, synced and closed, and every value the command
    // made is dropped (or left to the OS on purpose). Exit handlers would
    // only free what the OS frees anyway: mimalloc collects every heap page
    // by page and LLVM and Z3 run their destructors, a tenth of a second
    // after a deep run that the whole call waits for.
    let _ = std::io::Write::flush(&mut std::io::stdout());
    // SAFETY: no other thread touches anything a handler would finish;
    // `_exit` ends them all with the process.
    unsafe { libc::_exit(i32::from(status)) }
}

/// `mnemo klee`: KLEE's command line translated, then run as `mnemo run`
/// (or printed). The output directory, KLEE's `klee-out-N` where none is
/// given, is made only once the translated command has parsed.
fn klee_command(args: &[String]) -> anyhow::Result<u8> {
    use mnemo::testgen::commands::shell_word;
    let (t, print) = match klee::request(args).map_err(|e| anyhow::anyhow!("klee: {e}"))? {
        klee::Request::Help => {
            print!("{}", klee::help());
            return Ok(EXIT_OK);
        }
        klee::Request::Print(t) => (t, true),
        klee::Request::Run(t) => (t, false),
    };
    let default_out = (!t.output_dir_given)
        .then(|| klee::free_output_dir(&t.program))
        .transpose()?;
    let mut argv = vec!["mnemo".to_string(), "run".to_string()];
    if let Some(out) = &default_out {
        argv.extend(["--output-dir".to_string(), out.display().to_string()]);
    }
    argv.extend(t.run_args);
    let quoted: Vec<String> = argv
        .iter()
        .map(|w| String::from_utf8_lossy(&shell_word(w.as_bytes())).into_owned())
        .collect();
    let cli = Cli::try_parse_from(&argv).unwrap_or_else(|e| {
        eprintln!(
            "mnemo: klee: the command translates to `{}`, which is not valid:",
            quoted.join(" ")
        );
        e.exit()
    });
    if print {
        println!("{}", quoted.join(" "));
        return Ok(EXIT_OK);
    }
    for note in &t.notes {
        eprintln!("mnemo: klee: {note}");
    }
    if let Some(out) = &default_out {
        klee::claim_output_dir(out)?;
    }
    dispatch(cli)
}

/// The exit status of a run: 128 + the signal's number when a signal
/// stopped it (as a shell reports a process the signal killed), 3 when a
/// limit or `--exit-on-error` did, else 0 (errors found in the program are
/// results, not failures of mnemo).
fn run_status(stats: &RunStats, stop: &StopRequest) -> u8 {
    if let Some(code) = stop.exit_code() {
        return code;
    }
    if stats.stopped_by.is_some() {
        return EXIT_LIMIT;
    }
    EXIT_OK
}

fn real_main() -> anyhow::Result<u8> {
    dispatch(Cli::parse())
}

/// Runs one command of the grammar.
fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    match cli.command {
        Command::Klee { args } => klee_command(&args),
        Command::Cc {
            source,
            output,
            clang_args,
        } => {
            let toolchain = Toolchain::find()?;
            let output = output.unwrap_or_else(|| source.with_extension("bc"));
            toolchain.compile_bitcode(&source, &output, &clang_args)?;
            Ok(EXIT_OK)
        }
        Command::CcProject { args } => {
            mnemo::project::ProjectCc::find()?.run(&args)?;
            Ok(EXIT_OK)
        }
        Command::Extract { program, output } => {
            let output = output.unwrap_or_else(|| program.with_extension("bc"));
            let n = mnemo::project::ProjectCc::find()?.extract(&program, &output)?;
            eprintln!("mnemo: {} object(s) linked into {}", n, output.display());
            Ok(EXIT_OK)
        }
        Command::Run(a) => {
            let stop = signal_handlers()?;
            if let Some(shard) = a.shard.clone() {
                return run_shard(a, &shard, &stop);
            }
            let deepen_bounds = a.deepen;
            let cluster = a.cluster.clone();
            let config = run_config(a)?;
            check_loadable(&config.program, &stop)?;
            if let Some(url) = cluster {
                let stats = mnemo::cluster::coordinate(&config, &url, &stop)?;
                eprint!("{}", stats.summary());
                eprintln!("mnemo: output in {}", config.output_dir.display());
                return Ok(run_status(&stats, &stop));
            }
            if let Some(d) = deepen_bounds {
                return deepen(config, d, &stop);
            }
            let stats = mnemo::batch::run(&config, &stop)?;
            eprint!("{}", stats.summary());
            eprintln!("mnemo: output in {}", config.output_dir.display());
            Ok(run_status(&stats, &stop))
        }
        Command::Regress { old, run } => {
            let stop = signal_handlers()?;
            check_loadable(&old, &stop)?;
            if run.deepen.is_some() || run.resume || run.shard.is_some() {
                anyhow::bail!("regress takes none of --deepen, --resume and --shard");
            }
            let config = run_config(run)?;
            check_loadable(&config.program, &stop)?;
            let report = mnemo::regress::regress(&config, &old, &stop)?;
            print!("{report}");
            eprint!("{}", report.stats.summary());
            eprintln!("mnemo: output in {}", config.output_dir.display());
            Ok(run_status(&report.stats, &stop))
        }
        Command::Partition {
            shards,
            out,
            packing,
            run,
        } => {
            let stop = signal_handlers()?;
            if run.memo.is_none() {
                anyhow::bail!("partition needs --memo DIR: the trie the shards are made from is kept there, and `mnemo merge` reads it");
            }
            if run.deepen.is_some()
                || run.resume
                || run.shard.is_some()
                || run.exit_on_error
                || !run.exit_on_error_type.is_empty()
                || run.max_tests.is_some_and(|n| n > 0)
                || !run.seed_file.is_empty()
                || !run.seed_dir.is_empty()
                || run.max_forks.is_some()
                || run.silent_klee_assume
                || run.optimize
            {
                anyhow::bail!(
                    "partition takes none of --deepen, --resume, --shard, --exit-on-error, --max-tests, seeds, --max-forks, --silent-klee-assume and --optimize"
                );
            }
            let config = run_config(run)?;
            check_loadable(&config.program, &stop)?;
            let packing = match packing {
                PackingArg::Lpt => mnemo::parallel::partition::Packing::Lpt,
                PackingArg::Naive => mnemo::parallel::partition::Packing::Naive,
            };
            let report = mnemo::batch::write_shards(&config, shards, &out, packing, &stop)?;
            print!("{report}");
            Ok(EXIT_OK)
        }
        Command::Worker {
            url,
            jobs,
            stores,
            lease,
            quiet,
        } => {
            let stop = signal_handlers()?;
            let config = mnemo::cluster::WorkerConfig {
                url,
                jobs: jobs.unwrap_or_else(mnemo::parallel::default_jobs),
                stores,
                lease,
                quiet,
            };
            let report = mnemo::cluster::work(&config, &stop)?;
            eprint!("{report}");
            Ok(EXIT_OK)
        }
        Command::Merge {
            outputs,
            memo,
            output_dir,
        } => {
            let stats = mnemo::batch::merge(&outputs, &memo, &output_dir)?;
            eprint!("{}", stats.summary());
            eprintln!("mnemo: output in {}", output_dir.display());
            Ok(EXIT_OK)
        }
        Command::Summary {
            what: SummaryCommand::Show { memo, function },
        } => {
            print!("{}", mnemo::compose::show::show(&memo, &function)?);
            Ok(EXIT_OK)
        }
        Command::Trie { what } => {
            let (path, text) = match what {
                TrieCommand::Show { trie } => {
                    let t = load_trie(&trie)?;
                    (trie, mnemo::memo::show::show_text(&t))
                }
                TrieCommand::Stats { trie } => {
                    let t = load_trie(&trie)?;
                    let bytes = std::fs::metadata(&trie).ok().map(|m| m.len());
                    (trie, mnemo::memo::show::stats_text(&t, bytes))
                }
                TrieCommand::Dot { trie } => {
                    let t = load_trie(&trie)?;
                    (trie, mnemo::memo::show::dot_text(&t))
                }
            };
            let _ = path;
            print!("{text}");
            Ok(EXIT_OK)
        }
        Command::Certify {
            program,
            memo,
            entry,
            no_runtime,
            optimize,
            files,
            args,
        } => {
            check_loadable(&program, &StopRequest::default())?;
            let report = mnemo::certify::certify(&mnemo::certify::CertifyConfig {
                program,
                memo_dir: memo,
                entry,
                program_args: args,
                host_files: files,
                link_runtime: !no_runtime,
                optimize,
            })?;
            print!("{report}");
            Ok(if report.holds() {
                EXIT_OK
            } else {
                EXIT_CHECK_FAILED
            })
        }
        Command::Ktest { files } => {
            for f in files {
                // The error names the file.
                let k = KTest::read(&f)?;
                print!("{}", k.to_text(&f.display().to_string()));
            }
            Ok(EXIT_OK)
        }
        Command::Stats { dirs, csv } => {
            let mut runs = Vec::new();
            let mut unread = 0;
            for dir in dirs {
                let file = dir.join("stats.json");
                match mnemo::stats::RunStats::read(&file) {
                    Ok(s) => runs.push((dir.display().to_string(), s)),
                    // The others are still shown.
                    Err(e) => {
                        eprintln!("mnemo: cannot read {}: {e}", file.display());
                        unread += 1;
                    }
                }
            }
            let format = match csv {
                true => mnemo::stats::TableFormat::Csv,
                false => mnemo::stats::TableFormat::Aligned,
            };
            if !runs.is_empty() {
                print!("{}", mnemo::stats::table(&runs, format));
            }
            Ok(if unread > 0 { EXIT_ERROR } else { EXIT_OK })
        }
        Command::Replay {
            source,
            output_dir,
            as_commands: true,
            clang_args,
            ..
        } => {
            let toolchain = Toolchain::find()?;
            let report = write_commands(&toolchain, &source, &output_dir, &clang_args)?;
            for (ktest, why) in &report.skipped {
                println!("{ktest}: no script: {why}");
            }
            println!(
                "wrote {} script(s) running {}; run one with `sh {}`",
                report.scripts.len(),
                report.program.display(),
                report
                    .scripts
                    .first()
                    .map_or_else(|| "SCRIPT".into(), |p| p.display().to_string())
            );
            Ok(if report.skipped.is_empty() {
                EXIT_OK
            } else {
                EXIT_CHECK_FAILED
            })
        }
        Command::Replay {
            source,
            output_dir,
            as_commands: false,
            jobs,
            model_root,
            as_caller,
            host_files,
            clang_args,
        } => {
            let toolchain = Toolchain::find()?;
            let defaults = ReplayOptions::default();
            // Laid out afresh for each test, and removed with the command.
            let root_dir = model_root
                .then(|| {
                    tempfile::Builder::new()
                        .prefix("mnemo-model-root-")
                        .tempdir()
                })
                .transpose()
                .context("a directory for the model's root")?;
            let options = ReplayOptions {
                jobs: jobs.unwrap_or(defaults.jobs),
                run_as: match (model_root, as_caller) {
                    (true, _) => Some(ReplayOptions::MODEL_USER),
                    (false, true) => None,
                    (false, false) => {
                        let user = ReplayOptions::default_user();
                        if user.is_none() && ReplayOptions::caller_is_root() {
                            eprintln!(
                                "mnemo: this user namespace has no user {}: the tests run as \
                                 root, not as the model's user",
                                mnemo::exec::NOBODY
                            );
                        }
                        user
                    }
                },
                model_root: root_dir.as_ref().map(|d| ModelRoot {
                    dir: d.path().join("root"),
                    host_files,
                    kept: None,
                }),
                clang_args,
                ..defaults
            };
            let report = replay_dir_with(&toolchain, &source, &output_dir, &options)?;
            print!("{report}");
            Ok(if report.all_match() {
                EXIT_OK
            } else {
                EXIT_CHECK_FAILED
            })
        }
    }
}

/// `mnemo run --shard FILE`: the shard's options, this command line's
/// output directory, workers and stores.
fn run_shard(a: RunArgs, shard: &std::path::Path, stop: &StopRequest) -> anyhow::Result<u8> {
    let program = match &a.program {
        Some(p) => p.clone(),
        None => mnemo::parallel::shard::Shard::read(shard)?.program,
    };
    check_loadable(&program, stop)?;
    let config = run_config(RunArgs {
        program: Some(program.clone()),
        ..a
    })?;
    let stats = mnemo::batch::run_shard(shard, Some(&program), &config, stop)?;
    eprint!("{}", stats.summary());
    eprintln!("mnemo: output in {}", config.output_dir.display());
    Ok(run_status(&stats, stop))
}

/// The library's run configuration from the command line's.
///
/// Z3's seed is a setting of the process, not of one solver: it is set
/// here, where every command that solves passes.
fn run_config(a: RunArgs) -> anyhow::Result<RunConfig> {
    mnemo::solver::set_z3_seed(a.z3_seed);
    let program = a
        .program
        .context("name the program's bitcode (or a shard with --shard)")?;
    let mut exit_on_error = a.exit_on_error_type.clone();
    if a.exit_on_error {
        exit_on_error.extend(ErrorKind::ALL.into_iter().filter(|k| k.is_program_error()));
    }
    exit_on_error.sort();
    exit_on_error.dedup();
    let jobs = match a.jobs {
        Some(0) | None => mnemo::parallel::default_jobs(),
        Some(n) => n,
    };
    let seeds = Seed::load(&a.seed_file, &a.seed_dir)?;
    let seeding = [
        (a.only_seed, "--only-seed"),
        (a.named_seed_matching, "--named-seed-matching"),
        (a.seed_time.is_some(), "--seed-time"),
        (a.allow_seed_extension, "--allow-seed-extension"),
        (a.allow_seed_truncation, "--allow-seed-truncation"),
    ];
    if let Some((_, what)) = seeding.iter().find(|(given, _)| *given && seeds.is_empty()) {
        anyhow::bail!("{what} needs seeds: name them with --seed-file or --seed-dir");
    }
    // The shallow run a partition is cut from records its paths without
    // reporting them, so an error it met would stop nothing, and it
    // explores without the seeds; an optimized run's trie is kept apart,
    // where partitions do not look.
    let unpartitioned = [
        (!exit_on_error.is_empty(), "--exit-on-error"),
        (!seeds.is_empty(), "--seed-file and --seed-dir"),
        (a.optimize, "--optimize"),
    ];
    if let Some((_, what)) = unpartitioned.iter().find(|(given, _)| *given) {
        if jobs > 1 && a.balance.partitions().is_some() {
            anyhow::bail!(
                "{what}: only with --balance dynamic (the default), not with --balance {}",
                clap::ValueEnum::to_possible_value(&a.balance)
                    .map(|v| v.get_name().to_string())
                    .unwrap_or_default()
            );
        }
    }
    Ok(RunConfig {
        program,
        output_dir: a.output_dir,
        program_args: a.args,
        host_files: a.files,
        max_depth: a.max_depth,
        max_time: a.max_time,
        max_instructions: a.max_instructions,
        max_memory_mb: a.max_memory,
        max_stack_frames: a.max_stack_frames,
        searcher: a.search,
        seed: a.seed,
        solver: mnemo::solver::SolverConfig {
            timeout_ms: a.solver_timeout,
            chain: a.solver_chain,
            store: None,
            record: a.record_queries,
            canon_cache: None,
        },
        stores: a.stores,
        show_output: a.show_output,
        entry: a.entry,
        link_runtime: !a.no_runtime,
        optimize: a.optimize,
        quiet: a.quiet,
        memo_dir: a.memo,
        resume: a.resume,
        compress: a.compress,
        targets: a.target,
        heuristic: match a.heuristic {
            Some(h) if a.compose && !h.is_compositional() => anyhow::bail!(
                "--heuristic {} is for memoized runs; --compose takes h1 or h2",
                h.as_str()
            ),
            Some(h) => h,
            None => mnemo::memo::heuristic::HeuristicKind::Reachability,
        },
        last_in_process: true,
        checkpoint: (!a.checkpoint.is_zero()).then_some(a.checkpoint),
        jobs,
        balance: a.balance,
        compose: a.compose.then_some(a.summary_depth),
        test_files: match (a.write_no_tests, a.only_new_coverage) {
            (true, _) => mnemo::run::TestFiles::None,
            (false, true) => mnemo::run::TestFiles::NewCoverage,
            (false, false) => mnemo::run::TestFiles::All,
        },
        max_site_fork_share: a.max_site_fork_share,
        max_forks: a.max_forks,
        silent_assume: a.silent_klee_assume,
        retry_undecided: a.retry_undecided,
        exit_on_error,
        max_tests: a.max_tests.filter(|&n| n > 0),
        skip_pending_tests: !a.dump_states_on_halt,
        emit_all_errors: a.emit_all_errors,
        seeds,
        seed_fit: SeedFit {
            by_name: a.named_seed_matching,
            extend: a.allow_seed_extension,
            truncate: a.allow_seed_truncation,
        },
        only_seed: a.only_seed,
        seed_time: a.seed_time,
        write_conditions: a.write_smt2s,
        write_coverage: a.write_cov,
    })
}

/// Ctrl-C, SIGTERM and SIGHUP stop the run as a limit would: everything
/// found is written (see `mnemo::stop` for a second signal).
fn signal_handlers() -> anyhow::Result<std::sync::Arc<StopRequest>> {
    mnemo::stop::install_signal_handlers().context("cannot install the signal handlers")
}

/// A trie file, or the trie of the one program in a memo directory.
fn load_trie(path: &std::path::Path) -> anyhow::Result<mnemo::memo::Trie> {
    let file = if path.is_dir() {
        let tries: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("cannot read {}", path.display()))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "trie"))
            .collect();
        match tries.as_slice() {
            [one] => one.clone(),
            [] => anyhow::bail!("{} holds no trie", path.display()),
            _ => anyhow::bail!(
                "{} holds several tries; name one of: {}",
                path.display(),
                tries
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    } else {
        path.to_path_buf()
    };
    Ok(mnemo::memo::file::load(&file)?)
}

/// `--deepen A:STEP:B`: one memoized run per bound, the last into the
/// output directory; the others' tests live on in the trie.
fn deepen(mut config: RunConfig, d: Deepen, stop: &StopRequest) -> anyhow::Result<u8> {
    let memo = config.memo_dir();
    config.memo_dir = Some(memo.clone());
    let mut output = config.output_dir.clone();
    let bounds = d.bounds();
    let mut status = EXIT_OK;
    for (i, bound) in bounds.iter().enumerate() {
        let last = i + 1 == bounds.len();
        let scratch = memo.join(format!(".depth-{bound}"));
        let mut c = config.clone();
        c.max_depth = Some(*bound);
        c.last_in_process = last;
        // What the trie held undecided is asked about once, by the first
        // bound's run: a later one would ask again what just timed out.
        c.retry_undecided = config.retry_undecided && i == 0;
        c.output_dir = if last {
            output.clone()
        } else {
            scratch.clone()
        };
        if !last {
            let _ = std::fs::remove_dir_all(&scratch);
        }
        let stats = mnemo::batch::run(&c, stop)?;
        status = run_status(&stats, stop);
        if !last && stop.reason().is_some() {
            // The run ends at this bound (a signal, --exit-on-error): its
            // tests are the run's output.
            if std::fs::rename(&scratch, &output).is_err() {
                output = scratch.clone();
            }
        } else if !last {
            let _ = std::fs::remove_dir_all(&scratch);
        }
        eprintln!(
            "mnemo: depth {bound}: {} completed, {} errors, {} at the bound; {} solver queries",
            stats.paths.completed,
            stats.errors(),
            stats.paths.early.get("max-depth").copied().unwrap_or(0),
            stats.solver.queries
        );
        if stop.reason().is_some() || last {
            eprint!("{}", stats.summary());
            break;
        }
    }
    eprintln!("mnemo: output in {}", output.display());
    Ok(status)
}
