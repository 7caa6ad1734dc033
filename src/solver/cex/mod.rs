//! KLEE's counterexample cache: answers kept by the set of a query's
//! conjuncts, reused through subset and superset relations.
//!
//! - A stored unsatisfiable set that is a subset of the query's conjuncts:
//!   the query is unsatisfiable.
//! - A stored satisfiable set that is a superset: its model satisfies the
//!   query.
//! - Otherwise the models of stored subsets and the last few models found
//!   are tried on the query by evaluation: successive queries of one path
//!   share almost all their constraints, so the parent's model usually
//!   satisfies one side of the next branch.
//!
//! To have models to reuse, queries passed on ask for a model of every
//! array they read.
//!
//! Trying models costs an evaluation of the query per model, which on deep
//! arithmetic (a Collatz loop) is a tenth of a Z3 call: where they keep
//! failing, they are tried on a sample of queries only (see [`Tries`]).

mod subsets;

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHasher};
use std::hash::{Hash, Hasher};

use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{arrays_in_all, ArrayRef, Assignment, Evaluator, ExprRef};
use subsets::SubsetTrie;

/// Stored sets beyond this many start the cache afresh (memory bound).
const MAX_ENTRIES: usize = 8192;
/// Subset trie nodes beyond this many (about 40 MiB) start the cache
/// afresh too.
const MAX_NODES: usize = 1 << 20;
/// Models of subsets tried on one query, at most.
const MAX_TRIES: usize = 16;
/// Trying models goes on while at least one query in this many finds a
/// model that answers it; below that, only every this-many-th query tries.
const TRY_RATE: u64 = 16;

/// How trying stored models on queries has paid: counted in queries, not
/// time, so that a run asks the same questions whatever the machine's load.
#[derive(Default)]
struct Tries {
    /// Queries on which models were tried.
    tried: u64,
    /// Of those, the ones a model answered.
    answered: u64,
    /// Queries the exact, subset and superset lookups did not answer.
    queries: u64,
}

impl Tries {
    /// Whether to try models on the next query: while they answer one
    /// query in `TRY_RATE` (and on the first ones), and on a sample after.
    fn worth_it(&mut self) -> bool {
        self.queries += 1;
        let go = self.tried < TRY_RATE
            || self.answered * TRY_RATE >= self.tried
            || self.queries.is_multiple_of(TRY_RATE);
        if go {
            self.tried += 1;
        }
        go
    }
}

/// One stored answer: the conjuncts, and the model (`None`: unsatisfiable).
struct Entry {
    set: Box<[ExprRef]>,
    model: Option<Assignment>,
}

/// An entry in an index list, with its set's [`signature`], so that most
/// entries that cannot be a subset or superset are passed over without
/// reading them (on who, reading them was 13% of the run).
#[derive(Clone, Copy)]
struct Listed {
    id: u32,
    signature: u64,
}

/// One bit per conjunct, by its hash: a set is a subset of another only
/// if its signature's bits are among the other's.
fn signature(set: &[ExprRef]) -> u64 {
    set.iter().fold(0, |sig, c| {
        let mut h = FxHasher::default();
        c.hash(&mut h);
        sig | 1 << (h.finish() >> 58)
    })
}

/// The counterexample cache layer.
pub struct CexCache {
    entries: Vec<Entry>,
    exact: FxHashMap<Box<[ExprRef]>, u32>,
    /// Conjunct -> the entries whose set holds it: a stored superset of a
    /// query is in the list of each of its conjuncts, so the shortest list
    /// is the only one to search.
    index: FxHashMap<ExprRef, Vec<Listed>>,
    /// The stored sets, for the subsets of a query.
    subsets: SubsetTrie,
    recent: VecDeque<Assignment>,
    capacity: usize,
    tries: Tries,
}

impl CexCache {
    /// A cache also trying the `recent` most recent models.
    pub fn new(recent: usize) -> Self {
        CexCache {
            entries: Vec::new(),
            exact: FxHashMap::default(),
            index: FxHashMap::default(),
            subsets: SubsetTrie::default(),
            recent: VecDeque::with_capacity(recent),
            capacity: recent,
            tries: Tries::default(),
        }
    }

