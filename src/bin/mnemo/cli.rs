//! The command line's grammar: every subcommand and option, with the
//! parsers that check numbers and bounds before anything runs.

use std::fmt::Display;
use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Parser, Subcommand};
use mnemo::search::SearcherKind;

#[derive(Parser)]
#[command(
    name = "mnemo",
    version,
    about = "Symbolic execution of LLVM bitcode that remembers what it learned"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Compile C to bitcode with the flags mnemo expects (clang-14 -O0 -g, klee.h on the include path).
    Cc {
        source: PathBuf,
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Extra flags passed to clang.
        #[arg(last = true)]
        clang_args: Vec<String>,
    },
    /// A C compiler for a project's own build (`./configure && make
    /// CC="mnemo cc-project"`): native objects, each carrying its bitcode,
    /// built and linked against musl.
    #[command(disable_help_flag = true)]
    CcProject {
        /// The compiler's arguments, as a build passes them.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Link the bitcode of a program built with `mnemo cc-project` into one
    /// module.
    Extract {
        program: PathBuf,
        /// The module to write (default: PROGRAM.bc).
        #[arg(short, long)]
        output: Option<PathBuf>,
    },
    /// Explore a program's paths and write a test for each.
    Run(RunArgs),
    /// Run KLEE's command line (`mnemo klee --max-time=10min prog.bc
    /// --sym-args 0 2 4`): KLEE's options become `mnemo run`'s, tests go to
    /// klee-out-N; `mnemo klee --help` lists what each option becomes.
    #[command(disable_help_flag = true)]
    Klee {
        /// `--print-command` to print the `mnemo run` command instead, then
        /// KLEE's options, the bitcode and the program's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Share a run out into shard files, one per machine of a batch job:
    /// the trie in `--memo` (recorded now by a shallow run when there is
    /// none) gives the prefixes, packed into balanced shards.
    Partition {
        /// Shard files to write.
        #[arg(long, value_name = "K", value_parser = whole(1, MAX_SHARDS))]
        shards: u32,
        /// Where the shard files go (`000.shard`, `001.shard`, ...).
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: PathBuf,
        /// How the candidates are packed: weighted and balanced (`lpt`), or
        /// the first branch's children in turn (`naive`, for comparison).
        #[arg(long, value_enum, default_value = "lpt")]
        packing: PackingArg,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Work for a cluster run (`mnemo run --cluster URL`) until its
    /// coordinator has joined it: claim shards from the Redis server,
    /// explore them, send the subtrees back. Start as many as you like, on
    /// any machine with the runtime; kill any of them at any time.
    Worker {
        /// The run: `redis://HOST:PORT/NAME`, as the coordinator names it.
        url: String,
        /// Workers exploring each candidate in this process (default: the
        /// number of cores).
        #[arg(long, short = 'j', value_name = "N", allow_negative_numbers = true,
              value_parser = whole(1, MAX_JOBS))]
        jobs: Option<usize>,
        /// Where solver answers are shared (as `run --store`); default: the
        /// run's Redis server.
        #[arg(long = "store", value_name = "SPEC")]
        stores: Vec<String>,
        /// A shard whose worker has not renewed its lease for this many
        /// seconds (a worker killed, a machine lost) goes to another worker.
        #[arg(long, value_name = "S", default_value = "30", allow_negative_numbers = true,
              value_parser = seconds)]
        lease: Duration,
        /// No messages but errors and the final report.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Join the outputs of every shard of a partition (`mnemo run --shard`)
    /// into one result: the trie in `--memo`, and tests numbered by their
    /// place in it, as a single run writes them.
    Merge {
        /// The shards' output directories.
        #[arg(required = true)]
        outputs: Vec<PathBuf>,
        /// The memo directory `mnemo partition` was given.
        #[arg(long, value_name = "DIR")]
        memo: PathBuf,
        /// Where the merged tests and statistics go (must not exist or be
        /// empty).
        #[arg(long)]
        output_dir: PathBuf,
    },
    /// Print a ktest file.
    Ktest { files: Vec<PathBuf> },
    /// The runs of output directories side by side, one row each (as
    /// KLEE's `klee-stats`): instructions, time, coverage, paths, tests,
    /// solver queries and the share of the time they took, and what
    /// stopped the run.
    Stats {
        /// Output directories of `mnemo run` (each holds a `stats.json`).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Comma-separated values, a header line first.
        #[arg(long)]
        csv: bool,
    },
    /// Compile the program natively and replay every test of an output
    /// directory in the environment it describes (arguments, symbolic files
    /// in a scratch working directory, stdin), comparing outcome and stdout.
    /// SOURCE may also be a native program (of a project's own build).
    Replay {
        source: PathBuf,
        output_dir: PathBuf,
        /// Instead of replaying, write each test as a shell script
        /// (testNNNNNN.sh beside its ktest) running the program compiled
        /// natively into OUTPUT_DIR/<source stem>.native (or $PROG); SOURCE
        /// may also be a native program built elsewhere, which they run.
        #[arg(long)]
        as_commands: bool,
        /// Tests replayed at once, each in its own scratch directory
        /// (default: the number of cores).
        #[arg(long, short = 'j', value_name = "N", value_parser = whole(1, MAX_JOBS))]
        jobs: Option<usize>,
        /// Run as root: each test as the model's user (nobody), chrooted
        /// into a directory laid out as the engine's model of the file
        /// system (`/dev/null`, `/proc/uptime`, `/tmp` and the working
        /// directory, and the host files given with `--file`), one such
        /// directory for each test replayed at once, so that `du /` or
        /// `chmod -R 0 /` see what the engine's program saw and cannot
        /// touch the machine. SOURCE must be a statically linked program.
        #[arg(long, conflicts_with_all = ["as_commands", "as_caller"])]
        model_root: bool,
        /// Run the program as the user running the replay. By default root
        /// runs each test as the model's user (nobody), whose permissions
        /// the engine's program met: as root, a file of mode 0 could be
        /// read, and `chmod -R 0 /` would reach the machine. For instance
        /// for a gcov build, whose counters are written beside its objects.
        #[arg(long, conflicts_with = "as_commands")]
        as_caller: bool,
        /// A host file the run was given with `--file` (an absolute path),
        /// copied to its path in the model's root.
        #[arg(long = "file", value_name = "PATH", requires = "model_root")]
        host_files: Vec<PathBuf>,
        /// Flags for clang's native build of SOURCE, after replay's own:
        /// those the bitcode was compiled with (`-O2`), so that the native
        /// program is the one mnemo ran.
        #[arg(last = true)]
        clang_args: Vec<String>,
    },
    /// Regression analysis: explore a new version of a program again only
    /// where its changes can alter the paths in the old version's trie
    /// (`--memo DIR`), keeping the tests of every other path.
    Regress {
        /// The old version's bitcode (its trie is in the memo directory).
        old: PathBuf,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Print, count or draw a run's trie.
    Trie {
        #[command(subcommand)]
        what: TrieCommand,
    },
    /// Replay a whole trie with the solver off and report, path by path,
    /// whether the program still takes the recorded choices.
    Certify {
        /// The program's bitcode.
        program: PathBuf,
        /// The memo directory holding the program's trie.
        #[arg(long)]
        memo: PathBuf,
        /// The function to start in.
        #[arg(long, default_value = "main")]
        entry: String,
        /// Do not link the runtime's C library.
        #[arg(long)]
        no_runtime: bool,
        /// Certify the trie of a run with `--optimize`: the program is
        /// optimized as that run's was.
        #[arg(long)]
        optimize: bool,
        /// A host file the program may read, as for `run`.
        #[arg(long = "file", value_name = "PATH")]
        files: Vec<PathBuf>,
        /// Arguments for the program.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Per-function summaries that `run --compose` keeps in a memo directory.
    Summary {
        #[command(subcommand)]
        what: SummaryCommand,
    },
}

#[derive(Subcommand)]
pub(crate) enum SummaryCommand {
    /// A function's summary: its paths as a tree of choices, each leaf with
    /// how the path ended and its condition over the parameters.
    Show { memo: PathBuf, function: String },
}

#[derive(Subcommand)]
pub(crate) enum TrieCommand {
    /// The trie as an indented tree of choices, one node a line.
    Show { trie: PathBuf },
    /// Counts: nodes, leaves by kind, unsatisfiable alternatives, tests.
    Stats { trie: PathBuf },
    /// The trie in Graphviz's dot language.
    Dot { trie: PathBuf },
}

#[derive(clap::Args)]
pub(crate) struct RunArgs {
    /// Where tests and statistics go (must not exist or be empty).
    #[arg(long, default_value = "mnemo-out")]
    pub(crate) output_dir: PathBuf,
    /// End a path at its N+1-th choice point (a `max-depth` test).
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = whole(0, u32::MAX))]
    pub(crate) max_depth: Option<u32>,
    /// Stop the run after this many seconds.
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          value_parser = seconds)]
    pub(crate) max_time: Option<Duration>,
    /// Stop the run after this many instructions in all.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = whole(1, u64::MAX))]
    pub(crate) max_instructions: Option<u64>,
    /// Memory in MiB: an allocation past it ends its path; when the states'
    /// memory or the process's reaches it, pending paths end (with tests)
    /// until the run is under 80% of it, and the run stops only when that
    /// frees too little.
    #[arg(long, value_name = "MIB", allow_negative_numbers = true,
          value_parser = whole(1, MAX_MEMORY_MB))]
    pub(crate) max_memory: Option<u64>,
    /// End a path whose call would make its stack deeper than N frames (a
    /// `max-stack` test).
    #[arg(long, value_name = "N", default_value_t = mnemo::exec::DEFAULT_MAX_STACK_FRAMES,
          allow_negative_numbers = true,
          value_parser = whole(1, u32::MAX))]
    pub(crate) max_stack_frames: u32,
    /// The search strategy (default: random-path and coverage-new in turn,
    /// which no loop on a symbolic guard can starve; `dfs` can).
    #[arg(long, value_enum, default_value_t = SearcherKind::default())]
    pub(crate) search: SearcherKind,
    /// Workers exploring the run, each on its own thread with its own
    /// solver (default, and `0`: the number of cores; 1: the engine alone
    /// on the calling thread). Without a limit the trie, the paths and the
    /// tests' numbering are the same for any N; with several, the inputs the
    /// solver picks for a test depend on how the workers shared the run.
    /// `MNEMO_JOBS` sets another default.
    #[arg(long, short = 'j', value_name = "N", env = "MNEMO_JOBS",
          allow_negative_numbers = true,
          value_parser = whole(0, MAX_JOBS))]
    pub(crate) jobs: Option<usize>,
    /// How several workers share the run: `dynamic` moves pending states to
    /// idle workers; `trie` starts each worker on a balanced partition of
    /// the trie (`--memo`'s, else one a short shallow run records), then
    /// moves states as `dynamic` does; `static` and `naive` (the first
    /// branch dealt out) move nothing, for comparison.
    #[arg(long, value_enum, default_value_t = mnemo::parallel::Balance::default())]
    pub(crate) balance: mnemo::parallel::Balance,
    /// Compositional run: every function the entry reaches gets a summary
    /// of its own paths (kept in the memo directory by structural hash),
    /// and its calls replay the callee along the paths feasible there with
    /// the solver off.
    #[arg(long)]
    pub(crate) compose: bool,
    /// The depth bound summaries are built to (with `--compose`): a
    /// function with a path deeper than this is executed at its calls.
    #[arg(long, value_name = "N", default_value_t = 32, requires = "compose",
          allow_negative_numbers = true, value_parser = whole(1, u32::MAX))]
    pub(crate) summary_depth: u32,
    /// Seed of the random searchers.
    #[arg(long, value_name = "N", default_value_t = 1, allow_negative_numbers = true,
          value_parser = whole(0, u64::MAX))]
    pub(crate) seed: u64,
    /// Solver timeout per query, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 10_000,
          allow_negative_numbers = true,
          value_parser = whole(1, u64::from(u32::MAX)))]
    pub(crate) solver_timeout: u64,
    /// Seed of Z3's heuristics: on hard queries another seed is another
    /// draw of Z3's time (the answers are the same).
    #[arg(long, value_name = "N", default_value_t = 0, allow_negative_numbers = true,
          value_parser = whole(0, u32::MAX))]
    pub(crate) z3_seed: u32,
    /// The solver layers queries pass through, in order, ending with a Z3
    /// layer (see `docs/solver.md`).
    #[arg(long, default_value = mnemo::solver::DEFAULT_CHAIN)]
    pub(crate) solver_chain: mnemo::solver::ChainSpec,
    /// Where the store layers keep solver answers across runs: a file (the
    /// embedded store), `redis://HOST:PORT`, `memory` or `none`; repeat to
    /// list several, looked up in order. Default: `$MNEMO_STORE`, else
    /// `solver.db` in the user's cache directory.
    #[arg(long = "store", value_name = "SPEC")]
    pub(crate) stores: Vec<String>,
    /// Append every solver query to this corpus file (for mnemo's tests).
    #[arg(long, hide = true)]
    pub(crate) record_queries: Option<PathBuf>,
    /// Show what the program writes to stdout and stderr.
    #[arg(long)]
    pub(crate) show_output: bool,
    /// The function to start in.
    #[arg(long, default_value = "main")]
    pub(crate) entry: String,
    /// Do not link the runtime's C library.
    #[arg(long)]
    pub(crate) no_runtime: bool,
    /// Optimize the program as at -O2 before the run (KLEE's option): the
    /// bitcode `mnemo cc` makes, or any without `optnone`'s hold; the
    /// runtime's C library stays as built. Its trie is kept apart.
    #[arg(long, conflicts_with_all = ["shard", "cluster"])]
    pub(crate) optimize: bool,
    /// No progress display.
    #[arg(long, short)]
    pub(crate) quiet: bool,
    /// Follow the trie an earlier run of the program left in DIR (iterative
    /// deepening, re-runs); the run's trie is written there. Without it the
    /// trie goes to `mnemo-memo` beside the output directory.
    #[arg(long, value_name = "DIR")]
    pub(crate) memo: Option<PathBuf>,
    /// Go on with the paths a run stopped by a limit or a signal left, or
    /// from the last checkpoint of a run killed, without redoing finished
    /// ones; the stopped run's output directory may be given again.
    #[arg(long)]
    pub(crate) resume: bool,
    /// Save the trie (with the paths still pending), tests.json and
    /// stats.json every S seconds while the run goes on, and when a limit or
    /// a signal stops it: `--resume` goes on from the last save after any
    /// end, kill -9 included. 0: only at the end of the run.
    #[arg(long, value_name = "S", default_value = "60", allow_negative_numbers = true,
          value_parser = seconds)]
    pub(crate) checkpoint: Duration,
    /// Cut the subtrees a memoized run does not explore from the trie it
    /// saves, keeping their tests (smaller tries, Memoise's ID-c).
    #[arg(long)]
    pub(crate) compress: bool,
    /// A source line (`FILE:LINE`) or function a deeper run (or a
    /// `--compose` run with `--heuristic h2`) should reach: of the boundary
    /// nodes (of a summary's paths), only those the heuristic picks for it
    /// are explored. Repeat for several.
    #[arg(long, value_name = "FILE:LINE|FUNCTION")]
    pub(crate) target: Vec<String>,
    /// How a run is directed at `--target`: a deeper memoized run picks the
    /// boundary nodes from which a target is reachable (`reachability`, the
    /// default) or whose paths took the branch nearest to a target most
    /// often (`counter`). A `--compose` run takes `h1` (a summary's paths
    /// ending in an error are checked first at a call, and one feasible
    /// there is reported without replaying the callee, the call's other
    /// paths left out) or `h2` (only a summary's paths that lead to a
    /// target are composed); both give up paths for speed.
    #[arg(long, value_enum, value_name = "KIND")]
    pub(crate) heuristic: Option<mnemo::memo::heuristic::HeuristicKind>,
    /// Iterative deepening in one call: depth bounds A, A+STEP, ... up to B,
    /// each run following the trie of the one before.
    #[arg(long, value_name = "A:STEP:B", conflicts_with_all = ["max_depth", "resume"])]
    pub(crate) deepen: Option<Deepen>,
    /// A host file the program may open by this path (read only; writing
    /// it fails with EROFS). Repeat for several.
    #[arg(long = "file", value_name = "PATH")]
    pub(crate) files: Vec<PathBuf>,
    /// Run one shard file of `mnemo partition`, with the options it holds
    /// (the program it names unless one is given); the output directory
    /// gets the tests, the trie and a copy of the shard for `mnemo merge`.
    #[arg(long, value_name = "FILE",
          conflicts_with_all = ["deepen", "resume", "memo", "max_depth", "target", "compress"])]
    pub(crate) shard: Option<PathBuf>,
    /// Run on the workers (`mnemo worker URL`) of a cluster run on a Redis
    /// server, `redis://HOST:PORT/NAME`: its work starts as `--jobs`
    /// shards; run the same command again to go on after a stop.
    #[arg(long, value_name = "URL",
          conflicts_with_all = ["shard", "deepen", "resume", "max_time", "max_instructions", "target", "files", "compose"])]
    pub(crate) cluster: Option<String>,
    /// Write test files only for errors and for paths that executed an
    /// instruction no path before them had (KLEE's
    /// `--only-output-states-covering-new`): far fewer files, the same
    /// coverage. The trie keeps every path's test; `stats.json` counts the
    /// others as `paths.unwritten`.
    #[arg(long, alias = "only-output-states-covering-new")]
    pub(crate) only_new_coverage: bool,
    /// Write no test files at all (KLEE's option): `stats.json` and
    /// `tests.json` (empty) still are, and with `--memo` the trie keeps
    /// every path's test for a later run; `stats.json` counts the paths
    /// as `paths.unwritten`.
    #[arg(long, conflicts_with_all = ["only_new_coverage", "max_tests"])]
    pub(crate) write_no_tests: bool,
    /// Write each test's path condition in SMT-LIB 2 beside it
    /// (`testNNNNNN.smt2`, KLEE's option of the same name): the inputs as
    /// byte arrays, one assertion per constraint, `(check-sat)`. Only the
    /// paths this run explores have one: a test written from the trie (a
    /// path a memoized run kept, or one a resumed run had already ended)
    /// does not.
    #[arg(long, conflicts_with_all = ["shard", "cluster"])]
    pub(crate) write_smt2s: bool,
    /// Write the source lines each test's path executed beside it
    /// (`testNNNNNN.cov`, one `FILE:LINE` a line, KLEE's option of the same
    /// name; the runtime's lines left out). As with `--write-smt2s`, a test
    /// written from the trie has none.
    #[arg(long, conflicts_with_all = ["shard", "cluster", "compose"])]
    pub(crate) write_cov: bool,
    /// The share of the run's forks (above 0, at most 1) one branch site
    /// may make, as KLEE's `--max-static-fork-pct`, counted over every call
    /// of the site's function and every worker: once the run has forked
    /// 1000 times, a site past it forks no more, and a path there goes the
    /// way its own model goes. A quoting function's switch on
    /// each byte of a name can make most of a run's forks and crowd the
    /// rest of the program out. The first time such a site could branch
    /// to a block no path has run, it forks all the same. The
    /// alternatives cut are counted (`paths.forks_cut`); a sample of the
    /// points where they were cut is taken up again, forking there after
    /// all, when nothing else is left to explore (`paths.cuts_reopened`).
    /// The run's trie, missing the rest, is kept apart and never followed.
    #[arg(long, value_name = "SHARE", value_parser = share,
          conflicts_with_all = ["resume", "deepen", "target"])]
    pub(crate) max_site_fork_share: Option<f64>,
    /// Fork no more once the run has made N new paths (all its workers
    /// together; with several, a fork or two more): a path then goes the
    /// way a model of it goes, as KLEE's `--max-forks` has it go one way.
    /// The alternatives cut are counted (`paths.forks_cut`) and stay cut;
    /// the run's trie, missing them, is kept apart and never followed.
    #[arg(long, value_name = "N", allow_negative_numbers = true,
          value_parser = whole(0, u64::MAX),
          conflicts_with_all = ["resume", "deepen", "target", "shard", "cluster"])]
    pub(crate) max_forks: Option<u64>,
    /// End a path whose `klee_assume` it cannot meet without a test
    /// (KLEE's option of the same name), where by default it ends as a
    /// user error, "invalid klee_assume call (provably false)", with a
    /// test. SV-COMP's `__VERIFIER_assume` always ends such a path
    /// silently. The run's trie is kept apart from the default's.
    #[arg(long, conflicts_with_all = ["compose", "shard", "cluster"])]
    pub(crate) silent_klee_assume: bool,
    /// Go back to the alternatives the trie holds undecided (an earlier
    /// run's solver query for them ran out of time, or followed inputs it
    /// had fixed to get past one) and ask about each again, with the whole
    /// `--solver-timeout`; those now found feasible are explored. Give a
    /// larger `--solver-timeout` than the run that left them. With
    /// `--deepen`, the first bound's run asks; with `regress`, outside the
    /// subtrees the change impacts; `partition` and `--cluster` give them
    /// to the first shard.
    #[arg(long, conflicts_with_all = ["compose", "max_site_fork_share", "max_forks", "shard"])]
    pub(crate) retry_undecided: bool,
    /// Stop the run at the first path that ends in an error of the
    /// program (every kind but `unsupported`, `external` and `solver`,
    /// where the engine stops short), as a limit stops it: that path and
    /// the pending ones get their tests, and `--resume` goes on to the
    /// next error. The exit status is 3, as at a limit.
    #[arg(long, conflicts_with_all = ["shard", "cluster"])]
    pub(crate) exit_on_error: bool,
    /// Stop the run at the first error of these kinds (comma-separated or
    /// repeated; `stats.json`'s names: `assert`, `ptr`, `external`, ...),
    /// as `--exit-on-error` does for all of the program's.
    #[arg(long, value_name = "KIND", value_delimiter = ',', value_parser = error_kind,
          conflicts_with_all = ["shard", "cluster"])]
    pub(crate) exit_on_error_type: Vec<mnemo::exec::ErrorKind>,
    /// Stop the run once it has written N tests (counted over every
    /// worker), as a limit stops it (KLEE's option): the paths pending then
    /// get their tests too, and `--resume` goes on from there. 0: no limit.
    #[arg(long, value_name = "N", conflicts_with_all = ["shard", "cluster"])]
    pub(crate) max_tests: Option<u64>,
    /// Whether the paths pending when a limit or a signal stops the run
    /// get tests (KLEE's option; `--dump-states-on-halt=false`: they are
    /// kept in the trie, untested, for `--resume`, and the run ends without
    /// solving for their inputs).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) dump_states_on_halt: bool,
    /// Whether every path that ends in an error gets test files (KLEE's
    /// option, whose default is `false`; mnemo's is `true`). With
    /// `--emit-all-errors=false`, only the first error at each kind and
    /// source line does, as KLEE writes one for each error and
    /// instruction: the others are counted as `paths.unwritten`, and the
    /// trie keeps their tests.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set)]
    pub(crate) emit_all_errors: bool,
    /// A test (a `.ktest`, from mnemo, KLEE or a fuzzer's inputs put in
    /// one) whose path the run explores before any other, without asking
    /// the solver which way it goes: its objects, in order, are the bytes
    /// of the inputs the program makes. May be repeated.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["shard", "cluster"])]
    pub(crate) seed_file: Vec<PathBuf>,
    /// Every `.ktest` in DIR is a seed (`--seed-file`). May be repeated.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["shard", "cluster"])]
    pub(crate) seed_dir: Vec<PathBuf>,
    /// Explore the seeds' paths alone: a path that takes a way no seed
    /// takes ends there (`only-seed`), with a test; `--memo` keeps it, and
    /// `--resume` explores from there.
    #[arg(long)]
    pub(crate) only_seed: bool,
    /// A seed's object shorter than its input is padded with zeros, and
    /// inputs past its last object are zeros (else such a seed is left,
    /// with a warning, and the path goes on without it).
    #[arg(long)]
    pub(crate) allow_seed_extension: bool,
    /// A seed's object longer than its input is cut to its size (else
    /// such a seed is left, with a warning).
    #[arg(long)]
    pub(crate) allow_seed_truncation: bool,
    /// An input takes the seed's object of its name (the k-th input of a
    /// name the k-th object of that name) rather than the object at its
    /// place: for seeds recorded on a program that made its inputs in
    /// another order, or made others besides.
    #[arg(long)]
    pub(crate) named_seed_matching: bool,
    /// Follow seeds for S seconds of the run at most (fractions such as
    /// 0.5 too): then the paths still following one go on as any other
    /// (with `--only-seed`, they end there, each with a test).
    #[arg(long, value_name = "S", allow_negative_numbers = true,
          value_parser = seconds)]
    pub(crate) seed_time: Option<Duration>,
    /// The program's bitcode (`mnemo cc` makes it).
    #[arg(required_unless_present = "shard")]
    pub(crate) program: Option<PathBuf>,
    /// Arguments for the program, with KLEE's `--sym-arg N`, `--sym-args
    /// MIN MAX N`, `--sym-files NUM N`, `--sym-stdin N` and `--sym-stdout`
    /// among them if wanted.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub(crate) args: Vec<String>,
}

