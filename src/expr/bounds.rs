//! Unsigned ranges of expressions, for folding comparisons at
//! construction: an index masked to 8 bits and scaled by 4 (`tab[crc &
//! 0xFF]`) can never reach past 1020, so the bounds check of the table
//! access is decided here instead of in Z3, where a check on a hash of
//! symbolic bytes costs seconds.
//!
//! The walk looks a few levels down only: it must stay cheap on the large
//! DAGs hashes build, and it is exact about nothing but the bounds (any
//! value of the range may or may not be possible).

use super::{mask, CmpOp, ExprKind as K, ExprRef};
use crate::ir::BinOp;

/// Levels below the compared expression that the walks look at. The range
/// walk counts only the nodes whose operands both vary (see [`BUDGET`]);
/// the walk of zero low bits counts every node, which is enough for
/// `mul 8 (lshr (zext c) 6)` and the like.
const DEPTH: u32 = 6;

/// Nodes the range walk visits at most. It spends a level of [`DEPTH`] only
/// where both operands vary, so that a chain of extensions, extractions and
/// operations with a constant (a value divided by 85 five times, as Z85
/// encoding does) is followed down to its bytes; the budget keeps the walk
/// as cheap as the depth alone did.
const BUDGET: u32 = 64;

/// An unsigned range `lo..=hi` that holds every value `e` can take.
pub fn unsigned_range(e: &ExprRef) -> (u128, u128) {
    let mut budget = BUDGET;
    range(e, DEPTH, &mut budget)
}

/// How many low bits of `e` are zero whatever its inputs: an offset
/// `8 * (c >> 6)` into a bit set's words is a multiple of 8, so of the 25
/// values its range allows only 4 can be taken.
pub fn zero_low_bits(e: &ExprRef) -> u32 {
    zeros(e, DEPTH)
}

fn zeros(e: &ExprRef, depth: u32) -> u32 {
    let w = e.width();
    if let Some(c) = e.as_const() {
        return c.trailing_zeros().min(w);
    }
    if depth == 0 {
        return 0;
    }
    let sub = |x: &ExprRef| zeros(x, depth - 1);
    match e.kind() {
        K::ZExt(x) | K::SExt(x) => sub(x),
        K::Concat { hi, lo } => {
            let z = sub(lo);
            if z == lo.width() {
                (z + sub(hi)).min(w)
            } else {
                z
            }
        }
        K::Extract { expr, offset } => sub(expr).saturating_sub(*offset).min(w),
        K::Select { then_e, else_e, .. } => sub(then_e).min(sub(else_e)),
        K::Binary { op, lhs, rhs } => match op {
            BinOp::Add | BinOp::Sub | BinOp::Or | BinOp::Xor => sub(lhs).min(sub(rhs)),
            BinOp::And => sub(lhs).max(sub(rhs)),
            BinOp::Mul => (sub(lhs) + sub(rhs)).min(w),
            BinOp::Shl => match rhs.as_const() {
                Some(k) if k < u128::from(w) => (sub(lhs) + k as u32).min(w),
                _ => 0,
            },
            _ => 0,
        },
        _ => 0,
    }
}

/// An unsigned comparison (or an equality) of an expression with a
/// constant that the expression's range decides either way.
pub(super) fn decided_by_ranges(op: CmpOp, a: &ExprRef, b: &ExprRef) -> Option<bool> {
    if a.is_const() == b.is_const() {
        return None;
    }
    let ((al, ah), (bl, bh)) = (unsigned_range(a), unsigned_range(b));
    // Where neither side can have its sign bit set, the signed order is
    // the unsigned one (`c < 85` on an `int` that a remainder made).
    let op = match op {
        CmpOp::Slt | CmpOp::Sle if ah.max(bh) > mask(a.width()) >> 1 => return None,
        CmpOp::Slt => CmpOp::Ult,
        CmpOp::Sle => CmpOp::Ule,
        other => other,
    };
    match op {
        CmpOp::Eq if ah < bl || bh < al => Some(false),
        CmpOp::Ult if ah < bl => Some(true),
        CmpOp::Ult if al >= bh => Some(false),
        CmpOp::Ule if ah <= bl => Some(true),
        CmpOp::Ule if al > bh => Some(false),
        _ => None,
    }
}

