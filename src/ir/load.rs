//! Loading LLVM 14 bitcode or textual IR and lowering it into mnemo's IR.
//!
//! Every LLVM object (context, modules, target data) lives only inside one
//! `load_*` call; what comes out is plain data.

use super::archive::Archive;
use super::consts::Cx;
use super::diagnostics::{install_fatal_error_handler, note_loading, DiagnosticSink};
use super::ffi::{self, Val};
use super::hash::Hashing;
use super::layout::Layout;
use super::lower::lower_body;
use super::sniff;
use super::{FuncId, Function, Global, GlobalId, LoadError, Module};
use inkwell::context::Context;
use inkwell::llvm_sys::linker::LLVMLinkModules2;
use inkwell::llvm_sys::{LLVMLinkage, LLVMTypeKind, LLVMValueKind};
use inkwell::memory_buffer::MemoryBuffer;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What is linked from an archive whether or not the program names it:
/// `exit`, where the engine goes when the entry function returns (so that
/// atexit handlers run and stdio's buffers are written, as after `main`),
/// and the start of a run with KLEE's POSIX options, which the engine
/// calls when the program's arguments hold them.
const ALWAYS_LINKED: &[&str] = &["exit", "__mnemo_posix_start"];

/// What is linked from an archive where the program names a function the
/// engine runs itself: `sigsetjmp` keeps the signal mask, and a jump back
/// restores it, through the runtime's functions (`exec::jumps`).
const LINKED_WITH: &[(&str, &str)] = &[
    ("sigsetjmp", "__mnemo_sigjmp_save"),
    ("__sigsetjmp", "__mnemo_sigjmp_save"),
];

/// A library linked into the program: a bitcode file, linked whole, or an
/// archive directory, of which only what the program needs is linked.
enum Lib {
    Bitcode(PathBuf, Vec<u8>),
    Archive(Archive),
}

/// Loads a `.bc` or `.ll` file and links the given runtime libraries into
/// it, in order: bitcode files whole (the program's own definitions win over
/// their weak ones), archive directories ([`super::archive`]) for the
/// symbols still undefined. With `optimize`, the program is optimized as
/// at -O2 first (see the `optimize` module).
pub fn load_module(path: &Path, runtime: &[&Path], optimize: bool) -> Result<Module, LoadError> {
    let main = read(path)?;
    let libs = runtime
        .iter()
        .map(|p| {
            Ok(if Archive::is_archive(p) {
                Lib::Archive(Archive::open(p)?)
            } else {
                Lib::Bitcode(p.to_path_buf(), read(p)?)
            })
        })
        .collect::<Result<Vec<_>, LoadError>>()?;
    load(path, &main, &libs, optimize)
}

/// Loads a module from bytes (bitcode or textual IR); `name` is used in messages.
pub fn load_module_from_memory(name: &str, bytes: &[u8]) -> Result<Module, LoadError> {
    load(Path::new(name), bytes, &[], false)
}