/// The most shard files `mnemo partition` writes.
pub(crate) const MAX_SHARDS: u32 = 1_000_000;

/// `--packing`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub(crate) enum PackingArg {
    Lpt,
    Naive,
}

/// The most workers `--jobs` takes: far more threads than any machine has
/// cores would only share them.
pub(crate) const MAX_JOBS: usize = 1024;

/// The largest `--max-memory`: MiB whose bytes a 64-bit count holds.
pub(crate) const MAX_MEMORY_MB: u64 = u64::MAX >> 20;

/// The longest `--max-time`: about 31 years, which `Instant` arithmetic
/// takes on every platform.
pub(crate) const MAX_SECONDS: f64 = 1e9;

/// A parser for a whole number from `lo` to `hi` whose message, which clap
/// puts after the option's name, gives the range. The numeric options let
/// negative numbers through to their parser (`allow_negative_numbers`), so
/// that `-5` gets this message rather than clap's "unexpected argument".
pub(crate) fn whole<T>(
    lo: T,
    hi: T,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static
where
    T: FromStr + PartialOrd + Display + Copy + Send + Sync + 'static,
{
    move |s: &str| {
        let bad = || format!("expected a whole number from {lo} to {hi}");
        let v: T = s.trim().parse().map_err(|_| bad())?;
        if v < lo || v > hi {
            return Err(bad());
        }
        Ok(v)
    }
}

/// A number of seconds, finite and from 0 to [`MAX_SECONDS`].
pub(crate) fn seconds(s: &str) -> Result<Duration, String> {
    let bad =
        || format!("expected a number of seconds from 0 to {MAX_SECONDS} (such as 60 or 0.5)");
    let v: f64 = s.trim().parse().map_err(|_| bad())?;
    if !(0.0..=MAX_SECONDS).contains(&v) {
        return Err(bad());
    }
    Ok(Duration::from_secs_f64(v))
}

/// A share: a number above 0 and at most 1.
pub(crate) fn share(s: &str) -> Result<f64, String> {
    let bad = || "expected a share above 0 and at most 1 (such as 0.3)".to_string();
    let v: f64 = s.trim().parse().map_err(|_| bad())?;
    if !(v > 0.0 && v <= 1.0) {
        return Err(bad());
    }
    Ok(v)
}

/// An error kind by its name in `stats.json`, in any case, so that KLEE's
/// `Assert`, `Abort`, `ReadOnly` and `External` name theirs (KLEE's `Ptr`
/// is `ptr`, `null` and `use-after-free` here).
pub(crate) fn error_kind(s: &str) -> Result<mnemo::exec::ErrorKind, String> {
    use mnemo::exec::ErrorKind;
    ErrorKind::parse(&s.trim().to_ascii_lowercase()).ok_or_else(|| {
        let names: Vec<&str> = ErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        format!("no such error kind; the kinds are {}", names.join(", "))
    })
}

/// `--deepen A:STEP:B`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deepen {
    pub(crate) from: u32,
    pub(crate) step: u32,
    pub(crate) to: u32,
}

impl std::str::FromStr for Deepen {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let parts: Vec<&str> = s.split(':').collect();
        let bad = || format!("`{s}` is not A:STEP:B (three numbers, STEP > 0, A <= B)");
        let [a, step, b] = parts.as_slice() else {
            return Err(bad());
        };
        let num = |x: &str| x.trim().parse::<u32>().map_err(|_| bad());
        let d = Deepen {
            from: num(a)?,
            step: num(step)?,
            to: num(b)?,
        };
        if d.step == 0 || d.from > d.to {
            return Err(bad());
        }
        Ok(d)
    }
}

impl Deepen {
    /// The bounds, in order, ending with B.
    pub(crate) fn bounds(self) -> Vec<u32> {
        let mut v: Vec<u32> = (self.from..self.to).step_by(self.step as usize).collect();
        v.push(self.to);
        v
    }
}
