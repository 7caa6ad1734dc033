//! The concrete meaning of the IR's integer operations on bit patterns.
//!
//! One definition serves the interpreter (concrete operands never build an
//! expression) and the expression simplifier (constant folding), so the two
//! can never disagree. Values are `u128` bit patterns of a given width; bits
//! above the width are always zero.

use super::{BinOp, CastOp, IntPredicate};

/// All-ones mask of `width` bits (`1..=128`).
#[inline]
pub fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

/// Sign-extends a `from`-bit pattern to `to` bits.
#[inline]
pub fn sext(bits: u128, from: u32, to: u32) -> u128 {
    debug_assert!(from >= 1 && from <= to);
    let shift = 128 - from;
    ((((bits << shift) as i128) >> shift) as u128) & mask(to)
}

/// The pattern read as a signed number.
#[inline]
pub fn to_signed(bits: u128, width: u32) -> i128 {
    let shift = 128 - width;
    ((bits << shift) as i128) >> shift
}

/// Applies `op` at `width` bits with LLVM's wrapping semantics.
///
/// The engine checks divisors and shift amounts before calling this, so the
/// cases LLVM leaves undefined get a fixed, harmless answer: division or
/// remainder by zero gives 0, a shift by the width or more gives 0
/// (`ashr`: the sign fill).
#[inline]
pub fn binary(op: BinOp, width: u32, a: u128, b: u128) -> u128 {
    let m = mask(width);
    let r = match op {
        BinOp::Add => a.wrapping_add(b),
        BinOp::Sub => a.wrapping_sub(b),
        BinOp::Mul => a.wrapping_mul(b),
        BinOp::UDiv => a.checked_div(b).unwrap_or(0),
        BinOp::URem => a.checked_rem(b).unwrap_or(0),
        BinOp::SDiv => {
            let (x, y) = (to_signed(a, width), to_signed(b, width));
            if y == 0 {
                0
            } else {
                x.wrapping_div(y) as u128
            }
        }
        BinOp::SRem => {
            let (x, y) = (to_signed(a, width), to_signed(b, width));
            if y == 0 {
                0
            } else {
                x.wrapping_rem(y) as u128
            }
        }
        BinOp::And => a & b,
        BinOp::Or => a | b,
        BinOp::Xor => a ^ b,
        BinOp::Shl => {
            if b >= width as u128 {
                0
            } else {
                a << b
            }
        }
        BinOp::LShr => {
            if b >= width as u128 {
                0
            } else {
                a >> b
            }
        }
        BinOp::AShr => {
            let x = to_signed(a, width);
            let s = if b >= width as u128 {
                width - 1
            } else {
                b as u32
            };
            (x >> s) as u128
        }
    };
    r & m
}

/// Evaluates an integer comparison of two `width`-bit patterns.
#[inline]
pub fn icmp(pred: IntPredicate, width: u32, a: u128, b: u128) -> bool {
    let (sa, sb) = (to_signed(a, width), to_signed(b, width));
    match pred {
        IntPredicate::Eq => a == b,
        IntPredicate::Ne => a != b,
        IntPredicate::Ugt => a > b,
        IntPredicate::Uge => a >= b,
        IntPredicate::Ult => a < b,
        IntPredicate::Ule => a <= b,
        IntPredicate::Sgt => sa > sb,
        IntPredicate::Sge => sa >= sb,
        IntPredicate::Slt => sa < sb,
        IntPredicate::Sle => sa <= sb,
    }
}

/// Converts a `from`-bit pattern to `to` bits.
#[inline]
pub fn cast(op: CastOp, from: u32, to: u32, bits: u128) -> u128 {
    match op {
        CastOp::SExt if to > from => sext(bits, from, to),
        _ => bits & mask(to),
    }
}

/// Whether `op` can fail its check (zero divisor, oversized shift).
#[inline]
pub fn is_checked(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::UDiv
            | BinOp::SDiv
            | BinOp::URem
            | BinOp::SRem
            | BinOp::Shl
            | BinOp::LShr
            | BinOp::AShr
    )
}

/// The operands whose product with the constant `c` fits `width` bits:
/// `lo..=hi`, signed bounds as bit patterns when `signed`; `None` when
/// every operand does (`c` is 0). A product by a constant then needs no
/// multiplication to check.
pub fn mul_fits(c: u128, width: u32, signed: bool) -> Option<(u128, u128)> {
    let m = mask(width);
    if c & m == 0 {
        return None;
    }
    if !signed {
        return Some((0, m / c));
    }
    let c = to_signed(c, width);
    let min = to_signed(1 << (width - 1), width);
    let max = to_signed(m >> 1, width);
    // Division truncates toward zero: the bounds round inward. MIN / -1
    // overflows, and every operand but MIN fits a product by -1.
    let (lo, hi) = if c > 0 {
        (min / c, max / c)
    } else {
        (max / c, min.checked_div(c).unwrap_or(max))
    };
    Some((lo.max(min) as u128 & m, hi.min(max) as u128 & m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_by_a_constant_fit_between_the_bounds_at_128_bits() {
        let edges = [
            0u128,
            1,
            2,
            3,
            1000003,
            u128::MAX,
            u128::MAX - 1,
            1 << 127,
            (1 << 127) + 1,
            (1 << 127) - 1,
            1 << 64,
            (1 << 64) - 1,
            u128::MAX - (1 << 64),
        ];
        for signed in [false, true] {
            for &c in &edges {
                for &x in &edges {
                    let fits = if signed {
                        (x as i128).checked_mul(c as i128).is_some()
                    } else {
                        x.checked_mul(c).is_some()
                    };
                    let inside = match mul_fits(c, 128, signed) {
                        None => true,
                        Some((lo, hi)) if signed => {
                            (lo as i128) <= x as i128 && x as i128 <= hi as i128
                        }
                        Some((lo, hi)) => lo <= x && x <= hi,
                    };
                    assert_eq!(fits, inside, "{x:#x} * {c:#x}, signed {signed}");
                }
            }
        }
    }

    #[test]
    fn wrapping_and_signed_division() {
        assert_eq!(binary(BinOp::Add, 8, 0xff, 1), 0);
        assert_eq!(binary(BinOp::Sub, 32, 0, 1), 0xffff_ffff);
        // -7 / 2 == -3 and -7 % 2 == -1 in C.
        assert_eq!(binary(BinOp::SDiv, 8, 0xf9, 2), 0xfd);
        assert_eq!(binary(BinOp::SRem, 8, 0xf9, 2), 0xff);
        // INT_MIN / -1 wraps.
        assert_eq!(
            binary(BinOp::SDiv, 32, 0x8000_0000, 0xffff_ffff),
            0x8000_0000
        );
        assert_eq!(binary(BinOp::UDiv, 16, 7, 0), 0);
    }

    #[test]
    fn shifts_and_comparisons() {
        assert_eq!(binary(BinOp::AShr, 8, 0x80, 7), 0xff);
        assert_eq!(binary(BinOp::LShr, 8, 0x80, 7), 1);
        assert_eq!(binary(BinOp::Shl, 128, 1, 127), 1u128 << 127);
        assert!(icmp(IntPredicate::Slt, 8, 0xff, 0));
        assert!(!icmp(IntPredicate::Ult, 8, 0xff, 0));
        assert_eq!(sext(0x80, 8, 32), 0xffff_ff80);
        assert_eq!(cast(CastOp::Trunc, 32, 8, 0x1234), 0x34);
        assert_eq!(to_signed(u128::MAX, 128), -1);
    }
}
