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
        self.load_modify_store(addr, (width, bytes), old, |l| {
            Ok(match inst.atomic_rmw_op() {
                R::LLVMAtomicRMWBinOpXchg => val,
                R::LLVMAtomicRMWBinOpAdd => {
                    l.emit_binary(BinOp::Add, width, Operand::Reg(old), val)
                }
                R::LLVMAtomicRMWBinOpSub => {
                    l.emit_binary(BinOp::Sub, width, Operand::Reg(old), val)
                }
                R::LLVMAtomicRMWBinOpAnd => {
                    l.emit_binary(BinOp::And, width, Operand::Reg(old), val)
                }
                R::LLVMAtomicRMWBinOpOr => l.emit_binary(BinOp::Or, width, Operand::Reg(old), val),
                R::LLVMAtomicRMWBinOpXor => {
                    l.emit_binary(BinOp::Xor, width, Operand::Reg(old), val)
                }
                R::LLVMAtomicRMWBinOpNand => {
                    let and = l.emit_binary(BinOp::And, width, Operand::Reg(old), val);
                    let ones = Operand::Const(l.cx.int(width, crate::ir::semantics::mask(width)));
                    l.emit_binary(BinOp::Xor, width, and, ones)
                }
                R::LLVMAtomicRMWBinOpMax => l.pick(IntPredicate::Sgt, width, old, val),
                R::LLVMAtomicRMWBinOpMin => l.pick(IntPredicate::Slt, width, old, val),
                R::LLVMAtomicRMWBinOpUMax => l.pick(IntPredicate::Ugt, width, old, val),
                R::LLVMAtomicRMWBinOpUMin => l.pick(IntPredicate::Ult, width, old, val),
                R::LLVMAtomicRMWBinOpFAdd | R::LLVMAtomicRMWBinOpFSub => {
                    return Err("floating-point operation".into())
                }
            })
        })
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
        // The comparison's register, which the closure makes.
        let mut equal = old;
        self.load_modify_store(addr, (width, bytes), old, |l| {
            let (eq, stored) =
                l.select_on(IntPredicate::Eq, width, old, cmp, new, Operand::Reg(old));
            equal = eq;
            Ok(Operand::Reg(stored))
        })?;
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

    /// Loads `width` bits (`bytes` in memory) at `addr` into `old`, and
    /// stores back what `modify` makes of them.
    fn load_modify_store(
        &mut self,
        addr: Operand,
        (width, bytes): (u32, u32),
        old: Reg,
        modify: impl FnOnce(&mut Self) -> Result<Operand, String>,
    ) -> Result<(), String> {
        let site = self.site();
        self.out.push(Inst::Load {
            dst: old,
            addr,
            width,
            bytes,
            site,
        });
        let value = modify(self)?;
        let site = self.site();
        self.out.push(Inst::Store {
            value,
            addr,
            width,
            bytes,
            site,
        });
        Ok(())
    }

    /// `old` where `old PRED val` holds, else `val` (a max or min).
    fn pick(&mut self, pred: IntPredicate, width: u32, old: Reg, val: Operand) -> Operand {
        let (_, dst) = self.select_on(pred, width, old, val, Operand::Reg(old), val);
        Operand::Reg(dst)
    }

    /// `then_val` where `lhs PRED rhs` holds, else `else_val`, in a new
    /// register; and the condition's.
    fn select_on(
        &mut self,
        pred: IntPredicate,
        width: u32,
        lhs: Reg,
        rhs: Operand,
        then_val: Operand,
        else_val: Operand,
    ) -> (Reg, Reg) {
        let cond = self.new_reg(1);
        self.out.push(Inst::ICmp {
            pred,
            width,
            lhs: Operand::Reg(lhs),
            rhs,
            dst: cond,
        });
        let dst = self.new_reg(width);
        self.out.push(Inst::Select {
            width,
            cond: Operand::Reg(cond),
            then_val,
            else_val,
            dst,
        });
        (cond, dst)
    }
}
