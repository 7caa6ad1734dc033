//! Composition at call sites (the paper's Algorithms 2 and 3): the
//! callee's recorded paths are carried over to the call's arguments, the
//! solver says which of them the caller's path allows, and the caller
//! replays the callee along those paths with the solver off, forking where
//! they part.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::summary::{conjunction, Leaf, LeafEnd, SharedSummary};
use super::Fallback;
use crate::exec::{CallComposer, ErrorKind, Executor, State, Value};
use crate::expr::{self, ArrayRef, Assignment, ExprRef};
use crate::ir::{FuncId, Module, Reg, SiteId, SourceLoc};

/// What the composer did, for `stats.json`.
#[derive(Clone, Debug, Default)]
pub struct CallCounts {
    /// Calls composed from a summary.
    pub composed: u64,
    /// Calls executed as usual, by reason (`Fallback::as_str`).
    pub executed: BTreeMap<&'static str, u64>,
    /// Recorded paths checked against a caller's path, and found feasible.
    pub paths_checked: u64,
    pub paths_feasible: u64,
    /// Heuristic H1: errors of a summary's paths reported at calls
    /// without replaying the callee.
    pub errors_reported: u64,
    /// Heuristic H2: a summary's paths left out at calls, as leading to no
    /// target, and caller's paths ended as no kept path was feasible.
    pub paths_pruned: u64,
    pub calls_pruned: u64,
}

/// A compositional run's heuristic at the calls it composes (ICSE 2015
/// §IV-E).
pub enum Directed {
    /// H1: a summary's error paths are checked first; one feasible at a
    /// call ends the caller's path with that error.
    Errors,
    /// H2: for each function (by `FuncId`) with a summary, which of its
    /// paths may lead to a target; only those are composed.
    Targets(Vec<Option<Arc<[bool]>>>),
}

/// The run's composer: the summaries by function, and why the others have
/// none.
pub struct Composer {
    summaries: Vec<Result<SharedSummary, Fallback>>,
    /// With a depth bound, a composed call would count the callee's
    /// choices as one: the run would cut other paths than a whole-program
    /// run. Calls are executed as usual then.
    depth_bounded: bool,
    directed: Option<Directed>,
    counts: Mutex<CallCounts>,
}

impl Composer {
    /// A composer over these summaries (`summaries[f]` for function `f`).
    pub fn new(summaries: Vec<Result<SharedSummary, Fallback>>, depth_bounded: bool) -> Composer {
        Composer {
            summaries,
            depth_bounded,
            directed: None,
            counts: Mutex::new(CallCounts::default()),
        }
    }

    /// The same composer, directed by a heuristic.
    pub fn directed(self, directed: Directed) -> Composer {
        Composer {
            directed: Some(directed),
            ..self
        }
    }

    /// The summaries, by function.
    pub fn summaries(&self) -> &[Result<SharedSummary, Fallback>] {
        &self.summaries
    }

    /// The counters so far.
    pub fn counts(&self) -> CallCounts {
        self.counts.lock().clone()
    }

    fn executed(&self, why: Fallback) -> crate::exec::Exec<bool> {
        *self.counts.lock().executed.entry(why.as_str()).or_default() += 1;
        Ok(false)
    }
}

