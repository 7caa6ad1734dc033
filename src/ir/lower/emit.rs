//! Instructions the lowering adds of its own, each into a new register:
//! the steps of an operation LLVM gives as one (an overflow flag, a wide
//! integer's limbs, a vector's lanes).

use super::FnLower;
use crate::ir::{BinOp, CastOp, Inst, IntPredicate, Operand};

impl FnLower<'_> {
    /// The cast of `src` from `from` bits to `to` bits in a new register
    /// (`src` itself when the widths are equal).
    pub(super) fn emit_cast(&mut self, op: CastOp, from: u32, to: u32, src: Operand) -> Operand {
        if from == to {
            return src;
        }
        let dst = self.new_reg(to);
        self.out.push(Inst::Cast {
            op,
            from,
            to,
            src,
            dst,
        });
        Operand::Reg(dst)
    }

    /// `cond ? then_val : else_val` in a new register.
    pub(super) fn emit_select(
        &mut self,
        width: u32,
        cond: Operand,
        then_val: Operand,
        else_val: Operand,
    ) -> Operand {
        let dst = self.new_reg(width);
        self.out.push(Inst::Select {
            width,
            cond,
            then_val,
            else_val,
            dst,
        });
        Operand::Reg(dst)
    }

    /// The comparison `pred(lhs, rhs)` in a new register.
    pub(super) fn emit_icmp(
        &mut self,
        pred: IntPredicate,
        width: u32,
        lhs: Operand,
        rhs: Operand,
    ) -> Operand {
        let dst = self.new_reg(1);
        self.out.push(Inst::ICmp {
            pred,
            width,
            lhs,
            rhs,
            dst,
        });
        Operand::Reg(dst)
    }

    /// `op(lhs, rhs)` in a new register, unchecked: for operations the
    /// lowering itself adds, which cannot fail.
    pub(super) fn emit_binary(
        &mut self,
        op: BinOp,
        width: u32,
        lhs: Operand,
        rhs: Operand,
    ) -> Operand {
        let dst = self.new_reg(width);
        self.out.push(Inst::Binary {
            op,
            width,
            lhs,
            rhs,
            dst,
            site: None,
        });
        Operand::Reg(dst)
    }
}
