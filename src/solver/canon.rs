//! Green's canonical form, made sound for bit-vectors: two queries that
//! differ only in the names of their arrays or the order of their
//! conjuncts become the same query, so the stores after this layer answer
//! both from one entry.
//!
//! Every rewrite is an identity of fixed-width arithmetic: conjunctions are
//! split, and each conjunct is rebuilt through the simplifying builders
//! (constant folding, comparisons normalized to `eq`/`ult`/`ule`/`slt`/
//! `sle`, negated comparisons flipped, commutative operands ordered). The
//! conjuncts are ordered by a hash that ignores array names, arrays are
//! renamed `c0`, `c1`, ... by first occurrence in that order, and the
//! renamed conjuncts are sorted and deduplicated. Nothing is ever rewritten
//! as if the values were mathematical integers.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};
use std::hash::Hasher;

use super::query::{Answer, Chain, Layer, Query};
use super::rewrite::Rewriter;
use super::SolverError;
use crate::expr::{
    conjuncts as conjuncts_of, serial, Array, ArrayRef, Assignment, ExprKind, ExprRef,
};
use crate::ir::BinOp;

/// A query in canonical form.
#[derive(Clone, Debug)]
pub struct Canonical {
    /// The constraints' conjuncts, renamed, sorted and without repeats.
    pub constraints: Vec<ExprRef>,
    /// The condition, renamed.
    pub expr: ExprRef,
    /// Each array of the original query and its canonical stand-in.
    pub renaming: Vec<(ArrayRef, ArrayRef)>,
}

/// The canonical arrays, shared across queries so that equal canonical
/// queries are the same interned expressions.
#[derive(Default)]
pub struct CanonicalArrays {
    /// (position, size, contents) -> the canonical array.
    table: FxHashMap<CanonicalSlot, ArrayRef>,
}

type CanonicalSlot = (usize, u32, Option<Arc<[u8]>>);

impl CanonicalArrays {
    fn get(&mut self, position: usize, like: &Array) -> ArrayRef {
        self.table
            .entry((position, like.size, like.init.clone()))
            .or_insert_with(|| Array::shared(&format!("c{position}"), like.size, like.init.clone()))
            .clone()
    }
}

/// The canonical form of `constraints ∧ expr`.
pub fn canonical_form(
    constraints: &[ExprRef],
    expr: &ExprRef,
    arrays: &mut CanonicalArrays,
) -> Canonical {
    let mut conjuncts = Vec::new();
    for c in constraints {
        conjuncts_of(std::slice::from_ref(c), &mut conjuncts);
    }
    let mut shape = ShapeHasher::default();
    let mut keyed: Vec<(u64, ExprRef)> = conjuncts
        .into_iter()
        .filter(|c| !c.is_true())
        .map(|c| (shape.hash(&c), c))
        .collect();
    keyed.sort_by_key(|(h, _)| *h);
    // Arrays are named in the order a name-blind walk meets them: the
    // condition first (it is what differs between sibling queries), then
    // the conjuncts in shape order.
    let mut order: Vec<ArrayRef> = Vec::new();
    let mut seen = FxHashMap::default();
    shape.arrays_in_order(expr, &mut order, &mut seen);
    for (_, c) in &keyed {
        shape.arrays_in_order(c, &mut order, &mut seen);
    }
    let renaming: Vec<(ArrayRef, ArrayRef)> = order
        .iter()
        .enumerate()
        .map(|(i, a)| (a.clone(), arrays.get(i, a)))
        .collect();
    let mut renamer = Rewriter::renaming(&renaming);
    let mut out: Vec<ExprRef> = Vec::with_capacity(keyed.len());
    for (_, c) in &keyed {
        conjuncts_of(std::slice::from_ref(&renamer.rewrite(c)), &mut out);
    }
    out.retain(|c| !c.is_true());
    out.sort();
    out.dedup();
    let expr = renamer.rewrite(expr);
    Canonical {
        constraints: out,
        expr,
        renaming,
    }
}

/// A key equal for queries with equal canonical forms.
pub fn canonical_key(constraints: &[ExprRef], expr: &ExprRef) -> Vec<u8> {
    let c = canonical_form(constraints, expr, &mut CanonicalArrays::default());
    let mut all = c.constraints;
    all.push(c.expr);
    serial::encode(&all)
}

/// Hashes of expressions that ignore array names (but not their sizes or
/// contents) and the order of commutative operands.
#[derive(Default)]
pub(super) struct ShapeHasher {
    memo: FxHashMap<ExprRef, u64>,
}

impl ShapeHasher {
    /// How many expressions the hasher remembers.
    pub(super) fn remembered(&self) -> usize {
        self.memo.len()
    }

