//! Concrete evaluation of expressions under an assignment of the symbolic
//! arrays, and the arrays an expression depends on.

use super::array::{WriteIndex, MIN_INDEXED_LEN};
use super::build::{fold_binary, fold_cmp};
use super::{mask, to_signed, ArrayRef, ExprKind, ExprNode, ExprRef, UpdateNode};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::sync::Arc;

/// Values for symbolic arrays: a model. Arrays are keyed by identity;
/// iteration follows insertion order, so output built from a model is
/// deterministic. An array's bytes are shared between the models that
/// hold them: each pending path keeps a model that its fork copied from
/// its parent's, and only the arrays a fork solved for are new bytes.
#[derive(Clone, Default, Debug)]
pub struct Assignment {
    entries: Vec<(ArrayRef, Arc<[u8]>)>,
    index: FxHashMap<usize, usize>,
}

fn key(array: &ArrayRef) -> usize {
    Arc::as_ptr(array) as usize
}

impl Assignment {
    /// An empty assignment (every byte reads as 0).
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy with room for `more` arrays: a copy that is then extended
    /// would otherwise grow its lists to twice their size.
    pub fn with_room(&self, more: usize) -> Self {
        let mut entries = Vec::with_capacity(self.entries.len() + more);
        entries.extend(self.entries.iter().cloned());
        let mut index = self.index.clone();
        index.reserve(more);
        Assignment { entries, index }
    }

    /// Sets the bytes of `array`, replacing earlier ones.
    pub fn set(&mut self, array: &ArrayRef, bytes: impl Into<Arc<[u8]>>) {
        let bytes = bytes.into();
        match self.index.get(&key(array)) {
            Some(&i) => self.entries[i].1 = bytes,
            None => {
                self.index.insert(key(array), self.entries.len());
                self.entries.push((array.clone(), bytes));
            }
        }
    }

    /// Sets the bytes `from` has for each of `arrays` (sharing them),
    /// leaving the arrays it lacks as they were.
    pub fn set_from(&mut self, from: &Assignment, arrays: &[ArrayRef]) {
        for a in arrays {
            if let Some(&i) = from.index.get(&key(a)) {
                self.set(a, from.entries[i].1.clone());
            }
        }
    }

    /// Sets byte `index` of `array`, whose other bytes stay as they were
    /// (0 if it had none); an index past its end is left out.
    pub fn set_byte(&mut self, array: &ArrayRef, index: usize, value: u8) {
        if !self.contains(array) {
            self.set(array, vec![0; array.size as usize]);
        }
        let i = self.index[&key(array)];
        if let Some(b) = Arc::make_mut(&mut self.entries[i].1).get_mut(index) {
            *b = value;
        }
    }

    /// The bytes of `array`, if set.
    pub fn get(&self, array: &ArrayRef) -> Option<&[u8]> {
        self.index.get(&key(array)).map(|&i| &*self.entries[i].1)
    }

    /// The bytes of `array`, if set, as the models copied from this one
    /// share them: the same allocation is the same bytes.
    pub fn shared(&self, array: &ArrayRef) -> Option<&Arc<[u8]>> {
        self.index.get(&key(array)).map(|&i| &self.entries[i].1)
    }

    /// Whether `array` has bytes.
    pub fn contains(&self, array: &ArrayRef) -> bool {
        self.index.contains_key(&key(array))
    }

    /// The assigned arrays and their bytes, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&ArrayRef, &[u8])> {
        self.entries.iter().map(|(a, b)| (a, &**b))
    }

    /// Number of assigned arrays.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no array is assigned.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn byte(&self, array: &ArrayRef, index: u128) -> u8 {
        if let Some(b) = array.init_byte(index) {
            return b;
        }
        match (self.get(array), usize::try_from(index)) {
            (Some(bytes), Ok(i)) if index < array.size as u128 => {
                bytes.get(i).copied().unwrap_or(0)
            }
            _ => 0,
        }
    }
}

