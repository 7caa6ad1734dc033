//! Queries over few symbolic bytes, decided by trying their values.
//!
//! Code that scans its input a byte at a time asks, for each new byte, a
//! question about it together with what the path learnt of the bytes
//! before it: is it in this class of characters, does this table give it
//! that entry. Each such conjunct constrains one byte, and the bytes do
//! not constrain each other, so the query is satisfiable exactly when every
//! byte has a value that satisfies its own conjuncts. Z3 answered ptx's
//! such questions (table lookups at the byte's offset, each a disjunction
//! over the table's entries) in 2 to 30 ms, mostly unsatisfiable;
//! evaluating each conjunct for the byte's 256 values, once, and
//! intersecting the values each allows takes a fraction of that.
//!
//! Code that computes on small numbers read as words (`klee_range`, a
//! count checked against a bound) asks about several bytes at once, often
//! with division or remainder, which Z3 bit-blasts at the word's full
//! width: Euclid's gcd on two inputs in 1..=8 took it 70 ms a query. Where
//! the path bounds each word so that its bytes have few values left, the
//! layer tries every combination of them, checking each conjunct as soon
//! as its bytes have values. A word that only comparisons of it with
//! constants read (a loop reading a fresh word each round) takes the least
//! value they allow, however many it has. Any other query goes on to the
//! next layer.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::interval::{atom_of, ValueSet};
use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{conjuncts, ArrayRef, Assignment, Evaluator, ExprKind, ExprNode, ExprRef};

/// Conjuncts larger than this many nodes make their query go on:
/// evaluating them for every value would cost more than Z3 does.
const MAX_NODES: usize = 4096;

/// Conjuncts reading more bytes than this make their query go on.
const MAX_BYTES: usize = 16;

/// The most combinations of the values of bytes that conjuncts relate a
/// query may have and be searched: past it, the search can cost more than
/// Z3 (a conjunct's evaluation takes a few microseconds, and an
/// unsatisfiable query tries every combination the conjuncts do not rule
/// out early).
const MAX_COMBINATIONS: u64 = 1024;

/// Conjuncts kept before the memo is cleared (memory bound).
const MEMO_LIMIT: usize = 1 << 18;

/// Decides queries over few symbolic bytes by trying their values.
///
/// A path's constraints come back in every query along it, so what each
/// conjunct allows is worked out once and kept: a query is then decided by
/// intersecting, for each byte, the sets of values its conjuncts allow.
/// (Trying each query's 256 values afresh took a quarter to a third of
/// the solver's time on cp, chmod and nohup.)
#[derive(Default)]
pub struct EnumerateLayer {
    known: FxHashMap<ExprRef, Conjunct>,
}

/// A symbolic byte: its array and offset.
pub(super) type Byte = (ArrayRef, u64);

/// A set of byte values, one bit each.
pub(super) type Values = [u64; 4];

/// Every byte value.
const ALL: Values = [u64::MAX; 4];

/// What a conjunct is to this layer.
#[derive(Clone)]
enum Conjunct {
    /// It reads a byte at an offset that depends on the input, a byte out
    /// of its array, more than [`MAX_BYTES`] bytes, or is too large: the
    /// query goes on.
    Other,
    /// It reads no symbolic byte: whether it holds.
    Fixed(bool),
    /// It reads one byte: the values of that byte under which it holds.
    Byte(Byte, Values),
    /// It reads several bytes.
    Bytes(Arc<Related>),
}

/// A conjunct that relates several bytes.
struct Related {
    expr: ExprRef,
    /// The bytes it reads, in the order it reads them.
    bytes: Vec<Byte>,
    /// Where it compares a word of input bytes with a constant: the word,
    /// the values it allows the word, and the word's bytes, least
    /// significant first.
    bound: Option<(ExprRef, ValueSet, Vec<Byte>)>,
}

/// The bytes `e` reads; `Err(())` when it reads more than [`MAX_BYTES`],
/// a byte at an offset that depends on the input, a byte out of its array
/// (Z3 leaves those free; evaluation reads them as 0), or has more than
/// [`MAX_NODES`] nodes.
fn bytes_of(e: &ExprRef) -> Result<Vec<Byte>, ()> {
    input_bytes(e, MAX_BYTES, MAX_NODES).map(|(bytes, _)| bytes)
}

