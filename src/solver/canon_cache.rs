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
//!
//! The table of answers can be one for all a run's workers
//! ([`SharedCanonCache`]): what one worker learnt of a loop's queries,
//! another's paths through the same loop ask again (with 16 workers each
//! learning alone, a container filled with symbolic keys asked Z3 2.9
//! times as often as one worker did). Hashing a query's shape and making
//! its canonical form are the expensive steps, and each worker does them
//! on its own: the shape hasher is the worker's, an entry's canonical form
//! is made once by whichever worker needs it first, and the table's locks,
//! one per shard of shapes, are held only to find and to add entries. A
//! single lock held while queries were hashed made 16 workers slower than
//! 16 tables of their own.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
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
    canonical: OnceLock<Canonical>,
}

/// Whether two canonical forms are the same query (their arrays' renamings
/// aside).
fn same(a: &Canonical, b: &Canonical) -> bool {
    a.constraints == b.constraints && a.expr == b.expr
}

/// Shards of the table, each on a cache line of its own: enough that 16
/// workers rarely wait on each other.
const SHARDS: usize = 64;

/// Entries by shape.
type Shard = Mutex<FxHashMap<u64, Vec<Arc<Entry>>>>;

/// The answers, by shape, of the solvers that hold the table.
struct Table {
    shards: Vec<CachePadded<Shard>>,
    /// Expressions held by the entries, bounded as the exact cache is.
    stored: AtomicUsize,
    limit: usize,
}

impl Table {
    fn new(limit: usize) -> Self {
        Table {
            shards: (0..SHARDS).map(|_| CachePadded::default()).collect(),
            stored: AtomicUsize::new(0),
            limit,
        }
    }

    fn shard(&self, shape: u64) -> &Shard {
        &self.shards[(shape >> 58) as usize % SHARDS]
    }

    fn has(&self, shape: u64) -> bool {
        self.shard(shape).lock().contains_key(&shape)
    }

    /// The entry of `shape` whose canonical form is `c`, if one with its
    /// canonical form made is; else the entries whose form is still to be
    /// made, to be made with none of the table locked.
    fn find(&self, shape: u64, c: &Canonical) -> Result<Arc<Entry>, Vec<Arc<Entry>>> {
        let shard = self.shard(shape).lock();
        let mut unmade = Vec::new();
        for e in shard.get(&shape).into_iter().flatten() {
            match e.canonical.get() {
                Some(ec) if same(ec, c) => return Ok(e.clone()),
                Some(_) => {}
                None => unmade.push(e.clone()),
            }
        }
        Err(unmade)
    }

    fn store(&self, shape: u64, q: &Query<'_>, answer: Answer) {
        let size = q.constraints.len() + 1;
        if self.stored.fetch_add(size, Ordering::Relaxed) + size > self.limit {
            for shard in &self.shards {
                shard.lock().clear();
            }
            self.stored.store(size, Ordering::Relaxed);
        }
        let entry = Arc::new(Entry {
            constraints: q.constraints.into(),
            expr: q.expr.clone(),
            answer,
            canonical: OnceLock::new(),
        });
        let mut shard = self.shard(shape).lock();
        let entries = shard.entry(shape).or_default();
        match entries
            .iter_mut()
            .find(|e| *e.constraints == *q.constraints && e.expr == q.expr)
        {
            // Asked again for a model it had not given.
            Some(e) => *e = entry,
            None => entries.push(entry),
        }
    }
}

/// A table of answers by canonical form for the solvers of all a run's
/// workers (see the module's comment); each solver's `canon-cache` layer
/// made with it answers from it and adds to it.
#[derive(Clone)]
pub struct SharedCanonCache(Arc<Table>);

impl Default for SharedCanonCache {
    fn default() -> Self {
        SharedCanonCache(Arc::new(Table::new(DEFAULT_LIMIT)))
    }
}

impl std::fmt::Debug for SharedCanonCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedCanonCache")
    }
}

/// Expressions the table holds before it starts again.
const DEFAULT_LIMIT: usize = 1 << 20;

/// Answers by canonical form, found through the queries' shapes.
pub struct CanonCacheLayer {
    arrays: CanonicalArrays,
    shapes: ShapeHasher,
    table: Arc<Table>,
}

