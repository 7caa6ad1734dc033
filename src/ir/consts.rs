//! The module-wide lowering context: the constant pool, the function and
//! global numbering, source files, and the lowering of LLVM constants
//! (operands, constant expressions, global initializers).

use super::ffi::{Ty, Val};
use super::layout::{Layout, MAX_WIDTH, PTR_BITS};
use super::{
    BinOp, BlockId, CastOp, Const, ConstId, FBinOp, FileId, FuncId, GlobalId, GlobalInit,
    IntPredicate, SourceLoc,
};
use inkwell::llvm_sys::{LLVMIntPredicate, LLVMOpcode, LLVMTypeKind as K, LLVMValueKind as VK};
use rustc_hash::FxHashMap;

/// Constant expressions deeper than this are refused rather than risking the stack.
const MAX_CONST_DEPTH: u32 = 200;

/// State shared by the lowering of every function and global of one module.
pub(super) struct Cx {
    pub layout: Layout,
    pub consts: Vec<Const>,
    const_index: FxHashMap<Const, ConstId>,
    value_cache: FxHashMap<Val, ConstId>,
    pub func_ids: FxHashMap<Val, FuncId>,
    pub global_ids: FxHashMap<Val, GlobalId>,
    pub files: Vec<String>,
    file_index: FxHashMap<String, FileId>,
}

/// Maps an LLVM integer opcode to mnemo's operation.
pub(super) fn bin_op(op: LLVMOpcode) -> Option<BinOp> {
    use LLVMOpcode as O;
    Some(match op {
        O::LLVMAdd => BinOp::Add,
        O::LLVMSub => BinOp::Sub,
        O::LLVMMul => BinOp::Mul,
        O::LLVMUDiv => BinOp::UDiv,
        O::LLVMSDiv => BinOp::SDiv,
        O::LLVMURem => BinOp::URem,
        O::LLVMSRem => BinOp::SRem,
        O::LLVMAnd => BinOp::And,
        O::LLVMOr => BinOp::Or,
        O::LLVMXor => BinOp::Xor,
        O::LLVMShl => BinOp::Shl,
        O::LLVMLShr => BinOp::LShr,
        O::LLVMAShr => BinOp::AShr,
        _ => return None,
    })
}

/// Maps an LLVM integer resize (`trunc`, `zext`, `sext`) to mnemo's cast.
pub(super) fn int_cast(op: LLVMOpcode) -> Option<CastOp> {
    use LLVMOpcode as O;
    Some(match op {
        O::LLVMTrunc => CastOp::Trunc,
        O::LLVMZExt => CastOp::ZExt,
        O::LLVMSExt => CastOp::SExt,
        _ => return None,
    })
}

/// Maps an LLVM floating-point opcode to mnemo's operation.
pub(super) fn float_op(op: LLVMOpcode) -> Option<FBinOp> {
    use LLVMOpcode as O;
    Some(match op {
        O::LLVMFAdd => FBinOp::Add,
        O::LLVMFSub => FBinOp::Sub,
        O::LLVMFMul => FBinOp::Mul,
        O::LLVMFDiv => FBinOp::Div,
        O::LLVMFRem => FBinOp::Rem,
        _ => return None,
    })
}

pub(super) fn int_predicate(p: LLVMIntPredicate) -> IntPredicate {
    use LLVMIntPredicate as P;
    match p {
        P::LLVMIntEQ => IntPredicate::Eq,
        P::LLVMIntNE => IntPredicate::Ne,
        P::LLVMIntUGT => IntPredicate::Ugt,
        P::LLVMIntUGE => IntPredicate::Uge,
        P::LLVMIntULT => IntPredicate::Ult,
        P::LLVMIntULE => IntPredicate::Ule,
        P::LLVMIntSGT => IntPredicate::Sgt,
        P::LLVMIntSGE => IntPredicate::Sge,
        P::LLVMIntSLT => IntPredicate::Slt,
        P::LLVMIntSLE => IntPredicate::Sle,
    }
}