/// The input bytes `e` reads, in the order a walk meets them, and its
/// number of nodes; `Err(())` when it reads more than `max_bytes` of them,
/// a byte at an offset that depends on the input, a byte out of its array,
/// or has more than `max_nodes` nodes.
pub(super) fn input_bytes(
    e: &ExprRef,
    max_bytes: usize,
    max_nodes: usize,
) -> Result<(Vec<Byte>, usize), ()> {
    let mut seen: FxHashSet<*const ExprNode> = FxHashSet::default();
    let mut stack = vec![e];
    let mut bytes: Vec<Byte> = Vec::new();
    let mut nodes = 0;
    while let Some(e) = stack.pop() {
        if e.is_const() || !seen.insert(e.as_ptr()) {
            continue;
        }
        nodes += 1;
        if nodes > max_nodes {
            return Err(());
        }
        if let ExprKind::Read { updates, index } = e.kind() {
            let root = &updates.root;
            if !root.is_constant() {
                let at = index.as_const().ok_or(())?;
                if at >= u128::from(root.size) {
                    return Err(());
                }
                let byte = (root.clone(), at as u64);
                if !bytes.iter().any(|b| same(b, &byte)) {
                    if bytes.len() == max_bytes {
                        return Err(());
                    }
                    bytes.push(byte);
                }
            }
        }
        e.for_each_child(|c| {
            if !c.is_const() {
                stack.push(c)
            }
        });
    }
    Ok((bytes, nodes))
}

pub(super) fn same(a: &Byte, b: &Byte) -> bool {
    Arc::ptr_eq(&a.0, &b.0) && a.1 == b.1
}

/// The input bytes `e` is made of when it is a word of them (bytes read
/// with no write in between, joined by concatenation), least significant
/// first.
fn word_of(e: &ExprRef) -> Option<Vec<Byte>> {
    match e.kind() {
        ExprKind::Concat { hi, lo } => {
            let mut bytes = word_of(lo)?;
            bytes.extend(word_of(hi)?);
            Some(bytes)
        }
        ExprKind::Read { updates, index } if updates.head.is_none() => {
            let at = index.as_const()?;
            (!updates.root.is_constant() && at < u128::from(updates.root.size))
                .then(|| (updates.root.clone(), at as u64))
                .map(|b| vec![b])
        }
        _ => None,
    }
}

/// The values byte `k` (from the least significant) of a word takes over
/// the word's values `set`.
fn byte_values(set: &ValueSet, k: usize) -> Values {
    let mut values = [0u64; 4];
    for &(lo, hi) in set.ranges() {
        let (lo, hi) = (lo >> (8 * k), hi >> (8 * k));
        if hi - lo >= 255 {
            return ALL;
        }
        for v in lo..=hi {
            let v = (v & 0xff) as usize;
            values[v / 64] |= 1 << (v % 64);
        }
    }
    values
}

/// The byte `c` reads, when it reads one, and the values of it under
/// which `c` holds.
pub(super) fn one_byte_values(c: &ExprRef) -> Option<(Byte, Values)> {
    match classify(c) {
        Conjunct::Byte(byte, values) => Some((byte, values)),
        _ => None,
    }
}

/// What `c` is to the layer: the bytes it reads and, for one byte, the
/// values of it under which it holds, found by trying each.
fn classify(c: &ExprRef) -> Conjunct {
    let Ok(bytes) = bytes_of(c) else {
        return Conjunct::Other;
    };
    match bytes.as_slice() {
        [] => Conjunct::Fixed(Evaluator::new(&Assignment::new()).eval(c) == 1),
        [(array, at)] => {
            let mut values = [0u64; 4];
            let mut a = Assignment::new();
            for v in 0..=u8::MAX {
                a.set_byte(array, *at as usize, v);
                if Evaluator::new(&a).eval(c) == 1 {
                    values[usize::from(v / 64)] |= 1 << (v % 64);
                }
            }
            Conjunct::Byte((array.clone(), *at), values)
        }
        _ => {
            let bound = atom_of(c).and_then(|atom| {
                let word = word_of(&atom.term)?;
                Some((atom.term, atom.set, word))
            });
            Conjunct::Bytes(Arc::new(Related {
                expr: c.clone(),
                bytes,
                bound,
            }))
        }
    }
}

