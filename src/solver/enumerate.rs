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
//! next layer. Up to two bytes' worth of combinations are searched too,
//! and three where the conjuncts chain divisions or table lookups on the
//! input (see [`chain_in`]): chained ones for a while before Z3, which
//! bit-blasts them slowly, and any of them once Z3 has run out of time on
//! the query, rather than leave it undecided. Where the chain is a few
//! lookups deep, Z3 is often the faster after all: a search that has run
//! a few milliseconds on it gives Z3 a short try first (see [`backoff`]).

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use self::backoff::Backoff;
use self::compiled::Compiled;
use self::search::{OverBudget, Plan, Search};
use super::interval::{atom_of, ValueSet};
use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{
    conjuncts, unsigned_range, ArrayRef, Assignment, Evaluated, Evaluator, ExprKind, ExprNode,
    ExprRef, UpdateList, UpdateNode,
};
use crate::ir::BinOp;

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

/// The most combinations searched at all: those of two bytes.
const MAX_SEARCHED: u64 = 1 << 16;

/// The most combinations searched where the conjuncts chain divisions or
/// lookups (see [`chain_in`]): those of five bytes. Such chains mostly
/// relate each byte to the ones before it (a scanner's state after each
/// byte), so that a conjunct checked as soon as its bytes have values
/// prunes the search early, the bytes before each are read after it only
/// through the chain's value there (a combination that leads to a value
/// the search could not go on from is not tried again), and the budget
/// bounds what neither prunes. With three bytes' worth, bc's scanner
/// queries over five input bytes went to Z3, which ran out of its 10 s on
/// some and took 6 s on others: the search decides them in 15 ms.
const MAX_SEARCHED_CHAINED: u64 = 1 << 40;

/// The node evaluations a search over more than [`MAX_COMBINATIONS`] may
/// make before the query goes on to Z3.
const BUDGET_BEFORE_Z3: u64 = 1 << 22;

/// The node evaluations a search over more than [`MAX_COMBINATIONS`] may
/// make before the query goes on to Z3 where its conjuncts chain lookups:
/// a second or so. On the three-byte queries of bc's scanner that the
/// search did not finish in [`BUDGET_BEFORE_Z3`], Z3 took 5 to 8 s, and
/// the search 0.7 s (30 s of bc's queries: 26 s -> 11 s).
const BUDGET_BEFORE_Z3_LOOKUPS: u64 = 1 << 25;

/// The node evaluations a search over more than [`MAX_COMBINATIONS`] may
/// make before the query goes on to Z3 where its conjuncts chain lookups
/// through a write at a symbolic index: a millisecond or so. The search
/// tries each combination over reads that walk the writes, where Z3
/// splits cases once: on a histogram of six bytes' low bits, Z3 took 13 ms
/// a query, the search 150 ms, and a minute of it completed 608 paths with
/// 2^17 evaluations before Z3 (6 ms there), 947 with none. grep's queries
/// of the kind that the search decides within 2^13 evaluations all take
/// it more than 2^11.
const BUDGET_BEFORE_Z3_WRITES: u64 = 1 << 13;

/// The node evaluations a search where the conjuncts chain lookups a few
/// deep ([`MAX_TRIED_DEPTH`]) makes before it gives Z3 a short try
/// ([`TRY_MS`]), when tries have been answering (see [`backoff`]): a few
/// milliseconds. Chained divisions get none: Z3 builds a divider's
/// circuit for each, and on Euclid's remainders every try ran out of its
/// time (the search decided each in 10 ms or less), doubling the solver's
/// time on the hard subjects' signed Euclid.
const BUDGET_BEFORE_TRY: u64 = 1 << 17;

/// The work, in milliseconds, Z3's short try of a query that a search ran
/// long on is given. On the grep queries of [`backoff`]'s comment, Z3 took
/// 83 ms at most and 11 ms on average.
const TRY_MS: u64 = 50;

/// The node evaluations a search may make once Z3 has run out of time on
/// its query: a second or so.
const BUDGET_AFTER_TIMEOUT: u64 = 1 << 25;

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
    known: Conjuncts,
    backoff: Backoff,
}

/// What each conjunct met is to the enumeration, worked out on its first
/// meeting: a path's constraints come back in every query and every
/// question along it.
#[derive(Default)]
pub(super) struct Conjuncts(FxHashMap<ExprRef, Conjunct>);

