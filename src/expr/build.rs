//! The only way to make expressions: builders that simplify at construction.
//!
//! Every rewrite here holds for fixed-width bit vectors with wrapping
//! arithmetic (never only over the integers); `proptests.rs` checks them
//! against an unsimplified reference evaluator. Builders panic on
//! ill-formed requests (mismatched widths, widths outside 1..=128): those
//! are bugs in the engine, never consequences of the program under test.
//!
//! Canonical forms the rules rely on: a constant operand of a commutative
//! operation or of `eq` is on the left; otherwise commutative operands are
//! ordered by [`ExprRef`]'s stable order; `x - c` becomes `(-c) + x`; shifts
//! by constants become extracts, concats and extensions; a concat with a
//! zero high part is a zero extension.

use super::bounds::decided_by_ranges;
use super::intern::intern;
use super::{mask, to_signed, CmpOp, ExprKind as K, ExprRef, UpdateList};
use crate::ir::{BinOp, IntPredicate};
use std::sync::OnceLock;

mod layout;
mod quotient;

pub use layout::{concat, extract, read, select, sext, trunc, zext};

#[inline]
fn check_width(width: u32) {
    assert!(
        (1..=128).contains(&width),
        "expression width {width} is outside 1..=128"
    );
}

#[inline]
fn same_width(a: &ExprRef, b: &ExprRef, what: &str) {
    assert_eq!(
        a.width(),
        b.width(),
        "{what}: operand widths differ ({:?} vs {:?})",
        a,
        b
    );
}

/// The constant `bits` (masked to `width` bits).
pub fn constant(bits: u128, width: u32) -> ExprRef {
    check_width(width);
    if width == 1 {
        return bool_const(bits & 1 == 1);
    }
    intern(K::Const(bits & mask(width)), width)
}

/// The width-1 constant `b`.
pub fn bool_const(b: bool) -> ExprRef {
    static CONSTS: OnceLock<[ExprRef; 2]> = OnceLock::new();
    let [f, t] = CONSTS.get_or_init(|| [intern(K::Const(0), 1), intern(K::Const(1), 1)]);
    if b {
        t.clone()
    } else {
        f.clone()
    }
}

/// The value of `op` on constants: one definition, shared with the
/// interpreter's concrete path (`ir::semantics`).
#[inline]
pub fn fold_binary(op: BinOp, a: u128, b: u128, width: u32) -> u128 {
    crate::ir::semantics::binary(op, width, a, b)
}

/// The value of a comparison of constants of `width` bits.
pub fn fold_cmp(op: CmpOp, a: u128, b: u128, width: u32) -> bool {
    match op {
        CmpOp::Eq => a == b,
        CmpOp::Ult => a < b,
        CmpOp::Ule => a <= b,
        CmpOp::Slt => to_signed(a, width) < to_signed(b, width),
        CmpOp::Sle => to_signed(a, width) <= to_signed(b, width),
    }
}

fn is_commutative(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Mul | BinOp::And | BinOp::Or | BinOp::Xor
    )
}

/// If `e` is `op(c, x)` with a constant `c`, returns `(c, x)`.
fn const_operand(e: &ExprRef, want: BinOp) -> Option<(u128, &ExprRef)> {
    match e.kind() {
        K::Binary { op, lhs, rhs } if *op == want => lhs.as_const().map(|c| (c, rhs)),
        _ => None,
    }
}

fn is_complement(a: &ExprRef, b: &ExprRef) -> bool {
    matches!(a.kind(), K::Not(x) if x == b) || matches!(b.kind(), K::Not(x) if x == a)
}

fn is_power_of_two(c: u128) -> bool {
    c != 0 && c & (c - 1) == 0
}

/// `e` as the zero extension of a narrower value: the value and its width
/// (a constant counts as the extension of its significant bits).
fn zero_extended(e: &ExprRef) -> Option<(ExprRef, u32)> {
    match e.kind() {
        K::ZExt(x) => Some((x.clone(), x.width())),
        K::Const(c) if e.width() > 1 => {
            let bits = (128 - c.leading_zeros()).max(1);
            (bits < e.width()).then(|| (constant(*c, bits), bits))
        }
        _ => None,
    }
}

