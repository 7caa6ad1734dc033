//! Vector instructions, scalarized at load time as LLVM's Scalarizer pass
//! does. A vector of N lanes lives in N registers, one per lane, and each
//! vector instruction becomes N scalar instructions of the kinds the
//! executor already runs: however wide the vector, no register grows past
//! 128 bits, and the executor knows nothing of vectors. Optimized code
//! (clang's loop and SLP vectorizers at `-O2`) and `vector_size` types
//! then run as their scalar equivalents do, and fork where they do.
//!
//! Where a vector must be one value (a parameter, a return value, a call
//! argument, a `bitcast` to a scalar), its lanes are packed into one
//! register little-endian, lane 0 in the low bits, as memory holds them.

use super::{float_predicate, FnLower};
use crate::ir::consts::{bin_op, describe, float_op, int_cast, int_predicate};
use crate::ir::ffi::{Ty, Val};
use crate::ir::{CastOp, FCastOp, FloatTy, Inst, IntPredicate, Operand, Reg};
use inkwell::llvm_sys::{LLVMOpcode as O, LLVMTypeKind as K};

/// Most lanes a vector may have; wider ones are refused rather than
/// unrolled into thousands of instructions.
const MAX_LANES: u32 = 256;

/// How a vector type is scalarized: its lane count and one lane's type.
#[derive(Clone, Copy)]
pub(super) struct Shape {
    pub lanes: u32,
    pub elem: Ty,
    /// One lane's width in a register.
    pub width: u32,
    /// One lane's float format, for a vector of floats.
    pub float: Option<FloatTy>,
}

/// Whether `ty` is a vector type, fixed or scalable.
pub(super) fn is_vector(ty: Ty) -> bool {
    matches!(
        ty.kind(),
        K::LLVMVectorTypeKind | K::LLVMScalableVectorTypeKind
    )
}

/// A copy of `width` bits of `src` into `dst`.
fn copy_of(width: u32, src: Operand, dst: Reg) -> Inst {
    Inst::Cast {
        op: CastOp::Bits,
        from: width,
        to: width,
        src,
        dst,
    }
}

/// Whether an instruction makes or reads a vector, and so is scalarized.
pub(super) fn involves_vector(inst: Val) -> bool {
    is_vector(inst.ty())
        || (0..inst.num_operands()).any(|i| inst.operand(i).is_some_and(|v| is_vector(v.ty())))
}