    pub(super) fn hash(&mut self, root: &ExprRef) -> u64 {
        post_order(root, &mut self.memo, |e, memo| {
            let mut h = FxHasher::default();
            h.write_u32(e.width());
            let child = |c: &ExprRef| memo[c];
            match e.kind() {
                ExprKind::Const(v) => {
                    h.write_u8(0);
                    h.write_u128(*v);
                }
                ExprKind::Read { updates, index } => {
                    h.write_u8(1);
                    h.write_u32(updates.root.size);
                    if let Some(init) = &updates.root.init {
                        h.write(init);
                    }
                    for n in updates.iter() {
                        h.write_u64(child(&n.index));
                        h.write_u64(child(&n.value));
                    }
                    h.write_u64(child(index));
                }
                ExprKind::Binary { op, lhs, rhs } => {
                    h.write_u8(2);
                    h.write_u8(op.code());
                    let (a, b) = (child(lhs), child(rhs));
                    let (a, b) = if is_commutative(*op) && b < a {
                        (b, a)
                    } else {
                        (a, b)
                    };
                    h.write_u64(a);
                    h.write_u64(b);
                }
                ExprKind::Cmp { op, lhs, rhs } => {
                    h.write_u8(3);
                    h.write_u8(*op as u8);
                    let (a, b) = (child(lhs), child(rhs));
                    let (a, b) = if matches!(op, crate::expr::CmpOp::Eq) && b < a {
                        (b, a)
                    } else {
                        (a, b)
                    };
                    h.write_u64(a);
                    h.write_u64(b);
                }
                other => {
                    h.write_u8(4 + tag(other));
                    if let ExprKind::Extract { offset, .. } = other {
                        h.write_u32(*offset);
                    }
                    e.for_each_child(|c| h.write_u64(child(c)));
                }
            }
            h.finish()
        })
    }

    /// Appends the symbolic and constant arrays under `root` not in `seen`,
    /// in a walk that visits commutative operands by shape.
    fn arrays_in_order(
        &mut self,
        root: &ExprRef,
        order: &mut Vec<ArrayRef>,
        seen: &mut FxHashMap<*const Array, ()>,
    ) {
        // Borrowed nodes, as in `post_order`: a clone writes the node's
        // count, a line every worker reads.
        let mut visited: FxHashSet<&ExprRef> = FxHashSet::default();
        let mut stack = vec![root];
        while let Some(e) = stack.pop() {
            if e.is_const() || !visited.insert(e) {
                continue;
            }
            let mut children = Vec::new();
            e.for_each_child(|c| children.push(c));
            if let ExprKind::Read { updates, .. } = e.kind() {
                if seen.insert(Arc::as_ptr(&updates.root), ()).is_none() {
                    order.push(updates.root.clone());
                }
            }
            let commutes = match e.kind() {
                ExprKind::Binary { op, .. } => is_commutative(*op),
                ExprKind::Cmp { op, .. } => matches!(op, crate::expr::CmpOp::Eq),
                _ => false,
            };
            if commutes {
                children.sort_by_cached_key(|c| self.hash(c));
            }
            stack.extend(children.into_iter().rev());
        }
    }
}

fn tag(k: &ExprKind) -> u8 {
    match k {
        ExprKind::Select { .. } => 0,
        ExprKind::Concat { .. } => 1,
        ExprKind::Extract { .. } => 2,
        ExprKind::ZExt(_) => 3,
        ExprKind::SExt(_) => 4,
        ExprKind::Not(_) => 5,
        _ => 6,
    }
}

fn is_commutative(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
    )
}

/// Computes `f` for every node under `root`, children first, without
/// recursion (path conditions can be deeper than the stack); `memo` holds
/// the results.
pub(super) fn post_order<T: Copy>(
    root: &ExprRef,
    memo: &mut FxHashMap<ExprRef, T>,
    mut f: impl FnMut(&ExprRef, &FxHashMap<ExprRef, T>) -> T,
) -> T {
    if let Some(v) = memo.get(root) {
        return *v;
    }
    // Borrowed nodes: a clone writes the node's count, a line every
    // worker reads.
    let mut stack = vec![(root, false)];
    while let Some((e, expanded)) = stack.pop() {
        if memo.contains_key(e) {
            continue;
        }
        if expanded {
            let v = f(e, memo);
            memo.insert(e.clone(), v);
        } else {
            stack.push((e, true));
            e.for_each_child(|c| {
                if !memo.contains_key(c) {
                    stack.push((c, false));
                }
            });
        }
    }
    memo[root]
}

/// The canonical-form layer: passes each query on in canonical form and
/// maps the model back to the query's own arrays.
#[derive(Default)]
pub struct CanonLayer {
    arrays: CanonicalArrays,
}

