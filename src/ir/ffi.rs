//! Thin wrappers over the LLVM C API for the parts inkwell does not expose
//! (constant expressions, debug locations, GEP source types, struct layouts).
//!
//! Every wrapper holds a raw reference taken from the module being loaded.
//! They are private to `ir` and never outlive a `load_*` call, during which
//! the LLVM context and module stay alive; that is what makes the `unsafe`
//! calls below sound. Wrappers that may see a null reference return `Option`.

use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo as di;
use inkwell::llvm_sys::prelude::{LLVMBasicBlockRef, LLVMModuleRef, LLVMTypeRef, LLVMValueRef};
use inkwell::llvm_sys::target as t;
use inkwell::llvm_sys::{
    LLVMIntPredicate, LLVMLinkage, LLVMOpcode, LLVMRealPredicate, LLVMTypeKind, LLVMValueKind,
};
use std::ffi::{CStr, CString};

/// An LLVM value (instruction, argument, constant, global) of the module being loaded.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct Val(LLVMValueRef);

/// An LLVM type of the module being loaded.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct Ty(LLVMTypeRef);

/// An LLVM basic block of the module being loaded.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(super) struct Bb(LLVMBasicBlockRef);

fn val(v: LLVMValueRef) -> Option<Val> {
    if v.is_null() {
        None
    } else {
        Some(Val(v))
    }
}

