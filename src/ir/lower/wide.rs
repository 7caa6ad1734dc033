//! Integers wider than 128 bits, expanded at load time into 64-bit limbs,
//! as LLVM's type legalizer expands the integers a machine's registers
//! cannot hold. C has no such type in clang 14, but clang gives a run of
//! consecutive bitfields one integer of the run's size (`i152` for a packed
//! struct of eight fields) and reads and writes each field with shifts and
//! masks of it; the optimizer then compares and selects such integers too.
//!
//! Limb 0 holds the low 64 bits, as memory holds them; the top limb holds
//! what is left. No register grows past 64 bits and the executor knows
//! nothing of wide integers. Bitwise operations, shifts by a constant,
//! additions, casts, comparisons, selects, phis, loads and stores are
//! expanded; multiplication, division, shifts by a variable amount and wide
//! values crossing a call are refused, with the reason.

use super::{opcode_name, FnLower};
use crate::ir::consts::describe;
use crate::ir::ffi::{Ty, Val};
use crate::ir::layout::MAX_WIDTH;
use crate::ir::{BinOp, CastOp, Inst, IntPredicate, Operand, Reg};
use inkwell::llvm_sys::{LLVMOpcode as O, LLVMTypeKind as K, LLVMValueKind as VK};

/// Bits in one limb.
const LIMB: u32 = 64;

/// The widest integer expanded; a wider one would unroll into more
/// instructions than any program needs.
const MAX_WIDE: u32 = 8192;

/// Whether `ty` is an integer type too wide for one register.
pub(super) fn is_wide(ty: Ty) -> bool {
    ty.kind() == K::LLVMIntegerTypeKind && ty.int_width() > MAX_WIDTH
}

/// Whether an instruction makes or reads a wide integer.
pub(super) fn involves_wide(inst: Val) -> bool {
    is_wide(inst.ty())
        || (0..inst.num_operands()).any(|i| inst.operand(i).is_some_and(|v| is_wide(v.ty())))
}

/// The widths of the limbs of a `width`-bit integer, the low limb first.
fn limb_widths(width: u32) -> Vec<u32> {
    (0..width.div_ceil(LIMB))
        .map(|i| (width - i * LIMB).min(LIMB))
        .collect()
}

/// The width of the wide integer type `ty`, or why it is not expanded.
fn wide_width(ty: Ty) -> Result<u32, String> {
    let w = ty.int_width();
    if w > MAX_WIDE {
        return Err(format!(
            "integer type `{}` (more than {MAX_WIDE} bits)",
            ty.print()
        ));
    }
    Ok(w)
}

/// Why a wide integer cannot cross a call.
fn across_calls() -> String {
    format!("integers wider than {MAX_WIDTH} bits as arguments or return values")
}

/// A value seen as an endless row of 64-bit limbs, for reading any run of
/// its bits: below limb 0 the bits are zero, above the top limb they are
/// `fill` (zero, or copies of the sign bit); `None` is a limb known zero.
struct Bits {
    limbs: Vec<Option<Operand>>,
    fill: Option<Operand>,
}

impl Bits {
    fn limb(&self, i: i64) -> Option<Operand> {
        match usize::try_from(i) {
            Err(_) => None,
            Ok(i) => self.limbs.get(i).copied().unwrap_or(self.fill),
        }
    }
}

