//! Answers queries whose outcome is decided by constants alone.

use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::Assignment;

/// Answers without any solver when the condition or a constraint is a
/// constant: a false one makes the query unsatisfiable; a true condition
/// over (feasible) constraints is satisfiable; a true condition over no
/// symbolic constraints has the all-zero model.
#[derive(Default)]
pub struct ConstantLayer;

impl Layer for ConstantLayer {
    fn name(&self) -> &'static str {
        "constant"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        if q.expr.is_false() || q.constraints.iter().any(|c| c.is_false()) {
            return Ok(Answer::Unsat);
        }
        if q.expr.is_true() {
            match q.model {
                None => return Ok(Answer::Sat(None)),
                Some(arrays) if q.constraints.iter().all(|c| c.is_true()) => {
                    let mut model = Assignment::new();
                    for a in arrays {
                        model.set(a, vec![0; a.size as usize]);
                    }
                    return Ok(Answer::Sat(Some(model)));
                }
                Some(_) => {}
            }
        }
        next.check(q)
    }
}