/// Division and remainder of zero-extended operands, done at the width of
/// the wider operand: C promotes `unsigned char` and `unsigned short` to
/// `int` before `/` and `%`, and a 32-bit division circuit costs the
/// bit-blasting solver far more than an 8-bit one (a recursive Euclid on
/// two bytes nests a dozen of them). Both operands are non-negative, so the
/// signed operations are the unsigned ones, and the quotient and remainder
/// of values below `2^k` are below `2^k`; division by zero gives 0 at
/// every width.
fn narrow_division(op: BinOp, a: &ExprRef, b: &ExprRef) -> Option<ExprRef> {
    let unsigned = match op {
        BinOp::UDiv | BinOp::SDiv => BinOp::UDiv,
        BinOp::URem | BinOp::SRem => BinOp::URem,
        _ => return None,
    };
    let w = a.width();
    let ((x, xw), (y, yw)) = (zero_extended(a)?, zero_extended(b)?);
    let k = xw.max(yw);
    if k >= w {
        return None;
    }
    Some(zext(&binary(unsigned, &zext(&x, k), &zext(&y, k)), w))
}

/// The product of two zero-extended values whose widths add up to less
/// than the product's, done at their sum and extended after: it cannot
/// wrap, so the narrow product is the wide one, and a division of it (an
/// LCM as `a * b / gcd(a, b)`, gnulib's buffer sizes from two
/// `st_blksize`) then narrows as well. Products with a constant stay as
/// they are: they scale indices, and the address arithmetic built on them
/// folds constants that an extension would hide.
fn narrow_product(op: BinOp, a: &ExprRef, b: &ExprRef) -> Option<ExprRef> {
    if op != BinOp::Mul || a.is_const() || b.is_const() {
        return None;
    }
    let w = a.width();
    let ((x, xw), (y, yw)) = (zero_extended(a)?, zero_extended(b)?);
    let k = xw + yw;
    (k < w).then(|| zext(&binary(op, &zext(&x, k), &zext(&y, k)), w))
}

/// Unsigned division and remainder of a narrow dividend by a wide divisor
/// (`1 % x`, `100 / n`), done at the dividend's width `k`: a divisor of
/// `2^k` or more exceeds the dividend, which leaves a quotient of 0 and
/// the dividend as remainder, and a smaller one fits in `k` bits (zero
/// included, which gives 0 at every width). A Csmith program's `1 % x`
/// on a sign-extended 64-bit `x` took Z3 up to 0.85 s a query, with the
/// 64-bit divider bit-blasted whole.
fn narrow_dividend(op: BinOp, a: &ExprRef, b: &ExprRef) -> Option<ExprRef> {
    if !matches!(op, BinOp::UDiv | BinOp::URem) || b.is_const() || a.as_const() == Some(0) {
        return None;
    }
    let w = a.width();
    let (x, k) = zero_extended(a)?;
    if k >= w {
        return None;
    }
    let fits = ult(b, &constant(1u128 << k, w));
    let narrow = zext(&binary(op, &x, &extract(b, 0, k)), w);
    let exceeded = match op {
        BinOp::URem => a.clone(),
        _ => constant(0, w),
    };
    Some(select(&fits, &narrow, &exceeded))
}

/// `e` as the sign extension of a narrower value: the value and its width.
/// A constant counts as the extension of its significant bits and a sign
/// bit, and a zero extension from `k` bits as a sign extension from `k+1`.
fn sign_extended(e: &ExprRef) -> Option<(ExprRef, u32)> {
    let w = e.width();
    match e.kind() {
        K::SExt(x) => Some((x.clone(), x.width())),
        K::ZExt(x) if x.width() + 1 < w => Some((zext(x, x.width() + 1), x.width() + 1)),
        K::Const(c) if w > 1 => {
            let v = to_signed(*c, w);
            let magnitude = if v < 0 { !v } else { v };
            let bits = 128 - magnitude.leading_zeros() + 1;
            (bits < w).then(|| (constant(*c & mask(bits), bits), bits))
        }
        _ => None,
    }
}

