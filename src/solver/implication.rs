//! GreenTrie's implication store (L-Trie): solved constraint sets in two
//! tries, reused through logical implication rather than equality.
//!
//! - Satisfiable sets (with their model) are looked up as logical
//!   supersets: a stored set such that every conjunct of the query is
//!   implied by one of its conjuncts; the stored model then satisfies the
//!   query (it is checked by evaluation before use all the same).
//! - Unsatisfiable sets are looked up as logical subsets: a stored path
//!   each of whose labels is implied by some conjunct of the query; the
//!   query is then unsatisfiable. What is stored is the unsat core of the
//!   query when the Z3 layer gives one (the fresh `z3` layer does): the
//!   fewer conjuncts a stored set has, the more queries imply them all.
//! - When no stored set answers by implication, the models of the stored
//!   satisfiable sets that imply the most of the query's conjuncts are
//!   tried on it by evaluation (a partial superset: its model already
//!   satisfies those conjuncts). A changed program asks about a region
//!   next to the one its earlier version asked about (a mutated `<=`
//!   becomes `<`, and every later path condition differs in that one
//!   conjunct), and a point of the old region very often lies in the new
//!   one; no implication between the two sets can show it, evaluation can.
//!
//! Implication between conjuncts is decided on atoms (`term ∈ set`, see
//! [`super::interval`]): only conjuncts about the same term can imply each
//! other, so each trie keeps an index from term to the distinct labels
//! about it (the paper's implication partial order graph, grouped by
//! non-constant part). Conjuncts are ordered canonically along trie paths.
//!
//! With a store, every entry is also written there (prefix `I`) and the
//! entries of earlier runs are loaded when the layer starts.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::equiv::{decode_answer, encode_answer};
use super::interval::{atom_of, Atom};
use super::query::{Answer, Chain, Layer, Query};
use super::store::Backend;
use super::SolverError;
use crate::expr::{arrays_in_all, serial, ArrayRef, Assignment, Evaluator, ExprRef};

/// Keys of the implication store's entries in a backend start with this.
const KEY_PREFIX: u8 = b'I';
/// Trie nodes beyond this many start the tries afresh (memory bound).
const MAX_NODES: usize = 1 << 18;
/// Trie nodes visited by one superset search, at most.
const SEARCH_BUDGET: usize = 20_000;
/// Models of partial supersets tried on one query, at most: evaluation is
/// cheap, but a query no stored model satisfies pays for every try.
const MODEL_TRIES: usize = 16;

/// A trie node, by index in its trie's arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct NodeId(u32);

/// A model of a stored satisfiable set, by index in its trie's `models`.
type ModelId = u32;

#[derive(Default)]
struct Node {
    children: Vec<(ExprRef, NodeId)>,
    /// Set when a stored constraint set ends here (with its model on the
    /// satisfiable side).
    end: Option<Option<ModelId>>,
}

/// One L-Trie: a trie of canonically ordered conjunct sets and the index of
/// its labels by term.
#[derive(Default)]
struct LTrie {
    nodes: Vec<Node>,
    /// Term -> the distinct labels about it, with their atoms.
    labels: FxHashMap<ExprRef, Vec<(ExprRef, Atom)>>,
    known: FxHashSet<ExprRef>,
    /// The models of the stored satisfiable sets.
    models: Vec<Assignment>,
    /// Label -> the stored satisfiable sets holding it (by model), so that
    /// the sets sharing the most with a query are found without a walk of
    /// the trie.
    holders: FxHashMap<ExprRef, Vec<ModelId>>,
}

impl LTrie {
    fn root(&mut self) -> NodeId {
        if self.nodes.is_empty() {
            self.nodes.push(Node::default());
        }
        NodeId(0)
    }

    fn clear(&mut self) {
        *self = LTrie::default();
    }

