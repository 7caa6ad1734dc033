//! Witnesses found next to a known model, by evaluation alone.
//!
//! Some questions are almost always satisfiable and yet hard for Z3: once
//! a program hashes its input (a CRC through a table, indexed by the hash
//! so far), whether the next index can take another value than the one
//! the path's model gives it is a question about the whole chain of table
//! lookups, and Z3 spent its probe's full second on each of them on a
//! Csmith program hashing its globals. Changing one input byte the
//! question reads, in the path's model, almost always changes the hash
//! while the path's other conditions still hold: trying each value of
//! each byte, and evaluating, finds such a witness in microseconds.
//!
//! The other answer is as cheap where the path has fixed every byte the
//! question reads by conditions on each byte alone (`x == 0` on a 2-byte
//! global): the question then has the value it has under the known model,
//! where Z3, asked whether a CRC over those bytes can differ, timed out.
//! Where the bytes the question and its constraints read have few values
//! between them (two bytes' worth, after each byte's own conditions, and
//! counting one value of each set of values that they do not tell apart:
//! a byte only compared with `'('` and `')'` has three), every combination
//! is tried, and the question is decided either way. Otherwise the
//! question goes to the solver as before.

use super::arrays::{ArraysOf, Span};
use super::classes::ValueClasses;
use super::enumerate::{
    count, each, has, input_bytes, only, put, same, Byte, Conjuncts, Values, ALL,
};
use super::facts::Facts;
use crate::expr::{conjuncts, Assignment, Evaluated, Evaluator, ExprRef};
use std::sync::Arc;

/// The most input bytes a question may read to be tried here: each of
/// them is given each of its 256 values in turn.
const MAX_BYTES: usize = 16;

/// The values of a byte tried before the search works out which of them
/// the byte's own conditions rule out (mostly one of the first finds a
/// witness).
const PLAIN_TRIES: usize = 8;

/// The most nodes a question may have to be tried here.
const MAX_NODES: usize = 1 << 18;

/// The evaluation budget of one question, in nodes of the question
/// evaluated: a few milliseconds at most, against the probe's second.
const BUDGET: usize = 1 << 21;

/// What the values next to a known model say of a question.
pub(super) enum Nearby {
    /// A model of the question and of the constraints that read the bytes
    /// changed, next to the known model, with the values found under it.
    Witness(Assignment, Evaluated),
    /// The question is decided whatever the model: the facts the
    /// constraints state outright decide it, every byte it reads is fixed
    /// by a condition on it alone, or every combination of the values of
    /// the bytes that it and the constraints on them read was tried.
    Decided(bool),
    /// Neither: ask the solver.
    Unknown,
}