/// Copies a (pointer, length) string LLVM lends us.
pub(super) fn lent_str(ptr: *const std::ffi::c_char, len: usize) -> String {
    if ptr.is_null() || len == 0 {
        return String::new();
    }
    // SAFETY: LLVM guarantees `len` readable bytes at `ptr` while the value lives.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Takes ownership of a message LLVM allocated and frees it.
fn owned_message(ptr: *mut std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: `ptr` is a NUL-terminated string allocated by LLVM, freed once here.
    unsafe {
        let s = CStr::from_ptr(ptr).to_string_lossy().into_owned();
        c::LLVMDisposeMessage(ptr);
        s
    }
}

/// The functions of a module, in module order.
pub(super) fn functions(m: LLVMModuleRef) -> Vec<Val> {
    let mut out = Vec::new();
    // SAFETY: `m` is the live module being loaded.
    let mut f = unsafe { c::LLVMGetFirstFunction(m) };
    while let Some(v) = val(f) {
        out.push(v);
        f = unsafe { c::LLVMGetNextFunction(f) };
    }
    out
}

/// The global variables of a module, in module order.
pub(super) fn globals(m: LLVMModuleRef) -> Vec<Val> {
    let mut out = Vec::new();
    // SAFETY: `m` is the live module being loaded.
    let mut g = unsafe { c::LLVMGetFirstGlobal(m) };
    while let Some(v) = val(g) {
        out.push(v);
        g = unsafe { c::LLVMGetNextGlobal(g) };
    }
    out
}

/// The global aliases of a module, in module order.
pub(super) fn aliases(m: LLVMModuleRef) -> Vec<Val> {
    let mut out = Vec::new();
    // SAFETY: `m` is the live module being loaded.
    let mut a = unsafe { c::LLVMGetFirstGlobalAlias(m) };
    while let Some(v) = val(a) {
        out.push(v);
        a = unsafe { c::LLVMGetNextGlobalAlias(a) };
    }
    out
}

/// The data layout string of a module.
pub(super) fn data_layout(m: LLVMModuleRef) -> String {
    // SAFETY: `m` is live; the returned string is owned by the module.
    unsafe {
        let p = c::LLVMGetDataLayoutStr(m);
        if p.is_null() {
            String::new()
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}

// SAFETY (for every method below): `self.0` comes from the live module being
// loaded (see the module documentation), and each C function is only called
// on the kind of value it is documented for, which the callers check first.
impl Val {
    pub fn kind(self) -> LLVMValueKind {
        unsafe { c::LLVMGetValueKind(self.0) }
    }

    pub fn ty(self) -> Ty {
        Ty(unsafe { c::LLVMTypeOf(self.0) })
    }

    pub fn name(self) -> String {
        let mut len = 0usize;
        let p = unsafe { c::LLVMGetValueName2(self.0, &mut len) };
        lent_str(p, len)
    }

    pub fn is_instruction(self) -> bool {
        self.kind() == LLVMValueKind::LLVMInstructionValueKind
    }

    pub fn is_constant(self) -> bool {
        unsafe { c::LLVMIsConstant(self.0) != 0 }
    }

    pub fn opcode(self) -> LLVMOpcode {
        unsafe { c::LLVMGetInstructionOpcode(self.0) }
    }

    pub fn const_opcode(self) -> LLVMOpcode {
        unsafe { c::LLVMGetConstOpcode(self.0) }
    }

    pub fn num_operands(self) -> u32 {
        let n = unsafe { c::LLVMGetNumOperands(self.0) };
        u32::try_from(n).unwrap_or(0)
    }

    pub fn operand(self, i: u32) -> Option<Val> {
        if i >= self.num_operands() {
            return None;
        }
        val(unsafe { c::LLVMGetOperand(self.0, i) })
    }

    /// The values that use this one as an operand (an instruction using it
    /// twice is listed twice).
    pub fn users(self) -> Vec<Val> {
        let mut users = Vec::new();
        let mut u = unsafe { c::LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            users.extend(val(unsafe { c::LLVMGetUser(u) }));
            u = unsafe { c::LLVMGetNextUse(u) };
        }
        users
    }

    pub fn operand_block(self, i: u32) -> Option<Bb> {
        let v = self.operand(i)?;
        if v.kind() != LLVMValueKind::LLVMBasicBlockValueKind {
            return None;
        }
        let b = unsafe { c::LLVMValueAsBasicBlock(v.0) };
        (!b.is_null()).then_some(Bb(b))
    }

    /// The bits of a `ConstantInt` of up to 128 bits, zero-extended.
    pub fn const_int_bits(self) -> Option<u128> {
        if self.ty().int_width() > 128 {
            return None;
        }
        let words = self.const_int_words()?;
        let word = |i: usize| u128::from(words.get(i).copied().unwrap_or(0));
        Some((word(1) << 64) | word(0))
    }

    /// The bits of a `ConstantInt` of any width in 64-bit words, the low
    /// word first.
    pub fn const_int_words(self) -> Option<Vec<u64>> {
        if self.kind() != LLVMValueKind::LLVMConstantIntValueKind {
            return None;
        }
        let ty = self.ty();
        let width = ty.int_width();
        if width <= 64 {
            return Some(vec![unsafe { c::LLVMConstIntGetZExtValue(self.0) }]);
        }
        // No C accessor returns more than 64 bits: let LLVM fold shifts and
        // truncations, which yield plain `ConstantInt`s again.
        let mut words = Vec::with_capacity(width.div_ceil(64) as usize);
        unsafe {
            let ctx = c::LLVMGetTypeContext(ty.0);
            let i64t = c::LLVMIntTypeInContext(ctx, 64);
            for i in 0..width.div_ceil(64) {
                let amount = c::LLVMConstInt(ty.0, u64::from(i) * 64, 0);
                let word = Val(c::LLVMConstTrunc(c::LLVMConstLShr(self.0, amount), i64t));
                if word.kind() != LLVMValueKind::LLVMConstantIntValueKind {
                    return None;
                }
                words.push(c::LLVMConstIntGetZExtValue(word.0));
            }
        }
        Some(words)
    }

    /// The bit pattern of a `ConstantFP` of `bits` bits (LLVM folds the bitcast).
    pub fn const_fp_bits(self, bits: u32) -> Option<u128> {
        if self.kind() != LLVMValueKind::LLVMConstantFPValueKind {
            return None;
        }
        unsafe {
            let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(self.0));
            let it = c::LLVMIntTypeInContext(ctx, bits);
            Val(c::LLVMConstBitCast(self.0, it)).const_int_bits()
        }
    }

    /// The operation of an `atomicrmw`.
    pub fn atomic_rmw_op(self) -> inkwell::llvm_sys::LLVMAtomicRMWBinOp {
        unsafe { c::LLVMGetAtomicRMWBinOp(self.0) }
    }

    pub fn alloca_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetAllocatedType(self.0) })
    }

    /// The source element type of a GEP instruction or constant expression.
    pub fn gep_source_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetGEPSourceElementType(self.0) })
    }

    /// The indices of an `extractvalue`/`insertvalue`.
    pub fn indices(self) -> Vec<u32> {
        unsafe {
            let n = c::LLVMGetNumIndices(self.0) as usize;
            let p = c::LLVMGetIndices(self.0);
            if p.is_null() || n == 0 {
                return Vec::new();
            }
            std::slice::from_raw_parts(p, n).to_vec()
        }
    }

    /// The mask of a `shufflevector`: for each result lane, the lane of the
    /// two inputs taken together it copies, or `None` where the mask is
    /// undefined.
    pub fn shuffle_mask(self) -> Vec<Option<u32>> {
        unsafe {
            let n = c::LLVMGetNumMaskElements(self.0);
            let undef = c::LLVMGetUndefMaskElem();
            (0..n)
                .map(|i| {
                    let m = c::LLVMGetMaskValue(self.0, i);
                    if m == undef {
                        None
                    } else {
                        u32::try_from(m).ok()
                    }
                })
                .collect()
        }
    }

    pub fn icmp_predicate(self) -> LLVMIntPredicate {
        unsafe { c::LLVMGetICmpPredicate(self.0) }
    }

    pub fn fcmp_predicate(self) -> LLVMRealPredicate {
        unsafe { c::LLVMGetFCmpPredicate(self.0) }
    }

    pub fn called_value(self) -> Option<Val> {
        val(unsafe { c::LLVMGetCalledValue(self.0) })
    }

    pub fn num_arg_operands(self) -> u32 {
        unsafe { c::LLVMGetNumArgOperands(self.0) }
    }

    /// The type a call passes its argument `i` by value as (`byval(T)`):
    /// the callee gets a copy of the `T` the pointer points at.
    pub fn byval_type(self, i: u32) -> Option<Ty> {
        let name = "byval";
        // SAFETY: `self` is a call instruction; attribute index 0 is the
        // return value, so argument `i` is at `i + 1`.
        unsafe {
            let kind = c::LLVMGetEnumAttributeKindForName(name.as_ptr().cast(), name.len());
            let attr = c::LLVMGetCallSiteEnumAttribute(self.0, i + 1, kind);
            if attr.is_null() {
                return None;
            }
            let ty = c::LLVMGetTypeAttributeValue(attr);
            (!ty.is_null()).then_some(Ty(ty))
        }
    }

    pub fn count_incoming(self) -> u32 {
        unsafe { c::LLVMCountIncoming(self.0) }
    }

    pub fn incoming(self, i: u32) -> Option<(Val, Bb)> {
        unsafe {
            let v = val(c::LLVMGetIncomingValue(self.0, i))?;
            let b = c::LLVMGetIncomingBlock(self.0, i);
            (!b.is_null()).then_some((v, Bb(b)))
        }
    }

    pub fn is_conditional(self) -> bool {
        unsafe { c::LLVMIsConditional(self.0) != 0 }
    }

    pub fn condition(self) -> Option<Val> {
        val(unsafe { c::LLVMGetCondition(self.0) })
    }

    pub fn num_successors(self) -> u32 {
        unsafe { c::LLVMGetNumSuccessors(self.0) }
    }

    pub fn successor(self, i: u32) -> Option<Bb> {
        if i >= self.num_successors() {
            return None;
        }
        let b = unsafe { c::LLVMGetSuccessor(self.0, i) };
        (!b.is_null()).then_some(Bb(b))
    }

    pub fn switch_default(self) -> Option<Bb> {
        let b = unsafe { c::LLVMGetSwitchDefaultDest(self.0) };
        (!b.is_null()).then_some(Bb(b))
    }

    pub fn alignment(self) -> u32 {
        unsafe { c::LLVMGetAlignment(self.0) }
    }

    pub fn initializer(self) -> Option<Val> {
        val(unsafe { c::LLVMGetInitializer(self.0) })
    }

    pub fn is_global_constant(self) -> bool {
        unsafe { c::LLVMIsGlobalConstant(self.0) != 0 }
    }

    pub fn is_thread_local(self) -> bool {
        unsafe { c::LLVMIsThreadLocal(self.0) != 0 }
    }

    pub fn is_declaration(self) -> bool {
        unsafe { c::LLVMIsDeclaration(self.0) != 0 }
    }

    pub fn global_value_type(self) -> Ty {
        Ty(unsafe { c::LLVMGlobalGetValueType(self.0) })
    }

    pub fn linkage(self) -> LLVMLinkage {
        unsafe { c::LLVMGetLinkage(self.0) }
    }

    pub fn aliasee(self) -> Option<Val> {
        val(unsafe { c::LLVMAliasGetAliasee(self.0) })
    }

    /// Element `i` of a `ConstantDataArray`/`ConstantDataVector`.
    pub fn data_element(self, i: u32) -> Option<Val> {
        val(unsafe { c::LLVMGetElementAsConstant(self.0, i) })
    }

    /// The raw bytes of a constant `i8` array (a C string literal).
    pub fn string_bytes(self) -> Option<Vec<u8>> {
        unsafe {
            if c::LLVMIsConstantString(self.0) == 0 {
                return None;
            }
            let mut len = 0usize;
            let p = c::LLVMGetAsString(self.0, &mut len);
            if p.is_null() {
                return Some(Vec::new());
            }
            Some(std::slice::from_raw_parts(p.cast::<u8>(), len).to_vec())
        }
    }

    pub fn params(self) -> Vec<Val> {
        let n = unsafe { c::LLVMCountParams(self.0) };
        (0..n)
            .filter_map(|i| val(unsafe { c::LLVMGetParam(self.0, i) }))
            .collect()
    }

    pub fn basic_blocks(self) -> Vec<Bb> {
        unsafe {
            let n = c::LLVMCountBasicBlocks(self.0) as usize;
            let mut out: Vec<LLVMBasicBlockRef> = vec![std::ptr::null_mut(); n];
            if n > 0 {
                c::LLVMGetBasicBlocks(self.0, out.as_mut_ptr());
            }
            out.into_iter().filter(|b| !b.is_null()).map(Bb).collect()
        }
    }

    /// The function type of a function (its value type).
    pub fn function_type(self) -> Ty {
        self.global_value_type()
    }

    pub fn has_subprogram(self) -> bool {
        unsafe { !di::LLVMGetSubprogram(self.0).is_null() }
    }

    pub fn has_debug_loc(self) -> bool {
        unsafe { !di::LLVMInstructionGetDebugLoc(self.0).is_null() }
    }

    /// Line, column, directory and file name of an instruction's location, or
    /// of a function's subprogram or a global's debug variable.
    pub fn debug_loc(self) -> (u32, u32, String, String) {
        super::debugloc::debug_loc(self)
    }

    /// The raw reference, for the few readers outside this file.
    pub(super) fn raw(self) -> LLVMValueRef {
        self.0
    }

    pub fn print(self) -> String {
        owned_message(unsafe { c::LLVMPrintValueToString(self.0) })
    }
}

