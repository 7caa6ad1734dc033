//! The interpreter: executes one state's instructions until it forks, ends,
//! or uses up its time slice.
//!
//! This file holds the executor itself: its construction, the step loop,
//! coverage, the model of a path's inputs, and how a path ends in an error.
//! The rest lives beside it, one file a concern, so that each reads whole
//! and a new feature lands in a file of its own: `start` (constants,
//! globals and the initial state), `instructions` (the instruction loop),
//! `calls` (frames and calls), `access` (loads, stores and the objects a
//! pointer reaches) and `choices` (choice points and forks).

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::budget::{default_guard_mb, Budget};
use super::composing::{CallComposer, ReplayCounters};
use super::config::ExecConfig;
use super::end::{EarlyReason, ErrorKind, PathEnd, PathError, StackEntry};
use super::fork_share::ForkShare;
use super::guide::{Guide, GuideCounters};
use super::natives::Native;
use super::output::Output;
use super::state::{State, Stretch, GLOBAL_BASE, HEAP_BASE, RED_ZONE, STACK_BASE};
use super::threads::Preemption;
use super::value::Value;
use crate::expr::{self, Assignment};
use crate::ir::{BlockId, ConstId, FuncId, InstId, Module, SourceLoc};
use crate::solver::{Solver, SolverError};

/// Why an instruction did not simply complete.
pub(crate) enum Flow {
    /// The path ends here.
    End(PathEnd),
}

pub(crate) type Exec<T> = Result<T, Flow>;

/// What one call to [`Executor::step`] did.
pub enum Step {
    /// The time slice ran out; the state goes on.
    Yield,
    /// The state forked: it continues with its first feasible alternative and
    /// these children hold the others, in alternative order.
    Forked(Vec<State>),
    /// The path ended.
    Ended(PathEnd),
}

/// The payload of the error alternative of a memory or call fork.
pub const NO_TARGET: u64 = u64::MAX;

/// The payload of a pointer or value fork's last alternative when it lists
/// only some of its targets or values (past `MAX_POINTER_TARGETS` objects
/// or functions, past a value fork's count): the path taking it is outside
/// every one listed, and forks again at the same site over the others.
/// Value payloads stay below 2^62, clear of this and the other marks.
pub const UNLISTED: u64 = u64::MAX - 1;

/// Marks a pointer fork's target (an object's base address, below 2^48)
/// where the pointer has one address: the path then knows it, and the
/// accesses through it after this one are at that known place. The mark is
/// recorded in the trie with the target, so a guided replay, which asks no
/// solver, fixes the same addresses and builds the same expressions.
pub const FIXED_ADDRESS: u64 = 1 << 62;

/// Instructions a state runs before the searcher gets to choose again.
const SLICE: u32 = 10_000;

/// Instructions between two looks at the memory and time limits within a
/// slice: summing the per-thread counts costs more than most instructions,
/// and an allocation is checked against the limit before it is made
/// anyway. A slice on a deep path condition can take seconds (every
/// branch a query), so the time limit cannot wait for its end.
const LIMIT_CHECK_EVERY: u32 = 64;

