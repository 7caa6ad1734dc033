//! Choice points: forking a state over the ways an instruction can go, and
//! following a recorded run's alternatives instead of asking the solver.
//! The other questions an instruction asks of its path are in
//! `questions.rs`.
//!
//! Forking follows one rule that later features rely on: every fork happens
//! before an instruction has any effect, and each child is cloned at that
//! point with its alternative *forced*. When a child runs, it re-executes
//! the same instruction, the fork hands it its forced alternative without a
//! solver call, and the instruction completes for that alternative. A trie
//! replay feeds recorded alternatives in the same way.
//!
//! The rule lives in this one file so that every kind of fork (branches,
//! checks, assumptions, the targets of symbolic pointers) keeps it the same way.

use std::sync::Arc;

use super::end::{EarlyReason, ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow, NO_TARGET, UNLISTED};
use super::fork_share::SiteKey;
use super::guide::{Guidance, Next};
use super::questions::{among, inputs_of, reads_only, reads_only_pinned};
use super::state::{Alt, Answer, Decision, Forced, Point, State};
use crate::expr::{self, Assignment, ExprRef};
use crate::ir::{BlockId, Inst, SiteId};
use crate::solver::SolverError;

/// A recorded choice point's alternatives, and how to go on down each.
type Recorded = (Arc<[Alt]>, Vec<Next>);

/// Alternatives asked about again and found feasible, each with the model
/// that showed it (none on a path that keeps no model).
type Found = Vec<(usize, Option<Arc<Assignment>>)>;

/// Inputs up to which a path keeps a model of its own: past them (a loop
/// reading fresh input), the models of thousands of pending paths would
/// take gigabytes, and the solver answers feasibility alone again.
const MAX_MODEL_INPUTS: usize = 256;

/// Targets one fork over a symbolic pointer has at most: where it may reach
/// more, the fork's last alternative (`UNLISTED`) forks over the rest.
pub(super) const MAX_POINTER_TARGETS: usize = 16;

