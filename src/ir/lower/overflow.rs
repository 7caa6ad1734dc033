//! Overflow intrinsics on 128-bit integers (`__builtin_add_overflow` and
//! its kin on `__int128`). Their result `{ i128, i1 }` does not fit one
//! register, so it is kept in two, one per field, which the
//! `extractvalue`s reading it copy; any other use of it is refused as an
//! aggregate too wide. The flag is computed without a product twice as
//! wide, which no register holds: from products of the operands' halves,
//! as a machine without a double-width multiply would (division, which
//! needs no halves, left Z3 past its time on every such query).

use inkwell::llvm_sys::{LLVMOpcode as O, LLVMTypeKind as K};

use super::call::intrinsic_name;
use super::intrinsic::{classify_intrinsic, IntrinsicUse};
use super::FnLower;
use crate::ir::ffi::Val;
use crate::ir::layout::MAX_WIDTH;
use crate::ir::semantics::mul_fits;
use crate::ir::{BinOp, CastOp, Inst, IntPredicate, Intrinsic, Operand, Reg};

/// The operation and signedness of an overflow intrinsic.
fn overflow_op(kind: Intrinsic) -> Option<(BinOp, bool)> {
    match kind {
        Intrinsic::AddOverflow { signed } => Some((BinOp::Add, signed)),
        Intrinsic::SubOverflow { signed } => Some((BinOp::Sub, signed)),
        Intrinsic::MulOverflow { signed } => Some((BinOp::Mul, signed)),
        _ => None,
    }
}