impl CanonCacheLayer {
    /// A cache of its own whose entries hold up to `limit` expressions in
    /// total.
    pub fn new(limit: usize) -> Self {
        CanonCacheLayer::sharing(&SharedCanonCache(Arc::new(Table::new(limit))))
    }

    /// A cache that answers from `shared` and adds to it.
    pub fn sharing(shared: &SharedCanonCache) -> Self {
        CanonCacheLayer {
            arrays: CanonicalArrays::default(),
            shapes: ShapeHasher::default(),
            table: shared.0.clone(),
        }
    }

    /// A hash equal for queries with equal canonical forms: the set of
    /// their conjuncts' shapes, and the condition's.
    fn shape(&mut self, q: &Query<'_>) -> u64 {
        if self.shapes.remembered() > self.table.limit {
            self.shapes = ShapeHasher::default();
        }
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
        if !self.table.has(shape) {
            return None;
        }
        let c = canonical_form(q.constraints, &q.expr, &mut self.arrays);
        let e = match self.table.find(shape, &c) {
            Ok(e) => e,
            // Canonical arrays are interned by name, size and contents, so
            // forms made by different workers are the same expressions.
            Err(unmade) => unmade.into_iter().find(|e| {
                let ec = e
                    .canonical
                    .get_or_init(|| canonical_form(&e.constraints, &e.expr, &mut self.arrays));
                same(ec, &c)
            })?,
        };
        let ec = e.canonical.get()?;
        match (&e.answer, q.model) {
            (Answer::Unsat, _) => Some(Answer::Unsat),
            (Answer::Sat(_), None) => Some(Answer::Sat(None)),
            (Answer::Sat(Some(m)), Some(wanted)) => {
                let mut model = renamed(m, &ec.renaming, &c.renaming)?;
                // Arrays asked for that the query does not read may take
                // any value.
                for a in wanted {
                    if !model.contains(a) {
                        model.set(a, vec![0; a.size as usize]);
                    }
                }
                Some(Answer::Sat(Some(model)))
            }
            (Answer::Sat(None), Some(_)) => None,
        }
    }
}

impl Default for CanonCacheLayer {
    fn default() -> Self {
        CanonCacheLayer::new(DEFAULT_LIMIT)
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
        self.table.store(shape, q, answer.clone());
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
    fn solvers_sharing_the_cache_answer_each_others_queries_in_threads_of_their_own() {
        let config = SolverConfig {
            chain: "canon-cache,z3".parse().unwrap(),
            canon_cache: Some(super::SharedCanonCache::default()),
            ..SolverConfig::default()
        };
        let q = |a: &ArrayRef| {
            vec![
                expr::ult(&constant(10, 8), &byte(a)),
                expr::eq(&expr::mul(&byte(a), &byte(a)), &constant(121, 8)),
            ]
        };
        // Workers that each ask about arrays of their own, at once: every
        // answer is right, and the table ends up answering all of them.
        let workers: Vec<_> = (0..4)
            .map(|i| {
                let config = config.clone();
                std::thread::spawn(move || {
                    let mut s = Solver::new(config);
                    for round in 0..20 {
                        let x = Array::symbolic(&format!("w{i}r{round}"), 1);
                        let m = s
                            .get_model(&q(&x), std::slice::from_ref(&x))
                            .unwrap()
                            .unwrap();
                        let mut e = Evaluator::new(&m);
                        assert!(q(&x).iter().all(|c| e.eval(c) == 1));
                    }
                    s.stats().z3_calls
                })
            })
            .collect();
        let asked: u64 = workers.into_iter().map(|w| w.join().unwrap()).sum();
        assert!(
            (1..=4).contains(&asked),
            "{asked} Z3 calls for one question"
        );
        let y = Array::symbolic("y", 1);
        let mut other = Solver::new(config);
        let m = other
            .get_model(&q(&y), std::slice::from_ref(&y))
            .unwrap()
            .unwrap();
        assert_eq!(
            other.stats().z3_calls,
            0,
            "the other solvers' answer was not used"
        );
        let mut e = Evaluator::new(&m);
        assert!(q(&y).iter().all(|c| e.eval(c) == 1));
        // A solver of its own asks Z3.
        let mut own = solver();
        own.get_model(&q(&y), std::slice::from_ref(&y)).unwrap();
        assert_eq!(own.stats().z3_calls, 1);
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
