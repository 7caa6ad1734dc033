//! A search level's checks compiled for the values of its byte.
//!
//! The search tries each value of a byte with the bytes before it fixed:
//! of the nodes its checks evaluate, only those that read the byte change
//! from one value to the next. Kept in a table of values, they had to be
//! forgotten and evaluated again through it at each value, a hash lookup
//! or two for every node and child: on grep's hash-table queries most of
//! the search's time. Compiled, they are a list evaluated in order into
//! slots; the nodes that do not read the byte are evaluated once through
//! the level's table.

use rustc_hash::FxHashMap;

use super::search::{inputs, post_order};
use super::Byte;
use crate::expr::{compute_with, Assignment, Evaluated, ExprKind, ExprNode, ExprRef};

/// Checks compiled for the values of one byte: the nodes of theirs that
/// read it, each after the nodes it reads.
pub(in crate::solver) struct Compiled {
    /// The nodes that read the byte, each after those of them it reads,
    /// and the first check's before the second's.
    steps: Vec<ExprRef>,
    /// Each step's place in `steps`.
    slot: FxHashMap<*const ExprNode, u32>,
    /// The checks, each with the number of steps evaluated before it can
    /// be.
    checks: Vec<(ExprRef, usize)>,
}

impl Compiled {
    /// `checks` compiled for the values of `byte`. A read's writes that
    /// its index cannot reach are not followed ([`inputs`]): the read does
    /// not depend on them.
    pub(in crate::solver) fn new(byte: &Byte, checks: &[ExprRef]) -> Self {
        let reads_byte = |e: &ExprRef| match e.kind() {
            ExprKind::Read { updates, index } => {
                std::sync::Arc::ptr_eq(&updates.root, &byte.0)
                    && index.as_const().is_none_or(|at| at == u128::from(byte.1))
            }
            _ => false,
        };
        // Whether each node walked reads the byte: a check's walk meets a
        // node's inputs before it, here or in an earlier check's walk.
        let mut reads: FxHashMap<*const ExprNode, bool> = FxHashMap::default();
        let mut steps: Vec<ExprRef> = Vec::new();
        let mut slot: FxHashMap<*const ExprNode, u32> = FxHashMap::default();
        let mut compiled = Vec::with_capacity(checks.len());
        for check in checks {
            for node in post_order([check]) {
                if reads.contains_key(&node.as_ptr()) {
                    continue;
                }
                let mut read = reads_byte(node);
                inputs(node, |c| {
                    read |= reads.get(&c.as_ptr()).copied().unwrap_or(false)
                });
                reads.insert(node.as_ptr(), read);
                if !read {
                    continue;
                }
                slot.insert(node.as_ptr(), steps.len() as u32);
                if let ExprKind::Read { updates, .. } = node.kind() {
                    // Read at each of the byte's values: index the writes
                    // now rather than on the second read.
                    if let Some(head) = &updates.head {
                        head.indexed();
                    }
                }
                steps.push(node.clone());
            }
            compiled.push((check.clone(), steps.len()));
        }
        Compiled {
            steps,
            slot,
            checks: compiled,
        }
    }

    /// Whether every check holds under `assignment`, and the evaluations
    /// that took. `values` holds the values of the nodes that do not read
    /// the byte (the bytes they read unchanged since it was cleared);
    /// `slots` is room for the steps' values.
    pub(super) fn holds(
        &self,
        assignment: &Assignment,
        values: &mut Evaluated,
        slots: &mut Vec<u128>,
    ) -> (bool, usize) {
        let all = self.each_check(assignment, values, slots, |v| v == 1);
        (all, slots.len())
    }

    /// The value of each check under `assignment`, in `out`; `values` and
    /// `slots` as for [`Compiled::holds`].
    pub(in crate::solver) fn values(
        &self,
        assignment: &Assignment,
        values: &mut Evaluated,
        slots: &mut Vec<u128>,
        out: &mut Vec<u128>,
    ) {
        out.clear();
        self.each_check(assignment, values, slots, |v| {
            out.push(v);
            true
        });
    }

    /// Gives `f` each check's value in turn until it says to stop; whether
    /// it never did.
    fn each_check(
        &self,
        assignment: &Assignment,
        values: &mut Evaluated,
        slots: &mut Vec<u128>,
        mut f: impl FnMut(u128) -> bool,
    ) -> bool {
        slots.clear();
        for (check, needs) in &self.checks {
            while slots.len() < *needs {
                let step = &self.steps[slots.len()];
                let v = compute_with(step, assignment, |c| {
                    value(c, &self.slot, slots, values, assignment)
                });
                slots.push(v);
            }
            if !f(value(check, &self.slot, slots, values, assignment)) {
                return false;
            }
        }
        true
    }
}

/// The value of `e`: a constant's, a step's from its slot, or any other
/// node's through `values`.
fn value(
    e: &ExprRef,
    slot: &FxHashMap<*const ExprNode, u32>,
    slots: &[u128],
    values: &mut Evaluated,
    assignment: &Assignment,
) -> u128 {
    if let Some(c) = e.as_const() {
        return c;
    }
    match slot.get(&e.as_ptr()) {
        Some(&k) => slots[k as usize],
        None => values.eval(assignment, e),
    }
}