/// The interpreter for one worker: the shared module, the constants
/// evaluated for this run, the natives, a solver, and coverage.
pub struct Executor {
    pub(crate) module: Arc<Module>,
    pub(crate) config: ExecConfig,
    pub(crate) solver: Solver,
    pub(super) consts: Vec<Value>,
    /// The thread-local globals, by index: each thread has its own copy.
    pub(super) tls_globals: Vec<usize>,
    /// The constants that hold a thread-local global's address (none in
    /// a module without one): their values differ from thread to thread.
    pub(super) tls_consts: Vec<ConstId>,
    /// Whose thread-local globals `consts` holds the addresses of now: the
    /// copies of the thread these are (`State::thread_locals`), `None` for the main
    /// thread's, the globals themselves. Set as a state's step begins and
    /// when its running thread changes, so that reading a constant costs
    /// nothing more than it did before threads.
    pub(super) tls_in_consts: Option<Arc<[u64]>>,
    pub(super) global_addrs: Vec<u64>,
    pub(crate) natives: Vec<Option<Native>>,
    pub(super) covered: Vec<Vec<bool>>,
    pub(super) covered_count: u64,
    pub(super) next_state_id: u64,
    /// What state ids step by (the number of workers, see `set_id_stride`).
    pub(super) id_stride: u64,
    /// Children produced by the instruction being executed.
    pub(super) forked: Vec<State>,
    /// Counts of instructions executed by every state.
    pub instructions: u64,
    /// Decisions every path has taken, each one a node of the run's trie:
    /// what writing the trie costs grows with them.
    pub decisions: u64,
    /// Names of unsupported externals called, for the summary.
    pub unsupported_externals: FxHashSet<String>,
    /// System calls the model does not implement that paths made, as
    /// `number (name)`.
    pub unsupported_syscalls: FxHashSet<String>,
    /// The C library's `exit`, which the entry function's return goes to.
    pub(super) libc_exit: Option<FuncId>,
    /// The recorded run that guides states, if this run replays one.
    pub(super) guide: Option<Arc<dyn Guide>>,
    /// What guided replay saved and where the trie did not fit.
    pub guided: GuideCounters,
    /// The module-wide number of each function's first block.
    block_base: Vec<u32>,
    /// Whether each source file of the module is the runtime's own C code
    /// (under `ExecConfig::runtime_dir`), by file index.
    runtime_files: Vec<bool>,
    /// Where a thread that runs too long without stopping may be stopped.
    pub(super) preemption: Preemption,
    /// Instructions the user asked to reach (`--target`).
    pub(super) targets: FxHashSet<(FuncId, InstId)>,
    /// Solver queries made when a target was first executed.
    pub target_hit_queries: Option<u64>,
    /// `--max-memory`: what allocations and the step loop check.
    pub(super) budget: Budget,
    /// Takes over calls of summarised functions (`--compose`).
    pub(super) composer: Option<Arc<dyn CallComposer>>,
    /// What replaying callees along recorded paths did.
    pub replay: ReplayCounters,
    /// Set while building a summary: a symbolic pointer ends the path at
    /// once (the summary is refused anyway, and searching the objects it
    /// may point to can take far longer than the whole program's run).
    pub(crate) summarising: bool,
    /// The forks of each branch site, for `--max-site-fork-share`.
    pub(super) fork_share: ForkShare,
    /// Each function's name for its stack objects, made once: an alloca
    /// is one of the commonest instructions.
    pub(super) alloca_names: Vec<Arc<str>>,
}

/// The runtime's function that expands KLEE's POSIX options and calls main.
pub const POSIX_START: &str = "__mnemo_posix_start";

