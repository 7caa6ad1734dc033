//! A per-run cache keyed by Green's canonical form, in front of Z3: a query
//! that differs from an earlier one only in the names of its arrays (a loop
//! reading fresh input asks the same question of each new byte) or in the
//! order of its conjuncts is answered from the earlier answer, renamed.
//!
//! Unlike the `canon` layer, which hands the canonical query on, a miss
//! here goes on as the path wrote it: Z3's incremental stack keeps seeing
//! the path's own prefix, and the conjuncts keep the order Z3 did well with
//! (the canonical order cost a nonlinear subject 1.7x). The canonical form
//! itself is made only for a query whose shape (its conjuncts hashed blind
//! to array names) an earlier one had: equal canonical forms have equal
//! shapes, and a path condition that grows at each query (a Collatz loop)
//! never repeats one, so it pays a few hash lookups per query, not a
//! rebuilt copy of its constraints.

use rustc_hash::FxHashMap;

use super::canon::{canonical_form, Canonical, CanonicalArrays, ShapeHasher};
use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{conjuncts, ArrayRef, Assignment, ExprRef};

/// A query answered before, as it was asked; its canonical form is made
/// when a query of the same shape comes.
struct Entry {
    constraints: Box<[ExprRef]>,
    expr: ExprRef,
    /// Over the query's own arrays.
    answer: Answer,
    canonical: Option<Canonical>,
}

/// Answers by canonical form, found through the queries' shapes.
pub struct CanonCacheLayer {
    arrays: CanonicalArrays,
    shapes: ShapeHasher,
    entries: FxHashMap<u64, Vec<Entry>>,
    /// Expressions held by the entries, bounded as the exact cache is.
    stored: usize,
    limit: usize,
}

impl CanonCacheLayer {
    /// A cache whose entries hold up to `limit` expressions in total.
    pub fn new(limit: usize) -> Self {
        CanonCacheLayer {
            arrays: CanonicalArrays::default(),
            shapes: ShapeHasher::default(),
            entries: FxHashMap::default(),
            stored: 0,
            limit,
        }
    }

