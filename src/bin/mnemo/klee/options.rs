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
    Ignored(&'static str),
    /// No counterpart, and the run would not give what was asked.
    Refused(&'static str),
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
    ("array-value-ratio", Rule::Ignored(TUNING)),
    ("array-value-symb-ratio", Rule::Ignored(TUNING)),
    ("batch-instructions", Rule::Ignored(BATCHING)),
    ("batch-time", Rule::Ignored(BATCHING)),
    ("cex-cache-superset", Rule::Ignored(TUNING)),
    ("cex-cache-try-all", Rule::Ignored(TUNING)),
    ("check-div-zero", Rule::Always),
    ("check-overshift", Rule::Always),
    ("compress-exec-tree", Rule::Ignored(FILES)),
    ("compress-query-log", Rule::Ignored(FILES)),
    ("const-array-opt", Rule::Ignored(TUNING)),
    ("disable-inlining", Rule::Ignored(OPTIMIZE)),
    ("disable-internalize", Rule::Ignored(OPTIMIZE)),
    ("disable-verify", Rule::Ignored(TUNING)),
    (
        "dump-states-on-halt",
        Rule::BoolValue("--dump-states-on-halt"),
    ),
    ("emit-all-errors", Rule::BoolValue("--emit-all-errors")),
    ("entry-point", Rule::Value("--entry", Conv::Text)),
    ("env-file", Rule::EnvFile),
    ("equality-substitution", Rule::Ignored(TUNING)),
    ("exec-tree-batch-size", Rule::Ignored(FILES)),
    ("exit-on-error", Rule::Flag("--exit-on-error")),
    (
        "exit-on-error-type",
        Rule::Value("--exit-on-error-type", Conv::Text),
    ),
    ("external-call-warnings", Rule::Ignored(EXTERNAL)),
    ("external-calls", Rule::Ignored(EXTERNAL)),
    (
        "function-alias",
        Rule::Refused("mnemo does not rename functions; define the alias in the program"),
    ),
    ("ignore-stp-failures", Rule::Ignored(TUNING)),
    ("istats-write-after-instructions", Rule::Ignored(FILES)),
    ("istats-write-interval", Rule::Ignored(FILES)),
    ("kdalloc", Rule::Ignored(TUNING)),
    ("kdalloc-constants-size", Rule::Ignored(TUNING)),
    ("kdalloc-constants-start-address", Rule::Ignored(TUNING)),
    ("kdalloc-external-page-threshold", Rule::Ignored(TUNING)),
    ("kdalloc-globals-size", Rule::Ignored(TUNING)),
    ("kdalloc-globals-start-address", Rule::Ignored(TUNING)),
    ("kdalloc-heap-size", Rule::Ignored(TUNING)),
    ("kdalloc-heap-start-address", Rule::Ignored(TUNING)),
    ("kdalloc-mark-as-unneeded", Rule::Ignored(TUNING)),
    ("kdalloc-quarantine", Rule::Ignored(TUNING)),
    ("kdalloc-stack-size", Rule::Ignored(TUNING)),
    ("kdalloc-stack-start-address", Rule::Ignored(TUNING)),
    ("klee-call-optimisation", Rule::Ignored(TUNING)),
    ("libc", Rule::Libc),
    (
        "libcxx",
        Rule::Refused("mnemo's runtime has no C++ library"),
    ),
    (
        "link-llvm-lib",
        Rule::Refused(
            "link the library into the program first (`llvm-link-14 prog.bc lib.bc -o all.bc`)",
        ),
    ),
    ("log-partial-queries-early", Rule::Ignored(FILES)),
    ("log-timed-out-queries", Rule::Ignored(FILES)),
    (
        "make-concrete-symbolic",
        Rule::Refused("mnemo does not make concrete data symbolic"),
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
    ("max-static-cpfork-pct", Rule::Ignored(STATIC_PCT)),
    ("max-static-cpsolve-pct", Rule::Ignored(STATIC_PCT)),
    (
        "max-static-fork-pct",
        Rule::Value("--max-site-fork-share", Conv::Share),
    ),
    ("max-static-pct-check-delay", Rule::Ignored(STATIC_PCT)),
    ("max-static-solve-pct", Rule::Ignored(STATIC_PCT)),
    (
        "max-sym-array-size",
        Rule::Ignored("mnemo keeps every symbolic array whole"),
    ),
    ("max-tests", Rule::Value("--max-tests", Conv::Text)),
    ("max-time", Rule::Value("--max-time", Conv::Seconds)),
    ("metasmt-backend", Rule::Ignored(TUNING)),
    ("min-query-time-to-log", Rule::Ignored(FILES)),
    ("named-seed-matching", Rule::Flag("--named-seed-matching")),
    (
        "only-output-states-covering-new",
        Rule::Flag("--only-new-coverage"),
    ),
    ("only-replay-seeds", Rule::Flag("--only-seed")),
    ("only-seed", Rule::Flag("--only-seed")),
    ("optimize", Rule::Flag("--optimize")),
    ("optimize-array", Rule::Ignored(TUNING)),
    ("output-dir", Rule::Value("--output-dir", Conv::Text)),
    ("output-istats", Rule::Ignored(FILES)),
    ("output-module", Rule::Ignored(FILES)),
    ("output-source", Rule::Ignored(FILES)),
    ("output-stats", Rule::Always),
    ("pc-all-const-widths", Rule::Ignored(FILES)),
    ("pc-all-widths", Rule::Ignored(FILES)),
    ("pc-multibyte-reads", Rule::Ignored(FILES)),
    ("pc-prefix-width", Rule::Ignored(FILES)),
    ("pc-width-as-arg", Rule::Ignored(FILES)),
    ("posix-runtime", Rule::Always),
    ("readable-posix-inputs", Rule::Ignored(FILES)),
    ("replay-ktest-dir", Rule::Refused(REPLAY)),
    ("replay-ktest-file", Rule::Refused(REPLAY)),
    ("replay-path", Rule::Refused(PATHS)),
    (
        "return-null-on-zero-malloc",
        Rule::Ignored("mnemo's malloc(0) gives what musl's gives"),
    ),
    ("rewrite-equalities", Rule::Ignored(TUNING)),
    ("rng-initial-seed", Rule::Value("--seed", Conv::Text)),
    ("run-in-dir", Rule::Ignored(EXTERNAL)),
    ("runtime-build", Rule::Ignored(TUNING)),
    ("search", Rule::Search),
    ("seed-dir", Rule::Value("--seed-dir", Conv::Text)),
    ("seed-file", Rule::Value("--seed-file", Conv::Text)),
    ("seed-time", Rule::Value("--seed-time", Conv::Seconds)),
    ("silent-klee-assume", Rule::Flag("--silent-klee-assume")),
    ("simplify-sym-indices", Rule::Ignored(TUNING)),
    ("single-object-resolution", Rule::Ignored(TUNING)),
    ("smtlib-abbreviation-mode", Rule::Ignored(FILES)),
    ("smtlib-display-constants", Rule::Ignored(FILES)),
    ("smtlib-human-readable", Rule::Ignored(FILES)),
    (
        "solver-backend",
        Rule::Ignored("mnemo's solver is Z3, behind its solver chain (--solver-chain)"),
    ),
    ("solver-optimize-divides", Rule::Ignored(TUNING)),
    ("stats-commit-after", Rule::Ignored(FILES)),
    ("stats-write-after-instructions", Rule::Ignored(FILES)),
    (
        "stats-write-interval",
        Rule::Ignored("mnemo saves stats.json with each checkpoint (--checkpoint S)"),
    ),
    ("stp-sat-solver", Rule::Ignored(TUNING)),
    ("strip-all", Rule::Ignored(OPTIMIZE)),
    ("strip-debug", Rule::Ignored(OPTIMIZE)),
    (
        "switch-type",
        Rule::Ignored("mnemo forks a switch on its distinct targets"),
    ),
    ("timer-interval", Rule::Ignored(TUNING)),
    ("track-instruction-time", Rule::Ignored(FILES)),
    ("ubsan-runtime", Rule::Always),
    ("uncovered-update-interval", Rule::Ignored(TUNING)),
    ("use-batching-search", Rule::Ignored(BATCHING)),
    ("use-branch-cache", Rule::Always),
    ("use-call-paths", Rule::Ignored(TUNING)),
    ("use-cex-cache", Rule::Always),
    ("use-constant-arrays", Rule::Ignored(TUNING)),
    ("use-construct-hash-metasmt", Rule::Ignored(TUNING)),
    ("use-construct-hash-stp", Rule::Ignored(TUNING)),
    ("use-construct-hash-z3", Rule::Ignored(TUNING)),
    ("use-fast-cex-solver", Rule::Ignored(TUNING)),
    ("use-forked-solver", Rule::Always),
    (
        "use-incomplete-merge",
        Rule::Refused("mnemo does not merge states: each path keeps its own test"),
    ),
    ("use-independent-solver", Rule::Always),
    (
        "use-iterative-deepening-time-search",
        Rule::Refused("mnemo's iterative deepening is by depth: --deepen A:STEP:B"),
    ),
    (
        "use-merge",
        Rule::Refused("mnemo does not merge states: each path keeps its own test"),
    ),
    ("use-query-log", Rule::Ignored(FILES)),
    ("use-visitor-hash", Rule::Ignored(TUNING)),
    ("verify-each", Rule::Ignored(TUNING)),
    ("warn-all-external-symbols", Rule::Ignored(EXTERNAL)),
    ("warnings-only-to-file", Rule::Ignored(FILES)),
    ("watchdog", Rule::Always),
    ("write-cov", Rule::Flag("--write-cov")),
    (
        "write-cvcs",
        Rule::Refused("mnemo writes path conditions in SMT-LIB 2 only: --write-smt2s"),
    ),
    ("write-exec-tree", Rule::Refused(PATHS)),
    (
        "write-kqueries",
        Rule::Refused("mnemo writes path conditions in SMT-LIB 2 only: --write-smt2s"),
    ),
    ("write-ktests", Rule::Always),
    ("write-no-tests", Rule::Flag("--write-no-tests")),
    ("write-paths", Rule::Refused(PATHS)),
    ("write-smt2s", Rule::Flag("--write-smt2s")),
    ("write-sym-paths", Rule::Refused(PATHS)),
    ("write-test-info", Rule::Ignored(FILES)),
    (
        "write-xml-tests",
        Rule::Refused("mnemo writes no Test-Comp XML; `mnemo ktest` prints a test"),
    ),
    (
        "xml-metadata-programfile",
        Rule::Refused("mnemo writes no Test-Comp XML; `mnemo ktest` prints a test"),
    ),
    (
        "xml-metadata-programhash",
        Rule::Refused("mnemo writes no Test-Comp XML; `mnemo ktest` prints a test"),
    ),
];

/// Whether one of KLEE's ignored or refused options takes a value, which
/// may follow as the next argument (the others are booleans).
pub(super) fn takes_value_apart(name: &str) -> bool {
    !matches!(
        name,
        "compress-exec-tree"
            | "compress-query-log"
            | "const-array-opt"
            | "disable-inlining"
            | "disable-internalize"
            | "disable-verify"
            | "equality-substitution"
            | "ignore-stp-failures"
            | "kdalloc"
            | "kdalloc-mark-as-unneeded"
            | "klee-call-optimisation"
            | "log-partial-queries-early"
            | "log-timed-out-queries"
            | "max-memory-inhibit"
            | "optimize"
            | "optimize-array"
            | "output-istats"
            | "output-module"
            | "output-source"
            | "pc-all-const-widths"
            | "pc-all-widths"
            | "pc-multibyte-reads"
            | "pc-prefix-width"
            | "pc-width-as-arg"
            | "readable-posix-inputs"
            | "return-null-on-zero-malloc"
            | "rewrite-equalities"
            | "simplify-sym-indices"
            | "single-object-resolution"
            | "smtlib-display-constants"
            | "smtlib-human-readable"
            | "solver-optimize-divides"
            | "strip-all"
            | "strip-debug"
            | "track-instruction-time"
            | "use-batching-search"
            | "use-call-paths"
            | "use-constant-arrays"
            | "use-construct-hash-metasmt"
            | "use-construct-hash-stp"
            | "use-construct-hash-z3"
            | "use-fast-cex-solver"
            | "use-visitor-hash"
            | "verify-each"
            | "warn-all-external-symbols"
            | "warnings-only-to-file"
            | "write-test-info"
            | "use-incomplete-merge"
            | "use-iterative-deepening-time-search"
            | "use-merge"
            | "write-cvcs"
            | "write-exec-tree"
            | "write-kqueries"
            | "write-paths"
            | "write-sym-paths"
            | "write-xml-tests"
    )
}