impl CallComposer for Composer {
    fn at_call(
        &self,
        ex: &mut Executor,
        state: &mut State,
        callee: FuncId,
        args: &[Value],
        dst: Option<Reg>,
        site: SiteId,
    ) -> crate::exec::Exec<bool> {
        // A call inside a replayed callee is part of that replay.
        if Executor::is_replaying(state) {
            return Ok(false);
        }
        let summary = match self.summaries.get(callee.index()) {
            Some(Ok(s)) => s.clone(),
            Some(Err(why)) => return self.executed(*why),
            None => return self.executed(Fallback::NotReached),
        };
        if self.depth_bounded {
            return self.executed(Fallback::DepthBound);
        }
        if state.guide.is_some() {
            return self.executed(Fallback::Guided);
        }
        let parts = match super::heap::leaf_conditions(ex, state, &summary, args) {
            Ok(c) => c,
            Err(why) => return self.executed(why),
        };
        let conds: Vec<ExprRef> = parts.iter().map(|p| conjunction(p)).collect();
        // The model must give every array the callee's choices may read.
        let mut arrays = state.input_arrays();
        expr::arrays_in_all(&state.constraints, &mut arrays);
        expr::arrays_in_all(&conds, &mut arrays);
        arrays.sort_by_key(|a| Arc::as_ptr(a) as usize);
        arrays.dedup_by(|a, b| Arc::ptr_eq(a, b));
        arrays.retain(|a| a.init.is_none());
        // Which paths are asked about, in the order they are asked.
        let kept = match &self.directed {
            Some(Directed::Targets(kept)) => kept.get(callee.index()).cloned().flatten(),
            _ => None,
        };
        let errors_first = matches!(self.directed, Some(Directed::Errors));
        let is_error = |i: &usize| matches!(summary.leaves[*i].end, LeafEnd::Error { .. });
        let is_cut = |i: &usize| summary.leaves[*i].end == LeafEnd::Bound;
        let mut order: Vec<usize> = (0..conds.len())
            .filter(|i| kept.as_ref().is_none_or(|k| k.get(*i) != Some(&false)))
            .collect();
        // A path cut by the bound, feasible here, sends the call to be
        // executed: it is asked about before the paths whose models would
        // then go unused (after the errors H1 reports, which hold anyway).
        order.sort_by_key(|i| (!(errors_first && is_error(i)), !is_cut(i)));
        let pruned = (conds.len() - order.len()) as u64;
        let mut models = vec![None; conds.len()];
        let mut checked = 0u64;
        // The path's own model, where it has one, answers most questions
        // about conditions its inputs already meet.
        let mut prefixes = Prefixes::new(state.hint.clone());
        for &i in &order {
            checked += 1;
            if conds[i].is_false() {
                continue;
            }
            // Each condition of the path is asked about after the ones before
            // it, as a whole-program run forking through the callee would ask
            // (and the solver's caches match queries by their conjuncts).
            let leaf = &parts[i];
            match prefixes.feasible(ex, &state.constraints, leaf, &arrays) {
                Ok(true) => {}
                Ok(false) => continue,
                Err(e) => return Err(ex.solver_error(state, e)),
            }
            if is_cut(&i) {
                self.counts.lock().paths_checked += checked;
                return self.executed(Fallback::PastBound);
            }
            let model = match prefixes.model_of_all(&arrays) {
                Some(m) => Some(m),
                None => {
                    let mut cs = (*state.constraints).clone();
                    cs.extend(leaf.iter().cloned());
                    match ex.solver.get_model(&cs, &arrays) {
                        Ok(m) => m.map(Arc::new),
                        Err(e) => return Err(ex.solver_error(state, e)),
                    }
                }
            };
            if let Some(m) = &model {
                prefixes.set_model(m.clone());
            }
            if let (true, Some(_), LeafEnd::Error { kind, line }) =
                (errors_first, &model, &summary.leaves[i].end)
            {
                if let Some(kind) = ErrorKind::parse(kind) {
                    {
                        let mut counts = self.counts.lock();
                        counts.composed += 1;
                        counts.paths_checked += checked;
                        counts.paths_feasible += 1;
                        counts.errors_reported += 1;
                    }
                    let loc = line_in(ex.module(), callee, &summary.leaves[i], *line);
                    return ex.end_with_recorded_error(state, site, &conds, i, callee, (kind, loc));
                }
            }
            models[i] = model;
        }
        let feasible = models.iter().filter(|m| m.is_some()).count() as u64;
        if feasible == 0 && pruned > 0 {
            let mut counts = self.counts.lock();
            counts.paths_checked += checked;
            counts.paths_pruned += pruned;
            counts.calls_pruned += 1;
            drop(counts);
            return Executor::pruned_here();
        }
        if feasible == 0 {
            return self.executed(Fallback::NoFeasiblePath);
        }
        {
            let mut counts = self.counts.lock();
            counts.composed += 1;
            counts.paths_checked += checked;
            counts.paths_feasible += feasible;
            counts.paths_pruned += pruned;
        }
        ex.enter_replay(state, site, (callee, args.to_vec(), dst), models)
    }
}