/// Which of `words` are free: their bytes are distinct and read by no
/// conjunct but the bounds on that word, so any value the bounds allow
/// satisfies every conjunct that reads them (a loop that reads a fresh
/// word each round and compares it with constants: a search over its
/// 2^32 values would give up, and Z3 was asked each time).
fn free_words(
    words: &[(&ExprRef, ValueSet, &[Byte])],
    related: &[Arc<Related>],
    slots: &mut Slots,
    bytes: &mut Vec<(Byte, Values)>,
) -> Vec<bool> {
    // For each byte: `Some(Some(w))` when only the bounds on word `w` read
    // it, `Some(None)` when something else does.
    let mut owner: Vec<Option<Option<usize>>> = vec![None; bytes.len()];
    let mut claim = |i: usize, w: Option<usize>| {
        owner[i] = match owner[i] {
            None => Some(w),
            Some(o) if o == w => Some(w),
            Some(_) => Some(None),
        };
    };
    for (i, (_, values)) in bytes.iter().enumerate() {
        // A byte's own conjuncts narrowed its values.
        if *values != ALL {
            claim(i, None);
        }
    }
    let word_of_term: FxHashMap<*const ExprNode, usize> = words
        .iter()
        .enumerate()
        .map(|(w, (t, _, _))| (t.as_ptr(), w))
        .collect();
    for r in related {
        let w = r
            .bound
            .as_ref()
            .and_then(|(term, _, _)| word_of_term.get(&term.as_ptr()).copied());
        for b in &r.bytes {
            claim(slots.of(b, bytes), w);
        }
    }
    words
        .iter()
        .enumerate()
        .map(|(w, (_, _, word))| {
            let distinct = word
                .iter()
                .enumerate()
                .all(|(k, b)| !word[..k].iter().any(|x| same(x, b)));
            distinct
                && word
                    .iter()
                    .all(|b| owner[slots.of(b, bytes)] == Some(Some(w)))
        })
        .collect()
}

/// Each byte's place in a query's list of bytes.
#[derive(Default)]
struct Slots(FxHashMap<(usize, u64), usize>);

impl Slots {
    /// The place of `byte` in `bytes`, which gains it, with every value
    /// allowed, on its first appearance.
    fn of(&mut self, byte: &Byte, bytes: &mut Vec<(Byte, Values)>) -> usize {
        let key = (Arc::as_ptr(&byte.0) as usize, byte.1);
        *self.0.entry(key).or_insert_with(|| {
            bytes.push((byte.clone(), ALL));
            bytes.len() - 1
        })
    }
}

/// The set holding `v` alone.
pub(super) fn only(v: u8) -> Values {
    let mut values = [0u64; 4];
    values[usize::from(v / 64)] |= 1 << (v % 64);
    values
}

/// The least value in `values`, if any.
fn least(values: &Values) -> Option<u8> {
    values
        .iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(i, w)| (i * 64) as u8 + w.trailing_zeros() as u8)
}

/// The values in `values`, least first.
fn each(values: &Values) -> impl Iterator<Item = u8> + '_ {
    (0..=u8::MAX).filter(|v| values[usize::from(v / 64)] & (1 << (v % 64)) != 0)
}

fn count(values: &Values) -> u64 {
    values.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// A model giving `found` and zeros elsewhere, for every array asked for
/// and every array the query reads.
fn model(wanted: &[ArrayRef], found: &[(Byte, u8)]) -> Assignment {
    let mut m = Assignment::new();
    let read = found.iter().map(|((array, _), _)| array);
    for array in wanted.iter().filter(|a| !a.is_constant()).chain(read) {
        if m.contains(array) {
            continue;
        }
        let mut bytes = vec![0; array.size as usize];
        for ((a, at), v) in found {
            if Arc::ptr_eq(a, array) {
                bytes[*at as usize] = *v;
            }
        }
        m.set(array, bytes);
    }
    m
}

/// A search for values of the bytes that conjuncts relate, under which
/// each of those conjuncts holds.
struct Search<'a> {
    /// The bytes searched, as indices into `found`, in the order tried.
    order: &'a [usize],
    /// The values each byte of `found` may take.
    domains: &'a [Values],
    /// For each byte of `order`, the conjuncts whose last byte it is.
    checks: &'a [Vec<ExprRef>],
    /// Every byte of the query with a value: the searched ones' are
    /// replaced as the search goes.
    found: &'a mut [(Byte, u8)],
    /// `found` as an assignment, kept up to date byte by byte.
    assignment: Assignment,
}

impl Search<'_> {
    /// Whether the bytes of `order` from the `i`th on have values under
    /// which every check holds. Tries the least values first, so the first
    /// combination found is the same on every run.
    fn from(&mut self, i: usize) -> bool {
        let Some(&slot) = self.order.get(i) else {
            return true;
        };
        for v in each(&self.domains[slot]) {
            let ((array, at), value) = &mut self.found[slot];
            *value = v;
            self.assignment.set_byte(array, *at as usize, v);
            let mut e = Evaluator::new(&self.assignment);
            if self.checks[i].iter().all(|c| e.eval(c) == 1) && self.from(i + 1) {
                return true;
            }
        }
        false
    }
}

