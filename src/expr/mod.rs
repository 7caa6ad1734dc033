//! Hash-consed bit-vector expressions over symbolic byte arrays.
//!
//! Every expression is interned in a global, sharded table (DESIGN.md,
//! invariant 4): structurally equal expressions are the same [`ExprRef`], so
//! equality is a pointer comparison and an expression built on one thread is
//! valid on every other. Expressions are only built through the functions of
//! [`build`], which simplify at construction time.
//!
//! Widths are 1 to 128 bits; width 1 is the boolean type. Arrays are byte
//! arrays indexed by 64-bit expressions; writes at symbolic positions form
//! persistent [`UpdateList`]s.

mod array;
mod bounds;
pub mod build;
mod eval;
mod intern;
mod print;
pub mod serial;

#[cfg(test)]
pub(crate) mod proptests;

pub use array::{Array, ArrayRef, UpdateList, UpdateNode, WriteIndex};
pub use bounds::{unsigned_range, zero_low_bits};
pub use build::*;
pub use eval::{
    arrays_in, arrays_in_all, compute_with, eval, reads_input, reads_input_where, Assignment,
    Evaluated, Evaluator,
};
pub use intern::live_expressions;

use crate::ir::BinOp;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::mem::ManuallyDrop;
use std::sync::Arc;

/// The comparisons expressions are built from; `Ne`, `Ugt`, `Sge`, ... are
/// expressed with these (see [`build::icmp`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum CmpOp {
    Eq,
    Ult,
    Ule,
    Slt,
    Sle,
}

/// The shape of one expression node. Children are interned [`ExprRef`]s.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum ExprKind {
    /// A constant, already masked to the node's width.
    Const(u128),
    /// One byte (width 8) of an array after the writes of `updates`.
    Read { updates: UpdateList, index: ExprRef },
    /// `cond ? then_e : else_e` with a width-1 condition.
    Select {
        cond: ExprRef,
        then_e: ExprRef,
        else_e: ExprRef,
    },
    /// `hi` in the high bits, `lo` in the low bits.
    Concat { hi: ExprRef, lo: ExprRef },
    /// The node's width in bits of `expr`, starting at bit `offset`.
    Extract { expr: ExprRef, offset: u32 },
    /// Zero extension to the node's width.
    ZExt(ExprRef),
    /// Sign extension to the node's width.
    SExt(ExprRef),
    /// Bitwise complement (logical negation at width 1).
    Not(ExprRef),
    /// An integer operation with LLVM's wrapping semantics; both operands
    /// have the node's width. Division and remainder by zero give 0, shifts
    /// by the width or more give 0 (`shl`, `lshr`) or the sign (`ashr`).
    Binary {
        op: BinOp,
        lhs: ExprRef,
        rhs: ExprRef,
    },
    /// A comparison of two operands of equal width; the node has width 1.
    Cmp {
        op: CmpOp,
        lhs: ExprRef,
        rhs: ExprRef,
    },
}

/// The interned payload behind an [`ExprRef`].
///
/// The kind sits in a `ManuallyDrop` so that dropping a long chain of
/// expressions can be done iteratively (see `intern::drop_kind`) instead of
/// recursing once per level.
pub struct ExprNode {
    kind: ManuallyDrop<ExprKind>,
    width: u32,
    /// The node's number in the order nodes were made: what it hashes by
    /// (see `Hash for ExprRef`).
    serial: u32,
    /// Structural hash, stable across runs and machines: it depends on the
    /// shape, constants and array names only, never on addresses.
    hash: u64,
}

impl Drop for ExprNode {
    fn drop(&mut self) {
        // SAFETY: `kind` is never used again after this point; the node is
        // being destroyed.
        let kind = unsafe { ManuallyDrop::take(&mut self.kind) };
        intern::drop_kind(kind);
    }
}

/// A shared, interned expression. Cloning is an `Arc` clone; equality is
/// pointer equality; hashing uses the stored structural hash (so hash maps
/// keyed by expressions iterate in the same order on every run).
#[derive(Clone)]
pub struct ExprRef(Arc<ExprNode>);

impl ExprRef {
    /// The width in bits (1..=128).
    #[inline]
    pub fn width(&self) -> u32 {
        self.0.width
    }

