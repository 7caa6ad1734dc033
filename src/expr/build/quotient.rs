//! Quotients by constants, as C's number formatting makes them: printing
//! `n` in decimal divides it by 10 until nothing is left, so a path's
//! constraints say `n / 10 / 10 / 10 == 0` and `n / 10 != 0`. A division
//! costs the bit-blasting solver a whole divider circuit, and a chain of
//! them nests the circuits: stat's paths, which print a symbolic file's
//! sizes and times, spent seconds a query on them. Both rewrites are exact
//! for unsigned division (and for division by zero, which gives 0):
//!
//! - `(x / d) / c` is `x / (d c)`, and 0 when `d c` is past the width;
//! - a comparison of `x / d` with a constant `k` is one of `x` with a
//!   constant: `x / d == k` is `k d <= x <= k d + d - 1`, `x / d < k` is
//!   `x < k d`, `k < x / d` is `(k + 1) d <= x`, and so on, decided at once
//!   when the product is past the width. No division is left, and the
//!   reduction layer sees the bounds of `x` itself.

use super::{and, bool_const, constant, mask, ule, ult, BinOp, CmpOp, ExprRef, K};

/// `x` and `d` of `x / d` with a constant `d` other than 0.
fn divided_by_constant(e: &ExprRef) -> Option<(&ExprRef, u128)> {
    match e.kind() {
        K::Binary {
            op: BinOp::UDiv,
            lhs,
            rhs,
        } => rhs.as_const().filter(|&d| d != 0).map(|d| (lhs, d)),
        _ => None,
    }
}

/// `a / c` when `a` is itself a quotient by a constant.
pub(super) fn nested_quotient(a: &ExprRef, c: u128) -> Option<ExprRef> {
    let (x, d) = divided_by_constant(a)?;
    let w = a.width();
    Some(match d.checked_mul(c).filter(|&p| p <= mask(w)) {
        Some(p) => super::binary(BinOp::UDiv, x, &constant(p, w)),
        None => constant(0, w),
    })
}

/// `op(a, b)` without the division when one side is a constant and the
/// other a quotient by a constant (unsigned comparisons only).
pub(super) fn compared_quotient(op: CmpOp, a: &ExprRef, b: &ExprRef) -> Option<ExprRef> {
    let w = a.width();
    // k d, or None when it is past the width.
    let times = |k: u128, d: u128| k.checked_mul(d).filter(|&p| p <= mask(w));
    // (k + 1) d, the same way.
    let next = |k: u128, d: u128| k.checked_add(1).and_then(|k1| times(k1, d));
    Some(match (op, a.as_const(), b.as_const()) {
        (CmpOp::Eq, Some(k), None) => {
            let (x, d) = divided_by_constant(b)?;
            match times(k, d) {
                Some(low) => {
                    let high = low.checked_add(d - 1).map_or(mask(w), |h| h.min(mask(w)));
                    and(&ule(&constant(low, w), x), &ule(x, &constant(high, w)))
                }
                None => bool_const(false),
            }
        }
        // x / d < k is x < k d; x / d <= k is x < (k + 1) d.
        (CmpOp::Ult | CmpOp::Ule, None, Some(k)) => {
            let (x, d) = divided_by_constant(a)?;
            let bound = if op == CmpOp::Ult {
                times(k, d)
            } else {
                next(k, d)
            };
            bound.map_or_else(|| bool_const(true), |p| ult(x, &constant(p, w)))
        }
        // k < x / d is (k + 1) d <= x; k <= x / d is k d <= x.
        (CmpOp::Ult | CmpOp::Ule, Some(k), None) => {
            let (x, d) = divided_by_constant(b)?;
            let bound = if op == CmpOp::Ult {
                next(k, d)
            } else {
                times(k, d)
            };
            bound.map_or_else(|| bool_const(false), |p| ule(&constant(p, w), x))
        }
        _ => return None,
    })
}
