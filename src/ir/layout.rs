//! Type sizes, widths and offsets from the module's data layout.

use super::ffi::{TargetData, Ty, Val};
use super::FloatTy;
use inkwell::llvm_sys::LLVMTypeKind as K;

/// Pointers are 64-bit integers in mnemo (x86_64).
pub(super) const PTR_BITS: u32 = 64;

/// Largest value a register can hold, in bits.
pub(super) const MAX_WIDTH: u32 = 128;

/// One step of a `getelementptr`, after constant indices are folded.
pub(super) struct GepPlan {
    /// Sum of the constant indices times their scales.
    pub offset: i64,
    /// Variable indices with their scales (element alloc sizes); a vector
    /// one (of a getelementptr over vectors) stands for one index per lane.
    pub vars: Vec<(Val, u64)>,
}

/// The data layout of the module being loaded.
pub(super) struct Layout {
    td: TargetData,
}

impl Layout {
    pub fn new(layout_string: &str) -> Layout {
        Layout {
            td: TargetData::new(layout_string),
        }
    }

    /// Alloc size in bytes (`None` for unsized types such as opaque structs).
    pub fn alloc_size(&self, ty: Ty) -> Option<u64> {
        ty.is_sized().then(|| self.td.alloc_size(ty))
    }

    pub fn store_size(&self, ty: Ty) -> Option<u64> {
        ty.is_sized().then(|| self.td.store_size(ty))
    }

    pub fn bits(&self, ty: Ty) -> Option<u64> {
        ty.is_sized().then(|| self.td.size_in_bits(ty))
    }

    /// Byte offset of field `i` of a sized struct type.
    pub fn field_offset(&self, struct_ty: Ty, i: u32) -> u64 {
        self.td.field_offset(struct_ty, i)
    }

    pub fn global_align(&self, g: Val) -> u32 {
        self.td.global_align(g)
    }

    /// The alignment the ABI gives a value of `ty` (callers check `is_sized`).
    pub fn abi_align(&self, ty: Ty) -> u32 {
        self.td.abi_align(ty)
    }

    /// The float format of `ty`, if mnemo computes with it.
    pub fn float_ty(&self, ty: Ty) -> Option<FloatTy> {
        match ty.kind() {
            K::LLVMFloatTypeKind => Some(FloatTy::F32),
            K::LLVMDoubleTypeKind => Some(FloatTy::F64),
            K::LLVMX86_FP80TypeKind => Some(FloatTy::F80),
            _ => None,
        }
    }

    /// Width in bits of a value of type `ty` in a register, or why mnemo
    /// cannot hold one. Aggregates are flattened to their alloc size.
    pub fn value_width(&self, ty: Ty) -> Result<u32, String> {
        match ty.kind() {
            K::LLVMIntegerTypeKind => {
                let w = ty.int_width();
                if w <= MAX_WIDTH {
                    Ok(w)
                } else {
                    Err(format!(
                        "integer type `{}` wider than {MAX_WIDTH} bits",
                        ty.print()
                    ))
                }
            }
            K::LLVMPointerTypeKind => Ok(PTR_BITS),
            K::LLVMFloatTypeKind => Ok(32),
            K::LLVMDoubleTypeKind => Ok(64),
            K::LLVMX86_FP80TypeKind => Ok(80),
            K::LLVMStructTypeKind | K::LLVMArrayTypeKind => match self.alloc_size(ty) {
                Some(n) if n * 8 <= u64::from(MAX_WIDTH) => Ok((n * 8) as u32),
                Some(n) => Err(format!(
                    "aggregate value of type `{}` ({n} bytes, more than {} bytes)",
                    ty.print(),
                    MAX_WIDTH / 8
                )),
                None => Err(format!("unsized type `{}`", ty.print())),
            },
            K::LLVMVectorTypeKind | K::LLVMScalableVectorTypeKind => {
                Err(format!("vector type `{}`", ty.print()))
            }
            K::LLVMHalfTypeKind
            | K::LLVMBFloatTypeKind
            | K::LLVMFP128TypeKind
            | K::LLVMPPC_FP128TypeKind => Err(format!("floating point type `{}`", ty.print())),
            _ => Err(format!("type `{}`", ty.print())),
        }
    }

    /// Width for a register or parameter whose type may be unsupported: the
    /// instructions producing or consuming such values are `Unsupported`, so
    /// this width is only descriptive (alloc size in bits, or 0 if unsized).
    pub fn lenient_width(&self, ty: Ty) -> u32 {
        match self.value_width(ty) {
            Ok(w) => w,
            Err(_) => self
                .alloc_size(ty)
                .map(|n| u32::try_from(n.saturating_mul(8)).unwrap_or(u32::MAX))
                .unwrap_or(0),
        }
    }