/// Whether `constraints ∧ e` holds next to `known`, a model of
/// `constraints`. In turn: a model that differs from `known` in one byte
/// `e` reads, if trying each value of each such byte finds one (where the
/// first tries find none, what the facts the constraints state outright
/// make of `e`, if they decide it); what `e`
/// is under `known` when the constraints fix each such byte by a
/// condition on it alone; and, where the bytes `e` and the constraints
/// reading its arrays read are in those arrays and have at most two bytes'
/// worth of values between them (each byte taking those its one-byte
/// conditions allow, one of each class where they are many), every
/// combination of them.
/// Only the constraints reading a changed array are evaluated for each
/// try: the others hold under a witness if `known` is their model.
pub(super) fn witness_nearby(
    arrays_of: &mut ArraysOf,
    classified: &mut Conjuncts,
    constraints: &[ExprRef],
    e: &ExprRef,
    known: &Assignment,
) -> Nearby {
    let Ok((bytes, nodes)) = input_bytes(e, MAX_BYTES, MAX_NODES) else {
        return Nearby::Unknown;
    };
    if bytes.is_empty() {
        return Nearby::Unknown;
    }
    let mut spans: Vec<Span> = Vec::new();
    arrays_of.spans(constraints, &mut spans);
    // The constraints that a change of the bytes may turn false.
    let touched: Vec<&ExprRef> = constraints
        .iter()
        .zip(&spans)
        .filter(|(_, &span)| {
            arrays_of
                .get(span)
                .iter()
                .any(|a| bytes.iter().any(|(b, _)| Arc::ptr_eq(a, b)))
        })
        .map(|(c, _)| c)
        .collect();
    let mut search = Search {
        model: known.clone(),
        touched: touched.clone(),
        e,
        nodes,
        budget: BUDGET,
        values: Evaluated::default(),
    };
    // What each byte's conditions of its own allow is worked out where a
    // byte's first tries find no witness (mostly one does).
    let mut pins: Option<Vec<(Byte, Values)>> = None;
    for byte in &bytes {
        let was = byte_of(known, byte);
        let mut left = pins.as_ref().map_or(ALL, |pins| allowed(byte, pins));
        for (tries, value) in (0..=u8::MAX).filter(|&v| v != was).enumerate() {
            if !has(&left, value) {
                continue;
            }
            search.model.set_byte(&byte.0, byte.1 as usize, value);
            match search.try_model() {
                Some(true) => return Nearby::Witness(search.model, search.values),
                Some(false) => {}
                None => return Nearby::Unknown,
            }
            if tries + 1 == PLAIN_TRIES && pins.is_none() {
                // The question may read its bytes only through a term the
                // path has decided (see [`Facts`]): then no byte's change
                // would do, and the facts tell. Asked only here, as a
                // question a try answers mostly takes one try, and working
                // out the facts walks the whole question.
                if let Some(holds) = Facts::of(constraints).decide(e) {
                    return Nearby::Decided(holds);
                }
                // A value that a condition on the byte alone rules out
                // would fail that condition: only the others are tried (a
                // byte pinned by `c == '+'` is tried no more).
                left = allowed(byte, pins.insert(one_byte_conditions(&touched, classified)));
            }
        }
        search.model.set_byte(&byte.0, byte.1 as usize, was);
    }
    let pins = pins.get_or_insert_with(|| one_byte_conditions(&touched, classified));
    // Every byte fixed: the question is what it is under `known` (which
    // the tries above skipped; the caller mostly knows it false there).
    if bytes.iter().all(|b| {
        pins.iter()
            .any(|(p, values)| same(p, b) && *values == only(byte_of(known, b)))
    }) {
        return if Evaluator::new(known).eval(e) == 1 {
            Nearby::Witness(known.clone(), Evaluated::default())
        } else {
            Nearby::Decided(false)
        };
    }
    // Every combination of the bytes the question and its constraints read,
    // where they are few: each byte takes the values its own conditions
    // allow (a byte pinned by `x[0] == 19` takes one), and together at most
    // two bytes' worth. A path fixing a 2-byte global through its low byte
    // and a comparison of the whole word left one value to its high byte,
    // and Z3 was asked, slowly, whether a CRC over them could differ.
    let Some(candidates) = combinations(e, &touched, &bytes, pins, known) else {
        return Nearby::Unknown;
    };
    // A combination that differs from `known` in one of the question's
    // bytes alone was tried above, and is not tried again.
    let was: Vec<u8> = candidates.iter().map(|(b, _)| byte_of(known, b)).collect();
    let swept: Vec<bool> = candidates
        .iter()
        .map(|(b, _)| bytes.iter().any(|q| same(q, b)))
        .collect();
    let mut at = vec![0usize; candidates.len()];
    loop {
        let mut changed = (0..at.len()).filter(|&k| candidates[k].1[at[k]] != was[k]);
        let tried = matches!(changed.next(), Some(k) if swept[k]) && changed.next().is_none();
        if !tried {
            for ((byte, values), &i) in candidates.iter().zip(&at) {
                search.model.set_byte(&byte.0, byte.1 as usize, values[i]);
            }
            match search.try_model() {
                Some(true) => return Nearby::Witness(search.model, search.values),
                Some(false) => {}
                None => return Nearby::Unknown,
            }
        }
        // The next combination, the first byte turning fastest.
        let mut k = 0;
        while k < at.len() {
            at[k] += 1;
            if at[k] < candidates[k].1.len() {
                break;
            }
            at[k] = 0;
            k += 1;
        }
        if k == at.len() {
            return Nearby::Decided(false);
        }
    }
}

