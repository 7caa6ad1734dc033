//! Composition at call sites, as the executor sees it: a hook that may take
//! over a call of a summarised function, and the solver-off replay of the
//! callee along the recorded paths the caller's path allows.
//!
//! The executor knows nothing of summaries; `compose` implements
//! [`CallComposer`]. The state enters the callee once, carrying, for each
//! recorded path feasible at the call, a model of the caller's path and of
//! that path's condition; inside the callee every choice point is decided
//! by evaluating its alternatives under those models. Where they part, the
//! state forks, each side with the models that went its way, so the callee
//! runs once for all of its paths up to where they differ, as in a
//! whole-program run. A model cannot decide a choice on its own (it
//! satisfies one alternative of any choice), but a recorded path's
//! condition, added to the caller's, implies its alternative: an
//! alternative no feasible recorded path takes is infeasible, which a
//! whole-program run would have asked the solver to find out.
//!
//! The trie records the call as one choice point, the *summary node*, whose
//! alternatives are the callee's recorded paths; the choices the replay
//! makes inside the callee are not recorded again.

use std::sync::Arc;

use super::end::{ErrorKind, PathEnd, PathError, StackEntry};
use super::executor::{Exec, Executor, Flow};
use super::guide::Next;
use super::state::{Alt, Decision, Forced, State};
use super::value::Value;
use crate::expr::{self, Assignment, ExprRef};
use crate::ir::{FuncId, Reg, SiteId, SourceLoc};

/// A state replaying a callee along recorded paths (`--compose`).
#[derive(Clone, Debug)]
pub struct Composing {
    /// The replay lasts while the stack holds at least this many frames.
    depth: usize,
    /// Where the summary node's decision is on the state's path: its
    /// alternative is the recorded path the state follows, known for sure
    /// only once the paths have parted.
    call_at: usize,
    /// The recorded paths the state may still follow (their alternatives at
    /// the summary node), each with a model of the caller's path and of its
    /// condition; never empty.
    paths: Arc<[(u32, Arc<Assignment>)]>,
}

impl State {
    /// Keeps the recorded paths a replaying state may follow to those whose
    /// models meet `c`, a constraint that has joined its path (a value
    /// fixed, an assumption); with none left, the replay ends and the
    /// solver decides the rest of the callee.
    pub(super) fn narrow_replay(&mut self, c: &ExprRef) {
        let Some(replay) = &mut self.composing else {
            return;
        };
        let kept: Vec<_> = replay
            .paths
            .iter()
            .filter(|(_, m)| expr::eval(c, m) != 0)
            .cloned()
            .collect();
        if kept.len() == replay.paths.len() {
            return;
        }
        if kept.is_empty() {
            self.composing = None;
            return;
        }
        replay.paths = kept.into();
        let (leaf, model) = replay.paths[0].clone();
        let call_at = replay.call_at;
        self.follow(call_at, leaf, model);
    }

    /// Records that the state follows recorded path `leaf` from the summary
    /// node at `call_at`, with `model` as its path's model.
    fn follow(&mut self, call_at: usize, leaf: u32, model: Arc<Assignment>) {
        self.path.update(call_at, |d| d.taken = leaf);
        self.hint = Some(model);
    }
}

/// What replaying callees along recorded paths did, for `stats.json`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayCounters {
    /// Choice points inside callees decided by models, solver off.
    pub choices: u64,
    /// Feasibility checks those choices did not ask the solver.
    pub solver_calls_avoided: u64,
    /// Symbolic values the executor fixed to one value or resolved to the
    /// objects they point to: a summary whose paths did either holds only
    /// in the context it was built in.
    pub fixed: u64,
    /// Replays ended early because a model did not decide a choice
    /// (the solver decided the rest of the callee).
    pub abandoned: u64,
}

impl ReplayCounters {
    /// Adds another worker's counts.
    pub fn add(&mut self, other: &ReplayCounters) {
        self.choices += other.choices;
        self.solver_calls_avoided += other.solver_calls_avoided;
        self.fixed += other.fixed;
        self.abandoned += other.abandoned;
    }
}

