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
    stored: usize,
    limit: usize,
}

impl CacheLayer {
    /// A cache holding constraint lists of up to `limit` expressions in total.
    pub fn new(limit: usize) -> Self {
        CacheLayer {
            map: FxHashMap::default(),
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
        let answer = next.check(q)?;
        self.store(q, &answer);
        Ok(answer)
    }
}