/// The most combinations of byte values tried whole: two bytes' worth.
const MAX_COMBINATIONS: usize = 1 << 16;

/// The most constraint nodes evaluated over all the combinations: each
/// try evaluates the constraints before the question.
const MAX_CONSTRAINT_WORK: usize = 1 << 24;

/// The combinations are tried by class where they are more than
/// this: each byte takes one value of each set of its values that the
/// question and the constraints do not tell apart (see [`ValueClasses`]).
/// Fewer, they cost less to try than to class.
const CLASSED_ABOVE: u64 = 256;

/// Each byte that the question `e` reads (`bytes`) or that the constraints
/// on it read, with the values to try it at: those its one-byte conditions
/// `pins` allow or, where their combinations are many, one of each of
/// their classes (the known value for its own). `None` where a constraint
/// reads an array the question does not (its other constraints were not
/// gathered), or where the combinations are none or too many to try.
fn combinations(
    e: &ExprRef,
    touched: &[&ExprRef],
    bytes: &[Byte],
    pins: &[(Byte, Values)],
    known: &Assignment,
) -> Option<Vec<(Byte, Vec<u8>)>> {
    let mut all: Vec<Byte> = bytes.to_vec();
    let mut nodes = 0;
    for c in touched {
        let (read, n) = input_bytes(c, MAX_BYTES, MAX_NODES).ok()?;
        nodes += n;
        for r in read {
            if !bytes.iter().any(|b| Arc::ptr_eq(&b.0, &r.0)) {
                return None;
            }
            if !all.iter().any(|b| same(b, &r)) {
                all.push(r);
            }
        }
    }
    let allowed: Vec<Values> = all.iter().map(|b| allowed(b, pins)).collect();
    let plain = allowed.iter().fold(1u64, |n, a| n.saturating_mul(count(a)));
    let classes = (plain > CLASSED_ABOVE).then(|| {
        let read: Vec<&ExprRef> = std::iter::once(e).chain(touched.iter().copied()).collect();
        ValueClasses::new(&read)
    });
    let mut combined = 1usize;
    let candidates: Vec<(Byte, Vec<u8>)> = all
        .into_iter()
        .zip(allowed)
        .map(|(b, allowed)| {
            let values = match &classes {
                Some(classes) => {
                    let was = byte_of(known, &b);
                    let mut values = classes.representatives(&b, &allowed, &only(was));
                    if has(&allowed, was) {
                        put(&mut values, was);
                    }
                    values
                }
                None => allowed,
            };
            let values: Vec<u8> = each(&values).collect();
            combined = combined.saturating_mul(values.len());
            (b, values)
        })
        .collect();
    // No value at all: `known` is no model after all, and the solver says.
    (combined > 0
        && combined <= MAX_COMBINATIONS
        && combined.saturating_mul(nodes.max(1)) <= MAX_CONSTRAINT_WORK)
        .then_some(candidates)
}

/// The values of `b` that its one-byte conditions `pins` allow.
fn allowed(b: &Byte, pins: &[(Byte, Values)]) -> Values {
    let mut allowed = ALL;
    for (_, values) in pins.iter().filter(|(p, _)| same(p, b)) {
        for (a, v) in allowed.iter_mut().zip(values) {
            *a &= v;
        }
    }
    allowed
}