impl Executor {
    pub fn new(module: Arc<Module>, config: ExecConfig) -> Executor {
        let solver = Solver::new(config.solver.clone());
        let mut global_addrs = Vec::with_capacity(module.globals.len());
        let mut next = GLOBAL_BASE;
        for g in &module.globals {
            let align = (g.align.max(1) as u64).max(16);
            next = (next + align - 1) & !(align - 1);
            global_addrs.push(next);
            next += g.size.max(1) + RED_ZONE;
        }
        let natives = module
            .functions
            .iter()
            .map(|f| {
                if f.body.is_some() {
                    None
                } else {
                    Native::by_name(&f.name)
                }
            })
            .collect();
        let mut block_base = Vec::with_capacity(module.functions.len() + 1);
        let mut blocks = 0u32;
        for f in &module.functions {
            block_base.push(blocks);
            blocks += f.body.as_ref().map_or(0, |b| b.blocks.len() as u32);
        }
        block_base.push(blocks);
        let covered = module
            .functions
            .iter()
            .map(|f| vec![false; f.body.as_ref().map_or(0, |b| b.insts.len())])
            .collect();
        let libc_exit = module
            .func_by_name("exit")
            .filter(|f| module.func(*f).body.is_some());
        let fork_share = ForkShare::new(
            config.max_site_fork_share,
            config.max_forks,
            config.shared.clone(),
        );
        let runtime_files: Vec<bool> = module
            .files
            .iter()
            .map(|f| {
                config
                    .runtime_dir
                    .as_ref()
                    .is_some_and(|dir| f.starts_with(dir.as_str()))
            })
            .collect();
        let preemption = Preemption::new(&module, &runtime_files, &global_addrs);
        let alloca_names = module
            .functions
            .iter()
            .map(|f| Arc::from(format!("alloca in {}", f.name)))
            .collect();
        let mut ex = Executor {
            module,
            config,
            solver,
            consts: Vec::new(),
            tls_globals: Vec::new(),
            tls_consts: Vec::new(),
            tls_in_consts: None,
            global_addrs,
            natives,
            covered,
            covered_count: 0,
            next_state_id: 0,
            id_stride: 1,
            forked: Vec::new(),
            instructions: 0,
            decisions: 0,
            unsupported_externals: FxHashSet::default(),
            unsupported_syscalls: FxHashSet::default(),
            libc_exit,
            guide: None,
            guided: GuideCounters::default(),
            block_base,
            runtime_files,
            preemption,
            targets: FxHashSet::default(),
            target_hit_queries: None,
            budget: Budget::default(),
            composer: None,
            replay: ReplayCounters::default(),
            summarising: false,
            fork_share,
            alloca_names,
        };
        ex.consts = (0..ex.module.consts.len())
            .map(|i| ex.eval_const(ConstId(i as u32)))
            .collect();
        ex.tls_globals = (ex.module.globals.iter().enumerate())
            .filter_map(|(i, g)| g.thread_local.then_some(i))
            .collect();
        if !ex.tls_globals.is_empty() {
            ex.tls_consts = super::threads::thread_local_constants(&ex.module);
        }
        ex
    }

    pub fn module(&self) -> &Arc<Module> {
        &self.module
    }

    /// The function and block of a module-wide block number.
    pub fn block_at(&self, g: u32) -> (FuncId, BlockId) {
        let f = self.block_base.partition_point(|&b| b <= g) - 1;
        (FuncId(f as u32), BlockId(g - self.block_base[f]))
    }

    /// The blocks of a stretch bit set, by module-wide number.
    pub fn stretch_blocks(bits: &[u64]) -> Vec<u32> {
        let mut out = Vec::new();
        for (w, word) in bits.iter().enumerate() {
            let mut x = *word;
            while x != 0 {
                out.push(w as u32 * 64 + x.trailing_zeros());
                x &= x - 1;
            }
        }
        out
    }

    /// Notes that the state executes (part of) a block.
    #[inline]
    pub(super) fn enter_block(&self, state: &mut State, f: FuncId, b: BlockId) {
        let g = (self.block_base[f.index()] + b.0) as usize;
        let (w, bit) = (g / 64, g % 64);
        if state.stretch.len() <= w {
            state.stretch.resize(w + 1, 0);
        }
        state.stretch[w] |= 1 << bit;
    }

    /// Ends the state's stretch at a decision, returning it; the next one
    /// starts in the block the state is in.
    pub(super) fn close_stretch(&self, state: &mut State) -> Arc<Stretch> {
        let blocks = Arc::new(Stretch::new(Self::stretch_blocks(&state.stretch)));
        state.stretch.iter_mut().for_each(|w| *w = 0);
        let fr = state.frame();
        let (f, pc) = (fr.func, fr.pc);
        if let Some(b) = self
            .module
            .func(f)
            .body
            .as_ref()
            .map(|b| b.block_of[pc.index()])
        {
            self.enter_block(state, f, b);
        }
        blocks
    }

    /// Watches for the first execution of any of these instructions.
    pub fn watch(&mut self, targets: impl IntoIterator<Item = (FuncId, InstId)>) {
        self.targets.extend(targets);
    }

    /// Gives no solver call time past `deadline` (`None`: none but each
    /// query's own limit). A query cut short by it ends its path early
    /// with `max-time`, as the time limit would have.
    pub fn set_deadline(&mut self, deadline: Option<std::time::Instant>) {
        self.solver.set_deadline(deadline);
    }