/// Takes over calls of functions it has summaries of (implemented by
/// `compose`).
pub(crate) trait CallComposer: Send + Sync {
    /// Handles a direct call of `callee` with `args` at `site` of the
    /// state's current function: `Ok(true)` when it has pushed the callee's
    /// frame to replay it (see [`Executor::enter_replay`]), `Ok(false)`
    /// when the call is to be executed as usual.
    fn at_call(
        &self,
        ex: &mut Executor,
        state: &mut State,
        callee: FuncId,
        args: &[Value],
        dst: Option<Reg>,
        site: SiteId,
    ) -> Exec<bool>;
}

impl Executor {
    /// Makes calls of summarised functions go through `composer`.
    pub(crate) fn set_composer(&mut self, composer: Arc<dyn CallComposer>) {
        self.composer = Some(composer);
    }

    /// Whether the state replays a callee (calls inside it are part of the
    /// replay, not composed again).
    pub fn is_replaying(state: &State) -> bool {
        state.composing.is_some()
    }

    /// Starts replaying `callee` at the call at `site`, over the recorded
    /// paths whose feasibility the caller established (`models[i]`: a
    /// model of the caller's path with path `i`'s condition, `None` where
    /// it is infeasible). The summary node goes on the state's path, the
    /// callee's frame is pushed (the call completes as usual, its result
    /// going to `dst`), and its choices follow the models. `false`, with
    /// nothing done, when no path is feasible.
    pub(crate) fn enter_replay(
        &mut self,
        state: &mut State,
        site: SiteId,
        (callee, args, dst): (FuncId, Vec<Value>, Option<Reg>),
        models: Vec<Option<Arc<Assignment>>>,
    ) -> Exec<bool> {
        let alts: Vec<Alt> = models
            .iter()
            .enumerate()
            .map(|(i, m)| Alt::decided(i as u64, m.is_some()))
            .collect();
        let paths: Arc<[(u32, Arc<Assignment>)]> = models
            .into_iter()
            .enumerate()
            .filter_map(|(i, m)| Some((i as u32, m?)))
            .collect();
        let Some((first, model)) = paths.first().cloned() else {
            return Ok(false);
        };
        let point = self.point_at(state, site, alts.into());
        if point.feasible() >= 2 {
            state.depth += 1;
        }
        let stretch = self.close_stretch(state);
        self.decisions += 1;
        state.path.push_back(Decision {
            point,
            taken: first,
            stretch,
        });
        let call_at = state.path.len() - 1;
        let pc = state.frame().pc;
        state.frame_mut().pc = crate::ir::InstId(pc.0 + 1);
        // Variadic functions are never composed: no argument's class matters.
        self.push_frame(state, callee, args, &[], dst, Some(pc))?;
        // Each model satisfies the path so far and its recorded path, whose
        // choices the replay adds: it stays a model of the path after the
        // call, until a constraint it fails (then dropped), and is the
        // test's when the path ends first.
        state.hint = Some(model);
        state.composing = Some(Composing {
            depth: state.stack.len(),
            call_at,
            paths,
        });
        Ok(true)
    }