impl FnLower<'_> {
    /// One new register per limb of a value of the wide type `ty`.
    pub(super) fn limb_regs(&mut self, ty: Ty) -> Result<Vec<Reg>, String> {
        let w = wide_width(ty)?;
        Ok(limb_widths(w)
            .into_iter()
            .map(|lw| self.new_reg(lw))
            .collect())
    }

    /// The operand of each limb of the wide integer `v`.
    fn limbs_of(&mut self, v: Val) -> Result<Vec<Operand>, String> {
        if let Some(limbs) = self.lanes.get(&v) {
            return match limbs {
                Ok(regs) => Ok(regs.iter().map(|&r| Operand::Reg(r)).collect()),
                Err(why) => Err(why.clone()),
            };
        }
        match v.kind() {
            VK::LLVMArgumentValueKind => return Err(across_calls()),
            _ if !v.is_constant() => {
                return Err(format!("use of `{}`, which has no value", describe(v)))
            }
            _ => {}
        }
        let widths = limb_widths(wide_width(v.ty())?);
        let words = match v.kind() {
            // mnemo reads undef and poison as zero, as elsewhere.
            VK::LLVMUndefValueValueKind | VK::LLVMPoisonValueKind => vec![0; widths.len()],
            _ => v
                .const_int_words()
                .ok_or_else(|| format!("constant `{}` wider than {MAX_WIDTH} bits", describe(v)))?,
        };
        Ok(widths
            .iter()
            .zip(words)
            .map(|(&w, word)| Operand::Const(self.cx.int(w, u128::from(word))))
            .collect())
    }

    fn zero(&mut self, width: u32) -> Operand {
        Operand::Const(self.cx.int(width, 0))
    }

    /// The bits of an integer of `width` bits (wide or not) as limbs,
    /// extended above by zeros, or by its sign where `signed`.
    fn bits_of(&mut self, v: Val, width: u32, signed: bool) -> Result<Bits, String> {
        let ext = if signed { CastOp::SExt } else { CastOp::ZExt };
        let limbs: Vec<Operand> = if is_wide(v.ty()) {
            let mut limbs = self.limbs_of(v)?;
            let top_width = width - (limbs.len() as u32 - 1) * LIMB;
            if let Some(top) = limbs.last_mut() {
                *top = self.emit_cast(ext, top_width, LIMB, *top);
            }
            limbs
        } else if width <= LIMB {
            let x = self.operand(v)?;
            vec![self.emit_cast(ext, width, LIMB, x)]
        } else {
            // A 65- to 128-bit value: the halves of its extension to 128.
            let x = self.operand(v)?;
            let x = self.emit_cast(ext, width, 2 * LIMB, x);
            let lo = self.emit_cast(CastOp::Trunc, 2 * LIMB, LIMB, x);
            let k = Operand::Const(self.cx.int(2 * LIMB, u128::from(LIMB)));
            let hi = self.emit_binary(BinOp::LShr, 2 * LIMB, x, k);
            let hi = self.emit_cast(CastOp::Trunc, 2 * LIMB, LIMB, hi);
            vec![lo, hi]
        };
        let fill = match limbs.last() {
            Some(&top) if signed => {
                let k = Operand::Const(self.cx.int(LIMB, u128::from(LIMB - 1)));
                Some(self.emit_binary(BinOp::AShr, LIMB, top, k))
            }
            _ => None,
        };
        Ok(Bits {
            limbs: limbs.into_iter().map(Some).collect(),
            fill,
        })
    }

    /// Bits `at .. at + len` of `b` (`len` at most 64; `at` may be negative
    /// or past the top), in a `len`-bit operand.
    fn extract(&mut self, b: &Bits, at: i64, len: u32) -> Operand {
        let (q, r) = (
            at.div_euclid(i64::from(LIMB)),
            at.rem_euclid(i64::from(LIMB)) as u32,
        );
        let shifted = |fl: &mut Self, limb: Option<Operand>, op: BinOp, by: u32| {
            limb.map(|x| match by {
                0 => x,
                _ => {
                    let k = Operand::Const(fl.cx.int(LIMB, u128::from(by)));
                    fl.emit_binary(op, LIMB, x, k)
                }
            })
        };
        let low = shifted(self, b.limb(q), BinOp::LShr, r);
        let high = if r > 0 && r + len > LIMB {
            shifted(self, b.limb(q + 1), BinOp::Shl, LIMB - r)
        } else {
            None
        };
        let whole = match (low, high) {
            (None, None) => return self.zero(len),
            (Some(x), None) | (None, Some(x)) => x,
            (Some(l), Some(h)) => self.emit_binary(BinOp::Or, LIMB, l, h),
        };
        self.emit_cast(CastOp::Trunc, LIMB, len, whole)
    }

    /// Writes the limbs of `inst`'s result, limb `i` (`width` bits from bit
    /// `64 * i`) made by `make`; results are copied into the registers fixed
    /// before lowering, which phis may name already.
    fn limbwise(
        &mut self,
        inst: Val,
        mut make: impl FnMut(&mut Self, usize, u32) -> Result<Operand, String>,
    ) -> Result<(), String> {
        let dsts = self.dst_lanes(inst)?;
        let widths = limb_widths(wide_width(inst.ty())?);
        for (i, (dst, w)) in dsts.into_iter().zip(widths).enumerate() {
            let v = make(self, i, w)?;
            self.copy(w, v, dst);
        }
        Ok(())
    }

    /// Translates one instruction that makes or reads a wide integer.
    pub(super) fn wide(&mut self, inst: Val) -> Result<(), String> {
        let opcode = inst.opcode();
        match opcode {
            O::LLVMAnd | O::LLVMOr | O::LLVMXor => {
                let op = match opcode {
                    O::LLVMAnd => BinOp::And,
                    O::LLVMOr => BinOp::Or,
                    _ => BinOp::Xor,
                };
                let a = self.limbs_of(self.op(inst, 0)?)?;
                let b = self.limbs_of(self.op(inst, 1)?)?;
                self.limbwise(inst, |fl, i, w| Ok(fl.emit_binary(op, w, a[i], b[i])))
            }
            O::LLVMAdd | O::LLVMSub => self.add_with_carry(inst, opcode == O::LLVMSub),
            O::LLVMShl | O::LLVMLShr | O::LLVMAShr => self.shift(inst),
            O::LLVMTrunc | O::LLVMZExt | O::LLVMSExt => self.resize(inst),
            O::LLVMBitCast | O::LLVMFreeze if is_wide(self.op(inst, 0)?.ty()) => {
                let a = self.limbs_of(self.op(inst, 0)?)?;
                self.limbwise(inst, |_, i, _| Ok(a[i]))
            }
            O::LLVMICmp => self.compare(inst),
            O::LLVMSelect => {
                let cond = self.operand(self.op(inst, 0)?)?;
                let a = self.limbs_of(self.op(inst, 1)?)?;
                let b = self.limbs_of(self.op(inst, 2)?)?;
                self.limbwise(inst, |fl, i, width| {
                    let dst = fl.new_reg(width);
                    fl.out.push(Inst::Select {
                        width,
                        cond,
                        then_val: a[i],
                        else_val: b[i],
                        dst,
                    });
                    Ok(Operand::Reg(dst))
                })
            }
            O::LLVMPHI => {
                let widths = limb_widths(wide_width(inst.ty())?);
                self.phi_pieces(inst, &widths, |fl, v| fl.limbs_of(v))
            }
            O::LLVMLoad => {
                let a = self.op(inst, 0)?;
                self.pointer(a)?;
                let base = self.operand(a)?;
                let widths = limb_widths(wide_width(inst.ty())?);
                let limbs = self.dst_lanes(inst)?.into_iter().zip(widths);
                let pieces = limbs.map(|(d, w)| (d, w, w.div_ceil(8)));
                self.load_pieces(base, u64::from(LIMB / 8), pieces)
            }
            O::LLVMStore => {
                let (v, a) = (self.op(inst, 0)?, self.op(inst, 1)?);
                self.pointer(a)?;
                let base = self.operand(a)?;
                let widths = limb_widths(wide_width(v.ty())?);
                let limbs = self.limbs_of(v)?.into_iter().zip(widths);
                let pieces = limbs.map(|(v, w)| (v, w, w.div_ceil(8)));
                self.store_pieces(base, u64::from(LIMB / 8), pieces)
            }
            O::LLVMCall | O::LLVMRet => Err(across_calls()),
            _ => Err(format!(
                "`{}` of integers wider than {MAX_WIDTH} bits",
                opcode_name(opcode)
            )),
        }
    }

    /// `add` and `sub`, limb by limb from the low one, each carrying into
    /// the next; `a - b` is `a + !b + 1`.
    fn add_with_carry(&mut self, inst: Val, sub: bool) -> Result<(), String> {
        let a = self.limbs_of(self.op(inst, 0)?)?;
        let b = self.limbs_of(self.op(inst, 1)?)?;
        let mut carry = Operand::Const(self.cx.int(1, u128::from(sub)));
        self.limbwise(inst, |fl, i, w| {
            let mut y = b[i];
            if sub {
                let ones = Operand::Const(fl.cx.int(w, u128::MAX >> (128 - w)));
                y = fl.emit_binary(BinOp::Xor, w, y, ones);
            }
            // One bit wider, so the sum's top bit is the carry out.
            let x = fl.emit_cast(CastOp::ZExt, w, w + 1, a[i]);
            let y = fl.emit_cast(CastOp::ZExt, w, w + 1, y);
            let c = fl.emit_cast(CastOp::ZExt, 1, w + 1, carry);
            let s = fl.emit_binary(BinOp::Add, w + 1, x, y);
            let s = fl.emit_binary(BinOp::Add, w + 1, s, c);
            let k = Operand::Const(fl.cx.int(w + 1, u128::from(w)));
            let out = fl.emit_binary(BinOp::LShr, w + 1, s, k);
            carry = fl.emit_cast(CastOp::Trunc, w + 1, 1, out);
            Ok(fl.emit_cast(CastOp::Trunc, w + 1, w, s))
        })
    }

    /// `shl`, `lshr` and `ashr` by a constant: each limb of the result is a
    /// run of the source's bits, shifted by whole limbs and by the rest.
    fn shift(&mut self, inst: Val) -> Result<(), String> {
        let (v, amount) = (self.op(inst, 0)?, self.op(inst, 1)?);
        let width = wide_width(inst.ty())?;
        let words = amount
            .const_int_words()
            .filter(|w| w.iter().skip(1).all(|&x| x == 0))
            .ok_or_else(|| {
                format!(
                    "`{}` of an integer wider than {MAX_WIDTH} bits by a variable amount",
                    opcode_name(inst.opcode())
                )
            })?;
        // A shift by the width or more is poison in LLVM: any result will do.
        let by = i64::try_from(words[0].min(u64::from(width))).unwrap_or(0);
        let signed = inst.opcode() == O::LLVMAShr;
        let bits = self.bits_of(v, width, signed)?;
        let left = inst.opcode() == O::LLVMShl;
        self.limbwise(inst, |fl, i, w| {
            let at = i as i64 * i64::from(LIMB);
            Ok(fl.extract(&bits, if left { at - by } else { at + by }, w))
        })
    }

    /// `trunc`, `zext` and `sext` where either side is wide.
    fn resize(&mut self, inst: Val) -> Result<(), String> {
        let v = self.op(inst, 0)?;
        let from = if is_wide(v.ty()) {
            wide_width(v.ty())?
        } else {
            self.width(v)?
        };
        let bits = self.bits_of(v, from, inst.opcode() == O::LLVMSExt)?;
        if is_wide(inst.ty()) {
            return self.limbwise(inst, |fl, i, w| {
                Ok(fl.extract(&bits, i as i64 * i64::from(LIMB), w))
            });
        }
        // A truncation to at most 128 bits: its one or two limbs, joined.
        let to = self.width(inst)?;
        let dst = self.dst(inst)?;
        let low = self.extract(&bits, 0, to.min(LIMB));
        let value = if to <= LIMB {
            low
        } else {
            let high = self.extract(&bits, i64::from(LIMB), to - LIMB);
            let low = self.emit_cast(CastOp::ZExt, LIMB, to, low);
            let high = self.emit_cast(CastOp::ZExt, to - LIMB, to, high);
            let k = Operand::Const(self.cx.int(to, u128::from(LIMB)));
            let high = self.emit_binary(BinOp::Shl, to, high, k);
            self.emit_binary(BinOp::Or, to, high, low)
        };
        self.copy(to, value, dst);
        Ok(())
    }

    /// `icmp`: equality limb by limb; an order decided by the highest limb
    /// that differs (compared signed for the top limb of a signed order,
    /// unsigned below it), folded from the low limb up.
    fn compare(&mut self, inst: Val) -> Result<(), String> {
        use IntPredicate as P;
        let (l, r) = (self.op(inst, 0)?, self.op(inst, 1)?);
        let widths = limb_widths(wide_width(l.ty())?);
        let a = self.limbs_of(l)?;
        let b = self.limbs_of(r)?;
        let pred = crate::ir::consts::int_predicate(inst.icmp_predicate());
        let dst = self.dst(inst)?;
        let result = match pred {
            P::Eq | P::Ne => {
                let (join, test) = match pred {
                    P::Eq => (BinOp::And, P::Eq),
                    _ => (BinOp::Or, P::Ne),
                };
                let mut acc = None;
                for (i, &w) in widths.iter().enumerate() {
                    let t = self.emit_icmp(test, w, a[i], b[i]);
                    acc = Some(match acc {
                        None => t,
                        Some(acc) => self.emit_binary(join, 1, acc, t),
                    });
                }
                acc.ok_or("comparison of an empty integer")?
            }
            _ => {
                let (unsigned, strict_unsigned, strict_signed) = match pred {
                    P::Ugt | P::Sgt => (P::Ugt, P::Ugt, P::Sgt),
                    P::Uge | P::Sge => (P::Uge, P::Ugt, P::Sgt),
                    P::Ult | P::Slt => (P::Ult, P::Ult, P::Slt),
                    _ => (P::Ule, P::Ult, P::Slt),
                };
                let signed = matches!(pred, P::Sgt | P::Sge | P::Slt | P::Sle);
                let top = widths.len() - 1;
                // A wide integer has three limbs or more: limb 0 is never the top.
                let mut acc = self.emit_icmp(unsigned, widths[0], a[0], b[0]);
                for i in 1..widths.len() {
                    let strict = if signed && i == top {
                        strict_signed
                    } else {
                        strict_unsigned
                    };
                    let s = self.emit_icmp(strict, widths[i], a[i], b[i]);
                    let e = self.emit_icmp(P::Eq, widths[i], a[i], b[i]);
                    let rest = self.emit_binary(BinOp::And, 1, e, acc);
                    acc = self.emit_binary(BinOp::Or, 1, s, rest);
                }
                acc
            }
        };
        self.copy(1, result, dst);
        Ok(())
    }
}
