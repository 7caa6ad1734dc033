//! `--optimize`: LLVM's -O2 pipeline over the program's module before the
//! runtime is linked in, as KLEE's option of the same name optimizes
//! before running. The runtime is left as built: the engine knows some of
//! its functions by name, and inlining them would hide their calls.
//!
//! clang at -O0 marks every function `optnone` and `noinline` (unless
//! `-Xclang -disable-O0-optnone`, which `mnemo cc` gives); the optimizer
//! would leave such functions as they are, so both marks come off first,
//! together, since at -O0 clang adds them together.

use inkwell::attributes::{Attribute, AttributeLoc};
use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{CodeModel, InitializationConfig, RelocMode, Target, TargetMachine};
use inkwell::OptimizationLevel;

/// Runs LLVM's `default<O2>` pipeline over `module`, for the module's
/// target (the host's where it names none), after taking the -O0 marks
/// off its functions.
pub(super) fn optimize(module: &Module<'_>) -> Result<(), String> {
    let optnone = Attribute::get_named_enum_kind_id("optnone");
    let noinline = Attribute::get_named_enum_kind_id("noinline");
    for f in module.get_functions() {
        if f.get_enum_attribute(AttributeLoc::Function, optnone)
            .is_some()
        {
            f.remove_enum_attribute(AttributeLoc::Function, optnone);
            f.remove_enum_attribute(AttributeLoc::Function, noinline);
        }
    }
    Target::initialize_x86(&InitializationConfig::default());
    let triple = module.get_triple();
    let triple = if triple.as_str().to_bytes().is_empty() {
        TargetMachine::get_default_triple()
    } else {
        triple
    };
    let target = Target::from_triple(&triple).map_err(|e| e.to_string())?;
    let machine = target
        .create_target_machine(
            &triple,
            "",
            "",
            OptimizationLevel::Default,
            RelocMode::Default,
            CodeModel::Default,
        )
        .ok_or_else(|| {
            format!(
                "no target machine for {}",
                triple.as_str().to_string_lossy()
            )
        })?;
    module
        .run_passes("default<O2>", &machine, PassBuilderOptions::create())
        .map_err(|e| e.to_string())
}
