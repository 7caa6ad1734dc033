//! Loading LLVM 14 bitcode or textual IR and lowering it into mnemo's IR.
//!
//! Every LLVM object (context, modules, target data) lives only inside one
//! `load_*` call; what comes out is plain data.

use super::consts::Cx;
use super::ffi::{self, Val};
use super::hash::Hashing;
use super::layout::Layout;
use super::lower::lower_body;
use super::{FuncId, Function, Global, GlobalId, LoadError, Module};
use inkwell::context::Context;
use inkwell::llvm_sys::core::{
    LLVMContextSetDiagnosticHandler, LLVMDisposeMessage, LLVMGetDiagInfoDescription,
    LLVMGetDiagInfoSeverity,
};
use inkwell::llvm_sys::linker::LLVMLinkModules2;
use inkwell::llvm_sys::prelude::LLVMDiagnosticInfoRef;
use inkwell::llvm_sys::{LLVMDiagnosticSeverity, LLVMLinkage, LLVMTypeKind, LLVMValueKind};
use inkwell::memory_buffer::MemoryBuffer;
use rustc_hash::FxHashMap;
use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};

/// Loads a `.bc` or `.ll` file and links the given runtime bitcode files into
/// it (the program's own definitions win over the runtime's weak ones).
pub fn load_module(path: &Path, runtime: &[&Path]) -> Result<Module, LoadError> {
    let main = read(path)?;
    let libs = runtime
        .iter()
        .map(|p| Ok((p.to_path_buf(), read(p)?)))
        .collect::<Result<Vec<_>, LoadError>>()?;
    load(path, &main, &libs)
}

/// Loads a module from bytes (bitcode or textual IR); `name` is used in messages.
pub fn load_module_from_memory(name: &str, bytes: &[u8]) -> Result<Module, LoadError> {
    load(Path::new(name), bytes, &[])
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|e| LoadError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Error messages LLVM reports through the context's diagnostic handler
/// (its default handler would print them and exit the process).
#[derive(Default)]
struct Diagnostics {
    errors: Vec<String>,
}

extern "C" fn collect_diagnostic(info: LLVMDiagnosticInfoRef, sink: *mut c_void) {
    if info.is_null() || sink.is_null() {
        return;
    }
    // SAFETY: `sink` is the `Diagnostics` registered in `load`, which outlives
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

fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

fn parse<'ctx>(
    ctx: &'ctx Context,
    path: &Path,
    bytes: &[u8],
) -> Result<inkwell::module::Module<'ctx>, LoadError> {
    let parse_err = |message: String| LoadError::Parse {
        path: path.to_path_buf(),
        message,
    };
    if bytes.is_empty() {
        return Err(parse_err("the file is empty".into()));
    }
    let name = path.to_string_lossy();
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, &name);
    let module = if is_bitcode(bytes) {
        inkwell::module::Module::parse_bitcode_from_buffer(&buf, ctx)
    } else {
        ctx.create_module_from_ir(buf)
    }
    .map_err(|e| parse_err(e.to_string().trim().to_string()))?;
    module
        .verify()
        .map_err(|e| parse_err(format!("invalid module: {}", e.to_string().trim())))?;
    Ok(module)
}

fn load(path: &Path, main: &[u8], runtime: &[(PathBuf, Vec<u8>)]) -> Result<Module, LoadError> {
    // Declared before the context so it outlives it (drop order is reversed).
    let mut diags = Box::new(Diagnostics::default());
    let ctx = Context::create();
    // SAFETY: the handler only writes into `diags`, which outlives `ctx`.
    unsafe {
        LLVMContextSetDiagnosticHandler(
            ctx.raw(),
            Some(collect_diagnostic),
            (&mut *diags as *mut Diagnostics).cast::<c_void>(),
        );
    }
    let module = parse(&ctx, path, main)?;
    for (lib_path, bytes) in runtime {
        let lib = parse(&ctx, lib_path, bytes)?;
        diags.errors.clear();
        // SAFETY: both modules belong to `ctx`; LLVMLinkModules2 consumes the
        // source module, so inkwell must not dispose of it again.
        let failed = unsafe { LLVMLinkModules2(module.as_mut_ptr(), lib.as_mut_ptr()) } != 0;
        std::mem::forget(lib);
        if failed {
            let message = if diags.errors.is_empty() {
                "linking failed".to_string()
            } else {
                diags.errors.join("; ")
            };
            return Err(LoadError::Link {
                path: lib_path.clone(),
                message,
            });
        }
    }
    if !runtime.is_empty() {
        module.verify().map_err(|e| LoadError::Link {
            path: path.to_path_buf(),
            message: e.to_string().trim().to_string(),
        })?;
    }
    let lowered = lower_module(module.as_mut_ptr(), path);
    drop(module);
    drop(ctx);
    drop(diags);
    lowered
}

