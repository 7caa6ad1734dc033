//! Reuse of recent models: the cheapest part of KLEE's counterexample cache.

use std::collections::VecDeque;

use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{arrays_in_all, ArrayRef, Assignment, Evaluator};

/// Tries the last few models found on a new query before passing it on.
///
/// Successive queries of one path share almost all their constraints, so a
/// model of the parent's path condition usually satisfies one side of the
/// next branch: that side is then answered by evaluation, and only the
/// other side costs a solver call. To have models to reuse, queries passed
/// on ask for a model of every array they read.
pub struct RecentModels {
    models: VecDeque<Assignment>,
    capacity: usize,
}

impl RecentModels {
    /// Keeps the `capacity` most recent models.
    pub fn new(capacity: usize) -> Self {
        RecentModels {
            models: VecDeque::with_capacity(capacity),
            capacity,
        }
    }

    fn satisfying(&self, q: &Query<'_>) -> Option<&Assignment> {
        self.models.iter().find(|m| {
            let mut ev = Evaluator::new(m);
            ev.eval(&q.expr) == 1 && q.constraints.iter().all(|c| ev.eval(c) == 1)
        })
    }
}

impl Default for RecentModels {
    fn default() -> Self {
        RecentModels::new(8)
    }
}

impl Layer for RecentModels {
    fn name(&self) -> &'static str {
        "recent-models"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        if let Some(m) = self.satisfying(q) {
            next.stats().cache_hits += 1;
            next.stats().hit(self.name());
            let model = q.model.map(|wanted| complete(m, wanted));
            return Ok(Answer::Sat(model));
        }
        let mut arrays: Vec<ArrayRef> = q.model.map(|w| w.to_vec()).unwrap_or_default();
        arrays_in_all(q.constraints, &mut arrays);
        arrays_in_all(std::slice::from_ref(&q.expr), &mut arrays);
        arrays.dedup_by(|a, b| std::sync::Arc::ptr_eq(a, b));
        let answer = next.check(&Query {
            constraints: q.constraints,
            expr: q.expr.clone(),
            model: Some(&arrays),
        })?;
        if let Answer::Sat(Some(m)) = &answer {
            if self.models.len() == self.capacity {
                self.models.pop_back();
            }
            self.models.push_front(m.clone());
        }
        Ok(match (answer, q.model) {
            (Answer::Sat(_), None) => Answer::Sat(None),
            (a, _) => a,
        })
    }
}

/// The whole model (the query may read arrays beyond the wanted ones),
/// completed for the wanted arrays it does not mention: evaluation reads
/// those as zeros, so zeros are what satisfied the query.
fn complete(m: &Assignment, wanted: &[ArrayRef]) -> Assignment {
    let mut out = m.clone();
    for a in wanted {
        if !out.contains(a) {
            out.set(a, vec![0; a.size as usize]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Solver, SolverConfig};
    use crate::expr::{self, Array, UpdateList};

    #[test]
    fn the_parent_model_answers_one_side_of_a_branch() {
        let arr = Array::symbolic("x", 1);
        let x = expr::read(&UpdateList::new(arr.clone()), &expr::constant(0, 64));
        let mut s = Solver::new(SolverConfig::default());
        let path = vec![expr::ult(&x, &expr::constant(100, 8))];
        // The parent's path condition was found feasible, with a model.
        assert!(s.may_be_true(&[], &path[0]).unwrap());
        assert_eq!(s.stats().z3_calls, 1);
        // Its model satisfies one side of the next branch: one more Z3 call, not two.
        let c = expr::ult(&x, &expr::constant(50, 8));
        assert!(s.may_be_true(&path, &c).unwrap());
        assert!(s.may_be_true(&path, &expr::not(&c)).unwrap());
        let st = s.stats();
        assert_eq!(
            (st.queries, st.z3_calls, st.cache_hits),
            (3, 2, 1),
            "{st:?}"
        );
        // An unsatisfiable side still reaches Z3 and is answered correctly.
        assert!(!s
            .may_be_true(&path, &expr::ugt(&x, &expr::constant(200, 8)))
            .unwrap());
        let m = s.get_model(&path, &[arr.clone()]).unwrap().expect("sat");
        assert!(m.get(&arr).expect("assigned")[0] < 100);
        assert_eq!(s.stats().bad_models, 0);
    }
}
