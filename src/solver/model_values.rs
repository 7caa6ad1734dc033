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
//!
//! The search interleaves paths, and each path's conditions mostly rule
//! out the witnesses of the others: a witness is kept for the paths it
//! answered (their models name them), so that a path the search comes back
//! to finds its own rather than searching anew, a walk of its whole chain.

use smallvec::SmallVec;
use std::sync::Arc;

use crate::expr::{Assignment, Evaluated, ExprRef};

/// Path models whose values are kept: as many as the paths whose
/// witnesses are, since a path coming back asks under both.
const KNOWN: usize = 32;

/// Witnesses kept for one path. One fails a question about a byte-wide
/// hashed index about once in 256 lookups, where it gives the index the
/// path model's value; the one before it then mostly answers, and a new
/// one (a walk of the whole chain to find, another to check) is looked
/// for about once in 65,536.
const WITNESSES_PER_PATH: usize = 2;

/// Witnesses kept in all. A Csmith program's search interleaved 27 paths
/// hashing the same global; with two witnesses in all, each path coming
/// back searched for one anew, and those searches took a third of its
/// run.
const WITNESSES: usize = 64;

/// Witnesses of other paths tried before searching: right after a fork,
/// the parent's witness mostly answers for the side that kept its model's
/// side of the branch.
const OTHERS_TRIED: usize = 2;

/// The paths one witness is kept for: those it answered last.
const PATHS_PER_WITNESS: usize = 4;

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
    /// For a witness [`super::nearby`] found, rather than a path's model:
    /// the models of the paths it answered for, the latest last (held, so
    /// that their addresses name them).
    witness: Option<SmallVec<[Arc<Assignment>; PATHS_PER_WITNESS]>>,
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

    /// The paths this witness answered for, the latest last; `None` for a
    /// path's model.
    fn paths(&self) -> Option<&[Arc<Assignment>]> {
        self.witness.as_deref()
    }

    /// Whether this is a witness that answered for the path whose model is
    /// `path`.
    fn serves(&self, path: &Arc<Assignment>) -> bool {
        self.paths()
            .is_some_and(|paths| paths.iter().any(|p| Arc::ptr_eq(p, path)))
    }
}

impl ModelValues {
    /// The value of `e` under `model`, the values found for it before
    /// reused.
    pub(super) fn value(&mut self, model: &Arc<Assignment>, e: &ExprRef) -> u128 {
        let i = match self
            .entries
            .iter()
            .position(|k| k.witness.is_none() && Arc::ptr_eq(&k.model, model))
        {
            Some(i) => i,
            None => self.add(Entry {
                model: model.clone(),
                values: Evaluated::default(),
                witness: None,
                used: 0,
            }),
        };
        let entry = &mut self.entries[i];
        let v = entry.values.eval(&entry.model, e);
        self.used(i);
        v
    }

    /// A witness found earlier under which `e` and every one of
    /// `constraints` are true: those kept for the path whose model is
    /// `path`, the most recently used first, then the most recently used
    /// of the others. One that answers is kept for `path` from then on.
    pub(super) fn witness(
        &mut self,
        constraints: &[ExprRef],
        e: &ExprRef,
        path: &Arc<Assignment>,
    ) -> bool {
        let mut order: Vec<usize> = (0..self.entries.len())
            .filter(|&i| self.entries[i].witness.is_some())
            .collect();
        order.sort_by_key(|&i| {
            let entry = &self.entries[i];
            (!entry.serves(path), std::cmp::Reverse(entry.used))
        });
        let own = order
            .iter()
            .take_while(|&&i| self.entries[i].serves(path))
            .count();
        order.truncate(own + OTHERS_TRIED);
        // The path's constraints first: another path's witness mostly
        // fails one of them, and they are smaller than a hashed question.
        let found = order
            .into_iter()
            .find(|&i| self.entries[i].all_true(constraints.iter().chain(std::iter::once(e))));
        match found {
            Some(i) => {
                self.serve(i, path);
                self.used(i);
            }
            None => self.trim(),
        }
        found.is_some()
    }

    /// Whether `model` makes `e` and every one of `constraints` true,
    /// `values` being values found under it; if so, it is kept as a
    /// witness for the next questions of the path whose model is `path`.
    pub(super) fn add_witness(
        &mut self,
        model: Assignment,
        values: Evaluated,
        constraints: &[ExprRef],
        e: &ExprRef,
        path: &Arc<Assignment>,
    ) -> bool {
        let mut entry = Entry {
            model: Arc::new(model),
            values,
            witness: Some(SmallVec::from_elem(path.clone(), 1)),
            used: 0,
        };
        if !entry.all_true(constraints.iter().chain(std::iter::once(e))) {
            return false;
        }
        let i = self.add(entry);
        self.used(i);
        true
    }

    /// Keeps witness `i` for the path whose model is `path`, as the one it
    /// served last.
    fn serve(&mut self, i: usize, path: &Arc<Assignment>) {
        let Some(paths) = self.entries[i].witness.as_mut() else {
            return;
        };
        paths.retain(|p| !Arc::ptr_eq(p, path));
        if paths.len() == PATHS_PER_WITNESS {
            paths.remove(0);
        }
        paths.push(path.clone());
    }

