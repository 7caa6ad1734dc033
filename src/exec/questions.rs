//! The questions an instruction asks of its path without forking it: may
//! a condition hold, a value of an expression. A guided state answers them
//! from the recorded run, a state with a model from its model, where
//! either can; the solver answers the rest.

use std::sync::Arc;

use super::executor::{Exec, Executor};
use super::state::State;
use super::value::Value;
use crate::expr::{self, Assignment, ExprRef};

impl Executor {
    /// The recorded inputs that satisfy a guided state's path condition, as
    /// an assignment of its symbolic arrays. (A state replaying a callee
    /// has its recorded path's model as its own, `state.hint`.)
    pub(super) fn witness(&self, state: &State) -> Option<Assignment> {
        let inputs = self.guide.as_ref()?.witness(state.guide?)?;
        Some(state.assignment(inputs.iter().map(Vec::as_slice)))
    }

    /// Whether `cond` may hold on the path: answered by the recorded inputs
    /// on a guided prefix, by the path's model or by one of its seeds when
    /// they satisfy it, else by the solver.
    pub(crate) fn may_be_true(&mut self, state: &State, cond: &ExprRef) -> Exec<bool> {
        if let Some(w) = self.witness(state) {
            if expr::eval(cond, &w) != 0 {
                self.guided.solver_calls_avoided += 1;
                return Ok(true);
            }
        }
        if state
            .hint
            .as_ref()
            .is_some_and(|h| expr::eval(cond, h) != 0)
            || state.seed_meeting(cond).is_some()
        {
            self.solver.answered_by_path_model();
            return Ok(true);
        }
        if state.hint.is_some() && reads_only_pinned(state, cond) {
            self.solver.answered_by_path_model();
            return Ok(false);
        }
        self.solver
            .may_be_true(state.constraints_for(cond), cond)
            .map_err(|e| self.solver_error(state, e))
    }

    /// Fixes a symbolic value to one feasible concrete value (no fork).
    pub(crate) fn concretize(&mut self, state: &mut State, v: &Value) -> Exec<u128> {
        match v {
            Value::Concrete { bits, .. } => Ok(bits.get()),
            Value::Symbolic(e) => {
                self.replay.fixed += 1;
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
            Value::Concrete { bits, .. } => Ok(bits.get()),
            Value::Symbolic(e) => {
                self.replay.fixed += 1;
                if let Some(w) = self.witness(state) {
                    self.guided.solver_calls_avoided += 1;
                    return Ok(expr::eval(e, &w));
                }
                // The path's model gives a value it can take, and one that
                // keeps the model when the value joins the path.
                if let Some(h) = &state.hint {
                    self.solver.answered_by_path_model();
                    return Ok(expr::eval(e, h));
                }
                self.solver
                    .get_value(&state.constraints, e)
                    .map_err(|err| self.solver_error(state, err))
            }
        }
    }
}

/// The value of `e` when every input it reads is pinned on the state's
/// path: the same under every model, so the path's own gives it.
pub(super) fn pinned_value(state: &State, e: &ExprRef) -> Option<u128> {
    let hint = state.hint.as_ref()?;
    reads_only_pinned(state, e).then(|| expr::eval(e, hint))
}

/// Whether every input `cond` reads is pinned on the state's path (all of
/// its bytes fixed), so that its value is the same under every model.
pub(super) fn reads_only_pinned(state: &State, cond: &ExprRef) -> bool {
    reads_only(cond, &state.pinned)
}

/// Whether every input `cond` reads (constant arrays aside) is one of
/// `inputs`; false when `inputs` is empty.
pub(super) fn reads_only(cond: &ExprRef, inputs: &[expr::ArrayRef]) -> bool {
    !inputs.is_empty()
        && inputs_of(std::slice::from_ref(cond))
            .iter()
            .all(|a| among(inputs, a))
}

/// The inputs (arrays without constant contents) `exprs` read.
pub(super) fn inputs_of(exprs: &[ExprRef]) -> Vec<expr::ArrayRef> {
    let mut arrays = Vec::new();
    expr::arrays_in_all(exprs, &mut arrays);
    arrays.retain(|a| a.init.is_none());
    arrays
}

/// Whether `array` is one of `inputs` (arrays are told apart by identity).
pub(super) fn among(inputs: &[expr::ArrayRef], array: &expr::ArrayRef) -> bool {
    inputs.iter().any(|p| Arc::ptr_eq(p, array))
}