    fn insert(&mut self, set: &[(ExprRef, Atom)], model: Option<Assignment>) {
        if self.nodes.len() + set.len() > MAX_NODES {
            self.clear();
        }
        let mut at = self.root();
        for (label, atom) in set {
            if self.known.insert(label.clone()) {
                self.labels
                    .entry(atom.term.clone())
                    .or_default()
                    .push((label.clone(), atom.clone()));
            }
            let found = self.nodes[at.0 as usize]
                .children
                .iter()
                .find(|(l, _)| l == label)
                .map(|(_, n)| *n);
            at = match found {
                Some(n) => n,
                None => {
                    let n = NodeId(self.nodes.len() as u32);
                    self.nodes.push(Node::default());
                    self.nodes[at.0 as usize].children.push((label.clone(), n));
                    n
                }
            };
        }
        let end = &mut self.nodes[at.0 as usize].end;
        if end.is_some() {
            // Already stored: one model per set is enough.
            return;
        }
        *end = Some(model.map(|m| {
            let id = self.models.len() as ModelId;
            self.models.push(m);
            for (label, _) in set {
                self.holders.entry(label.clone()).or_default().push(id);
            }
            id
        }));
    }

    /// The stored labels `atom` implies (the paper's IS).
    fn implied_by(&self, atom: &Atom, out: &mut FxHashSet<ExprRef>) {
        for (label, a) in self
            .labels
            .get(&atom.term)
            .map_or(&[][..], |v| v.as_slice())
        {
            if atom.implies(a) {
                out.insert(label.clone());
            }
        }
    }

    /// Whether some stored set consists only of labels in `allowed`: a
    /// logical subset of the query.
    fn has_path_within(&self, allowed: &FxHashSet<ExprRef>) -> bool {
        if self.nodes.is_empty() {
            return false;
        }
        let mut stack = vec![NodeId(0)];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n.0 as usize];
            if node.end.is_some() {
                return true;
            }
            for (label, child) in &node.children {
                if allowed.contains(label) {
                    stack.push(*child);
                }
            }
        }
        false
    }

    /// Models of stored sets that imply every one of `query`'s atoms: for
    /// each query atom, the labels implying it are known (the paper's RIS);
    /// a path covering all of them is a logical superset.
    fn superset_models(&self, query: &[Atom], limit: usize) -> Vec<&Assignment> {
        if self.nodes.is_empty() {
            return Vec::new();
        }
        // Label -> the query atoms it implies (as a bit set).
        let words = query.len().div_ceil(64);
        let mut covers: FxHashMap<&ExprRef, Vec<u64>> = FxHashMap::default();
        for (i, q) in query.iter().enumerate() {
            for (label, a) in self.labels.get(&q.term).map_or(&[][..], |v| v.as_slice()) {
                if a.implies(q) {
                    covers.entry(label).or_insert_with(|| vec![0; words])[i / 64] |= 1 << (i % 64);
                }
            }
        }
        let full: Vec<u64> = (0..words)
            .map(|w| {
                let bits = (query.len() - w * 64).min(64);
                if bits == 64 {
                    u64::MAX
                } else {
                    (1u64 << bits) - 1
                }
            })
            .collect();
        let mut out = Vec::new();
        let mut budget = SEARCH_BUDGET;
        let mut stack = vec![(NodeId(0), vec![0u64; words])];
        while let Some((n, covered)) = stack.pop() {
            if budget == 0 || out.len() >= limit {
                break;
            }
            budget -= 1;
            let node = &self.nodes[n.0 as usize];
            if covered == full {
                // Every set stored below this node is a superset.
                if let Some(Some(m)) = node.end {
                    out.push(&self.models[m as usize]);
                }
            }
            for (label, child) in &node.children {
                let mut c = covered.clone();
                if let Some(bits) = covers.get(label) {
                    for (x, b) in c.iter_mut().zip(bits) {
                        *x |= b;
                    }
                }
                stack.push((*child, c));
            }
        }
        out
    }

    /// Models of the stored satisfiable sets that imply the most of
    /// `query`'s atoms (each set counted once per atom it covers), best
    /// first, the newest first among equals; at most `limit`.
    fn similar_models(&self, query: &[Atom], limit: usize) -> Vec<&Assignment> {
        let mut score: FxHashMap<ModelId, u32> = FxHashMap::default();
        let mut counted: FxHashSet<ModelId> = FxHashSet::default();
        for q in query {
            counted.clear();
            for (label, a) in self.labels.get(&q.term).map_or(&[][..], |v| v.as_slice()) {
                if !a.implies(q) {
                    continue;
                }
                for &id in self.holders.get(label).map_or(&[][..], |v| v.as_slice()) {
                    if counted.insert(id) {
                        *score.entry(id).or_default() += 1;
                    }
                }
            }
        }
        let mut ranked: Vec<(u32, ModelId)> = score.into_iter().map(|(id, n)| (n, id)).collect();
        ranked.sort_unstable_by(|a, b| b.cmp(a));
        ranked
            .into_iter()
            .take(limit)
            .map(|(_, id)| &self.models[id as usize])
            .collect()
    }
}

