//! The inputs of a path's test, moved toward what the program prefers
//! (`klee_prefer_cex`): KLEE's runtime prefers printable characters in a
//! symbolic argument, so that a test reads as text where the path allows.
//!
//! Preferences are not constraints: which paths exist never depends on
//! them, and a path keeps one only when its test is made. They are taken in
//! the order the path made them, each kept if it can hold together with
//! the path and the ones kept before it; one that cannot is left out and
//! the next one tried.

use super::executor::Executor;
use super::state::State;
use crate::expr::{self, ArrayRef, Assignment, ExprRef};
use crate::solver::{Solver, SolverError};

impl Executor {
    /// A model of the state's inputs for its test: [`Executor::model`],
    /// with the path's preferences met as far as they can be.
    pub fn test_model(&mut self, state: &State) -> Result<Assignment, SolverError> {
        if state.preferences.is_empty() {
            return self.model(state);
        }
        // On a recorded path, the recorded test: it met the preferences
        // when it was made, and a replay (certification) asks no solver.
        if let Some(w) = self.witness(state) {
            if state.constraints.iter().all(|c| expr::eval(c, &w) != 0) {
                self.guided.solver_calls_avoided += 1;
                return Ok(w);
            }
        }
        let model = self.model(state)?;
        let arrays = state.input_arrays();
        Ok(prefer(
            &mut self.solver,
            &state.constraints,
            &state.preferences,
            &arrays,
            model,
        ))
    }
}

/// `model` (which satisfies `constraints`) changed to satisfy as many of
/// `preferences` as it can, in order: each one is kept if it can hold with
/// the constraints and the preferences kept before it. Only the inputs a
/// preference shares a factor with are solved again; one the model already
/// meets costs no query. A query that fails (a timeout) leaves its
/// preference out, as an unsatisfiable one: the test stays valid either way.
pub(crate) fn prefer(
    solver: &mut Solver,
    constraints: &[ExprRef],
    preferences: &[ExprRef],
    arrays: &[ArrayRef],
    mut model: Assignment,
) -> Assignment {
    let mut held = constraints.to_vec();
    for p in preferences {
        if expr::eval(p, &model) != 0 {
            held.push(p.clone());
            continue;
        }
        if let Ok(Some(m)) = solver.model_where(&held, p, arrays, Some(&model)) {
            model = m;
            held.push(p.clone());
        }
    }
    model
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{constant, eq, read, ult, Array, UpdateList};
    use crate::solver::SolverConfig;

    fn byte(a: &ArrayRef, i: u64) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i as u128, 64))
    }

    fn is(e: &ExprRef, v: u128) -> ExprRef {
        eq(e, &constant(v, 8))
    }

    #[test]
    fn preferences_are_kept_in_order_while_they_fit_the_path() {
        let a = Array::symbolic("pref_x", 2);
        let (x, y) = (byte(&a, 0), byte(&a, 1));
        let path = vec![ult(&x, &constant(10, 8))];
        let mut solver = Solver::new(SolverConfig::default());
        let model = solver
            .get_model(&path, std::slice::from_ref(&a))
            .expect("solved")
            .expect("satisfiable");
        let prefs = [
            // Outside the path: left out, the path is not changed.
            is(&x, 200),
            is(&x, 7),
            // Against the one kept before it: left out.
            is(&x, 8),
            // Another input: kept, and the first input keeps its value.
            is(&y, 42),
        ];
        let got = prefer(&mut solver, &path, &prefs, std::slice::from_ref(&a), model);
        assert_eq!(got.get(&a).expect("both inputs"), &[7, 42]);
    }

    #[test]
    fn a_model_that_meets_the_preferences_is_kept_without_a_query() {
        let a = Array::symbolic("pref_met", 1);
        let x = byte(&a, 0);
        let path = vec![ult(&x, &constant(10, 8))];
        let mut model = Assignment::new();
        model.set(&a, vec![3]);
        let mut solver = Solver::new(SolverConfig::default());
        let before = solver.stats().queries;
        let got = prefer(
            &mut solver,
            &path,
            &[ult(&x, &constant(5, 8))],
            std::slice::from_ref(&a),
            model,
        );
        assert_eq!(got.get(&a).expect("input"), &[3]);
        assert_eq!(solver.stats().queries, before);
    }

    #[test]
    fn no_preference_fits_leaves_the_model_as_it_was() {
        let a = Array::symbolic("pref_none", 1);
        let x = byte(&a, 0);
        let path = vec![eq(&x, &constant(4, 8))];
        let mut model = Assignment::new();
        model.set(&a, vec![4]);
        let mut solver = Solver::new(SolverConfig::default());
        let got = prefer(
            &mut solver,
            &path,
            &[is(&x, 5), is(&x, 6)],
            std::slice::from_ref(&a),
            model,
        );
        assert_eq!(got.get(&a).expect("input"), &[4]);
    }
}