impl Conjuncts {
    /// What `c` is.
    fn get(&mut self, c: &ExprRef) -> Conjunct {
        if let Some(k) = self.0.get(c) {
            return k.clone();
        }
        if self.0.len() > MEMO_LIMIT {
            self.0.clear();
        }
        let k = classify(c);
        self.0.insert(c.clone(), k.clone());
        k
    }

    /// The byte `c` reads, when it reads one, and the values of it under
    /// which `c` holds.
    pub(super) fn one_byte(&mut self, c: &ExprRef) -> Option<(Byte, Values)> {
        match self.get(c) {
            Conjunct::Byte(byte, values) => Some((byte, values)),
            _ => None,
        }
    }
}

/// A symbolic byte: its array and offset.
pub(super) type Byte = (ArrayRef, u64);

/// A set of byte values, one bit each.
pub(super) type Values = [u64; 4];

/// Every byte value.
pub(super) const ALL: Values = [u64::MAX; 4];

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
    /// For each of `bytes`, the bits of it the conjunct depends on (see
    /// [`demanded`]).
    demanded: Vec<u8>,
    /// The chain of divisions or lookups by the input it makes, if any
    /// (see [`chain_in`]).
    chain: Option<Chained>,
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
        let ExprKind::Read { updates, index } = e.kind() else {
            e.for_each_child(|c| {
                if !c.is_const() {
                    stack.push(c)
                }
            });
            continue;
        };
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
        stack.push(index);
        for node in reachable_writes(updates, index) {
            for c in [&node.index, &node.value] {
                if !c.is_const() {
                    stack.push(c);
                }
            }
        }
    }
    Ok((bytes, nodes))
}

/// The writes of `updates` that a read at `index` may see. A write at a
/// fixed offset that the index cannot reach gives the read nothing: grep
/// copies a pattern's first bytes to a buffer and reads it at `1 + (byte 1
/// == '-')`, which cannot reach the writes of bytes 0 and 3, and counting
/// them made 2^24 combinations of an unsatisfiable query to exhaust where
/// 2^8 suffice.
fn reachable_writes<'a>(
    updates: &'a UpdateList,
    index: &ExprRef,
) -> impl Iterator<Item = &'a UpdateNode> {
    let (lo, hi) = match index.as_const() {
        Some(at) => (at, at),
        None => unsigned_range(index),
    };
    updates
        .iter()
        .filter(move |node| !node.index.as_const().is_some_and(|at| at < lo || at > hi))
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

/// What `c` is to the layer: the bytes it reads and, for one byte, the
/// values of it under which it holds, found by trying each.
fn classify(c: &ExprRef) -> Conjunct {
    let Ok(bytes) = bytes_of(c) else {
        return Conjunct::Other;
    };
    match bytes.as_slice() {
        [] => Conjunct::Fixed(Evaluator::new(&Assignment::new()).eval(c) == 1),
        [(array, at)] => {
            let byte = (array.clone(), *at);
            let compiled = Compiled::new(&byte, std::slice::from_ref(c));
            // The nodes that do not read the byte, evaluated once.
            let (mut kept, mut slots) = (Evaluated::default(), Vec::new());
            let mut values = [0u64; 4];
            let mut a = Assignment::new();
            for v in 0..=u8::MAX {
                a.set_byte(array, *at as usize, v);
                if compiled.holds(&a, &mut kept, &mut slots).0 {
                    put(&mut values, v);
                }
            }
            Conjunct::Byte(byte, values)
        }
        _ => {
            let bound = atom_of(c).and_then(|atom| {
                let word = word_of(&atom.term)?;
                Some((atom.term, atom.set, word))
            });
            Conjunct::Bytes(Arc::new(Related {
                expr: c.clone(),
                demanded: demanded::demanded_bits(c, &bytes),
                bytes,
                chain: chain_in(c),
                bound,
            }))
        }
    }
}

/// What makes a conjunct's query slow for Z3 and worth searching first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Chained {
    /// A division by the input of a quotient or remainder by it.
    Divisions,
    /// A lookup at an index that a lookup at the input gives: the most
    /// lookups nested in one another (2 or more).
    Lookups(u8),
    /// Lookups nested so, one of them through a write at an index that
    /// depends on the input: a histogram's counts, a permutation's swaps
    /// (see [`BUDGET_BEFORE_Z3_WRITES`]).
    Writes,
}

