//! Composition at call sites, as the executor sees it: a hook that may take
//! over a call of a summarised function, and the solver-off replay of the
//! callee along one recorded path.
//!
//! The executor knows nothing of summaries; `compose` implements
//! [`CallComposer`]. When it forks a caller over the callee's recorded
//! paths, each fork carries a model of the caller's path condition and the
//! path's own; inside the callee every choice point is then decided by
//! evaluating its alternatives under that model. A model cannot be used for
//! this on its own (it satisfies one alternative of any choice), but the
//! recorded path's condition, added to the path, implies that alternative:
//! the other ones are infeasible, which a whole-program run would have asked
//! the solver to find out.

use std::sync::Arc;

use super::end::{ErrorKind, PathEnd, PathError, StackEntry};
use super::executor::{Exec, Executor, Flow};
use super::guide::Next;
use super::state::{Alt, State};
use super::value::Value;
use crate::expr::{self, Assignment, ExprRef};
use crate::ir::{FuncId, Reg, SiteId, SourceLoc};

/// What a state does about composition, beyond what every state does.
#[derive(Clone, Debug)]
pub enum Composing {
    /// The state was forked over a callee's recorded paths at the call it
    /// is about to re-execute: `models[i]` satisfies the path through
    /// alternative `i` (`None` where it is infeasible).
    Forked(Arc<[Option<Arc<Assignment>>]>),
    /// The state replays a callee along a recorded path: while its stack
    /// holds at least `depth` frames, its choices are those true under
    /// `model`.
    Replaying {
        depth: usize,
        model: Arc<Assignment>,
    },
}

/// What replaying callees along recorded paths did, for `stats.json`.
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplayCounters {
    /// Choice points inside callees decided by a model, solver off.
    pub choices: u64,
    /// Feasibility checks those choices did not ask the solver.
    pub solver_calls_avoided: u64,
    /// Symbolic values the executor fixed to one value or resolved to the
    /// objects they point to: a summary whose paths did either holds only
    /// in the context it was built in.
    pub fixed: u64,
    /// Replays ended early because the model did not decide a choice
    /// (the solver decided the rest of the callee).
    pub abandoned: u64,
}

/// Takes over calls of functions it has summaries of (implemented by
/// `compose`).
pub(crate) trait CallComposer: Send + Sync {
    /// Handles a direct call of `callee` with `args` at `site` of the
    /// state's current function: `Ok(true)` when it has forked the state
    /// and pushed the callee's frame (see [`Executor::enter_replay`]),
    /// `Ok(false)` when the call is to be executed as usual.
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
        matches!(state.composing, Some(Composing::Replaying { .. }))
    }

    /// Forks `state` at the call at `site` over alternatives whose
    /// feasibility the caller established (`models[i]`: a model of the
    /// path with `conds[i]`, `None` where infeasible); a state forked here
    /// before takes its forced alternative. Returns the alternative the
    /// state takes and its model.
    pub(crate) fn fork_over_paths(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        models: Vec<Option<Arc<Assignment>>>,
    ) -> Exec<(usize, Arc<Assignment>)> {
        let models: Arc<[Option<Arc<Assignment>>]> = models.into();
        let alts: Vec<Alt> = models
            .iter()
            .enumerate()
            .map(|(i, m)| Alt {
                payload: i as u64,
                feasible: m.is_some(),
            })
            .collect();
        // Children re-execute the call with this, and find their model in it.
        state.composing = Some(Composing::Forked(models.clone()));
        let point = self.point_at(state, site, alts.into());
        let next = vec![Next::Free; conds.len()];
        let forked = self.forked.len();
        let (alt, _) = self.take_alternatives(state, point, conds, &next, true)?;
        state.split_last_constraint();
        for child in &mut self.forked[forked..] {
            child.split_last_constraint();
        }
        let model = models[alt]
            .clone()
            .expect("a taken alternative is feasible");
        Ok((alt, model))
    }

    /// A state forked by [`Self::fork_over_paths`] that re-executes the
    /// call: its alternative and model.
    pub(crate) fn forced_path(&mut self, state: &mut State) -> Option<(usize, Arc<Assignment>)> {
        let Some(Composing::Forked(models)) = &state.composing else {
            return None;
        };
        let models = models.clone();
        let forced = state.forced.take()?;
        let alt = forced.alternative as usize;
        models.get(alt).cloned().flatten().map(|m| (alt, m))
    }

    /// Starts replaying: the callee's frame is pushed (the call completes
    /// as usual, its result going to `dst`) and its choices follow `model`.
    pub(crate) fn enter_replay(
        &mut self,
        state: &mut State,
        callee: FuncId,
        args: Vec<Value>,
        dst: Option<Reg>,
        model: Arc<Assignment>,
    ) -> Exec<()> {
        let pc = state.frame().pc;
        state.frame_mut().pc = crate::ir::InstId(pc.0 + 1);
        self.push_frame(state, callee, args, dst, Some(pc))?;
        // The model satisfies the path so far and the callee's recorded
        // path, whose choices the replay adds: it stays a model of the path
        // after the call, until a constraint it fails (then dropped), and
        // is the test's when the path ends first.
        state.hint = Some(model.clone());
        state.composing = Some(Composing::Replaying {
            depth: state.stack.len(),
            model,
        });
        Ok(())
    }

    /// The alternative a replaying state takes at a choice point: the one
    /// true under its model, the others recorded as infeasible. `None` when
    /// the state does not replay, or when the model does not single out one
    /// alternative (then the replay ends and the solver decides, which
    /// explores the same paths, as the recorded path's condition is on the
    /// path).
    pub(super) fn replayed_choice(
        &mut self,
        state: &mut State,
        site: SiteId,
        conds: &[ExprRef],
        payloads: &[u64],
    ) -> Option<Exec<(usize, u64)>> {
        let Some(Composing::Replaying { depth, model }) = &state.composing else {
            return None;
        };
        if state.stack.len() < *depth {
            state.composing = None;
            return None;
        }
        let truth: Vec<bool> = conds.iter().map(|c| expr::eval(c, model) != 0).collect();
        if truth.iter().filter(|t| **t).count() != 1 {
            self.replay.abandoned += 1;
            state.composing = None;
            return None;
        }
        self.replay.choices += 1;
        self.replay.solver_calls_avoided +=
            conds.iter().filter(|c| c.as_const().is_none()).count() as u64;
        let alts: Vec<Alt> = truth
            .iter()
            .zip(payloads)
            .map(|(t, p)| Alt {
                payload: *p,
                feasible: *t,
            })
            .collect();
        let point = self.point_at(state, site, alts.into());
        let next = vec![Next::Free; conds.len()];
        Some(self.take_alternatives(state, point, conds, &next, true))
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
        self.push_frame(&mut state, func, args, None, None)?;
        Ok(state)
    }

    /// Ends a replay whose callee returned.
    pub(super) fn leave_replay(state: &mut State) {
        if let Some(Composing::Replaying { depth, .. }) = &state.composing {
            if state.stack.len() < *depth {
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
            .map(|i| Alt {
                payload: i as u64,
                feasible: i == alt,
            })
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
