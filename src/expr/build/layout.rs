//! Builders of bit layout: choices between values, concatenations,
//! extractions, extensions and reads of arrays. An extraction looks
//! through concatenations, extensions and bitwise operations to the bits
//! it takes, since memory built a byte at a time is read back in words.

use super::{
    and, binary, check_width, constant, intern, not, or, same_width, to_signed, zero_extended,
    BinOp, ExprRef, UpdateList, K,
};

/// `c ? t : e`; `c` has width 1, `t` and `e` the same width.
pub fn select(c: &ExprRef, t: &ExprRef, e: &ExprRef) -> ExprRef {
    assert_eq!(c.width(), 1, "select: condition must have width 1");
    same_width(t, e, "select");
    if let Some(v) = c.as_const() {
        return if v == 1 { t.clone() } else { e.clone() };
    }
    if t == e {
        return t.clone();
    }
    if let K::Not(x) = c.kind() {
        return select(x, e, t);
    }
    if let Some(narrow) = narrow_select(c, t, e) {
        return narrow;
    }
    if t.width() == 1 {
        match (t.as_const(), e.as_const()) {
            (Some(1), Some(0)) => return c.clone(),
            (Some(0), Some(1)) => return not(c),
            (Some(1), _) => return or(c, e),
            (Some(0), _) => return and(&not(c), e),
            (_, Some(0)) => return and(c, t),
            (_, Some(1)) => return or(&not(c), t),
            _ => {}
        }
    }
    intern(
        K::Select {
            cond: c.clone(),
            then_e: t.clone(),
            else_e: e.clone(),
        },
        t.width(),
    )
}

/// A choice between zero-extended values, made at the width of the wider
/// one and extended after: `n < 8192 ? n % 4096 : 4096`, on a 64-bit `n`
/// known below 2^16, is then a 13-bit value that division and remainder
/// see as narrow (`narrow_division`), where a 64-bit select hides it and
/// leaves Z3 a 64-bit divider to bit-blast.
fn narrow_select(c: &ExprRef, t: &ExprRef, e: &ExprRef) -> Option<ExprRef> {
    if t.is_const() && e.is_const() {
        return None;
    }
    let w = t.width();
    let ((x, xw), (y, yw)) = (zero_extended(t)?, zero_extended(e)?);
    let k = xw.max(yw);
    (k < w).then(|| zext(&select(c, &zext(&x, k), &zext(&y, k)), w))
}

/// If `hi` and `lo` are adjacent extracts of one expression, the single
/// extract covering both.
fn merge_extracts(hi: &ExprRef, lo: &ExprRef) -> Option<ExprRef> {
    match (hi.kind(), lo.kind()) {
        (
            K::Extract {
                expr: x,
                offset: oh,
            },
            K::Extract {
                expr: y,
                offset: ol,
            },
        ) if x == y && *oh == *ol + lo.width() => Some(extract(x, *ol, hi.width() + lo.width())),
        // One half an extract, the other what the same extract of its
        // expression simplified to: the low byte of `x - 1` is built as
        // `(low byte of x) - 1`, and a value stored and loaded back byte by
        // byte must still come back whole, or `x - 1 - 1 ...` in a loop
        // nests an adder per iteration instead of folding into one.
        (
            K::Extract {
                expr: x,
                offset: oh,
            },
            _,
        ) if *oh >= lo.width() && extract(x, oh - lo.width(), lo.width()) == *lo => {
            Some(extract(x, oh - lo.width(), hi.width() + lo.width()))
        }
        (
            _,
            K::Extract {
                expr: y,
                offset: ol,
            },
        ) if ol + lo.width() + hi.width() <= y.width()
            && extract(y, ol + lo.width(), hi.width()) == *hi =>
        {
            Some(extract(y, *ol, hi.width() + lo.width()))
        }
        _ => None,
    }
}

/// `hi` in the high bits above `lo`; the total width is at most 128.
pub fn concat(hi: &ExprRef, lo: &ExprRef) -> ExprRef {
    let w = hi.width() + lo.width();
    check_width(w);
    if let (Some(h), Some(l)) = (hi.as_const(), lo.as_const()) {
        return constant((h << lo.width()) | l, w);
    }
    if hi.as_const() == Some(0) {
        return zext(lo, w);
    }
    if let Some(m) = merge_extracts(hi, lo) {
        return m;
    }
    // The bytes of `c ^ x`, stored and loaded back, are `c_i ^ x_i`: join
    // the constants and the rest apart, so that the rest can come back
    // whole (as above) and the value is one operation again.
    if let (
        K::Binary {
            op: oh,
            lhs: ch,
            rhs: a,
        },
        K::Binary {
            op: ol,
            lhs: cl,
            rhs: b,
        },
    ) = (hi.kind(), lo.kind())
    {
        if oh == ol
            && matches!(oh, BinOp::And | BinOp::Or | BinOp::Xor)
            && ch.is_const()
            && cl.is_const()
        {
            return binary(*oh, &concat(ch, cl), &concat(a, b));
        }
    }
    // Multi-byte loads are built as chains of concats in either
    // association; merge across one level of nesting too.
    if let K::Concat { hi: lh, lo: ll } = lo.kind() {
        if let Some(m) = merge_extracts(hi, lh) {
            return concat(&m, ll);
        }
    }
    if let K::Concat { hi: hh, lo: hl } = hi.kind() {
        if let Some(m) = merge_extracts(hl, lo) {
            return concat(hh, &m);
        }
    }
    intern(
        K::Concat {
            hi: hi.clone(),
            lo: lo.clone(),
        },
        w,
    )
}