fn lower_module(
    m: inkwell::llvm_sys::prelude::LLVMModuleRef,
    path: &Path,
) -> Result<Module, LoadError> {
    let mut cx = Cx::new(Layout::new(&ffi::data_layout(m)));
    let funcs = ffi::functions(m);
    let globals = ffi::globals(m);
    for (i, &f) in funcs.iter().enumerate() {
        cx.func_ids.insert(f, FuncId(i as u32));
    }
    for (i, &g) in globals.iter().enumerate() {
        cx.global_ids.insert(g, GlobalId(i as u32));
    }

    let mut out_globals = Vec::with_capacity(globals.len());
    let mut by_contents = Vec::with_capacity(globals.len());
    for (i, &g) in globals.iter().enumerate() {
        let global = lower_global(&mut cx, g, i)?;
        by_contents.push(
            matches!(g.linkage(), LLVMLinkage::LLVMPrivateLinkage)
                && global.is_constant
                && global.init.is_some(),
        );
        out_globals.push(global);
    }

    let mut functions = Vec::with_capacity(funcs.len());
    for (i, &f) in funcs.iter().enumerate() {
        let fty = f.function_type();
        let ret = fty.return_type();
        let name = f.name();
        functions.push(Function {
            name: if name.is_empty() {
                format!("__unnamed_function_{i}")
            } else {
                name
            },
            params: fty
                .param_types()
                .into_iter()
                .map(|t| cx.layout.lenient_width(t))
                .collect(),
            ret_width: (ret.kind() != LLVMTypeKind::LLVMVoidTypeKind)
                .then(|| cx.layout.lenient_width(ret)),
            is_vararg: fty.is_vararg(),
            body: (!f.is_declaration()).then(|| lower_body(&mut cx, f)),
            loc: cx.decl_loc(f),
            hash: 0,
        });
    }

    let mut func_index = FxHashMap::default();
    for (i, f) in functions.iter().enumerate() {
        func_index.insert(f.name.clone(), FuncId(i as u32));
    }
    let mut global_index = FxHashMap::default();
    for (i, g) in out_globals.iter().enumerate() {
        global_index.insert(g.name.clone(), GlobalId(i as u32));
    }
    // Aliases (`weak_alias` in a C library) name a function or a global under
    // another symbol; calls through them already resolve to the target.
    for a in ffi::aliases(m) {
        let name = a.name();
        if name.is_empty() {
            continue;
        }
        if let Ok(id) = cx.constant(a) {
            match cx.consts[id.index()] {
                super::Const::FuncAddr(f) => {
                    func_index.entry(name).or_insert(f);
                }
                super::Const::GlobalAddr { global, offset: 0 } => {
                    global_index.entry(name).or_insert(global);
                }
                _ => {}
            }
        }
    }

    let hashes: Vec<u64> = {
        let h = Hashing::new(&functions, &out_globals, &by_contents, &cx.consts);
        functions.iter().map(|f| h.function(f)).collect()
    };
    for (f, h) in functions.iter_mut().zip(hashes) {
        f.hash = h;
    }

    Ok(Module {
        source: path.to_string_lossy().into_owned(),
        functions,
        globals: out_globals,
        consts: std::mem::take(&mut cx.consts),
        files: std::mem::take(&mut cx.files),
        func_index,
        global_index,
    })
}

fn lower_global(cx: &mut Cx, g: Val, index: usize) -> Result<Global, LoadError> {
    let name = g.name();
    let name = if name.is_empty() {
        format!("__unnamed_global_{index}")
    } else {
        name
    };
    let ty = g.global_value_type();
    let size = cx.layout.alloc_size(ty).unwrap_or(0);
    let align = match g.alignment() {
        0 if ty.is_sized() => cx.layout.global_align(g).max(1),
        0 => 1,
        a => a,
    };
    let init = match g.initializer() {
        Some(init)
            if !g.is_declaration() && init.kind() != LLVMValueKind::LLVMInstructionValueKind =>
        {
            if !ty.is_sized() {
                return Err(LoadError::Global {
                    global: name,
                    message: "initializer of unsized type".into(),
                });
            }
            Some(
                cx.global_init(init, ty, size)
                    .map_err(|message| LoadError::Global {
                        global: name.clone(),
                        message,
                    })?,
            )
        }
        _ => None,
    };
    let loc = cx.decl_loc(g);
    Ok(Global {
        name,
        size,
        align,
        is_constant: g.is_global_constant(),
        init,
        loc,
    })
}