impl Executor {
    /// Forks `state` over mutually exclusive conditions that together cover
    /// every possibility, returning the alternative the state itself takes
    /// and its payload. Other feasible alternatives become children. The
    /// decision goes on the state's path; a guided state takes its
    /// alternatives from the recorded run instead of the solver. A branch
    /// names the block each alternative goes on to (`leads_to`, one per
    /// condition); other forks name none.
    pub(crate) fn fork(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        payloads: &[u64],
        leads_to: &[BlockId],
    ) -> Exec<(usize, u64)> {
        if let Some(f) = state.forced.take() {
            return Ok((f.alternative as usize, f.payload));
        }
        if let Some(taken) = self.replayed_choice(state, conds, payloads) {
            return taken;
        }
        if let Some(recorded) = self.recorded_alternatives(state, site, Some(conds.len()))? {
            // A lone alternative of a path that did not fork (asked not to)
            // is not implied by its condition: the others were not ruled out.
            let implied = !state.forking_off;
            return self.follow_recorded(state, site, conds, recorded, implied);
        }
        // A cut point taken up again forks here over what its path did not
        // explore, whatever the site's share. Its copy was made as the
        // instruction began, so this is its first fork.
        let explored = state
            .reopen
            .take()
            .filter(|r| r.site == site && (r.explored as usize) < conds.len())
            .map(|r| r.explored as usize);
        let key = SiteKey::new(state.frame().func, site);
        if explored.is_none()
            && conds.iter().filter(|c| c.as_const() != Some(0)).count() > 1
            && (state.forking_off || self.fork_share.forks_spent())
        {
            let taken = if state.forking_off {
                self.first_feasible(state, conds)?
            } else {
                let message =
                    "the run has made the forks --max-forks allows: paths go on without forking";
                if self.config.shared.first_saying(message) {
                    eprintln!("mnemo: warning: {message}");
                }
                self.model_way(state, conds)?
            };
            return self.follow_model(state, site, conds, payloads, taken, false);
        }
        if explored.is_none() && self.fork_share.past_share(key) {
            // The alternative the path's model satisfies: none without a
            // model (a path past `MAX_MODEL_INPUTS` keeps none).
            let taken = state
                .hint
                .as_ref()
                .and_then(|h| conds.iter().position(|c| expr::eval(c, h) != 0));
            if !self.opens_uncovered(key, taken, leads_to) {
                if let Some(taken) = taken {
                    return self.follow_model(state, site, conds, payloads, taken, true);
                }
            }
        }
        let mut alts = Vec::with_capacity(conds.len());
        let mut models = Vec::with_capacity(conds.len());
        let mut any_feasible = false;
        let keep_models = state.symbolics.len() <= MAX_MODEL_INPUTS;
        if !keep_models {
            state.hint = None;
        } else if state.hint.is_none() && conds.iter().filter(|c| !c.is_const()).count() > 1 {
            // A model of the path first (an easy query, or none at the
            // start): it decides one side without the condition, so only
            // the other side is asked, and a timeout there leaves the path
            // a side to go on with.
            let model = self.model(state).map_err(|e| self.solver_error(state, e))?;
            state.hint = Some(Arc::new(model));
        }
        // Alternatives whose query timed out while the path's model
        // vouches for another one (see `give_up_hard`).
        let mut timed_out = Vec::new();
        for (i, c) in conds.iter().enumerate() {
            let (answer, model) = match c.as_const() {
                Some(v) => (Answer::of(v != 0), state.hint.clone()),
                // The last alternative is feasible when no other one is,
                // since together they cover everything (and the path's
                // model, satisfying the path, satisfies it).
                None if i + 1 == conds.len() && !any_feasible => {
                    (Answer::Feasible, state.hint.clone())
                }
                None if state.hint.as_ref().is_some_and(|h| expr::eval(c, h) != 0) => {
                    self.solver.answered_by_path_model();
                    (Answer::Feasible, state.hint.clone())
                }
                // A seed taking this alternative shows it feasible.
                None if let Some(seed) = state.seed_meeting(c) => {
                    self.solver.answered_by_path_model();
                    (Answer::Feasible, Some(seed))
                }
                // The model does not satisfy it, and no other model differs
                // from it on what it reads: no path with these inputs
                // pinned takes it, though one without the pin might.
                None if state.hint.is_some() && reads_only_pinned(state, c) => {
                    self.solver.answered_by_path_model();
                    (Answer::Undecided, None)
                }
                None if keep_models => {
                    let known = state.hint.as_deref();
                    // With a model the path has a side to go on with: the
                    // solver gets less time for this one (a probe), and
                    // only the condition's factor is asked about.
                    let answer = match known {
                        Some(_) => {
                            let constraints = state.constraints_for(c);
                            self.solver
                                .probing(|s| s.model_where(constraints, c, &[], known))
                        }
                        None => {
                            let arrays = state.input_arrays();
                            self.solver
                                .model_where(&state.constraints, c, &arrays, known)
                        }
                    };
                    match answer {
                        Ok(model) => (answer_on(state, c, model.is_some()), model.map(Arc::new)),
                        Err(SolverError::Timeout)
                            if known.is_some() && !self.solver.at_deadline() =>
                        {
                            timed_out.push(i);
                            (Answer::Undecided, None)
                        }
                        Err(e) => return Err(self.solver_error(state, e)),
                    }
                }
                None => match self.solver.may_be_true(state.constraints_for(c), c) {
                    Ok(b) => (answer_on(state, c, b), None),
                    Err(e) => return Err(self.solver_error(state, e)),
                },
            };
            any_feasible |= answer == Answer::Feasible;
            alts.push(Alt {
                payload: payloads[i],
                answer,
            });
            models.push(model);
        }
        if !timed_out.is_empty() {
            let hard: Vec<ExprRef> = timed_out.iter().map(|&i| conds[i].clone()).collect();
            self.give_up_hard(state, &hard);
        }
        let point = self.point_at(state, site, alts.into());
        let mut next = vec![Next::Free; conds.len()];
        if let Some(e) = explored {
            next[e] = Next::Skip;
        }
        let before = self.forked.len();
        let taken = self.take_alternatives(state, point, conds, &next, true)?;
        self.fork_share
            .forked(key, (self.forked.len() - before) as u64);
        // Each path leaves with a model of its own path condition: its next
        // fork asks the solver about one side only, and a limit that stops
        // it finds its test already known.
        state.hint = models[taken.0].clone();
        state.hint_from_seed();
        for child in &mut self.forked[before..] {
            if let Some(f) = child.forced {
                child.hint = models[f.alternative as usize].clone();
            }
            child.hint_from_seed();
        }
        Ok(taken)
    }