impl EnumerateLayer {
    /// What `c` is to the layer, worked out on its first query.
    fn conjunct(&mut self, c: &ExprRef) -> Conjunct {
        if let Some(k) = self.known.get(c) {
            return k.clone();
        }
        if self.known.len() > MEMO_LIMIT {
            self.known.clear();
        }
        let k = classify(c);
        self.known.insert(c.clone(), k.clone());
        k
    }
}

impl Layer for EnumerateLayer {
    fn name(&self) -> &'static str {
        "enumerate"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let mut all = Vec::new();
        conjuncts(q.constraints, &mut all);
        conjuncts(std::slice::from_ref(&q.expr), &mut all);
        // The values each byte may take (those all of its conjuncts allow),
        // in the order the bytes come: a map keyed by address would order
        // the model's arrays differently from one run to the next.
        let mut bytes: Vec<(Byte, Values)> = Vec::new();
        let mut slots = Slots::default();
        let mut related: Vec<Arc<Related>> = Vec::new();
        let mut holds = true;
        for c in &all {
            match self.conjunct(c) {
                Conjunct::Other => return next.check(q),
                Conjunct::Fixed(b) => holds &= b,
                Conjunct::Byte(byte, values) => {
                    let i = slots.of(&byte, &mut bytes);
                    for (h, v) in bytes[i].1.iter_mut().zip(values) {
                        *h &= v;
                    }
                }
                Conjunct::Bytes(r) => {
                    for b in &r.bytes {
                        slots.of(b, &mut bytes);
                    }
                    related.push(r);
                }
            }
        }
        // The words the conjuncts bound, each with the values all of its
        // bounds allow, narrow the values of their bytes.
        let mut words: Vec<(&ExprRef, ValueSet, &[Byte])> = Vec::new();
        for r in &related {
            let Some((term, set, word)) = &r.bound else {
                continue;
            };
            match words.iter_mut().find(|(t, _, _)| *t == term) {
                Some(w) => w.1 = w.1.intersect(set),
                None => words.push((term, set.clone(), word)),
            }
        }
        let free = free_words(&words, &related, &mut slots, &mut bytes);
        for (w, (_, set, word)) in words.iter().enumerate() {
            // A free word takes the least value its bounds allow: its bytes
            // are fixed, and its bounds need no search.
            let pick = free[w].then(|| set.ranges().first().map(|r| r.0));
            for (k, byte) in word.iter().enumerate() {
                let i = slots.of(byte, &mut bytes);
                let narrowed = match pick {
                    Some(Some(v)) => only((v >> (8 * k)) as u8),
                    Some(None) => [0; 4],
                    None => byte_values(set, k),
                };
                for (h, v) in bytes[i].1.iter_mut().zip(narrowed) {
                    *h &= v;
                }
            }
        }
        // The bytes the related conjuncts read, in the order they come
        // (`place` gives each its place in `order`), and each conjunct
        // checked once its last byte has a value.
        let mut place: Vec<Option<usize>> = vec![None; bytes.len()];
        let mut order: Vec<usize> = Vec::new();
        let mut checks: Vec<Vec<ExprRef>> = Vec::new();
        let mut combinations: u64 = 1;
        let free_terms: FxHashSet<*const ExprNode> = words
            .iter()
            .zip(&free)
            .filter(|(_, &f)| f)
            .map(|((t, _, _), _)| t.as_ptr())
            .collect();
        for r in &related {
            if r.bound
                .as_ref()
                .is_some_and(|(term, _, _)| free_terms.contains(&term.as_ptr()))
            {
                continue;
            }
            let mut last = 0;
            for b in &r.bytes {
                let i = slots.of(b, &mut bytes);
                let at = *place[i].get_or_insert_with(|| {
                    order.push(i);
                    checks.push(Vec::new());
                    combinations = combinations.saturating_mul(count(&bytes[i].1));
                    order.len() - 1
                });
                last = last.max(at);
            }
            if combinations > MAX_COMBINATIONS {
                return next.check(q);
            }
            checks[last].push(r.expr.clone());
        }
        next.stats().hit(self.name());
        if !holds {
            return Ok(Answer::Unsat);
        }
        let mut found = Vec::with_capacity(bytes.len());
        let mut domains = Vec::with_capacity(bytes.len());
        for (byte, values) in bytes {
            let Some(v) = least(&values) else {
                return Ok(Answer::Unsat);
            };
            found.push((byte, v));
            domains.push(values);
        }
        let assignment = model(&[], &found);
        let mut search = Search {
            order: &order,
            domains: &domains,
            checks: &checks,
            found: &mut found,
            assignment,
        };
        if !search.from(0) {
            return Ok(Answer::Unsat);
        }
        Ok(Answer::Sat(q.model.map(|wanted| model(wanted, &found))))
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::{self, constant, read, Array, ArrayRef, Evaluator, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef, i: u128) -> expr::ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i, 64))
    }

    fn solver(chain: &str) -> Solver {
        Solver::new(SolverConfig {
            chain: chain.parse().unwrap(),
            ..SolverConfig::default()
        })
    }

    /// Queries over one byte, with Z3 and with enumeration: the same
    /// answers, and enumeration's models satisfy the query.
    #[test]
    fn one_byte_queries_are_answered_as_z3_answers_them_and_without_it() {
        let x = Array::symbolic("x", 4);
        let table = Array::constant(
            "table",
            (0..=255u8).map(|b| b.wrapping_mul(37)).collect::<Vec<u8>>(),
        );
        let c = byte(&x, 2);
        let looked_up = read(&UpdateList::new(table), &expr::zext(&c, 64));
        let cases = vec![
            // Satisfiable: a product that wraps.
            (
                vec![expr::ult(&constant(10, 8), &c)],
                expr::eq(&expr::mul(&c, &c), &constant(121, 8)),
            ),
            // Unsatisfiable: an odd square of an even byte.
            (
                vec![expr::eq(
                    &expr::binary(crate::ir::BinOp::URem, &c, &constant(2, 8)),
                    &constant(0, 8),
                )],
                expr::eq(&expr::mul(&c, &c), &constant(9, 8)),
            ),
            // A constant table read at the byte.
            (vec![], expr::eq(&looked_up, &constant(111, 8))),
            (
                vec![expr::ult(&c, &constant(3, 8))],
                expr::eq(&looked_up, &constant(111, 8)),
            ),
        ];
        for (constraints, cond) in cases {
            let mut z3 = solver("z3");
            let mut en = solver("enumerate,z3");
            let want = z3.may_be_true(&constraints, &cond).unwrap();
            assert_eq!(en.may_be_true(&constraints, &cond).unwrap(), want);
            let mut all = constraints.clone();
            all.push(cond.clone());
            let m = en.get_model(&all, std::slice::from_ref(&x)).unwrap();
            assert_eq!(m.is_some(), want);
            if let Some(m) = m {
                assert_eq!(m.get(&x).map(<[u8]>::len), Some(4));
                let mut e = Evaluator::new(&m);
                assert!(all.iter().all(|c| e.eval(c) == 1));
            }
            assert_eq!(en.stats().z3_calls, 0, "{cond:?}");
        }
    }

    /// Conjuncts over different bytes, none relating two of them: decided
    /// byte by byte, as Z3 decides them.
    #[test]
    fn bytes_constrained_each_on_its_own_are_solved_each_on_its_own() {
        let x = Array::symbolic("x", 3);
        let y = Array::symbolic("y", 2);
        let (a, b, c) = (byte(&x, 0), byte(&x, 2), byte(&y, 1));
        let constraints = vec![
            expr::eq(&constant(10, 8), &a),
            expr::ult(&constant(200, 8), &b),
            expr::eq(&expr::mul(&c, &c), &constant(121, 8)),
        ];
        for (cond, want) in [
            (
                expr::eq(&expr::and(&b, &constant(7, 8)), &constant(3, 8)),
                true,
            ),
            (expr::eq(&b, &constant(100, 8)), false),
            (expr::ult(&constant(20, 8), &c), true),
        ] {
            let mut z3 = solver("z3");
            let mut en = solver("enumerate,z3");
            assert_eq!(z3.may_be_true(&constraints, &cond).unwrap(), want);
            assert_eq!(en.may_be_true(&constraints, &cond).unwrap(), want);
            let mut all = constraints.clone();
            all.push(cond);
            let m = en.get_model(&all, &[x.clone(), y.clone()]).unwrap();
            assert_eq!(m.is_some(), want);
            if let Some(m) = m {
                assert_eq!(m.get(&x).map(<[u8]>::len), Some(3));
                assert_eq!(m.get(&y).map(<[u8]>::len), Some(2));
                let mut e = Evaluator::new(&m);
                assert!(all.iter().all(|c| e.eval(c) == 1));
            }
            assert_eq!(en.stats().z3_calls, 0);
        }
    }

    /// Along a path the same constraints come back with each new
    /// condition: what each allows is kept, and every later query is
    /// still decided as Z3 decides it, with the least value that fits.
    #[test]
    fn conjuncts_worked_out_once_serve_the_queries_after() {
        let x = Array::symbolic("x", 2);
        let (a, b) = (byte(&x, 0), byte(&x, 1));
        let path = vec![
            expr::ult(&constant(10, 8), &a),
            expr::ne(&a, &constant(11, 8)),
            expr::ult(&b, &constant(3, 8)),
        ];
        let mut en = solver("enumerate,z3");
        let mut z3 = solver("z3");
        for (cond, least) in [
            (expr::ult(&a, &constant(5, 8)), None),
            (expr::ult(&a, &constant(20, 8)), Some(12)),
            (expr::eq(&b, &constant(2, 8)), Some(12)),
            (expr::ult(&constant(2, 8), &b), None),
            (expr::ult(&a, &constant(13, 8)), Some(12)),
        ] {
            assert_eq!(
                en.may_be_true(&path, &cond).unwrap(),
                z3.may_be_true(&path, &cond).unwrap(),
                "{cond:?}"
            );
            let mut all = path.clone();
            all.push(cond.clone());
            let m = en.get_model(&all, std::slice::from_ref(&x)).unwrap();
            assert_eq!(m.as_ref().map(|m| m.get(&x).unwrap()[0]), least, "{cond:?}");
        }
        assert_eq!(en.stats().z3_calls, 0);
    }

    #[test]
    fn queries_over_more_than_one_byte_go_on_to_z3() {
        let x = Array::symbolic("x", 4);
        let y = Array::symbolic("y", 1);
        let mut en = solver("enumerate,z3");
        let two = expr::ult(&byte(&x, 0), &byte(&x, 1));
        assert!(en.may_be_true(&[], &two).unwrap());
        let other = expr::ult(&byte(&x, 0), &byte(&y, 0));
        assert!(en.may_be_true(&[], &other).unwrap());
        // At an offset that depends on the input.
        let at = expr::zext(&expr::and(&byte(&x, 0), &constant(3, 8)), 64);
        let moving = expr::eq(&read(&UpdateList::new(x.clone()), &at), &constant(7, 8));
        assert!(en.may_be_true(&[], &moving).unwrap());
        // Two bytes each on their own, but a third conjunct relates them.
        let related = vec![
            expr::ult(&constant(5, 8), &byte(&x, 0)),
            expr::ult(&constant(5, 8), &byte(&x, 1)),
        ];
        assert!(en.may_be_true(&related, &two).unwrap());
        assert_eq!(en.stats().z3_calls, 4);
    }
    /// A little-endian word of `n` bytes of `a`, as a load builds it.
    fn word(a: &ArrayRef, n: u128) -> expr::ExprRef {
        (1..n).fold(byte(a, 0), |lo, i| expr::concat(&byte(a, i), &lo))
    }

    /// `lo <= w <= hi`, signed, as `klee_range` and a bounds check say it.
    fn within(w: &expr::ExprRef, lo: u128, hi: u128) -> Vec<expr::ExprRef> {
        vec![
            expr::sle(&constant(lo, 32), w),
            expr::sle(w, &constant(hi, 32)),
        ]
    }

    /// Remainders and products of two words the path bounds to a few
    /// values each (Euclid's gcd on inputs in 1..=8): decided by trying
    /// the combinations, as Z3 decides them, with models that hold.
    #[test]
    fn words_bounded_to_few_values_are_searched_without_z3() {
        use crate::ir::BinOp;
        let (x, y) = (Array::symbolic("x", 4), Array::symbolic("y", 4));
        let (a, b) = (word(&x, 4), word(&y, 4));
        let mut path = within(&a, 1, 8);
        path.extend(within(&b, 1, 8));
        let rem = |l: &expr::ExprRef, r: &expr::ExprRef| expr::binary(BinOp::URem, l, r);
        let c = |v| constant(v, 32);
        let cases = [
            // x mod x is 0: the query gcd asks at its assertion.
            (vec![expr::eq(&a, &b)], expr::ne(&rem(&a, &a), &c(0)), false),
            (vec![], expr::eq(&rem(&a, &b), &c(3)), true),
            (vec![], expr::eq(&expr::mul(&a, &b), &c(49)), true),
            (vec![], expr::eq(&expr::mul(&a, &b), &c(63)), false),
            // A difference taken twice, as the loop of gcd takes it.
            (
                vec![expr::ult(&a, &b)],
                expr::eq(&rem(&expr::sub(&expr::sub(&b, &a), &a), &a), &c(1)),
                true,
            ),
        ];
        for (more, cond, want) in cases {
            let mut constraints = path.clone();
            constraints.extend(more);
            let mut z3 = solver("z3");
            let mut en = solver("enumerate,z3");
            assert_eq!(
                z3.may_be_true(&constraints, &cond).unwrap(),
                want,
                "{cond:?}"
            );
            assert_eq!(
                en.may_be_true(&constraints, &cond).unwrap(),
                want,
                "{cond:?}"
            );
            let mut all = constraints.clone();
            all.push(cond.clone());
            let m = en.get_model(&all, &[x.clone(), y.clone()]).unwrap();
            assert_eq!(m.is_some(), want);
            if let Some(m) = m {
                let mut e = Evaluator::new(&m);
                assert!(all.iter().all(|c| e.eval(c) == 1), "{cond:?}");
            }
            assert_eq!(en.stats().z3_calls, 0, "{cond:?}");
        }
    }

    /// Words with too many combinations left, or with no bound on them,
    /// go on to Z3, which answers.
    #[test]
    fn words_with_many_values_left_go_on_to_z3() {
        let (x, y) = (Array::symbolic("x", 4), Array::symbolic("y", 4));
        let (a, b) = (word(&x, 4), word(&y, 4));
        let mut wide = within(&a, 0, 99);
        wide.extend(within(&b, 0, 99));
        let cond = expr::eq(&expr::mul(&a, &b), &constant(77 * 13, 32));
        let mut en = solver("enumerate,z3");
        assert!(en.may_be_true(&wide, &cond).unwrap());
        assert_eq!(en.stats().z3_calls, 1);
        let unbounded = within(&a, 1, 8);
        assert!(en.may_be_true(&unbounded, &cond).unwrap());
        assert_eq!(en.stats().z3_calls, 2);
    }
    /// A loop reading a fresh word each round and comparing it with the
    /// round's number: each word's bounds alone read its bytes, so every
    /// question and the path's model are answered without Z3, and a
    /// contradiction is found as Z3 finds it.
    #[test]
    fn free_words_take_a_value_their_bounds_allow_without_z3() {
        let words: Vec<_> = (0..300)
            .map(|k| Array::symbolic(&format!("x{k}"), 4))
            .collect();
        let c = |v| constant(v, 32);
        let mut path = Vec::new();
        let mut en = solver("enumerate,z3");
        for (k, a) in words.iter().enumerate() {
            let x = expr::add(&word(a, 4), &c(3));
            let cond = expr::slt(&x, &c(k as u128));
            assert!(en.may_be_true(&path, &cond).unwrap());
            assert!(en.may_be_true(&path, &expr::not(&cond)).unwrap());
            path.push(expr::not(&cond));
        }
        let m = en.get_model(&path, &words).unwrap().unwrap();
        let mut ev = Evaluator::new(&m);
        assert!(path.iter().all(|c| ev.eval(c) == 1));
        let x = word(&words[7], 4);
        let mut narrow = vec![expr::ult(&x, &c(10))];
        assert!(!en.may_be_true(&narrow, &expr::ult(&c(20), &x)).unwrap());
        narrow.push(expr::ne(&x, &c(0)));
        assert!(!en.may_be_true(&narrow, &expr::eq(&x, &c(0))).unwrap());
        assert_eq!(en.stats().z3_calls, 0);
    }

    /// Words that overlap, share bytes with a conjunct of their own byte or
    /// with a product, or repeat a byte, are not free: random bounds on
    /// such words get Z3's answers, and the models hold.
    #[test]
    fn words_that_share_bytes_are_answered_as_z3_answers_them() {
        use crate::expr::CmpOp;
        use rand::{Rng, SeedableRng};
        let a = Array::symbolic("a", 6);
        let b = Array::symbolic("b", 2);
        let terms = [
            word(&a, 4),
            word(&a, 2),
            expr::concat(&byte(&a, 5), &byte(&a, 4)),
            expr::concat(&byte(&a, 4), &expr::concat(&byte(&a, 5), &byte(&a, 4))),
            expr::concat(&byte(&b, 1), &byte(&b, 0)),
            byte(&a, 0),
            byte(&b, 1),
            expr::mul(&word(&b, 2), &expr::concat(&byte(&a, 5), &byte(&a, 4))),
        ];
        let ops = [CmpOp::Eq, CmpOp::Ult, CmpOp::Ule, CmpOp::Slt, CmpOp::Sle];
        let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
        let mut en = solver("enumerate,z3");
        let mut z3 = solver("z3");
        let mut free = 0;
        for _ in 0..400 {
            let n = rng.gen_range(1..4);
            let mut all: Vec<_> = (0..n)
                .map(|_| {
                    let t = &terms[rng.gen_range(0..terms.len())];
                    let w = t.width();
                    let v = constant(rng.gen::<u128>() & crate::expr::mask(w), w);
                    let op = ops[rng.gen_range(0..ops.len())];
                    let e = if rng.gen() {
                        expr::cmp(op, t, &v)
                    } else {
                        expr::cmp(op, &v, t)
                    };
                    if rng.gen_range(0..3) == 0 {
                        expr::not(&e)
                    } else {
                        e
                    }
                })
                .collect();
            let cond = all.pop().unwrap();
            let want = z3.may_be_true(&all, &cond).unwrap();
            let calls = en.stats().z3_calls;
            assert_eq!(
                en.may_be_true(&all, &cond).unwrap(),
                want,
                "{all:?} {cond:?}"
            );
            free += usize::from(en.stats().z3_calls == calls);
            all.push(cond);
            if let Some(m) = en.get_model(&all, &[a.clone(), b.clone()]).unwrap() {
                let mut ev = Evaluator::new(&m);
                assert!(all.iter().all(|c| ev.eval(c) == 1), "{all:?}");
            }
        }
        assert_eq!(en.stats().bad_models, 0);
        assert!(free > 100, "{free} of 400 answered without Z3");
    }

    /// Random expressions over two 4-byte arrays whose bytes the path
    /// bounds to one to four values each: enumeration (searching where the
    /// combinations are few, passing the query on where not) answers as Z3
    /// does, and its models hold.
    #[test]
    fn random_expressions_over_bounded_bytes_are_answered_as_z3_answers_them() {
        use crate::expr::proptests::{build, reference, Env, Gen, ARRAY_SIZE};
        use rand::{Rng, SeedableRng};
        let env = Env::new("en");
        let mut en = solver("enumerate,z3");
        let mut z3 = solver("z3");
        let hits = |s: &Solver| s.stats().hits.get("enumerate").copied().unwrap_or(0);
        let mut searched = 0;
        for seed in 0..200u64 {
            let mut g = Gen::new(seed);
            let w = g.width();
            let tree = g.gen(w, 1 + (seed % 3) as u32);
            let e = build(&tree, &env);
            let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
            let n = env.sym.len() * ARRAY_SIZE as usize;
            let bytes: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            let mut path = Vec::new();
            for (k, arr) in env.sym.iter().enumerate() {
                for i in 0..ARRAY_SIZE as u128 {
                    let b = bytes[k * ARRAY_SIZE as usize + i as usize];
                    let spread = rng.gen_range(0..4u8);
                    let lo = b.saturating_sub(spread / 2);
                    path.push(expr::ule(&constant(u128::from(lo), 8), &byte(arr, i)));
                    path.push(expr::ule(
                        &byte(arr, i),
                        &constant(u128::from(lo.saturating_add(spread)), 8),
                    ));
                }
            }
            // One value the expression takes within the bounds, and one it
            // may not.
            let taken = reference(&tree, &env, &bytes);
            let other = taken ^ u128::from(rng.gen::<u8>() | 1);
            for v in [taken, other & crate::expr::mask(w)] {
                let cond = expr::eq(&e, &constant(v, w));
                let want = z3.may_be_true(&path, &cond).unwrap();
                let before = hits(&en);
                assert_eq!(
                    en.may_be_true(&path, &cond).unwrap(),
                    want,
                    "seed {seed}: {e:?}"
                );
                if hits(&en) > before && super::bytes_of(&e).is_ok_and(|b| b.len() > 1) {
                    searched += 1;
                }
                let mut all = path.clone();
                all.push(cond);
                if let Some(m) = en.get_model(&all, &env.sym).unwrap() {
                    let mut ev = Evaluator::new(&m);
                    assert!(all.iter().all(|c| ev.eval(c) == 1), "seed {seed}: {e:?}");
                }
            }
        }
        assert_eq!(en.stats().bad_models, 0);
        assert!(
            searched > 40,
            "{searched} queries relating bytes were searched"
        );
    }
}