/// A short description of a value for messages (a global's full text can be huge).
pub(super) fn describe(v: Val) -> String {
    let name = v.name();
    if !name.is_empty() {
        return if v.kind() == VK::LLVMInstructionValueKind || v.kind() == VK::LLVMArgumentValueKind
        {
            format!("%{name}")
        } else {
            format!("@{name}")
        };
    }
    let mut text = v.print();
    if text.len() > 80 {
        let mut cut = 80;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("...");
    }
    text.trim().to_string()
}

fn mask(bits: u128, width: u32) -> u128 {
    if width >= 128 {
        bits
    } else {
        bits & ((1u128 << width) - 1)
    }
}

impl Cx {
    pub fn new(layout: Layout) -> Cx {
        Cx {
            layout,
            consts: Vec::new(),
            const_index: FxHashMap::default(),
            value_cache: FxHashMap::default(),
            func_ids: FxHashMap::default(),
            global_ids: FxHashMap::default(),
            files: Vec::new(),
            file_index: FxHashMap::default(),
        }
    }

    /// Adds `c` to the pool unless an equal constant is already there.
    pub fn intern(&mut self, c: Const) -> ConstId {
        if let Some(&id) = self.const_index.get(&c) {
            return id;
        }
        let id = ConstId(self.consts.len() as u32);
        self.consts.push(c.clone());
        self.const_index.insert(c, id);
        id
    }

    pub fn int(&mut self, width: u32, bits: u128) -> ConstId {
        self.intern(Const::Int {
            width,
            bits: mask(bits, width),
        })
    }

    /// Lowers an LLVM constant (scalar, address, expression or small aggregate).
    pub fn constant(&mut self, v: Val) -> Result<ConstId, String> {
        self.constant_at(v, 0)
    }

    fn constant_at(&mut self, v: Val, depth: u32) -> Result<ConstId, String> {
        if let Some(&id) = self.value_cache.get(&v) {
            return Ok(id);
        }
        if depth > MAX_CONST_DEPTH {
            return Err("constant expression nested too deeply".to_string());
        }
        let id = self.build_constant(v, depth)?;
        self.value_cache.insert(v, id);
        Ok(id)
    }

    fn build_constant(&mut self, v: Val, depth: u32) -> Result<ConstId, String> {
        let ty = v.ty();
        match v.kind() {
            VK::LLVMConstantIntValueKind => {
                let width = self.layout.value_width(ty)?;
                let bits = v
                    .const_int_bits()
                    .ok_or_else(|| format!("integer constant `{}`", describe(v)))?;
                Ok(self.int(width, bits))
            }
            VK::LLVMConstantFPValueKind => {
                let width = match self.layout.float_ty(ty) {
                    Some(f) => f.width(),
                    None => {
                        return Err(format!("floating point constant of type `{}`", ty.print()))
                    }
                };
                let bits = v
                    .const_fp_bits(width)
                    .ok_or("malformed floating point constant")?;
                Ok(self.int(width, bits))
            }
            VK::LLVMConstantPointerNullValueKind => Ok(self.intern(Const::Null)),
            VK::LLVMUndefValueValueKind | VK::LLVMPoisonValueKind => {
                let width = self.layout.value_width(ty)?;
                Ok(self.intern(Const::Undef { width }))
            }
            VK::LLVMGlobalVariableValueKind => {
                let global = *self
                    .global_ids
                    .get(&v)
                    .ok_or("reference to an unknown global")?;
                Ok(self.intern(Const::GlobalAddr { global, offset: 0 }))
            }
            VK::LLVMFunctionValueKind => {
                let f = *self
                    .func_ids
                    .get(&v)
                    .ok_or("reference to an unknown function")?;
                Ok(self.intern(Const::FuncAddr(f)))
            }
            VK::LLVMGlobalAliasValueKind => {
                let target = v.aliasee().ok_or("alias without aliasee")?;
                self.constant_at(target, depth + 1)
            }
            VK::LLVMConstantExprValueKind => self.const_expr(v, depth),
            VK::LLVMConstantStructValueKind
            | VK::LLVMConstantArrayValueKind
            | VK::LLVMConstantDataArrayValueKind
            | VK::LLVMConstantAggregateZeroValueKind => match ty.kind() {
                K::LLVMStructTypeKind | K::LLVMArrayTypeKind => self.aggregate(v, ty, depth),
                _ => Err(format!("constant of type `{}`", ty.print())),
            },
            // A vector lives in one register per lane: see `vector_lanes`.
            VK::LLVMConstantVectorValueKind | VK::LLVMConstantDataVectorValueKind => {
                Err(format!("vector constant of type `{}`", ty.print()))
            }
            VK::LLVMBlockAddressValueKind => {
                let fv = v.operand(0).ok_or("malformed blockaddress")?;
                let func = *self
                    .func_ids
                    .get(&fv)
                    .ok_or("blockaddress in an unknown function")?;
                let bb = v.operand_block(1).ok_or("malformed blockaddress")?;
                // Blocks are numbered in the function's order (`lower`).
                let block = fv
                    .basic_blocks()
                    .iter()
                    .position(|&b| b == bb)
                    .ok_or("blockaddress of a block outside its function")?;
                Ok(self.intern(Const::BlockAddr {
                    func,
                    block: BlockId(block as u32),
                }))
            }
            _ => Err(format!("constant `{}`", describe(v))),
        }
    }