/// The state of a search for a witness.
struct Search<'a> {
    model: Assignment,
    /// The touched constraints, the one that failed last first: the tries
    /// of one byte's values mostly fail on the same constraint (`arg[0] ==
    /// '-'`), which is then the only one evaluated.
    touched: Vec<&'a ExprRef>,
    e: &'a ExprRef,
    /// The question's size, and what is left of the evaluation budget.
    nodes: usize,
    budget: usize,
    /// The values found under the model by the last try.
    values: Evaluated,
}

impl Search<'_> {
    /// Whether the model now satisfies the touched constraints and the
    /// question; `None` once the budget is spent.
    fn try_model(&mut self) -> Option<bool> {
        // The last try's room, without its values: the model is another.
        let mut values = std::mem::take(&mut self.values);
        values.clear();
        let failed = self
            .touched
            .iter()
            .position(|c| values.eval(&self.model, c) != 1);
        let holds = if let Some(i) = failed {
            self.touched[..=i].rotate_right(1);
            Some(false)
        } else {
            self.budget = self.budget.checked_sub(self.nodes)?;
            Some(values.eval(&self.model, self.e) == 1)
        };
        self.values = values;
        holds
    }
}

/// The bytes that conjuncts of `constraints` read alone, each with the
/// values its conjunct allows.
fn one_byte_conditions(
    constraints: &[&ExprRef],
    classified: &mut Conjuncts,
) -> Vec<(Byte, Values)> {
    let mut parts = Vec::new();
    let owned: Vec<ExprRef> = constraints.iter().map(|&c| c.clone()).collect();
    conjuncts(&owned, &mut parts);
    parts
        .iter()
        .filter_map(|c| classified.one_byte(c))
        .collect()
}