/// A stored entry, as persisted.
#[derive(Clone, Debug)]
pub struct ImplicationEntry {
    pub sat: bool,
    pub conjuncts: Vec<ExprRef>,
    pub model: Option<Assignment>,
}

/// The implication-store layer.
#[derive(Default)]
pub struct ImplicationLayer {
    sat: LTrie,
    unsat: LTrie,
    backend: Option<Arc<dyn Backend>>,
    warned: bool,
}

impl ImplicationLayer {
    /// A layer remembering within this run only.
    pub fn new() -> Self {
        Self::default()
    }

    /// A layer that loads the entries kept in `backend` and keeps its new
    /// ones there.
    pub fn with_store(backend: Arc<dyn Backend>) -> Self {
        let mut layer = ImplicationLayer {
            backend: Some(backend.clone()),
            ..Self::default()
        };
        match backend.scan_prefix(&[KEY_PREFIX]) {
            Ok(entries) => {
                let mut decoder = serial::Decoder::new();
                for (_, value) in entries {
                    // An entry that does not decode is skipped: it may come
                    // from another version.
                    if let Some(e) = decode_entry(&mut decoder, &value) {
                        layer.insert_entry(e);
                    }
                }
            }
            Err(e) => layer.warn(e),
        }
        layer
    }

    fn warn(&mut self, what: impl std::fmt::Display) {
        if !self.warned {
            self.warned = true;
            eprintln!("mnemo: warning: implication store: {what}");
        }
    }

    /// Adds a solved set.
    pub fn insert_entry(&mut self, e: ImplicationEntry) {
        let Some(set) = atoms_of(&e.conjuncts) else {
            return;
        };
        if e.sat {
            if let Some(m) = e.model {
                self.sat.insert(&set, Some(m));
            }
        } else {
            self.unsat.insert(&set, None);
        }
    }

    fn persist(&mut self, e: &ImplicationEntry) {
        let Some(backend) = self.backend.clone() else {
            return;
        };
        let encoded = encode_entry(e);
        let mut key = vec![KEY_PREFIX];
        key.extend_from_slice(blake3::hash(&encoded).as_bytes());
        if let Err(err) = backend.put(&key, &encoded) {
            self.warn(err);
        }
    }
}

/// The conjuncts of `exprs` (conjunctions split, `true` dropped), sorted and
/// without repeats, with their atoms; `None` when one of them is `false`.
fn atoms_of(exprs: &[ExprRef]) -> Option<Vec<(ExprRef, Atom)>> {
    let mut out: Vec<ExprRef> = Vec::new();
    crate::expr::conjuncts(exprs, &mut out);
    out.sort();
    out.dedup();
    // Every non-constant width-1 expression is an atom; a constant left
    // after splitting is `false`.
    out.into_iter()
        .map(|e| atom_of(&e).map(|a| (e, a)))
        .collect()
}