impl FnLower<'_> {
    /// Registers for the value and the flag of `inst`, if it is a call of
    /// an overflow intrinsic whose result is too wide for one register.
    pub(super) fn overflow_parts(&mut self, inst: Val) -> Option<Vec<Reg>> {
        let ty = inst.ty();
        if inst.opcode() != O::LLVMCall
            || ty.kind() != K::LLVMStructTypeKind
            || self.cx.layout.value_width(ty).is_ok()
        {
            return None;
        }
        let IntrinsicUse::Exec(kind, _) = classify_intrinsic(&intrinsic_name(inst)?) else {
            return None;
        };
        overflow_op(kind)?;
        let value = ty.struct_field(0)?;
        let width = value.int_width();
        (value.kind() == K::LLVMIntegerTypeKind && width <= MAX_WIDTH && width % 2 == 0)
            .then(|| vec![self.new_reg(width), self.new_reg(1)])
    }

    /// Lowers an overflow intrinsic whose result `overflow_parts` split:
    /// the value into `parts[0]`, the flag into `parts[1]`.
    pub(super) fn split_overflow(
        &mut self,
        kind: Intrinsic,
        args: &[Val],
        parts: &[Reg],
    ) -> Result<(), String> {
        let (Some((op, signed)), [a, b], [value, flag]) = (overflow_op(kind), args, parts) else {
            return Err("malformed overflow intrinsic".to_string());
        };
        let w = self.width(*a)?;
        let (x, y) = (self.operand(*a)?, self.operand(*b)?);
        self.out.push(Inst::Binary {
            op,
            width: w,
            lhs: x,
            rhs: y,
            dst: *value,
            site: None,
        });
        let r = Operand::Reg(*value);
        let zero = Operand::Const(self.cx.int(w, 0));
        // A product by a constant overflows outside two bounds.
        let factor = match (a.const_int_bits(), b.const_int_bits()) {
            (Some(c), _) => Some((y, c)),
            (None, Some(c)) => Some((x, c)),
            (None, None) => None,
        };
        let over = match (op, signed, factor) {
            (BinOp::Mul, _, Some((v, c))) => match mul_fits(c, w, signed) {
                None => Operand::Const(self.cx.int(1, 0)),
                Some((lo, hi)) => {
                    let at = |l: &mut Self, bound| Operand::Const(l.cx.int(w, bound));
                    let (lo, hi) = (at(self, lo), at(self, hi));
                    if signed {
                        let below = self.emit_icmp(IntPredicate::Slt, w, v, lo);
                        let above = self.emit_icmp(IntPredicate::Sgt, w, v, hi);
                        self.emit_binary(BinOp::Or, 1, below, above)
                    } else {
                        self.emit_icmp(IntPredicate::Ugt, w, v, hi)
                    }
                }
            },
            (BinOp::Add, false, _) => self.emit_icmp(IntPredicate::Ult, w, r, x),
            (BinOp::Sub, false, _) => self.emit_icmp(IntPredicate::Ult, w, x, y),
            (BinOp::Add | BinOp::Sub, true, _) => {
                // The result's sign differs from x's where y's sign could
                // not have made it so: (x ^ r) & (y ^ r) < 0 for a sum,
                // (x ^ y) & (x ^ r) < 0 for a difference.
                let xr = self.emit_binary(BinOp::Xor, w, x, r);
                let other = match op {
                    BinOp::Add => self.emit_binary(BinOp::Xor, w, y, r),
                    _ => self.emit_binary(BinOp::Xor, w, x, y),
                };
                let both = self.emit_binary(BinOp::And, w, xr, other);
                self.emit_icmp(IntPredicate::Slt, w, both, zero)
            }
            (_, false, _) => self.emit_umul_overflow(w, x, y),
            (_, true, _) => {
                // The product of the magnitudes, which must fit below 2^(w-1)
                // (or be 2^(w-1) itself when the product is negative).
                let abs = |l: &mut Self, v: Operand| {
                    let negative = l.emit_icmp(IntPredicate::Slt, w, v, zero);
                    let minus = l.emit_binary(BinOp::Sub, w, zero, v);
                    l.emit_select(w, negative, minus, v)
                };
                let (ax, ay) = (abs(self, x), abs(self, y));
                let too_big = self.emit_umul_overflow(w, ax, ay);
                let p = self.emit_binary(BinOp::Mul, w, ax, ay);
                let signs = self.emit_binary(BinOp::Xor, w, x, y);
                let negative = self.emit_icmp(IntPredicate::Slt, w, signs, zero);
                let max = 1u128 << (w - 1);
                let (neg_max, pos_max) = (
                    Operand::Const(self.cx.int(w, max)),
                    Operand::Const(self.cx.int(w, max - 1)),
                );
                let limit = self.emit_select(w, negative, neg_max, pos_max);
                let past = self.emit_icmp(IntPredicate::Ugt, w, p, limit);
                self.emit_binary(BinOp::Or, 1, too_big, past)
            }
        };
        self.copy(1, over, *flag);
        Ok(())
    }

    /// Whether the unsigned product of `x` and `y` (`w` bits, `w` even)
    /// overflows, from products of their halves, none wider than `w`: it
    /// does when both high halves are nonzero, else when the middle terms
    /// and the carry out of the low product reach past `w` bits.
    fn emit_umul_overflow(&mut self, w: u32, x: Operand, y: Operand) -> Operand {
        let h = w / 2;
        let shift = Operand::Const(self.cx.int(w, u128::from(h)));
        let halves = |l: &mut Self, v: Operand| {
            let low = l.emit_cast(CastOp::Trunc, w, h, v);
            let high = l.emit_binary(BinOp::LShr, w, v, shift);
            let high = l.emit_cast(CastOp::Trunc, w, h, high);
            let wide = |l: &mut Self, part| l.emit_cast(CastOp::ZExt, h, w, part);
            (wide(l, low), wide(l, high), high)
        };
        let (xl, xh, xh_half) = halves(self, x);
        let (yl, yh, yh_half) = halves(self, y);
        let zero = Operand::Const(self.cx.int(h, 0));
        let xh_set = self.emit_icmp(IntPredicate::Ne, h, xh_half, zero);
        let yh_set = self.emit_icmp(IntPredicate::Ne, h, yh_half, zero);
        let both_high = self.emit_binary(BinOp::And, 1, xh_set, yh_set);
        let low = self.emit_binary(BinOp::Mul, w, xl, yl);
        let carry = self.emit_binary(BinOp::LShr, w, low, shift);
        let m1 = self.emit_binary(BinOp::Mul, w, xh, yl);
        let m2 = self.emit_binary(BinOp::Mul, w, xl, yh);
        let mid = self.emit_binary(BinOp::Add, w, m1, m2);
        let mid = self.emit_binary(BinOp::Add, w, mid, carry);
        let top = self.emit_binary(BinOp::LShr, w, mid, shift);
        let wide_zero = Operand::Const(self.cx.int(w, 0));
        let reaches = self.emit_icmp(IntPredicate::Ne, w, top, wide_zero);
        self.emit_binary(BinOp::Or, 1, both_high, reaches)
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::testutil::{body, load_ll, unsupported};
    use crate::ir::Inst;

    #[test]
    fn a_128_bit_overflow_intrinsic_keeps_its_result_in_two_registers() {
        let m = load_ll(
            r#"
    define i128 @f(i128 %a, i128 %b, { i128, i1 }* %p) {
      %s = call { i128, i1 } @llvm.umul.with.overflow.i128(i128 %a, i128 %b)
      %v = extractvalue { i128, i1 } %s, 0
      %o = extractvalue { i128, i1 } %s, 1
      %z = zext i1 %o to i128
      %r = add i128 %v, %z
      %t = call { i128, i1 } @llvm.sadd.with.overflow.i128(i128 %a, i128 %b)
      store { i128, i1 } %t, { i128, i1 }* %p
      ret i128 %r
    }
    declare { i128, i1 } @llvm.umul.with.overflow.i128(i128, i128)
    declare { i128, i1 } @llvm.sadd.with.overflow.i128(i128, i128)
    "#,
        );
        let b = body(&m, "f");
        // No intrinsic is left to the executor, and no register is wider than
        // 128 bits.
        assert!(!b.insts.iter().any(|i| matches!(i, Inst::Intrinsic { .. })));
        assert!(b.reg_widths.iter().all(|&w| w <= 128), "{:?}", b.reg_widths);
        // The extracts read the two registers; the store of the whole result
        // is refused, naming the type.
        let what = unsupported(&b.insts);
        assert_eq!(what.len(), 1, "{what:?}");
        assert!(what[0].contains("{ i128, i1 }"), "{}", what[0]);
    }
}
