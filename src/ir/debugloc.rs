//! Source locations from LLVM's debug information, read with every node's
//! kind checked before anything is read through it.
//!
//! LLVM 14's verifier leaves some operands of debug-info nodes unchecked
//! (the file of a lexical block, the two names of a file), and LLVM's own
//! accessors (`LLVMGetDebugLocDirectory` and the like) read them as what
//! they should be without looking: a few bytes changed in real bitcode
//! made them read a string as a file, or a node as a string, and crash the
//! process (found by the bitcode fuzz target). Here a node of the wrong
//! kind gives a location without a file (or no location), never a crash.

use super::ffi::{lent_str, Val};
use inkwell::llvm_sys::core as c;
use inkwell::llvm_sys::debuginfo::{self as di, LLVMMetadataKind as K};
use inkwell::llvm_sys::prelude::{LLVMContextRef, LLVMMetadataRef, LLVMValueRef};
use inkwell::llvm_sys::LLVMValueKind;

/// Line, column, directory and file name of an instruction's location, or
/// of a function's subprogram or a global's debug variable; zeros and empty
/// names where there is none.
pub(super) fn debug_loc(v: Val) -> (u32, u32, String, String) {
    let raw = v.raw();
    // SAFETY: `raw` is a value of the module being loaded, alive for the
    // whole call (see `ffi`); every metadata reference is checked for null
    // and for its kind before it is read through.
    unsafe {
        let (line, col, file) = if v.is_instruction() {
            let loc = di::LLVMInstructionGetDebugLoc(raw);
            if !is(loc, K::LLVMDILocationMetadataKind) {
                return (0, 0, String::new(), String::new());
            }
            // A location's scope is a local scope (the verifier checks it);
            // its file operand is whatever the bytes said.
            let scope = di::LLVMDILocationGetScope(loc);
            let file = if scope.is_null() {
                std::ptr::null_mut()
            } else {
                di::LLVMDIScopeGetFile(scope)
            };
            (
                di::LLVMDILocationGetLine(loc),
                di::LLVMDILocationGetColumn(loc),
                file,
            )
        } else if v.kind() == LLVMValueKind::LLVMFunctionValueKind {
            let sp = di::LLVMGetSubprogram(raw);
            if !is(sp, K::LLVMDISubprogramMetadataKind) {
                return (0, 0, String::new(), String::new());
            }
            (
                di::LLVMDISubprogramGetLine(sp),
                0,
                di::LLVMDIScopeGetFile(sp),
            )
        } else {
            let var = global_variable(raw);
            if var.is_null() {
                return (0, 0, String::new(), String::new());
            }
            (
                di::LLVMDIVariableGetLine(var),
                0,
                di::LLVMDIVariableGetFile(var),
            )
        };
        let (dir, name) = file_names(c::LLVMGetTypeContext(c::LLVMTypeOf(raw)), file);
        (line, col, dir, name)
    }
}

/// Whether `md` is a node of kind `kind` (false for null).
///
/// # Safety
/// `md` is null or metadata of a live context.
unsafe fn is(md: LLVMMetadataRef, kind: K) -> bool {
    !md.is_null() && di::LLVMGetMetadataKind(md) as u32 == kind as u32
}

/// The debug variable of a global: the first `!dbg` attachment that is a
/// global variable expression over a global variable.
///
/// # Safety
/// `global` is a global of a live module.
unsafe fn global_variable(global: LLVMValueRef) -> LLVMMetadataRef {
    if c::LLVMIsAGlobalObject(global).is_null() {
        return std::ptr::null_mut();
    }
    let ctx = c::LLVMGetTypeContext(c::LLVMTypeOf(global));
    let dbg = c::LLVMGetMDKindIDInContext(ctx, c"dbg".as_ptr(), 3);
    let mut n = 0usize;
    let entries = c::LLVMGlobalCopyAllMetadata(global, &mut n);
    let mut found = std::ptr::null_mut();
    for i in 0..n as u32 {
        if c::LLVMValueMetadataEntriesGetKind(entries, i) != dbg {
            continue;
        }
        let gve = c::LLVMValueMetadataEntriesGetMetadata(entries, i);
        if !is(gve, K::LLVMDIGlobalVariableExpressionMetadataKind) {
            continue;
        }
        let var = di::LLVMDIGlobalVariableExpressionGetVariable(gve);
        if is(var, K::LLVMDIGlobalVariableMetadataKind) {
            found = var;
            break;
        }
    }
    if !entries.is_null() {
        c::LLVMDisposeValueMetadataEntries(entries);
    }
    found
}

/// Directory and file name of `file` if it is a file node: its first two
/// operands, each read only if it is a string.
///
/// # Safety
/// `file` is null or metadata of `ctx`.
unsafe fn file_names(ctx: LLVMContextRef, file: LLVMMetadataRef) -> (String, String) {
    if !is(file, K::LLVMDIFileMetadataKind) {
        return (String::new(), String::new());
    }
    let node = c::LLVMMetadataAsValue(ctx, file);
    let n = c::LLVMGetMDNodeNumOperands(node) as usize;
    if n < 2 {
        return (String::new(), String::new());
    }
    let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
    c::LLVMGetMDNodeOperands(node, ops.as_mut_ptr());
    // `LLVMGetMDString` itself checks that its operand is a string.
    let text = |op: LLVMValueRef| {
        if op.is_null() {
            return String::new();
        }
        let mut len = 0u32;
        let p = c::LLVMGetMDString(op, &mut len);
        lent_str(p, len as usize)
    };
    (text(ops[1]), text(ops[0]))
}
