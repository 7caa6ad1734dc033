//! Vectors across calls and in intrinsics. A vector passed to or returned
//! from a function travels packed into one register (lane 0 in the low
//! bits, as memory holds it), so callers and callees agree whatever each
//! does with its lanes; `llvm.*` intrinsics on vectors become their scalar
//! forms lane by lane, reductions a chain of scalar operations, and the
//! few SSE2 intrinsics `<emmintrin.h>` leaves at `-O0` what they compute.

use super::intrinsic::{classify_intrinsic, IntrinsicUse};
use super::vector::is_vector;
use super::FnLower;
use crate::ir::ffi::{Ty, Val};
use crate::ir::layout::MAX_WIDTH;
use crate::ir::{Arg, BinOp, CastOp, FBinOp, FloatTy, Inst, IntPredicate, Intrinsic, Operand, Reg};

impl FnLower<'_> {
    /// The width of a vector of type `ty` packed into one register (a
    /// parameter, return value or call argument), as the function's type
    /// gives it (its alloc size), or why it does not fit one.
    pub(super) fn packed_width(&self, ty: Ty, what: &str) -> Result<u32, String> {
        let s = self.shape(ty)?;
        let w = self.cx.layout.lenient_width(ty);
        if w > MAX_WIDTH || u64::from(w) < u64::from(s.lanes) * u64::from(s.width) {
            return Err(format!(
                "vector {what} of type `{}` (more than {MAX_WIDTH} bits)",
                ty.print()
            ));
        }
        Ok(w)
    }

    /// The lanes of the vector `v` packed into a new register.
    pub(super) fn pack(&mut self, v: Val, what: &str) -> Result<Operand, String> {
        let w = self.packed_width(v.ty(), what)?;
        let from = self.pieces_of(v)?;
        let dst = self.new_reg(w);
        self.regroup(&from, &[(dst, w)]);
        Ok(Operand::Reg(dst))
    }

    /// Splits the packed register `src` into the lanes `dst` of a vector of type `ty`.
    pub(super) fn unpack(&mut self, src: Reg, ty: Ty, dst: &[Reg]) -> Result<(), String> {
        let s = self.shape(ty)?;
        let w = self.packed_width(ty, "value")?;
        let to: Vec<(Reg, u32)> = dst.iter().map(|&r| (r, s.width)).collect();
        self.regroup(&[(Operand::Reg(src), w)], &to);
        Ok(())
    }

    /// Gives each vector parameter its lanes, split from the packed
    /// register the caller passes: the instructions go first in the entry
    /// block (which no branch enters again).
    pub(super) fn vector_parameters(&mut self, params: &[Val]) -> Vec<Inst> {
        let mut out = std::mem::take(&mut self.out);
        for &p in params {
            if !is_vector(p.ty()) {
                continue;
            }
            let split = (|| {
                let src = *self.regs.get(&p).ok_or("parameter without a register")?;
                self.packed_width(p.ty(), "parameter")?;
                let lanes = self.lane_regs(p.ty())?;
                self.unpack(src, p.ty(), &lanes)?;
                Ok(lanes)
            })();
            self.lanes.insert(p, split);
        }
        std::mem::swap(&mut self.out, &mut out);
        out
    }

    /// A call argument: a scalar as it is, a vector packed.
    pub(super) fn call_arg(&mut self, a: Val) -> Result<Arg, String> {
        if is_vector(a.ty()) {
            let width = self.packed_width(a.ty(), "call argument")?;
            let value = self.pack(a, "call argument")?;
            return Ok(Arg {
                value,
                width,
                sse: width <= 128,
                byval: None,
            });
        }
        let width = self.width(a).map_err(|e| format!("{e} as call argument"))?;
        let float = self.cx.layout.float_ty(a.ty());
        Ok(Arg {
            value: self.operand(a)?,
            width,
            // A long double goes on the stack, of the x87 class.
            sse: matches!(float, Some(FloatTy::F32 | FloatTy::F64)),
            byval: None,
        })
    }

    /// A call of an `llvm.*` function on vectors.
    pub(super) fn vector_intrinsic(
        &mut self,
        inst: Val,
        name: &str,
        args: &[Val],
    ) -> Result<(), String> {
        let refused = || format!("intrinsic `{name}`");
        if let Some(rest) = name.strip_prefix("llvm.vector.reduce.") {
            let op = rest.split('.').next().unwrap_or_default();
            return self.reduce(inst, op, args).ok_or_else(refused)?;
        }
        if let Some(rest) = name.strip_prefix("llvm.x86.") {
            return self.x86(inst, rest, args).ok_or_else(refused)?;
        }
        if !is_vector(inst.ty()) {
            return Err(refused());
        }
        let s = self.shape(inst.ty())?;
        match classify_intrinsic(name) {
            IntrinsicUse::Exec(kind, max_args) if lanewise(kind) => {
                if kind.is_float() && s.float.is_none() {
                    return Err(refused());
                }
                let mut per_arg = Vec::new();
                for &a in args.iter().take(max_args) {
                    per_arg.push(self.lanes_or_splat(a, s.lanes)?);
                }
                self.lanewise(inst, |_, i, dst| Inst::Intrinsic {
                    kind,
                    dst: Some(dst),
                    width: s.width,
                    args: per_arg.iter().map(|lanes| lanes[i]).collect(),
                    site: None,
                })
            }
            IntrinsicUse::FMulAdd => {
                let ty = s.float.ok_or_else(refused)?;
                let [a, b, c] = args else {
                    return Err(format!("malformed call to `{name}`"));
                };
                let (a, b) = (self.lanes_of(*a, s.lanes)?, self.lanes_of(*b, s.lanes)?);
                let c = self.lanes_of(*c, s.lanes)?;
                for (i, dst) in self.dst_lanes(inst)?.into_iter().enumerate() {
                    let product = self.new_reg(s.width);
                    self.out.push(Inst::FBinary {
                        op: FBinOp::Mul,
                        ty,
                        lhs: a[i],
                        rhs: b[i],
                        dst: product,
                    });
                    self.out.push(Inst::FBinary {
                        op: FBinOp::Add,
                        ty,
                        lhs: Operand::Reg(product),
                        rhs: c[i],
                        dst,
                    });
                }
                Ok(())
            }
            IntrinsicUse::Copy => {
                let a = *args.first().ok_or("intrinsic without argument")?;
                let lanes = self.lanes_of(a, s.lanes)?;
                for (lane, dst) in lanes.into_iter().zip(self.dst_lanes(inst)?) {
                    self.copy(s.width, lane, dst);
                }
                Ok(())
            }
            _ => Err(refused()),
        }
    }

    /// `llvm.vector.reduce.OP`: the lanes combined first to last, so a
    /// float sum adds in the order the unordered form also allows. `None`
    /// for a reduction mnemo does not lower (the float minimum and maximum).
    fn reduce(&mut self, inst: Val, op: &str, args: &[Val]) -> Option<Result<(), String>> {
        enum Step {
            Int(BinOp),
            Pick(Intrinsic),
            Float(FBinOp),
        }
        let step = match op {
            "add" => Step::Int(BinOp::Add),
            "mul" => Step::Int(BinOp::Mul),
            "and" => Step::Int(BinOp::And),
            "or" => Step::Int(BinOp::Or),
            "xor" => Step::Int(BinOp::Xor),
            "smax" => Step::Pick(Intrinsic::SMax),
            "smin" => Step::Pick(Intrinsic::SMin),
            "umax" => Step::Pick(Intrinsic::UMax),
            "umin" => Step::Pick(Intrinsic::UMin),
            "fadd" => Step::Float(FBinOp::Add),
            "fmul" => Step::Float(FBinOp::Mul),
            _ => return None,
        };
        Some((|| {
            // The float forms take a start value before the vector.
            let (start, v) = match (&step, args) {
                (Step::Float(_), [start, v]) => (Some(self.operand(*start)?), *v),
                (Step::Int(_) | Step::Pick(_), [v]) => (None, *v),
                _ => return Err("malformed vector reduction".to_string()),
            };
            let s = self.shape(v.ty())?;
            let width = s.width;
            let combine: Box<dyn Fn(Operand, Operand, Reg) -> Inst> = match step {
                Step::Int(op) => Box::new(move |acc, lane, d| Inst::Binary {
                    op,
                    width,
                    lhs: acc,
                    rhs: lane,
                    dst: d,
                    site: None,
                }),
                Step::Pick(kind) => Box::new(move |acc, lane, d| Inst::Intrinsic {
                    kind,
                    dst: Some(d),
                    width,
                    args: vec![acc, lane],
                    site: None,
                }),
                Step::Float(op) => {
                    let ty = s.float.ok_or("float reduction of integers")?;
                    Box::new(move |acc, lane, d| Inst::FBinary {
                        op,
                        ty,
                        lhs: acc,
                        rhs: lane,
                        dst: d,
                    })
                }
            };
            let mut lanes = self.lanes_of(v, s.lanes)?.into_iter();
            let dst = self.dst(inst)?;
            let first = match start {
                Some(start) => start,
                None => lanes.next().ok_or("reduction of an empty vector")?,
            };
            self.fold_into(dst, width, first, lanes.collect(), |_, acc, lane, d| {
                combine(acc, lane, d)
            });
            Ok(())
        })())
    }
}