    fn const_expr(&mut self, v: Val, depth: u32) -> Result<ConstId, String> {
        use LLVMOpcode as O;
        let ty = v.ty();
        let op = |i: u32| {
            v.operand(i)
                .ok_or_else(|| format!("malformed constant expression `{}`", describe(v)))
        };
        let opcode = v.const_opcode();
        match opcode {
            O::LLVMGetElementPtr => {
                let base = op(0)?;
                if base.ty().kind() != K::LLVMPointerTypeKind {
                    return Err("constant getelementptr over a vector of pointers".to_string());
                }
                let indices: Vec<Val> =
                    (1..v.num_operands()).filter_map(|i| v.operand(i)).collect();
                let plan = self.layout.gep_plan(v.gep_source_type(), &indices)?;
                if !plan.vars.is_empty() {
                    return Err(format!(
                        "constant getelementptr with a non-integer index `{}`",
                        describe(v)
                    ));
                }
                let base = self.constant_at(base, depth + 1)?;
                Ok(self.offset_address(base, plan.offset))
            }
            O::LLVMBitCast | O::LLVMAddrSpaceCast | O::LLVMPtrToInt | O::LLVMIntToPtr => {
                let src = op(0)?;
                let from = self.layout.value_width(src.ty())?;
                let to = self.layout.value_width(ty)?;
                let inner = self.constant_at(src, depth + 1)?;
                if from == to {
                    Ok(inner)
                } else {
                    Ok(self.intern(Const::Cast {
                        op: CastOp::Bits,
                        to,
                        value: inner,
                    }))
                }
            }
            O::LLVMTrunc | O::LLVMZExt | O::LLVMSExt => {
                let cast = int_cast(opcode).ok_or("integer cast")?;
                let to = self.layout.value_width(ty)?;
                let inner = self.constant_at(op(0)?, depth + 1)?;
                Ok(self.intern(Const::Cast {
                    op: cast,
                    to,
                    value: inner,
                }))
            }
            O::LLVMICmp => {
                let (l, r) = (op(0)?, op(1)?);
                self.layout.value_width(l.ty())?;
                let lhs = self.constant_at(l, depth + 1)?;
                let rhs = self.constant_at(r, depth + 1)?;
                Ok(self.intern(Const::ICmp {
                    pred: int_predicate(v.icmp_predicate()),
                    lhs,
                    rhs,
                }))
            }
            O::LLVMSelect => {
                let cond = op(0)?;
                if cond.ty().int_width() != 1 {
                    return Err("constant select on a vector".to_string());
                }
                let cond = self.constant_at(cond, depth + 1)?;
                let then_val = self.constant_at(op(1)?, depth + 1)?;
                let else_val = self.constant_at(op(2)?, depth + 1)?;
                Ok(self.intern(Const::Select {
                    cond,
                    then_val,
                    else_val,
                }))
            }
            _ => match bin_op(opcode) {
                Some(bop) if ty.kind() == K::LLVMIntegerTypeKind => {
                    let width = self.layout.value_width(ty)?;
                    let lhs = self.constant_at(op(0)?, depth + 1)?;
                    let rhs = self.constant_at(op(1)?, depth + 1)?;
                    Ok(self.intern(Const::Binary {
                        op: bop,
                        width,
                        lhs,
                        rhs,
                    }))
                }
                _ => Err(format!("constant expression `{}`", describe(v))),
            },
        }
    }

