//! Compositional symbolic execution with memoized replay (Qiu, Yang,
//! Pasareanu, Khurshid, ICSE 2015): each function reachable from the entry
//! gets its own memoization tree (a summary), built bottom-up over the call
//! graph and kept in the memo directory under the function's structural
//! hash; at a call site the solver is asked only which of the callee's
//! paths the caller's path allows, and the callee is replayed along each of
//! them with the solver off.

mod build;
mod call;
pub mod graph;
mod heap;
pub mod show;
pub mod store;
pub mod summary;
pub mod target;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

pub use build::Builder;
pub use call::{CallCounts, Composer, Directed};
pub use graph::{has_branch, CallGraph, Component};

use crate::exec::{ExecConfig, KleeCall, Native};
use crate::ir::{FuncId, Module};
use crate::memo::heuristic::HeuristicKind;
use crate::stop::StopRequest;
use store::Stored;

/// Why a call is executed rather than composed (or a function has no
/// summary). The names are `stats.json`'s keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fallback {
    /// The function has no conditional branch: it has one path.
    NoBranch,
    /// Another function of its cycle of calls is summarised, with this one
    /// executed inside it.
    InCycle,
    /// Variadic: its arguments are not all parameters.
    Variadic,
    /// It may call an external function that reaches the environment.
    Environment,
    /// A path went through a symbolic address that is not an input
    /// pointer plus a constant offset (an index into memory, a pointer
    /// computed from inputs, a symbolic function pointer).
    SymbolicPointer,
    /// A path accessed a lazily made input object outside its bound
    /// (`exec::lazy::LAZY_OBJECT_SIZE` bytes from the pointer, none before
    /// it), or made more input objects than a path may.
    InputBound,
    /// A path made a fresh input (`klee_make_symbolic` and the like).
    MakesInputs,
    /// A path fixed a symbolic value to one value or resolved a symbolic
    /// pointer, which holds only where the summary was built.
    FixesValues,
    /// Building the summary went past its limits: instructions, queries,
    /// Z3 calls, paths, or paths cut by the depth bound.
    Bounded,
    /// A query of the summary ran out of its work (`build::CALL_WORK_MS`):
    /// the summary could hold only the side its path's model took.
    HardQuery,
    /// The run was stopped (its `--max-time` came, or a signal) while the
    /// summary was being built, or the summary reached the clock's
    /// backstop: not kept, so that a later run tries again.
    Stopped,
    /// A path of the summary cut by its depth bound is feasible at the call.
    PastBound,
    /// The function is not reachable from the entry in the call graph.
    NotReached,
    /// The run has a depth bound (`--max-depth`).
    DepthBound,
    /// The caller follows a recorded run's trie.
    Guided,
    /// A condition of the summary could not be carried to the arguments.
    Unmappable,
    /// No recorded path was found feasible (as a precaution: the call is
    /// executed, and the solver decides).
    NoFeasiblePath,
    /// The heap check met a pointer the summary needs that is symbolic in
    /// the caller (a parameter, or a pointer in an input object).
    HeapSymbolic,
    /// A pointer a summary's path takes for an object points to none in
    /// the caller (freed, wild, a small offset from null), or a global is
    /// not the summary's.
    HeapNoObject,
    /// The caller's object has fewer bytes from the pointer than a path
    /// of the summary touches.
    HeapSize,
    /// Two inputs overlap in the caller without being the same address.
    HeapOverlap,
    /// A pointer is the address of an earlier input where the summary
    /// did not consider that alias (pointers read from memory, say a
    /// cycle in a list).
    HeapAlias,
    /// A path writes an input that is read-only in the caller.
    HeapReadOnly,
}