/// The value `model` gives `byte` (0 where it gives its array none).
fn byte_of(model: &Assignment, (array, at): &Byte) -> u8 {
    model
        .get(array)
        .and_then(|b| b.get(*at as usize).copied())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, constant, read, Array, ArrayRef, UpdateList};

    /// The search on its own, with nothing learnt before.
    fn nearby(constraints: &[ExprRef], e: &ExprRef, known: &Assignment) -> Nearby {
        let (mut arrays, mut classified) = (ArraysOf::default(), Conjuncts::default());
        witness_nearby(&mut arrays, &mut classified, constraints, e, known)
    }

    fn byte(a: &ArrayRef, i: u128) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i, 64))
    }

    /// A CRC-like chain: each step looks the running hash up in a table
    /// at an index the input byte and the hash give.
    fn hashed(table: &ArrayRef, input: &[ExprRef]) -> ExprRef {
        let mut h = constant(0x5a, 8);
        for b in input {
            let at = expr::zext(&expr::xor(&h, b), 64);
            h = expr::xor(
                &read(&UpdateList::new(table.clone()), &at),
                &expr::add(&h, &h),
            );
        }
        h
    }

    /// A table of 256 bytes, a permutation of them.
    fn table() -> ArrayRef {
        let bytes: Vec<u8> = (0..=255u8)
            .map(|i| i.wrapping_mul(167).wrapping_add(13))
            .collect();
        Array::constant("table", bytes)
    }

    fn model(a: &ArrayRef, bytes: &[u8]) -> Assignment {
        let mut m = Assignment::new();
        m.set(a, bytes.to_vec());
        m
    }

    #[test]
    fn another_value_of_a_hash_is_found_by_changing_one_byte() {
        let table = table();
        let x = Array::symbolic("x", 4);
        let input: Vec<ExprRef> = (0..4).map(|i| byte(&x, i)).collect();
        let h = hashed(&table, &input);
        // The path allows byte 0 only below 16, and byte 1 only 7.
        let constraints = vec![
            expr::ult(&input[0], &constant(16, 8)),
            expr::eq(&input[1], &constant(7, 8)),
        ];
        let known = model(&x, &[3, 7, 200, 9]);
        let v = expr::eval(&h, &known);
        let other = expr::ne(&h, &constant(v, 8));
        let Nearby::Witness(found, _) = nearby(&constraints, &other, &known) else {
            panic!("a byte's change changes the hash");
        };
        assert_eq!(expr::eval(&other, &found), 1);
        for c in &constraints {
            assert_eq!(expr::eval(c, &found), 1);
        }
        let bytes = found.get(&x).unwrap();
        let changed = (0..4).filter(|&i| bytes[i] != [3, 7, 200, 9][i]).count();
        assert_eq!(changed, 1, "{bytes:?}");
    }

    #[test]
    fn a_hash_of_bytes_the_path_fixes_one_by_one_is_fixed() {
        let table = table();
        let x = Array::symbolic("x", 2);
        let input: Vec<ExprRef> = (0..2).map(|i| byte(&x, i)).collect();
        let h = hashed(&table, &input);
        let constraints = vec![
            expr::eq(&input[0], &constant(3, 8)),
            expr::eq(&input[1], &constant(7, 8)),
        ];
        let known = model(&x, &[3, 7]);
        let v = expr::eval(&h, &known);
        let other = expr::ne(&h, &constant(v, 8));
        assert!(matches!(
            nearby(&constraints, &other, &known),
            Nearby::Decided(false)
        ));
        // Whether it can equal its value there: the facts of the path (each
        // byte equal to a constant) make the hash that value.
        let same = expr::eq(&h, &constant(v, 8));
        assert!(matches!(
            nearby(&constraints, &same, &known),
            Nearby::Decided(true)
        ));
    }

    #[test]
    fn a_witness_must_keep_the_constraints_that_read_several_bytes() {
        // Three bytes are tied: changing any one alone breaks the tie, so
        // no model one byte away exists, though one three bytes away does;
        // no byte is fixed by a condition of its own, and the three have
        // too many values between them to try.
        let x = Array::symbolic("x", 3);
        let (b0, b1, b2) = (byte(&x, 0), byte(&x, 1), byte(&x, 2));
        let constraints = vec![expr::eq(&b0, &b1), expr::eq(&b1, &b2)];
        let known = model(&x, &[5, 5, 5]);
        let other = expr::ne(&b0, &constant(5, 8));
        assert!(matches!(
            nearby(&constraints, &other, &known),
            Nearby::Unknown
        ));
    }

    #[test]
    fn two_tied_bytes_are_searched_whole() {
        let x = Array::symbolic("x", 2);
        let (b0, b1) = (byte(&x, 0), byte(&x, 1));
        let constraints = vec![expr::eq(&b0, &b1)];
        let known = model(&x, &[5, 5]);
        // Another sum needs both bytes changed.
        let other_sum = expr::ne(&expr::add(&b0, &b1), &constant(10, 8));
        let Nearby::Witness(found, _) = nearby(&constraints, &other_sum, &known) else {
            panic!("two bytes changed together keep the tie");
        };
        assert_eq!(expr::eval(&other_sum, &found), 1);
        assert_eq!(expr::eval(&constraints[0], &found), 1);
        // Tied bytes never differ: every pair of values says so.
        let differ = expr::ne(&expr::xor(&b0, &b1), &constant(0, 8));
        assert!(matches!(
            nearby(&constraints, &differ, &known),
            Nearby::Decided(false)
        ));
    }

    /// A 2-byte global fixed by a condition on its low byte and a
    /// comparison of the whole word: a hash of its high byte alone has one
    /// value, though no condition on that byte alone says so.
    #[test]
    fn bytes_fixed_together_fix_the_hash_of_one() {
        let table = table();
        let x = Array::symbolic("x", 2);
        let (b0, b1) = (byte(&x, 0), byte(&x, 1));
        let word = expr::concat(&b1, &b0);
        let known = model(&x, &[19, 0]);
        let h = hashed(&table, std::slice::from_ref(&b1));
        let other = expr::ne(&h, &constant(expr::eval(&h, &known), 8));
        let fixed = vec![
            expr::eq(&b0, &constant(19, 8)),
            expr::ult(&word, &constant(20, 16)),
        ];
        assert!(matches!(
            nearby(&fixed, &other, &known),
            Nearby::Decided(false)
        ));
        // Below 300, the high byte may be 1 as well.
        let loose = vec![fixed[0].clone(), expr::ult(&word, &constant(300, 16))];
        let Nearby::Witness(found, _) = nearby(&loose, &other, &known) else {
            panic!("the high byte may change");
        };
        assert_eq!(found.get(&x).unwrap()[..], [19, 1]);
    }

    /// A byte pinned by its own condition takes only its value, so three
    /// bytes, one of them pinned, are tried whole.
    #[test]
    fn pinned_bytes_leave_the_others_to_try_whole() {
        let x = Array::symbolic("x", 3);
        let (b0, b1, b2) = (byte(&x, 0), byte(&x, 1), byte(&x, 2));
        let constraints = vec![
            expr::eq(&b2, &constant(7, 8)),
            expr::eq(&b0, &expr::add(&b1, &b2)),
        ];
        let known = model(&x, &[12, 5, 7]);
        let other = expr::ne(&b1, &constant(5, 8));
        let Nearby::Witness(found, _) = nearby(&constraints, &other, &known) else {
            panic!("b0 and b1 changed together keep the sum");
        };
        for c in constraints.iter().chain([&other]) {
            assert_eq!(expr::eval(c, &found), 1);
        }
        // b0 - b1 is b2's value, whatever the pair.
        let differ = expr::ne(&expr::sub(&b0, &b1), &constant(7, 8));
        assert!(matches!(
            nearby(&constraints, &differ, &known),
            Nearby::Decided(false)
        ));
    }

    /// A pointer into a table of operators, offset by a slot for each
    /// byte equal to an operator's character (GNU `expr`): four bytes
    /// with 2^32 combinations between them, but each compared with
    /// constants only, so a value of each class of each byte is tried.
    #[test]
    fn bytes_compared_with_constants_are_searched_by_class() {
        let x = Array::symbolic("x", 4);
        let b: Vec<ExprRef> = (0..4).map(|i| byte(&x, i)).collect();
        let slot = |byte: &ExprRef, c: u8| {
            expr::mul(
                &constant(8, 64),
                &expr::zext(&expr::eq(byte, &constant(c.into(), 8)), 64),
            )
        };
        let p = [slot(&b[0], b'('), slot(&b[0], b')'), slot(&b[1], 0)]
            .iter()
            .chain(&[slot(&b[2], b'+'), slot(&b[3], b'-')])
            .fold(constant(0x1000, 64), |sum, s| expr::add(&sum, s));
        let known = model(&x, &[b'a', 1, b'b', b'c']);
        let not_operator = |byte: &ExprRef, c: u8| expr::ne(byte, &constant(c.into(), 8));
        // The path ruled every operator out: the pointer is fixed.
        let none = vec![
            not_operator(&b[0], b'('),
            not_operator(&b[0], b')'),
            not_operator(&b[1], 0),
            not_operator(&b[2], b'+'),
            not_operator(&b[3], b'-'),
        ];
        let moved = expr::ne(&p, &constant(0x1000, 64));
        assert!(matches!(
            nearby(&none, &moved, &known),
            Nearby::Decided(false)
        ));
        // Bytes 1 and 2 are an operator together or not at all: two slots
        // further needs both changed, which no one byte's change gives.
        let together = vec![expr::eq(
            &expr::eq(&b[1], &constant(0, 8)),
            &expr::eq(&b[2], &constant(b'+'.into(), 8)),
        )];
        let two_slots = expr::eq(&p, &constant(0x1010, 64));
        let Nearby::Witness(found, _) = nearby(&together, &two_slots, &known) else {
            panic!("two bytes changed together move the pointer two slots");
        };
        for c in together.iter().chain([&two_slots]) {
            assert_eq!(expr::eval(c, &found), 1);
        }
    }
}