/// Signed division and remainder of sign-extended operands, or of a
/// sign-extended dividend by a wide divisor, done narrow: C promotes
/// `short` and `signed char` to `int` before `/` and `%`, and Csmith's
/// safe arithmetic divides constants by sign-extended 64-bit values.
///
/// With both operands extended from at most `m` bits, the remainder is the
/// `m`-bit one extended (`MIN % -1` is 0 at every width), and the quotient
/// is the `m+1`-bit one, where `MIN / -1` does not overflow. With a
/// dividend extended from `k` bits alone, a divisor outside the signed
/// range of `k+1` bits exceeds the dividend in magnitude, leaving a
/// quotient of 0 and the dividend as remainder; one inside fits in `k+1`
/// bits, where the operation cannot overflow. Division by zero gives 0 at
/// every width.
fn narrow_signed_division(op: BinOp, a: &ExprRef, b: &ExprRef) -> Option<ExprRef> {
    let extra = match op {
        BinOp::SDiv => 1,
        BinOp::SRem => 0,
        _ => return None,
    };
    if a.as_const() == Some(0) || b.as_const() == Some(1) {
        return None;
    }
    let w = a.width();
    let (x, k) = sign_extended(a)?;
    if let Some((y, j)) = sign_extended(b) {
        let m = k.max(j) + extra;
        return (m < w).then(|| sext(&binary(op, &sext(&x, m), &sext(&y, m)), w));
    }
    let n = k + 1;
    if b.is_const() || n >= w {
        return None;
    }
    let fits = ult(
        &binary(BinOp::Add, b, &constant(1u128 << k, w)),
        &constant(1u128 << n, w),
    );
    let narrow = sext(&binary(op, &sext(&x, n), &extract(b, 0, n)), w);
    let exceeded = match op {
        BinOp::SRem => a.clone(),
        _ => constant(0, w),
    };
    Some(select(&fits, &narrow, &exceeded))
}

