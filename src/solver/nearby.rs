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
//! Otherwise the question goes to the solver as before.

use super::arrays::{ArraysOf, Span};
use super::enumerate::{input_bytes, one_byte_values, only, same, Byte, Values};
use crate::expr::{conjuncts, Assignment, Evaluated, Evaluator, ExprRef};
use std::sync::Arc;

/// The most input bytes a question may read to be tried here: each of
/// them is given each of its 256 values in turn.
const MAX_BYTES: usize = 16;

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
    /// The question is decided whatever the model: every byte it reads is
    /// fixed by a condition on it alone, or the question and the
    /// constraints on its bytes read at most two bytes, all of whose
    /// values were tried.
    Decided(bool),
    /// Neither: ask the solver.
    Unknown,
}

/// Whether `constraints ∧ e` holds next to `known`, a model of
/// `constraints`. In turn: a model that differs from `known` in one byte
/// `e` reads, if trying each value of each such byte finds one; what `e`
/// is under `known` when the constraints fix each such byte by a
/// condition on it alone; and, where `e` reads two bytes or one and the
/// constraints reading them read no others, every value of those bytes.
/// Only the constraints reading a changed array are evaluated for each
/// try: the others hold under a witness if `known` is their model.
pub(super) fn witness_nearby(
    arrays_of: &mut ArraysOf,
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
        touched: &touched,
        e,
        nodes,
        budget: BUDGET,
        values: Evaluated::default(),
    };
    for byte in &bytes {
        let was = byte_of(known, byte);
        for value in (0..=u8::MAX).filter(|&v| v != was) {
            search.model.set_byte(&byte.0, byte.1 as usize, value);
            match search.try_model() {
                Some(true) => return Nearby::Witness(search.model, search.values),
                Some(false) => {}
                None => return Nearby::Unknown,
            }
        }
        search.model.set_byte(&byte.0, byte.1 as usize, was);
    }
    // Every byte fixed: the question is what it is under `known` (which
    // the tries above skipped; the caller mostly knows it false there).
    let pins = one_byte_conditions(&touched);
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
    // Every value of at most two bytes, where nothing else bears on them.
    if bytes.len() > 2 || !touched.iter().all(|c| reads_only(c, &bytes)) {
        return Nearby::Unknown;
    }
    let (first, second) = (&bytes[0], bytes.get(1));
    for pair in 0..(256u32 << (8 * u32::from(second.is_some()))) {
        search
            .model
            .set_byte(&first.0, first.1 as usize, pair as u8);
        if let Some(second) = second {
            search
                .model
                .set_byte(&second.0, second.1 as usize, (pair >> 8) as u8);
        }
        match search.try_model() {
            Some(true) => return Nearby::Witness(search.model, search.values),
            Some(false) => {}
            None => return Nearby::Unknown,
        }
    }
    Nearby::Decided(false)
}

/// The state of a search for a witness.
struct Search<'a> {
    model: Assignment,
    touched: &'a [&'a ExprRef],
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
        let mut values = Evaluated::default();
        let holds = if !self
            .touched
            .iter()
            .all(|c| values.eval(&self.model, c) == 1)
        {
            Some(false)
        } else {
            self.budget = self.budget.checked_sub(self.nodes)?;
            Some(values.eval(&self.model, self.e) == 1)
        };
        self.values = values;
        holds
    }
}

/// Whether the input bytes `c` reads are all among `bytes`.
fn reads_only(c: &ExprRef, bytes: &[Byte]) -> bool {
    input_bytes(c, MAX_BYTES, MAX_NODES).is_ok_and(|(read, _)| {
        read.iter()
            .all(|r| bytes.iter().any(|b| Arc::ptr_eq(&r.0, &b.0) && r.1 == b.1))
    })
}

/// The bytes that conjuncts of `constraints` read alone, each with the
/// values its conjunct allows.
fn one_byte_conditions(constraints: &[&ExprRef]) -> Vec<(Byte, Values)> {
    let mut parts = Vec::new();
    let owned: Vec<ExprRef> = constraints.iter().map(|&c| c.clone()).collect();
    conjuncts(&owned, &mut parts);
    parts.iter().filter_map(one_byte_values).collect()
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
        let mut arrays = ArraysOf::default();
        let Nearby::Witness(found, _) = witness_nearby(&mut arrays, &constraints, &other, &known)
        else {
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
        let mut arrays = ArraysOf::default();
        assert!(matches!(
            witness_nearby(&mut arrays, &constraints, &other, &known),
            Nearby::Decided(false)
        ));
        // Whether it can equal its value there: the known model says so.
        let same = expr::eq(&h, &constant(v, 8));
        assert!(matches!(
            witness_nearby(&mut arrays, &constraints, &same, &known),
            Nearby::Witness(..)
        ));
    }

    #[test]
    fn a_witness_must_keep_the_constraints_that_read_two_bytes() {
        // Byte 0 and byte 1 are tied: changing either alone breaks the tie,
        // so no model one byte away exists, though one two bytes away does;
        // neither byte is fixed by a condition of its own.
        let x = Array::symbolic("x", 2);
        let (b0, b1) = (byte(&x, 0), byte(&x, 1));
        let constraints = vec![expr::eq(&b0, &b1)];
        let known = model(&x, &[5, 5]);
        let other = expr::ne(&b0, &constant(5, 8));
        let mut arrays = ArraysOf::default();
        assert!(matches!(
            witness_nearby(&mut arrays, &constraints, &other, &known),
            Nearby::Unknown
        ));
    }

    #[test]
    fn two_tied_bytes_are_searched_whole() {
        let x = Array::symbolic("x", 2);
        let (b0, b1) = (byte(&x, 0), byte(&x, 1));
        let constraints = vec![expr::eq(&b0, &b1)];
        let known = model(&x, &[5, 5]);
        let mut arrays = ArraysOf::default();
        // Another sum needs both bytes changed.
        let other_sum = expr::ne(&expr::add(&b0, &b1), &constant(10, 8));
        let Nearby::Witness(found, _) =
            witness_nearby(&mut arrays, &constraints, &other_sum, &known)
        else {
            panic!("two bytes changed together keep the tie");
        };
        assert_eq!(expr::eval(&other_sum, &found), 1);
        assert_eq!(expr::eval(&constraints[0], &found), 1);
        // Tied bytes never differ: every pair of values says so.
        let differ = expr::ne(&expr::xor(&b0, &b1), &constant(0, 8));
        assert!(matches!(
            witness_nearby(&mut arrays, &constraints, &differ, &known),
            Nearby::Decided(false)
        ));
    }
}