    /// The node's shape.
    #[inline]
    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }

    /// The value if this is a constant.
    #[inline]
    pub fn as_const(&self) -> Option<u128> {
        match *self.kind() {
            ExprKind::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Whether this is the width-1 constant `true`.
    #[inline]
    pub fn is_true(&self) -> bool {
        self.width() == 1 && self.as_const() == Some(1)
    }

    /// Whether this is a width-1 `and` (see [`conjuncts`]).
    #[inline]
    pub fn is_conjunction(&self) -> bool {
        self.width() == 1
            && matches!(
                self.kind(),
                ExprKind::Binary {
                    op: crate::ir::BinOp::And,
                    ..
                }
            )
    }

    /// Whether this is the width-1 constant `false`.
    #[inline]
    pub fn is_false(&self) -> bool {
        self.width() == 1 && self.as_const() == Some(0)
    }

    /// Whether this is a constant.
    #[inline]
    pub fn is_const(&self) -> bool {
        self.as_const().is_some()
    }

    /// The structural hash: equal for equal expressions in every run.
    #[inline]
    pub fn structural_hash(&self) -> u64 {
        self.0.hash
    }

    /// The node's number in the order its thread made nodes: a set of
    /// expressions listed by serial lists the older ones first (serials
    /// wrap after 2^32 nodes, so two nodes may share one).
    #[inline]
    pub fn serial(&self) -> u32 {
        self.0.serial
    }

    /// The node's address, usable as a map key while the expression lives.
    #[inline]
    pub fn as_ptr(&self) -> *const ExprNode {
        Arc::as_ptr(&self.0)
    }

    /// Calls `f` on every direct subexpression, in a fixed order (for
    /// `Read`: the index, then each update's index and value, newest
    /// first). The children are borrowed: cloning one writes its count, a
    /// line that every worker reads.
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a ExprRef)) {
        match self.kind() {
            ExprKind::Const(_) => {}
            ExprKind::Read { updates, index } => {
                f(index);
                for node in updates.iter() {
                    f(&node.index);
                    f(&node.value);
                }
            }
            ExprKind::Select {
                cond,
                then_e,
                else_e,
            } => {
                f(cond);
                f(then_e);
                f(else_e);
            }
            ExprKind::Concat { hi, lo } => {
                f(hi);
                f(lo);
            }
            ExprKind::Extract { expr, .. } => f(expr),
            ExprKind::ZExt(e) | ExprKind::SExt(e) | ExprKind::Not(e) => f(e),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::Cmp { lhs, rhs, .. } => {
                f(lhs);
                f(rhs);
            }
        }
    }
}

impl PartialEq for ExprRef {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ExprRef {}

/// By identity, as equality is: interning makes equal expressions one
/// node. The structural hash would not do: sibling paths that each create
/// an input under the same name build distinct nodes with equal structural
/// hashes, and a map keyed by those (the solver's caches) piles them into
/// one bucket. Nor would the address: it differs from run to run, and so
/// would the order of every map keyed by expressions, and with it the
/// queries' order of terms and Z3's models (a test's inputs changed between
/// two runs of one program). The serial is the same on every run of one
/// worker.
impl Hash for ExprRef {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(intern::mix(u64::from(self.0.serial)));
    }
}

impl PartialOrd for ExprRef {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A total order that is the same on every run: by structural hash first,
/// and only on a hash collision by structure.
impl Ord for ExprRef {
    fn cmp(&self, other: &Self) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.0
            .hash
            .cmp(&other.0.hash)
            .then(self.width().cmp(&other.width()))
            .then_with(|| cmp_kind(self.kind(), other.kind()))
    }
}

fn kind_tag(k: &ExprKind) -> u8 {
    match k {
        ExprKind::Const(_) => 0,
        ExprKind::Read { .. } => 1,
        ExprKind::Select { .. } => 2,
        ExprKind::Concat { .. } => 3,
        ExprKind::Extract { .. } => 4,
        ExprKind::ZExt(_) => 5,
        ExprKind::SExt(_) => 6,
        ExprKind::Not(_) => 7,
        ExprKind::Binary { .. } => 8,
        ExprKind::Cmp { .. } => 9,
    }
}

fn cmp_kind(a: &ExprKind, b: &ExprKind) -> Ordering {
    use ExprKind as K;
    let tag = kind_tag(a).cmp(&kind_tag(b));
    if tag != Ordering::Equal {
        return tag;
    }
    match (a, b) {
        (K::Const(x), K::Const(y)) => x.cmp(y),
        (
            K::Read {
                updates: u1,
                index: i1,
            },
            K::Read {
                updates: u2,
                index: i2,
            },
        ) => u1.cmp_structural(u2).then_with(|| i1.cmp(i2)),
        (
            K::Select {
                cond: c1,
                then_e: t1,
                else_e: e1,
            },
            K::Select {
                cond: c2,
                then_e: t2,
                else_e: e2,
            },
        ) => c1.cmp(c2).then_with(|| t1.cmp(t2)).then_with(|| e1.cmp(e2)),
        (K::Concat { hi: h1, lo: l1 }, K::Concat { hi: h2, lo: l2 }) => {
            h1.cmp(h2).then_with(|| l1.cmp(l2))
        }
        (
            K::Extract {
                expr: e1,
                offset: o1,
            },
            K::Extract {
                expr: e2,
                offset: o2,
            },
        ) => o1.cmp(o2).then_with(|| e1.cmp(e2)),
        (K::ZExt(x), K::ZExt(y)) | (K::SExt(x), K::SExt(y)) | (K::Not(x), K::Not(y)) => x.cmp(y),
        (
            K::Binary {
                op: o1,
                lhs: l1,
                rhs: r1,
            },
            K::Binary {
                op: o2,
                lhs: l2,
                rhs: r2,
            },
        ) => o1
            .code()
            .cmp(&o2.code())
            .then_with(|| l1.cmp(l2))
            .then_with(|| r1.cmp(r2)),
        (
            K::Cmp {
                op: o1,
                lhs: l1,
                rhs: r1,
            },
            K::Cmp {
                op: o2,
                lhs: l2,
                rhs: r2,
            },
        ) => o1.cmp(o2).then_with(|| l1.cmp(l2)).then_with(|| r1.cmp(r2)),
        _ => Ordering::Equal,
    }
}