impl Fallback {
    pub fn as_str(self) -> &'static str {
        match self {
            Fallback::NoBranch => "no-branch",
            Fallback::InCycle => "in-cycle",
            Fallback::Variadic => "variadic",
            Fallback::Environment => "environment",
            Fallback::SymbolicPointer => "symbolic-pointer",
            Fallback::InputBound => "input-bound",
            Fallback::MakesInputs => "makes-inputs",
            Fallback::FixesValues => "fixes-values",
            Fallback::Bounded => "bounded",
            Fallback::HardQuery => "hard-query",
            Fallback::Stopped => "stopped",
            Fallback::PastBound => "past-bound",
            Fallback::NotReached => "not-reached",
            Fallback::DepthBound => "max-depth",
            Fallback::Guided => "guided",
            Fallback::Unmappable => "unmappable",
            Fallback::NoFeasiblePath => "no-feasible-path",
            Fallback::HeapSymbolic => "heap-symbolic-pointer",
            Fallback::HeapNoObject => "heap-no-object",
            Fallback::HeapSize => "heap-size",
            Fallback::HeapOverlap => "heap-overlap",
            Fallback::HeapAlias => "heap-alias",
            Fallback::HeapReadOnly => "heap-read-only",
        }
    }

    fn parse(s: &str) -> Option<Fallback> {
        use Fallback::*;
        [
            NoBranch,
            InCycle,
            Variadic,
            Environment,
            SymbolicPointer,
            InputBound,
            MakesInputs,
            FixesValues,
            Bounded,
            HardQuery,
            Stopped,
            PastBound,
            NotReached,
            DepthBound,
            Guided,
            Unmappable,
            NoFeasiblePath,
            HeapSymbolic,
            HeapNoObject,
            HeapSize,
            HeapOverlap,
            HeapAlias,
            HeapReadOnly,
        ]
        .into_iter()
        .find(|f| f.as_str() == s)
    }
}

/// What preparing the summaries did, for `stats.json`.
#[derive(Clone, Debug, Default)]
pub struct Prepared {
    /// Summaries built by this run, and read from the memo directory.
    pub built: u64,
    pub reused: u64,
    /// Functions without a summary, by reason.
    pub refused: BTreeMap<&'static str, u64>,
    /// Leaves over all summaries.
    pub leaves: u64,
    /// The solver's work building them (the paper's "Init").
    pub solver: crate::solver::SolverStats,
    pub seconds: f64,
}

/// The key a summary of `f` is kept under: the structural hashes of every
/// function it may reach, by name, and what it is built with.
pub fn summary_key(module: &Module, graph: &CallGraph, f: FuncId, bound: u32, frames: u32) -> u64 {
    let mut s = blake3::Hasher::new();
    s.update(&build::RULES.to_le_bytes());
    s.update(&bound.to_le_bytes());
    s.update(&frames.to_le_bytes());
    s.update(&module.func(f).hash.to_le_bytes());
    let mut reach: Vec<(&str, u64)> = graph
        .reachable(f)
        .into_iter()
        .map(|g| (module.func(g).name.as_str(), module.func(g).hash))
        .collect();
    reach.sort();
    for (name, hash) in reach {
        s.update(&(name.len() as u64).to_le_bytes());
        s.update(name.as_bytes());
        s.update(&hash.to_le_bytes());
    }
    let mut first = [0u8; 8];
    first.copy_from_slice(&s.finalize().as_bytes()[..8]);
    u64::from_le_bytes(first)
}

/// Whether a path of a summary may call this external function: the
/// engine's own models of memory, ending and checking the program, which
/// act the same wherever they are called (a replay runs them again).
fn is_summarisable_native(name: &str) -> bool {
    name.starts_with("llvm.")
        || matches!(
            Native::by_name(name),
            Some(
                Native::Malloc
                    | Native::Calloc
                    | Native::Realloc
                    | Native::Free
                    | Native::Exit
                    | Native::Abort
                    | Native::AssertFail
                    | Native::Assume
                    | Native::ReportError
                    | Native::SilentExit
                    | Native::Warning
                    | Native::ReachError
                    | Native::Klee(
                        KleeCall::IsReplay | KleeCall::MergeHint | KleeCall::WarningOnce
                    )
            )
        )
}

/// Why `f` cannot be summarised whatever its paths do, if so: a call it
/// may make leaves the program.
fn static_fallback(module: &Module, graph: &CallGraph, f: FuncId) -> Option<Fallback> {
    if module.func(f).is_vararg {
        return Some(Fallback::Variadic);
    }
    let leaves_program = graph.reachable(f).into_iter().any(|g| {
        let g = module.func(g);
        g.body.is_none() && !is_summarisable_native(&g.name)
    });
    leaves_program.then_some(Fallback::Environment)
}