/// The values of subexpressions under one assignment, remembered across
/// evaluations: an [`Evaluator`]'s, or kept with a model that is evaluated
/// again and again (a question asked at each step of a chain, a CRC's next
/// table index, then costs its new nodes, not the whole chain again). Each
/// evaluation must be under the same assignment (the same bytes).
#[derive(Default)]
pub struct Evaluated {
    /// Values by node address. Every node here is one of `roots` or lies
    /// under one, and the roots are held: no address is freed and reused
    /// while the values live. Keyed by the expressions themselves, each
    /// node cost a count written on the way in and another on the way out
    /// (a model's check of a 4,000-constraint path condition wrote 60,000).
    memo: FxHashMap<*const ExprNode, u128>,
    /// The expressions evaluated, held for `memo`'s addresses.
    roots: Vec<ExprRef>,
    /// The lists of writes read through once, by their newest write: read
    /// through again, a long one is indexed (see [`WriteIndex`]). An
    /// address freed and used again only indexes a list early.
    read_once: FxHashSet<*const UpdateNode>,
}

/// Evaluates expressions under one assignment, remembering the value of
/// every subexpression across calls (so checking many constraints that share
/// subterms costs their total size once).
pub struct Evaluator<'a> {
    assignment: &'a Assignment,
    values: Evaluated,
}

impl<'a> Evaluator<'a> {
    /// An evaluator for `assignment`.
    pub fn new(assignment: &'a Assignment) -> Self {
        Self::with_capacity(assignment, 0)
    }

    /// An evaluator for `assignment` with room for the values of `nodes`
    /// subexpressions: checking a model against a path condition of
    /// thousands of constraints otherwise grows the memo a dozen times.
    pub fn with_capacity(assignment: &'a Assignment, nodes: usize) -> Self {
        Evaluator {
            assignment,
            values: Evaluated {
                memo: FxHashMap::with_capacity_and_hasher(nodes, Default::default()),
                ..Evaluated::default()
            },
        }
    }

    /// The value of `e` (see [`Evaluated::eval`]).
    pub fn eval(&mut self, e: &ExprRef) -> u128 {
        self.values.eval(self.assignment, e)
    }
}

impl Evaluated {
    /// Number of subexpressions with a value.
    pub fn len(&self) -> usize {
        self.memo.len()
    }

    /// Whether no subexpression has a value.
    pub fn is_empty(&self) -> bool {
        self.memo.is_empty()
    }

    /// Forgets every value, keeping the room they took: for evaluations
    /// under another assignment.
    pub fn clear(&mut self) {
        self.memo.clear();
        self.roots.clear();
    }

    /// The value of `e` (masked to its width) under `assignment`, under
    /// which every value kept must still hold (the assignment they were
    /// found under, or one that differs only in bytes no kept value
    /// reads). Unassigned symbolic bytes and bytes past the end of an
    /// array read as 0.
    pub fn eval<'e>(&mut self, assignment: &Assignment, e: &'e ExprRef) -> u128 {
        if let Some(c) = e.as_const() {
            return c;
        }
        if let Some(&v) = self.memo.get(&e.as_ptr()) {
            return v;
        }
        self.roots.push(e.clone());
        // Iterative post-order walk: expressions can be far deeper than the
        // call stack allows. The walk borrows the nodes: cloning them would
        // write their counts, lines that every worker reads.
        // Most constraints are a few nodes deep: their walk stays off the
        // heap (a model's check walks thousands of them).
        let mut stack: SmallVec<[(&ExprRef, bool); 32]> = smallvec::smallvec![(e, false)];
        while let Some((node, expanded)) = stack.pop() {
            if self.memo.contains_key(&node.as_ptr()) {
                continue;
            }
            if expanded {
                let v = self.compute(assignment, node);
                self.memo.insert(node.as_ptr(), v);
            } else {
                stack.push((node, true));
                let mut push = |c: &'e ExprRef| {
                    if !c.is_const() && !self.memo.contains_key(&c.as_ptr()) {
                        stack.push((c, false));
                    }
                };
                match read_index(&mut self.read_once, node) {
                    Some((index, writes)) => {
                        push(index);
                        writes.operands().iter().for_each(push);
                    }
                    None => node.for_each_child(push),
                }
            }
        }
        self.value(e)
    }

    fn value(&self, e: &ExprRef) -> u128 {
        match e.as_const() {
            Some(c) => c,
            None => self.memo.get(&e.as_ptr()).copied().unwrap_or(0),
        }
    }

    /// The value of `e` once all its children have values.
    fn compute(&self, assignment: &Assignment, e: &ExprRef) -> u128 {
        compute_with(e, assignment, |c| self.value(c))
    }
}

