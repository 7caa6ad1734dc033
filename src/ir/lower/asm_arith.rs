//! Register-only inline assembly (see [`AsmArith`]) rewritten into the
//! ordinary instructions that compute the same values, so the engine needs
//! nothing new to run it, symbolically or not.

use super::FnLower;
use crate::ir::asm::AsmArith;
use crate::ir::ffi::Val;
use crate::ir::{BinOp, CastOp, Inst, Intrinsic, Operand, Reg};

impl FnLower<'_> {
    /// Lowers the call `inst` of the inline assembly `op`.
    pub(super) fn asm_arith(&mut self, inst: Val, op: AsmArith) -> Result<(), String> {
        let nargs = inst.num_arg_operands();
        let mut args = Vec::with_capacity(nargs as usize);
        for i in 0..nargs {
            let a = self.op(inst, i)?;
            args.push((self.operand(a)?, self.width(a)?));
        }
        let dst = self.dst(inst)?;
        let out_width = self.width(inst)?;
        match op {
            AsmArith::AddPair | AsmArith::SubPair => {
                let [(ah, 64), (bh, 64), (al, 64), (bl, 64)] = args[..] else {
                    return Err("two-word arithmetic on operands other than four words".into());
                };
                if out_width != 128 {
                    return Err("two-word arithmetic with a result other than two words".into());
                }
                let a = self.join(None, al, ah, 64);
                let b = self.join(None, bl, bh, 64);
                let sum = self.new_reg(128);
                self.out.push(Inst::Binary {
                    op: if op == AsmArith::AddPair {
                        BinOp::Add
                    } else {
                        BinOp::Sub
                    },
                    width: 128,
                    lhs: Operand::Reg(a),
                    rhs: Operand::Reg(b),
                    dst: sum,
                    site: None,
                });
                // The outputs are `{hi, lo}`: the high word first.
                let lo = self.half(sum, 0);
                let hi = self.half(sum, 64);
                self.join(Some(dst), hi, lo, 64);
            }
            AsmArith::MulWide => {
                let [(a, 64), (b, 64)] = args[..] else {
                    return Err("a wide multiplication of operands other than two words".into());
                };
                if out_width != 128 {
                    return Err("a wide multiplication with a result other than two words".into());
                }
                // `{lo, hi}` flattened is the 128-bit product itself.
                let wa = self.zext(a, 64, 128);
                let wb = self.zext(b, 64, 128);
                self.out.push(Inst::Binary {
                    op: BinOp::Mul,
                    width: 128,
                    lhs: Operand::Reg(wa),
                    rhs: Operand::Reg(wb),
                    dst,
                    site: None,
                });
            }
            AsmArith::ScanForward | AsmArith::ScanReverse => {
                let [(x, w)] = args[..] else {
                    return Err("a bit scan of other than one operand".into());
                };
                let forward = op == AsmArith::ScanForward;
                let count = self.new_reg(w);
                let no_poison = Operand::Const(self.cx.int(1, 0));
                self.out.push(Inst::Intrinsic {
                    kind: if forward {
                        Intrinsic::Cttz
                    } else {
                        Intrinsic::Ctlz
                    },
                    dst: Some(count),
                    width: w,
                    args: vec![x, no_poison],
                    site: None,
                });
                // `bsr` gives the index of the highest set bit, not the count
                // of the zeros above it.
                let index = if forward {
                    count
                } else {
                    let index = self.new_reg(w);
                    let top = Operand::Const(self.cx.int(w, u128::from(w - 1)));
                    self.out.push(Inst::Binary {
                        op: BinOp::Sub,
                        width: w,
                        lhs: top,
                        rhs: Operand::Reg(count),
                        dst: index,
                        site: None,
                    });
                    index
                };
                let op = if out_width < w {
                    CastOp::Trunc
                } else {
                    CastOp::ZExt
                };
                self.out.push(Inst::Cast {
                    op,
                    from: w,
                    to: out_width,
                    src: Operand::Reg(index),
                    dst,
                });
            }
        }
        Ok(())
    }

    /// `low | high << half` in a register of `2 * half` bits (`dst`, or a new one).
    fn join(&mut self, dst: Option<Reg>, low: Operand, high: Operand, half: u32) -> Reg {
        let zero = Operand::Const(self.cx.int(2 * half, 0));
        let with_low = self.new_reg(2 * half);
        self.out.push(Inst::InsertValue {
            dst: with_low,
            agg: zero,
            agg_width: 2 * half,
            elem: low,
            offset: 0,
            width: half,
        });
        let dst = dst.unwrap_or_else(|| self.new_reg(2 * half));
        self.out.push(Inst::InsertValue {
            dst,
            agg: Operand::Reg(with_low),
            agg_width: 2 * half,
            elem: high,
            offset: half,
            width: half,
        });
        dst
    }

    /// The 64 bits of `wide` from bit `offset`.
    fn half(&mut self, wide: Reg, offset: u32) -> Operand {
        let dst = self.new_reg(64);
        self.out.push(Inst::ExtractValue {
            dst,
            agg: Operand::Reg(wide),
            offset,
            width: 64,
        });
        Operand::Reg(dst)
    }

    fn zext(&mut self, src: Operand, from: u32, to: u32) -> Reg {
        let dst = self.new_reg(to);
        self.out.push(Inst::Cast {
            op: CastOp::ZExt,
            from,
            to,
            src,
            dst,
        });
        dst
    }
}