/// `op(a, b)`; both operands have the same width.
pub fn binary(op: BinOp, a: &ExprRef, b: &ExprRef) -> ExprRef {
    same_width(a, b, "binary");
    let w = a.width();
    if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
        return constant(fold_binary(op, x, y, w), w);
    }
    // Canonical order of commutative operands: constant first, otherwise
    // the stable expression order.
    let (a, b) = if is_commutative(op) && (b.is_const() || (!a.is_const() && b < a)) {
        (b, a)
    } else {
        (a, b)
    };
    if w == 1 {
        // Over one bit, addition and subtraction are xor, multiplication and.
        match op {
            BinOp::Add | BinOp::Sub => return binary(BinOp::Xor, a, b),
            BinOp::Mul => return binary(BinOp::And, a, b),
            _ => {}
        }
    }
    if let Some(narrow) = narrow_division(op, a, b)
        .or_else(|| narrow_product(op, a, b))
        .or_else(|| narrow_dividend(op, a, b))
        .or_else(|| narrow_signed_division(op, a, b))
    {
        return narrow;
    }
    let ones = mask(w);
    let ca = a.as_const();
    let cb = b.as_const();
    match op {
        BinOp::Add => {
            if let Some(c) = ca {
                if c == 0 {
                    return b.clone();
                }
                if let Some((c2, x)) = const_operand(b, BinOp::Add) {
                    return binary(BinOp::Add, &constant(c.wrapping_add(c2), w), x);
                }
                if let Some((c2, x)) = const_operand(b, BinOp::Sub) {
                    return binary(BinOp::Sub, &constant(c.wrapping_add(c2), w), x);
                }
            }
        }
        BinOp::Sub => {
            if a == b {
                return constant(0, w);
            }
            if let Some(c) = cb {
                return binary(BinOp::Add, &constant(c.wrapping_neg(), w), a);
            }
            if let Some(c) = ca {
                if let Some((c2, x)) = const_operand(b, BinOp::Add) {
                    return binary(BinOp::Sub, &constant(c.wrapping_sub(c2), w), x);
                }
            }
        }
        BinOp::Mul => {
            if let Some(c) = ca {
                if c == 0 {
                    return constant(0, w);
                }
                if c == 1 {
                    return b.clone();
                }
                if let Some((c2, x)) = const_operand(b, BinOp::Mul) {
                    return binary(BinOp::Mul, &constant(c.wrapping_mul(c2), w), x);
                }
            }
        }
        BinOp::UDiv => {
            if ca == Some(0) {
                return constant(0, w);
            }
            if let Some(c) = cb {
                if c == 1 {
                    return a.clone();
                }
                if is_power_of_two(c) {
                    return binary(BinOp::LShr, a, &constant(c.trailing_zeros() as u128, w));
                }
                if let Some(q) = quotient::nested_quotient(a, c) {
                    return q;
                }
            }
        }
        BinOp::URem => {
            if ca == Some(0) || cb == Some(1) {
                return constant(0, w);
            }
            if let Some(c) = cb {
                if is_power_of_two(c) {
                    return binary(BinOp::And, &constant(c - 1, w), a);
                }
            }
        }
        BinOp::SDiv => {
            if ca == Some(0) {
                return constant(0, w);
            }
            if cb == Some(1) {
                return a.clone();
            }
        }
        BinOp::SRem => {
            if ca == Some(0) || cb == Some(1) {
                return constant(0, w);
            }
        }
        BinOp::And => {
            if let Some(c) = ca {
                if c == 0 {
                    return constant(0, w);
                }
                if c == ones {
                    return b.clone();
                }
                if let Some((c2, x)) = const_operand(b, BinOp::And) {
                    return binary(BinOp::And, &constant(c & c2, w), x);
                }
            }
            if a == b {
                return a.clone();
            }
            if is_complement(a, b) {
                return constant(0, w);
            }
        }
        BinOp::Or => {
            if let Some(c) = ca {
                if c == 0 {
                    return b.clone();
                }
                if c == ones {
                    return constant(ones, w);
                }
                if let Some((c2, x)) = const_operand(b, BinOp::Or) {
                    return binary(BinOp::Or, &constant(c | c2, w), x);
                }
            }
            if a == b {
                return a.clone();
            }
            if is_complement(a, b) {
                return constant(ones, w);
            }
        }
        BinOp::Xor => {
            if let Some(c) = ca {
                if c == 0 {
                    return b.clone();
                }
                if c == ones {
                    return not(b);
                }
                if let Some((c2, x)) = const_operand(b, BinOp::Xor) {
                    return binary(BinOp::Xor, &constant(c ^ c2, w), x);
                }
            }
            if a == b {
                return constant(0, w);
            }
            if is_complement(a, b) {
                return constant(ones, w);
            }
        }
        BinOp::Shl | BinOp::LShr | BinOp::AShr => {
            if ca == Some(0) || (op == BinOp::AShr && ca == Some(ones)) {
                return a.clone();
            }
            if let Some(c) = cb {
                return shift_by_constant(op, a, c, w);
            }
        }
    }
    intern(
        K::Binary {
            op,
            lhs: a.clone(),
            rhs: b.clone(),
        },
        w,
    )
}

/// Shifts by a constant amount, expressed with extracts so that later
/// extracts and comparisons see through them.
fn shift_by_constant(op: BinOp, a: &ExprRef, c: u128, w: u32) -> ExprRef {
    if c == 0 {
        return a.clone();
    }
    if c >= w as u128 {
        return match op {
            BinOp::AShr => sext(&extract(a, w - 1, 1), w),
            _ => constant(0, w),
        };
    }
    let c = c as u32;
    match op {
        BinOp::Shl => concat(&extract(a, 0, w - c), &constant(0, c)),
        BinOp::LShr => zext(&extract(a, c, w - c), w),
        _ => sext(&extract(a, c, w - c), w),
    }
}