/// The value of `e` under `assignment`, given the value of each of its
/// children (`value`, asked only of the children the value depends on: a
/// read's index, then the writes it needs). For evaluators that keep
/// values their own way.
pub fn compute_with(
    e: &ExprRef,
    assignment: &Assignment,
    mut value: impl FnMut(&ExprRef) -> u128,
) -> u128 {
    let w = e.width();
    match e.kind() {
        ExprKind::Const(c) => *c,
        ExprKind::Read { updates, index } => {
            let i = value(index);
            if let Some(writes) = updates.head.as_deref().and_then(UpdateNode::write_index) {
                return match writes.find(i, &mut value) {
                    Some(written) => value(written),
                    None => assignment.byte(&updates.root, i) as u128,
                };
            }
            for node in updates.iter() {
                if value(&node.index) == i {
                    return value(&node.value);
                }
            }
            assignment.byte(&updates.root, i) as u128
        }
        ExprKind::Select {
            cond,
            then_e,
            else_e,
        } => {
            if value(cond) == 1 {
                value(then_e)
            } else {
                value(else_e)
            }
        }
        ExprKind::Concat { hi, lo } => (value(hi) << lo.width()) | value(lo),
        ExprKind::Extract { expr, offset } => (value(expr) >> offset) & mask(w),
        ExprKind::ZExt(x) => value(x),
        ExprKind::SExt(x) => to_signed(value(x), x.width()) as u128 & mask(w),
        ExprKind::Not(x) => !value(x) & mask(w),
        ExprKind::Binary { op, lhs, rhs } => fold_binary(*op, value(lhs), value(rhs), w),
        ExprKind::Cmp { op, lhs, rhs } => {
            fold_cmp(*op, value(lhs), value(rhs), lhs.width()) as u128
        }
    }
}

/// Lists read through once that [`Evaluated`] remembers before it forgets
/// them all (memory bound).
const READ_ONCE_LIMIT: usize = 4096;

/// The index and indexed writes of `node` where it is a read through a list
/// of writes that has an index, or that is long and has been read through
/// before (`read_once`): the walk then visits only what the index says a
/// read may need, and the read finds its write through it.
fn read_index<'e>(
    read_once: &mut FxHashSet<*const UpdateNode>,
    node: &'e ExprRef,
) -> Option<(&'e ExprRef, &'e WriteIndex)> {
    let ExprKind::Read { updates, index } = node.kind() else {
        return None;
    };
    let head = updates.head.as_deref()?;
    if let Some(writes) = head.write_index() {
        return Some((index, writes));
    }
    if updates.len() < MIN_INDEXED_LEN {
        return None;
    }
    if read_once.len() >= READ_ONCE_LIMIT {
        read_once.clear();
    }
    if read_once.insert(head as *const UpdateNode) {
        return None;
    }
    head.indexed().map(|writes| (index, writes))
}

/// The value of `e` under `a` (see [`Evaluator::eval`]).
pub fn eval(e: &ExprRef, a: &Assignment) -> u128 {
    Evaluator::new(a).eval(e)
}

