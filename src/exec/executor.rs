//! The interpreter: executes one state's instructions until it forks, ends,
//! or uses up its time slice.
//!
//! Forking follows one rule that later features rely on: every fork happens
//! before an instruction has any effect, and each child is cloned at that
//! point with its alternative *forced*. When a child runs, it re-executes
//! the same instruction, the fork hands it its forced alternative without a
//! solver call, and the instruction completes for that alternative. A trie
//! replay feeds recorded alternatives in the same way.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::config::ExecConfig;
use super::end::{EarlyReason, ErrorKind, PathEnd, PathError, StackEntry};
use super::guide::{Guidance, Guide, GuideCounters, Next};
use super::memory::{AllocKind, MemoryObject, ObjectState};
use super::natives::Native;
use super::state::{
    function_address, function_at, Alt, Decision, Forced, Frame, Point, State, GLOBAL_BASE,
    HEAP_BASE, NULL_PAGE, RED_ZONE, STACK_BASE,
};
use super::value::Value;
use crate::expr::{self, Assignment, ExprRef};
use crate::ir::semantics::{self, mask};
use crate::ir::{
    switch_alternatives, Arg, BinOp, BlockId, Callee, CastOp, Const, ConstId, FuncId, Inst, InstId,
    Module, Operand, Reg, SiteId, SourceLoc,
};
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

/// A recorded choice point's alternatives, and how to go on down each.
type Recorded = (Arc<[Alt]>, Vec<Next>);

/// The payload of the error alternative of a memory or call fork.
pub const NO_TARGET: u64 = u64::MAX;

/// Instructions a state runs before the searcher gets to choose again.
const SLICE: u32 = 10_000;

/// Candidates a symbolic pointer is resolved to before the rest counts as an error.
const MAX_POINTER_TARGETS: usize = 16;

/// Models asked for while looking for a symbolic pointer's targets.
const MAX_POINTER_SEARCH: usize = 48;