impl CanonLayer {
    /// A layer with an empty table of canonical arrays.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Layer for CanonLayer {
    fn name(&self) -> &'static str {
        "canon"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let c = canonical_form(q.constraints, &q.expr, &mut self.arrays);
        let Some(wanted) = q.model else {
            return next.check(&Query::new(&c.constraints, c.expr.clone()));
        };
        let canon_wanted: Vec<ArrayRef> = c
            .renaming
            .iter()
            .filter(|(from, _)| from.init.is_none())
            .map(|(_, to)| to.clone())
            .collect();
        match next.check(&Query::new(&c.constraints, c.expr.clone()).with_model(&canon_wanted))? {
            Answer::Sat(Some(m)) => {
                let mut model = Assignment::new();
                for (from, to) in &c.renaming {
                    if let Some(bytes) = m.get(to) {
                        if from.init.is_none() {
                            model.set(from, bytes.to_vec());
                        }
                    }
                }
                for a in wanted {
                    if !model.contains(a) {
                        model.set(a, vec![0; a.size as usize]);
                    }
                }
                Ok(Answer::Sat(Some(model)))
            }
            other => Ok(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen};
    use crate::expr::{self, constant, read, Evaluator, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef, i: u128) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(i, 64))
    }

    #[test]
    fn renamed_and_reordered_queries_share_a_key() {
        let (x, y) = (Array::symbolic("cx", 1), Array::symbolic("cy", 1));
        let (p, q) = (Array::symbolic("cp", 1), Array::symbolic("cq", 1));
        let k = |a: &ArrayRef, b: &ArrayRef| {
            let e = expr::add(&byte(a, 0), &expr::mul(&constant(2, 8), &byte(b, 0)));
            (
                vec![
                    expr::ult(&byte(a, 0), &constant(10, 8)),
                    expr::ugt(&e, &constant(3, 8)),
                ],
                expr::eq(&byte(b, 0), &constant(1, 8)),
            )
        };
        let (c1, e1) = k(&x, &y);
        let (mut c2, e2) = k(&p, &q);
        c2.reverse();
        assert_eq!(canonical_key(&c1, &e1), canonical_key(&c2, &e2));
        // A conjunction is its conjuncts.
        let joined = vec![expr::and(&c1[0], &c1[1])];
        assert_eq!(canonical_key(&joined, &e1), canonical_key(&c1, &e1));
    }

    #[test]
    fn different_queries_get_different_keys() {
        let (x, y) = (Array::symbolic("dx", 1), Array::symbolic("dy", 1));
        let (a, b) = (byte(&x, 0), byte(&y, 0));
        let t = expr::bool_const(true);
        let keys = [
            canonical_key(&[expr::ult(&a, &b)], &t),
            canonical_key(&[expr::ult(&a, &a)], &t),
            canonical_key(&[expr::slt(&a, &b)], &t),
            canonical_key(&[expr::ule(&a, &b)], &t),
            canonical_key(&[expr::ult(&a, &constant(3, 8))], &t),
            canonical_key(&[expr::ult(&a, &constant(4, 8))], &t),
            canonical_key(&[], &expr::ult(&a, &constant(4, 8))),
        ];
        for i in 0..keys.len() {
            for j in i + 1..keys.len() {
                assert_ne!(keys[i], keys[j], "{i} vs {j}");
            }
        }
        // x < y and y < x are one shape up to renaming, and both satisfiable
        // alike: they may share a key; x < y with y < x may not be x < y alone.
        assert_ne!(
            canonical_key(&[expr::ult(&a, &b), expr::ult(&b, &a)], &t),
            canonical_key(&[expr::ult(&a, &b)], &t)
        );
    }

    #[test]
    fn canonical_form_keeps_answers_and_maps_models_back() {
        let env = Env::new("canon");
        let mut g = Gen::new(5);
        let mut canon =
            Solver::with_layers(SolverConfig::default(), vec![Box::new(CanonLayer::new())]);
        let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
        for round in 0..120 {
            let cs: Vec<ExprRef> = (0..3).map(|_| build(&g.gen(1, 2), &env)).collect();
            let e = build(&g.gen(1, 2), &env);
            let mut all = cs.clone();
            all.push(e.clone());
            let a = canon.get_model(&all, &env.sym).unwrap();
            let b = plain.get_model(&all, &env.sym).unwrap();
            assert_eq!(a.is_some(), b.is_some(), "round {round}");
            if let Some(m) = a {
                let mut ev = Evaluator::new(&m);
                assert!(all.iter().all(|c| ev.eval(c) == 1), "round {round}");
            }
        }
        assert_eq!(canon.stats().bad_models, 0);
    }
}