pub(crate) use crate::ir::semantics::{mask, to_signed};

/// Appends to `out` the conjuncts of the width-1 expressions `exprs`, in
/// order: conjunctions are split, `true` is left out.
pub fn conjuncts(exprs: &[ExprRef], out: &mut Vec<ExprRef>) {
    let mut stack: Vec<ExprRef> = exprs.iter().rev().cloned().collect();
    while let Some(e) = stack.pop() {
        match e.kind() {
            ExprKind::Binary {
                op: crate::ir::BinOp::And,
                lhs,
                rhs,
            } if e.width() == 1 => {
                stack.push(rhs.clone());
                stack.push(lhs.clone());
            }
            _ if e.is_true() => {}
            _ => out.push(e),
        }
    }
}

/// `root` rewritten children first, without recursion (path conditions
/// can be deeper than the stack), each node once: `done` holds what each
/// node became, across calls. `replace` gives a node's replacement
/// outright, its operands unvisited, or `None` to have `build` make it
/// once its operands are in `done`; its error stops the walk.
pub fn rewrite_in<E>(
    root: &ExprRef,
    done: &mut rustc_hash::FxHashMap<ExprRef, ExprRef>,
    mut replace: impl FnMut(&ExprRef) -> Result<Option<ExprRef>, E>,
    mut build: impl FnMut(&ExprRef, &rustc_hash::FxHashMap<ExprRef, ExprRef>) -> ExprRef,
) -> Result<ExprRef, E> {
    let mut stack = vec![(root.clone(), false)];
    while let Some((e, expanded)) = stack.pop() {
        if done.contains_key(&e) {
            continue;
        }
        if !expanded {
            if let Some(r) = replace(&e)? {
                done.insert(e, r);
                continue;
            }
            stack.push((e.clone(), true));
            e.for_each_child(|c| {
                if !done.contains_key(c) {
                    stack.push((c.clone(), false));
                }
            });
            continue;
        }
        let new = build(&e, done);
        done.insert(e, new);
    }
    Ok(done[root].clone())
}

/// `e` built again through the builders, over the operands `r` gives for
/// its own (a read keeps its writes and takes the index `r` gives): the
/// step of a rewriting pass once a node's operands are rewritten, so that
/// the builders fold what the new operands make foldable.
pub fn rebuilt(e: &ExprRef, r: impl Fn(&ExprRef) -> ExprRef) -> ExprRef {
    match e.kind() {
        ExprKind::Const(_) => e.clone(),
        ExprKind::Read { updates, index } => read(updates, &r(index)),
        ExprKind::Select {
            cond,
            then_e,
            else_e,
        } => select(&r(cond), &r(then_e), &r(else_e)),
        ExprKind::Concat { hi, lo } => concat(&r(hi), &r(lo)),
        ExprKind::Extract { expr, offset } => extract(&r(expr), *offset, e.width()),
        ExprKind::ZExt(x) => zext(&r(x), e.width()),
        ExprKind::SExt(x) => sext(&r(x), e.width()),
        ExprKind::Not(x) => not(&r(x)),
        ExprKind::Binary { op, lhs, rhs } => binary(*op, &r(lhs), &r(rhs)),
        ExprKind::Cmp { op, lhs, rhs } => cmp(*op, &r(lhs), &r(rhs)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shareable<T: Send + Sync>() {}

    #[test]
    fn expressions_move_between_threads() {
        shareable::<ExprRef>();
        shareable::<UpdateList>();
        shareable::<Assignment>();
        let a = Array::symbolic("thread_a", 1);
        let x = read(&UpdateList::new(a), &constant(0, 64));
        let e = add(&zext(&x, 32), &constant(1, 32));
        let e2 = e.clone();
        // Built on another thread, the same expression is the same node.
        let other = std::thread::spawn(move || add(&constant(1, 32), &zext(&x, 32)))
            .join()
            .expect("thread panicked");
        assert_eq!(other, e2);
        assert_eq!(e.structural_hash(), other.structural_hash());
    }
}