impl Bb {
    pub fn instructions(self) -> Vec<Val> {
        let mut out = Vec::new();
        // SAFETY: `self.0` is a block of the live module being loaded.
        let mut i = unsafe { c::LLVMGetFirstInstruction(self.0) };
        while let Some(v) = val(i) {
            out.push(v);
            i = unsafe { c::LLVMGetNextInstruction(i) };
        }
        out
    }
}

// SAFETY: as for `Val`, the type comes from the live module's context.
impl Ty {
    pub fn kind(self) -> LLVMTypeKind {
        unsafe { c::LLVMGetTypeKind(self.0) }
    }

    pub fn int_width(self) -> u32 {
        if self.kind() != LLVMTypeKind::LLVMIntegerTypeKind {
            return 0;
        }
        unsafe { c::LLVMGetIntTypeWidth(self.0) }
    }

    pub fn is_sized(self) -> bool {
        unsafe { c::LLVMTypeIsSized(self.0) != 0 }
    }

    pub fn struct_len(self) -> u32 {
        unsafe { c::LLVMCountStructElementTypes(self.0) }
    }

    pub fn struct_field(self, i: u32) -> Option<Ty> {
        if i >= self.struct_len() {
            return None;
        }
        let t = unsafe { c::LLVMStructGetTypeAtIndex(self.0, i) };
        (!t.is_null()).then_some(Ty(t))
    }