/// Appends to `out` the symbolic arrays (not the constant ones) that `e`
/// reads and that `out` does not hold yet, in order of first occurrence in a
/// left-to-right walk.
pub fn arrays_in(e: &ExprRef, out: &mut Vec<ArrayRef>) {
    arrays_in_all(std::slice::from_ref(e), out)
}

/// [`arrays_in`] for several expressions, sharing the walk over common
/// subexpressions.
pub fn arrays_in_all(exprs: &[ExprRef], out: &mut Vec<ArrayRef>) {
    let mut known: SmallSet<usize> = SmallSet::default();
    for a in out.iter() {
        known.insert(key(a));
    }
    find_input(exprs, |root| {
        if known.insert(key(root)) {
            out.push(root.clone());
        }
        false
    });
}

/// Whether `e` reads a symbolic array that `pred` holds for: the walk
/// stops at the first, which in most conditions is the first leaf it meets.
pub fn reads_input_where(e: &ExprRef, pred: impl FnMut(&ArrayRef) -> bool) -> bool {
    find_input(std::slice::from_ref(e), pred)
}

/// Whether `e` reads a symbolic array at all.
pub fn reads_input(e: &ExprRef) -> bool {
    reads_input_where(e, |_| true)
}

/// Walks `exprs` left to right, each shared node once, giving `found` the
/// symbolic array of every read it meets until `found` says to stop;
/// whether it did.
fn find_input<'a>(exprs: &'a [ExprRef], mut found: impl FnMut(&'a ArrayRef) -> bool) -> bool {
    // Nodes are borrowed, and told apart by address, while `exprs` holds
    // them: cloning each would write its count, a line every worker reads.
    // Most expressions walked are a comparison of a few bytes: their walk
    // stays off the heap (a fork's new condition is walked for its arrays).
    let mut seen: SmallSet<*const ExprNode> = SmallSet::default();
    let mut stack: SmallVec<[&ExprRef; 32]> = exprs.iter().rev().collect();
    let mut children: SmallVec<[&ExprRef; 8]> = SmallVec::new();
    while let Some(e) = stack.pop() {
        if e.is_const() || !seen.insert(e.as_ptr()) {
            continue;
        }
        if let ExprKind::Read { updates, .. } = e.kind() {
            if !updates.root.is_constant() && found(&updates.root) {
                return true;
            }
        }
        children.clear();
        e.for_each_child(|c| children.push(c));
        stack.extend(children.drain(..).rev());
    }
    false
}

/// A set kept as a list while it is short, and hashed once it is long: a
/// walk over a small expression then allocates nothing.
enum SmallSet<T> {
    Few(SmallVec<[T; 16]>),
    Many(FxHashSet<T>),
}

impl<T> Default for SmallSet<T> {
    fn default() -> Self {
        SmallSet::Few(SmallVec::new())
    }
}