/// `width` bits of `e` starting at bit `offset`.
pub fn extract(e: &ExprRef, offset: u32, width: u32) -> ExprRef {
    check_width(width);
    let ew = e.width();
    assert!(
        offset.checked_add(width).is_some_and(|end| end <= ew),
        "extract: bits {offset}..+{width} out of a {ew}-bit expression"
    );
    if offset == 0 && width == ew {
        return e.clone();
    }
    match e.kind() {
        K::Const(c) => return constant(c >> offset, width),
        K::Extract { expr, offset: o } => return extract(expr, o + offset, width),
        K::Concat { hi, lo } => {
            let lw = lo.width();
            return if offset + width <= lw {
                extract(lo, offset, width)
            } else if offset >= lw {
                extract(hi, offset - lw, width)
            } else {
                concat(
                    &extract(hi, 0, offset + width - lw),
                    &extract(lo, offset, lw - offset),
                )
            };
        }
        K::ZExt(x) => {
            let xw = x.width();
            return if offset + width <= xw {
                extract(x, offset, width)
            } else if offset >= xw {
                constant(0, width)
            } else {
                zext(&extract(x, offset, xw - offset), width)
            };
        }
        K::SExt(x) => {
            let xw = x.width();
            return if offset + width <= xw {
                extract(x, offset, width)
            } else if offset >= xw {
                sext(&extract(x, xw - 1, 1), width)
            } else {
                sext(&extract(x, offset, xw - offset), width)
            };
        }
        K::Not(x) => return not(&extract(x, offset, width)),
        K::Binary { op, lhs, rhs } if lhs.is_const() => {
            // Bitwise operations work bit by bit; the low bits of a sum or
            // product depend on the low bits of the operands only.
            let pointwise = matches!(op, BinOp::And | BinOp::Or | BinOp::Xor);
            let low = offset == 0 && matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul);
            if pointwise || low {
                return binary(
                    *op,
                    &extract(lhs, offset, width),
                    &extract(rhs, offset, width),
                );
            }
        }
        K::Select {
            cond,
            then_e,
            else_e,
        } if then_e.is_const() && else_e.is_const() => {
            return select(
                cond,
                &extract(then_e, offset, width),
                &extract(else_e, offset, width),
            );
        }
        _ => {}
    }
    intern(
        K::Extract {
            expr: e.clone(),
            offset,
        },
        width,
    )
}

/// The low `width` bits of `e` (LLVM's `trunc`).
pub fn trunc(e: &ExprRef, width: u32) -> ExprRef {
    extract(e, 0, width)
}

/// Zero extension of `e` to `width >= e.width()` bits.
pub fn zext(e: &ExprRef, width: u32) -> ExprRef {
    check_width(width);
    let ew = e.width();
    assert!(width >= ew, "zext: {ew} bits to {width} bits");
    if width == ew {
        return e.clone();
    }
    match e.kind() {
        K::Const(c) => constant(*c, width),
        K::ZExt(x) => zext(x, width),
        _ => intern(K::ZExt(e.clone()), width),
    }
}

/// Sign extension of `e` to `width >= e.width()` bits.
pub fn sext(e: &ExprRef, width: u32) -> ExprRef {
    check_width(width);
    let ew = e.width();
    assert!(width >= ew, "sext: {ew} bits to {width} bits");
    if width == ew {
        return e.clone();
    }
    match e.kind() {
        K::Const(c) => constant(to_signed(*c, ew) as u128, width),
        K::SExt(x) => sext(x, width),
        // The sign bit of a proper zero extension is 0.
        K::ZExt(x) => zext(x, width),
        _ => intern(K::SExt(e.clone()), width),
    }
}

/// The byte at the 64-bit `index` of the array of `updates` after its writes.
///
/// Writes at a constant index different from a constant `index` are skipped
/// (and dropped from the resulting node); a write at an equal index gives
/// its value directly.
pub fn read(updates: &UpdateList, index: &ExprRef) -> ExprRef {
    assert_eq!(index.width(), 64, "read: index must be 64 bits wide");
    let mut cur = updates.head.as_ref();
    while let Some(node) = cur {
        if node.index == *index {
            return node.value.clone();
        }
        match (node.index.as_const(), index.as_const()) {
            (Some(a), Some(b)) if a != b => cur = node.next.as_ref(),
            _ => break,
        }
    }
    if cur.is_none() {
        if let Some(i) = index.as_const() {
            let root = &updates.root;
            if let Some(byte) = root.init_byte(i) {
                return constant(byte as u128, 8);
            }
            if i >= root.size as u128 {
                return constant(0, 8);
            }
        }
    }
    intern(
        K::Read {
            updates: UpdateList {
                root: updates.root.clone(),
                head: cur.cloned(),
            },
            index: index.clone(),
        },
        8,
    )
}