/// Bitwise complement; logical negation at width 1.
pub fn not(a: &ExprRef) -> ExprRef {
    let w = a.width();
    match a.kind() {
        K::Const(c) => constant(!c, w),
        K::Not(x) => x.clone(),
        K::Cmp { op, lhs, rhs } => match op {
            CmpOp::Eq => intern(K::Not(a.clone()), 1),
            CmpOp::Ult => cmp(CmpOp::Ule, rhs, lhs),
            CmpOp::Ule => cmp(CmpOp::Ult, rhs, lhs),
            CmpOp::Slt => cmp(CmpOp::Sle, rhs, lhs),
            CmpOp::Sle => cmp(CmpOp::Slt, rhs, lhs),
        },
        _ => intern(K::Not(a.clone()), w),
    }
}

/// Two's complement negation.
pub fn neg(a: &ExprRef) -> ExprRef {
    binary(BinOp::Sub, &constant(0, a.width()), a)
}

/// A comparison; the result has width 1.
pub fn cmp(op: CmpOp, a: &ExprRef, b: &ExprRef) -> ExprRef {
    same_width(a, b, "cmp");
    let w = a.width();
    if let (Some(x), Some(y)) = (a.as_const(), b.as_const()) {
        return bool_const(fold_cmp(op, x, y, w));
    }
    if a == b {
        return bool_const(matches!(op, CmpOp::Eq | CmpOp::Ule | CmpOp::Sle));
    }
    // Comparisons of two extensions of equal-width values compare the values.
    match (a.kind(), b.kind()) {
        (K::ZExt(x), K::ZExt(y))
            if x.width() == y.width() && !matches!(op, CmpOp::Slt | CmpOp::Sle) =>
        {
            return cmp(op, x, y);
        }
        (K::SExt(x), K::SExt(y)) if x.width() == y.width() => return cmp(op, x, y),
        _ => {}
    }
    if let Some(decided) = decided_by_ranges(op, a, b) {
        return bool_const(decided);
    }
    if op != CmpOp::Eq {
        if let Some(rewritten) = quotient::compared_quotient(op, a, b) {
            return rewritten;
        }
    }
    let ones = mask(w);
    let smin = 1u128 << (w - 1);
    let smax = smin - 1;
    let (ca, cb) = (a.as_const(), b.as_const());
    match op {
        CmpOp::Eq => return eq_simplified(a, b),
        CmpOp::Ult => {
            if cb == Some(0) || ca == Some(ones) {
                return bool_const(false);
            }
            if ca == Some(0) {
                return not(&eq(a, b));
            }
            if cb == Some(1) {
                return eq(&constant(0, w), a);
            }
            if w == 1 {
                return and(&not(a), b);
            }
        }
        CmpOp::Ule => {
            if ca == Some(0) || cb == Some(ones) {
                return bool_const(true);
            }
            if cb == Some(0) || ca == Some(ones) {
                return eq(a, b);
            }
        }
        CmpOp::Slt => {
            if cb == Some(smin) || ca == Some(smax) {
                return bool_const(false);
            }
        }
        CmpOp::Sle => {
            if ca == Some(smin) || cb == Some(smax) {
                return bool_const(true);
            }
        }
    }
    intern(
        K::Cmp {
            op,
            lhs: a.clone(),
            rhs: b.clone(),
        },
        1,
    )
}