    fn lookup(&mut self, set: &[ExprRef], q: &Query<'_>) -> Option<Answer> {
        if let Some(&id) = self.exact.get(set) {
            return Some(answer_of(&self.entries[id as usize]));
        }
        let mut subsets_with_models = Vec::new();
        let mut unsat = false;
        let entries = &self.entries;
        self.subsets.subsets(set, |id| {
            unsat = entries[id as usize].model.is_none();
            if !unsat {
                subsets_with_models.push(id);
            }
            !unsat
        });
        if unsat {
            return Some(Answer::Unsat);
        }
        let holds = |sorted: &[ExprRef], c: &ExprRef| sorted.binary_search(c).is_ok();
        let sig = signature(set);
        let rarest = set
            .iter()
            .map(|c| self.index.get(c).map_or(&[][..], |v| v.as_slice()))
            .min_by_key(|ids| ids.len())
            .unwrap_or(&[]);
        for l in rarest.iter().filter(|l| sig & !l.signature == 0) {
            let e = &self.entries[l.id as usize];
            if let Some(m) = &e.model {
                if e.set.len() >= set.len() && set.iter().all(|c| holds(&e.set, c)) {
                    return Some(Answer::Sat(Some(m.clone())));
                }
            }
        }
        if !self.tries.worth_it() {
            return None;
        }
        let satisfies = |m: &Assignment| {
            let mut ev = Evaluator::new(m);
            ev.eval(&q.expr) == 1 && q.constraints.iter().all(|c| ev.eval(c) == 1)
        };
        // Larger subsets first: their models satisfy more of the query.
        subsets_with_models
            .sort_by_key(|&id| std::cmp::Reverse((self.entries[id as usize].set.len(), id)));
        let found = self
            .recent
            .iter()
            .chain(
                subsets_with_models
                    .iter()
                    .take(MAX_TRIES)
                    .filter_map(|&id| self.entries[id as usize].model.as_ref()),
            )
            .find(|m| satisfies(m))
            .map(|m| Answer::Sat(Some(m.clone())));
        if found.is_some() {
            self.tries.answered += 1;
        }
        found
    }

    fn insert(&mut self, set: Box<[ExprRef]>, model: Option<Assignment>) {
        if self.exact.contains_key(&set) {
            return;
        }
        if self.entries.len() >= MAX_ENTRIES || self.subsets.nodes() + set.len() > MAX_NODES {
            self.entries.clear();
            self.exact.clear();
            self.index.clear();
            self.subsets = SubsetTrie::default();
        }
        let id = self.entries.len() as u32;
        let listed = Listed {
            id,
            signature: signature(&set),
        };
        for c in set.iter() {
            self.index.entry(c.clone()).or_default().push(listed);
        }
        self.subsets.insert(&set, id);
        self.exact.insert(set.clone(), id);
        self.entries.push(Entry { set, model });
    }
}

impl Default for CexCache {
    fn default() -> Self {
        CexCache::new(8)
    }
}

fn answer_of(e: &Entry) -> Answer {
    match &e.model {
        None => Answer::Unsat,
        Some(m) => Answer::Sat(Some(m.clone())),
    }
}

/// The query's conjuncts as a set: sorted, without repeats, without `true`.
fn conjunct_set(q: &Query<'_>) -> Box<[ExprRef]> {
    let mut set: Vec<ExprRef> = q
        .constraints
        .iter()
        .chain(std::iter::once(&q.expr))
        .filter(|c| !c.is_true())
        .cloned()
        .collect();
    set.sort();
    set.dedup();
    set.into()
}