    /// Adds `entry`, making room among those of its kind; its index. A
    /// witness makes room first among the witnesses of the path it
    /// answered for last, then among all.
    fn add(&mut self, entry: Entry) -> usize {
        let witness = entry.witness.is_some();
        let path = entry.paths().and_then(<[_]>::last);
        let own = path
            .map(|path| {
                self.oldest(|e| {
                    e.paths()
                        .and_then(<[_]>::last)
                        .is_some_and(|p| Arc::ptr_eq(p, path))
                })
            })
            .filter(|&(n, _)| n >= WITNESSES_PER_PATH);
        let evict = match own {
            Some((_, i)) => i,
            None => {
                let (n, i) = self.oldest(|e| e.witness.is_some() == witness);
                let room = if witness { WITNESSES } else { KNOWN };
                i.filter(|_| n >= room)
            }
        };
        if let Some(i) = evict {
            self.entries.swap_remove(i);
        }
        self.entries.push(entry);
        self.entries.len() - 1
    }

    /// How many entries `keep` holds for, and the one of them used longest
    /// ago.
    fn oldest(&self, keep: impl Fn(&Entry) -> bool) -> (usize, Option<usize>) {
        let kept = self.entries.iter().enumerate().filter(|(_, e)| keep(e));
        let n = kept.clone().count();
        (n, kept.min_by_key(|(_, e)| e.used).map(|(i, _)| i))
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
        let path = Arc::new(Assignment::new());
        // Kept only where it makes true what it was found for.
        assert!(!values.add_witness(w.clone(), Evaluated::default(), &[], &below, &path));
        assert!(!values.witness(&[], &above, &path));
        assert!(values.add_witness(w, Evaluated::default(), &[], &above, &path));
        assert!(values.witness(&[], &above, &path));
        assert!(!values.witness(&[], &below, &path));
        assert!(!values.witness(std::slice::from_ref(&below), &above, &path));
        assert!(values.witness(&[expr::ne(&b, &constant(0, 8))], &above, &path));
    }

    /// Paths the search interleaves each find their own witness again,
    /// however many others were found since; another path's witness
    /// answers where it satisfies the path's constraints, and is kept for
    /// that path from then on.
    #[test]
    fn each_path_keeps_its_witnesses() {
        let x = Array::symbolic("x", 1);
        let b = byte(&x, 0);
        let mut values = ModelValues::default();
        // Path k allows only 10k..10k+5; the question asks for a value
        // other than its model's.
        let paths: Vec<(Arc<Assignment>, ExprRef, ExprRef)> = (0..8u8)
            .map(|k| {
                let mut m = Assignment::new();
                m.set(&x, vec![10 * k]);
                let c = expr::and(
                    &expr::ule(&constant(u128::from(10 * k), 8), &b),
                    &expr::ult(&b, &constant(u128::from(10 * k + 5), 8)),
                );
                (
                    Arc::new(m),
                    c,
                    expr::ne(&b, &constant(u128::from(10 * k), 8)),
                )
            })
            .collect();
        for (k, (path, c, q)) in paths.iter().enumerate() {
            assert!(!values.witness(std::slice::from_ref(c), q, path));
            let mut w = Assignment::new();
            w.set(&x, vec![10 * k as u8 + 1]);
            assert!(values.add_witness(w, Evaluated::default(), std::slice::from_ref(c), q, path));
        }
        for (path, c, q) in paths.iter().rev() {
            assert!(values.witness(std::slice::from_ref(c), q, path));
        }
        // A child of path 3 with a model of its own, forked just after
        // the parent asked: the parent's witness answers it.
        let (parent, c, q) = &paths[3];
        assert!(values.witness(std::slice::from_ref(c), q, parent));
        let child = Arc::new(Assignment::new());
        let narrower = vec![c.clone(), expr::ult(&b, &constant(33, 8))];
        assert!(values.witness(&narrower, q, &child));
        // Seven other paths asked since: the witness is the child's own.
        for (path, c, q) in &paths[4..] {
            assert!(values.witness(std::slice::from_ref(c), q, path));
        }
        assert!(values.witness(&narrower, q, &child));
        // Each path's witnesses are bounded: a path finding more drops
        // its oldest, not another path's.
        let (path, c, q) = &paths[0];
        for v in 2..5u8 {
            let mut w = Assignment::new();
            w.set(&x, vec![v]);
            assert!(values.add_witness(w, Evaluated::default(), std::slice::from_ref(c), q, path));
        }
        let own = |values: &ModelValues, path: &Arc<Assignment>| {
            values
                .entries
                .iter()
                .filter(|e| {
                    e.witness
                        .as_ref()
                        .is_some_and(|p| p.last().is_some_and(|p| Arc::ptr_eq(p, path)))
                })
                .count()
        };
        assert_eq!(own(&values, path), WITNESSES_PER_PATH);
        for (path, c, q) in &paths[1..] {
            assert!(values.witness(std::slice::from_ref(c), q, path));
        }
    }
}
