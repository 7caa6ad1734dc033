//! The `mnemo` command line: a thin layer over the library.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};

use mnemo::run::RunConfig;
use mnemo::search::SearcherKind;
use mnemo::testgen::{replay_dir, KTest, Toolchain};

#[derive(Parser)]
#[command(
    name = "mnemo",
    version,
    about = "Symbolic execution of LLVM bitcode that remembers what it learned"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Compile C to bitcode with the flags mnemo expects (clang-14 -O0 -g, klee.h on the include path).
    Cc {
        source: PathBuf,
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Extra flags passed to clang.
        #[arg(last = true)]
        clang_args: Vec<String>,
    },
    /// Explore a program's paths and write a test for each.
    Run(RunArgs),
    /// Print a ktest file.
    Ktest { files: Vec<PathBuf> },
    /// Compile the program natively and replay every test of an output directory.
    Replay {
        source: PathBuf,
        output_dir: PathBuf,
    },
    /// Read a program's bitcode and nothing else (run in a child process by
    /// `run`: LLVM's reader aborts the process on some corrupt bitcode).
    #[command(hide = true)]
    CheckLoad { program: PathBuf },
}

#[derive(clap::Args)]
struct RunArgs {
    /// Where tests and statistics go (must not exist or be empty).
    #[arg(long, default_value = "mnemo-out")]
    output_dir: PathBuf,
    /// End a path at its N+1-th choice point (a `max-depth` test).
    #[arg(long)]
    max_depth: Option<u32>,
    /// Stop the run after this many seconds.
    #[arg(long)]
    max_time: Option<f64>,
    /// Stop the run after this many instructions in all.
    #[arg(long)]
    max_instructions: Option<u64>,
    /// Stop the run when the process uses this many MiB.
    #[arg(long)]
    max_memory: Option<u64>,
    /// The search strategy.
    #[arg(long, value_enum, default_value = "dfs")]
    search: SearcherKind,
    /// Seed of the random searchers.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Solver timeout per query, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    solver_timeout: u64,
    /// The solver layers queries pass through, in order, ending with a Z3
    /// layer (see README).
    #[arg(long, default_value = mnemo::solver::DEFAULT_CHAIN)]
    solver_chain: mnemo::solver::ChainSpec,
    /// Where the store layers keep solver answers across runs: a file (the
    /// embedded store), `redis://HOST:PORT`, `memory` or `none`; repeat to
    /// list several, looked up in order. Default: `$MNEMO_STORE`, else
    /// `solver.db` in the user's cache directory.
    #[arg(long = "store", value_name = "SPEC")]
    stores: Vec<String>,
    /// Append every solver query to this corpus file (for mnemo's tests).
    #[arg(long, hide = true)]
    record_queries: Option<PathBuf>,
    /// Show what the program writes to stdout and stderr.
    #[arg(long)]
    show_output: bool,
    /// The function to start in.
    #[arg(long, default_value = "main")]
    entry: String,
    /// Do not link the runtime's C library.
    #[arg(long)]
    no_runtime: bool,
    /// No progress display.
    #[arg(long, short)]
    quiet: bool,
    /// The program's bitcode (`mnemo cc` makes it).
    program: PathBuf,
    /// Arguments for the program.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    args: Vec<String>,
}

fn main() -> ExitCode {
    match real_main() {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mnemo: error: {e:#}");
            ExitCode::from(1)
        }
    }
}

fn real_main() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Cc {
            source,
            output,
            clang_args,
        } => {
            let toolchain = Toolchain::find()?;
            let output = output.unwrap_or_else(|| source.with_extension("bc"));
            toolchain.compile_bitcode(&source, &output, &clang_args)?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Run(a) => {
            check_loadable(&a.program)?;
            let config = RunConfig {
                program: a.program,
                output_dir: a.output_dir,
                program_args: a.args,
                max_depth: a.max_depth,
                max_time: a.max_time.map(Duration::from_secs_f64),
                max_instructions: a.max_instructions,
                max_memory_mb: a.max_memory,
                searcher: a.search,
                seed: a.seed,
                solver: mnemo::solver::SolverConfig {
                    timeout_ms: a.solver_timeout,
                    chain: a.solver_chain,
                    store: None,
                    record: a.record_queries,
                },
                stores: a.stores,
                show_output: a.show_output,
                entry: a.entry,
                link_runtime: !a.no_runtime,
                quiet: a.quiet,
            };
            let interrupted = Arc::new(AtomicBool::new(false));
            let flag = interrupted.clone();
            // Ctrl-C stops the run as a time limit would: everything found is written.
            ctrlc::set_handler(move || flag.store(true, Ordering::Relaxed))
                .context("cannot install the Ctrl-C handler")?;
            let stats = mnemo::run::run(&config, &interrupted)?;
            eprint!("{}", stats.summary());
            eprintln!("mnemo: output in {}", config.output_dir.display());
            Ok(ExitCode::SUCCESS)
        }
        Command::CheckLoad { program } => {
            mnemo::ir::load_module(&program, &[])?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Ktest { files } => {
            for f in files {
                let k = KTest::read(&f).with_context(|| format!("cannot read {}", f.display()))?;
                print!("{}", k.to_text(&f.display().to_string()));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Replay { source, output_dir } => {
            let toolchain = Toolchain::find()?;
            let report = replay_dir(&toolchain, &source, &output_dir)?;
            print!("{report}");
            Ok(if report.all_match() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
    }
}

/// Reads the program once in a child process, so that bitcode LLVM's reader
/// cannot survive gives an error message here instead of ending mnemo.
/// A load error the reader reports normally is left to the real load.
fn check_loadable(program: &std::path::Path) -> anyhow::Result<()> {
    let exe = std::env::current_exe().context("cannot find mnemo's own executable")?;
    let out = std::process::Command::new(exe)
        .arg("check-load")
        .arg(program)
        .output()
        .context("cannot start a child process to check the program")?;
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&out.status) {
        let detail = String::from_utf8_lossy(&out.stderr);
        let last = detail
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        let what = if last.is_empty() {
            format!("signal {signal}")
        } else {
            last
        };
        anyhow::bail!(
            "{} is malformed: LLVM's bitcode reader crashed on it ({what})",
            program.display()
        );
    }
    Ok(())
}