    /// `base + offset` for a constant pointer, folded into the global address when possible.
    fn offset_address(&mut self, base: ConstId, offset: i64) -> ConstId {
        if offset == 0 {
            return base;
        }
        match self.consts[base.index()] {
            Const::GlobalAddr { global, offset: o } => self.intern(Const::GlobalAddr {
                global,
                offset: o.wrapping_add(offset),
            }),
            Const::Null => self.int(PTR_BITS, u128::from(offset as u64)),
            _ => {
                let k = self.int(PTR_BITS, u128::from(offset as u64));
                self.intern(Const::Binary {
                    op: BinOp::Add,
                    width: PTR_BITS,
                    lhs: base,
                    rhs: k,
                })
            }
        }
    }

    /// The pool entry of each lane of a vector constant (a literal,
    /// `zeroinitializer`, `undef`, `poison`), in lane order: a vector lives
    /// in one register per lane, so its constant is one constant per lane.
    pub fn vector_lanes(&mut self, v: Val) -> Result<Vec<ConstId>, String> {
        let ty = v.ty();
        let ety = ty
            .element()
            .ok_or_else(|| format!("constant of type `{}`", ty.print()))?;
        if v.kind() == VK::LLVMConstantExprValueKind {
            return Err(format!("vector constant expression `{}`", describe(v)));
        }
        (0..ty.vector_len())
            .map(|i| {
                let e = self
                    .element(v, ety, i)
                    .ok_or_else(|| format!("vector constant `{}`", describe(v)))?;
                self.constant(e)
            })
            .collect()
    }

    /// Element `i` of a constant aggregate or vector of type `ty` (the element type `ety`).
    pub fn element(&self, v: Val, ety: Ty, i: u32) -> Option<Val> {
        match v.kind() {
            VK::LLVMConstantStructValueKind
            | VK::LLVMConstantArrayValueKind
            | VK::LLVMConstantVectorValueKind => v.operand(i),
            VK::LLVMConstantDataArrayValueKind | VK::LLVMConstantDataVectorValueKind => {
                v.data_element(i)
            }
            VK::LLVMConstantAggregateZeroValueKind => Some(ety.null_value()),
            VK::LLVMUndefValueValueKind | VK::LLVMPoisonValueKind => Some(ety.undef_value()),
            _ => None,
        }
    }

    /// Flattens a first-class aggregate constant into `Const::Aggregate`.
    fn aggregate(&mut self, v: Val, ty: Ty, depth: u32) -> Result<ConstId, String> {
        let size = self
            .layout
            .alloc_size(ty)
            .ok_or("constant of unsized type")?;
        if size * 8 > u64::from(MAX_WIDTH) {
            return Err(format!(
                "aggregate constant of type `{}` ({size} bytes, more than {} bytes)",
                ty.print(),
                MAX_WIDTH / 8
            ));
        }
        let mut parts = Vec::new();
        self.flatten(v, ty, 0, &mut parts, depth)?;
        Ok(self.intern(Const::Aggregate {
            width: (size * 8) as u32,
            parts,
        }))
    }