    /// Limits the memory of the run to `mb` MiB: an allocation that would
    /// take the states' objects past it ends its path early
    /// (`max-memory`), and once the objects or the process's resident
    /// memory reach it, [`Self::step`] returns at the next instruction and
    /// [`Self::memory_exceeded`] says so. With `None`, the resident memory
    /// alone is limited, to the guard of [`default_guard_mb`].
    pub fn set_memory_limit(&mut self, mb: Option<u64>) {
        self.budget = match mb {
            Some(mb) => Budget::limited(mb),
            None => default_guard_mb().map_or_else(Budget::default, Budget::guarded),
        };
    }

    /// Lifts the memory limit, and the guard, once exploration is over.
    pub fn lift_memory_limit(&mut self) {
        self.budget = Budget::default();
    }

    /// Whether the run has reached its memory limit.
    pub fn memory_exceeded(&self) -> bool {
        self.budget.exceeded()
    }

    /// The memory the run holds now and its limit, in bytes (`None`: no
    /// limit).
    pub fn memory_in_use(&self) -> Option<(u64, u64)> {
        self.budget.in_use()
    }

    /// Makes states follow a recorded run (set before `initial_state`).
    pub fn set_guide(&mut self, guide: Arc<dyn Guide>) {
        self.guide = Some(guide);
    }

    pub fn solver_stats(&self) -> crate::solver::SolverStats {
        self.solver.stats()
    }

    pub(super) fn next_id(&mut self) -> u64 {
        let id = self.next_state_id;
        self.next_state_id += self.id_stride;
        id
    }

    /// Runs `state` until it forks, ends, its slice is used up, or the run
    /// reaches its memory limit or its deadline ([`Self::set_deadline`]).
    pub fn step(&mut self, state: &mut State) -> Step {
        if let Some(end) = state.ended.take() {
            return Step::Ended(end);
        }
        // Under `--only-seed`, a path that left its seeds (at a fork, at
        // an input a seed does not fit, or at `--seed-time`) ends there,
        // with a test;
        // `--resume` goes on with it.
        if state.is_seeded() && self.seeding_over() {
            state.leave_seeds();
        }
        let only_seed = self.config.only_seed;
        if only_seed && !state.is_seeded() {
            return Step::Ended(PathEnd::Early(EarlyReason::OnlySeed));
        }
        if !self.tls_consts.is_empty() {
            self.use_thread_locals(state);
        }
        let module = self.module.clone();
        let limited = self.budget.is_limited();
        for i in 0..SLICE {
            match self.execute(&module, state) {
                Ok(()) => {
                    if !self.forked.is_empty() {
                        return Step::Forked(std::mem::take(&mut self.forked));
                    }
                    if only_seed && !state.is_seeded() {
                        return Step::Ended(PathEnd::Early(EarlyReason::OnlySeed));
                    }
                    // At the memory or time limit the run stops: the
                    // explorer ends this state with the others.
                    if i % LIMIT_CHECK_EVERY == 0
                        && ((limited && self.budget.exceeded()) || self.solver.at_deadline())
                    {
                        return Step::Yield;
                    }
                }
                Err(Flow::End(end)) => {
                    // The instruction forked before its path ended (a
                    // sanitizer's handler telling its checks apart): the
                    // children take its other alternatives.
                    if !self.forked.is_empty() {
                        state.ended = Some(end);
                        return Step::Forked(std::mem::take(&mut self.forked));
                    }
                    return Step::Ended(end);
                }
            }
        }
        Step::Yield
    }

    /// A concrete model of the state's inputs, for its test.
    pub fn model(&mut self, state: &State) -> Result<Assignment, SolverError> {
        if let Some(h) = &state.hint {
            self.solver.answered_by_path_model();
            return Ok((**h).clone());
        }
        if let Some(w) = self.witness(state) {
            if state.constraints.iter().all(|c| expr::eval(c, &w) != 0) {
                self.guided.solver_calls_avoided += 1;
                return Ok(w);
            }
        }
        let arrays = state.input_arrays();
        Ok(self
            .solver
            .get_model(&state.constraints, &arrays)?
            .unwrap_or_default())
    }

