//! Constraints known to hold under bytes a model shares with an earlier one.
//!
//! A model's bytes for an array are shared (`Arc<[u8]>`) by every model
//! copied from it: the slice layer builds each model mostly from the last
//! one's factors, and a path's model from its parent's. A constraint reads
//! only its arrays, so where a model has, for each of them, the very bytes
//! under which the constraint was once found to hold, it holds again, and
//! evaluating it is wasted. A loop of 3,000 rounds on fresh input checked
//! each test's model against every constraint of the path twice (in the
//! slice layer and in the solver's check of every answer): half its run.

use std::sync::Arc;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::expr::{arrays_in, ArrayRef, Assignment, Evaluator, ExprNode, ExprRef};

/// Constraints remembered before the memo starts afresh (memory bound:
/// each holds its expression and the bytes it held under).
const LIMIT: usize = 1 << 16;

/// Checks of fewer constraints than this evaluate them: the memo's upkeep
/// (finding each one's arrays, holding its bytes) cost more than it saved
/// on a nested loop's short queries.
const MIN_CHECK: usize = 32;

/// Remembers, for each constraint found to hold under a model, the bytes
/// (by identity) that model gave the arrays it reads.
#[derive(Default)]
pub struct Verified {
    held: FxHashMap<*const ExprNode, Held>,
}

/// A constraint and the bytes of its arrays under which it held.
struct Held {
    /// Keeps the expression, and so its address, alive.
    _expr: ExprRef,
    bytes: SmallVec<[(ArrayRef, Arc<[u8]>); 1]>,
}

impl Verified {
    /// Whether every one of `constraints` holds under `model`: those with
    /// their arrays' bytes shared with a model they held under, without
    /// evaluation; the others evaluated, and remembered when they hold.
    /// `check` is the number of constraints of the whole check these are
    /// part of (a model's, factor by factor): a short one only evaluates.
    pub fn all_hold<'e>(
        &mut self,
        model: &Assignment,
        constraints: impl IntoIterator<Item = &'e ExprRef>,
        check: usize,
    ) -> bool {
        let memo = check >= MIN_CHECK;
        let mut ev: Option<Evaluator<'_>> = None;
        for c in constraints {
            if c.is_true() || (memo && self.shares_bytes(model, c)) {
                continue;
            }
            if ev.get_or_insert_with(|| Evaluator::new(model)).eval(c) != 1 {
                return false;
            }
            if memo {
                self.remember(model, c);
            }
        }
        true
    }

    fn shares_bytes(&self, model: &Assignment, c: &ExprRef) -> bool {
        self.held.get(&c.as_ptr()).is_some_and(|h| {
            h.bytes
                .iter()
                .all(|(a, b)| model.shared(a).is_some_and(|m| Arc::ptr_eq(m, b)))
        })
    }

    fn remember(&mut self, model: &Assignment, c: &ExprRef) {
        let mut arrays = Vec::new();
        arrays_in(c, &mut arrays);
        // An array the model leaves unset reads as zeros: bytes a later
        // model may set differently, with no identity to compare.
        let Some(bytes) = arrays
            .into_iter()
            .map(|a| model.shared(&a).cloned().map(|b| (a, b)))
            .collect::<Option<SmallVec<_>>>()
        else {
            return;
        };
        if self.held.len() >= LIMIT {
            self.held.clear();
        }
        self.held.insert(
            c.as_ptr(),
            Held {
                _expr: c.clone(),
                bytes,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, constant, read, Array, UpdateList};

    fn byte(a: &ArrayRef, i: u128) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i, 64))
    }

    /// A constraint held under shared bytes holds without evaluation; under
    /// other bytes, even equal ones, it is evaluated again, and a model
    /// that breaks it is caught.
    #[test]
    fn shared_bytes_vouch_and_other_bytes_are_evaluated() {
        let (x, y) = (Array::symbolic("x", 1), Array::symbolic("y", 1));
        let c = expr::ult(&byte(&x, 0), &byte(&y, 0));
        let mut m = Assignment::new();
        m.set(&x, vec![1]);
        m.set(&y, vec![2]);
        let mut v = Verified::default();
        // A short check only evaluates.
        assert!(v.all_hold(&m, [&c], 1));
        assert!(!v.shares_bytes(&m, &c));
        assert!(v.all_hold(&m, [&c], MIN_CHECK));
        assert!(v.shares_bytes(&m, &c));
        // A copy shares the bytes.
        let copy = m.clone();
        assert!(v.shares_bytes(&copy, &c));
        // New bytes for one array: evaluated again, and they break it.
        let mut broken = m.clone();
        broken.set(&y, vec![0]);
        assert!(!v.shares_bytes(&broken, &c));
        assert!(!v.all_hold(&broken, [&c], MIN_CHECK));
        // Equal bytes that are not shared: evaluated, found to hold.
        let mut equal = Assignment::new();
        equal.set(&x, vec![1]);
        equal.set(&y, vec![2]);
        assert!(!v.shares_bytes(&equal, &c));
        assert!(v.all_hold(&equal, [&c], MIN_CHECK));
        // A byte written in place into a model's own copy is no longer
        // shared with the bytes remembered.
        let mut written = equal.clone();
        drop(equal);
        written.set_byte(&y, 0, 0);
        assert!(!v.all_hold(&written, [&c], MIN_CHECK));
    }

    /// An array a model leaves unset reads as zeros: nothing is remembered,
    /// so a later model setting it is evaluated.
    #[test]
    fn unset_arrays_are_not_vouched_for() {
        let x = Array::symbolic("x", 1);
        let c = expr::eq(&byte(&x, 0), &constant(0, 8));
        let empty = Assignment::new();
        let mut v = Verified::default();
        assert!(v.all_hold(&empty, [&c], MIN_CHECK));
        let mut m = Assignment::new();
        m.set(&x, vec![5]);
        assert!(!v.all_hold(&m, [&c], MIN_CHECK));
    }
}
