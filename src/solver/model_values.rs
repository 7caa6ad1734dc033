//! The values of expressions under the few models a worker evaluates again
//! and again: the path's model, and the witnesses [`super::nearby`] found.
//!
//! A program hashing its input asks, at each table lookup, about an index
//! one step longer than the last one's: the same chain of nodes with a few
//! more on top. Evaluated afresh under the path's model and under a
//! witness at each lookup, the chain cost its whole length every time, and
//! a Csmith program's CRC over its globals spent its run so. Kept with the
//! model they were found under, the values make each lookup cost its new
//! nodes, and a witness of the last lookup's question, one input byte away
//! from the path's model, almost always answers the next one's as well.

use std::sync::Arc;

use crate::expr::{Assignment, Evaluated, ExprRef};

/// Path models whose values are kept: the paths the search interleaves
/// come back to theirs soon after leaving them.
const KNOWN: usize = 4;

/// Witnesses kept. One fails a question about a byte-wide hashed index
/// about once in 256 lookups, where it gives the index the path model's
/// value; the one before it then mostly answers, and a new one (a walk of
/// the whole chain to find, another to check) is looked for about once in
/// 65,536.
const WITNESSES: usize = 2;

/// Values kept in all, for all the models (memory bound: each holds its
/// node's address and value, some 40 bytes with the table's room, and the
/// roots evaluated are held alive). A Csmith program's CRC over its globals
/// grew past a million nodes in 10 s; a bound below the chain's length
/// would start it afresh at each lookup.
const MAX_VALUES: usize = 1 << 23;

/// Models, each with the values found under it.
#[derive(Default)]
pub(super) struct ModelValues {
    entries: Vec<Entry>,
    /// Counts uses, to tell the entry used longest ago.
    clock: u64,
}

/// A model and the values of the expressions evaluated under it. The model
/// is held, so its address names it while the entry lives.
struct Entry {
    model: Arc<Assignment>,
    values: Evaluated,
    /// A witness [`super::nearby`] found, rather than a path's model.
    witness: bool,
    used: u64,
}

impl Entry {
    /// Whether every one of `exprs` is true under the model, stopping at
    /// the first that is not.
    fn all_true<'e>(&mut self, exprs: impl IntoIterator<Item = &'e ExprRef>) -> bool {
        exprs
            .into_iter()
            .all(|e| self.values.eval(&self.model, e) == 1)
    }
}

impl ModelValues {
    /// The value of `e` under `model`, the values found for it before
    /// reused.
    pub(super) fn value(&mut self, model: &Arc<Assignment>, e: &ExprRef) -> u128 {
        let i = match self
            .entries
            .iter()
            .position(|k| !k.witness && Arc::ptr_eq(&k.model, model))
        {
            Some(i) => i,
            None => self.add(Entry {
                model: model.clone(),
                values: Evaluated::default(),
                witness: false,
                used: 0,
            }),
        };
        let entry = &mut self.entries[i];
        let v = entry.values.eval(&entry.model, e);
        self.used(i);
        v
    }

