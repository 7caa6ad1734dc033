//! Which bits of each input byte a conjunct depends on.
//!
//! Programs often use a byte of input only through a few of its bits: an
//! index masked to a table's size (`b & 7`, `b % 16`), flags tested one
//! at a time, a field shifted out. Two values of such a byte that agree
//! on those bits make every conjunct that reads it come out the same, so
//! a search need try one value of each class: six bytes read through
//! `& 7` are 8^6 combinations where the bytes alone are 2^48.
//!
//! The analysis walks the conjunct from its root down, giving each node
//! the bits of it that can change the root (the bits its parents
//! demand), as compilers' demanded-bits passes do. Where an operation's
//! dependence is not worked out here (a comparison, a division, a shift
//! by a variable amount), every bit of its operands is demanded.

use super::{each, put, Byte, Values};
use crate::expr::{ExprKind, ExprNode, ExprRef};
use crate::ir::BinOp;
use rustc_hash::{FxHashMap, FxHashSet};
use std::sync::Arc;

/// Every bit of a `width`-bit value.
fn full(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// The bits from bit 0 up to the highest bit of `d`: those that carries
/// and products bring to the bits of `d`.
fn up_to_highest(d: u128) -> u128 {
    if d == 0 {
        0
    } else {
        full(128 - d.leading_zeros())
    }
}

/// For each of `bytes` (the input bytes `root` reads), the bits of it
/// that can change `root`'s value: two values of the byte that agree on
/// them give `root` the same value whatever the other bytes are.
pub(super) fn demanded_bits(root: &ExprRef, bytes: &[Byte]) -> Vec<u8> {
    // Parents before children: the reverse of a post-order.
    let mut order: Vec<&ExprRef> = Vec::new();
    let mut seen: FxHashSet<*const ExprNode> = FxHashSet::default();
    let mut stack = vec![(root, false)];
    while let Some((e, expanded)) = stack.pop() {
        if expanded {
            order.push(e);
            continue;
        }
        if e.is_const() || !seen.insert(e.as_ptr()) {
            continue;
        }
        stack.push((e, true));
        e.for_each_child(|c| stack.push((c, false)));
    }
    let mut demand: FxHashMap<*const ExprNode, u128> = FxHashMap::default();
    demand.insert(root.as_ptr(), full(root.width()));
    let mut of_bytes = vec![0u8; bytes.len()];
    for e in order.into_iter().rev() {
        let d = demand.get(&e.as_ptr()).copied().unwrap_or(0);
        if d == 0 {
            continue;
        }
        let mut give = |c: &ExprRef, bits: u128| {
            if !c.is_const() && bits & full(c.width()) != 0 {
                *demand.entry(c.as_ptr()).or_default() |= bits & full(c.width());
            }
        };
        match e.kind() {
            ExprKind::Const(_) => {}
            ExprKind::Read { updates, index } => {
                if let (false, Some(at)) = (updates.root.is_constant(), index.as_const()) {
                    let read = bytes
                        .iter()
                        .position(|(a, i)| Arc::ptr_eq(a, &updates.root) && u128::from(*i) == at);
                    if let Some(k) = read {
                        of_bytes[k] |= d as u8;
                    }
                }
                // Which write a read sees, and the index it reads at,
                // depend on every bit of the indices.
                e.for_each_child(|c| give(c, u128::MAX));
            }
            ExprKind::Select {
                cond,
                then_e,
                else_e,
            } => {
                give(cond, 1);
                give(then_e, d);
                give(else_e, d);
            }
            ExprKind::Concat { hi, lo } => {
                give(lo, d);
                give(hi, d.checked_shr(lo.width()).unwrap_or(0));
            }
            ExprKind::Extract { expr, offset } => give(expr, d.checked_shl(*offset).unwrap_or(0)),
            ExprKind::ZExt(x) => give(x, d),
            ExprKind::SExt(x) => {
                let sign = if d & !full(x.width()) != 0 {
                    1u128 << (x.width() - 1)
                } else {
                    0
                };
                give(x, d | sign);
            }
            ExprKind::Not(x) => give(x, d),
            ExprKind::Binary { op, lhs, rhs } => binary(*op, lhs, rhs, d, e.width(), &mut give),
            ExprKind::Cmp { lhs, rhs, .. } => {
                give(lhs, u128::MAX);
                give(rhs, u128::MAX);
            }
        }
    }
    of_bytes
}

/// Gives the operands of `lhs op rhs` (of `width` bits) the bits of them
/// that the bits `d` of its result depend on.
fn binary(
    op: BinOp,
    lhs: &ExprRef,
    rhs: &ExprRef,
    d: u128,
    width: u32,
    give: &mut impl FnMut(&ExprRef, u128),
) {
    let constant = |e: &ExprRef| e.as_const();
    // A constant shift by the width or more gives a constant (0, or the
    // sign for `ashr`).
    let shift = constant(rhs).map(|k| u32::try_from(k).unwrap_or(u32::MAX));
    // The remainder and quotient by a power of two are a mask and a shift.
    if let (BinOp::URem | BinOp::UDiv, Some(p)) = (op, constant(rhs)) {
        if p.is_power_of_two() {
            match op {
                BinOp::URem => give(lhs, d & (p - 1)),
                _ => give(lhs, d.checked_shl(p.trailing_zeros()).unwrap_or(0)),
            }
            return;
        }
    }
    match (op, shift) {
        (BinOp::And, _) => {
            give(lhs, d & constant(rhs).unwrap_or(u128::MAX));
            give(rhs, d & constant(lhs).unwrap_or(u128::MAX));
        }
        (BinOp::Or, _) => {
            give(lhs, d & !constant(rhs).unwrap_or(0));
            give(rhs, d & !constant(lhs).unwrap_or(0));
        }
        (BinOp::Xor, _) => {
            give(lhs, d);
            give(rhs, d);
        }
        (BinOp::Add | BinOp::Sub | BinOp::Mul, _) => {
            give(lhs, up_to_highest(d));
            give(rhs, up_to_highest(d));
        }
        (BinOp::Shl | BinOp::LShr, Some(k)) if k >= width => {}
        (BinOp::Shl, Some(k)) => give(lhs, d.checked_shr(k).unwrap_or(0)),
        (BinOp::LShr, Some(k)) => give(lhs, d.checked_shl(k).unwrap_or(0)),
        (BinOp::AShr, Some(k)) if k >= width => give(lhs, 1 << (width - 1)),
        (BinOp::AShr, Some(k)) => {
            let sign = if d & !(full(width) >> k) != 0 {
                1u128 << (width - 1)
            } else {
                0
            };
            give(lhs, d.checked_shl(k).unwrap_or(0) | sign);
        }
        // Shifts by a variable amount, divisions and remainders.
        _ => {
            give(lhs, u128::MAX);
            give(rhs, u128::MAX);
        }
    }
}

/// The least value in `values` of each class of values that agree on the
/// bits of `mask`.
pub(super) fn representatives(values: &Values, mask: u8) -> Values {
    if mask == u8::MAX {
        return *values;
    }
    let mut classes = [false; 256];
    let mut kept = [0u64; 4];
    for v in each(values) {
        if !std::mem::replace(&mut classes[usize::from(v & mask)], true) {
            put(&mut kept, v);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen, ARRAY_SIZE};
    use crate::expr::{self, constant, read, Array, ArrayRef, Evaluator, UpdateList};
    use crate::solver::enumerate::input_bytes;
    use crate::solver::enumerate::tests::byte;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn masks_shifts_and_remainders_narrow_what_a_byte_must_show() {
        let a = Array::symbolic("a", 3);
        let at = |i| read(&UpdateList::new(a.clone()), &constant(i, 64));
        let bytes: Vec<Byte> = (0..3).map(|i| (a.clone(), i)).collect();
        let index = expr::binary(BinOp::URem, &expr::zext(&at(0), 32), &constant(16, 32));
        let flag = expr::binary(BinOp::LShr, &at(1), &constant(6, 8));
        let sum = expr::add(&index, &expr::zext(&flag, 32));
        let low = expr::extract(&expr::add(&sum, &expr::zext(&at(2), 32)), 0, 2);
        let c = expr::eq(&low, &constant(1, 2));
        // Byte 0 through `% 16`, byte 1 through `>> 6`, byte 2 added: only
        // the low two bits of each reach the two bits compared.
        assert_eq!(demanded_bits(&c, &bytes), vec![0b11, 0xc0, 0b11]);
        let c = expr::ult(&index, &expr::zext(&at(2), 32));
        assert_eq!(demanded_bits(&c, &bytes), vec![0x0f, 0, 0xff]);
    }

    /// Changing the bits of a byte that are not demanded never changes the
    /// value, on random trees over every operation and width.
    #[test]
    fn bits_not_demanded_never_change_the_value() {
        let env = Env::new("demanded");
        let mut g = Gen::new(41);
        let mut rng = SmallRng::seed_from_u64(41);
        let n = 2 * ARRAY_SIZE as usize;
        let mut narrowed = 0;
        for _ in 0..3000 {
            let w = g.width();
            let e = build(&g.gen(w, 5), &env);
            let Ok((bytes, _)) = input_bytes(&e, n, usize::MAX) else {
                continue;
            };
            let masks = demanded_bits(&e, &bytes);
            let slot = |b: &Byte| {
                let array = env.sym.iter().position(|s| Arc::ptr_eq(s, &b.0)).unwrap();
                array * ARRAY_SIZE as usize + b.1 as usize
            };
            for _ in 0..8 {
                let base: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
                let value = |v: &[u8]| Evaluator::new(&env.assignment(v)).eval(&e);
                let mut other = base.clone();
                for (b, m) in bytes.iter().zip(&masks) {
                    other[slot(b)] ^= rng.gen::<u8>() & !m;
                    narrowed += usize::from(*m != 0xff);
                }
                assert_eq!(value(&base), value(&other), "{e:?} masks {masks:?}");
            }
        }
        assert!(narrowed > 1000, "{narrowed}");
    }

    /// Five bytes read through `& 3` alone: 4^5 combinations, one value of
    /// each class tried, where the bytes alone are 2^40 and went to Z3.
    /// Decided without it, with a model that satisfies the query.
    #[test]
    fn bytes_read_through_a_mask_are_searched_one_value_a_class() {
        use super::super::tests::{assert_model_satisfies, enumerate_before_stuck_z3};
        let x = Array::symbolic("masked5", 5);
        let mut sum = constant(0, 8);
        for i in 0..5 {
            sum = expr::add(&sum, &expr::and(&byte(&x, i), &constant(3, 8)));
        }
        let no_zero = expr::ne(&expr::and(&byte(&x, 0), &constant(3, 8)), &constant(0, 8));
        let path = vec![no_zero];
        let (mut s, asked) = enumerate_before_stuck_z3();
        assert_eq!(
            s.may_be_true(&path, &expr::eq(&sum, &constant(16, 8))),
            Ok(false)
        );
        assert_model_satisfies(&mut s, &path, &expr::eq(&sum, &constant(13, 8)), &x);
        assert_eq!(asked.full(), 0);
    }

    /// Counts of `n` bytes' low two bits, kept in a four-entry table
    /// incremented at the bytes' values: a chain of lookups through
    /// writes at symbolic indices.
    fn histogram(x: &ArrayRef, n: u128) -> impl Fn(u128) -> ExprRef {
        let mut counts = UpdateList::new(Array::constant("counts", vec![0u8; 4]));
        for i in 0..n {
            let at = expr::zext(&expr::and(&byte(x, i), &constant(3, 8)), 64);
            let bumped = expr::add(&read(&counts, &at), &constant(1, 8));
            counts = counts.write(at, bumped);
        }
        move |k| read(&counts, &constant(k, 64))
    }

    /// Such a chain goes to Z3 after a short search, which decides it when
    /// the combinations are few, and again (a long one) when Z3 times out.
    #[test]
    fn lookups_through_symbolic_writes_go_to_z3_after_a_short_search() {
        use super::super::tests::enumerate_before_stuck_z3;
        use super::super::{chain_in, Chained};
        let x = Array::symbolic("histogram6", 6);
        let count = histogram(&x, 6);
        // Two counts of six bytes cannot make seven.
        let seven = expr::eq(&expr::add(&count(1), &count(2)), &constant(7, 8));
        assert_eq!(chain_in(&seven), Some(Chained::Writes));
        let (mut s, asked) = enumerate_before_stuck_z3();
        assert_eq!(s.may_be_true(&[], &seven), Ok(false));
        assert_eq!(asked.full(), 1);
        // Three bytes: 64 combinations, searched whole.
        let x = Array::symbolic("histogram3", 3);
        let count = histogram(&x, 3);
        let three = expr::eq(&count(1), &constant(3, 8));
        let (mut s, asked) = enumerate_before_stuck_z3();
        assert_eq!(s.may_be_true(&[], &three), Ok(true));
        assert_eq!(asked.full(), 0);
    }
}