    /// Folds the indices of a `getelementptr` over `source` (its source element type).
    /// Struct field indices must be constant; constant array indices are folded.
    pub fn gep_plan(&self, source: Ty, indices: &[Val]) -> Result<GepPlan, String> {
        let mut plan = GepPlan {
            offset: 0,
            vars: Vec::new(),
        };
        let mut cur = source;
        for (n, &idx) in indices.iter().enumerate() {
            let elem = if n == 0 {
                cur
            } else {
                match cur.kind() {
                    K::LLVMStructTypeKind => {
                        let field = idx
                            .const_int_bits()
                            .ok_or("getelementptr with a non-constant struct field index")?;
                        let field = u32::try_from(field)
                            .map_err(|_| "getelementptr with an invalid struct field index")?;
                        let fty = cur
                            .struct_field(field)
                            .ok_or("getelementptr with an invalid struct field index")?;
                        if !cur.is_sized() {
                            return Err(format!(
                                "getelementptr into unsized type `{}`",
                                cur.print()
                            ));
                        }
                        let off = self.field_offset(cur, field) as i64;
                        plan.offset = plan.offset.wrapping_add(off);
                        cur = fty;
                        continue;
                    }
                    K::LLVMArrayTypeKind => cur
                        .element()
                        .ok_or("getelementptr over a malformed array type")?,
                    // Optimized code indexes a vector in memory as an array
                    // (a loop over `<4 x i32>` lanes); lanes that are not
                    // whole bytes are packed, which no stride describes.
                    K::LLVMVectorTypeKind => {
                        let lane = cur
                            .element()
                            .ok_or("getelementptr over a malformed vector type")?;
                        let bits = self.value_width(lane).ok();
                        let size = self.alloc_size(lane);
                        if bits.is_none_or(|b| b % 8 != 0 || size != Some(u64::from(b / 8))) {
                            return Err(format!(
                                "getelementptr into a vector of `{}`, whose lanes are not whole bytes",
                                lane.print()
                            ));
                        }
                        lane
                    }
                    K::LLVMScalableVectorTypeKind => {
                        return Err("getelementptr into a scalable vector".to_string())
                    }
                    _ => {
                        return Err(format!(
                            "getelementptr into non-aggregate type `{}`",
                            cur.print()
                        ))
                    }
                }
            };
            let scale = self
                .alloc_size(elem)
                .ok_or_else(|| format!("getelementptr over unsized type `{}`", elem.print()))?;
            match idx.const_int_bits() {
                Some(bits) => {
                    let k = sign_extend(bits, idx.ty().int_width());
                    plan.offset = plan.offset.wrapping_add(k.wrapping_mul(scale as i64));
                }
                None => {
                    // A vector index is left to the scalarized lowering,
                    // which reads each lane's index from its lanes.
                    if !matches!(
                        idx.ty().kind(),
                        K::LLVMIntegerTypeKind | K::LLVMVectorTypeKind
                    ) {
                        return Err(format!(
                            "getelementptr index of type `{}`",
                            idx.ty().print()
                        ));
                    }
                    if scale != 0 {
                        plan.vars.push((idx, scale));
                    }
                }
            }
            cur = elem;
        }
        Ok(plan)
    }

    /// Bit offset of the element `indices` names inside an aggregate of type `ty`,
    /// and the element's type (for `extractvalue`/`insertvalue`).
    pub fn aggregate_offset(&self, ty: Ty, indices: &[u32]) -> Result<(u32, Ty), String> {
        let mut bytes = 0u64;
        let mut cur = ty;
        for &i in indices {
            match cur.kind() {
                K::LLVMStructTypeKind => {
                    let f = cur.struct_field(i).ok_or("invalid aggregate index")?;
                    if !cur.is_sized() {
                        return Err(format!("unsized aggregate `{}`", cur.print()));
                    }
                    bytes += self.field_offset(cur, i);
                    cur = f;
                }
                K::LLVMArrayTypeKind => {
                    let e = cur.element().ok_or("invalid aggregate index")?;
                    let sz = self
                        .alloc_size(e)
                        .ok_or_else(|| format!("unsized element type `{}`", e.print()))?;
                    bytes += sz * u64::from(i);
                    cur = e;
                }
                _ => return Err(format!("aggregate index into `{}`", cur.print())),
            }
        }
        let bits =
            u32::try_from(bytes * 8).map_err(|_| "aggregate offset too large".to_string())?;
        Ok((bits, cur))
    }
}

/// Sign-extends the low `width` bits of `bits` to 64 bits (wider values are truncated).
pub(super) fn sign_extend(bits: u128, width: u32) -> i64 {
    if width == 0 {
        return 0;
    }
    if width >= 64 {
        return bits as u64 as i64;
    }
    let shift = 64 - width;
    (((bits as u64) << shift) as i64) >> shift
}

#[cfg(test)]
mod tests {
    use super::sign_extend;

    #[test]
    fn sign_extension_of_narrow_indices() {
        assert_eq!(sign_extend(0xff, 8), -1);
        assert_eq!(sign_extend(0x7f, 8), 127);
        assert_eq!(sign_extend(0xffff_ffff, 32), -1);
        assert_eq!(sign_extend(5, 64), 5);
        assert_eq!(sign_extend(1, 1), -1);
    }
}