impl Layer for CexCache {
    fn name(&self) -> &'static str {
        "cex"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let set = conjunct_set(q);
        if let Some(answer) = self.lookup(&set, q) {
            next.stats().cache_hits += 1;
            next.stats().hit(self.name());
            return Ok(match (answer, q.model) {
                (Answer::Sat(_), None) => Answer::Sat(None),
                (Answer::Sat(Some(m)), Some(wanted)) => Answer::Sat(Some(complete(&m, wanted))),
                (a, _) => a,
            });
        }
        let mut arrays: Vec<ArrayRef> = q.model.map(|w| w.to_vec()).unwrap_or_default();
        arrays_in_all(q.constraints, &mut arrays);
        arrays_in_all(std::slice::from_ref(&q.expr), &mut arrays);
        let answer = next.check(&Query {
            constraints: q.constraints,
            expr: q.expr.clone(),
            model: Some(&arrays),
        })?;
        match &answer {
            Answer::Sat(Some(m)) => {
                if self.recent.len() == self.capacity {
                    self.recent.pop_back();
                }
                self.recent.push_front(m.clone());
                self.insert(set, Some(m.clone()));
            }
            Answer::Unsat => self.insert(set, None),
            Answer::Sat(None) => {}
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
    fn models_that_keep_failing_are_tried_on_a_sample_of_queries_only() {
        let mut tries = super::Tries::default();
        let first: Vec<bool> = (0..super::TRY_RATE).map(|_| tries.worth_it()).collect();
        assert!(first.iter().all(|t| *t), "the first queries try models");
        let later: Vec<bool> = (0..4 * super::TRY_RATE).map(|_| tries.worth_it()).collect();
        assert_eq!(later.iter().filter(|t| **t).count(), 4, "{later:?}");
        // Models that start answering are tried on every query again.
        tries.answered = tries.tried;
        assert!((0..super::TRY_RATE).all(|_| tries.worth_it()));
    }

    #[test]
    fn the_parent_model_answers_one_side_of_a_branch() {
        let arr = Array::symbolic("x", 1);
        let x = expr::read(&UpdateList::new(arr.clone()), &expr::constant(0, 64));
        // The default chain but `enumerate`, which would answer these
        // one-byte queries without Z3.
        let mut s = Solver::new(SolverConfig {
            chain: "slice,store,cache,cex,reduce,canon-cache,z3-auto"
                .parse()
                .unwrap(),
            ..SolverConfig::default()
        });
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
        let m = s
            .get_model(&path, std::slice::from_ref(&arr))
            .unwrap()
            .expect("sat");
        assert!(m.get(&arr).expect("assigned")[0] < 100);
        assert_eq!(s.stats().bad_models, 0);
    }

    fn byte(a: &crate::expr::ArrayRef) -> crate::expr::ExprRef {
        expr::read(&UpdateList::new(a.clone()), &expr::constant(0, 64))
    }

    fn cex_solver() -> Solver {
        Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(super::CexCache::new(0))],
        )
    }

    #[test]
    fn an_unsatisfiable_subset_answers_a_larger_query() {
        let (x, y) = (Array::symbolic("cx_x", 1), Array::symbolic("cx_y", 1));
        let (a, b) = (byte(&x), byte(&y));
        let lo = expr::ult(&a, &expr::constant(3, 8));
        let hi = expr::ugt(&a, &expr::constant(7, 8));
        let mut s = cex_solver();
        assert!(!s.may_be_true(std::slice::from_ref(&lo), &hi).unwrap());
        let more = vec![lo.clone(), expr::eq(&b, &expr::constant(1, 8))];
        assert!(!s.may_be_true(&more, &hi).unwrap());
        let st = s.stats();
        assert_eq!((st.z3_calls, st.hits.get("cex")), (1, Some(&1)), "{st:?}");
    }

    #[test]
    fn a_satisfiable_superset_answers_a_smaller_query() {
        let (x, y) = (Array::symbolic("cs_x", 1), Array::symbolic("cs_y", 1));
        let (a, b) = (byte(&x), byte(&y));
        let c1 = expr::ult(&a, &expr::constant(3, 8));
        let c2 = expr::eq(&b, &expr::constant(9, 8));
        let c3 = expr::ult(&b, &a);
        let mut s = cex_solver();
        let m = s
            .get_model(&[c1.clone(), c2.clone()], std::slice::from_ref(&x))
            .unwrap();
        assert!(m.is_some());
        // {c1} is a subset of the stored {c1, c2}: answered without Z3, and
        // the model covers the wanted array even so.
        let m = s
            .get_model(std::slice::from_ref(&c1), &[x.clone(), y.clone()])
            .unwrap()
            .unwrap();
        assert!(m.get(&x).unwrap()[0] < 3);
        assert_eq!(s.stats().z3_calls, 1);
        // {c1, c2, c3} is unsatisfiable (b = 9 > a): still answered right.
        assert!(!s.may_be_true(&[c1, c2], &c3).unwrap());
        assert_eq!(s.stats().bad_models, 0);
    }

    #[test]
    fn random_queries_agree_with_z3() {
        use crate::expr::proptests::{build, Env, Gen};
        let env = Env::new("cexr");
        let mut g = Gen::new(23);
        let mut cex = Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(super::CexCache::default())],
        );
        let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
        let pool: Vec<crate::expr::ExprRef> = (0..8).map(|_| build(&g.gen(1, 2), &env)).collect();
        let mut rng = 7u64;
        let mut pick = |n: usize| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (rng >> 33) as usize % n
        };
        for round in 0..150 {
            let cs: Vec<_> = (0..pick(4))
                .map(|_| pool[pick(pool.len())].clone())
                .collect();
            let e = pool[pick(pool.len())].clone();
            let a = cex
                .get_model(&[cs.clone(), vec![e.clone()]].concat(), &env.sym)
                .unwrap();
            let b = plain.get_model(&[cs, vec![e]].concat(), &env.sym).unwrap();
            assert_eq!(a.is_some(), b.is_some(), "round {round}");
        }
        assert_eq!(cex.stats().bad_models, 0);
        assert!(cex.stats().hits.get("cex").copied().unwrap_or(0) > 20);
    }
}