    /// Takes the alternatives a guided state's recorded point has, after
    /// asking again about those the guide says to (`ask_again`).
    fn follow_recorded(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        (alts, mut next): Recorded,
        alone_implied: bool,
    ) -> Exec<(usize, u64)> {
        let (alts, found) = self.ask_again(state, conds, alts, &mut next)?;
        let point = self.point_at(state, site, alts);
        let before = self.forked.len();
        let taken = self.take_alternatives(state, point, conds, &next, alone_implied)?;
        // A path down an alternative found feasible now goes with the model
        // that showed it, if any: the recorded test's inputs, its hint so
        // far, do not take it.
        let model_of = |alt: usize| {
            found
                .iter()
                .find(|(i, _)| *i == alt)
                .map(|(_, m)| m.clone())
        };
        if let Some(model) = model_of(taken.0) {
            state.hint = model;
        }
        state.hint_from_seed();
        for child in &mut self.forked[before..] {
            if let Some(model) = child.forced.and_then(|f| model_of(f.alternative as usize)) {
                child.hint = model;
            }
            child.hint_from_seed();
        }
        Ok(taken)
    }

    /// Asks the solver again about the alternatives the guide says to
    /// (`Next::Ask`: undecided in the trie, `--retry-undecided`), each with
    /// its whole time limit. One found feasible is explored anew from here
    /// (it comes back with the model that showed it, when the path keeps
    /// models); one the solver still cannot decide stays undecided and
    /// untaken.
    ///
    /// Once one times out, a later one on the path that reads only inputs
    /// such timed-out ones read stays undecided without a query, as
    /// `give_up_hard` has the first run do: the alternatives below a given
    /// up hash are about the same hashed bytes (a printed CRC's digits),
    /// and each would take the whole timeout again.
    fn ask_again(
        &mut self,
        state: &mut State,
        conds: &[ExprRef],
        alts: Arc<[Alt]>,
        next: &mut [Next],
    ) -> Exec<(Arc<[Alt]>, Found)> {
        let mut found = Vec::new();
        if !next.contains(&Next::Ask) {
            return Ok((alts, found));
        }
        let mut alts = alts.to_vec();
        let arrays = state.input_arrays();
        for (i, c) in conds.iter().enumerate() {
            if next[i] != Next::Ask {
                continue;
            }
            next[i] = Next::Skip;
            if reads_only(c, &state.unanswered) {
                continue;
            }
            self.guided.asked_again += 1;
            // Whether it is feasible, and a model when the path keeps one.
            let answer = match c.as_const() {
                Some(v) => Ok((v != 0, None)),
                None if state.symbolics.len() <= MAX_MODEL_INPUTS => self
                    .solver
                    .model_where(&state.constraints, c, &arrays, None)
                    .map(|m| (m.is_some(), m)),
                None => self
                    .solver
                    .may_be_true(state.constraints_for(c), c)
                    .map(|b| (b, None)),
            };
            (alts[i].answer, next[i]) = match answer {
                Ok((true, model)) => {
                    self.guided.found_feasible += 1;
                    found.push((i, model.map(Arc::new)));
                    (Answer::Feasible, Next::Free)
                }
                Ok((false, _)) => (Answer::Infeasible, Next::Skip),
                Err(SolverError::Timeout) if !self.solver.at_deadline() => {
                    for a in inputs_of(std::slice::from_ref(c)) {
                        if !among(&state.unanswered, &a) {
                            state.unanswered.push(a);
                        }
                    }
                    (Answer::Undecided, Next::Skip)
                }
                Err(e) => return Err(self.solver_error(state, e)),
            };
        }
        Ok((alts.into(), found))
    }

    /// Where the program asked its path not to fork (`klee_set_forking(0)`):
    /// the alternative it takes, the first its condition allows, where
    /// KLEE's takes one at random. The first, not the model's, so that the
    /// way depends on the program and the path alone: a memoized or
    /// regression run, whose models differ, goes the same way.
    fn first_feasible(&mut self, state: &mut State, conds: &[ExprRef]) -> Exec<usize> {
        let mut taken = conds.len() - 1;
        for (i, c) in conds.iter().enumerate().take(conds.len() - 1) {
            let feasible = match c.as_const() {
                Some(v) => v != 0,
                None if state.hint.as_ref().is_some_and(|h| expr::eval(c, h) != 0) => true,
                None => self.may_be_true(state, c)?,
            };
            if feasible {
                taken = i;
                break;
            }
        }
        Ok(taken)
    }