fn read(path: &Path) -> Result<Vec<u8>, LoadError> {
    std::fs::read(path).map_err(|e| LoadError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
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
    note_loading(&name);
    let buf = MemoryBuffer::create_from_memory_range_copy(bytes, &name);
    let bad_bitcode = |what: String| LoadError::BadBitcode {
        path: path.to_path_buf(),
        what,
    };
    let module = match sniff::kind(bytes) {
        // A truncated file never reaches LLVM's reader, which calls it an
        // "invalid bitcode signature" or ends the process on it.
        sniff::Kind::Bitcode => match sniff::truncation(bytes) {
            Some(why) => return Err(bad_bitcode(format!("truncated LLVM bitcode: {why}"))),
            None => inkwell::module::Module::parse_bitcode_from_buffer(&buf, ctx).map_err(|e| {
                bad_bitcode(format!(
                    "malformed LLVM bitcode: {}",
                    sniff::printable(e.to_string().trim())
                ))
            })?,
        },
        sniff::Kind::Text => ctx
            .create_module_from_ir(buf)
            .map_err(|e| parse_err(sniff::printable(e.to_string().trim())))?,
        sniff::Kind::Other(start) => {
            return Err(LoadError::NotBitcode {
                path: path.to_path_buf(),
                start,
            })
        }
    };
    module.verify().map_err(|e| {
        parse_err(format!(
            "invalid module: {}",
            sniff::printable(e.to_string().trim())
        ))
    })?;
    Ok(module)
}

fn load(path: &Path, main: &[u8], runtime: &[Lib], optimize: bool) -> Result<Module, LoadError> {
    install_fatal_error_handler();
    // Declared before the context so it outlives it (drop order is reversed).
    let diags = DiagnosticSink::new();
    let ctx = Context::create();
    diags.attach(&ctx);
    let module = parse(&ctx, path, main)?;
    if optimize {
        super::optimize::optimize(&module).map_err(|message| LoadError::Optimize {
            path: path.to_path_buf(),
            message,
        })?;
    }
    let link = |lib_path: &Path, bytes: &[u8]| -> Result<(), LoadError> {
        let lib = parse(&ctx, lib_path, bytes)?;
        diags.take_errors();
        // SAFETY: both modules belong to `ctx`; LLVMLinkModules2 consumes the
        // source module, so inkwell must not dispose of it again.
        let failed = unsafe { LLVMLinkModules2(module.as_mut_ptr(), lib.as_mut_ptr()) } != 0;
        std::mem::forget(lib);
        if failed {
            let errors = diags.take_errors();
            let message = if errors.is_empty() {
                "linking failed".to_string()
            } else {
                errors.join("; ")
            };
            return Err(LoadError::Link {
                path: lib_path.to_path_buf(),
                message,
            });
        }
        Ok(())
    };
    for lib in runtime {
        match lib {
            Lib::Bitcode(lib_path, bytes) => link(lib_path, bytes)?,
            Lib::Archive(archive) => {
                let (mut undefined, defined) = symbols(module.as_mut_ptr());
                let with = LINKED_WITH
                    .iter()
                    .filter(|(named, _)| undefined.iter().any(|u| u == named))
                    .map(|(_, linked)| linked);
                let extra: Vec<String> = ALWAYS_LINKED
                    .iter()
                    .chain(with)
                    .map(|s| s.to_string())
                    .collect();
                undefined.extend(extra);
                for object in archive.resolve(&undefined, &defined) {
                    link(&object, &read(&object)?)?;
                }
            }
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

/// The names a module refers to without defining (in the order they
/// appear), and those it defines; LLVM's intrinsics are neither.
fn symbols(m: inkwell::llvm_sys::prelude::LLVMModuleRef) -> (Vec<String>, BTreeSet<String>) {
    let mut undefined = Vec::new();
    let mut defined = BTreeSet::new();
    let values = ffi::functions(m)
        .into_iter()
        .chain(ffi::globals(m))
        .chain(ffi::aliases(m));
    for v in values {
        let name = v.name();
        if name.is_empty() || name.starts_with("llvm.") {
            continue;
        }
        if v.is_declaration() {
            undefined.push(name);
        } else {
            defined.insert(name);
        }
    }
    (undefined, defined)
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
            block_hashes: Vec::new(),
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

    let hashes: Vec<(u64, Vec<u64>)> = {
        let h = Hashing::new(&functions, &out_globals, &by_contents, &cx.consts);
        functions
            .iter()
            .map(|f| {
                (
                    h.function(f),
                    f.body.as_ref().map_or(Vec::new(), |b| h.blocks(b)),
                )
            })
            .collect()
    };
    for (f, (h, blocks)) in functions.iter_mut().zip(hashes) {
        f.hash = h;
        f.block_hashes = blocks;
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
        thread_local: g.is_thread_local(),
        init,
        loc,
    })
}

#[cfg(test)]
mod tests {
    use super::{load_module, load_module_from_memory};
    use crate::ir::testutil::{body, compile, func, load_c, load_ll};
    use crate::ir::{Callee, Const, Inst, LoadError, Module};

    fn reloc_targets(m: &Module, name: &str) -> Vec<(u64, Const)> {
        let g = m.global(m.global_index[name]);
        let init = g.init.as_ref().expect("initializer");
        init.relocs
            .iter()
            .map(|(o, c)| (*o, m.constant(*c).clone()))
            .collect()
    }

    /// Found by the bitcode fuzz target: LLVM's verifier lets a lexical
    /// block hold a string as its file, and reading an instruction's
    /// location in that block through `LLVMGetDebugLocDirectory` crashed.
    /// The line stays; the file is unknown.
    #[test]
    fn a_scope_whose_file_is_a_string_gives_a_location_without_a_file() {
        let ir = include_bytes!("../../fuzz/regressions/bitcode/lexical-block-file-is-a-string.ll");
        let m = load_module_from_memory("lb.ll", ir).expect("LLVM accepts it");
        let main = m.func(m.func_by_name("main").expect("main"));
        let locs = &main.body.as_ref().expect("a body").locs;
        let loc = locs
            .iter()
            .flatten()
            .next()
            .expect("the ret has a location");
        assert_eq!((loc.line, loc.col), (3, 5));
        assert_eq!(m.files[loc.file.index()], "");
    }

    /// Found by the bitcode fuzz target: a byte changed in real bitcode
    /// made LLVM's reader of a function's source file read something else
    /// as the file's name (SIGSEGV in `MDString::getString`). Whatever
    /// LLVM makes of it, loading must return.
    #[test]
    fn a_function_whose_file_name_is_not_a_string_loads_or_fails_cleanly() {
        let bc =
            include_bytes!("../../fuzz/regressions/bitcode/function-file-name-not-a-string.bc");
        let _ = load_module_from_memory("f.bc", bc);
    }

    #[test]
    fn missing_file_is_a_read_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = load_module(&dir.path().join("nope.bc"), &[], false).expect_err("missing file");
        assert!(matches!(err, LoadError::Read { .. }), "{err}");
    }

    #[test]
    fn textual_ir_files_load_and_link() {
        let dir = tempfile::tempdir().expect("tempdir");
        let prog = dir.path().join("prog.ll");
        let lib = dir.path().join("lib.ll");
        std::fs::write(&prog, "declare i32 @lib(i32)\ndefine i32 @main() {\n  %r = call i32 @lib(i32 2)\n  ret i32 %r\n}\n")
            .expect("write");
        std::fs::write(&lib, "define weak i32 @lib(i32 %x) {\n  ret i32 %x\n}\n").expect("write");
        let m = load_module(&prog, &[lib.as_path()], false).expect("load .ll");
        assert!(func(&m, "lib").body.is_some());
        assert_eq!(m.source, prog.to_string_lossy());
        let m = load_module(&prog, &[], false).expect("load .ll alone");
        assert!(func(&m, "lib").body.is_none());
    }

    #[test]
    fn bad_inputs_are_parse_errors() {
        for (name, bytes) in [
            ("empty.bc", &b""[..]),
            ("garbage.bc", &b"\x00\x01\x02garbage\xff\xfe"[..]),
            (
                "bad-magic.bc",
                &b"BC\xC0\xDE\x35\x14\x00\x00\x05\x00\x00\x00\x62\x0C\x30\x24"[..],
            ),
        ] {
            let err = load_module_from_memory(name, bytes).expect_err(name);
            assert!(
                matches!(
                    err,
                    LoadError::Parse { .. }
                        | LoadError::NotBitcode { .. }
                        | LoadError::BadBitcode { .. }
                ),
                "{name}: {err}"
            );
            assert!(
                !err.to_string().ends_with(": "),
                "{name}: message missing: {err}"
            );
        }
        let err = load_module_from_memory("syntax.ll", b"define i32 @f( {\n ret i32 0\n}\n")
            .expect_err("syntax");
        let LoadError::Parse { message, .. } = &err else {
            panic!("{err}")
        };
        assert!(message.contains("error"), "{message}");
        // Parses, but is not valid IR (use before definition): the verifier's message.
        let err = load_module_from_memory(
            "invalid.ll",
            b"define i32 @f() {\n %a = add i32 %b, 1\n %b = add i32 %a, 1\n ret i32 %a\n}\n",
        )
        .expect_err("invalid");
        assert!(matches!(err, LoadError::Parse { .. }), "{err}");
    }

    #[test]
    fn truncated_bitcode_is_a_parse_error() {
        let Some(c) = compile("t", "int g = 3; int main(void) { return g; }") else {
            return;
        };
        let bytes = std::fs::read(&c.bc).expect("read bitcode");
        assert!(load_module_from_memory("whole.bc", &bytes).is_ok());
        for len in [4, 20, bytes.len() / 2, bytes.len() - 7] {
            let err = load_module_from_memory("cut.bc", &bytes[..len]).expect_err("truncated");
            assert!(
                err.to_string().contains("truncated LLVM bitcode"),
                "{len}: {err}"
            );
        }
    }

    #[test]
    fn runtime_is_linked_and_program_definitions_win() {
        let Some(prog) = compile(
            "prog",
            "int helper(int x) { return x + 1; }\nint rt_only(int);\nint main(void) { return helper(1) + rt_only(2); }",
        ) else {
            return;
        };
        let rt = compile(
            "rt",
            "__attribute__((weak)) int helper(int x) { return x - 1; }\n__attribute__((weak)) int rt_only(int x) { return x * 5; }",
        )
        .expect("clang is present");
        let m = load_module(&prog.bc, &[rt.bc.as_path()], false).expect("link");
        assert!(
            func(&m, "rt_only").body.is_some(),
            "runtime definition linked in"
        );
        let helper = body(&m, "helper");
        assert!(
            helper.insts.iter().any(|i| matches!(
                i,
                Inst::Binary {
                    op: crate::ir::BinOp::Add,
                    ..
                }
            )),
            "the program's helper (x + 1) wins over the runtime's weak one"
        );
        let calls: Vec<String> = body(&m, "main")
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Call {
                    callee: Callee::Direct(f),
                    ..
                } => Some(m.func(*f).name.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(calls, vec!["helper", "rt_only"]);

        let missing = prog.bc.with_file_name("missing-runtime.bc");
        let err = load_module(&prog.bc, &[missing.as_path()], false).expect_err("missing runtime");
        assert!(matches!(err, LoadError::Read { .. }), "{err}");

        let clash = compile("clash", "int helper(int x) { return x; }").expect("clang is present");
        let err = load_module(&prog.bc, &[clash.bc.as_path()], false)
            .expect_err("duplicate strong symbol");
        let LoadError::Link { message, .. } = &err else {
            panic!("{err}")
        };
        assert!(message.contains("helper"), "{message}");
    }

    #[test]
    fn globals_images_and_relocations() {
        let src = r#"
struct S { char c; int x; long arr[2]; double d; };
struct S gs = { 'a', 5, { 1, -2 }, 1.5 };
int *gp = &gs.x;
const char *msg = "hello";
static int twice(int v) { return v * 2; }
int (*table[3])(int) = { twice, 0, twice };
extern int ext;
int zeros[100];
int use(void) { return ext + table[0](1) + zeros[3]; }
"#;
        let Some(m) = load_c(src) else { return };
        let gs_id = m.global_index["gs"];
        let gs = m.global(gs_id);
        assert_eq!((gs.size, gs.align, gs.is_constant), (32, 8, false));
        let mut want = vec![0u8; 32];
        want[0] = b'a';
        want[4] = 5;
        want[8] = 1;
        want[16..24].copy_from_slice(&(-2i64).to_le_bytes());
        want[24..32].copy_from_slice(&1.5f64.to_bits().to_le_bytes());
        let init = gs.init.as_ref().expect("initialized");
        assert_eq!(init.bytes, want);
        assert!(init.relocs.is_empty());
        assert_eq!(gs.loc.map(|l| l.line), Some(3));

        assert_eq!(
            reloc_targets(&m, "gp"),
            vec![(
                0,
                Const::GlobalAddr {
                    global: gs_id,
                    offset: 4
                }
            )]
        );
        let relocs = reloc_targets(&m, "msg");
        let [(
            0,
            Const::GlobalAddr {
                global: s,
                offset: 0,
            },
        )] = relocs.as_slice()
        else {
            panic!("{relocs:?}")
        };
        let s = m.global(*s);
        assert!(s.is_constant);
        assert_eq!(
            s.init.as_ref().map(|i| i.bytes.as_slice()),
            Some(&b"hello\0"[..])
        );

        let twice = m.func_by_name("twice").expect("twice");
        assert_eq!(
            reloc_targets(&m, "table"),
            vec![(0, Const::FuncAddr(twice)), (16, Const::FuncAddr(twice))]
        );
        assert_eq!(m.global(m.global_index["table"]).size, 24);

        let ext = m.global(m.global_index["ext"]);
        assert!(ext.init.is_none());
        assert_eq!(ext.size, 4);
        let zeros = m.global(m.global_index["zeros"]);
        assert_eq!(zeros.init.as_ref().map(|i| i.bytes.len()), Some(400));
        assert!(zeros
            .init
            .as_ref()
            .is_some_and(|i| i.bytes.iter().all(|&b| b == 0)));
    }

    #[test]
    fn aliases_are_indexed() {
        let m = load_ll(
            r#"
@real = global i32 4
@other = alias i32, i32* @real
define i32 @impl() {
  ret i32 0
}
@name = weak alias i32 (), i32 ()* @impl
define i32 @caller() {
  %r = call i32 @name()
  ret i32 %r
}
"#,
        );
        assert_eq!(m.func_by_name("name"), m.func_by_name("impl"));
        assert_eq!(m.global_index.get("other"), m.global_index.get("real"));
        let Inst::Call {
            callee: Callee::Direct(f),
            ..
        } = &body(&m, "caller").insts[0]
        else {
            panic!()
        };
        assert_eq!(m.func(*f).name, "impl");
    }

    fn hash_of(src: &str, name: &str) -> Option<u64> {
        load_c(src).map(|m| func(&m, name).hash)
    }

    #[test]
    fn function_hashes_are_structural() {
        let f = "int f(int x) { puts(\"in f\"); return x * 3 + g; }\n";
        let base = format!("int puts(const char *);\nint g;\n{f}");
        let Some(h1) = hash_of(&base, "f") else {
            return;
        };
        // Same function, different neighbours (one with a string literal that
        // shifts clang's `.str.N` numbering, and another global before `g`).
        let other = format!(
            "int puts(const char *);\nint before;\nint g;\nvoid h(void) {{ puts(\"first\"); before++; }}\n{f}int k(int y) {{ return y; }}\n"
        );
        assert_eq!(hash_of(&other, "f"), Some(h1));
        assert_eq!(hash_of(&base, "f"), Some(h1), "deterministic across loads");
        let changed = base.replace("x * 3", "x * 4");
        assert_ne!(hash_of(&changed, "f"), Some(h1));
        let renamed_callee = base.replace("puts", "puts2");
        assert_ne!(hash_of(&renamed_callee, "f"), Some(h1));
        let other_literal = base.replace("in f", "in F");
        assert_ne!(hash_of(&other_literal, "f"), Some(h1));
    }

    /// Runs one load of `MNEMO_LOADER_CHILD` (for the corruption test below,
    /// which needs a separate process because LLVM may abort on corrupt input).
    #[test]
    fn corrupt_bitcode_child() {
        if let Ok(p) = std::env::var("MNEMO_LOADER_CHILD") {
            let _ = load_module(std::path::Path::new(&p), &[], false);
        }
    }

    /// Whatever LLVM accepts from corrupt bitcode, the lowering must handle
    /// without a Rust panic (exit code 101 in the child).
    #[test]
    fn corrupt_bitcode_never_panics_the_lowering() {
        if std::env::var("MNEMO_LOADER_CHILD").is_ok() {
            return;
        }
        let src = "struct S { int a; long b; } s = { 1, 2 }; int *p = &s.a;\n\
                   int main(int argc, char **argv) { int x = argc; switch (x) { case 1: return s.b; case 5: return *p; }\n\
                   for (int i = 0; i < x; i++) x += i / (argc + 1); return x; }";
        let Some(c) = compile("t", src) else { return };
        let bytes = std::fs::read(&c.bc).expect("read bitcode");
        let exe = std::env::current_exe().expect("test binary");
        let mutated = c.bc.with_file_name("mutated.bc");
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut loaded = 0;
        for _ in 0..40 {
            let mut b = bytes.clone();
            for _ in 0..2 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                let i = 4 + (seed >> 33) as usize % (b.len() - 4);
                b[i] ^= 1 << ((seed >> 20) % 8);
            }
            std::fs::write(&mutated, &b).expect("write mutated bitcode");
            let out = std::process::Command::new(&exe)
                .args([
                    "ir::load::tests::corrupt_bitcode_child",
                    "--exact",
                    "--test-threads=1",
                ])
                .env("MNEMO_LOADER_CHILD", &mutated)
                .output()
                .expect("run child");
            let stderr = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => loaded += 1,
                // Killed by LLVM's abort: our handler must have named the file.
                // Killed by a signal: LLVM 14's bitcode reader aborts (or even
                // crashes) on some corrupt records before returning to us.
                None => {}
                Some(code) => panic!(
                    "child exited with {code}: {}{stderr}",
                    String::from_utf8_lossy(&out.stdout)
                ),
            }
        }
        assert!(
            loaded > 0,
            "some mutations are harmless or cleanly rejected"
        );
    }
}