    /// Coverage of the program's own code: (instructions covered, instructions,
    /// lines covered, lines).
    pub fn coverage(&self) -> (u64, u64, u64, u64) {
        self.coverage_of(&self.covered)
    }

    /// [`Self::coverage`] of `covered` (instructions executed at least
    /// once, per function, as [`super::Tally::covered`] holds them).
    pub fn coverage_of(&self, covered: &[Vec<bool>]) -> (u64, u64, u64, u64) {
        let mut lines = FxHashSet::default();
        let mut covered_lines = FxHashSet::default();
        let (mut total, mut hit) = (0u64, 0u64);
        for (fi, f) in self.module.functions.iter().enumerate() {
            let Some(body) = &f.body else { continue };
            if self.is_runtime(f.loc) {
                continue;
            }
            for (i, loc) in body.locs.iter().enumerate() {
                total += 1;
                let c = covered[fi][i];
                hit += c as u64;
                if let Some(l) = loc {
                    lines.insert((l.file, l.line));
                    if c {
                        covered_lines.insert((l.file, l.line));
                    }
                }
            }
        }
        (hit, total, covered_lines.len() as u64, lines.len() as u64)
    }

    /// Whether `loc` is in the runtime's own C code.
    #[inline]
    pub(super) fn is_runtime(&self, loc: Option<SourceLoc>) -> bool {
        loc.is_some_and(|l| self.runtime_files[l.file.index()])
    }

    /// Alternatives left unasked at sites past their share of the forks
    /// (`--max-site-fork-share`), past the run's `--max-forks`, or where
    /// the program asked its path not to fork (`klee_set_forking(0)`).
    pub fn forks_cut(&self) -> u64 {
        self.fork_share.cut
    }

    /// Cut choice points taken up again once nothing else was left.
    pub fn cuts_reopened(&self) -> u64 {
        self.fork_share.reopened
    }

    /// Instructions covered by any path so far.
    pub fn covered_instructions(&self) -> u64 {
        self.covered_count
    }

    /// Whether an instruction has been covered (for the coverage searcher).
    pub fn is_covered(&self, f: FuncId, i: InstId) -> bool {
        self.covered[f.index()]
            .get(i.index())
            .copied()
            .unwrap_or(true)
    }

    // ---- errors -------------------------------------------------------------

    /// A state with nothing on its stack or in memory, and these inputs:
    /// the program's first state and a summary's start are made from it.
    pub(crate) fn empty_state(&mut self, symbolics: Vec<super::state::Symbolic>) -> State {
        State {
            id: self.next_id(),
            stack: Vec::new(),
            memory: Default::default(),
            constraints: Arc::new(Vec::new()),
            preferences: Arc::new(Vec::new()),
            symbolics: symbolics.into_iter().collect(),
            fresh_from: 0,
            path: super::Trail::new(),
            depth: 0,
            stopped_at: None,
            guide: None,
            hint: None,
            pinned: Vec::new(),
            unanswered: Vec::new(),
            stretch: Vec::new(),
            next_heap: HEAP_BASE,
            next_stack: STACK_BASE,
            instructions: 0,
            lines: self.config.write_lines.then(Default::default),
            nondet_count: 0,
            stdout: Output::default(),
            stderr: Output::default(),
            since_new_cover: 0,
            addresses: imbl::HashMap::new(),
            covered_new: false,
            forced: None,
            ended: None,
            forking_off: false,
            reopen: None,
            composing: None,
            seeds: None,
            inputs: None,
            settled: Vec::new(),
            settled_taken: 0,
            threads: None,
        }
    }

    pub(crate) fn error(&self, state: &State, kind: ErrorKind, message: impl Into<String>) -> Flow {
        Flow::End(PathEnd::Error(PathError {
            kind,
            message: message.into(),
            loc: self.current_loc(state),
            stack: self.stack_trace(state),
        }))
    }