    /// Once the run has made its `--max-forks`: the alternative a path
    /// takes, the one a model of it meets (its own, or one asked for now),
    /// as KLEE's goes one way at random; the cut is for good.
    fn model_way(&mut self, state: &mut State, conds: &[ExprRef]) -> Exec<usize> {
        let model = match &state.hint {
            Some(h) => h.clone(),
            None => Arc::new(self.model(state).map_err(|e| self.solver_error(state, e))?),
        };
        // The conditions cover every case, so the model meets one.
        Ok(conds
            .iter()
            .position(|c| expr::eval(c, &model) != 0)
            .unwrap_or(conds.len() - 1))
    }

    /// At a site past its share of the forks (`--max-site-fork-share`), or
    /// past `--max-forks`: the path goes on along `taken`, the alternative
    /// its model satisfies, with that alternative's condition added, and
    /// no other is asked about. A share's cut point may be kept, to be
    /// taken up again (`keep`).
    fn follow_model(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        payloads: &[u64],
        taken: usize,
        keep: bool,
    ) -> Exec<(usize, u64)> {
        let alts: Vec<Alt> = payloads
            .iter()
            .enumerate()
            .map(|(i, &payload)| Alt::decided(payload, i == taken))
            .collect();
        let others = conds.iter().filter(|c| c.as_const() != Some(0)).count() as u64 - 1;
        self.fork_share.cut += others;
        if others > 0 && keep {
            self.keep_cut(state, site, taken);
        }
        let point = self.point_at(state, site, alts.into());
        let next = vec![Next::Free; conds.len()];
        self.take_alternatives(state, point, conds, &next, false)
    }

    /// Gives up the alternatives whose conditions (`hard`) the solver could
    /// not decide in its time while the path's model showed another one
    /// feasible: the path goes on along that one, with the inputs the hard
    /// conditions read fixed to the model's values. Such conditions come
    /// from hashes of symbolic input (a CRC or a SHA sum printed digit by
    /// digit); each digit would time out again, and with the hashed bytes
    /// fixed every later question on them is easy, so the path reaches the
    /// code after the hash instead of ending there with a solver error.
    fn give_up_hard(&mut self, state: &mut State, hard: &[ExprRef]) {
        let Some(hint) = state.hint.clone() else {
            return;
        };
        self.solver.gave_up_after_timeout(hard.len());
        for array in inputs_of(hard) {
            let updates = expr::UpdateList::new(array.clone());
            for i in 0..array.size {
                let byte = expr::read(&updates, &expr::constant(u128::from(i), 64));
                let value = expr::eval(&byte, &hint);
                state.add_constraint(expr::eq(&byte, &expr::constant(value, 8)));
            }
            if !among(&state.pinned, &array) {
                state.pinned.push(array);
            }
        }
    }

    /// The choice point at `site` of the state's current function.
    pub(super) fn point_at(&self, state: &State, site: SiteId, alts: Arc<[Alt]>) -> Point {
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
        self.leave_guide(state, problem)?;
        Ok(None)
    }

    /// Counts and reports a place where the program no longer does what the
    /// trie recorded; the path goes on unguided, or ends under
    /// `--strict-guide`.
    fn leave_guide(&mut self, state: &mut State, problem: String) -> Exec<()> {
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
        Ok(())
    }

