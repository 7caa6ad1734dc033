//! Calls: of functions (direct or through a pointer), of `llvm.*`
//! intrinsics (`intrinsic`, and `vector_calls` for vector ones) and of
//! inline assembly, whose templates the engine knows or rewrites.

use inkwell::llvm_sys::{LLVMOpcode as O, LLVMTypeKind as K, LLVMValueKind as VK};

use super::{vector, FnLower};
use crate::ir::asm::{self, AsmArith, AsmOp};
use crate::ir::ffi::Val;
use crate::ir::{ByVal, Callee, Const, Inst, Operand};

/// The function a call targets, looking through pointer casts and aliases.
pub(super) fn called_function(call: Val) -> Option<Val> {
    let mut v = call.called_value()?;
    for _ in 0..16 {
        match v.kind() {
            VK::LLVMFunctionValueKind => return Some(v),
            VK::LLVMGlobalAliasValueKind => v = v.aliasee()?,
            VK::LLVMConstantExprValueKind
                if matches!(v.const_opcode(), O::LLVMBitCast | O::LLVMAddrSpaceCast) =>
            {
                v = v.operand(0)?
            }
            _ => return None,
        }
    }
    None
}

/// The name of the `llvm.*` function a call targets, if any.
pub(super) fn intrinsic_name(call: Val) -> Option<String> {
    let f = called_function(call)?;
    let name = f.name();
    name.starts_with("llvm.").then_some(name)
}

impl FnLower<'_> {
    /// A call of inline assembly: one of the templates the engine knows or
    /// the lowering rewrites, else unsupported, naming the template.
    fn inline_asm(&mut self, inst: Val, callee: Val) -> Result<(), String> {
        let text = callee.print();
        let (template, constraints) = asm::strings(&text).unwrap_or_default();
        if let Some(op) = AsmArith::recognise(&template, &constraints) {
            return self.asm_arith(inst, op);
        }
        let Some(op) = AsmOp::recognise(&template, &constraints) else {
            return Err(format!("inline assembly \"{}\"", template.escape_debug()));
        };
        let addr = match op {
            AsmOp::Barrier => None,
            AsmOp::StoreFpuControl | AsmOp::LoadFpuControl => {
                Some(self.operand(self.op(inst, 0)?)?)
            }
        };
        self.out.push(Inst::Asm { op, addr });
        Ok(())
    }

    pub(super) fn call(&mut self, inst: Val) -> Result<(), String> {
        let callee_v = inst.called_value().ok_or("call without callee")?;
        if callee_v.kind() == VK::LLVMInlineAsmValueKind {
            return self.inline_asm(inst, callee_v);
        }
        let nargs = inst.num_arg_operands();
        let arg_vals: Vec<Val> = (0..nargs)
            .map(|i| self.op(inst, i))
            .collect::<Result<_, _>>()?;
        let void = inst.ty().kind() == K::LLVMVoidTypeKind;
        if let Some(name) = intrinsic_name(inst) {
            if vector::involves_vector(inst) {
                return self.vector_intrinsic(inst, &name, &arg_vals);
            }
            return self.intrinsic(inst, &name, &arg_vals, void);
        }
        // A vector result comes back packed, to be split into its lanes.
        let vector_ret = vector::is_vector(inst.ty());
        let ret_width = if void {
            None
        } else if vector_ret {
            Some(self.packed_width(inst.ty(), "return value")?)
        } else {
            Some(self.width(inst)?)
        };
        let mut args = Vec::with_capacity(arg_vals.len());
        for (i, &a) in arg_vals.iter().enumerate() {
            let mut arg = self.call_arg(a)?;
            if let Some(ty) = inst.byval_type(i as u32) {
                let size = self.cx.layout.alloc_size(ty).ok_or_else(|| {
                    format!("argument {} passed by value as an unsized type", i + 1)
                })?;
                let align = self.cx.layout.abi_align(ty);
                arg.byval = Some(ByVal { size, align });
            }
            args.push(arg);
        }
        let callee = match self.operand(callee_v)? {
            Operand::Const(id) => match self.cx.consts[id.index()] {
                Const::FuncAddr(f) => Callee::Direct(f),
                _ => Callee::Indirect(Operand::Const(id)),
            },
            r => Callee::Indirect(r),
        };
        let dst = match ret_width {
            Some(w) if vector_ret => Some(self.new_reg(w)),
            Some(_) => Some(self.dst(inst)?),
            None => None,
        };
        let site = self.site();
        self.out.push(Inst::Call {
            dst,
            ret_width,
            callee,
            args,
            site,
        });
        if let (Some(packed), true) = (dst, vector_ret) {
            let lanes = self.dst_lanes(inst)?;
            self.unpack(packed, inst.ty(), &lanes)?;
        }
        Ok(())
    }
}