    fn flatten(
        &mut self,
        v: Val,
        ty: Ty,
        bit_offset: u32,
        parts: &mut Vec<(u32, ConstId)>,
        depth: u32,
    ) -> Result<(), String> {
        if depth > MAX_CONST_DEPTH {
            return Err("constant aggregate nested too deeply".to_string());
        }
        match ty.kind() {
            K::LLVMStructTypeKind => {
                for i in 0..ty.struct_len() {
                    let fty = ty.struct_field(i).ok_or("malformed struct type")?;
                    let e = self
                        .element(v, fty, i)
                        .ok_or_else(|| format!("constant `{}`", describe(v)))?;
                    let off = bit_offset + (self.layout.field_offset(ty, i) * 8) as u32;
                    self.flatten(e, fty, off, parts, depth + 1)?;
                }
                Ok(())
            }
            // Array elements sit at their alloc size; a vector field's
            // lanes (`{ <2 x float>, float }`, a struct of three floats
            // returned by value) are packed at their bit size.
            K::LLVMArrayTypeKind | K::LLVMVectorTypeKind => {
                let ety = ty.element().ok_or("malformed array or vector type")?;
                let (len, stride) = if ty.kind() == K::LLVMArrayTypeKind {
                    let size = self.layout.alloc_size(ety).ok_or("array of unsized type")?;
                    (ty.array_len(), size * 8)
                } else {
                    let bits = self.layout.bits(ety).ok_or("vector of unsized type")?;
                    (ty.vector_len(), bits)
                };
                for i in 0..len {
                    let e = self
                        .element(v, ety, i)
                        .ok_or_else(|| format!("constant `{}`", describe(v)))?;
                    let off = bit_offset + (stride * u64::from(i)) as u32;
                    self.flatten(e, ety, off, parts, depth + 1)?;
                }
                Ok(())
            }
            _ => {
                let id = self.constant_at(v, depth + 1)?;
                parts.push((bit_offset, id));
                Ok(())
            }
        }
    }

    /// The byte image of a global's initializer of type `ty` (`size` bytes).
    pub fn global_init(&mut self, init: Val, ty: Ty, size: u64) -> Result<GlobalInit, String> {
        let len = usize::try_from(size).map_err(|_| "global too large".to_string())?;
        let mut image = GlobalInit {
            bytes: vec![0; len],
            relocs: Vec::new(),
        };
        self.write_const(init, ty, 0, &mut image, 0)?;
        Ok(image)
    }

    fn write_bytes(image: &mut GlobalInit, offset: u64, bits: u128, n: u64) -> Result<(), String> {
        let start = usize::try_from(offset).map_err(|_| "initializer offset too large")?;
        let n = n.min(16) as usize;
        let end = start.checked_add(n).ok_or("initializer offset too large")?;
        let dst = image
            .bytes
            .get_mut(start..end)
            .ok_or("initializer larger than its global")?;
        dst.copy_from_slice(&bits.to_le_bytes()[..n]);
        Ok(())
    }

    fn write_const(
        &mut self,
        v: Val,
        ty: Ty,
        offset: u64,
        image: &mut GlobalInit,
        depth: u32,
    ) -> Result<(), String> {
        if depth > MAX_CONST_DEPTH {
            return Err("initializer nested too deeply".to_string());
        }
        match v.kind() {
            VK::LLVMConstantAggregateZeroValueKind
            | VK::LLVMConstantPointerNullValueKind
            | VK::LLVMUndefValueValueKind
            | VK::LLVMPoisonValueKind => Ok(()),
            VK::LLVMConstantIntValueKind => {
                // Any width: a run of bitfields wider than 128 bits is one
                // integer, written a word at a time, the low word first.
                let words = v
                    .const_int_words()
                    .ok_or_else(|| format!("integer constant `{}`", describe(v)))?;
                let n = self.layout.store_size(ty).unwrap_or(0);
                for (at, word) in (0..n).step_by(8).zip(words) {
                    Self::write_bytes(image, offset + at, u128::from(word), (n - at).min(8))?;
                }
                Ok(())
            }
            VK::LLVMConstantFPValueKind => {
                let nbits = self.layout.bits(ty).unwrap_or(0);
                let bits = u32::try_from(nbits)
                    .ok()
                    .and_then(|b| v.const_fp_bits(b))
                    .ok_or_else(|| format!("floating point constant `{}`", describe(v)))?;
                let n = self.layout.store_size(ty).unwrap_or(0);
                Self::write_bytes(image, offset, bits, n)
            }
            VK::LLVMConstantDataArrayValueKind | VK::LLVMConstantDataVectorValueKind => {
                if let Some(s) = v.string_bytes() {
                    let start =
                        usize::try_from(offset).map_err(|_| "initializer offset too large")?;
                    let dst = start
                        .checked_add(s.len())
                        .and_then(|end| image.bytes.get_mut(start..end))
                        .ok_or("initializer larger than its global")?;
                    dst.copy_from_slice(&s);
                    return Ok(());
                }
                self.write_sequence(v, ty, offset, image, depth)
            }
            VK::LLVMConstantArrayValueKind | VK::LLVMConstantVectorValueKind => {
                self.write_sequence(v, ty, offset, image, depth)
            }
            VK::LLVMConstantStructValueKind => {
                for i in 0..ty.struct_len() {
                    let fty = ty.struct_field(i).ok_or("malformed struct type")?;
                    let e = v.operand(i).ok_or("malformed struct constant")?;
                    let off = offset + self.layout.field_offset(ty, i);
                    self.write_const(e, fty, off, image, depth + 1)?;
                }
                Ok(())
            }
            VK::LLVMGlobalVariableValueKind
            | VK::LLVMFunctionValueKind
            | VK::LLVMGlobalAliasValueKind
            | VK::LLVMBlockAddressValueKind
            | VK::LLVMConstantExprValueKind => {
                let id = self.constant(v)?;
                match self.consts[id.index()] {
                    Const::Int { bits, .. } => {
                        let n = self.layout.store_size(ty).unwrap_or(0);
                        Self::write_bytes(image, offset, bits, n)
                    }
                    _ => {
                        image.relocs.push((offset, id));
                        Ok(())
                    }
                }
            }
            _ => Err(format!(
                "unsupported constant `{}` in initializer",
                describe(v)
            )),
        }
    }