    /// Takes the feasible alternatives of `point` that `next` does not skip:
    /// the state the first, a forced child each of the others. When none is
    /// feasible the path ends there. `alone_implied`: a lone feasible
    /// alternative is implied by the path condition (true of a fork, whose
    /// alternatives cover everything; not of an assumption).
    pub(super) fn take_alternatives(
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
            .filter(|&i| point.alts[i].feasible() && next.get(i).is_some_and(|n| *n != Next::Skip))
            .collect();
        let Some(&first) = go.first() else {
            // Every feasible alternative was explored before: nothing of this
            // path is left to run (the trie keeps its tests). The point goes
            // with it, for what it now knows of alternatives the trie held
            // undecided (see `Recorder::record`).
            state.stopped_at = Some(point);
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
            let mut child = state.fork_child(self.next_id());
            if constrain {
                child.add_constraint(conds[i].clone());
            }
            if feasible >= 2 {
                child.depth += 1;
            }
            self.decisions += 1;
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
        self.decisions += 1;
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
        let conds = std::slice::from_ref(cond);
        if let Some(recorded) = self.recorded_alternatives(state, site, Some(1))? {
            self.follow_recorded(state, site, conds, recorded, false)?;
            return Ok(());
        }
        let feasible = self.may_be_true(state, cond)?;
        let alts = Arc::new([Alt {
            payload: 0,
            answer: answer_on(state, cond, feasible),
        }]);
        let point = self.point_at(state, site, alts);
        self.take_alternatives(state, point, conds, &[Next::Free], false)?;
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

    /// Picks the target of a symbolic pointer: the forced one when the state
    /// replays a fork; on a guided prefix, one of the recorded targets
    /// (`rebuild` gives their conditions); else one of the alternatives
    /// `targets` finds, forking when there are several.
    pub(super) fn choose_target(
        &mut self,
        state: &mut State,
        site: SiteId,
        targets: impl FnOnce(&mut Self, &State) -> Exec<(Vec<ExprRef>, Vec<u64>)>,
        rebuild: impl FnOnce(&State, &[u64]) -> Result<Vec<ExprRef>, u64>,
    ) -> Exec<u64> {
        self.replay.fixed += 1;
        if self.summarising {
            if let Some(inputs) = &mut state.inputs {
                Arc::make_mut(inputs)
                    .refused
                    .get_or_insert(super::lazy::InputRefusal::SymbolicPointer);
            }
            return Err(self.error(
                state,
                ErrorKind::Ptr,
                "a symbolic pointer in a function being summarised",
            ));
        }
        if state.forced.is_some() {
            return Ok(self.fork(state, site, &[], &[], &[])?.1);
        }
        if let Some((alts, next)) = self.recorded_alternatives(state, site, None)? {
            let payloads: Vec<u64> = alts.iter().map(|a| a.payload).collect();
            // A changed program (regression analysis) may lay out its
            // objects elsewhere: a recorded target that is not one in this
            // state cannot be followed.
            match rebuild(state, &payloads) {
                Ok(conds) => {
                    let point = self.point_at(state, site, alts);
                    return Ok(self.take_alternatives(state, point, &conds, &next, true)?.1);
                }
                Err(gone) => self.leave_guide(
                    state,
                    format!("the trie records a target at {gone:#x}, where this run has none"),
                )?,
            }
        }
        let (conds, payloads) = targets(self, state)?;
        Ok(self.fork(state, site, &conds, &payloads, &[])?.1)
    }
}

/// The alternatives of a pointer fork in address order (the error
/// alternative, `NO_TARGET`, last). The targets are found one solver model
/// at a time, and which model comes first depends on what the solver was
/// asked before (its caches), so on the order the searcher ran the paths
/// in; numbering the alternatives by the order they were found would give
/// the same fork other alternative indices in another run, and the trie of
/// a resumed or deepened run would differ from a fresh one's.
pub(super) fn by_target(conds: Vec<ExprRef>, payloads: Vec<u64>) -> (Vec<ExprRef>, Vec<u64>) {
    let mut pairs: Vec<(u64, ExprRef)> = payloads.into_iter().zip(conds).collect();
    pairs.sort_by_key(|(payload, _)| *payload);
    pairs.into_iter().map(|(p, c)| (c, p)).unzip()
}

/// The conditions of a memory or call fork's recorded alternatives, built
/// as the search for targets built them: `is(payload)` for each target,
/// and for the error side (`NO_TARGET`) or the rest (`UNLISTED`) none
/// of the targets before it; the first payload that `is` finds no target
/// at, if any, as the error.
pub(super) fn recorded_conditions(
    payloads: &[u64],
    mut is: impl FnMut(u64) -> Option<ExprRef>,
) -> Result<Vec<ExprRef>, u64> {
    let mut conds = Vec::with_capacity(payloads.len());
    let mut outside = expr::bool_const(true);
    for &payload in payloads {
        if payload == NO_TARGET || payload == UNLISTED {
            conds.push(outside.clone());
            continue;
        }
        let c = is(payload).ok_or(payload)?;
        outside = expr::and(&outside, &expr::not(&c));
        conds.push(c);
    }
    Ok(conds)
}

/// Whether a condition is feasible, as the trie is to keep the answer: a
/// path that pinned inputs (`give_up_hard`) finds a condition reading them
/// false only for the values pinned, which says nothing of other inputs.
fn answer_on(state: &State, cond: &ExprRef, feasible: bool) -> Answer {
    if feasible || state.pinned.is_empty() {
        return Answer::of(feasible);
    }
    let inputs = inputs_of(std::slice::from_ref(cond));
    if inputs.iter().any(|a| among(&state.pinned, a)) {
        Answer::Undecided
    } else {
        Answer::Infeasible
    }
}