    /// A witness found earlier under which `e` and every one of
    /// `constraints` are true, the most recently used first.
    pub(super) fn witness(&mut self, constraints: &[ExprRef], e: &ExprRef) -> bool {
        let mut order: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].witness)
            .collect();
        order.sort_by_key(|&i| std::cmp::Reverse(self.entries[i].used));
        let found = order
            .into_iter()
            .find(|&i| self.entries[i].all_true(std::iter::once(e).chain(constraints)));
        match found {
            Some(i) => self.used(i),
            None => self.trim(),
        }
        found.is_some()
    }

    /// Whether `model` makes `e` and every one of `constraints` true,
    /// `values` being values found under it; if so, it is kept as a
    /// witness for the next questions.
    pub(super) fn add_witness(
        &mut self,
        model: Assignment,
        values: Evaluated,
        constraints: &[ExprRef],
        e: &ExprRef,
    ) -> bool {
        let mut entry = Entry {
            model: Arc::new(model),
            values,
            witness: true,
            used: 0,
        };
        if !entry.all_true(std::iter::once(e).chain(constraints)) {
            return false;
        }
        let i = self.add(entry);
        self.used(i);
        true
    }

    /// Adds `entry`, making room among those of its kind; its index.
    fn add(&mut self, entry: Entry) -> usize {
        let witness = entry.witness;
        let kind = || {
            self.entries
                .iter()
                .enumerate()
                .filter(|(_, e)| e.witness == witness)
        };
        if kind().count() == if witness { WITNESSES } else { KNOWN } {
            if let Some((oldest, _)) = kind().min_by_key(|(_, e)| e.used) {
                self.entries.swap_remove(oldest);
            }
        }
        self.entries.push(entry);
        self.entries.len() - 1
    }

    fn used(&mut self, i: usize) {
        self.clock += 1;
        self.entries[i].used = self.clock;
        self.trim();
    }

    /// Drops the values of the entries used longest ago while all of them
    /// hold more than the bound; the last one's, when it alone does.
    fn trim(&mut self) {
        let mut total: usize = self.entries.iter().map(|e| e.values.len()).sum();
        while total > MAX_VALUES {
            let Some(oldest) = self
                .entries
                .iter_mut()
                .filter(|e| !e.values.is_empty())
                .min_by_key(|e| e.used)
            else {
                break;
            };
            total -= oldest.values.len();
            oldest.values = Evaluated::default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, constant, read, Array, UpdateList};

    fn byte(a: &crate::expr::ArrayRef, i: u128) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i, 64))
    }

    /// Values under a model are those a fresh evaluation gives, for the
    /// model held by identity: equal bytes in another allocation are
    /// another model, and a changed model is never answered from the
    /// values of the one before.
    #[test]
    fn values_follow_the_model_they_were_found_under() {
        let x = Array::symbolic("x", 2);
        let sum = expr::add(&byte(&x, 0), &byte(&x, 1));
        let longer = expr::mul(&sum, &constant(3, 8));
        let mut values = ModelValues::default();
        let mut m = Assignment::new();
        m.set(&x, vec![2, 5]);
        let first = Arc::new(m.clone());
        assert_eq!(values.value(&first, &sum), 7);
        assert_eq!(values.value(&first, &longer), 21);
        m.set(&x, vec![1, 1]);
        let second = Arc::new(m);
        assert_eq!(values.value(&second, &longer), 6);
        assert_eq!(values.value(&first, &longer), 21);
        // More models than are kept: the oldest start afresh, correctly.
        let others: Vec<Arc<Assignment>> = (0..KNOWN as u8)
            .map(|i| {
                let mut m = Assignment::new();
                m.set(&x, vec![i, 0]);
                Arc::new(m)
            })
            .collect();
        for (i, o) in others.iter().enumerate() {
            assert_eq!(values.value(o, &sum), i as u128);
        }
        assert_eq!(values.value(&first, &longer), 21);
    }

    /// A witness answers a later question only where it satisfies the
    /// question and every constraint of the path asking.
    #[test]
    fn a_witness_answers_only_what_it_satisfies() {
        let x = Array::symbolic("x", 1);
        let b = byte(&x, 0);
        let mut values = ModelValues::default();
        let mut w = Assignment::new();
        w.set(&x, vec![9]);
        let above = expr::ult(&constant(4, 8), &b);
        let below = expr::ult(&b, &constant(4, 8));
        // Kept only where it makes true what it was found for.
        assert!(!values.add_witness(w.clone(), Evaluated::default(), &[], &below));
        assert!(!values.witness(&[], &above));
        assert!(values.add_witness(w, Evaluated::default(), &[], &above));
        assert!(values.witness(&[], &above));
        assert!(!values.witness(&[], &below));
        assert!(!values.witness(std::slice::from_ref(&below), &above));
        assert!(values.witness(&[expr::ne(&b, &constant(0, 8))], &above));
    }
}