    /// The alternative a replaying state takes at a choice point: the one
    /// its recorded paths' models make true. Where they make different ones
    /// true, the state forks, each side following the paths that went its
    /// way; no other alternative is feasible. `None` when the state does
    /// not replay, or when some model does not single out one alternative
    /// (then the replay ends and the solver decides, which explores the
    /// same paths, as the paths' conditions are implied by the path).
    pub(super) fn replayed_choice(
        &mut self,
        state: &mut State,
        conds: &[ExprRef],
        payloads: &[u64],
    ) -> Option<Exec<(usize, u64)>> {
        let replay = state.composing.as_ref()?;
        if state.stack.len() < replay.depth {
            state.composing = None;
            return None;
        }
        let mut groups: Vec<Vec<(u32, Arc<Assignment>)>> = vec![Vec::new(); conds.len()];
        for (leaf, model) in replay.paths.iter() {
            // One evaluator for all the alternatives: they share their
            // terms (a branch's two are a condition and its negation).
            let mut values = expr::Evaluator::new(model);
            let mut truth = conds
                .iter()
                .enumerate()
                .filter(|(_, c)| values.eval(c) != 0);
            match (truth.next(), truth.next()) {
                (Some((i, _)), None) => groups[i].push((*leaf, model.clone())),
                _ => {
                    self.replay.abandoned += 1;
                    state.composing = None;
                    return None;
                }
            }
        }
        let (depth, call_at) = (replay.depth, replay.call_at);
        self.replay.choices += 1;
        self.replay.solver_calls_avoided +=
            conds.iter().filter(|c| c.as_const().is_none()).count() as u64;
        let go: Vec<usize> = (0..conds.len())
            .filter(|&i| !groups[i].is_empty())
            .collect();
        // A lone alternative is implied by the path (see above); the
        // certifier adds it all the same.
        let constrain = go.len() >= 2 || self.config.strict_guide;
        let mut take = |s: &mut State, i: usize| {
            // Every model of the group meets the condition: it joins the
            // path before the group, which need not be narrowed by it.
            s.composing = None;
            if constrain {
                s.add_constraint(conds[i].clone());
            }
            let paths: Arc<[(u32, Arc<Assignment>)]> = std::mem::take(&mut groups[i]).into();
            let (leaf, model) = paths[0].clone();
            s.composing = Some(Composing {
                depth,
                call_at,
                paths,
            });
            s.follow(call_at, leaf, model);
        };
        for &i in &go[1..] {
            let mut child = state.fork_child(self.next_id());
            child.forced = Some(Forced {
                alternative: i as u32,
                payload: payloads[i],
            });
            take(&mut child, i);
            self.forked.push(child);
        }
        take(state, go[0]);
        Some(Ok((go[0], payloads[go[0]])))
    }

    /// A state at the start of `func`, called with `args`, whose inputs
    /// are `symbolics` and whose memory is empty: a summary's paths run on
    /// it, and the memory they reach besides their own is made as they
    /// reach it (see `lazy`).
    pub(crate) fn function_state(
        &mut self,
        func: FuncId,
        args: Vec<Value>,
        symbolics: Vec<super::state::Symbolic>,
    ) -> Exec<State> {
        let mut state = self.empty_state(symbolics);
        Self::track_inputs(&mut state);
        self.push_frame(&mut state, func, args, &[], None, None)?;
        Ok(state)
    }

    /// Ends a replay whose callee returned.
    pub(super) fn leave_replay(state: &mut State) {
        if let Some(replay) = &state.composing {
            if state.stack.len() < replay.depth {
                state.composing = None;
            }
        }
    }
}

impl Executor {
    /// Ends `state` at the call of `callee` at `site` with an error of
    /// `kind` at `loc`, the end of the callee's recorded path `alt` (of
    /// `conds.len()`), whose condition joins the path's: heuristic H1
    /// reports such an error without replaying the callee. The call's
    /// choice point is recorded with that path alone feasible (the others
    /// were not checked).
    pub(crate) fn end_with_recorded_error(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        alt: usize,
        callee: FuncId,
        (kind, loc): (ErrorKind, Option<SourceLoc>),
    ) -> Exec<bool> {
        let alts: Vec<Alt> = (0..conds.len())
            .map(|i| Alt::decided(i as u64, i == alt))
            .collect();
        let point = self.point_at(state, site, alts.into());
        let next = vec![Next::Free; conds.len()];
        self.take_alternatives(state, point, conds, &next, false)?;
        state.split_last_constraint();
        let name = self.module().func(callee).name.clone();
        let message = format!(
            "{kind} in `{name}`, on a path of its summary (reported by heuristic h1, not replayed)"
        );
        let mut stack = vec![StackEntry {
            function: name,
            loc,
        }];
        // The caller's frames, as an error at the call would have them.
        if let Flow::End(PathEnd::Error(at_call)) = self.error(state, kind, "") {
            stack.extend(at_call.stack);
        }
        Err(Flow::End(PathEnd::Error(PathError {
            kind,
            message,
            loc,
            stack,
        })))
    }

    /// Ends a path at a call none of whose recorded paths that heuristic
    /// H2 keeps is feasible there: nothing below it leads to a target. No
    /// test is written for it.
    pub(crate) fn pruned_here() -> Exec<bool> {
        Err(Flow::End(PathEnd::Pruned))
    }
}