    /// A hash equal for queries with equal canonical forms: the set of
    /// their conjuncts' shapes, and the condition's.
    fn shape(&mut self, q: &Query<'_>) -> u64 {
        let mut split = Vec::new();
        conjuncts(q.constraints, &mut split);
        let mut hashes: Vec<u64> = split
            .iter()
            .filter(|c| !c.is_true())
            .map(|c| self.shapes.hash(c))
            .collect();
        hashes.sort_unstable();
        hashes.dedup();
        let mut h = self.shapes.hash(&q.expr);
        for x in hashes {
            h = (h.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        h
    }

    /// The earlier answer to a query of `q`'s canonical form, over `q`'s
    /// arrays.
    fn lookup(&mut self, shape: u64, q: &Query<'_>) -> Option<Answer> {
        let entries = self.entries.get_mut(&shape)?;
        let c = canonical_form(q.constraints, &q.expr, &mut self.arrays);
        for e in entries.iter_mut() {
            let ec = e
                .canonical
                .get_or_insert_with(|| canonical_form(&e.constraints, &e.expr, &mut self.arrays));
            if ec.constraints != c.constraints || ec.expr != c.expr {
                continue;
            }
            return match (&e.answer, q.model) {
                (Answer::Unsat, _) => Some(Answer::Unsat),
                (Answer::Sat(_), None) => Some(Answer::Sat(None)),
                (Answer::Sat(Some(m)), Some(wanted)) => {
                    let mut model = renamed(m, &ec.renaming, &c.renaming)?;
                    // Arrays asked for that the query does not read may
                    // take any value.
                    for a in wanted {
                        if !model.contains(a) {
                            model.set(a, vec![0; a.size as usize]);
                        }
                    }
                    Some(Answer::Sat(Some(model)))
                }
                (Answer::Sat(None), Some(_)) => None,
            };
        }
        None
    }

    fn store(&mut self, shape: u64, q: &Query<'_>, answer: Answer) {
        if self.stored + q.constraints.len() > self.limit || self.shapes.remembered() > self.limit {
            self.entries.clear();
            self.shapes = ShapeHasher::default();
            self.stored = 0;
        }
        let entries = self.entries.entry(shape).or_default();
        if let Some(e) = entries
            .iter_mut()
            .find(|e| *e.constraints == *q.constraints && e.expr == q.expr)
        {
            // Asked again for a model it had not given.
            e.answer = answer;
            return;
        }
        self.stored += q.constraints.len() + 1;
        entries.push(Entry {
            constraints: q.constraints.into(),
            expr: q.expr.clone(),
            answer,
            canonical: None,
        });
    }
}

impl Default for CanonCacheLayer {
    fn default() -> Self {
        CanonCacheLayer::new(1 << 20)
    }
}

/// `model`, over the arrays of one query (`from`: its arrays with their
/// canonical stand-ins), moved to the arrays of another of the same
/// canonical form (`to`). Arrays with fixed contents are not part of a
/// model. `None` when a symbolic array has no bytes in `model`.
fn renamed(
    model: &Assignment,
    from: &[(ArrayRef, ArrayRef)],
    to: &[(ArrayRef, ArrayRef)],
) -> Option<Assignment> {
    let mut out = Assignment::new();
    for (own, canonical) in to.iter().filter(|(own, _)| own.init.is_none()) {
        let (theirs, _) = from
            .iter()
            .find(|(_, c)| std::sync::Arc::ptr_eq(c, canonical))?;
        out.set(own, model.get(theirs)?.to_vec());
    }
    Some(out)
}

impl Layer for CanonCacheLayer {
    fn name(&self) -> &'static str {
        "canon-cache"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let shape = self.shape(q);
        if let Some(answer) = self.lookup(shape, q) {
            next.stats().cache_hits += 1;
            next.stats().hit(self.name());
            return Ok(answer);
        }
        let answer = next.check(q)?;
        self.store(shape, q, answer.clone());
        Ok(answer)
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::{self, constant, read, Array, ArrayRef, Evaluator, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef) -> expr::ExprRef {
        read(&UpdateList::new(a.clone()), &constant(0, 64))
    }

    fn solver() -> Solver {
        let config = SolverConfig {
            chain: "canon-cache,z3".parse().unwrap(),
            ..SolverConfig::default()
        };
        Solver::new(config)
    }

    #[test]
    fn a_renamed_query_is_answered_without_z3_and_its_model_is_its_own() {
        let mut s = solver();
        let (x, y) = (Array::symbolic("x", 1), Array::symbolic("y", 1));
        let q = |a: &ArrayRef| {
            (
                vec![expr::ult(&constant(10, 8), &byte(a))],
                expr::eq(&expr::mul(&byte(a), &byte(a)), &constant(121, 8)),
            )
        };
        let (cx, ex) = q(&x);
        let mut all = cx.clone();
        all.push(ex.clone());
        let mx = s
            .get_model(&all, std::slice::from_ref(&x))
            .unwrap()
            .unwrap();
        let calls = s.stats().z3_calls;
        let (cy, ey) = q(&y);
        let mut all = cy.clone();
        all.push(ey.clone());
        let my = s
            .get_model(&all, std::slice::from_ref(&y))
            .unwrap()
            .unwrap();
        assert_eq!(s.stats().z3_calls, calls, "the renamed query reached Z3");
        assert_eq!(mx.get(&x), my.get(&y));
        let mut e = Evaluator::new(&my);
        assert!(all.iter().all(|c| e.eval(c) == 1));
        // Unsatisfiable answers carry over as well.
        let none = expr::eq(&byte(&x), &constant(3, 8));
        assert!(!s.may_be_true(&cx, &none).unwrap());
        let calls = s.stats().z3_calls;
        assert!(!s
            .may_be_true(&cy, &expr::eq(&byte(&y), &constant(3, 8)))
            .unwrap());
        assert_eq!(s.stats().z3_calls, calls);
    }

    #[test]
    fn a_model_follows_the_arrays_across_a_renaming_that_swaps_them() {
        let mut s = solver();
        let (x, y) = (Array::symbolic("x", 1), Array::symbolic("y", 1));
        let xy = expr::ult(&byte(&x), &byte(&y));
        let m = s
            .get_model(&[xy], &[x.clone(), y.clone()])
            .unwrap()
            .unwrap();
        assert!(m.get(&x).unwrap()[0] < m.get(&y).unwrap()[0]);
        let calls = s.stats().z3_calls;
        let yx = expr::ult(&byte(&y), &byte(&x));
        let m = s
            .get_model(std::slice::from_ref(&yx), &[x.clone(), y.clone()])
            .unwrap()
            .unwrap();
        assert_eq!(s.stats().z3_calls, calls, "the swapped query reached Z3");
        assert_eq!(Evaluator::new(&m).eval(&yx), 1);
        assert_eq!(s.stats().bad_models, 0);
    }

    #[test]
    fn a_query_over_other_values_is_asked_anew() {
        let mut s = solver();
        let x = Array::symbolic("x", 1);
        assert!(s
            .may_be_true(&[], &expr::eq(&byte(&x), &constant(3, 8)))
            .unwrap());
        let calls = s.stats().z3_calls;
        assert!(s
            .may_be_true(&[], &expr::eq(&byte(&x), &constant(4, 8)))
            .unwrap());
        assert_eq!(s.stats().z3_calls, calls + 1);
    }
}
