//! What LLVM says while a module loads: the errors it reports through a
//! context's diagnostic handler, which are collected rather than printed
//! (LLVM's default handler prints them and ends the process), and the file
//! named when LLVM fails fatally.

use inkwell::context::Context;
use inkwell::llvm_sys::core::{
    LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription,
    LLVMGetDiagInfoSeverity,
};
use inkwell::llvm_sys::error_handling::LLVMInstallFatalErrorHandler;
use inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef;
use inkwell::llvm_sys::LLVMDiagnosticSeverity;
use std::ffi::{c_void, CStr};

/// Error messages LLVM reports through the context's diagnostic handler
/// (its default handler would print them and exit the process).
#[derive(Default)]
struct Diagnostics {
    errors: Vec<String>,
}

/// Owns the `Diagnostics` the handler writes into. Only the raw pointer is
/// kept, so LLVM's writes never alias a Rust reference held across a call.
pub(super) struct DiagnosticSink(*mut Diagnostics);

impl DiagnosticSink {
    pub(super) fn new() -> DiagnosticSink {
        DiagnosticSink(Box::into_raw(Box::default()))
    }

    /// Makes `ctx` report its errors here; the sink must outlive `ctx`.
    pub(super) fn attach(&self, ctx: &Context) {
        // SAFETY: the handler only writes into this sink, which the caller
        // keeps alive longer than `ctx`.
        unsafe {
            LLVMContextSetDiagnosticHandler(
                ctx.raw(),
                Some(collect_diagnostic),
                self.0.cast::<c_void>(),
            );
        }
    }

    /// The errors reported since the last call.
    pub(super) fn take_errors(&self) -> Vec<String> {
        // SAFETY: the pointer is live until drop; LLVM is not running now.
        unsafe { std::mem::take(&mut (*self.0).errors) }
    }
}

impl Drop for DiagnosticSink {
    fn drop(&mut self) {
        // SAFETY: created by `Box::into_raw` in `new` and freed exactly once.
        unsafe { drop(Box::from_raw(self.0)) }
    }
}

extern "C" fn collect_diagnostic(info: LLVMDiagnosticInfoRef, sink: *mut c_void) {
    if info.is_null() || sink.is_null() {
        return;
    }
    // SAFETY: `sink` is the `DiagnosticSink` pointer registered in `attach`, which outlives
    // the context; `info` is valid for the duration of this call.
    unsafe {
        let diags = &mut *sink.cast::<Diagnostics>();
        if LLVMGetDiagInfoSeverity(info) != LLVMDiagnosticSeverity::LLVMDSError {
            return;
        }
        let p = LLVMGetDiagInfoDescription(info);
        if p.is_null() {
            return;
        }
        diags
            .errors
            .push(CStr::from_ptr(p).to_string_lossy().into_owned());
        LLVMDisposeMessage(p);
    }
}

thread_local! {
    /// The file this thread is loading, for the fatal-error message.
    static LOADING: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// LLVM ends the process on a few kinds of corrupt bitcode (`report_fatal_error`)
/// instead of returning an error; this at least says which file caused it.
extern "C" fn fatal_error(reason: *const std::ffi::c_char) {
    use std::io::Write;
    let reason = if reason.is_null() {
        String::new()
    } else {
        // SAFETY: LLVM passes a NUL-terminated message valid for this call.
        unsafe { CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    let file = LOADING.try_with(|f| f.borrow().clone()).unwrap_or_default();
    let _ = writeln!(
        std::io::stderr(),
        "mnemo: LLVM failed fatally while loading {file}: {reason}"
    );
}

/// Names `file` as the one this thread is loading, for the fatal-error
/// message.
pub(super) fn note_loading(file: &str) {
    let _ = LOADING.try_with(|f| *f.borrow_mut() = file.to_string());
}

/// Makes LLVM's fatal errors name the file being loaded.
pub(super) fn install_fatal_error_handler() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: the handler only formats a message; installing it is process-wide and idempotent.
    ONCE.call_once(|| unsafe { LLVMInstallFatalErrorHandler(Some(fatal_error)) });
}