fn range(e: &ExprRef, depth: u32, budget: &mut u32) -> (u128, u128) {
    let w = e.width();
    let full = (0, mask(w));
    if let Some(c) = e.as_const() {
        return (c, c);
    }
    if depth == 0 || *budget == 0 {
        return full;
    }
    *budget -= 1;
    // Both operands varying costs a level; a constant one costs nothing.
    let level = |x: &ExprRef, y: &ExprRef| {
        if x.is_const() || y.is_const() {
            depth
        } else {
            depth - 1
        }
    };
    match e.kind() {
        K::ZExt(x) => range(x, depth, budget),
        K::SExt(x) => {
            // A value whose sign bit is clear extends as with zeros.
            let (l, h) = range(x, depth, budget);
            if h <= mask(x.width()) >> 1 {
                (l, h)
            } else {
                full
            }
        }
        K::Concat { hi, lo } => {
            let d = level(hi, lo);
            let ((hl, hh), (ll, lh)) = (range(hi, d, budget), range(lo, d, budget));
            let lw = lo.width();
            ((hl << lw) | ll, (hh << lw) | lh)
        }
        K::Extract { expr, offset } => {
            let (l, h) = range(expr, depth, budget);
            // Only when no bit above the extracted ones can be set is the
            // extract the shifted value, monotonic in it.
            if h >> offset <= mask(w) {
                (l >> offset, h >> offset)
            } else {
                full
            }
        }
        K::Select { then_e, else_e, .. } => {
            let d = level(then_e, else_e);
            let ((tl, th), (el, eh)) = (range(then_e, d, budget), range(else_e, d, budget));
            (tl.min(el), th.max(eh))
        }
        K::Binary { op, lhs, rhs } => {
            let d = level(lhs, rhs);
            let (a, b) = (range(lhs, d, budget), range(rhs, d, budget));
            binary_range(*op, a, b, w).unwrap_or(full)
        }
        _ => full,
    }
}