    pub(super) fn current_loc(&self, state: &State) -> Option<SourceLoc> {
        let fr = state.stack.last()?;
        let body = self.module.func(fr.func).body.as_ref()?;
        let at = |i: InstId| body.locs.get(i.index()).copied().flatten();
        at(fr.pc).or_else(|| at(fr.entered_by?))
    }

    pub(super) fn stack_trace(&self, state: &State) -> Vec<StackEntry> {
        let mut out = Vec::new();
        let mut pc = state.stack.last().map(|f| f.pc);
        for (depth, fr) in state.stack.iter().rev().enumerate() {
            let f = self.module.func(fr.func);
            let loc = match depth {
                0 => self.current_loc(state),
                _ => pc.and_then(|p| {
                    f.body
                        .as_ref()
                        .and_then(|b| b.locs.get(p.index()).copied().flatten())
                }),
            };
            out.push(StackEntry {
                function: f.name.clone(),
                loc,
            });
            pc = fr.call_site;
        }
        out
    }

    pub(crate) fn solver_error(&self, state: &State, e: SolverError) -> Flow {
        if e == SolverError::Timeout && self.solver.at_deadline() {
            return Flow::End(PathEnd::Early(EarlyReason::MaxTime));
        }
        self.error(state, ErrorKind::Solver, e.to_string())
    }

    /// Creates a fresh symbolic input of `size` bytes and records it for the test.
    pub(crate) fn new_symbolic(
        &mut self,
        state: &mut State,
        name: &str,
        size: u32,
    ) -> crate::expr::ArrayRef {
        let unique = format!("{}#{}", name, state.symbolics.len());
        let array = expr::Array::symbolic(&unique, size);
        let index = state.symbolics.len();
        let fit = self.config.seed_fit;
        // Counted only where a seed needs it: a loop making fresh inputs
        // would otherwise count over all of them at each.
        let occurrence = match fit.by_name && state.is_seeded() {
            true => state.symbolics.iter().filter(|s| &*s.name == name).count(),
            false => 0,
        };
        state.symbolics.push_back(super::state::Symbolic {
            name: name.into(),
            array: array.clone(),
        });
        let at = super::seeds::InputAt {
            index,
            name,
            occurrence,
            size: size as usize,
        };
        for left in state.bind_seeds(&array, at, fit) {
            if self.config.shared.first_saying(&left) {
                eprintln!("mnemo: warning: {left}");
            }
        }
        array
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::testutil::load_ll;

    /// A loop that never ends: each step runs until its slice or a limit.
    fn spinning() -> (Executor, State) {
        let module = load_ll(
            "define i32 @main() {\nentry:\n  br label %l\nl:\n  %i = phi i32 [ 0, %entry ], [ %j, %l ]\n  %j = add i32 %i, 1\n  br label %l\n}\n",
        );
        let mut executor = Executor::new(Arc::new(module), ExecConfig::default());
        let state = executor.initial_state().expect("initial state");
        (executor, state)
    }

    #[test]
    fn a_slice_stops_early_at_the_deadline() {
        let (mut executor, mut state) = spinning();
        assert!(matches!(executor.step(&mut state), Step::Yield));
        assert_eq!(executor.instructions, u64::from(SLICE));
        // A slice can take seconds where every branch is a query: it ends
        // within a few instructions of the deadline, not at its end.
        executor.set_deadline(Some(std::time::Instant::now()));
        assert!(matches!(executor.step(&mut state), Step::Yield));
        let more = executor.instructions - u64::from(SLICE);
        assert!(more <= u64::from(LIMIT_CHECK_EVERY), "{more} instructions");
    }

    #[test]
    fn a_run_without_a_limit_is_guarded_until_exploration_is_over() {
        let (mut executor, _) = spinning();
        executor.set_memory_limit(None);
        let guard = default_guard_mb().expect("the machine's memory is known");
        let (_, limit) = executor.memory_in_use().expect("guarded");
        assert_eq!(limit, guard << 20);
        executor.set_memory_limit(Some(64));
        assert_eq!(executor.memory_in_use().expect("limited").1, 64 << 20);
        executor.lift_memory_limit();
        assert!(executor.memory_in_use().is_none());
    }
}
