//! Atomic read-modify-write instructions (`atomicrmw`, `cmpxchg`; C11's
//! `atomic_fetch_add`, `__atomic_compare_exchange_n`, a reference count's
//! increment) rewritten into a load, the operation and a store: a path runs
//! on one thread, where nothing can come between the three.

use inkwell::llvm_sys::LLVMAtomicRMWBinOp as R;

use super::FnLower;
use crate::ir::ffi::Val;
use crate::ir::{BinOp, Inst, IntPredicate, Operand, Reg};

impl FnLower<'_> {
    /// `atomicrmw OP ptr, val`: the old value, with `OP(old, val)` stored.
    pub(super) fn atomic_rmw(&mut self, inst: Val) -> Result<(), String> {
        let (p, v) = (self.op(inst, 0)?, self.op(inst, 1)?);
        self.pointer(p)?;
        let width = self.width(inst)?;
        let bytes = self.store_bytes(inst)?;
        let addr = self.operand(p)?;
        let val = self.operand(v)?;
        let old = self.dst(inst)?;
        let site = self.site();
        self.out.push(Inst::Load {
            dst: old,
            addr,
            width,
            bytes,
            site,
        });
        let new = match inst.atomic_rmw_op() {
            R::LLVMAtomicRMWBinOpXchg => val,
            R::LLVMAtomicRMWBinOpAdd => self.binary(BinOp::Add, width, old, val),
            R::LLVMAtomicRMWBinOpSub => self.binary(BinOp::Sub, width, old, val),
            R::LLVMAtomicRMWBinOpAnd => self.binary(BinOp::And, width, old, val),
            R::LLVMAtomicRMWBinOpOr => self.binary(BinOp::Or, width, old, val),
            R::LLVMAtomicRMWBinOpXor => self.binary(BinOp::Xor, width, old, val),
            R::LLVMAtomicRMWBinOpNand => {
                let Operand::Reg(and) = self.binary(BinOp::And, width, old, val) else {
                    unreachable!("an operation's result is a register")
                };
                let ones = Operand::Const(self.cx.int(width, crate::ir::semantics::mask(width)));
                self.binary(BinOp::Xor, width, and, ones)
            }
            R::LLVMAtomicRMWBinOpMax => self.pick(IntPredicate::Sgt, width, old, val),
            R::LLVMAtomicRMWBinOpMin => self.pick(IntPredicate::Slt, width, old, val),
            R::LLVMAtomicRMWBinOpUMax => self.pick(IntPredicate::Ugt, width, old, val),
            R::LLVMAtomicRMWBinOpUMin => self.pick(IntPredicate::Ult, width, old, val),
            R::LLVMAtomicRMWBinOpFAdd | R::LLVMAtomicRMWBinOpFSub => {
                return Err("floating-point `atomicrmw`".into())
            }
        };
        let site = self.site();
        self.out.push(Inst::Store {
            value: new,
            addr,
            width,
            bytes,
            site,
        });
        Ok(())
    }

    /// `cmpxchg ptr, cmp, new`: `{old, old == cmp}`, with `new` stored
    /// where the two are equal (and `old` stored back, which changes
    /// nothing, where they are not).
    pub(super) fn cmpxchg(&mut self, inst: Val) -> Result<(), String> {
        let (p, c, n) = (self.op(inst, 0)?, self.op(inst, 1)?, self.op(inst, 2)?);
        self.pointer(p)?;
        let width = self.width(c)?;
        let bytes = self.store_bytes(c)?;
        let addr = self.operand(p)?;
        let (cmp, new) = (self.operand(c)?, self.operand(n)?);
        let agg_width = self.width(inst)?;
        let (flag_at, _) = self.cx.layout.aggregate_offset(inst.ty(), &[1])?;
        let dst = self.dst(inst)?;
        let old = self.new_reg(width);
        let site = self.site();
        self.out.push(Inst::Load {
            dst: old,
            addr,
            width,
            bytes,
            site,
        });
        let equal = self.new_reg(1);
        self.out.push(Inst::ICmp {
            pred: IntPredicate::Eq,
            width,
            lhs: Operand::Reg(old),
            rhs: cmp,
            dst: equal,
        });
        let stored = self.new_reg(width);
        self.out.push(Inst::Select {
            width,
            cond: Operand::Reg(equal),
            then_val: new,
            else_val: Operand::Reg(old),
            dst: stored,
        });
        let site = self.site();
        self.out.push(Inst::Store {
            value: Operand::Reg(stored),
            addr,
            width,
            bytes,
            site,
        });
        let with_old = self.new_reg(agg_width);
        self.out.push(Inst::InsertValue {
            dst: with_old,
            agg: Operand::Const(self.cx.int(agg_width, 0)),
            agg_width,
            elem: Operand::Reg(old),
            offset: 0,
            width,
        });
        self.out.push(Inst::InsertValue {
            dst,
            agg: Operand::Reg(with_old),
            agg_width,
            elem: Operand::Reg(equal),
            offset: flag_at,
            width: 1,
        });
        Ok(())
    }

    /// `op(lhs, rhs)` in a new register.
    fn binary(&mut self, op: BinOp, width: u32, lhs: Reg, rhs: Operand) -> Operand {
        let dst = self.new_reg(width);
        self.out.push(Inst::Binary {
            op,
            width,
            lhs: Operand::Reg(lhs),
            rhs,
            dst,
            site: None,
        });
        Operand::Reg(dst)
    }

    /// `old` where `old PRED val` holds, else `val` (a max or min).
    fn pick(&mut self, pred: IntPredicate, width: u32, old: Reg, val: Operand) -> Operand {
        let keep = self.new_reg(1);
        self.out.push(Inst::ICmp {
            pred,
            width,
            lhs: Operand::Reg(old),
            rhs: val,
            dst: keep,
        });
        let dst = self.new_reg(width);
        self.out.push(Inst::Select {
            width,
            cond: Operand::Reg(keep),
            then_val: Operand::Reg(old),
            else_val: val,
            dst,
        });
        Operand::Reg(dst)
    }
}