    /// Element type of an array, vector or (typed) pointer.
    pub fn element(self) -> Option<Ty> {
        let t = unsafe { c::LLVMGetElementType(self.0) };
        (!t.is_null()).then_some(Ty(t))
    }

    pub fn array_len(self) -> u32 {
        unsafe { c::LLVMGetArrayLength(self.0) }
    }

    pub fn vector_len(self) -> u32 {
        unsafe { c::LLVMGetVectorSize(self.0) }
    }

    pub fn return_type(self) -> Ty {
        Ty(unsafe { c::LLVMGetReturnType(self.0) })
    }

    pub fn param_types(self) -> Vec<Ty> {
        unsafe {
            let n = c::LLVMCountParamTypes(self.0) as usize;
            let mut out: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); n];
            if n > 0 {
                c::LLVMGetParamTypes(self.0, out.as_mut_ptr());
            }
            out.into_iter().map(Ty).collect()
        }
    }

    pub fn is_vararg(self) -> bool {
        unsafe { c::LLVMIsFunctionVarArg(self.0) != 0 }
    }

    /// Zero of this type (for walking `zeroinitializer` element-wise).
    pub fn null_value(self) -> Val {
        Val(unsafe { c::LLVMConstNull(self.0) })
    }

    pub fn undef_value(self) -> Val {
        Val(unsafe { c::LLVMGetUndef(self.0) })
    }

    pub fn print(self) -> String {
        owned_message(unsafe { c::LLVMPrintTypeToString(self.0) })
    }
}