/// The conjuncts of an unsat core, sorted, if they are all among `own`
/// (this layer's sorted conjuncts of the query) and there is at least one;
/// a core of expressions a layer below rewrote is of no use here.
fn core_within(core: &[ExprRef], own: &[ExprRef]) -> Option<Vec<ExprRef>> {
    let mut parts: Vec<ExprRef> = Vec::new();
    crate::expr::conjuncts(core, &mut parts);
    parts.retain(|c| !c.is_true());
    parts.sort();
    parts.dedup();
    let all_own = parts.iter().all(|c| own.binary_search(c).is_ok());
    (all_own && !parts.is_empty()).then_some(parts)
}

fn encode_entry(e: &ImplicationEntry) -> Vec<u8> {
    let body = serial::encode(&e.conjuncts);
    let mut arrays = Vec::new();
    arrays_in_all(&e.conjuncts, &mut arrays);
    let answer = match (&e.model, e.sat) {
        (Some(m), true) => Answer::Sat(Some(m.clone())),
        _ => Answer::Unsat,
    };
    let tail = encode_answer(&answer, &arrays).unwrap_or_default();
    let mut out = Vec::with_capacity(body.len() + tail.len() + 4);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    out.extend_from_slice(&tail);
    out
}

fn decode_entry(decoder: &mut serial::Decoder, bytes: &[u8]) -> Option<ImplicationEntry> {
    let (len, rest) = bytes.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*len) as usize;
    let body = rest.get(..len)?;
    let conjuncts = decoder.decode(body).ok()?;
    if conjuncts.iter().any(|c| c.width() != 1) {
        return None;
    }
    let mut arrays: Vec<ArrayRef> = Vec::new();
    arrays_in_all(&conjuncts, &mut arrays);
    match decode_answer(&rest[len..], &arrays)? {
        Answer::Unsat => Some(ImplicationEntry {
            sat: false,
            conjuncts,
            model: None,
        }),
        Answer::Sat(Some(m)) => Some(ImplicationEntry {
            sat: true,
            conjuncts,
            model: Some(m),
        }),
        Answer::Sat(None) => None,
    }
}

fn satisfies(m: &Assignment, q: &Query<'_>) -> bool {
    let mut ev = Evaluator::new(m);
    ev.eval(&q.expr) == 1 && q.constraints.iter().all(|c| ev.eval(c) == 1)
}

impl Layer for ImplicationLayer {
    fn name(&self) -> &'static str {
        "implication"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let mut all: Vec<ExprRef> = q.constraints.to_vec();
        all.push(q.expr.clone());
        let Some(set) = atoms_of(&all) else {
            next.stats().hit(self.name());
            return Ok(Answer::Unsat);
        };
        // Logical subset among the unsatisfiable sets.
        let mut allowed = FxHashSet::default();
        for (_, atom) in &set {
            self.unsat.implied_by(atom, &mut allowed);
        }
        if self.unsat.has_path_within(&allowed) {
            next.stats().hit(self.name());
            return Ok(Answer::Unsat);
        }
        // Logical superset among the satisfiable sets.
        let atoms: Vec<Atom> = set.iter().map(|(_, a)| a.clone()).collect();
        let found = self
            .sat
            .superset_models(&atoms, 4)
            .into_iter()
            .find(|m| satisfies(m, q))
            .cloned();
        // A stored set sharing much with the query: its model may do.
        let found = found.or_else(|| {
            self.sat
                .similar_models(&atoms, MODEL_TRIES)
                .into_iter()
                .find(|m| satisfies(m, q))
                .cloned()
        });
        if let Some(m) = found {
            next.stats().hit(self.name());
            return Ok(Answer::Sat(q.model.map(|wanted| {
                let mut m = m;
                for a in wanted {
                    if !m.contains(a) {
                        m.set(a, vec![0; a.size as usize]);
                    }
                }
                m
            })));
        }
        let mut wanted: Vec<ArrayRef> = q.model.map(|w| w.to_vec()).unwrap_or_default();
        arrays_in_all(&all, &mut wanted);
        let (answer, core) = next.check_with_core(&Query {
            constraints: q.constraints,
            expr: q.expr.clone(),
            model: Some(&wanted),
        })?;
        let conjuncts: Vec<ExprRef> = set.iter().map(|(e, _)| e.clone()).collect();
        let entry = match &answer {
            Answer::Sat(Some(m)) => Some(ImplicationEntry {
                sat: true,
                conjuncts,
                model: Some(m.clone()),
            }),
            // The core, when there is one, is the smaller set: every later
            // query implying its few conjuncts is unsat, whatever else it
            // says (a mutant changes one early conjunct of every path; the
            // core seldom holds it).
            Answer::Unsat => Some(ImplicationEntry {
                sat: false,
                conjuncts: core
                    .and_then(|c| core_within(&c, &conjuncts))
                    .unwrap_or(conjuncts),
                model: None,
            }),
            Answer::Sat(None) => None,
        };
        if let Some(e) = entry {
            self.persist(&e);
            self.insert_entry(e);
        }
        Ok(match (answer, q.model) {
            (Answer::Sat(_), None) => Answer::Sat(None),
            (a, _) => a,
        })
    }
}