impl FnLower<'_> {
    /// The SSE2 intrinsics clang's `<emmintrin.h>` still emits at `-O0`
    /// where no generic instruction does the job (`_mm_movemask_epi8`, the
    /// shifts by an immediate); `None` for the others.
    fn x86(&mut self, inst: Val, name: &str, args: &[Val]) -> Option<Result<(), String>> {
        let shift = match name {
            "sse2.pmovmskb.128" | "sse.movmsk.ps" | "sse2.movmsk.pd" => {
                return Some(self.sign_mask(inst, args))
            }
            "sse2.pslli.w" | "sse2.pslli.d" | "sse2.pslli.q" => BinOp::Shl,
            "sse2.psrli.w" | "sse2.psrli.d" | "sse2.psrli.q" => BinOp::LShr,
            "sse2.psrai.w" | "sse2.psrai.d" => BinOp::AShr,
            _ => return None,
        };
        Some(self.x86_shift(inst, shift, args))
    }

    /// The sign bit of each lane, lane 0 in bit 0 of an `i32`.
    fn sign_mask(&mut self, inst: Val, args: &[Val]) -> Result<(), String> {
        let [v] = args else {
            return Err("malformed sign mask".to_string());
        };
        let s = self.shape(v.ty())?;
        let mut signs = Vec::new();
        for lane in self.lanes_of(*v, s.lanes)? {
            let bit = self.new_reg(1);
            self.out.push(Inst::ExtractValue {
                dst: bit,
                agg: lane,
                offset: s.width - 1,
                width: 1,
            });
            signs.push((Operand::Reg(bit), 1));
        }
        let dst = self.dst(inst)?;
        let width = self.width(inst)?;
        self.regroup(&signs, &[(dst, width)]);
        Ok(())
    }

    /// A shift of every lane by one count. Unlike LLVM's shifts, x86's
    /// define a count of the lane width or more: a logical shift gives
    /// zero, an arithmetic one the sign in every bit, as a shift by the
    /// width less one does.
    fn x86_shift(&mut self, inst: Val, op: BinOp, args: &[Val]) -> Result<(), String> {
        let [v, count] = args else {
            return Err("malformed shift".to_string());
        };
        let s = self.shape(inst.ty())?;
        let lanes = self.lanes_of(*v, s.lanes)?;
        let count_width = self.width(*count)?;
        let count = self.operand(*count)?;
        let w = s.width;
        let in_range = self.new_reg(1);
        let limit = Operand::Const(self.cx.int(count_width, u128::from(w)));
        self.out.push(Inst::ICmp {
            pred: IntPredicate::Ult,
            width: count_width,
            lhs: count,
            rhs: limit,
            dst: in_range,
        });
        let fallback = if op == BinOp::AShr { w - 1 } else { 0 };
        let fallback = Operand::Const(self.cx.int(count_width, u128::from(fallback)));
        let amount = self.new_reg(count_width);
        self.out.push(Inst::Select {
            width: count_width,
            cond: Operand::Reg(in_range),
            then_val: count,
            else_val: fallback,
            dst: amount,
        });
        let mut amount = Operand::Reg(amount);
        if count_width != w {
            let resized = self.new_reg(w);
            self.out.push(Inst::Cast {
                op: if count_width > w {
                    CastOp::Trunc
                } else {
                    CastOp::ZExt
                },
                from: count_width,
                to: w,
                src: amount,
                dst: resized,
            });
            amount = Operand::Reg(resized);
        }
        let zero = Operand::Const(self.cx.int(w, 0));
        for (lane, dst) in lanes.into_iter().zip(self.dst_lanes(inst)?) {
            let shifted = if op == BinOp::AShr {
                dst
            } else {
                self.new_reg(w)
            };
            let site = Some(self.site());
            self.out.push(Inst::Binary {
                op,
                width: w,
                lhs: lane,
                rhs: amount,
                dst: shifted,
                site,
            });
            if op != BinOp::AShr {
                self.out.push(Inst::Select {
                    width: w,
                    cond: Operand::Reg(in_range),
                    then_val: Operand::Reg(shifted),
                    else_val: zero,
                    dst,
                });
            }
        }
        Ok(())
    }
}

/// Whether an intrinsic mnemo runs on scalars works on each lane alone,
/// so its vector form is the scalar one per lane.
fn lanewise(kind: Intrinsic) -> bool {
    matches!(
        kind,
        Intrinsic::Abs
            | Intrinsic::SMin
            | Intrinsic::SMax
            | Intrinsic::UMin
            | Intrinsic::UMax
            | Intrinsic::Bswap
            | Intrinsic::Ctpop
            | Intrinsic::Ctlz
            | Intrinsic::Cttz
            | Intrinsic::Fshl
            | Intrinsic::Fshr
            | Intrinsic::AddSat { .. }
            | Intrinsic::SubSat { .. }
    ) || kind.is_float()
}