    /// Arrays and vectors: element `i` at `i * stride`.
    fn write_sequence(
        &mut self,
        v: Val,
        ty: Ty,
        offset: u64,
        image: &mut GlobalInit,
        depth: u32,
    ) -> Result<(), String> {
        let (ety, n) = match ty.kind() {
            K::LLVMArrayTypeKind => (ty.element(), ty.array_len()),
            K::LLVMVectorTypeKind => (ty.element(), ty.vector_len()),
            _ => (None, 0),
        };
        let ety = ety.ok_or_else(|| format!("constant `{}` of non-sequence type", describe(v)))?;
        let stride = if ty.kind() == K::LLVMVectorTypeKind {
            let bits = self.layout.bits(ety).unwrap_or(0);
            if !bits.is_multiple_of(8) {
                return Err(format!("vector of sub-byte elements `{}`", ty.print()));
            }
            bits / 8
        } else {
            self.layout.alloc_size(ety).ok_or("array of unsized type")?
        };
        for i in 0..n {
            let e = self
                .element(v, ety, i)
                .ok_or_else(|| format!("constant `{}`", describe(v)))?;
            self.write_const(e, ety, offset + stride * u64::from(i), image, depth + 1)?;
        }
        Ok(())
    }

    fn file_id(&mut self, dir: &str, file: &str) -> FileId {
        let path = if file.starts_with('/') || dir.is_empty() {
            file.to_string()
        } else {
            format!("{}/{}", dir.trim_end_matches('/'), file)
        };
        if let Some(&id) = self.file_index.get(&path) {
            return id;
        }
        let id = FileId(self.files.len() as u32);
        self.files.push(path.clone());
        self.file_index.insert(path, id);
        id
    }

    /// The debug location of an instruction.
    pub fn inst_loc(&mut self, inst: Val) -> Option<SourceLoc> {
        if !inst.has_debug_loc() {
            return None;
        }
        let (line, col, dir, file) = inst.debug_loc();
        Some(SourceLoc {
            file: self.file_id(&dir, &file),
            line,
            col,
        })
    }

    /// Where a function (its `DISubprogram`) or a global (its debug variable) is declared.
    pub fn decl_loc(&mut self, v: Val) -> Option<SourceLoc> {
        if v.kind() == VK::LLVMFunctionValueKind && !v.has_subprogram() {
            return None;
        }
        let (line, col, dir, file) = v.debug_loc();
        if file.is_empty() && line == 0 {
            return None;
        }
        Some(SourceLoc {
            file: self.file_id(&dir, &file),
            line,
            col,
        })
    }
}