/// The summaries of every function reachable from `entry`, bottom-up,
/// read from `memo_dir` where an unchanged function has one and built
/// (then saved) where not. The entry function itself is not summarised.
pub fn prepare(
    module: &Arc<Module>,
    config: &ExecConfig,
    entry: FuncId,
    memo_dir: &Path,
    bound: u32,
    (deadline, stop): (Option<Instant>, &StopRequest),
) -> (Vec<Result<Arc<summary::Summary>, Fallback>>, Prepared) {
    let started = Instant::now();
    let graph = CallGraph::of(module);
    let mut table: Vec<Result<Arc<summary::Summary>, Fallback>> =
        vec![Err(Fallback::NotReached); module.functions.len()];
    let mut prepared = Prepared::default();
    let mut builder = Builder::new(module.clone(), config, bound, deadline);
    for component in graph.bottom_up(entry) {
        // One function of a cycle is summarised, the others run inside it.
        let (head, rest) = component
            .funcs
            .split_first()
            .expect("a component has a function");
        for f in rest {
            table[f.index()] = Err(Fallback::InCycle);
            *prepared
                .refused
                .entry(Fallback::InCycle.as_str())
                .or_default() += 1;
        }
        let f = *head;
        if f == entry || module.func(f).body.is_none() {
            continue;
        }
        let name = module.func(f).name.clone();
        let outcome = if !has_branch(module, f) {
            Err(Fallback::NoBranch)
        } else if let Some(why) = static_fallback(module, &graph, f) {
            Err(why)
        } else {
            let key = summary_key(module, &graph, f, bound, config.max_stack_frames);
            match store::find(memo_dir, &name, key) {
                Some(Stored::Summary(s)) if s.function == name && builder.globals_match(&s) => {
                    prepared.reused += 1;
                    Ok(Arc::new(s))
                }
                Some(Stored::Refused(why)) if Fallback::parse(&why).is_some() => {
                    Err(Fallback::parse(&why).unwrap_or(Fallback::Bounded))
                }
                _ => {
                    builder.set_composer(Arc::new(Composer::new(table.clone(), false)));
                    let built = builder.build(f, key, stop).map(Arc::new);
                    prepared.built += built.is_ok() as u64;
                    let stored = match &built {
                        Ok(s) => Some(Stored::Summary((**s).clone())),
                        // The run's end decided, not the function.
                        Err(Fallback::Stopped) => None,
                        Err(why) => Some(Stored::Refused(why.as_str().to_string())),
                    };
                    if let Some(Err(e)) = stored.map(|s| store::save(memo_dir, &name, key, &s)) {
                        eprintln!("mnemo: warning: cannot keep the summary of `{name}`: {e}");
                    }
                    built
                }
            }
        };
        match &outcome {
            Ok(s) => prepared.leaves += s.leaves.len() as u64,
            Err(why) => *prepared.refused.entry(why.as_str()).or_default() += 1,
        }
        table[f.index()] = outcome;
    }
    prepared.solver = builder.solver_stats();
    prepared.seconds = started.elapsed().as_secs_f64();
    (table, prepared)
}

/// Refuses what a compositional run cannot do yet, before anything runs.
pub fn check_run(resume: bool) -> Result<(), ComposeError> {
    match resume {
        true => Err(ComposeError::Unsupported("--resume")),
        false => Ok(()),
    }
}

/// Refuses a compositional heuristic where it cannot act: H1 and H2 act
/// at composed calls, and H2 needs a target. (A compositional run follows
/// no trie, so the memoized runs' heuristics leave it as it is.)
pub fn check_heuristic(
    heuristic: HeuristicKind,
    compose: bool,
    targets: bool,
) -> Result<(), ComposeError> {
    if heuristic.is_compositional() && !compose {
        return Err(ComposeError::Heuristic(
            heuristic.as_str(),
            "needs --compose",
        ));
    }
    if heuristic == HeuristicKind::H2 && !targets {
        return Err(ComposeError::Heuristic("h2", "needs a --target"));
    }
    Ok(())
}