fn eq_simplified(a: &ExprRef, b: &ExprRef) -> ExprRef {
    let (a, b) = if b.is_const() || (!a.is_const() && b < a) {
        (b, a)
    } else {
        (a, b)
    };
    let w = a.width();
    if let Some(c) = a.as_const() {
        if w == 1 {
            return if c == 1 { b.clone() } else { not(b) };
        }
        if let Some(rewritten) = quotient::compared_quotient(CmpOp::Eq, a, b) {
            return rewritten;
        }
        match b.kind() {
            K::Not(x) => return eq(&constant(!c, w), x),
            K::Binary { op, lhs, rhs } => {
                if let Some(c2) = lhs.as_const() {
                    match op {
                        BinOp::Add => return eq(&constant(c.wrapping_sub(c2), w), rhs),
                        BinOp::Sub => return eq(&constant(c2.wrapping_sub(c), w), rhs),
                        BinOp::Xor => return eq(&constant(c ^ c2, w), rhs),
                        _ => {}
                    }
                }
            }
            K::ZExt(x) => {
                return if c > mask(x.width()) {
                    bool_const(false)
                } else {
                    eq(&constant(c, x.width()), x)
                };
            }
            K::SExt(x) => {
                let xw = x.width();
                let low = c & mask(xw);
                return if to_signed(low, xw) as u128 & mask(w) == c {
                    eq(&constant(low, xw), x)
                } else {
                    bool_const(false)
                };
            }
            K::Concat { hi, lo } => {
                let lw = lo.width();
                return and(
                    &eq(&constant(c >> lw, hi.width()), hi),
                    &eq(&constant(c, lw), lo),
                );
            }
            K::Select {
                cond,
                then_e,
                else_e,
            } => {
                if let (Some(t), Some(e)) = (then_e.as_const(), else_e.as_const()) {
                    return match (c == t, c == e) {
                        (true, true) => bool_const(true),
                        (true, false) => cond.clone(),
                        (false, true) => not(cond),
                        (false, false) => bool_const(false),
                    };
                }
            }
            _ => {}
        }
    }
    intern(
        K::Cmp {
            op: CmpOp::Eq,
            lhs: a.clone(),
            rhs: b.clone(),
        },
        1,
    )
}

/// LLVM's `icmp` with any of its ten predicates.
pub fn icmp(pred: IntPredicate, a: &ExprRef, b: &ExprRef) -> ExprRef {
    match pred {
        IntPredicate::Eq => eq(a, b),
        IntPredicate::Ne => ne(a, b),
        IntPredicate::Ult => ult(a, b),
        IntPredicate::Ule => ule(a, b),
        IntPredicate::Ugt => ugt(a, b),
        IntPredicate::Uge => uge(a, b),
        IntPredicate::Slt => slt(a, b),
        IntPredicate::Sle => sle(a, b),
        IntPredicate::Sgt => sgt(a, b),
        IntPredicate::Sge => sge(a, b),
    }
}

/// `a == b`.
pub fn eq(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Eq, a, b)
}

/// `a != b`.
pub fn ne(a: &ExprRef, b: &ExprRef) -> ExprRef {
    not(&eq(a, b))
}

/// Unsigned `a < b`.
pub fn ult(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Ult, a, b)
}

/// Unsigned `a <= b`.
pub fn ule(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Ule, a, b)
}

/// Unsigned `a > b`.
pub fn ugt(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Ult, b, a)
}

/// Unsigned `a >= b`.
pub fn uge(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Ule, b, a)
}

/// Signed `a < b`.
pub fn slt(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Slt, a, b)
}

/// Signed `a <= b`.
pub fn sle(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Sle, a, b)
}

/// Signed `a > b`.
pub fn sgt(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Slt, b, a)
}

/// Signed `a >= b`.
pub fn sge(a: &ExprRef, b: &ExprRef) -> ExprRef {
    cmp(CmpOp::Sle, b, a)
}

/// Bitwise and (logical and at width 1).
pub fn and(a: &ExprRef, b: &ExprRef) -> ExprRef {
    binary(BinOp::And, a, b)
}

/// Bitwise or (logical or at width 1).
pub fn or(a: &ExprRef, b: &ExprRef) -> ExprRef {
    binary(BinOp::Or, a, b)
}

/// Bitwise exclusive or.
pub fn xor(a: &ExprRef, b: &ExprRef) -> ExprRef {
    binary(BinOp::Xor, a, b)
}

/// Wrapping addition.
pub fn add(a: &ExprRef, b: &ExprRef) -> ExprRef {
    binary(BinOp::Add, a, b)
}

/// Wrapping subtraction.
pub fn sub(a: &ExprRef, b: &ExprRef) -> ExprRef {
    binary(BinOp::Sub, a, b)
}

/// Wrapping multiplication.
pub fn mul(a: &ExprRef, b: &ExprRef) -> ExprRef {
    binary(BinOp::Mul, a, b)
}

/// `a` implies `b` (both width 1).
pub fn implies(a: &ExprRef, b: &ExprRef) -> ExprRef {
    or(&not(a), b)
}

#[cfg(test)]
mod tests;