/// A target data layout owned by the loader, created from the module's
/// layout string and disposed on drop.
pub(super) struct TargetData(t::LLVMTargetDataRef);

impl TargetData {
    pub fn new(layout: &str) -> TargetData {
        // An interior NUL cannot come from a real layout string; fall back to
        // LLVM's default layout rather than failing.
        let s = CString::new(layout).unwrap_or_default();
        // SAFETY: `s` is a valid C string; the result is disposed in `drop`.
        TargetData(unsafe { t::LLVMCreateTargetData(s.as_ptr()) })
    }

    /// Size with tail padding, as arrays and allocas use it. Callers check `is_sized`.
    pub fn alloc_size(&self, ty: Ty) -> u64 {
        unsafe { t::LLVMABISizeOfType(self.0, ty.0) }
    }

    pub fn store_size(&self, ty: Ty) -> u64 {
        unsafe { t::LLVMStoreSizeOfType(self.0, ty.0) }
    }

    pub fn size_in_bits(&self, ty: Ty) -> u64 {
        unsafe { t::LLVMSizeOfTypeInBits(self.0, ty.0) }
    }

    pub fn field_offset(&self, struct_ty: Ty, i: u32) -> u64 {
        unsafe { t::LLVMOffsetOfElement(self.0, struct_ty.0, i) }
    }

    pub fn global_align(&self, g: Val) -> u32 {
        unsafe { t::LLVMPreferredAlignmentOfGlobal(self.0, g.0) }
    }

    pub fn abi_align(&self, ty: Ty) -> u32 {
        unsafe { t::LLVMABIAlignmentOfType(self.0, ty.0) }
    }
}

impl Drop for TargetData {
    fn drop(&mut self) {
        // SAFETY: created by `LLVMCreateTargetData` and disposed exactly once.
        unsafe { t::LLVMDisposeTargetData(self.0) }
    }
}
