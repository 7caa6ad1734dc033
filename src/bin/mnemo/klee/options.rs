//! KLEE 3.2's options, each with what it becomes in `mnemo run`.

/// What one of KLEE's options becomes.
#[derive(Clone, Copy)]
pub(super) enum Rule {
    /// A boolean option, the `mnemo run` flag of the same meaning.
    Flag(&'static str),
    /// A boolean option, a `mnemo run` option taking `true` or `false`.
    BoolValue(&'static str),
    /// An option with a value, the `mnemo run` option it goes to, converted.
    Value(&'static str, Conv),
    /// KLEE's `--search`, which may be repeated.
    Search,
    /// KLEE's `--libc`: mnemo always links its own C library.
    Libc,
    /// KLEE's `--env-file`: each line a variable, given to the program as
    /// `--env NAME=VALUE`.
    EnvFile,
    /// mnemo always does what the option asks (`=false` is noted).
    Always,
    /// No counterpart: the run goes on without it, and a note says why.
    Ignored(Arity, &'static str),
    /// No counterpart, and the run would not give what was asked.
    Refused(Arity, &'static str),
}

/// Whether an option mnemo does not take has a value, which may follow as
/// the next argument, or is a boolean (`-opt`, `-opt=false`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Arity {
    Flag,
    Value,
}

/// How an option's value becomes `mnemo run`'s.
#[derive(Clone, Copy)]
pub(super) enum Conv {
    /// The text as it is.
    Text,
    /// A whole number, where KLEE's 0 means no limit: mnemo's default.
    Count,
    /// A whole number, where KLEE's 0 means no limit: this value.
    CountZeroIs(&'static str),
    /// KLEE's time span (`90`, `1.5`, `1h30min`, `500ms`) in seconds; 0 is
    /// no limit.
    Seconds,
    /// A time span in milliseconds; 0 is no limit.
    Millis,
    /// A share from 0 to 1, where 1 is no limit.
    Share,
}

const TUNING: &str = "it tunes a part of KLEE that mnemo does not have";
const FILES: &str =
    "mnemo does not write that file (it writes stats.json, tests.json and the trie)";
const BATCHING: &str = "mnemo's searchers pick a state at every choice, and batch nothing";
const EXTERNAL: &str = "mnemo runs no function outside the program natively: a call to one ends its path as an `external` error";
const OPTIMIZE: &str = "mnemo's --optimize runs LLVM's -O2 pipeline as it is, on the program alone";
const STATIC_PCT: &str = "mnemo shares out forks only (--max-static-fork-pct)";
const REPLAY: &str = "to run a test's inputs, use `mnemo replay PROGRAM.c OUTPUT_DIR` (natively) or `mnemo run --seed-file TEST --only-seed`";
const PATHS: &str =
    "mnemo keeps every path in its trie: `mnemo run --memo DIR` follows it, `mnemo trie show` prints it";

/// KLEE 3.2's options, each with its rule. Names are without dashes.
pub(super) const OPTIONS: &[(&str, Rule)] = &[
    ("allow-seed-extension", Rule::Flag("--allow-seed-extension")),
    (
        "allow-seed-truncation",
        Rule::Flag("--allow-seed-truncation"),
    ),
    ("always-output-seeds", Rule::Always),
    ("array-value-ratio", Rule::Ignored(Arity::Value, TUNING)),
    (
        "array-value-symb-ratio",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    ("batch-instructions", Rule::Ignored(Arity::Value, BATCHING)),
    ("batch-time", Rule::Ignored(Arity::Value, BATCHING)),
    ("cex-cache-superset", Rule::Ignored(Arity::Value, TUNING)),
    ("cex-cache-try-all", Rule::Ignored(Arity::Value, TUNING)),
    ("check-div-zero", Rule::Always),
    ("check-overshift", Rule::Always),
    ("compress-exec-tree", Rule::Ignored(Arity::Flag, FILES)),
    ("compress-query-log", Rule::Ignored(Arity::Flag, FILES)),
    ("const-array-opt", Rule::Ignored(Arity::Flag, TUNING)),
    ("disable-inlining", Rule::Ignored(Arity::Flag, OPTIMIZE)),
    ("disable-internalize", Rule::Ignored(Arity::Flag, OPTIMIZE)),
    ("disable-verify", Rule::Ignored(Arity::Flag, TUNING)),
    (
        "dump-states-on-halt",
        Rule::BoolValue("--dump-states-on-halt"),
    ),
    ("emit-all-errors", Rule::BoolValue("--emit-all-errors")),
    ("entry-point", Rule::Value("--entry", Conv::Text)),
    ("env-file", Rule::EnvFile),
    ("equality-substitution", Rule::Ignored(Arity::Flag, TUNING)),
    ("exec-tree-batch-size", Rule::Ignored(Arity::Value, FILES)),
    ("exit-on-error", Rule::Flag("--exit-on-error")),
    (
        "exit-on-error-type",
        Rule::Value("--exit-on-error-type", Conv::Text),
    ),
    (
        "external-call-warnings",
        Rule::Ignored(Arity::Value, EXTERNAL),
    ),
    ("external-calls", Rule::Ignored(Arity::Value, EXTERNAL)),
    (
        "function-alias",
        Rule::Refused(
            Arity::Value,
            "mnemo does not rename functions; define the alias in the program",
        ),
    ),
    ("ignore-stp-failures", Rule::Ignored(Arity::Flag, TUNING)),
    (
        "istats-write-after-instructions",
        Rule::Ignored(Arity::Value, FILES),
    ),
    ("istats-write-interval", Rule::Ignored(Arity::Value, FILES)),
    ("kdalloc", Rule::Ignored(Arity::Flag, TUNING)),
    (
        "kdalloc-constants-size",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    (
        "kdalloc-constants-start-address",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    (
        "kdalloc-external-page-threshold",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    ("kdalloc-globals-size", Rule::Ignored(Arity::Value, TUNING)),
    (
        "kdalloc-globals-start-address",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    ("kdalloc-heap-size", Rule::Ignored(Arity::Value, TUNING)),
    (
        "kdalloc-heap-start-address",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    (
        "kdalloc-mark-as-unneeded",
        Rule::Ignored(Arity::Flag, TUNING),
    ),
    ("kdalloc-quarantine", Rule::Ignored(Arity::Value, TUNING)),
    ("kdalloc-stack-size", Rule::Ignored(Arity::Value, TUNING)),
    (
        "kdalloc-stack-start-address",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    ("klee-call-optimisation", Rule::Ignored(Arity::Flag, TUNING)),
    ("libc", Rule::Libc),
    (
        "libcxx",
        Rule::Refused(Arity::Value, "mnemo's runtime has no C++ library"),
    ),
    (
        "link-llvm-lib",
        Rule::Refused(
            Arity::Value,
            "link the library into the program first (`llvm-link-14 prog.bc lib.bc -o all.bc`)",
        ),
    ),
    (
        "log-partial-queries-early",
        Rule::Ignored(Arity::Flag, FILES),
    ),
    ("log-timed-out-queries", Rule::Ignored(Arity::Flag, FILES)),
    (
        "make-concrete-symbolic",
        Rule::Refused(Arity::Value, "mnemo does not make concrete data symbolic"),
    ),
    ("max-depth", Rule::Value("--max-depth", Conv::Count)),
    ("max-forks", Rule::Value("--max-forks", Conv::Text)),
    (
        "max-instructions",
        Rule::Value("--max-instructions", Conv::Count),
    ),
    ("max-memory", Rule::Value("--max-memory", Conv::Count)),
    (
        "max-memory-inhibit",
        Rule::Ignored(
            Arity::Flag,
            "at --max-memory mnemo ends pending paths, with tests, until it is under 80% of it",
        ),
    ),
    (
        "max-solver-time",
        Rule::Value("--solver-timeout", Conv::Millis),
    ),
    (
        "max-stack-frames",
        Rule::Value("--max-stack-frames", Conv::CountZeroIs("4294967295")),
    ),
    (
        "max-static-cpfork-pct",
        Rule::Ignored(Arity::Value, STATIC_PCT),
    ),
    (
        "max-static-cpsolve-pct",
        Rule::Ignored(Arity::Value, STATIC_PCT),
    ),
    (
        "max-static-fork-pct",
        Rule::Value("--max-site-fork-share", Conv::Share),
    ),
    (
        "max-static-pct-check-delay",
        Rule::Ignored(Arity::Value, STATIC_PCT),
    ),
    (
        "max-static-solve-pct",
        Rule::Ignored(Arity::Value, STATIC_PCT),
    ),
    (
        "max-sym-array-size",
        Rule::Ignored(Arity::Value, "mnemo keeps every symbolic array whole"),
    ),
    ("max-tests", Rule::Value("--max-tests", Conv::Text)),
    ("max-time", Rule::Value("--max-time", Conv::Seconds)),
    ("metasmt-backend", Rule::Ignored(Arity::Value, TUNING)),
    ("min-query-time-to-log", Rule::Ignored(Arity::Value, FILES)),
    ("named-seed-matching", Rule::Flag("--named-seed-matching")),
    (
        "only-output-states-covering-new",
        Rule::Flag("--only-new-coverage"),
    ),
    ("only-replay-seeds", Rule::Flag("--only-seed")),
    ("only-seed", Rule::Flag("--only-seed")),
    ("optimize", Rule::Flag("--optimize")),
    ("optimize-array", Rule::Ignored(Arity::Flag, TUNING)),
    ("output-dir", Rule::Value("--output-dir", Conv::Text)),
    ("output-istats", Rule::Ignored(Arity::Flag, FILES)),
    ("output-module", Rule::Ignored(Arity::Flag, FILES)),
    ("output-source", Rule::Ignored(Arity::Flag, FILES)),
    ("output-stats", Rule::Always),
    ("pc-all-const-widths", Rule::Ignored(Arity::Flag, FILES)),
    ("pc-all-widths", Rule::Ignored(Arity::Flag, FILES)),
    ("pc-multibyte-reads", Rule::Ignored(Arity::Flag, FILES)),
    ("pc-prefix-width", Rule::Ignored(Arity::Flag, FILES)),
    ("pc-width-as-arg", Rule::Ignored(Arity::Flag, FILES)),
    ("posix-runtime", Rule::Always),
    ("readable-posix-inputs", Rule::Ignored(Arity::Flag, FILES)),
    ("replay-ktest-dir", Rule::Refused(Arity::Value, REPLAY)),
    ("replay-ktest-file", Rule::Refused(Arity::Value, REPLAY)),
    ("replay-path", Rule::Refused(Arity::Value, PATHS)),
    (
        "return-null-on-zero-malloc",
        Rule::Ignored(Arity::Flag, "mnemo's malloc(0) gives what musl's gives"),
    ),
    ("rewrite-equalities", Rule::Ignored(Arity::Flag, TUNING)),
    ("rng-initial-seed", Rule::Value("--seed", Conv::Text)),
    ("run-in-dir", Rule::Ignored(Arity::Value, EXTERNAL)),
    ("runtime-build", Rule::Ignored(Arity::Value, TUNING)),
    ("search", Rule::Search),
    ("seed-dir", Rule::Value("--seed-dir", Conv::Text)),
    ("seed-file", Rule::Value("--seed-file", Conv::Text)),
    ("seed-time", Rule::Value("--seed-time", Conv::Seconds)),
    ("silent-klee-assume", Rule::Flag("--silent-klee-assume")),
    ("simplify-sym-indices", Rule::Ignored(Arity::Flag, TUNING)),
    (
        "single-object-resolution",
        Rule::Ignored(Arity::Flag, TUNING),
    ),
    (
        "smtlib-abbreviation-mode",
        Rule::Ignored(Arity::Value, FILES),
    ),
    (
        "smtlib-display-constants",
        Rule::Ignored(Arity::Flag, FILES),
    ),
    ("smtlib-human-readable", Rule::Ignored(Arity::Flag, FILES)),
    (
        "solver-backend",
        Rule::Ignored(
            Arity::Value,
            "mnemo's solver is Z3, behind its solver chain (--solver-chain)",
        ),
    ),
    (
        "solver-optimize-divides",
        Rule::Ignored(Arity::Flag, TUNING),
    ),
    ("stats-commit-after", Rule::Ignored(Arity::Value, FILES)),
    (
        "stats-write-after-instructions",
        Rule::Ignored(Arity::Value, FILES),
    ),
    (
        "stats-write-interval",
        Rule::Ignored(
            Arity::Value,
            "mnemo saves stats.json with each checkpoint (--checkpoint S)",
        ),
    ),
    ("stp-sat-solver", Rule::Ignored(Arity::Value, TUNING)),
    ("strip-all", Rule::Ignored(Arity::Flag, OPTIMIZE)),
    ("strip-debug", Rule::Ignored(Arity::Flag, OPTIMIZE)),
    (
        "switch-type",
        Rule::Ignored(Arity::Value, "mnemo forks a switch on its distinct targets"),
    ),
    ("timer-interval", Rule::Ignored(Arity::Value, TUNING)),
    ("track-instruction-time", Rule::Ignored(Arity::Flag, FILES)),
    ("ubsan-runtime", Rule::Always),
    (
        "uncovered-update-interval",
        Rule::Ignored(Arity::Value, TUNING),
    ),
    ("use-batching-search", Rule::Ignored(Arity::Flag, BATCHING)),
    ("use-branch-cache", Rule::Always),
    ("use-call-paths", Rule::Ignored(Arity::Flag, TUNING)),
    ("use-cex-cache", Rule::Always),
    ("use-constant-arrays", Rule::Ignored(Arity::Flag, TUNING)),
    (
        "use-construct-hash-metasmt",
        Rule::Ignored(Arity::Flag, TUNING),
    ),
    ("use-construct-hash-stp", Rule::Ignored(Arity::Flag, TUNING)),
    ("use-construct-hash-z3", Rule::Ignored(Arity::Flag, TUNING)),
    ("use-fast-cex-solver", Rule::Ignored(Arity::Flag, TUNING)),
    ("use-forked-solver", Rule::Always),
    (
        "use-incomplete-merge",
        Rule::Refused(
            Arity::Flag,
            "mnemo does not merge states: each path keeps its own test",
        ),
    ),
    ("use-independent-solver", Rule::Always),
    (
        "use-iterative-deepening-time-search",
        Rule::Refused(
            Arity::Flag,
            "mnemo's iterative deepening is by depth: --deepen A:STEP:B",
        ),
    ),
    (
        "use-merge",
        Rule::Refused(
            Arity::Flag,
            "mnemo does not merge states: each path keeps its own test",
        ),
    ),
    ("use-query-log", Rule::Ignored(Arity::Value, FILES)),
    ("use-visitor-hash", Rule::Ignored(Arity::Flag, TUNING)),
    ("verify-each", Rule::Ignored(Arity::Flag, TUNING)),
    (
        "warn-all-external-symbols",
        Rule::Ignored(Arity::Flag, EXTERNAL),
    ),
    ("warnings-only-to-file", Rule::Ignored(Arity::Flag, FILES)),
    ("watchdog", Rule::Always),
    ("write-cov", Rule::Flag("--write-cov")),
    (
        "write-cvcs",
        Rule::Refused(
            Arity::Flag,
            "mnemo writes path conditions in SMT-LIB 2 only: --write-smt2s",
        ),
    ),
    ("write-exec-tree", Rule::Refused(Arity::Flag, PATHS)),
    (
        "write-kqueries",
        Rule::Refused(
            Arity::Flag,
            "mnemo writes path conditions in SMT-LIB 2 only: --write-smt2s",
        ),
    ),
    ("write-ktests", Rule::Always),
    ("write-no-tests", Rule::Flag("--write-no-tests")),
    ("write-paths", Rule::Refused(Arity::Flag, PATHS)),
    ("write-smt2s", Rule::Flag("--write-smt2s")),
    ("write-sym-paths", Rule::Refused(Arity::Flag, PATHS)),
    ("write-test-info", Rule::Ignored(Arity::Flag, FILES)),
    (
        "write-xml-tests",
        Rule::Refused(
            Arity::Flag,
            "mnemo writes no Test-Comp XML; `mnemo ktest` prints a test",
        ),
    ),
    (
        "xml-metadata-programfile",
        Rule::Refused(
            Arity::Value,
            "mnemo writes no Test-Comp XML; `mnemo ktest` prints a test",
        ),
    ),
    (
        "xml-metadata-programhash",
        Rule::Refused(
            Arity::Value,
            "mnemo writes no Test-Comp XML; `mnemo ktest` prints a test",
        ),
    ),
];