/// Where a summary's path of `callee` ended in an error on `line`: an
/// instruction on that line in the callee, or in a function the path made
/// a choice in (a path keeps the line alone).
fn line_in(module: &Module, callee: FuncId, leaf: &Leaf, line: u32) -> Option<SourceLoc> {
    let mut funcs = vec![callee];
    funcs.extend(
        leaf.choices
            .iter()
            .filter_map(|c| module.func_by_name(&c.function)),
    );
    funcs.into_iter().find_map(|f| {
        let body = module.func(f).body.as_ref()?;
        body.locs.iter().flatten().find(|l| l.line == line).copied()
    })
}

/// The prefixes of a summary's path conditions, carried over to a call,
/// whose feasibility there is known. A summary's paths come from one tree:
/// neighbouring paths share the prefix of their conditions down to where
/// they parted, and a prefix the caller's path rules out rules out every
/// path below it, with one question to the solver (as a whole-program run
/// forking through the callee would ask it) rather than one per path.
struct Prefixes {
    /// The conditions of the last path asked about, each with whether the
    /// prefix up to it is feasible (an infeasible one is the last).
    known: Vec<(ExprRef, bool)>,
    /// A model of the caller's path and of the first `model_holds` of
    /// `known`: a condition it meets after them is feasible without a
    /// question.
    model: Option<Arc<Assignment>>,
    model_holds: usize,
}

impl Prefixes {
    /// No prefix known yet; `model`, if any, satisfies the caller's path.
    fn new(model: Option<Arc<Assignment>>) -> Prefixes {
        Prefixes {
            known: Vec::new(),
            model,
            model_holds: 0,
        }
    }

    /// Takes `model` (of the caller's path and of the whole of the last
    /// path asked about) for the questions that follow.
    fn set_model(&mut self, model: Arc<Assignment>) {
        self.model_holds = self.known.len();
        self.model = Some(model);
    }

    /// The model, when it meets the whole of the last path asked about
    /// and gives every array of `arrays`.
    fn model_of_all(&self, arrays: &[ArrayRef]) -> Option<Arc<Assignment>> {
        let m = self.model.as_ref()?;
        (self.model_holds == self.known.len() && arrays.iter().all(|a| m.contains(a)))
            .then(|| m.clone())
    }

    /// Whether every prefix of `condition` (a prefix of a path's, carried
    /// over to the call) may hold after `constraints`.
    fn feasible(
        &mut self,
        ex: &mut Executor,
        constraints: &[ExprRef],
        condition: &[ExprRef],
        arrays: &[ArrayRef],
    ) -> Result<bool, crate::solver::SolverError> {
        let shared = self
            .known
            .iter()
            .zip(condition)
            .take_while(|((known, _), c)| known == *c)
            .count();
        self.known.truncate(shared);
        self.model_holds = self.model_holds.min(shared);
        if self.known.last().is_some_and(|(_, ok)| !ok) {
            return Ok(false);
        }
        for c in &condition[shared..] {
            let by_model = self.model_holds == self.known.len()
                && self.model.as_ref().is_some_and(|m| expr::eval(c, m) != 0);
            let ok = match c.as_const() {
                Some(v) => v != 0,
                None if by_model => true,
                None => {
                    // Asked with a model, whose answer decides the
                    // conditions after this one as the caller's did. A
                    // model of what is asked before `c` keeps the bytes
                    // of the factors `c` does not touch, as a fork does.
                    let mut cs = constraints.to_vec();
                    cs.extend(self.known.iter().map(|(m, _)| m.clone()));
                    let known = self
                        .model
                        .as_deref()
                        .filter(|_| self.model_holds == self.known.len());
                    match ex.solver.model_where(&cs, c, arrays, known)? {
                        Some(m) => {
                            self.model = Some(Arc::new(m));
                            self.model_holds = self.known.len() + 1;
                            true
                        }
                        None => false,
                    }
                }
            };
            if by_model {
                self.model_holds += 1;
            }
            self.known.push((c.clone(), ok));
            if !ok {
                return Ok(false);
            }
        }
        Ok(true)
    }
}
