//! Test helpers: compile C snippets with clang-14 the way `mnemo cc` does.

use super::{
    load_module, load_module_from_memory, BinOp, Body, Const, Function, Inst, Module, Operand,
};
use std::path::PathBuf;
use std::process::Command;

/// A C snippet compiled to bitcode in its own temporary directory.
pub struct Compiled {
    /// Keeps the directory alive as long as the bitcode is used.
    pub _dir: tempfile::TempDir,
    pub bc: PathBuf,
}

/// Whether clang-14 can be run; tests needing it skip (with a message) otherwise.
pub fn have_clang() -> bool {
    let ok = Command::new("clang-14")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        eprintln!("skipping: clang-14 is not installed");
    }
    ok
}

/// Compiles `src` (C) to `<name>.bc` with the flags mnemo uses.
pub fn compile(name: &str, src: &str) -> Option<Compiled> {
    if !have_clang() {
        return None;
    }
    let dir = tempfile::tempdir().expect("temporary directory");
    let c = dir.path().join(format!("{name}.c"));
    let bc = dir.path().join(format!("{name}.bc"));
    std::fs::write(&c, src).expect("write C source");
    let out = Command::new("clang-14")
        .args(super::BITCODE_FLAGS)
        .arg("-o")
        .arg(&bc)
        .arg(&c)
        .output()
        .expect("run clang-14");
    assert!(
        out.status.success(),
        "clang-14 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(Compiled { _dir: dir, bc })
}

/// Compiles and loads a C snippet without runtime libraries.
pub fn load_c(src: &str) -> Option<Module> {
    let c = compile("t", src)?;
    Some(load_module(&c.bc, &[], false).expect("load compiled C"))
}

/// The x86_64 Linux data layout clang-14 puts in every module.
pub const X86_64_LAYOUT: &str = "target datalayout = \"e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128\"\ntarget triple = \"x86_64-pc-linux-gnu\"\n";

/// Loads textual IR from a string, with clang's x86_64 data layout prepended.
pub fn load_ll(src: &str) -> Module {
    let text = format!("{X86_64_LAYOUT}{src}");
    load_module_from_memory("test.ll", text.as_bytes()).expect("load textual IR")
}

pub fn func<'m>(m: &'m Module, name: &str) -> &'m Function {
    let id = m
        .func_by_name(name)
        .unwrap_or_else(|| panic!("no function {name}"));
    m.func(id)
}

pub fn body<'m>(m: &'m Module, name: &str) -> &'m Body {
    func(m, name)
        .body
        .as_ref()
        .unwrap_or_else(|| panic!("{name} has no body"))
}

/// The instructions of a body other than allocas, loads and stores, which
/// dominate -O0 code and hide the interesting ones.
pub fn interesting(b: &Body) -> Vec<&Inst> {
    b.insts
        .iter()
        .filter(|i| {
            !matches!(
                i,
                Inst::Alloca { .. } | Inst::Load { .. } | Inst::Store { .. }
            )
        })
        .collect()
}

/// The constant an operand names.
pub fn konst(m: &Module, o: &Operand) -> Const {
    match o {
        Operand::Const(c) => m.constant(*c).clone(),
        Operand::Reg(r) => panic!("expected a constant, got register {r:?}"),
    }
}

/// What each `Inst::Unsupported` of `insts` says, in order.
pub fn unsupported(insts: &[Inst]) -> Vec<&str> {
    insts
        .iter()
        .filter_map(|i| match i {
            Inst::Unsupported { what } => Some(what.as_str()),
            _ => None,
        })
        .collect()
}

/// Each shift in `insts`, in order, and whether it is checked (has a
/// choice site).
pub fn shift_checks(insts: &[Inst]) -> Vec<(BinOp, bool)> {
    insts
        .iter()
        .filter_map(|i| match i {
            Inst::Binary { op, site, .. }
                if matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr) =>
            {
                Some((*op, site.is_some()))
            }
            _ => None,
        })
        .collect()
}

/// The offsets of the addresses `insts` compute as a base plus a
/// constant (a getelementptr without variable indices), in order.
pub fn address_offsets(insts: &[Inst]) -> Vec<i64> {
    insts
        .iter()
        .filter_map(|i| match i {
            Inst::Gep {
                offset, indices, ..
            } if indices.is_empty() => Some(*offset),
            _ => None,
        })
        .collect()
}

/// Prints a module's lowered functions (for debugging a failing test).
#[allow(dead_code)]
pub fn dump(m: &Module) {
    for f in &m.functions {
        eprintln!(
            "fn {} {:?} -> {:?} hash {:016x}",
            f.name, f.params, f.ret_width, f.hash
        );
        if let Some(b) = &f.body {
            for (i, inst) in b.insts.iter().enumerate() {
                eprintln!("  {i:3} {:?}", inst);
            }
        }
    }
}
