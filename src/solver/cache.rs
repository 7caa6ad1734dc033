//! A per-run cache of answers keyed by the exact query.

use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::ExprRef;
use rustc_hash::FxHashMap;

/// Remembers the answer to every query it has seen, keyed by the constraint
/// list and the condition (expressions are interned, so the key compares
/// pointers). The engine asks about both sides of each branch under the
/// same constraints, and repeats queries across similar paths.
///
/// Memory is bounded: once the stored constraint lists hold more than
/// `limit` expressions in total, the cache starts afresh.
pub struct CacheLayer {
    map: FxHashMap<Box<[ExprRef]>, FxHashMap<ExprRef, Answer>>,
    /// Queries Z3 could not answer in its time (not for the run's deadline),
    /// with the cap on that time (`None`: the full limit): asked again with
    /// no more time, they time out at once instead of costing the time
    /// again. Paths that differ only in what the slice layer cuts away ask
    /// the same hard question (a hash of the same input, under several
    /// options), and each would pay the full timeout.
    timed_out: FxHashMap<Box<[ExprRef]>, FxHashMap<ExprRef, Option<u64>>>,
    stored: usize,
    limit: usize,
}

impl CacheLayer {
    /// A cache holding constraint lists of up to `limit` expressions in total.
    pub fn new(limit: usize) -> Self {
        CacheLayer {
            map: FxHashMap::default(),
            timed_out: FxHashMap::default(),
            stored: 0,
            limit,
        }
    }

    fn lookup(&self, q: &Query<'_>) -> Option<Answer> {
        let answer = self.map.get(q.constraints)?.get(&q.expr)?;
        match (answer, q.model) {
            (Answer::Unsat, _) => Some(Answer::Unsat),
            (Answer::Sat(_), None) => Some(Answer::Sat(None)),
            (Answer::Sat(Some(model)), Some(wanted))
                if wanted.iter().all(|a| model.contains(a)) =>
            {
                Some(answer.clone())
            }
            (Answer::Sat(_), Some(_)) => None,
        }
    }

    fn store(&mut self, q: &Query<'_>, answer: &Answer) {
        if !self.map.contains_key(q.constraints) {
            if self.stored + q.constraints.len() > self.limit {
                self.map.clear();
                self.timed_out.clear();
                self.stored = 0;
            }
            self.stored += q.constraints.len();
            self.map.insert(q.constraints.into(), FxHashMap::default());
        }
        if let Some(answers) = self.map.get_mut(q.constraints) {
            let better = match answers.get(&q.expr) {
                None => true,
                Some(Answer::Sat(None)) => matches!(answer, Answer::Sat(Some(_))),
                Some(_) => false,
            };
            if better {
                answers.insert(q.expr.clone(), answer.clone());
            }
        }
    }
}

impl Default for CacheLayer {
    fn default() -> Self {
        CacheLayer::new(1 << 22)
    }
}

impl Layer for CacheLayer {
    fn name(&self) -> &'static str {
        "cache"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        if let Some(answer) = self.lookup(q) {
            next.stats().cache_hits += 1;
            next.stats().hit(self.name());
            return Ok(answer);
        }
        let cap = next.cap_ms();
        let no_more_time = |was: &Option<u64>| match (was, cap) {
            (None, _) => true,
            (Some(was), Some(now)) => now <= *was,
            (Some(_), None) => false,
        };
        if self
            .timed_out
            .get(q.constraints)
            .and_then(|hard| hard.get(&q.expr))
            .is_some_and(no_more_time)
        {
            next.stats().hit(self.name());
            return Err(SolverError::Timeout);
        }
        match next.check(q) {
            Ok(answer) => {
                self.store(q, &answer);
                Ok(answer)
            }
            Err(SolverError::Timeout) if !next.at_deadline() => {
                self.stored += q.constraints.len();
                self.timed_out
                    .entry(q.constraints.into())
                    .or_default()
                    .insert(q.expr.clone(), cap);
                Err(SolverError::Timeout)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, Array, UpdateList};
    use crate::solver::tests::Stuck;
    use crate::solver::{Solver, SolverConfig};
    use std::cell::Cell;
    use std::rc::Rc;

    #[test]
    fn a_query_that_timed_out_times_out_at_once_unless_it_gets_more_time() {
        let a = Array::symbolic("cache_stuck", 1);
        let x = expr::read(&UpdateList::new(a), &expr::constant(0, 64));
        let e = expr::eq(&x, &expr::constant(7, 8));
        let asked = Rc::new(Cell::new(0));
        let mut s = Solver::with_layers(
            SolverConfig::default(),
            vec![
                Box::new(CacheLayer::default()),
                Box::new(Stuck(asked.clone())),
            ],
        );
        // A probe times out, and so does the same probe again, without
        // asking the layers below.
        assert_eq!(
            s.probing(|s| s.may_be_true(&[], &e)),
            Err(SolverError::Timeout)
        );
        assert_eq!(
            s.probing(|s| s.may_be_true(&[], &e)),
            Err(SolverError::Timeout)
        );
        assert_eq!(asked.get(), 1);
        // With the full time it is asked again; after that even a probe
        // is answered from the cache.
        assert_eq!(s.may_be_true(&[], &e), Err(SolverError::Timeout));
        assert_eq!(asked.get(), 2);
        assert_eq!(
            s.probing(|s| s.may_be_true(&[], &e)),
            Err(SolverError::Timeout)
        );
        assert_eq!(asked.get(), 2);
        // Another query is asked.
        let other = expr::eq(&x, &expr::constant(8, 8));
        assert_eq!(s.may_be_true(&[], &other), Err(SolverError::Timeout));
        assert_eq!(asked.get(), 3);
    }
}