impl<T: Copy + Eq + std::hash::Hash> SmallSet<T> {
    /// Adds `t`; whether it was not there yet.
    fn insert(&mut self, t: T) -> bool {
        match self {
            SmallSet::Many(set) => set.insert(t),
            SmallSet::Few(list) if list.contains(&t) => false,
            SmallSet::Few(list) if list.len() < list.inline_size() => {
                list.push(t);
                true
            }
            SmallSet::Few(list) => {
                let mut set: FxHashSet<T> = list.iter().copied().collect();
                set.insert(t);
                *self = SmallSet::Many(set);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{add, concat, constant, read, sext, ult, zext, Array, UpdateList};

    #[test]
    fn set_byte_changes_one_byte_and_fills_a_new_array_with_zeros() {
        let a = Array::symbolic("sb_a", 3);
        let mut m = Assignment::new();
        m.set_byte(&a, 1, 7);
        assert_eq!(m.get(&a), Some(&[0, 7, 0][..]));
        m.set(&a, vec![1, 2, 3]);
        m.set_byte(&a, 2, 9);
        m.set_byte(&a, 3, 5);
        assert_eq!(m.get(&a), Some(&[1, 2, 9][..]));
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn eval_reads_assignment_and_updates() {
        let a = Array::symbolic("ev_a", 2);
        let k = Array::constant("ev_k", vec![9, 8, 7]);
        let x = read(&UpdateList::new(a.clone()), &constant(0, 64));
        let y = read(&UpdateList::new(a.clone()), &constant(1, 64));
        let ix = zext(&x, 64);
        let from_k = read(&UpdateList::new(k.clone()), &ix);
        let written = UpdateList::new(a.clone()).write(zext(&y, 64), constant(42, 8));
        let via_update = read(&written, &ix);
        let mut asg = Assignment::new();
        asg.set(&a, vec![2, 2]);
        assert_eq!(eval(&from_k, &asg), 7);
        assert_eq!(eval(&via_update, &asg), 42);
        asg.set(&a, vec![1, 0]);
        assert_eq!(eval(&from_k, &asg), 8);
        // Index 1 is not written (the write went to index 0): reads a[1] = 0.
        assert_eq!(eval(&via_update, &asg), 0);
        let wide = concat(&x, &y);
        assert_eq!(eval(&wide, &asg), 0x0100);
        assert_eq!(eval(&sext(&x, 16), &asg), 1);
        assert_eq!(eval(&ult(&y, &x), &asg), 1);
        // Unassigned arrays read as zero.
        assert_eq!(eval(&add(&x, &y), &Assignment::new()), 0);
        assert_eq!(asg.get(&a), Some(&[1u8, 0][..]));
        assert!(asg.get(&k).is_none());
    }

    #[test]
    fn arrays_in_lists_symbolic_arrays_in_order() {
        let a = Array::symbolic("ai_a", 1);
        let b = Array::symbolic("ai_b", 1);
        let k = Array::constant("ai_k", vec![1]);
        let xa = read(&UpdateList::new(a.clone()), &constant(0, 64));
        let xb = read(&UpdateList::new(b.clone()), &constant(0, 64));
        let xk = read(&UpdateList::new(k), &zext(&xa, 64));
        let e = add(&add(&xb, &xk), &xa);
        let mut out = Vec::new();
        arrays_in(&e, &mut out);
        let names: Vec<&str> = out.iter().map(|a| a.name.as_str()).collect();
        // `add` orders its operands canonically; both arrays appear once.
        assert_eq!(names.len(), 2);
        assert!(names.contains(&"ai_a") && names.contains(&"ai_b"));
        arrays_in(&xb, &mut out);
        assert_eq!(out.len(), 2);
    }

    #[test]
    fn eval_handles_deep_shared_dags() {
        let a = Array::symbolic("deep_ev", 1);
        let x = zext(&read(&UpdateList::new(a.clone()), &constant(0, 64)), 64);
        // e_{n+1} = e_n + e_n: a DAG of 100 levels with 2^100 paths.
        let mut e = x.clone();
        for _ in 0..100 {
            e = crate::expr::binary(crate::ir::BinOp::Add, &e, &crate::expr::mul(&e, &x));
        }
        let mut asg = Assignment::new();
        asg.set(&a, vec![1]);
        // Each level doubles the value (x = 1): e = 2^100 mod 2^64 = 0.
        assert_eq!(eval(&e, &asg), 0);
        let mut deep = x.clone();
        for i in 0..100_000u128 {
            deep = crate::expr::xor(&crate::expr::mul(&deep, &x), &constant(i, 64));
        }
        let expected = (0..100_000u128).fold(1u128, |acc, i| acc ^ i);
        assert_eq!(eval(&deep, &asg), expected & u64::MAX as u128);
    }

    /// The byte array `mem` after `writes` (oldest first), each index and
    /// value evaluated under `asg`: what a read through them must give.
    fn applied(mem: &[u8], writes: &[(ExprRef, ExprRef)], asg: &Assignment) -> Vec<u8> {
        let mut bytes = mem.to_vec();
        for (at, value) in writes {
            bytes[eval(at, asg) as usize] = eval(value, asg) as u8;
        }
        bytes
    }

    /// Byte `k` of `input`, times 1, as a position in 64 bytes.
    fn position(input: &ArrayRef, k: u8) -> ExprRef {
        let byte = read(
            &UpdateList::new(input.clone()),
            &constant(u128::from(k), 64),
        );
        crate::expr::and(&zext(&byte, 64), &constant(63, 64))
    }

    #[test]
    fn a_long_list_read_through_again_is_indexed_and_reads_the_same() {
        let mem = Array::symbolic("ix_mem", 64);
        let input = Array::symbolic("ix_in", 2);
        let mut list = UpdateList::new(mem.clone());
        let mut writes = Vec::new();
        for i in 0..40u8 {
            let at = if i == 30 {
                position(&input, 0)
            } else {
                constant(u128::from(i % 64), 64)
            };
            let value = constant(u128::from(i) + 100, 8);
            list = list.write(at.clone(), value.clone());
            writes.push((at, value));
        }
        let r = read(&list, &position(&input, 1));
        let head = list.head.clone().unwrap();
        let pattern: Vec<u8> = (0..64).collect();
        let mut values = Evaluated::default();
        for (round, (a, b)) in [(5u8, 5u8), (5, 6), (70, 31), (1, 50)]
            .into_iter()
            .enumerate()
        {
            let mut asg = Assignment::new();
            asg.set(&mem, pattern.clone());
            asg.set(&input, vec![a, b]);
            values.clear();
            let expected = applied(&pattern, &writes, &asg)[(b & 63) as usize];
            assert_eq!(values.eval(&asg, &r) as u8, expected, "round {round}");
            // Read through once, the list is walked; again, indexed.
            assert_eq!(head.write_index().is_some(), round > 0, "round {round}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

        /// Reads through a long list of writes at fixed and symbolic
        /// positions give, read after read, under one assignment after
        /// another (the list indexed from the second on), what the writes
        /// applied in order give.
        #[test]
        fn reads_through_many_writes_agree_with_the_writes_applied(
            spec in proptest::collection::vec((proptest::option::of(0u8..4), 0u8..64, proptest::option::of(0u8..4), proptest::prelude::any::<u8>()), 32..80),
            reads in proptest::collection::vec((proptest::option::of(0u8..4), 0u8..64), 1..6),
            inputs in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 4), 1..5),
        ) {
            let mem = Array::symbolic("ixp_mem", 64);
            let input = Array::symbolic("ixp_in", 4);
            let byte = |k: u8| read(&UpdateList::new(input.clone()), &constant(u128::from(k), 64));
            let mut list = UpdateList::new(mem.clone());
            let mut writes = Vec::new();
            for (sym_at, at, sym_value, value) in spec {
                let at = sym_at.map_or_else(|| constant(u128::from(at), 64), |k| position(&input, k));
                let value = sym_value.map_or_else(|| constant(u128::from(value), 8), byte);
                list = list.write(at.clone(), value.clone());
                writes.push((at, value));
            }
            let reads: Vec<(ExprRef, ExprRef)> = reads
                .into_iter()
                .map(|(sym, at)| {
                    let at = sym.map_or_else(|| constant(u128::from(at), 64), |k| position(&input, k));
                    (read(&list, &at), at)
                })
                .collect();
            let pattern: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(7)).collect();
            let mut values = Evaluated::default();
            for bytes in inputs {
                let mut asg = Assignment::new();
                asg.set(&mem, pattern.clone());
                asg.set(&input, bytes);
                let expected = applied(&pattern, &writes, &asg);
                values.clear();
                for (r, at) in &reads {
                    let at = eval(at, &asg) as usize;
                    proptest::prop_assert_eq!(values.eval(&asg, r) as u8, expected[at]);
                }
            }
        }
    }
}