/// Counts of the stored sets, for tests and statistics.
impl ImplicationLayer {
    /// (satisfiable trie nodes, unsatisfiable trie nodes).
    pub fn sizes(&self) -> (usize, usize) {
        (self.sat.nodes.len(), self.unsat.nodes.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen};
    use crate::expr::{self, constant, read, Array, UpdateList};
    use crate::solver::store::MemoryStore;
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(0, 64))
    }

    fn solver(layer: ImplicationLayer) -> Solver {
        Solver::with_layers(SolverConfig::default(), vec![Box::new(layer)])
    }

    #[test]
    fn a_stronger_stored_set_answers_sat_and_a_weaker_one_unsat() {
        let x = byte(&Array::symbolic("im_x", 1));
        let y = byte(&Array::symbolic("im_y", 1));
        let k = |c| constant(c, 8);
        let mut s = solver(ImplicationLayer::new());
        // Stored sat: {x > 20}. Query {x > 10}: implied, reuse the model.
        assert!(s.may_be_true(&[], &expr::ugt(&x, &k(20))).unwrap());
        assert!(s.may_be_true(&[], &expr::ugt(&x, &k(10))).unwrap());
        assert_eq!(s.stats().z3_calls, 1);
        // Stored unsat: {x < 3, x > 7}. Query {x < 2, x > 8, y = 1}.
        assert!(!s
            .may_be_true(&[expr::ult(&x, &k(3))], &expr::ugt(&x, &k(7)))
            .unwrap());
        assert_eq!(s.stats().z3_calls, 2);
        let cs = vec![expr::ult(&x, &k(2)), expr::eq(&y, &k(1))];
        assert!(!s.may_be_true(&cs, &expr::ugt(&x, &k(8))).unwrap());
        assert_eq!(s.stats().z3_calls, 2, "{:?}", s.stats());
        assert_eq!(s.stats().hits.get("implication"), Some(&2));
        // Not implied: {x > 5} is weaker than {x > 20}, but its own model
        // would do; {x < 20} is not implied and needs the solver.
        assert!(s.may_be_true(&[], &expr::ult(&x, &k(20))).unwrap());
        assert_eq!(s.stats().bad_models, 0);
    }

    #[test]
    fn entries_survive_in_a_store() {
        let backend: Arc<dyn Backend> = Arc::new(MemoryStore::default());
        let x = Array::shared("im_store_x", 1, None);
        let k = |c| constant(c, 8);
        let mut first = solver(ImplicationLayer::with_store(backend.clone()));
        assert!(!first
            .may_be_true(&[expr::ult(&byte(&x), &k(3))], &expr::ugt(&byte(&x), &k(7)))
            .unwrap());
        assert!(first
            .may_be_true(&[], &expr::ugt(&byte(&x), &k(100)))
            .unwrap());
        assert_eq!(backend.scan_prefix(b"I").unwrap().len(), 2);
        let mut second = solver(ImplicationLayer::with_store(backend));
        assert!(!second
            .may_be_true(&[expr::ult(&byte(&x), &k(1))], &expr::ugt(&byte(&x), &k(9)))
            .unwrap());
        assert!(second
            .may_be_true(&[], &expr::ugt(&byte(&x), &k(50)))
            .unwrap());
        assert_eq!(second.stats().z3_calls, 0, "{:?}", second.stats());
    }

    #[test]
    fn a_neighbouring_sets_model_answers_a_changed_query() {
        let backend: Arc<dyn Backend> = Arc::new(MemoryStore::default());
        let x = byte(&Array::shared("im_nb_x", 1, None));
        let y = byte(&Array::shared("im_nb_y", 1, None));
        let k = |c| constant(c, 8);
        // The earlier version of a program asked about x < y (with x > 3).
        let mut first = solver(ImplicationLayer::with_store(backend.clone()));
        assert!(first
            .may_be_true(&[expr::ugt(&x, &k(3))], &expr::ult(&x, &y))
            .unwrap());
        // The mutant asks about x <= y: no conjunct of the stored set
        // implies it (x < y is about another term), but the stored model
        // lies in the new region too, as evaluation shows.
        let mut second = solver(ImplicationLayer::with_store(backend));
        assert!(second
            .may_be_true(&[expr::ugt(&x, &k(3))], &expr::ule(&x, &y))
            .unwrap());
        assert_eq!(second.stats().z3_calls, 0, "{:?}", second.stats());
        assert_eq!(second.stats().hits.get("implication"), Some(&1));
        // A model of the stored set that does not fit is passed over: y < x
        // is the other side of the branch, and Z3 answers it.
        assert!(second
            .may_be_true(&[expr::ugt(&x, &k(3))], &expr::ult(&y, &x))
            .unwrap());
        assert_eq!(second.stats().z3_calls, 1);
        // With a model wanted, the reused one is completed and checked.
        let arrays = [Array::shared("im_nb_x", 1, None)];
        let m = second
            .get_model(&[expr::ugt(&x, &k(3)), expr::ule(&x, &y)], &arrays)
            .unwrap()
            .unwrap();
        assert!(m.get(&arrays[0]).unwrap()[0] > 3);
        assert_eq!(second.stats().bad_models, 0);
    }

    #[test]
    fn an_unsat_core_answers_queries_that_differ_elsewhere() {
        let x = byte(&Array::symbolic("im_core_x", 1));
        let y = byte(&Array::symbolic("im_core_y", 1));
        let z = byte(&Array::symbolic("im_core_z", 1));
        let k = |c| constant(c, 8);
        let mut s = solver(ImplicationLayer::new());
        // x < y < 4 leaves no room for x > 200, whatever z is.
        let path = |zv| {
            vec![
                expr::eq(&z, &k(zv)),
                expr::ult(&x, &y),
                expr::ult(&y, &k(4)),
            ]
        };
        assert!(!s.may_be_true(&path(6), &expr::ult(&k(200), &x)).unwrap());
        assert_eq!(s.stats().z3_calls, 1);
        // The stored core leaves z out: another z, and a stronger x > 250,
        // are answered from it.
        assert!(!s.may_be_true(&path(5), &expr::ult(&k(250), &x)).unwrap());
        assert_eq!(s.stats().z3_calls, 1, "{:?}", s.stats());
        // The core's conjuncts are needed: without x < y, Z3 is asked.
        let other = vec![expr::eq(&z, &k(5)), expr::ult(&y, &k(4))];
        assert!(s.may_be_true(&other, &expr::ult(&k(250), &x)).unwrap());
        assert_eq!(s.stats().z3_calls, 2);
    }

    /// Conjuncts over two bytes: comparisons of each with constants, of
    /// the two with each other and with a sum, as mutated programs make.
    fn conjunct(x: &ExprRef, y: &ExprRef, shape: u8, c: u8) -> ExprRef {
        let k = constant(c as u128, 8);
        let sum = expr::add(x, &k);
        match shape % 8 {
            0 => expr::ult(x, &k),
            1 => expr::ule(&k, y),
            2 => expr::ult(x, y),
            3 => expr::ule(x, y),
            4 => expr::slt(y, &sum),
            5 => expr::sle(y, &sum),
            6 => expr::ne(x, &k),
            _ => expr::not(&expr::eq(y, &sum)),
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        /// After any history of solved sets, the layer answers a query as
        /// Z3 does, whichever way (subset, superset, neighbouring model)
        /// it reuses the stored sets.
        #[test]
        fn reuse_after_any_history_agrees_with_z3(
            history in proptest::collection::vec(proptest::collection::vec((0u8..8, proptest::prelude::any::<u8>()), 1..4), 1..12),
            query in proptest::collection::vec((0u8..8, proptest::prelude::any::<u8>()), 1..5),
        ) {
            let x = byte(&Array::shared("im_pt_x", 1, None));
            let y = byte(&Array::shared("im_pt_y", 1, None));
            let set = |parts: &[(u8, u8)]| -> Vec<ExprRef> {
                parts.iter().map(|&(s, c)| conjunct(&x, &y, s, c)).collect()
            };
            let arrays = [Array::shared("im_pt_x", 1, None), Array::shared("im_pt_y", 1, None)];
            let mut imp = solver(ImplicationLayer::new());
            let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
            let truth = expr::bool_const(true);
            // Each set of the history is solved (a model is asked for, so
            // that the query is not taken as a feasible path condition).
            for h in &history {
                let cs = set(h);
                proptest::prop_assert_eq!(
                    imp.get_model(&cs, &arrays).unwrap().is_some(),
                    plain.get_model(&cs, &arrays).unwrap().is_some()
                );
            }
            let mut cs = set(&query);
            let e = cs.pop().unwrap_or_else(|| truth.clone());
            // Layers may assume the constraints feasible, as paths are.
            if plain.may_be_true(&cs, &truth).unwrap() {
                proptest::prop_assert_eq!(
                    imp.may_be_true(&cs, &e).unwrap(),
                    plain.may_be_true(&cs, &e).unwrap(),
                    "{:?} && {:?}", cs, e
                );
                let all: Vec<ExprRef> = cs.iter().cloned().chain([e]).collect();
                proptest::prop_assert_eq!(
                    imp.get_model(&all, &arrays).unwrap().is_some(),
                    plain.get_model(&all, &arrays).unwrap().is_some()
                );
            }
            proptest::prop_assert_eq!(imp.stats().bad_models, 0);
        }
    }

    #[test]
    fn random_queries_agree_with_z3() {
        let env = Env::new("impl");
        let mut g = Gen::new(29);
        let x = byte(&env.sym[0]);
        let mut imp = solver(ImplicationLayer::new());
        let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
        let ops = [
            expr::ult,
            expr::ugt,
            expr::slt,
            expr::sge,
            expr::ne,
            expr::eq,
        ];
        let mut state = 99u64;
        let mut next = |n: u64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            (state >> 33) % n
        };
        for round in 0..200 {
            let mut cs: Vec<ExprRef> = (0..next(3) + 1)
                .map(|_| ops[next(6) as usize](&x, &constant(next(256) as u128, 8)))
                .collect();
            if round % 3 == 0 {
                cs.push(build(&g.gen(1, 2), &env));
            }
            let e = cs.pop().unwrap();
            if !plain.may_be_true(&cs, &expr::bool_const(true)).unwrap() {
                continue;
            }
            assert_eq!(
                imp.may_be_true(&cs, &e).unwrap(),
                plain.may_be_true(&cs, &e).unwrap(),
                "round {round}: {cs:?} {e:?}"
            );
        }
        assert_eq!(imp.stats().bad_models, 0);
        assert!(imp.stats().hits.get("implication").copied().unwrap_or(0) > 20);
    }
}