/// The range of `a op b` at width `w`, when it can be told without
/// wrapping around.
fn binary_range(op: BinOp, a: (u128, u128), b: (u128, u128), w: u32) -> Option<(u128, u128)> {
    let m = mask(w);
    // All ones up to the highest bit `x` may have.
    let fill = |x: u128| {
        if x == 0 {
            0
        } else {
            u128::MAX >> x.leading_zeros()
        }
    };
    match op {
        BinOp::And => Some((0, a.1.min(b.1))),
        BinOp::Or => Some((a.0.max(b.0), fill(a.1 | b.1))),
        BinOp::Xor => Some((0, fill(a.1 | b.1))),
        BinOp::Add => {
            let hi = a.1.checked_add(b.1).filter(|&h| h <= m)?;
            Some((a.0 + b.0, hi))
        }
        BinOp::Mul => {
            let hi = a.1.checked_mul(b.1).filter(|&h| h <= m)?;
            Some((a.0 * b.0, hi))
        }
        // Shifts and divisions by constants only: by the width or more a
        // shift gives 0 and a division by 0 gives 0 (LLVM's semantics as the
        // expressions keep them), which the general rules would not say.
        BinOp::Shl if b.0 == b.1 && b.0 < u128::from(w) => {
            let k = b.0 as u32;
            (a.1 << k >> k == a.1 && a.1 << k <= m).then(|| (a.0 << k, a.1 << k))
        }
        BinOp::LShr if b.0 == b.1 && b.0 < u128::from(w) => {
            Some((a.0 >> b.0 as u32, a.1 >> b.0 as u32))
        }
        BinOp::UDiv if b.0 == b.1 && b.0 != 0 => Some((a.0 / b.0, a.1 / b.0)),
        BinOp::URem if b.0 == b.1 && b.0 != 0 => Some(if a.1 < b.0 { a } else { (0, b.0 - 1) }),
        // Signed ones of a value whose sign bit is clear, by a positive
        // constant, are the unsigned ones.
        BinOp::SDiv | BinOp::SRem | BinOp::AShr if a.1 > m >> 1 || b.1 > m >> 1 => None,
        BinOp::SDiv => binary_range(BinOp::UDiv, a, b, w),
        BinOp::SRem => binary_range(BinOp::URem, a, b, w),
        BinOp::AShr => binary_range(BinOp::LShr, a, b, w),
        BinOp::Sub if a.0 >= b.1 => Some((a.0 - b.1, a.1 - b.0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, constant, Array, UpdateList};

    fn byte(name: &str) -> ExprRef {
        expr::read(&UpdateList::new(Array::symbolic(name, 8)), &constant(0, 64))
    }

    #[test]
    fn a_masked_and_scaled_index_stays_inside_its_table() {
        let x = expr::zext(&byte("bounds_x"), 32);
        let y = expr::zext(&byte("bounds_y"), 32);
        let mixed = expr::xor(&expr::mul(&x, &y), &expr::constant(0x1234_5678, 32));
        let index = expr::zext(&expr::and(&mixed, &constant(0xFF, 32)), 64);
        let offset = expr::mul(&constant(4, 64), &index);
        assert_eq!(unsigned_range(&offset), (0, 1020));
        // The access of 4 bytes at that offset of a 1024-byte table is in
        // bounds, and one past 1020 can never start there.
        assert!(expr::ule(&offset, &constant(1020, 64)).is_true());
        assert!(expr::ult(&constant(1020, 64), &offset).is_false());
        assert!(expr::eq(&offset, &constant(1024, 64)).is_false());
    }

    #[test]
    fn ranges_that_could_wrap_are_not_narrowed() {
        let x = expr::zext(&byte("bounds_w"), 32);
        // x * 2^30 wraps at 32 bits: nothing is known.
        let big = expr::mul(&x, &constant(1 << 30, 32));
        assert_eq!(unsigned_range(&big), (0, u32::MAX as u128));
        assert!(!expr::ult(&big, &constant(1 << 30, 32)).is_const());
        // x + 0xFFFFFF00 cannot wrap, x + 0xFFFFFF01 can.
        let sum = expr::add(&x, &constant(0xFFFF_FF00, 32));
        assert_eq!(unsigned_range(&sum), (0xFFFF_FF00, u32::MAX as u128));
        let sum = expr::add(&x, &constant(0xFFFF_FF01, 32));
        assert_eq!(unsigned_range(&sum), (0, u32::MAX as u128));
    }

    #[test]
    fn scaled_offsets_have_their_low_bits_zero() {
        let c = expr::zext(&byte("zeros_c"), 64);
        let word = expr::binary(BinOp::LShr, &c, &constant(6, 64));
        let offset = expr::mul(&constant(8, 64), &word);
        assert_eq!(zero_low_bits(&offset), 3);
        assert_eq!(unsigned_range(&offset), (0, 24));
        assert_eq!(zero_low_bits(&expr::add(&offset, &constant(16, 64))), 3);
        assert_eq!(zero_low_bits(&expr::add(&offset, &constant(2, 64))), 1);
        assert_eq!(
            zero_low_bits(&expr::binary(BinOp::Shl, &c, &constant(2, 64))),
            2
        );
        assert_eq!(zero_low_bits(&expr::and(&c, &constant(0xF0, 64))), 4);
        assert_eq!(zero_low_bits(&c), 0);
        // A zero low part counts whole, and the high part's count above it.
        let hi = expr::concat(&byte("zeros_h"), &constant(0, 8));
        assert_eq!(zero_low_bits(&hi), 8);
        let lo = expr::concat(&byte("zeros_h"), &constant(4, 8));
        assert_eq!(zero_low_bits(&lo), 2);
    }

    #[test]
    fn signed_operations_on_values_without_their_sign_bit_keep_their_ranges() {
        // Z85's digits: an int64 made of four bytes, divided by 85 four
        // times, its remainder an `int` that indexes the alphabet.
        let quad: Vec<ExprRef> = (0..4)
            .map(|i| expr::zext(&byte(&format!("z85_{i}")), 64))
            .collect();
        let mut val = quad[0].clone();
        for (i, q) in quad.iter().enumerate().skip(1) {
            let shifted = expr::binary(BinOp::Shl, &val, &constant(8, 64));
            val = expr::add(&shifted, q);
            assert_eq!(unsigned_range(&val).1, (1u128 << (8 * (i + 1))) - 1);
        }
        let digit = |v: &ExprRef| {
            let c = expr::binary(BinOp::SRem, v, &constant(85, 64));
            expr::sext(&expr::extract(&c, 0, 32), 64)
        };
        for _ in 0..4 {
            assert_eq!(unsigned_range(&digit(&val)), (0, 84));
            assert!(expr::slt(&digit(&val), &constant(85, 64)).is_true());
            val = expr::binary(BinOp::SDiv, &val, &constant(85, 64));
        }
        assert_eq!(unsigned_range(&val), (0, u32::MAX as u128 / 85u128.pow(4)));
        // A difference that cannot wrap keeps its range.
        let high = expr::add(&quad[0], &constant(256, 64));
        assert_eq!(unsigned_range(&expr::sub(&high, &quad[1])), (1, 511));
        assert_eq!(
            unsigned_range(&expr::sub(&quad[1], &high)),
            (0, u64::MAX as u128)
        );
        // Once the sign bit may be set, nothing is known.
        let any = expr::sext(&byte("z85_s"), 64);
        assert_eq!(unsigned_range(&any), (0, u64::MAX as u128));
        let rem = expr::binary(BinOp::SRem, &any, &constant(85, 64));
        assert_eq!(unsigned_range(&rem), (0, u64::MAX as u128));
        assert!(!expr::slt(&rem, &constant(85, 64)).is_const());
    }

    #[test]
    fn extensions_concatenations_and_selects_keep_their_ranges() {
        let x = byte("bounds_c");
        let wide = expr::concat(&constant(1, 8), &x);
        assert_eq!(unsigned_range(&wide), (0x100, 0x1FF));
        let low = expr::extract(&expr::zext(&x, 32), 4, 8);
        assert_eq!(unsigned_range(&low), (0, 0xF));
        let chosen = expr::select(
            &expr::eq(&x, &constant(3, 8)),
            &constant(10, 16),
            &expr::binary(BinOp::URem, &expr::zext(&x, 16), &constant(7, 16)),
        );
        assert_eq!(unsigned_range(&chosen), (0, 10));
    }
}