/// The deepest chain of lookups that Z3 is given a short try of before a
/// long search ([`BUDGET_BEFORE_TRY`]). Of the tries made on grep's and
/// bc's queries over 20 million instructions each, Z3 answered all 155
/// where the chain was 2 or 3 deep (grep's hash of pattern bytes looked
/// up in a bucket table), and 3 of 20 where it was 5 to 8 deep (bc's
/// scanner), each of the others costing 140 to 430 ms.
const MAX_TRIED_DEPTH: u8 = 3;

impl Chained {
    /// Whether a query whose conjuncts chain so is worth a short try of
    /// Z3 once its search has run a few milliseconds.
    fn worth_a_try(self) -> bool {
        matches!(self, Chained::Lookups(depth) if depth <= MAX_TRIED_DEPTH)
    }
}

/// How `e` chains operations on the input, if it does: whether it looks
/// up a table at an index that is itself a lookup at an index that depends
/// on the input, as a scanner's DFA tables do (and how deep), or else
/// divides by the input a value that is itself a quotient or remainder by
/// the input (or divides by one), as Euclid's algorithm does. Z3
/// bit-blasts each division whole, and on a recursive Euclid's remainder
/// chain on two bytes took 0.1 to 0.3 s a query, and gave up on some after
/// a second and more, where trying every pair of values took 60 ms at
/// most. On a division or two side by side it takes a few milliseconds,
/// less than trying the pairs. bc's scanner (flex) indexes one table by
/// another's entry for the input byte, several deep: Z3 ran out of its
/// 10 s on 9 of 456 such queries and took 280 s over all of them.
fn chain_in(e: &ExprRef) -> Option<Chained> {
    let divides = |e: &ExprRef| {
        matches!(e.kind(), ExprKind::Binary { op, rhs, .. }
            if matches!(op, BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem)
                && !rhs.is_const())
    };
    let looks_up =
        |e: &ExprRef| matches!(e.kind(), ExprKind::Read { index, .. } if !index.is_const());
    let mut through_writes = false;
    // Divisions by the input and lookups at indices that depend on it,
    // nested in each node, children first.
    let mut depth: FxHashMap<*const ExprNode, (u8, u8)> = FxHashMap::default();
    let mut stack: Vec<(&ExprRef, bool)> = vec![(e, false)];
    while let Some((node, expanded)) = stack.pop() {
        if node.is_const() || depth.contains_key(&node.as_ptr()) {
            continue;
        }
        if !expanded {
            stack.push((node, true));
            node.for_each_child(|c| stack.push((c, false)));
            continue;
        }
        let (mut divisions, mut lookups) = (0u8, 0u8);
        node.for_each_child(|c| {
            let (d, l) = depth.get(&c.as_ptr()).copied().unwrap_or((0, 0));
            divisions = divisions.max(d);
            lookups = lookups.max(l);
        });
        divisions = divisions.saturating_add(u8::from(divides(node)));
        lookups = lookups.saturating_add(u8::from(looks_up(node)));
        through_writes = through_writes
            || matches!(node.kind(), ExprKind::Read { updates, .. } if updates.has_symbolic_write());
        depth.insert(node.as_ptr(), (divisions, lookups));
    }
    let (divisions, lookups) = depth.get(&e.as_ptr()).copied().unwrap_or((0, 0));
    if lookups >= 2 && through_writes {
        Some(Chained::Writes)
    } else if lookups >= 2 {
        Some(Chained::Lookups(lookups))
    } else if divisions >= 2 {
        Some(Chained::Divisions)
    } else {
        None
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
    put(&mut values, v);
    values
}

/// Puts `v` in `values`.
pub(super) fn put(values: &mut Values, v: u8) {
    values[usize::from(v / 64)] |= 1 << (v % 64);
}

/// Whether `v` is in `values`.
pub(super) fn has(values: &Values, v: u8) -> bool {
    values[usize::from(v / 64)] & (1 << (v % 64)) != 0
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
pub(super) fn each(values: &Values) -> impl Iterator<Item = u8> + '_ {
    (0..=u8::MAX).filter(|&v| has(values, v))
}

/// The number of values in `values`.
pub(super) fn count(values: &Values) -> u64 {
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
            match self.known.get(c) {
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
        // The conjuncts searched, each with the places in `bytes` of the
        // bytes it reads, and the combinations of those bytes' values.
        let mut searched: Vec<(&ExprRef, Vec<usize>)> = Vec::new();
        let mut counted = vec![false; bytes.len()];
        let mut combinations: u64 = 1;
        // The chains of the conjuncts searched: lookups, when any has
        // them, before divisions.
        let mut chain: Option<Chained> = None;
        let free_terms: FxHashSet<*const ExprNode> = words
            .iter()
            .zip(&free)
            .filter(|(_, &f)| f)
            .map(|((t, _, _), _)| t.as_ptr())
            .collect();
        // The bits of each byte the conjuncts searched depend on.
        let mut demanded = vec![0u8; bytes.len()];
        for r in &related {
            if r.bound
                .as_ref()
                .is_some_and(|(term, _, _)| free_terms.contains(&term.as_ptr()))
            {
                continue;
            }
            chain = chain.max(r.chain);
            let read: Vec<usize> = r.bytes.iter().map(|b| slots.of(b, &mut bytes)).collect();
            for (&i, bits) in read.iter().zip(&r.demanded) {
                counted[i] = true;
                demanded[i] |= bits;
            }
            searched.push((&r.expr, read));
        }
        // Values of a byte that agree on those bits make every conjunct
        // searched come out the same (its own conjuncts made its set): one
        // of each is tried.
        for (i, _) in counted.iter().enumerate().filter(|(_, &c)| c) {
            bytes[i].1 = demanded::representatives(&bytes[i].1, demanded[i]);
            combinations = combinations.saturating_mul(count(&bytes[i].1));
        }
        let searchable = match chain {
            Some(_) => MAX_SEARCHED_CHAINED,
            None => MAX_SEARCHED,
        };
        if combinations > searchable {
            return next.check(q);
        }
        if combinations > MAX_COMBINATIONS {
            for (expr, read) in &mut searched {
                search::deepest_first(expr, read, &bytes);
            }
        }
        let plan = Plan::new(&searched, |i| count(&bytes[i].1));
        let mut found = Vec::with_capacity(bytes.len());
        let mut domains = Vec::with_capacity(bytes.len());
        for (byte, values) in bytes {
            let Some(v) = least(&values) else {
                next.stats().hit(self.name());
                return Ok(Answer::Unsat);
            };
            found.push((byte, v));
            domains.push(values);
        }
        if !holds {
            next.stats().hit(self.name());
            return Ok(Answer::Unsat);
        }
        let budget = if combinations <= MAX_COMBINATIONS {
            u64::MAX
        } else if chain == Some(Chained::Writes) {
            BUDGET_BEFORE_Z3_WRITES
        } else if matches!(chain, Some(Chained::Lookups(_))) {
            BUDGET_BEFORE_Z3_LOOKUPS
        } else if chain.is_some() {
            BUDGET_BEFORE_Z3
        } else {
            0
        };
        let mut search = Search::new(&plan, &domains, &mut found);
        let first = if budget == 0 {
            Err(OverBudget)
        } else if !chain.is_some_and(Chained::worth_a_try) || budget <= BUDGET_BEFORE_TRY {
            search.run(budget)
        } else {
            match search.run(BUDGET_BEFORE_TRY) {
                // At the run's deadline Z3 answers nothing: the search does.
                Err(OverBudget) if !next.at_deadline() && self.backoff.try_now() => {
                    match next.check_capped(q, TRY_MS) {
                        Ok(answer) => {
                            self.backoff.answered();
                            return Ok(answer);
                        }
                        Err(_) => {
                            self.backoff.timed_out();
                            search.run(budget)
                        }
                    }
                }
                Err(OverBudget) => search.run(budget),
                decided => decided,
            }
        };
        let holds = match first {
            Ok(holds) => holds,
            Err(OverBudget) => {
                let answer = next.check(q);
                if !matches!(answer, Err(SolverError::Timeout)) || next.timeout_stands() {
                    return answer;
                }
                match search.run(BUDGET_AFTER_TIMEOUT) {
                    Ok(holds) => holds,
                    Err(OverBudget) => return answer,
                }
            }
        };
        next.stats().hit(self.name());
        if !holds {
            return Ok(Answer::Unsat);
        }
        Ok(Answer::Sat(q.model.map(|wanted| model(wanted, &found))))
    }
}

mod backoff;
pub(super) mod compiled;
mod demanded;
mod interface;
mod search;
#[cfg(test)]
mod tests;