impl FnLower<'_> {
    /// The shape of the vector type `ty`, or why mnemo cannot scalarize it.
    pub(super) fn shape(&self, ty: Ty) -> Result<Shape, String> {
        // A scalable vector's lane count is unknown until run time.
        if ty.kind() != K::LLVMVectorTypeKind {
            return Err(format!("vector type `{}`", ty.print()));
        }
        let lanes = ty.vector_len();
        if lanes == 0 || lanes > MAX_LANES {
            return Err(format!(
                "vector type `{}` (more than {MAX_LANES} lanes)",
                ty.print()
            ));
        }
        let elem = ty.element().ok_or("malformed vector type")?;
        let layout = &self.cx.layout;
        let width = layout
            .value_width(elem)
            .map_err(|e| format!("vector type `{}` of {e}", ty.print()))?;
        let float = layout.float_ty(elem);
        // Lanes of 80-bit floats are padded in memory as no other lane is.
        if float == Some(FloatTy::F80) {
            return Err(format!("vector type `{}`", ty.print()));
        }
        Ok(Shape {
            lanes,
            elem,
            width,
            float,
        })
    }

    /// One new register per lane of a value of vector type `ty`.
    pub(super) fn lane_regs(&mut self, ty: Ty) -> Result<Vec<Reg>, String> {
        let s = self.shape(ty)?;
        Ok((0..s.lanes).map(|_| self.new_reg(s.width)).collect())
    }

    /// The operand of each of the `n` lanes of the vector `v`.
    pub(super) fn lanes_of(&mut self, v: Val, n: u32) -> Result<Vec<Operand>, String> {
        let lanes: Vec<Operand> = match self.lanes.get(&v) {
            Some(Ok(regs)) => regs.iter().map(|&r| Operand::Reg(r)).collect(),
            Some(Err(why)) => return Err(why.clone()),
            None if v.is_constant() => {
                self.shape(v.ty())?;
                let ids = self.cx.vector_lanes(v)?;
                ids.into_iter().map(Operand::Const).collect()
            }
            None => return Err(format!("use of `{}`, which has no value", describe(v))),
        };
        if lanes.len() != n as usize {
            return Err(format!("vector `{}` of the wrong length", describe(v)));
        }
        Ok(lanes)
    }

    /// The lanes of `v` if it is a vector, else `v` in each of `n` lanes
    /// (a select's scalar condition, a getelementptr's scalar base).
    pub(super) fn lanes_or_splat(&mut self, v: Val, n: u32) -> Result<Vec<Operand>, String> {
        if is_vector(v.ty()) {
            self.lanes_of(v, n)
        } else {
            Ok(vec![self.operand(v)?; n as usize])
        }
    }

    /// The lane registers of a vector-valued instruction.
    pub(super) fn dst_lanes(&self, inst: Val) -> Result<Vec<Reg>, String> {
        match self.lanes.get(&inst) {
            Some(Ok(regs)) => Ok(regs.clone()),
            Some(Err(why)) => Err(why.clone()),
            None => Err("instruction result without a register".to_string()),
        }
    }

    /// Copies a lane into `dst`: a result's lane registers are fixed before
    /// lowering starts (a phi may name them already), so lanes are copied,
    /// never aliased.
    pub(super) fn copy(&mut self, width: u32, src: Operand, dst: Reg) {
        self.out.push(copy_of(width, src, dst));
    }

    /// Emits one instruction per lane of `inst`'s result, made by `make`
    /// from the lane's index and register.
    pub(super) fn lanewise(
        &mut self,
        inst: Val,
        mut make: impl FnMut(&mut Self, usize, Reg) -> Inst,
    ) -> Result<(), String> {
        for (i, d) in self.dst_lanes(inst)?.into_iter().enumerate() {
            let x = make(self, i, d);
            self.out.push(x);
        }
        Ok(())
    }

    /// Folds `steps` into `dst`, a `width`-bit register, from `init`: each
    /// step's instruction, made by `make` from the value so far and the
    /// register it writes, writes a new register, the last one `dst`; with
    /// no step, `init` is copied into `dst`.
    pub(super) fn fold_into<T>(
        &mut self,
        dst: Reg,
        width: u32,
        init: Operand,
        steps: Vec<T>,
        mut make: impl FnMut(&mut Self, Operand, T, Reg) -> Inst,
    ) {
        let n = steps.len();
        if n == 0 {
            self.copy(width, init, dst);
            return;
        }
        let mut acc = init;
        for (k, step) in steps.into_iter().enumerate() {
            let d = if k + 1 == n { dst } else { self.new_reg(width) };
            let inst = make(self, acc, step, d);
            self.out.push(inst);
            acc = Operand::Reg(d);
        }
    }

    /// Translates one instruction that makes or reads a vector.
    pub(super) fn vector(&mut self, inst: Val) -> Result<(), String> {
        let opcode = inst.opcode();
        if let Some(op) = bin_op(opcode) {
            let s = self.shape(inst.ty())?;
            let a = self.lanes_of(self.op(inst, 0)?, s.lanes)?;
            let b = self.lanes_of(self.op(inst, 1)?, s.lanes)?;
            let checked = super::is_checked_here(op, inst);
            return self.lanewise(inst, |l, i, dst| Inst::Binary {
                op,
                width: s.width,
                lhs: a[i],
                rhs: b[i],
                dst,
                site: checked.then(|| l.site()),
            });
        }
        match opcode {
            O::LLVMFAdd | O::LLVMFSub | O::LLVMFMul | O::LLVMFDiv | O::LLVMFRem => {
                let op = float_op(opcode).ok_or("floating-point operation")?;
                let (s, ty) = self.float_shape(inst.ty())?;
                let a = self.lanes_of(self.op(inst, 0)?, s.lanes)?;
                let b = self.lanes_of(self.op(inst, 1)?, s.lanes)?;
                self.lanewise(inst, |_, i, dst| Inst::FBinary {
                    op,
                    ty,
                    lhs: a[i],
                    rhs: b[i],
                    dst,
                })
            }
            O::LLVMFNeg => {
                let (s, ty) = self.float_shape(inst.ty())?;
                let a = self.lanes_of(self.op(inst, 0)?, s.lanes)?;
                self.lanewise(inst, |_, i, dst| Inst::FNeg { ty, src: a[i], dst })
            }
            O::LLVMICmp => {
                let l = self.op(inst, 0)?;
                let s = self.shape(l.ty())?;
                let a = self.lanes_of(l, s.lanes)?;
                let b = self.lanes_of(self.op(inst, 1)?, s.lanes)?;
                let pred = int_predicate(inst.icmp_predicate());
                self.lanewise(inst, |_, i, dst| Inst::ICmp {
                    pred,
                    width: s.width,
                    lhs: a[i],
                    rhs: b[i],
                    dst,
                })
            }
            O::LLVMFCmp => {
                let l = self.op(inst, 0)?;
                let (s, ty) = self.float_shape(l.ty())?;
                let a = self.lanes_of(l, s.lanes)?;
                let b = self.lanes_of(self.op(inst, 1)?, s.lanes)?;
                let pred = float_predicate(inst.fcmp_predicate());
                self.lanewise(inst, |_, i, dst| Inst::FCmp {
                    pred,
                    ty,
                    lhs: a[i],
                    rhs: b[i],
                    dst,
                })
            }
            O::LLVMTrunc | O::LLVMZExt | O::LLVMSExt => {
                let op = int_cast(opcode).ok_or("integer cast")?;
                self.lane_cast(inst, op)
            }
            O::LLVMPtrToInt | O::LLVMIntToPtr | O::LLVMAddrSpaceCast | O::LLVMFreeze => {
                self.lane_cast(inst, CastOp::Bits)
            }
            O::LLVMBitCast => self.bitcast(inst),
            O::LLVMFPToSI
            | O::LLVMFPToUI
            | O::LLVMSIToFP
            | O::LLVMUIToFP
            | O::LLVMFPTrunc
            | O::LLVMFPExt => self.lane_fcast(inst),
            O::LLVMSelect => {
                let s = self.shape(inst.ty())?;
                let c = self.lanes_or_splat(self.op(inst, 0)?, s.lanes)?;
                let a = self.lanes_of(self.op(inst, 1)?, s.lanes)?;
                let b = self.lanes_of(self.op(inst, 2)?, s.lanes)?;
                self.lanewise(inst, |_, i, dst| Inst::Select {
                    width: s.width,
                    cond: c[i],
                    then_val: a[i],
                    else_val: b[i],
                    dst,
                })
            }
            O::LLVMPHI => self.phi(inst),
            O::LLVMExtractElement => self.extract_element(inst),
            O::LLVMInsertElement => self.insert_element(inst),
            O::LLVMShuffleVector => self.shuffle(inst),
            O::LLVMLoad => self.load(inst),
            O::LLVMStore => self.store(inst),
            O::LLVMGetElementPtr => self.vector_gep(inst),
            O::LLVMExtractValue => self.extract_vector_value(inst),
            O::LLVMInsertValue => self.insert_vector_value(inst),
            O::LLVMCall => self.call(inst),
            O::LLVMRet => {
                let v = self.op(inst, 0)?;
                let value = self.pack(v, "return value")?;
                self.out.push(Inst::Ret { value: Some(value) });
                Ok(())
            }
            _ => Err("vector operands".to_string()),
        }
    }

    /// The shape of a vector of floats, with its float format.
    fn float_shape(&self, ty: Ty) -> Result<(Shape, FloatTy), String> {
        let s = self.shape(ty)?;
        let f = s
            .float
            .ok_or_else(|| format!("vector type `{}` of non-floats", ty.print()))?;
        Ok((s, f))
    }

    fn lane_cast(&mut self, inst: Val, op: CastOp) -> Result<(), String> {
        let src = self.op(inst, 0)?;
        let (from, to) = (self.shape(src.ty())?, self.shape(inst.ty())?);
        let a = self.lanes_of(src, to.lanes)?;
        self.lanewise(inst, |_, i, dst| Inst::Cast {
            op,
            from: from.width,
            to: to.width,
            src: a[i],
            dst,
        })
    }

    fn lane_fcast(&mut self, inst: Val) -> Result<(), String> {
        let src = self.op(inst, 0)?;
        let (from, to) = (self.shape(src.ty())?, self.shape(inst.ty())?);
        let float_of = |s: Shape| {
            s.float
                .ok_or_else(|| format!("conversion of `{}`", describe(inst)))
        };
        // The float side is the source of a float-to-int conversion and
        // the result of an int-to-float one, as in the scalar lowering.
        let (op, float, to_float, int_width) = match inst.opcode() {
            O::LLVMFPToSI => (
                FCastOp::ToSigned,
                float_of(from)?,
                float_of(from)?,
                to.width,
            ),
            O::LLVMFPToUI => (
                FCastOp::ToUnsigned,
                float_of(from)?,
                float_of(from)?,
                to.width,
            ),
            O::LLVMSIToFP => (
                FCastOp::FromSigned,
                float_of(to)?,
                float_of(to)?,
                from.width,
            ),
            O::LLVMUIToFP => (
                FCastOp::FromUnsigned,
                float_of(to)?,
                float_of(to)?,
                from.width,
            ),
            _ => (FCastOp::Resize, float_of(from)?, float_of(to)?, 0),
        };
        let a = self.lanes_of(src, to.lanes)?;
        self.lanewise(inst, |_, i, dst| Inst::FCast {
            op,
            float,
            to_float,
            int_width,
            src: a[i],
            dst,
        })
    }

    fn phi(&mut self, inst: Val) -> Result<(), String> {
        let s = self.shape(inst.ty())?;
        let widths = vec![s.width; s.lanes as usize];
        self.phi_pieces(inst, &widths, |l, v| l.lanes_of(v, s.lanes))
    }

    /// A phi per piece of `inst`'s result (a vector's lanes, a wide
    /// integer's limbs, of `widths`), each taking that piece of every
    /// incoming value, as `pieces_of` splits it.
    pub(super) fn phi_pieces(
        &mut self,
        inst: Val,
        widths: &[u32],
        mut pieces_of: impl FnMut(&mut Self, Val) -> Result<Vec<Operand>, String>,
    ) -> Result<(), String> {
        let mut incoming = vec![Vec::new(); widths.len()];
        for k in 0..inst.count_incoming() {
            let (v, b) = inst.incoming(k).ok_or("malformed phi")?;
            let block = self.block(Some(b))?;
            for (piece, op) in incoming.iter_mut().zip(pieces_of(self, v)?) {
                piece.push((block, op));
            }
        }
        let dsts = self.dst_lanes(inst)?;
        for ((dst, &width), incoming) in dsts.into_iter().zip(widths).zip(incoming) {
            self.out.push(Inst::Phi {
                width,
                dst,
                incoming,
            });
        }
        Ok(())
    }

    /// `icmp eq idx, k` in a new register, for a lane chosen by a variable
    /// index; `None` where `idx` cannot hold `k`.
    fn index_is(&mut self, idx: Operand, idx_width: u32, k: u32) -> Option<Operand> {
        if idx_width < 32 && u64::from(k) >> idx_width != 0 {
            return None;
        }
        let rhs = Operand::Const(self.cx.int(idx_width, u128::from(k)));
        let cond = self.new_reg(1);
        self.out.push(Inst::ICmp {
            pred: IntPredicate::Eq,
            width: idx_width,
            lhs: idx,
            rhs,
            dst: cond,
        });
        Some(Operand::Reg(cond))
    }

    /// `extractelement v, idx`: the lane itself for a constant index, a
    /// chain of selects on `idx == k` for a variable one (where an index
    /// past the end, poison in LLVM, reads lane 0).
    fn extract_element(&mut self, inst: Val) -> Result<(), String> {
        let (v, i) = (self.op(inst, 0)?, self.op(inst, 1)?);
        let s = self.shape(v.ty())?;
        let lanes = self.lanes_of(v, s.lanes)?;
        let dst = self.dst(inst)?;
        if let Some(k) = i.const_int_bits() {
            let lane = match usize::try_from(k).ok().and_then(|k| lanes.get(k)) {
                Some(&lane) => lane,
                None => Operand::Const(self.cx.intern(crate::ir::Const::Undef { width: s.width })),
            };
            self.copy(s.width, lane, dst);
            return Ok(());
        }
        let idx_width = self.width(i)?;
        let idx = self.operand(i)?;
        let mut picks = Vec::new();
        for (k, &lane) in lanes.iter().enumerate().skip(1) {
            if let Some(cond) = self.index_is(idx, idx_width, k as u32) {
                picks.push((cond, lane));
            }
        }
        self.fold_into(dst, s.width, lanes[0], picks, |_, acc, (cond, lane), d| {
            Inst::Select {
                width: s.width,
                cond,
                then_val: lane,
                else_val: acc,
                dst: d,
            }
        });
        Ok(())
    }

    /// `insertelement v, x, idx`: the lanes of `v` with lane `idx` replaced
    /// (by a select on `idx == k` in each lane for a variable index; an
    /// index past the end, poison in LLVM, replaces none).
    fn insert_element(&mut self, inst: Val) -> Result<(), String> {
        let (v, x, i) = (self.op(inst, 0)?, self.op(inst, 1)?, self.op(inst, 2)?);
        let s = self.shape(inst.ty())?;
        let lanes = self.lanes_of(v, s.lanes)?;
        let elem = self.operand(x)?;
        if let Some(k) = i.const_int_bits() {
            return self.lanewise(inst, |_, j, dst| {
                copy_of(s.width, if j as u128 == k { elem } else { lanes[j] }, dst)
            });
        }
        let idx_width = self.width(i)?;
        let idx = self.operand(i)?;
        for (k, dst) in self.dst_lanes(inst)?.into_iter().enumerate() {
            match self.index_is(idx, idx_width, k as u32) {
                Some(cond) => self.out.push(Inst::Select {
                    width: s.width,
                    cond,
                    then_val: elem,
                    else_val: lanes[k],
                    dst,
                }),
                None => self.copy(s.width, lanes[k], dst),
            }
        }
        Ok(())
    }

    /// `shufflevector a, b, mask`: each result lane a copy of the lane of
    /// `a` and `b` side by side the mask names (zero where it is undefined).
    fn shuffle(&mut self, inst: Val) -> Result<(), String> {
        let (a, b) = (self.op(inst, 0)?, self.op(inst, 1)?);
        let s = self.shape(a.ty())?;
        let mut both = self.lanes_of(a, s.lanes)?;
        both.extend(self.lanes_of(b, s.lanes)?);
        let undef = Operand::Const(self.cx.intern(crate::ir::Const::Undef { width: s.width }));
        let mask = inst.shuffle_mask();
        if mask.len() != self.dst_lanes(inst)?.len() {
            return Err("malformed shufflevector mask".to_string());
        }
        self.lanewise(inst, |_, i, dst| {
            let src = mask[i].and_then(|m| both.get(m as usize).copied());
            copy_of(s.width, src.unwrap_or(undef), dst)
        })
    }

    /// The byte distance of consecutive lanes of `ty` in memory, and the
    /// bytes one lane's access takes.
    fn lane_stride(&self, ty: Ty, s: Shape) -> Result<(u64, u32), String> {
        let bits = self.cx.layout.bits(s.elem).unwrap_or(0);
        if bits == 0 || !bits.is_multiple_of(8) {
            return Err(format!(
                "vector of sub-byte lanes `{}` in memory",
                ty.print()
            ));
        }
        let bytes = self.cx.layout.store_size(s.elem).unwrap_or(0);
        let bytes = u32::try_from(bytes).map_err(|_| "access size".to_string())?;
        Ok((bits / 8, bytes))
    }

    /// The address of lane `i` of a vector at `base`, `stride` bytes apart.
    fn lane_address(&mut self, base: Operand, i: u64, stride: u64) -> Result<Operand, String> {
        if i == 0 {
            return Ok(base);
        }
        let offset = i64::try_from(i * stride).map_err(|_| "vector too large".to_string())?;
        let dst = self.new_reg(crate::ir::layout::PTR_BITS);
        self.out.push(Inst::Gep {
            dst,
            base,
            offset,
            indices: Vec::new(),
        });
        Ok(Operand::Reg(dst))
    }

    /// Loads a value held in pieces (a vector's lanes, a wide integer's
    /// limbs): piece `i`, `width` bits in `bytes`, from `base + i * stride`
    /// into its register, each load with its choice site.
    pub(super) fn load_pieces(
        &mut self,
        base: Operand,
        stride: u64,
        pieces: impl IntoIterator<Item = (Reg, u32, u32)>,
    ) -> Result<(), String> {
        for (i, (dst, width, bytes)) in pieces.into_iter().enumerate() {
            let addr = self.lane_address(base, i as u64, stride)?;
            let site = self.site();
            self.out.push(Inst::Load {
                dst,
                addr,
                width,
                bytes,
                site,
            });
        }
        Ok(())
    }

    /// Stores a value held in pieces, as [`Self::load_pieces`] loads one.
    pub(super) fn store_pieces(
        &mut self,
        base: Operand,
        stride: u64,
        pieces: impl IntoIterator<Item = (Operand, u32, u32)>,
    ) -> Result<(), String> {
        for (i, (value, width, bytes)) in pieces.into_iter().enumerate() {
            let addr = self.lane_address(base, i as u64, stride)?;
            let site = self.site();
            self.out.push(Inst::Store {
                value,
                addr,
                width,
                bytes,
                site,
            });
        }
        Ok(())
    }

    /// A vector load: one load per lane, each with its choice site.
    fn load(&mut self, inst: Val) -> Result<(), String> {
        let a = self.op(inst, 0)?;
        self.pointer(a)?;
        let s = self.shape(inst.ty())?;
        let (stride, bytes) = self.lane_stride(inst.ty(), s)?;
        let base = self.operand(a)?;
        let lanes = self.dst_lanes(inst)?;
        self.load_pieces(base, stride, lanes.into_iter().map(|d| (d, s.width, bytes)))
    }

    /// A vector store: one store per lane, each with its choice site.
    fn store(&mut self, inst: Val) -> Result<(), String> {
        let (v, a) = (self.op(inst, 0)?, self.op(inst, 1)?);
        self.pointer(a)?;
        let s = self.shape(v.ty())?;
        let (stride, bytes) = self.lane_stride(v.ty(), s)?;
        let lanes = self.lanes_of(v, s.lanes)?;
        let base = self.operand(a)?;
        self.store_pieces(base, stride, lanes.into_iter().map(|v| (v, s.width, bytes)))
    }

    /// A getelementptr over vectors of pointers or of indices: one scalar
    /// getelementptr per lane, over that lane's base and indices.
    fn vector_gep(&mut self, inst: Val) -> Result<(), String> {
        let s = self.shape(inst.ty())?;
        let b = self.op(inst, 0)?;
        let bases = self.lanes_or_splat(b, s.lanes)?;
        let idx: Vec<Val> = (1..inst.num_operands())
            .filter_map(|i| inst.operand(i))
            .collect();
        for (lane, dst) in self.dst_lanes(inst)?.into_iter().enumerate() {
            // A constant vector index is this lane's constant, so struct
            // fields and constant offsets fold as in a scalar getelementptr.
            let mut lane_idx = Vec::with_capacity(idx.len());
            for &v in &idx {
                let e = if is_vector(v.ty()) && v.is_constant() {
                    let ety = v.ty().element().ok_or("malformed vector type")?;
                    self.cx
                        .element(v, ety, lane as u32)
                        .ok_or_else(|| format!("getelementptr index `{}`", describe(v)))?
                } else {
                    v
                };
                lane_idx.push(e);
            }
            let plan = self.cx.layout.gep_plan(inst.gep_source_type(), &lane_idx)?;
            let mut indices = Vec::with_capacity(plan.vars.len());
            for (v, scale) in plan.vars {
                let (value, width) = if is_vector(v.ty()) {
                    let vs = self.shape(v.ty())?;
                    (self.lanes_of(v, s.lanes)?[lane], vs.width)
                } else {
                    (self.operand(v)?, self.width(v)?)
                };
                indices.push(crate::ir::GepIndex {
                    value,
                    width,
                    scale,
                });
            }
            self.out.push(Inst::Gep {
                dst,
                base: bases[lane],
                offset: plan.offset,
                indices,
            });
        }
        Ok(())
    }

    /// `extractvalue` of a vector field of an aggregate (a struct of three
    /// floats returned as `{ <2 x float>, float }`): each lane read from
    /// where memory would hold it.
    fn extract_vector_value(&mut self, inst: Val) -> Result<(), String> {
        let a = self.op(inst, 0)?;
        self.width(a)?;
        let (offset, _) = self.cx.layout.aggregate_offset(a.ty(), &inst.indices())?;
        let s = self.shape(inst.ty())?;
        let agg = self.operand(a)?;
        self.lanewise(inst, |_, i, dst| Inst::ExtractValue {
            dst,
            agg,
            offset: offset + i as u32 * s.width,
            width: s.width,
        })
    }

    /// `insertvalue` of a vector into an aggregate: one insertion per lane.
    fn insert_vector_value(&mut self, inst: Val) -> Result<(), String> {
        let (a, e) = (self.op(inst, 0)?, self.op(inst, 1)?);
        let agg_width = self.width(inst)?;
        let (offset, _) = self
            .cx
            .layout
            .aggregate_offset(inst.ty(), &inst.indices())?;
        let s = self.shape(e.ty())?;
        let lanes = self.lanes_of(e, s.lanes)?;
        let dst = self.dst(inst)?;
        let agg = self.operand(a)?;
        let steps: Vec<(u32, Operand)> = (0..).zip(lanes).collect();
        self.fold_into(dst, agg_width, agg, steps, |_, agg, (i, elem), d| {
            Inst::InsertValue {
                dst: d,
                agg,
                agg_width,
                elem,
                offset: offset + i * s.width,
                width: s.width,
            }
        });
        Ok(())
    }

    /// `bitcast` to or from a vector: lane-wise between vectors of one
    /// shape, else the bits regrouped (lane 0 lowest, as in memory).
    fn bitcast(&mut self, inst: Val) -> Result<(), String> {
        let src = self.op(inst, 0)?;
        let from = self.pieces_of(src)?;
        let to: Vec<(Reg, u32)> = if is_vector(inst.ty()) {
            let s = self.shape(inst.ty())?;
            self.dst_lanes(inst)?
                .into_iter()
                .map(|r| (r, s.width))
                .collect()
        } else {
            vec![(self.dst(inst)?, self.width(inst)?)]
        };
        let total = |w: &mut dyn Iterator<Item = u32>| w.map(u64::from).sum::<u64>();
        if total(&mut from.iter().map(|p| p.1)) != total(&mut to.iter().map(|p| p.1)) {
            return Err(format!("bitcast between sizes in `{}`", describe(inst)));
        }
        self.regroup(&from, &to);
        Ok(())
    }

    /// The lanes of `v` with their widths, or `v` alone for a scalar.
    pub(super) fn pieces_of(&mut self, v: Val) -> Result<Vec<(Operand, u32)>, String> {
        if is_vector(v.ty()) {
            let s = self.shape(v.ty())?;
            Ok(self
                .lanes_of(v, s.lanes)?
                .into_iter()
                .map(|o| (o, s.width))
                .collect())
        } else {
            Ok(vec![(self.operand(v)?, self.width(v)?)])
        }
    }

    /// Moves the bits of `from` into `to`, both lists of pieces lowest bits
    /// first: each piece of `to` is copied from the one piece of `from` it
    /// matches, read out of the one that holds it, or assembled from the
    /// parts of several; bits no piece of `from` covers are zero.
    pub(super) fn regroup(&mut self, from: &[(Operand, u32)], to: &[(Reg, u32)]) {
        let mut starts = Vec::with_capacity(from.len());
        let mut at = 0u32;
        for &(_, w) in from {
            starts.push(at);
            at += w;
        }
        let mut lo = 0u32;
        for &(dst, dw) in to {
            let hi = lo + dw;
            // (source, bit offset in it, bit offset in dst, width)
            let mut parts = Vec::new();
            for (&(src, sw), &slo) in from.iter().zip(&starts) {
                let (a, b) = (lo.max(slo), hi.min(slo + sw));
                if a < b {
                    parts.push((src, sw, a - slo, a - lo, b - a));
                }
            }
            match parts[..] {
                [(src, sw, 0, 0, w)] if w == dw && sw == dw => self.copy(dw, src, dst),
                [(src, _, at, 0, w)] if w == dw => self.out.push(Inst::ExtractValue {
                    dst,
                    agg: src,
                    offset: at,
                    width: w,
                }),
                _ => {
                    let zero = Operand::Const(self.cx.int(dw, 0));
                    self.fold_into(
                        dst,
                        dw,
                        zero,
                        parts,
                        |l, acc, (src, sw, at, to_at, w), d| {
                            let elem = if w == sw {
                                src
                            } else {
                                let t = l.new_reg(w);
                                l.out.push(Inst::ExtractValue {
                                    dst: t,
                                    agg: src,
                                    offset: at,
                                    width: w,
                                });
                                Operand::Reg(t)
                            };
                            Inst::InsertValue {
                                dst: d,
                                agg: acc,
                                agg_width: dw,
                                elem,
                                offset: to_at,
                                width: w,
                            }
                        },
                    );
                }
            }
            lo = hi;
        }
    }
}