/// The interpreter for one worker: the shared module, the constants
/// evaluated for this run, the natives, a solver, and coverage.
pub struct Executor {
    pub(crate) module: Arc<Module>,
    pub(crate) config: ExecConfig,
    pub(crate) solver: Solver,
    consts: Vec<Value>,
    global_addrs: Vec<u64>,
    pub(crate) natives: Vec<Option<Native>>,
    covered: Vec<Vec<bool>>,
    covered_count: u64,
    next_state_id: u64,
    /// Children produced by the instruction being executed.
    forked: Vec<State>,
    /// Counts of instructions executed by every state.
    pub instructions: u64,
    /// Names of unsupported externals called, for the summary.
    pub unsupported_externals: FxHashSet<String>,
    /// The recorded run that guides states, if this run replays one.
    guide: Option<Arc<dyn Guide>>,
    /// What guided replay saved and where the trie did not fit.
    pub guided: GuideCounters,
    /// The module-wide number of each function's first block.
    block_base: Vec<u32>,
    /// Instructions the user asked to reach (`--target`).
    targets: FxHashSet<(FuncId, InstId)>,
    /// Solver queries made when a target was first executed.
    pub target_hit_queries: Option<u64>,
}

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
        let mut ex = Executor {
            module,
            config,
            solver,
            consts: Vec::new(),
            global_addrs,
            natives,
            covered,
            covered_count: 0,
            next_state_id: 0,
            forked: Vec::new(),
            instructions: 0,
            unsupported_externals: FxHashSet::default(),
            guide: None,
            guided: GuideCounters::default(),
            block_base,
            targets: FxHashSet::default(),
            target_hit_queries: None,
        };
        ex.consts = (0..ex.module.consts.len())
            .map(|i| ex.eval_const(ConstId(i as u32)))
            .collect();
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
    fn enter_block(&self, state: &mut State, f: FuncId, b: BlockId) {
        let g = (self.block_base[f.index()] + b.0) as usize;
        let (w, bit) = (g / 64, g % 64);
        if state.stretch.len() <= w {
            state.stretch.resize(w + 1, 0);
        }
        state.stretch[w] |= 1 << bit;
    }

    /// Ends the state's stretch at a decision, returning it; the next one
    /// starts in the block the state is in.
    fn close_stretch(&self, state: &mut State) -> Arc<[u32]> {
        let blocks: Arc<[u32]> = Self::stretch_blocks(&state.stretch).into();
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

    /// Makes states follow a recorded run (set before `initial_state`).
    pub fn set_guide(&mut self, guide: Arc<dyn Guide>) {
        self.guide = Some(guide);
    }

    pub fn solver_stats(&self) -> crate::solver::SolverStats {
        self.solver.stats()
    }

    fn eval_const(&self, id: ConstId) -> Value {
        match self.module.constant(id) {
            Const::Int { width, bits } => Value::concrete(*bits, *width),
            Const::Undef { width } => Value::concrete(0, *width),
            Const::Null => Value::concrete(0, 64),
            Const::GlobalAddr { global, offset } => Value::concrete(
                self.global_addrs[global.index()].wrapping_add(*offset as u64) as u128,
                64,
            ),
            Const::FuncAddr(f) => Value::concrete(function_address(*f) as u128, 64),
            Const::Cast { op, to, value } => {
                let v = self.eval_const(*value);
                let from = v.width();
                Value::concrete(
                    semantics::cast(*op, from, *to, v.as_concrete().unwrap_or(0)),
                    *to,
                )
            }
            Const::Binary {
                op,
                width,
                lhs,
                rhs,
            } => {
                let a = self.eval_const(*lhs).as_concrete().unwrap_or(0);
                let b = self.eval_const(*rhs).as_concrete().unwrap_or(0);
                Value::concrete(semantics::binary(*op, *width, a, b), *width)
            }
            Const::ICmp { pred, lhs, rhs } => {
                let a = self.eval_const(*lhs);
                let b = self.eval_const(*rhs).as_concrete().unwrap_or(0);
                Value::bool(semantics::icmp(
                    *pred,
                    a.width(),
                    a.as_concrete().unwrap_or(0),
                    b,
                ))
            }
            Const::Select {
                cond,
                then_val,
                else_val,
            } => {
                if self.eval_const(*cond).as_concrete().unwrap_or(0) != 0 {
                    self.eval_const(*then_val)
                } else {
                    self.eval_const(*else_val)
                }
            }
            Const::Aggregate { width, parts } => {
                let mut bits = 0u128;
                for (offset, part) in parts {
                    let v = self.eval_const(*part);
                    if *offset < 128 {
                        bits |= v.as_concrete().unwrap_or(0) << offset;
                    }
                }
                Value::concrete(bits, *width)
            }
        }
    }

    fn next_id(&mut self) -> u64 {
        let id = self.next_state_id;
        self.next_state_id += 1;
        id
    }

    /// The state at the entry function with globals and argv in memory.
    pub fn initial_state(&mut self) -> anyhow::Result<State> {
        let module = self.module.clone();
        let entry = module
            .func_by_name(&self.config.entry)
            .filter(|f| module.func(*f).body.is_some())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "the program has no function `{}` to start in",
                    self.config.entry
                )
            })?;
        let mut state = State {
            id: self.next_id(),
            stack: Vec::new(),
            memory: Default::default(),
            constraints: Arc::new(Vec::new()),
            symbolics: Vec::new(),
            path: imbl::Vector::new(),
            depth: 0,
            stopped_at: None,
            guide: None,
            hint: None,
            stretch: Vec::new(),
            next_heap: HEAP_BASE,
            next_stack: STACK_BASE,
            instructions: 0,
            nondet_count: 0,
            since_new_cover: 0,
            forced: None,
        };
        for (i, g) in module.globals.iter().enumerate() {
            let mut contents = ObjectState::zeroed(g.size);
            if let Some(init) = &g.init {
                let mut bytes = init.bytes.clone();
                bytes.resize(g.size as usize, 0);
                contents = ObjectState::from_bytes(bytes);
                for (offset, c) in &init.relocs {
                    let v = self.consts[c.index()].clone();
                    let n = (v.width() / 8).max(1);
                    if offset + n as u64 <= g.size {
                        contents.write(*offset, n, &v);
                    }
                }
            }
            state.memory.insert(
                MemoryObject {
                    address: self.global_addrs[i],
                    size: g.size,
                    kind: AllocKind::Global,
                    name: g.name.clone(),
                    site: None,
                    read_only: g.is_constant,
                },
                contents,
            );
        }
        // argv: each string its own object, then the pointer array.
        let argv = self.config.argv.clone();
        let mut ptrs = Vec::with_capacity(argv.len() + 1);
        for (i, arg) in argv.iter().enumerate() {
            let mut bytes = arg.as_bytes().to_vec();
            bytes.push(0);
            let addr = state.reserve(bytes.len() as u64, false);
            state.memory.insert(
                MemoryObject {
                    address: addr,
                    size: bytes.len() as u64,
                    kind: AllocKind::Runtime,
                    name: format!("argv[{i}]"),
                    site: None,
                    read_only: false,
                },
                ObjectState::from_bytes(bytes),
            );
            ptrs.push(addr);
        }
        ptrs.push(0);
        let argv_addr = state.reserve(8 * ptrs.len() as u64, false);
        let mut table = ObjectState::zeroed(8 * ptrs.len() as u64);
        for (i, p) in ptrs.iter().enumerate() {
            table.write(8 * i as u64, 8, &Value::concrete(*p as u128, 64));
        }
        state.memory.insert(
            MemoryObject {
                address: argv_addr,
                size: 8 * ptrs.len() as u64,
                kind: AllocKind::Runtime,
                name: "argv".into(),
                site: None,
                read_only: false,
            },
            table,
        );
        let f = module.func(entry);
        let mut args = Vec::new();
        for (i, w) in f.params.iter().enumerate() {
            args.push(match i {
                0 => Value::concrete(argv.len() as u128, *w),
                1 => Value::concrete(argv_addr as u128, *w),
                _ => Value::concrete(0, *w),
            });
        }
        if self
            .push_frame(&mut state, entry, args, None, None)
            .is_err()
        {
            anyhow::bail!("cannot start in `{}`", self.config.entry);
        }
        if let Some(g) = &self.guide {
            state.guide = g.start().node();
        }
        Ok(state)
    }

    /// Runs `state` until it forks, ends, or its slice is used up.
    pub fn step(&mut self, state: &mut State) -> Step {
        let module = self.module.clone();
        for _ in 0..SLICE {
            match self.execute(&module, state) {
                Ok(()) => {
                    if !self.forked.is_empty() {
                        return Step::Forked(std::mem::take(&mut self.forked));
                    }
                }
                Err(Flow::End(end)) => {
                    self.forked.clear();
                    return Step::Ended(end);
                }
            }
        }
        Step::Yield
    }

    /// A concrete model of the state's inputs, for its test.
    pub fn model(&mut self, state: &State) -> Result<Assignment, SolverError> {
        if let Some(h) = &state.hint {
            self.guided.solver_calls_avoided += 1;
            return Ok((**h).clone());
        }
        if let Some(w) = self.witness(state) {
            if state.constraints.iter().all(|c| expr::eval(c, &w) != 0) {
                self.guided.solver_calls_avoided += 1;
                return Ok(w);
            }
        }
        let arrays: Vec<_> = state.symbolics.iter().map(|s| s.array.clone()).collect();
        Ok(self
            .solver
            .get_model(&state.constraints, &arrays)?
            .unwrap_or_default())
    }

    /// Coverage of the program's own code: (instructions covered, instructions,
    /// lines covered, lines).
    pub fn coverage(&self) -> (u64, u64, u64, u64) {
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
                let c = self.covered[fi][i];
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

    fn is_runtime(&self, loc: Option<SourceLoc>) -> bool {
        match (&self.config.runtime_dir, loc) {
            (Some(dir), Some(l)) => self.module.files[l.file.index()].starts_with(dir.as_str()),
            _ => false,
        }
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

    pub(crate) fn error(&self, state: &State, kind: ErrorKind, message: impl Into<String>) -> Flow {
        Flow::End(PathEnd::Error(PathError {
            kind,
            message: message.into(),
            loc: self.current_loc(state),
            stack: self.stack_trace(state),
        }))
    }

    fn current_loc(&self, state: &State) -> Option<SourceLoc> {
        let fr = state.stack.last()?;
        let body = self.module.func(fr.func).body.as_ref()?;
        body.locs.get(fr.pc.index()).copied().flatten()
    }

    fn stack_trace(&self, state: &State) -> Vec<StackEntry> {
        let mut out = Vec::new();
        let mut pc = state.stack.last().map(|f| f.pc);
        for fr in state.stack.iter().rev() {
            let f = self.module.func(fr.func);
            let loc = pc.and_then(|p| {
                f.body
                    .as_ref()
                    .and_then(|b| b.locs.get(p.index()).copied().flatten())
            });
            out.push(StackEntry {
                function: f.name.clone(),
                loc,
            });
            pc = fr.call_site;
        }
        out
    }

    pub(crate) fn solver_error(&self, state: &State, e: SolverError) -> Flow {
        // Z3's own timer may fire a little before the deadline it was
        // given.
        let slack = std::time::Duration::from_millis(100);
        let at_deadline = self
            .solver
            .deadline()
            .is_some_and(|d| std::time::Instant::now() + slack >= d);
        if e == SolverError::Timeout && at_deadline {
            return Flow::End(PathEnd::Early(EarlyReason::MaxTime));
        }
        self.error(state, ErrorKind::Solver, e.to_string())
    }

    // ---- choice points ------------------------------------------------------

    /// Forks `state` over mutually exclusive conditions that together cover
    /// every possibility, returning the alternative the state itself takes
    /// and its payload. Other feasible alternatives become children. The
    /// decision goes on the state's path; a guided state takes its
    /// alternatives from the recorded run instead of the solver.
    pub(crate) fn fork(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        payloads: &[u64],
    ) -> Exec<(usize, u64)> {
        if let Some(f) = state.forced.take() {
            return Ok((f.alternative as usize, f.payload));
        }
        if let Some((alts, next)) = self.recorded_alternatives(state, site, Some(conds.len()))? {
            let point = self.point_at(state, site, alts);
            return self.take_alternatives(state, point, conds, &next, true);
        }
        let mut alts = Vec::with_capacity(conds.len());
        let mut any_feasible = false;
        for (i, c) in conds.iter().enumerate() {
            let ok = match c.as_const() {
                Some(v) => v != 0,
                // The last alternative is feasible when no other one is,
                // since together they cover everything.
                None if i + 1 == conds.len() && !any_feasible => true,
                None if state.hint.as_ref().is_some_and(|h| expr::eval(c, h) != 0) => {
                    self.guided.solver_calls_avoided += 1;
                    true
                }
                None => match self.solver.may_be_true(&state.constraints, c) {
                    Ok(b) => b,
                    Err(e) => return Err(self.solver_error(state, e)),
                },
            };
            any_feasible |= ok;
            alts.push(Alt {
                payload: payloads[i],
                feasible: ok,
            });
        }
        let point = self.point_at(state, site, alts.into());
        let next = vec![Next::Free; conds.len()];
        self.take_alternatives(state, point, conds, &next, true)
    }

    /// The choice point at `site` of the state's current function.
    fn point_at(&self, state: &State, site: SiteId, alts: Arc<[Alt]>) -> Point {
        Point {
            func: state.frame().func,
            site,
            line: self.current_loc(state).map_or(0, |l| l.line),
            alts,
        }
    }

    /// The recorded alternatives at a guided state's choice point (`expected`
    /// of them, when known). `None` for an unguided state, and for one where
    /// the trie does not fit the program (counted and described): it goes on
    /// unguided, or, when certifying, ends there.
    fn recorded_alternatives(
        &mut self,
        state: &mut State,
        site: SiteId,
        expected: Option<usize>,
    ) -> Exec<Option<Recorded>> {
        let (Some(guide), Some(node)) = (self.guide.clone(), state.guide) else {
            return Ok(None);
        };
        let problem = match guide.at_point(node, state.frame().func, site) {
            Guidance::Follow { alts, next } if expected.is_none_or(|n| n == alts.len()) => {
                return Ok(Some((alts, next)));
            }
            Guidance::Follow { alts, .. } => format!(
                "the trie records {} alternatives where the program has {}",
                alts.len(),
                expected.unwrap_or(0)
            ),
            Guidance::Mismatch(m) => m,
        };
        self.guided.mismatches += 1;
        let at = self.module.describe_loc(self.current_loc(state));
        let problem = format!("{problem} (at {at})");
        if self.guided.first_mismatch.is_none() {
            self.guided.first_mismatch = Some(problem.clone());
        }
        self.guided.last_mismatch = Some(problem);
        if self.config.strict_guide {
            return Err(Flow::End(PathEnd::Pruned));
        }
        state.guide = None;
        Ok(None)
    }

    /// Takes the feasible alternatives of `point` that `next` does not skip:
    /// the state the first, a forced child each of the others. When none is
    /// feasible the path ends there. `alone_implied`: a lone feasible
    /// alternative is implied by the path condition (true of a fork, whose
    /// alternatives cover everything; not of an assumption).
    fn take_alternatives(
        &mut self,
        state: &mut State,
        point: Point,
        conds: &[ExprRef],
        next: &[Next],
        alone_implied: bool,
    ) -> Exec<(usize, u64)> {
        let feasible = point.feasible();
        if feasible == 0 {
            state.stopped_at = Some(point);
            return Err(Flow::End(PathEnd::Silent));
        }
        if state.guide.is_some() {
            // What an unguided state would have asked the solver.
            self.guided.solver_calls_avoided +=
                conds.iter().filter(|c| c.as_const().is_none()).count() as u64;
        }
        if feasible >= 2 {
            if let Some(max) = self.config.max_depth {
                if state.depth >= max {
                    state.stopped_at = Some(point);
                    return Err(Flow::End(PathEnd::Early(EarlyReason::MaxDepth)));
                }
            }
        }
        let go: Vec<usize> = (0..point.alts.len())
            .filter(|&i| point.alts[i].feasible && next.get(i).is_some_and(|n| *n != Next::Skip))
            .collect();
        let Some(&first) = go.first() else {
            // Every feasible alternative was explored before: nothing of this
            // path is left to run (the trie keeps its tests).
            return Err(Flow::End(PathEnd::Pruned));
        };
        let stretch = self.close_stretch(state);
        // Leaving the trie at a candidate: its recorded test seeds the new
        // exploration below it.
        if state.guide.is_some() && go.iter().any(|&i| next[i] == Next::Free) {
            state.hint = self.witness(state).map(Arc::new);
        }
        // An implied alternative need not be added; certification adds it
        // all the same, to check the recorded tests against every choice.
        let constrain = feasible >= 2 || !alone_implied || self.config.strict_guide;
        for &i in &go[1..] {
            let mut child = state.clone();
            child.id = self.next_id();
            if constrain {
                child.add_constraint(conds[i].clone());
            }
            if feasible >= 2 {
                child.depth += 1;
            }
            child.path.push_back(Decision {
                point: point.clone(),
                taken: i as u32,
                stretch: stretch.clone(),
            });
            child.guide = next[i].node();
            child.forced = Some(Forced {
                alternative: i as u32,
                payload: point.alts[i].payload,
            });
            self.forked.push(child);
        }
        if constrain {
            state.add_constraint(conds[first].clone());
        }
        if feasible >= 2 {
            state.depth += 1;
        }
        let payload = point.alts[first].payload;
        state.guide = next[first].node();
        state.path.push_back(Decision {
            point,
            taken: first as u32,
            stretch,
        });
        Ok((first, payload))
    }

    /// Assumes `cond`, for the call at `site`: a choice point of one
    /// alternative, recorded so that a replay knows without the solver
    /// whether it can hold. If it can, it joins the path condition; if not,
    /// the path ends there (silently, as an infeasible assumption does).
    pub(crate) fn assume_point(
        &mut self,
        state: &mut State,
        site: SiteId,
        cond: &ExprRef,
    ) -> Exec<()> {
        let (alts, next) = match self.recorded_alternatives(state, site, Some(1))? {
            Some(recorded) => recorded,
            None => {
                let feasible = self.may_be_true(state, cond)?;
                (
                    Arc::new([Alt {
                        payload: 0,
                        feasible,
                    }]) as Arc<[Alt]>,
                    vec![Next::Free],
                )
            }
        };
        let point = self.point_at(state, site, alts);
        self.take_alternatives(state, point, std::slice::from_ref(cond), &next, false)?;
        Ok(())
    }

    /// The choice site of the call instruction the state is executing.
    pub(crate) fn call_site(&self, state: &State) -> SiteId {
        let fr = state.frame();
        match self
            .module
            .func(fr.func)
            .body
            .as_ref()
            .and_then(|b| b.insts.get(fr.pc.index()))
        {
            Some(Inst::Call { site, .. }) => *site,
            _ => SiteId(u32::MAX),
        }
    }

    /// The recorded inputs that satisfy a guided state's path condition, as
    /// an assignment of its symbolic arrays.
    fn witness(&self, state: &State) -> Option<Assignment> {
        let inputs = self.guide.as_ref()?.witness(state.guide?)?;
        Some(state.assignment(inputs.iter()))
    }

    /// Whether `cond` may hold on the path: answered by the recorded inputs
    /// on a guided prefix when they satisfy it, else by the solver.
    pub(crate) fn may_be_true(&mut self, state: &State, cond: &ExprRef) -> Exec<bool> {
        if let Some(w) = self.witness(state) {
            if expr::eval(cond, &w) != 0 {
                self.guided.solver_calls_avoided += 1;
                return Ok(true);
            }
        }
        self.solver
            .may_be_true(&state.constraints, cond)
            .map_err(|e| self.solver_error(state, e))
    }

    /// Fixes a symbolic value to one feasible concrete value (no fork).
    pub(crate) fn concretize(&mut self, state: &mut State, v: &Value) -> Exec<u128> {
        match v {
            Value::Concrete { bits, .. } => Ok(*bits),
            Value::Symbolic(e) => {
                let c = self.example(state, v)?;
                state.add_constraint(expr::eq(e, &expr::constant(c, e.width())));
                Ok(c)
            }
        }
    }

    /// A value of `v` under the path, without constraining the path. On a
    /// guided prefix it is the value the recorded run chose.
    pub(crate) fn example(&mut self, state: &State, v: &Value) -> Exec<u128> {
        match v {
            Value::Concrete { bits, .. } => Ok(*bits),
            Value::Symbolic(e) => {
                if let Some(w) = self.witness(state) {
                    self.guided.solver_calls_avoided += 1;
                    return Ok(expr::eval(e, &w));
                }
                self.solver
                    .get_value(&state.constraints, e)
                    .map_err(|err| self.solver_error(state, err))
            }
        }
    }

    // ---- frames -------------------------------------------------------------

    pub(crate) fn push_frame(
        &mut self,
        state: &mut State,
        func: FuncId,
        args: Vec<Value>,
        ret_dst: Option<Reg>,
        call_site: Option<InstId>,
    ) -> Exec<()> {
        let module = self.module.clone();
        let f = module.func(func);
        let Some(body) = &f.body else {
            return Err(self.error(
                state,
                ErrorKind::External,
                format!("no body for `{}`", f.name),
            ));
        };
        let mut regs: Vec<Value> = body
            .reg_widths
            .iter()
            .map(|w| Value::concrete(0, (*w).max(1)))
            .collect();
        let nparams = f.params.len();
        for (i, a) in args.iter().take(nparams).enumerate() {
            regs[i] = a.clone();
        }
        let mut varargs = None;
        if f.is_vararg {
            let extra = &args[nparams.min(args.len())..];
            let mut size = 0u64;
            for a in extra {
                size += if a.width() > 64 { 16 } else { 8 };
            }
            let addr = state.reserve(size, true);
            let mut obj = ObjectState::zeroed(size);
            let mut off = 0u64;
            for a in extra {
                let slot = if a.width() > 64 { 16 } else { 8 };
                let bytes = a.width().div_ceil(8);
                let v = if a.width() % 8 != 0 {
                    self.resize(a, bytes * 8, false)
                } else {
                    a.clone()
                };
                obj.write(off, bytes, &v);
                off += slot;
            }
            state.memory.insert(
                MemoryObject {
                    address: addr,
                    size,
                    kind: AllocKind::Stack,
                    name: format!("varargs of {}", f.name),
                    site: None,
                    read_only: false,
                },
                obj,
            );
            varargs = Some(addr);
        }
        let entry = body.block(BlockId(0)).body_start;
        self.enter_block(state, func, BlockId(0));
        state.stack.push(Frame {
            func,
            regs,
            pc: entry,
            allocas: varargs.into_iter().collect(),
            ret_dst,
            call_site,
            varargs,
        });
        Ok(())
    }

    /// Returns from the current frame with an optional value.
    pub(crate) fn return_from(&mut self, state: &mut State, value: Option<Value>) -> Exec<()> {
        let frame = state.stack.pop().expect("a running state has a frame");
        for a in &frame.allocas {
            state.memory.remove(*a);
        }
        match state.stack.last_mut() {
            None => {
                let status = value.unwrap_or(Value::concrete(0, 32));
                Err(Flow::End(PathEnd::Completed { status }))
            }
            Some(caller) => {
                if let (Some(dst), Some(v)) = (frame.ret_dst, value) {
                    caller.regs[dst.index()] = v;
                }
                let (f, pc) = (caller.func, caller.pc);
                if let Some(b) = self
                    .module
                    .func(f)
                    .body
                    .as_ref()
                    .and_then(|b| b.block_of.get(pc.index()))
                {
                    self.enter_block(state, f, *b);
                }
                Ok(())
            }
        }
    }

    // ---- values -------------------------------------------------------------

    #[inline]
    fn operand(&self, frame: &Frame, op: Operand) -> Value {
        match op {
            Operand::Reg(r) => frame.regs[r.index()].clone(),
            Operand::Const(c) => self.consts[c.index()].clone(),
        }
    }

    /// Truncates or extends a value to `width` bits.
    pub(crate) fn resize(&self, v: &Value, width: u32, signed: bool) -> Value {
        let from = v.width();
        if from == width {
            return v.clone();
        }
        let op = if width < from {
            CastOp::Trunc
        } else if signed {
            CastOp::SExt
        } else {
            CastOp::ZExt
        };
        cast_value(op, width, v)
    }

    // ---- the instruction loop -----------------------------------------------

    fn execute(&mut self, module: &Module, state: &mut State) -> Exec<()> {
        let frame = state.stack.last().expect("a running state has a frame");
        let func = frame.func;
        let pc = frame.pc;
        let body = module
            .func(func)
            .body
            .as_ref()
            .expect("frames run defined functions");
        let inst = &body.insts[pc.index()];
        self.instructions += 1;
        state.instructions += 1;
        state.since_new_cover += 1;
        let cov = &mut self.covered[func.index()][pc.index()];
        if !*cov {
            *cov = true;
            self.covered_count += 1;
            state.since_new_cover = 0;
            if self.target_hit_queries.is_none() && self.targets.contains(&(func, pc)) {
                self.target_hit_queries = Some(self.solver.stats().queries);
            }
        }
        match inst {
            Inst::Binary {
                op,
                width,
                lhs,
                rhs,
                dst,
                site,
            } => {
                let a = self.operand(state.frame(), *lhs);
                let b = self.operand(state.frame(), *rhs);
                let v = self.binary(state, *op, *width, a, b, *site)?;
                self.set_and_advance(state, *dst, v);
            }
            Inst::ICmp {
                pred,
                width,
                lhs,
                rhs,
                dst,
            } => {
                let a = self.operand(state.frame(), *lhs);
                let b = self.operand(state.frame(), *rhs);
                let v = match (&a, &b) {
                    (Value::Concrete { bits: x, .. }, Value::Concrete { bits: y, .. }) => {
                        Value::bool(semantics::icmp(*pred, *width, *x, *y))
                    }
                    _ => Value::from_expr(expr::icmp(*pred, &a.to_expr(), &b.to_expr())),
                };
                self.set_and_advance(state, *dst, v);
            }
            Inst::FBinary {
                op,
                ty,
                lhs,
                rhs,
                dst,
            } => {
                let [x, y] = self.float_operands(state, [*lhs, *rhs])?;
                let v = super::float::binary(*op, *ty, x, y);
                self.set_and_advance(state, *dst, v);
            }
            Inst::FNeg { ty, src, dst } => {
                let [x] = self.float_operands(state, [*src])?;
                let v = super::float::neg(*ty, x);
                self.set_and_advance(state, *dst, v);
            }
            Inst::FCmp {
                pred,
                ty,
                lhs,
                rhs,
                dst,
            } => {
                let [x, y] = self.float_operands(state, [*lhs, *rhs])?;
                let v = Value::bool(super::float::compare(*pred, *ty, x, y));
                self.set_and_advance(state, *dst, v);
            }
            Inst::Cast {
                op, to, src, dst, ..
            } => {
                let v = self.operand(state.frame(), *src);
                let v = cast_value(*op, *to, &v);
                self.set_and_advance(state, *dst, v);
            }
            Inst::FCast {
                op,
                float,
                to_float,
                int_width,
                src,
                dst,
            } => {
                let [x] = self.float_operands(state, [*src])?;
                let v = super::float::convert(*op, *float, *to_float, *int_width, x);
                self.set_and_advance(state, *dst, v);
            }
            Inst::Select {
                cond,
                then_val,
                else_val,
                dst,
                ..
            } => {
                let c = self.operand(state.frame(), *cond);
                let t = self.operand(state.frame(), *then_val);
                let e = self.operand(state.frame(), *else_val);
                let v = match c.as_concrete() {
                    Some(1) => t,
                    Some(_) => e,
                    None => {
                        Value::from_expr(expr::select(&c.to_expr(), &t.to_expr(), &e.to_expr()))
                    }
                };
                self.set_and_advance(state, *dst, v);
            }
            Inst::Phi { .. } => {
                // Phis are evaluated on entry to their block; reaching one means
                // the block was entered at its first instruction.
                state.frame_mut().pc = InstId(pc.0 + 1);
            }
            Inst::Alloca {
                dst,
                elem_size,
                count,
                count_width: _,
                align: _,
            } => {
                let n = self.operand(state.frame(), *count);
                let n = self.concretize(state, &n)? as u64;
                let size = elem_size.saturating_mul(n);
                let addr = state.reserve(size, true);
                state.memory.insert(
                    MemoryObject {
                        address: addr,
                        size,
                        kind: AllocKind::Stack,
                        name: format!("alloca in {}", module.func(func).name),
                        site: Some((func, pc)),
                        read_only: false,
                    },
                    ObjectState::zeroed(size),
                );
                state.frame_mut().allocas.push(addr);
                self.set_and_advance(state, *dst, Value::concrete(addr as u128, 64));
            }
            Inst::Load {
                dst,
                addr,
                width,
                bytes,
                site,
            } => {
                let a = self.operand(state.frame(), *addr);
                let v = self.load(state, &a, *bytes, *width, Some(*site))?;
                self.set_and_advance(state, *dst, v);
            }
            Inst::Store {
                value,
                addr,
                bytes,
                site,
                ..
            } => {
                let a = self.operand(state.frame(), *addr);
                let v = self.operand(state.frame(), *value);
                self.store(state, &a, *bytes, &v, Some(*site))?;
                state.frame_mut().pc = InstId(pc.0 + 1);
            }
            Inst::Gep {
                dst,
                base,
                offset,
                indices,
            } => {
                let b = self.operand(state.frame(), *base);
                let mut acc = match b {
                    Value::Concrete { bits, .. } => {
                        Value::concrete((bits as u64).wrapping_add(*offset as u64) as u128, 64)
                    }
                    v => add_values(&v, &Value::concrete(*offset as u64 as u128, 64)),
                };
                for ix in indices {
                    let i = self.operand(state.frame(), ix.value);
                    let i = self.resize(&i, 64, true);
                    let scaled = mul_values(&i, &Value::concrete(ix.scale as u128, 64));
                    acc = add_values(&acc, &scaled);
                }
                self.set_and_advance(state, *dst, acc);
            }
            Inst::ExtractValue {
                dst,
                agg,
                offset,
                width,
            } => {
                let a = self.operand(state.frame(), *agg);
                let v = match a {
                    Value::Concrete { bits, .. } => Value::concrete(bits >> offset, *width),
                    Value::Symbolic(e) => Value::from_expr(expr::extract(&e, *offset, *width)),
                };
                self.set_and_advance(state, *dst, v);
            }
            Inst::InsertValue {
                dst,
                agg,
                agg_width,
                elem,
                offset,
                width,
            } => {
                let a = self.operand(state.frame(), *agg);
                let e = self.operand(state.frame(), *elem);
                let v = insert_bits(&a, *agg_width, &e, *offset, *width);
                self.set_and_advance(state, *dst, v);
            }
            Inst::Br { target } => {
                self.jump(module, state, *target);
            }
            Inst::CondBr {
                cond,
                then_bb,
                else_bb,
                site,
            } => {
                let c = self.operand(state.frame(), *cond);
                let target = match c {
                    Value::Concrete { bits, .. } => {
                        if bits != 0 {
                            *then_bb
                        } else {
                            *else_bb
                        }
                    }
                    Value::Symbolic(e) => {
                        let (alt, _) =
                            self.fork(state, *site, &[e.clone(), expr::not(&e)], &[0, 0])?;
                        if alt == 0 {
                            *then_bb
                        } else {
                            *else_bb
                        }
                    }
                };
                self.jump(module, state, target);
            }
            Inst::Switch {
                cond,
                width,
                cases,
                default,
                site,
            } => {
                let c = self.operand(state.frame(), *cond);
                let target = match c {
                    Value::Concrete { bits, .. } => cases
                        .iter()
                        .find(|(v, _)| *v == bits)
                        .map(|(_, b)| *b)
                        .unwrap_or(*default),
                    Value::Symbolic(e) => {
                        let targets = switch_alternatives(cases, *default);
                        // A case target's condition: any of its values.
                        let mut of_target: Vec<Option<ExprRef>> = vec![None; targets.len() - 1];
                        let mut none = expr::bool_const(true);
                        for (v, b) in cases {
                            let is = expr::eq(&e, &expr::constant(*v, *width));
                            none = expr::and(&none, &expr::not(&is));
                            let k = targets
                                .iter()
                                .position(|t| t == b)
                                .expect("every case target is an alternative");
                            of_target[k] = Some(match of_target[k].take() {
                                Some(c) => expr::or(&c, &is),
                                None => is,
                            });
                        }
                        let mut conds: Vec<ExprRef> = of_target.into_iter().flatten().collect();
                        conds.push(none);
                        let payloads: Vec<u64> = (0..targets.len() as u64).collect();
                        let (alt, _) = self.fork(state, *site, &conds, &payloads)?;
                        targets[alt]
                    }
                };
                self.jump(module, state, target);
            }
            Inst::Ret { value } => {
                let v = value.map(|op| self.operand(state.frame(), op));
                self.return_from(state, v)?;
            }
            Inst::Unreachable => {
                return Err(self.error(
                    state,
                    ErrorKind::Unreachable,
                    "reached an `unreachable` instruction",
                ));
            }
            Inst::Call {
                dst,
                ret_width,
                callee,
                args,
                site,
            } => {
                self.call(module, state, *dst, *ret_width, *callee, args, *site)?;
            }
            Inst::Intrinsic {
                kind,
                dst,
                width,
                args,
            } => {
                let args: Vec<Value> = args
                    .iter()
                    .map(|a| self.operand(state.frame(), *a))
                    .collect();
                let v = self.intrinsic(state, *kind, *width, &args)?;
                let fr = state.frame_mut();
                if let (Some(d), Some(v)) = (dst, v) {
                    fr.regs[d.index()] = v;
                }
                fr.pc = InstId(pc.0 + 1);
            }
            Inst::Unsupported { what } => {
                return Err(self.error(state, ErrorKind::Unsupported, what.clone()));
            }
        }
        Ok(())
    }

    /// The operands of a float operation, which mnemo computes concretely
    /// only: a symbolic one ends the path.
    fn float_operands<const N: usize>(&self, state: &State, ops: [Operand; N]) -> Exec<[u128; N]> {
        let mut out = [0u128; N];
        for (slot, op) in out.iter_mut().zip(ops) {
            match self.operand(state.frame(), op) {
                Value::Concrete { bits, .. } => *slot = bits,
                Value::Symbolic(_) => {
                    return Err(self.error(
                        state,
                        ErrorKind::Unsupported,
                        "unsupported: symbolic floating point",
                    ));
                }
            }
        }
        Ok(out)
    }

    #[inline]
    fn set_and_advance(&self, state: &mut State, dst: Reg, v: Value) {
        let fr = state.frame_mut();
        fr.regs[dst.index()] = v;
        fr.pc = InstId(fr.pc.0 + 1);
    }

    /// Enters `target`, evaluating its phis together from the incoming block.
    fn jump(&self, module: &Module, state: &mut State, target: BlockId) {
        let func = state.frame().func;
        self.enter_block(state, func, target);
        let fr = state.stack.last_mut().expect("a running state has a frame");
        let body = module
            .func(fr.func)
            .body
            .as_ref()
            .expect("frames run defined functions");
        let from = body.block_of[fr.pc.index()];
        let block = body.block(target);
        if block.first != block.body_start {
            let mut values = Vec::with_capacity((block.body_start.0 - block.first.0) as usize);
            for i in block.first.0..block.body_start.0 {
                if let Inst::Phi {
                    dst,
                    incoming,
                    width,
                } = &body.insts[i as usize]
                {
                    let v = incoming
                        .iter()
                        .find(|(b, _)| *b == from)
                        .map(|(_, op)| self.operand(fr, *op))
                        .unwrap_or(Value::concrete(0, *width));
                    values.push((*dst, v));
                }
            }
            for (dst, v) in values {
                fr.regs[dst.index()] = v;
            }
        }
        fr.pc = block.body_start;
    }

    fn binary(
        &mut self,
        state: &mut State,
        op: BinOp,
        width: u32,
        a: Value,
        b: Value,
        site: Option<SiteId>,
    ) -> Exec<Value> {
        if let (Value::Concrete { bits: x, .. }, Value::Concrete { bits: y, .. }) = (&a, &b) {
            if semantics::is_checked(op) {
                if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem) && *y == 0 {
                    return Err(self.error(state, ErrorKind::DivByZero, "division by zero"));
                }
                if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr) && *y >= width as u128 {
                    return Err(self.error(
                        state,
                        ErrorKind::Overshift,
                        format!("shift by {y} of a {width}-bit value"),
                    ));
                }
            }
            return Ok(Value::concrete(semantics::binary(op, width, *x, *y), width));
        }
        let (ea, eb) = (a.to_expr(), b.to_expr());
        if semantics::is_checked(op) {
            let (bad, kind, msg) = match op {
                BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem => (
                    expr::eq(&eb, &expr::constant(0, width)),
                    ErrorKind::DivByZero,
                    "division by zero".to_string(),
                ),
                _ => (
                    expr::uge(&eb, &expr::constant(width as u128, width)),
                    ErrorKind::Overshift,
                    format!("shift amount may be {width} or more"),
                ),
            };
            if !bad.is_false() {
                let site = site.unwrap_or(SiteId(u32::MAX));
                let (alt, _) = self.fork(state, site, &[expr::not(&bad), bad], &[0, 0])?;
                if alt == 1 {
                    return Err(self.error(state, kind, msg));
                }
            }
        }
        Ok(Value::from_expr(expr::binary(op, &ea, &eb)))
    }

    // ---- memory -------------------------------------------------------------

    /// Resolves an access of `bytes` bytes at `addr` to an object's base and
    /// the offset within it, forking when a symbolic pointer may reach
    /// several objects or none.
    pub(crate) fn resolve(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u64,
        site: Option<SiteId>,
    ) -> Exec<(u64, Value)> {
        match addr {
            Value::Concrete { bits, .. } => {
                let a = *bits as u64;
                match state.memory.find(a) {
                    Some(e) if a - e.object.address + bytes <= e.object.size => Ok((
                        e.object.address,
                        Value::concrete((a - e.object.address) as u128, 64),
                    )),
                    Some(e) => {
                        let msg = format!(
                            "out-of-bounds access: {} bytes at offset {} of `{}` ({} bytes)",
                            bytes,
                            a - e.object.address,
                            e.object.name,
                            e.object.size
                        );
                        Err(self.error(state, ErrorKind::Ptr, msg))
                    }
                    None => Err(self.bad_address(state, a, bytes)),
                }
            }
            Value::Symbolic(p) => {
                let p = p.clone();
                let site = site.unwrap_or(SiteId(u32::MAX));
                let payload = self.choose_target(
                    state,
                    site,
                    |ex, st| ex.pointer_targets(st, &p, bytes),
                    |st, payloads| {
                        recorded_conditions(payloads, |base| match st.memory.get(base) {
                            Some(e) => in_bounds(&p, base, e.object.size, bytes),
                            None => expr::bool_const(false),
                        })
                    },
                )?;
                if payload == NO_TARGET {
                    let v = self.example(state, &Value::Symbolic(p.clone()))? as u64;
                    return Err(self.bad_address(state, v, bytes));
                }
                let offset = expr::sub(&p, &expr::constant(payload as u128, 64));
                Ok((payload, Value::from_expr(offset)))
            }
        }
    }

    /// Picks the target of a symbolic pointer: the forced one when the state
    /// replays a fork; on a guided prefix, one of the recorded targets
    /// (`rebuild` gives their conditions); else one of the alternatives
    /// `targets` finds, forking when there are several.
    fn choose_target(
        &mut self,
        state: &mut State,
        site: SiteId,
        targets: impl FnOnce(&mut Self, &State) -> Exec<(Vec<ExprRef>, Vec<u64>)>,
        rebuild: impl FnOnce(&State, &[u64]) -> Vec<ExprRef>,
    ) -> Exec<u64> {
        if state.forced.is_some() {
            return Ok(self.fork(state, site, &[], &[])?.1);
        }
        if let Some((alts, next)) = self.recorded_alternatives(state, site, None)? {
            let payloads: Vec<u64> = alts.iter().map(|a| a.payload).collect();
            let conds = rebuild(state, &payloads);
            let point = self.point_at(state, site, alts);
            return Ok(self.take_alternatives(state, point, &conds, &next, true)?.1);
        }
        let (conds, payloads) = targets(self, state)?;
        Ok(self.fork(state, site, &conds, &payloads)?.1)
    }

    /// The objects an access of `bytes` bytes at `p` may fall into, one
    /// alternative each, found one model at a time; then, if the access may
    /// also fall outside all of them, the error alternative (`NO_TARGET`).
    ///
    /// Each model excludes a region from the next search: the object it hit
    /// or the gap between objects it fell into, so every object the pointer
    /// can reach is found even when wild values come first.
    fn pointer_targets(
        &mut self,
        state: &State,
        p: &ExprRef,
        bytes: u64,
    ) -> Exec<(Vec<ExprRef>, Vec<u64>)> {
        let mut conds: Vec<ExprRef> = Vec::new();
        let mut payloads: Vec<u64> = Vec::new();
        let mut unexplored = expr::bool_const(true);
        let mut outside = expr::bool_const(true);
        let mut error_possible = false;
        // Set when the search ends with regions left unexplored: they count
        // as the error side.
        let mut exhausted = true;
        for _ in 0..MAX_POINTER_SEARCH {
            match self.solver.may_be_true(&state.constraints, &unexplored) {
                Ok(true) => {}
                Ok(false) => {
                    exhausted = false;
                    break;
                }
                Err(e) => return Err(self.solver_error(state, e)),
            }
            let mut cs = (*state.constraints).clone();
            cs.push(unexplored.clone());
            let v = match self.solver.get_value(&cs, p) {
                Ok(v) => v as u64,
                Err(e) => return Err(self.solver_error(state, e)),
            };
            let region = match state.memory.find(v) {
                Some(e) => {
                    let (base, size) = (e.object.address, e.object.size);
                    let inside = in_bounds(p, base, size, bytes);
                    if !inside.is_false() && payloads.len() < MAX_POINTER_TARGETS {
                        outside = expr::and(&outside, &expr::not(&inside));
                        conds.push(inside.clone());
                        payloads.push(base);
                    } else {
                        error_possible = true;
                    }
                    let starts_in = in_bounds(p, base, size, 1);
                    if starts_in != inside {
                        // It may also start inside and run past the end.
                        error_possible = true;
                    }
                    starts_in
                }
                None => {
                    error_possible = true;
                    let (lo, hi) = state.memory.gap_around(v);
                    let off = expr::sub(p, &expr::constant(lo as u128, 64));
                    expr::ult(&off, &expr::constant((hi - lo) as u128, 64))
                }
            };
            unexplored = expr::and(&unexplored, &expr::not(&region));
        }
        if error_possible || exhausted || conds.is_empty() {
            conds.push(outside);
            payloads.push(NO_TARGET);
        }
        Ok(by_target(conds, payloads))
    }

    fn bad_address(&self, state: &State, a: u64, bytes: u64) -> Flow {
        if a < NULL_PAGE {
            return self.error(
                state,
                ErrorKind::Null,
                format!("null pointer access ({bytes} bytes at {a:#x})"),
            );
        }
        if let Some(o) = state.memory.find_freed(a) {
            return self.error(
                state,
                ErrorKind::UseAfterFree,
                format!("use after free of `{}` at {a:#x}", o.name),
            );
        }
        self.error(
            state,
            ErrorKind::Ptr,
            format!("access to {bytes} bytes at {a:#x}, which is in no object"),
        )
    }

    pub(crate) fn load(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u32,
        width: u32,
        site: Option<SiteId>,
    ) -> Exec<Value> {
        let (base, offset) = self.resolve(state, addr, bytes as u64, site)?;
        let entry = state.memory.get(base).expect("resolved objects are live");
        Ok(match offset {
            Value::Concrete { bits, .. } => entry.state.read(bits as u64, bytes, width),
            Value::Symbolic(off) => entry.state.read_symbolic(&off, bytes, width),
        })
    }

    pub(crate) fn store(
        &mut self,
        state: &mut State,
        addr: &Value,
        bytes: u32,
        value: &Value,
        site: Option<SiteId>,
    ) -> Exec<()> {
        let (base, offset) = self.resolve(state, addr, bytes as u64, site)?;
        let entry = state.memory.get(base).expect("resolved objects are live");
        if entry.object.read_only {
            let name = entry.object.name.clone();
            return Err(self.error(
                state,
                ErrorKind::ReadOnly,
                format!("write into read-only `{name}`"),
            ));
        }
        let value = if value.width() < bytes * 8 {
            self.resize(value, bytes * 8, false)
        } else {
            value.clone()
        };
        let obj = state
            .memory
            .state_mut(base)
            .expect("resolved objects are live");
        match offset {
            Value::Concrete { bits, .. } => obj.write(bits as u64, bytes, &value),
            Value::Symbolic(off) => obj.write_symbolic(&off, bytes, &value),
        }
        Ok(())
    }

    /// Reads a NUL-terminated string at a concrete address (symbolic bytes as '?').
    pub(crate) fn read_c_string(&mut self, state: &mut State, addr: &Value) -> Exec<String> {
        let a = self.concretize(state, addr)? as u64;
        let mut out = Vec::new();
        loop {
            let Some(e) = state.memory.find(a + out.len() as u64) else {
                return Err(self.bad_address(state, a + out.len() as u64, 1));
            };
            let off = a + out.len() as u64 - e.object.address;
            match e.state.byte(off) {
                super::value::Byte::Concrete(0) => break,
                super::value::Byte::Concrete(b) => out.push(b),
                super::value::Byte::Symbolic(_) => out.push(b'?'),
            }
            if out.len() > 1 << 16 {
                break;
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    // ---- calls --------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    fn call(
        &mut self,
        module: &Module,
        state: &mut State,
        dst: Option<Reg>,
        ret_width: Option<u32>,
        callee: Callee,
        args: &[Arg],
        site: SiteId,
    ) -> Exec<()> {
        let target = match callee {
            Callee::Direct(f) => f,
            Callee::Indirect(op) => {
                let p = self.operand(state.frame(), op);
                self.resolve_function(state, &p, site)?
            }
        };
        let f = module.func(target);
        let values: Vec<Value> = args
            .iter()
            .map(|a| self.operand(state.frame(), a.value))
            .collect();
        let pc = state.frame().pc;
        if f.body.is_some() {
            if values.len() < f.params.len() || (!f.is_vararg && values.len() != f.params.len()) {
                return Err(self.error(
                    state,
                    ErrorKind::BadCall,
                    format!(
                        "call of `{}` with {} arguments; it takes {}",
                        f.name,
                        values.len(),
                        f.params.len()
                    ),
                ));
            }
            state.frame_mut().pc = InstId(pc.0 + 1);
            return self.push_frame(state, target, values, dst, Some(pc));
        }
        let Some(native) = self.natives[target.index()] else {
            self.unsupported_externals.insert(f.name.clone());
            return Err(self.error(
                state,
                ErrorKind::External,
                format!("unsupported external call {}", f.name),
            ));
        };
        let result = self.call_native(state, native, &f.name, &values, ret_width)?;
        let fr = state.frame_mut();
        if let (Some(d), Some(v)) = (dst, result) {
            fr.regs[d.index()] = v;
        }
        fr.pc = InstId(pc.0 + 1);
        Ok(())
    }

    /// The function a pointer calls, forking over the functions a symbolic
    /// pointer may name (a null or non-function target is an error path).
    fn resolve_function(&mut self, state: &mut State, p: &Value, site: SiteId) -> Exec<FuncId> {
        let nfuncs = self.module.functions.len();
        let addr = match p {
            Value::Concrete { bits, .. } => *bits as u64,
            Value::Symbolic(e) => {
                let e = e.clone();
                let payload = self.choose_target(
                    state,
                    site,
                    |ex, st| ex.function_targets(st, &e, nfuncs),
                    |_, payloads| {
                        recorded_conditions(payloads, |v| {
                            expr::eq(&e, &expr::constant(v as u128, 64))
                        })
                    },
                )?;
                if payload == NO_TARGET {
                    self.example(state, p)? as u64
                } else {
                    payload
                }
            }
        };
        match function_at(addr, nfuncs) {
            Some(f) => Ok(f),
            None if addr < NULL_PAGE => Err(self.error(
                state,
                ErrorKind::Null,
                "call through a null function pointer",
            )),
            None => Err(self.error(
                state,
                ErrorKind::BadCall,
                format!("call through {addr:#x}, which is not a function"),
            )),
        }
    }

    /// The functions a symbolic pointer may name, one alternative each, then
    /// the error alternative if it may also be anything else.
    fn function_targets(
        &mut self,
        state: &State,
        e: &ExprRef,
        nfuncs: usize,
    ) -> Exec<(Vec<ExprRef>, Vec<u64>)> {
        let span = expr::constant(16 * nfuncs as u128, 64);
        let off = expr::sub(e, &expr::constant(function_address(FuncId(0)) as u128, 64));
        let aligned = expr::eq(
            &expr::binary(BinOp::And, &off, &expr::constant(15, 64)),
            &expr::constant(0, 64),
        );
        let is_function = expr::and(&expr::ult(&off, &span), &aligned);
        let mut conds = Vec::new();
        let mut payloads = Vec::new();
        let mut outside = expr::bool_const(true);
        while conds.len() < MAX_POINTER_TARGETS {
            let candidate = expr::and(&outside, &is_function);
            match self.solver.may_be_true(&state.constraints, &candidate) {
                Ok(true) => {}
                Ok(false) => break,
                Err(err) => return Err(self.solver_error(state, err)),
            }
            let mut cs = (*state.constraints).clone();
            cs.push(candidate);
            let v = match self.solver.get_value(&cs, e) {
                Ok(v) => v as u64,
                Err(err) => return Err(self.solver_error(state, err)),
            };
            let is = expr::eq(e, &expr::constant(v as u128, 64));
            outside = expr::and(&outside, &expr::not(&is));
            conds.push(is);
            payloads.push(v);
        }
        // Anything else: a null or non-function pointer (the fork checks it is feasible).
        conds.push(outside);
        payloads.push(NO_TARGET);
        Ok(by_target(conds, payloads))
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
        state.symbolics.push(super::state::Symbolic {
            name: name.to_string(),
            array: array.clone(),
        });
        array
    }

    /// The bytes of a freshly allocated heap object.
    pub(crate) fn allocate(
        &mut self,
        state: &mut State,
        size: u64,
        kind: AllocKind,
        name: &str,
    ) -> u64 {
        let addr = state.reserve(size, kind == AllocKind::Stack);
        let (func, pc) = (state.frame().func, state.frame().pc);
        state.memory.insert(
            MemoryObject {
                address: addr,
                size,
                kind,
                name: name.to_string(),
                site: Some((func, pc)),
                read_only: false,
            },
            ObjectState::zeroed(size),
        );
        addr
    }
}

/// The alternatives of a pointer fork in address order (the error
/// alternative, `NO_TARGET`, last). The targets are found one solver model
/// at a time, and which model comes first depends on what the solver was
/// asked before (its caches), so on the order the searcher ran the paths
/// in; numbering the alternatives by the order they were found would give
/// the same fork other alternative indices in another run, and the trie of
/// a resumed or deepened run would differ from a fresh one's.
fn by_target(conds: Vec<ExprRef>, payloads: Vec<u64>) -> (Vec<ExprRef>, Vec<u64>) {
    let mut pairs: Vec<(u64, ExprRef)> = payloads.into_iter().zip(conds).collect();
    pairs.sort_by_key(|(payload, _)| *payload);
    pairs.into_iter().map(|(p, c)| (c, p)).unzip()
}

/// The conditions of a memory or call fork's recorded alternatives, built
/// as the search for targets built them: `is(payload)` for each target,
/// and for the error side (`NO_TARGET`) none of the targets before it.
fn recorded_conditions(payloads: &[u64], mut is: impl FnMut(u64) -> ExprRef) -> Vec<ExprRef> {
    let mut conds = Vec::with_capacity(payloads.len());
    let mut outside = expr::bool_const(true);
    for &payload in payloads {
        if payload == NO_TARGET {
            conds.push(outside.clone());
            continue;
        }
        let c = is(payload);
        outside = expr::and(&outside, &expr::not(&c));
        conds.push(c);
    }
    conds
}

/// `base <= p && p + bytes <= base + size`, as one unsigned range check.
fn in_bounds(p: &ExprRef, base: u64, size: u64, bytes: u64) -> ExprRef {
    if bytes > size {
        return expr::bool_const(false);
    }
    let off = expr::sub(p, &expr::constant(base as u128, 64));
    expr::ule(&off, &expr::constant((size - bytes) as u128, 64))
}

pub(crate) fn cast_value(op: CastOp, to: u32, v: &Value) -> Value {
    match v {
        Value::Concrete { bits, width } => {
            Value::concrete(semantics::cast(op, *width, to, *bits), to)
        }
        Value::Symbolic(e) => {
            let from = e.width();
            Value::from_expr(match op {
                _ if from == to => e.clone(),
                CastOp::SExt if to > from => expr::sext(e, to),
                _ if to > from => expr::zext(e, to),
                _ => expr::extract(e, 0, to),
            })
        }
    }
}

pub(crate) fn add_values(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Concrete { bits: x, width }, Value::Concrete { bits: y, .. }) => {
            Value::concrete(semantics::binary(BinOp::Add, *width, *x, *y), *width)
        }
        _ => Value::from_expr(expr::add(&a.to_expr(), &b.to_expr())),
    }
}

pub(crate) fn mul_values(a: &Value, b: &Value) -> Value {
    match (a, b) {
        (Value::Concrete { bits: x, width }, Value::Concrete { bits: y, .. }) => {
            Value::concrete(semantics::binary(BinOp::Mul, *width, *x, *y), *width)
        }
        _ => Value::from_expr(expr::mul(&a.to_expr(), &b.to_expr())),
    }
}

/// Writes `elem` at bit `offset` of an aggregate of `agg_width` bits.
fn insert_bits(agg: &Value, agg_width: u32, elem: &Value, offset: u32, width: u32) -> Value {
    if let (Value::Concrete { bits: a, .. }, Value::Concrete { bits: e, .. }) = (agg, elem) {
        let m = mask(width) << offset;
        return Value::concrete((a & !m) | ((e << offset) & m), agg_width);
    }
    let a = agg.to_expr();
    let mut acc = elem.to_expr();
    if offset > 0 {
        acc = expr::concat(&acc, &expr::extract(&a, 0, offset));
    }
    if offset + width < agg_width {
        acc = expr::concat(
            &expr::extract(&a, offset + width, agg_width - offset - width),
            &acc,
        );
    }
    Value::from_expr(acc)
}