/// What stops a compositional run.
#[derive(Debug, thiserror::Error)]
pub enum ComposeError {
    #[error("--compose cannot be combined with {0} (not supported yet)")]
    Unsupported(&'static str),
    #[error("the program has no function `{0}` to start in")]
    NoEntry(String),
    #[error("--heuristic {0} {1}")]
    Heuristic(&'static str, &'static str),
}

/// The run's composer over the summaries of everything the entry reaches
/// (read from `memo_dir` or built there), and what preparing them did.
/// `heuristic`: H1 or H2 direct it (H2 at these target instructions);
/// the others leave it as it is. No summary is built past `until`: the
/// run's deadline (`--max-time`), or its stop request.
pub fn attach(
    module: &Arc<Module>,
    config: &ExecConfig,
    memo_dir: &Path,
    bound: u32,
    heuristic: (HeuristicKind, &[(FuncId, crate::ir::InstId)]),
    until: (Option<Instant>, &StopRequest),
) -> Result<(Arc<Composer>, Prepared), ComposeError> {
    let entry = module
        .func_by_name(&config.entry)
        .ok_or_else(|| ComposeError::NoEntry(config.entry.clone()))?;
    let (table, prepared) = prepare(module, config, entry, memo_dir, bound, until);
    let composer = Composer::new(table, config.max_depth.is_some());
    let composer = match heuristic {
        (HeuristicKind::H1, _) => composer.directed(Directed::Errors),
        (HeuristicKind::H2, targets) => {
            let reach = target::TargetReach::new(module, &CallGraph::of(module), targets);
            let kept = composer
                .summaries()
                .iter()
                .enumerate()
                .map(|(f, s)| {
                    let s = s.as_ref().ok()?;
                    Some(reach.paths_kept(module, FuncId(f as u32), s).into())
                })
                .collect();
            composer.directed(Directed::Targets(kept))
        }
        _ => composer,
    };
    Ok((Arc::new(composer), prepared))
}

/// `stats.json`'s view of a compositional run.
pub fn stats(
    p: &Prepared,
    calls: &CallCounts,
    replay: &crate::exec::ReplayCounters,
    heuristic: Option<HeuristicKind>,
) -> crate::stats::ComposeStats {
    let named =
        |m: &BTreeMap<&'static str, u64>| m.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    crate::stats::ComposeStats {
        enabled: true,
        summaries_built: p.built,
        summaries_reused: p.reused,
        unsummarised: named(&p.refused),
        summary_paths: p.leaves,
        init_queries: p.solver.queries,
        init_z3_calls: p.solver.z3_calls,
        init_s: p.seconds,
        calls_composed: calls.composed,
        calls_executed: named(&calls.executed),
        paths_checked: calls.paths_checked,
        paths_feasible: calls.paths_feasible,
        heuristic: heuristic
            .filter(|h| h.is_compositional())
            .map_or(String::new(), |h| h.as_str().to_string()),
        errors_reported: calls.errors_reported,
        paths_pruned: calls.paths_pruned,
        calls_pruned: calls.calls_pruned,
        replayed_choices: replay.choices,
        solver_calls_avoided: replay.solver_calls_avoided,
        replays_abandoned: replay.abandoned,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::testutil::load_c;

    const SOURCE: &str =
        "int sign(int x) { if (x > 0) return 1; if (x < 0) return -1; return 0; }\n\
        int main(void) { return sign(2); }\n";

    /// Summaries and refusals are kept for the next run; a function the
    /// run's time ran out on is not refused for good.
    #[test]
    fn a_function_the_deadline_came_for_is_not_kept_as_refused() {
        let Some(m) = load_c(SOURCE) else { return };
        let m = Arc::new(m);
        let entry = m.func_by_name("main").expect("main");
        let sign = m.func_by_name("sign").expect("sign");
        let memo = tempfile::tempdir().expect("scratch");
        let config = ExecConfig::default();
        let stop = StopRequest::default();
        let kept = |dir: &Path| store::files_of(dir, "sign").map_or(0, |f| f.len());
        let (table, prepared) = prepare(
            &m,
            &config,
            entry,
            memo.path(),
            32,
            (Some(Instant::now()), &stop),
        );
        assert_eq!(table[sign.index()].as_ref().err(), Some(&Fallback::Stopped));
        assert_eq!(prepared.refused.get("stopped"), Some(&1));
        assert_eq!(kept(memo.path()), 0);
        let (table, prepared) = prepare(&m, &config, entry, memo.path(), 32, (None, &stop));
        assert!(table[sign.index()].is_ok());
        assert_eq!((prepared.built, kept(memo.path())), (1, 1));
    }
}
