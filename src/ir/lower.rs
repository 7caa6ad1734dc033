//! Lowering one LLVM function body into a flat, pre-decoded `Body`.
//!
//! Two passes: the first numbers blocks and registers (so phis and
//! branches can refer forward), the second translates each instruction.
//! An instruction mnemo cannot execute becomes `Inst::Unsupported` in place,
//! which keeps the rest of the function usable.

use super::asm::{self, AsmOp};
use super::consts::{bin_op, describe, int_predicate, Cx};
use super::ffi::{Bb, Val};
use super::{
    Arg, Block, BlockId, Body, Callee, CastOp, Const, FBinOp, FCastOp, FloatPredicate, FloatTy,
    GepIndex, Inst, InstId, Intrinsic, Operand, Reg, SiteId, SourceLoc,
};
use inkwell::llvm_sys::{
    LLVMOpcode as O, LLVMRealPredicate, LLVMTypeKind as K, LLVMValueKind as VK,
};
use rustc_hash::FxHashMap;

/// What a call to a function named `llvm.*` becomes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum IntrinsicUse {
    /// No effect on mnemo's semantics (debug info, lifetimes, hints).
    Drop,
    /// The result is the first argument (`llvm.expect.*` and similar).
    Copy,
    /// An `Inst::Intrinsic`, with at most this many leading arguments.
    Exec(Intrinsic, usize),
    /// `llvm.fmuladd.*`: a multiply then an add.
    FMulAdd,
    Unknown,
}

fn classify_intrinsic(name: &str) -> IntrinsicUse {
    use Intrinsic as I;
    use IntrinsicUse::*;
    const DROP_PREFIX: &[&str] = &[
        "llvm.dbg.",
        "llvm.lifetime.",
        "llvm.experimental.noalias.scope.decl",
        "llvm.var.annotation",
        "llvm.prefetch",
        "llvm.invariant.end",
        "llvm.pseudoprobe",
        "llvm.codeview.annotation",
    ];
    const DROP_EXACT: &[&str] = &["llvm.assume", "llvm.donothing", "llvm.sideeffect"];
    const COPY_PREFIX: &[&str] = &[
        "llvm.expect.",
        "llvm.annotation.",
        "llvm.ptr.annotation.",
        "llvm.launder.invariant.group",
        "llvm.strip.invariant.group",
        "llvm.ssa.copy.",
    ];
    const EXEC_PREFIX: &[(&str, Intrinsic, usize)] = &[
        ("llvm.memcpy.", I::Memcpy, 3),
        ("llvm.memmove.", I::Memmove, 3),
        ("llvm.memset.", I::Memset, 3),
        (
            "llvm.sadd.with.overflow.",
            I::AddOverflow { signed: true },
            2,
        ),
        (
            "llvm.uadd.with.overflow.",
            I::AddOverflow { signed: false },
            2,
        ),
        (
            "llvm.ssub.with.overflow.",
            I::SubOverflow { signed: true },
            2,
        ),
        (
            "llvm.usub.with.overflow.",
            I::SubOverflow { signed: false },
            2,
        ),
        (
            "llvm.smul.with.overflow.",
            I::MulOverflow { signed: true },
            2,
        ),
        (
            "llvm.umul.with.overflow.",
            I::MulOverflow { signed: false },
            2,
        ),
        ("llvm.abs.", I::Abs, 2),
        ("llvm.smin.", I::SMin, 2),
        ("llvm.smax.", I::SMax, 2),
        ("llvm.umin.", I::UMin, 2),
        ("llvm.umax.", I::UMax, 2),
        ("llvm.bswap.", I::Bswap, 1),
        ("llvm.ctpop.", I::Ctpop, 1),
        ("llvm.ctlz.", I::Ctlz, 2),
        ("llvm.cttz.", I::Cttz, 2),
        ("llvm.fshl.", I::Fshl, 3),
        ("llvm.fshr.", I::Fshr, 3),
        ("llvm.fabs.", I::FAbs, 1),
        ("llvm.objectsize.", I::ObjectSize, 4),
    ];
    const EXEC_EXACT: &[(&str, Intrinsic, usize)] = &[
        ("llvm.va_start", I::VaStart, 1),
        ("llvm.va_end", I::VaEnd, 1),
        ("llvm.va_copy", I::VaCopy, 2),
        ("llvm.trap", I::Trap, 0),
        ("llvm.debugtrap", I::Trap, 0),
        ("llvm.stacksave", I::StackSave, 0),
        ("llvm.stackrestore", I::StackRestore, 1),
    ];
    if DROP_EXACT.contains(&name) || DROP_PREFIX.iter().any(|p| name.starts_with(p)) {
        return Drop;
    }
    if COPY_PREFIX.iter().any(|p| name.starts_with(p)) {
        return Copy;
    }
    if let Some(&(_, k, n)) = EXEC_EXACT.iter().find(|(p, _, _)| name == *p) {
        return Exec(k, n);
    }
    if let Some(&(_, k, n)) = EXEC_PREFIX.iter().find(|(p, _, _)| name.starts_with(p)) {
        return Exec(k, n);
    }
    if name.starts_with("llvm.fmuladd.") {
        return FMulAdd;
    }
    Unknown
}

/// The function a call targets, looking through pointer casts and aliases.
fn called_function(call: Val) -> Option<Val> {
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
fn intrinsic_name(call: Val) -> Option<String> {
    let f = called_function(call)?;
    let name = f.name();
    name.starts_with("llvm.").then_some(name)
}

/// Whether an instruction disappears from the lowered body.
fn is_dropped(inst: Val) -> bool {
    inst.opcode() == O::LLVMCall
        && inst.ty().kind() == K::LLVMVoidTypeKind
        && intrinsic_name(inst).is_some_and(|n| classify_intrinsic(&n) == IntrinsicUse::Drop)
}

fn opcode_name(op: O) -> &'static str {
    match op {
        O::LLVMRet => "ret",
        O::LLVMBr => "br",
        O::LLVMSwitch => "switch",
        O::LLVMIndirectBr => "indirectbr",
        O::LLVMInvoke => "invoke",
        O::LLVMUnreachable => "unreachable",
        O::LLVMCallBr => "callbr",
        O::LLVMFNeg => "fneg",
        O::LLVMAdd => "add",
        O::LLVMFAdd => "fadd",
        O::LLVMSub => "sub",
        O::LLVMFSub => "fsub",
        O::LLVMMul => "mul",
        O::LLVMFMul => "fmul",
        O::LLVMUDiv => "udiv",
        O::LLVMSDiv => "sdiv",
        O::LLVMFDiv => "fdiv",
        O::LLVMURem => "urem",
        O::LLVMSRem => "srem",
        O::LLVMFRem => "frem",
        O::LLVMShl => "shl",
        O::LLVMLShr => "lshr",
        O::LLVMAShr => "ashr",
        O::LLVMAnd => "and",
        O::LLVMOr => "or",
        O::LLVMXor => "xor",
        O::LLVMAlloca => "alloca",
        O::LLVMLoad => "load",
        O::LLVMStore => "store",
        O::LLVMGetElementPtr => "getelementptr",
        O::LLVMTrunc => "trunc",
        O::LLVMZExt => "zext",
        O::LLVMSExt => "sext",
        O::LLVMFPToUI => "fptoui",
        O::LLVMFPToSI => "fptosi",
        O::LLVMUIToFP => "uitofp",
        O::LLVMSIToFP => "sitofp",
        O::LLVMFPTrunc => "fptrunc",
        O::LLVMFPExt => "fpext",
        O::LLVMPtrToInt => "ptrtoint",
        O::LLVMIntToPtr => "inttoptr",
        O::LLVMBitCast => "bitcast",
        O::LLVMAddrSpaceCast => "addrspacecast",
        O::LLVMICmp => "icmp",
        O::LLVMFCmp => "fcmp",
        O::LLVMPHI => "phi",
        O::LLVMCall => "call",
        O::LLVMSelect => "select",
        O::LLVMUserOp1 | O::LLVMUserOp2 => "user-defined operation",
        O::LLVMVAArg => "va_arg",
        O::LLVMExtractElement => "extractelement",
        O::LLVMInsertElement => "insertelement",
        O::LLVMShuffleVector => "shufflevector",
        O::LLVMExtractValue => "extractvalue",
        O::LLVMInsertValue => "insertvalue",
        O::LLVMFreeze => "freeze",
        O::LLVMFence => "fence",
        O::LLVMAtomicCmpXchg => "cmpxchg",
        O::LLVMAtomicRMW => "atomicrmw",
        O::LLVMResume => "resume",
        O::LLVMLandingPad => "landingpad",
        O::LLVMCleanupRet => "cleanupret",
        O::LLVMCatchRet => "catchret",
        O::LLVMCatchPad => "catchpad",
        O::LLVMCleanupPad => "cleanuppad",
        O::LLVMCatchSwitch => "catchswitch",
    }
}

/// The message of an `Inst::Unsupported` for an instruction `reason` says mnemo cannot run.
fn unsupported_message(opcode: O, reason: &str) -> String {
    if reason.starts_with("instruction `") || reason.starts_with("intrinsic `") {
        format!("unsupported {reason}")
    } else {
        format!("unsupported {reason} in `{}`", opcode_name(opcode))
    }
}

fn float_predicate(p: LLVMRealPredicate) -> FloatPredicate {
    use LLVMRealPredicate as P;
    match p {
        P::LLVMRealPredicateFalse => FloatPredicate::False,
        P::LLVMRealOEQ => FloatPredicate::Oeq,
        P::LLVMRealOGT => FloatPredicate::Ogt,
        P::LLVMRealOGE => FloatPredicate::Oge,
        P::LLVMRealOLT => FloatPredicate::Olt,
        P::LLVMRealOLE => FloatPredicate::Ole,
        P::LLVMRealONE => FloatPredicate::One,
        P::LLVMRealORD => FloatPredicate::Ord,
        P::LLVMRealUNO => FloatPredicate::Uno,
        P::LLVMRealUEQ => FloatPredicate::Ueq,
        P::LLVMRealUGT => FloatPredicate::Ugt,
        P::LLVMRealUGE => FloatPredicate::Uge,
        P::LLVMRealULT => FloatPredicate::Ult,
        P::LLVMRealULE => FloatPredicate::Ule,
        P::LLVMRealUNE => FloatPredicate::Une,
        P::LLVMRealPredicateTrue => FloatPredicate::True,
    }
}

/// Lowers the body of the defined function `f`.
pub(super) fn lower_body(cx: &mut Cx, f: Val) -> Body {
    let mut fl = FnLower {
        cx,
        regs: FxHashMap::default(),
        reg_widths: Vec::new(),
        blocks: FxHashMap::default(),
        insts: Vec::new(),
        locs: Vec::new(),
        block_of: Vec::new(),
        num_sites: 0,
        out: Vec::new(),
    };
    fl.run(f)
}

struct FnLower<'a> {
    cx: &'a mut Cx,
    regs: FxHashMap<Val, Reg>,
    reg_widths: Vec<u32>,
    blocks: FxHashMap<Bb, BlockId>,
    insts: Vec<Inst>,
    locs: Vec<Option<SourceLoc>>,
    block_of: Vec<BlockId>,
    num_sites: u32,
    /// The instructions the current LLVM instruction lowers to.
    out: Vec<Inst>,
}

impl FnLower<'_> {
    fn new_reg(&mut self, width: u32) -> Reg {
        let r = Reg(self.reg_widths.len() as u32);
        self.reg_widths.push(width);
        r
    }

    fn run(&mut self, f: Val) -> Body {
        for p in f.params() {
            let w = self.cx.layout.lenient_width(p.ty());
            let r = self.new_reg(w);
            self.regs.insert(p, r);
        }
        let bbs = f.basic_blocks();
        let code: Vec<Vec<Val>> = bbs.iter().map(|b| b.instructions()).collect();
        for (i, &b) in bbs.iter().enumerate() {
            self.blocks.insert(b, BlockId(i as u32));
        }
        for inst in code.iter().flatten() {
            if inst.ty().kind() != K::LLVMVoidTypeKind && !is_dropped(*inst) {
                let w = self.cx.layout.lenient_width(inst.ty());
                let r = self.new_reg(w);
                self.regs.insert(*inst, r);
            }
        }

        let mut blocks = Vec::with_capacity(bbs.len());
        for (bi, insts) in code.iter().enumerate() {
            let block = BlockId(bi as u32);
            let first = self.insts.len();
            for &inst in insts {
                if is_dropped(inst) {
                    continue;
                }
                let loc = self.cx.inst_loc(inst);
                let (sites, regs) = (self.num_sites, self.reg_widths.len());
                self.out.clear();
                if let Err(reason) = self.lower(inst) {
                    // Undo what the failed attempt numbered, so sites stay dense.
                    self.num_sites = sites;
                    self.reg_widths.truncate(regs);
                    self.out.clear();
                    self.out.push(Inst::Unsupported {
                        what: unsupported_message(inst.opcode(), &reason),
                    });
                }
                for i in self.out.drain(..) {
                    self.insts.push(i);
                    self.locs.push(loc);
                    self.block_of.push(block);
                }
            }
            if self.insts.len() == first {
                self.insts.push(Inst::Unsupported {
                    what: "basic block without a terminator".into(),
                });
                self.locs.push(None);
                self.block_of.push(block);
            }
            let phis = self.insts[first..]
                .iter()
                .take_while(|i| matches!(i, Inst::Phi { .. }))
                .count();
            blocks.push(Block {
                first: InstId(first as u32),
                body_start: InstId((first + phis) as u32),
                end: InstId(self.insts.len() as u32),
            });
        }
        Body {
            blocks,
            insts: std::mem::take(&mut self.insts),
            locs: std::mem::take(&mut self.locs),
            block_of: std::mem::take(&mut self.block_of),
            num_regs: self.reg_widths.len() as u32,
            num_sites: self.num_sites,
            reg_widths: std::mem::take(&mut self.reg_widths),
        }
    }

    fn site(&mut self) -> SiteId {
        let s = SiteId(self.num_sites);
        self.num_sites += 1;
        s
    }

    fn dst(&self, inst: Val) -> Result<Reg, String> {
        self.regs
            .get(&inst)
            .copied()
            .ok_or_else(|| "instruction result without a register".to_string())
    }

    fn block(&self, b: Option<Bb>) -> Result<BlockId, String> {
        b.and_then(|b| self.blocks.get(&b).copied())
            .ok_or_else(|| "branch to an unknown block".to_string())
    }

    fn op(&self, inst: Val, i: u32) -> Result<Val, String> {
        inst.operand(i)
            .ok_or_else(|| format!("malformed instruction `{}`", describe(inst)))
    }

    fn operand(&mut self, v: Val) -> Result<Operand, String> {
        if let Some(&r) = self.regs.get(&v) {
            return Ok(Operand::Reg(r));
        }
        match v.kind() {
            VK::LLVMInstructionValueKind | VK::LLVMArgumentValueKind => {
                Err(format!("use of `{}`, which has no value", describe(v)))
            }
            VK::LLVMInlineAsmValueKind => Err("inline assembly".to_string()),
            _ if v.is_constant() => self.cx.constant(v).map(Operand::Const),
            _ => Err(format!("operand `{}`", describe(v))),
        }
    }

    fn width(&self, v: Val) -> Result<u32, String> {
        self.cx.layout.value_width(v.ty())
    }

    fn float(&self, v: Val) -> Result<FloatTy, String> {
        let ty = v.ty();
        self.cx.layout.float_ty(ty).ok_or_else(|| {
            (self.cx.layout.value_width(ty).err())
                .unwrap_or_else(|| format!("type `{}`", ty.print()))
        })
    }

    /// Translates one instruction into `self.out`; `Err` says why mnemo cannot execute it.
    fn lower(&mut self, inst: Val) -> Result<(), String> {
        let opcode = inst.opcode();
        if let Some(op) = bin_op(opcode) {
            if inst.ty().kind() != K::LLVMIntegerTypeKind {
                return Err(format!("vector operation `{}`", describe(inst)));
            }
            let width = self.width(inst)?;
            let lhs = self.operand(self.op(inst, 0)?)?;
            let rhs = self.operand(self.op(inst, 1)?)?;
            let dst = self.dst(inst)?;
            let site = super::semantics::is_checked(op).then(|| self.site());
            self.out.push(Inst::Binary {
                op,
                width,
                lhs,
                rhs,
                dst,
                site,
            });
            return Ok(());
        }
        match opcode {
            O::LLVMFAdd | O::LLVMFSub | O::LLVMFMul | O::LLVMFDiv | O::LLVMFRem => {
                let op = match opcode {
                    O::LLVMFAdd => FBinOp::Add,
                    O::LLVMFSub => FBinOp::Sub,
                    O::LLVMFMul => FBinOp::Mul,
                    O::LLVMFDiv => FBinOp::Div,
                    _ => FBinOp::Rem,
                };
                let ty = self.float(inst)?;
                let lhs = self.operand(self.op(inst, 0)?)?;
                let rhs = self.operand(self.op(inst, 1)?)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::FBinary {
                    op,
                    ty,
                    lhs,
                    rhs,
                    dst,
                });
            }
            O::LLVMFNeg => {
                let ty = self.float(inst)?;
                let src = self.operand(self.op(inst, 0)?)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::FNeg { ty, src, dst });
            }
            O::LLVMICmp => {
                let l = self.op(inst, 0)?;
                if inst.ty().kind() != K::LLVMIntegerTypeKind {
                    return Err("vector comparison".to_string());
                }
                let width = self.width(l)?;
                let lhs = self.operand(l)?;
                let rhs = self.operand(self.op(inst, 1)?)?;
                let dst = self.dst(inst)?;
                let pred = int_predicate(inst.icmp_predicate());
                self.out.push(Inst::ICmp {
                    pred,
                    width,
                    lhs,
                    rhs,
                    dst,
                });
            }
            O::LLVMFCmp => {
                let l = self.op(inst, 0)?;
                let ty = self.float(l)?;
                let lhs = self.operand(l)?;
                let rhs = self.operand(self.op(inst, 1)?)?;
                let dst = self.dst(inst)?;
                let pred = float_predicate(inst.fcmp_predicate());
                self.out.push(Inst::FCmp {
                    pred,
                    ty,
                    lhs,
                    rhs,
                    dst,
                });
            }
            O::LLVMTrunc | O::LLVMZExt | O::LLVMSExt => {
                let op = match opcode {
                    O::LLVMTrunc => CastOp::Trunc,
                    O::LLVMZExt => CastOp::ZExt,
                    _ => CastOp::SExt,
                };
                self.cast(inst, op)?;
            }
            O::LLVMPtrToInt
            | O::LLVMIntToPtr
            | O::LLVMBitCast
            | O::LLVMAddrSpaceCast
            | O::LLVMFreeze => {
                self.cast(inst, CastOp::Bits)?;
            }
            O::LLVMFPToSI | O::LLVMFPToUI | O::LLVMSIToFP | O::LLVMUIToFP => {
                let s = self.op(inst, 0)?;
                // The float side is the source of a float-to-int conversion
                // and the result of an int-to-float one.
                let (op, float, int_width) = match opcode {
                    O::LLVMFPToSI => (FCastOp::ToSigned, self.float(s)?, self.width(inst)?),
                    O::LLVMFPToUI => (FCastOp::ToUnsigned, self.float(s)?, self.width(inst)?),
                    O::LLVMSIToFP => (FCastOp::FromSigned, self.float(inst)?, self.width(s)?),
                    _ => (FCastOp::FromUnsigned, self.float(inst)?, self.width(s)?),
                };
                let src = self.operand(s)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::FCast {
                    op,
                    float,
                    to_float: float,
                    int_width,
                    src,
                    dst,
                });
            }
            O::LLVMFPTrunc | O::LLVMFPExt => {
                let s = self.op(inst, 0)?;
                let float = self.float(s)?;
                let to_float = self.float(inst)?;
                let src = self.operand(s)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::FCast {
                    op: FCastOp::Resize,
                    float,
                    to_float,
                    int_width: 0,
                    src,
                    dst,
                });
            }
            O::LLVMSelect => {
                let c = self.op(inst, 0)?;
                if c.ty().kind() != K::LLVMIntegerTypeKind {
                    return Err("vector select".to_string());
                }
                let width = self.width(inst)?;
                let cond = self.operand(c)?;
                let then_val = self.operand(self.op(inst, 1)?)?;
                let else_val = self.operand(self.op(inst, 2)?)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::Select {
                    width,
                    cond,
                    then_val,
                    else_val,
                    dst,
                });
            }
            O::LLVMPHI => {
                let width = self.width(inst)?;
                let mut incoming = Vec::with_capacity(inst.count_incoming() as usize);
                for i in 0..inst.count_incoming() {
                    let (v, b) = inst.incoming(i).ok_or("malformed phi")?;
                    incoming.push((self.block(Some(b))?, self.operand(v)?));
                }
                let dst = self.dst(inst)?;
                self.out.push(Inst::Phi {
                    width,
                    dst,
                    incoming,
                });
            }
            O::LLVMAlloca => {
                let ty = inst.alloca_type();
                let elem_size = self
                    .cx
                    .layout
                    .alloc_size(ty)
                    .ok_or_else(|| format!("alloca of unsized type `{}`", ty.print()))?;
                let c = self.op(inst, 0)?;
                let count_width = self.width(c)?;
                let count = self.operand(c)?;
                let align = inst.alignment().max(1);
                let dst = self.dst(inst)?;
                self.out.push(Inst::Alloca {
                    dst,
                    elem_size,
                    count,
                    count_width,
                    align,
                });
            }
            O::LLVMLoad => {
                // Atomic loads and stores are plain ones for a single-threaded interpreter.
                let a = self.op(inst, 0)?;
                self.pointer(a)?;
                let width = self.width(inst)?;
                let bytes = self.store_bytes(inst)?;
                let addr = self.operand(a)?;
                let dst = self.dst(inst)?;
                let site = self.site();
                self.out.push(Inst::Load {
                    dst,
                    addr,
                    width,
                    bytes,
                    site,
                });
            }
            O::LLVMStore => {
                let v = self.op(inst, 0)?;
                let a = self.op(inst, 1)?;
                self.pointer(a)?;
                let width = self.width(v)?;
                let bytes = self.store_bytes(v)?;
                let value = self.operand(v)?;
                let addr = self.operand(a)?;
                let site = self.site();
                self.out.push(Inst::Store {
                    value,
                    addr,
                    width,
                    bytes,
                    site,
                });
            }
            O::LLVMGetElementPtr => {
                let b = self.op(inst, 0)?;
                self.pointer(b)?;
                let idx: Vec<Val> = (1..inst.num_operands())
                    .filter_map(|i| inst.operand(i))
                    .collect();
                let plan = self.cx.layout.gep_plan(inst.gep_source_type(), &idx)?;
                let base = self.operand(b)?;
                let mut indices = Vec::with_capacity(plan.vars.len());
                for (v, scale) in plan.vars {
                    let width = self.width(v)?;
                    indices.push(GepIndex {
                        value: self.operand(v)?,
                        width,
                        scale,
                    });
                }
                let dst = self.dst(inst)?;
                self.out.push(Inst::Gep {
                    dst,
                    base,
                    offset: plan.offset,
                    indices,
                });
            }
            O::LLVMExtractValue => {
                let a = self.op(inst, 0)?;
                self.width(a)?;
                let (offset, _) = self.cx.layout.aggregate_offset(a.ty(), &inst.indices())?;
                let width = self.width(inst)?;
                let agg = self.operand(a)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::ExtractValue {
                    dst,
                    agg,
                    offset,
                    width,
                });
            }
            O::LLVMInsertValue => {
                let a = self.op(inst, 0)?;
                let e = self.op(inst, 1)?;
                let agg_width = self.width(inst)?;
                let (offset, _) = self
                    .cx
                    .layout
                    .aggregate_offset(inst.ty(), &inst.indices())?;
                let width = self.width(e)?;
                let agg = self.operand(a)?;
                let elem = self.operand(e)?;
                let dst = self.dst(inst)?;
                self.out.push(Inst::InsertValue {
                    dst,
                    agg,
                    agg_width,
                    elem,
                    offset,
                    width,
                });
            }
            O::LLVMBr => {
                if inst.is_conditional() {
                    let c = inst.condition().ok_or("malformed branch")?;
                    let cond = self.operand(c)?;
                    let then_bb = self.block(inst.successor(0))?;
                    let else_bb = self.block(inst.successor(1))?;
                    let site = self.site();
                    self.out.push(Inst::CondBr {
                        cond,
                        then_bb,
                        else_bb,
                        site,
                    });
                } else {
                    let target = self.block(inst.successor(0))?;
                    self.out.push(Inst::Br { target });
                }
            }
            O::LLVMSwitch => {
                let c = self.op(inst, 0)?;
                let width = self.width(c)?;
                let cond = self.operand(c)?;
                let default = self.block(inst.switch_default())?;
                let mut cases = Vec::new();
                let mut i = 2;
                while i + 1 < inst.num_operands() {
                    let v = self.op(inst, i)?;
                    let bits = v.const_int_bits().ok_or("switch case value")?;
                    cases.push((bits, self.block(inst.operand_block(i + 1))?));
                    i += 2;
                }
                let site = self.site();
                self.out.push(Inst::Switch {
                    cond,
                    width,
                    cases,
                    default,
                    site,
                });
            }
            O::LLVMRet => {
                let value = match inst.operand(0) {
                    Some(v) => {
                        self.width(v)?;
                        Some(self.operand(v)?)
                    }
                    None => None,
                };
                self.out.push(Inst::Ret { value });
            }
            O::LLVMUnreachable => self.out.push(Inst::Unreachable),
            O::LLVMCall => self.call(inst)?,
            other => return Err(format!("instruction `{}`", opcode_name(other))),
        }
        Ok(())
    }

    fn pointer(&self, v: Val) -> Result<(), String> {
        if v.ty().kind() == K::LLVMPointerTypeKind {
            Ok(())
        } else {
            Err(format!("address of type `{}`", v.ty().print()))
        }
    }

    fn store_bytes(&self, v: Val) -> Result<u32, String> {
        let n = self
            .cx
            .layout
            .store_size(v.ty())
            .ok_or("access to an unsized type")?;
        u32::try_from(n).map_err(|_| "access size".to_string())
    }

    fn cast(&mut self, inst: Val, op: CastOp) -> Result<(), String> {
        let s = self.op(inst, 0)?;
        let from = self.width(s)?;
        let to = self.width(inst)?;
        let src = self.operand(s)?;
        let dst = self.dst(inst)?;
        self.out.push(Inst::Cast {
            op,
            from,
            to,
            src,
            dst,
        });
        Ok(())
    }

    /// A call of inline assembly: one of the templates the engine knows,
    /// else unsupported, naming the template.
    fn inline_asm(&mut self, inst: Val, callee: Val) -> Result<(), String> {
        let text = callee.print();
        let (template, constraints) = asm::strings(&text).unwrap_or_default();
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

    fn call(&mut self, inst: Val) -> Result<(), String> {
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
            return self.intrinsic(inst, &name, &arg_vals, void);
        }
        let ret_width = if void { None } else { Some(self.width(inst)?) };
        let mut args = Vec::with_capacity(arg_vals.len());
        for &a in &arg_vals {
            let width = self.width(a).map_err(|e| format!("{e} as call argument"))?;
            args.push(Arg {
                value: self.operand(a)?,
                width,
            });
        }
        let callee = match self.operand(callee_v)? {
            Operand::Const(id) => match self.cx.consts[id.index()] {
                Const::FuncAddr(f) => Callee::Direct(f),
                _ => Callee::Indirect(Operand::Const(id)),
            },
            r => Callee::Indirect(r),
        };
        let dst = if void { None } else { Some(self.dst(inst)?) };
        let site = self.site();
        self.out.push(Inst::Call {
            dst,
            ret_width,
            callee,
            args,
            site,
        });
        Ok(())
    }

    fn intrinsic(&mut self, inst: Val, name: &str, args: &[Val], void: bool) -> Result<(), String> {
        let dst = if void { None } else { Some(self.dst(inst)?) };
        match classify_intrinsic(name) {
            IntrinsicUse::Drop | IntrinsicUse::Unknown => Err(format!("intrinsic `{name}`")),
            IntrinsicUse::Copy => {
                let s = *args.first().ok_or("intrinsic without argument")?;
                let from = self.width(s)?;
                let to = self.width(inst)?;
                let src = self.operand(s)?;
                let dst = dst.ok_or("intrinsic without result")?;
                self.out.push(Inst::Cast {
                    op: CastOp::Bits,
                    from,
                    to,
                    src,
                    dst,
                });
                Ok(())
            }
            IntrinsicUse::FMulAdd => {
                let ty = self.float(inst)?;
                let [a, b, c] = args else {
                    return Err(format!("malformed call to `{name}`"));
                };
                let (a, b, c) = (self.operand(*a)?, self.operand(*b)?, self.operand(*c)?);
                let dst = dst.ok_or("intrinsic without result")?;
                let tmp = self.new_reg(if ty == FloatTy::F32 { 32 } else { 64 });
                self.out.push(Inst::FBinary {
                    op: FBinOp::Mul,
                    ty,
                    lhs: a,
                    rhs: b,
                    dst: tmp,
                });
                self.out.push(Inst::FBinary {
                    op: FBinOp::Add,
                    ty,
                    lhs: Operand::Reg(tmp),
                    rhs: c,
                    dst,
                });
                Ok(())
            }
            IntrinsicUse::Exec(kind, max_args) => {
                if kind == Intrinsic::FAbs {
                    self.float(inst)?;
                }
                let width = if void { 0 } else { self.width(inst)? };
                let mut ops = Vec::with_capacity(max_args);
                for &a in args.iter().take(max_args) {
                    self.width(a)?;
                    ops.push(self.operand(a)?);
                }
                self.out.push(Inst::Intrinsic {
                    kind,
                    dst,
                    width,
                    args: ops,
                });
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{classify_intrinsic, IntrinsicUse};
    use crate::ir::Intrinsic;

    #[test]
    fn intrinsic_names_are_classified() {
        assert_eq!(classify_intrinsic("llvm.dbg.declare"), IntrinsicUse::Drop);
        assert_eq!(
            classify_intrinsic("llvm.lifetime.start.p0i8"),
            IntrinsicUse::Drop
        );
        assert_eq!(classify_intrinsic("llvm.assume"), IntrinsicUse::Drop);
        assert_eq!(classify_intrinsic("llvm.expect.i64"), IntrinsicUse::Copy);
        assert_eq!(
            classify_intrinsic("llvm.memcpy.p0i8.p0i8.i64"),
            IntrinsicUse::Exec(Intrinsic::Memcpy, 3)
        );
        assert_eq!(
            classify_intrinsic("llvm.umul.with.overflow.i64"),
            IntrinsicUse::Exec(Intrinsic::MulOverflow { signed: false }, 2)
        );
        assert_eq!(
            classify_intrinsic("llvm.debugtrap"),
            IntrinsicUse::Exec(Intrinsic::Trap, 0)
        );
        assert_eq!(
            classify_intrinsic("llvm.fmuladd.f64"),
            IntrinsicUse::FMulAdd
        );
        assert_eq!(classify_intrinsic("llvm.sqrt.f64"), IntrinsicUse::Unknown);
    }
}

#[cfg(test)]
mod lowering_tests {
    use crate::ir::testutil::{body, func, interesting, load_c, load_ll};
    use crate::ir::{
        BinOp, BlockId, Callee, Const, FBinOp, FloatTy, Inst, Intrinsic, Module, Operand, Reg,
        SiteId,
    };

    fn konst(m: &Module, o: &Operand) -> Const {
        match o {
            Operand::Const(c) => m.constant(*c).clone(),
            Operand::Reg(r) => panic!("expected a constant, got register {r:?}"),
        }
    }

    /// Every site-carrying instruction, in order, with its site.
    fn sites(insts: &[Inst]) -> Vec<u32> {
        insts.iter().filter_map(|i| i.site().map(|s| s.0)).collect()
    }

    #[test]
    fn arithmetic_and_sites() {
        let Some(m) = load_c("int f(int a, int b) { return a * b + a / b - (a << b); }") else {
            return;
        };
        let f = func(&m, "f");
        assert_eq!(f.params, vec![32, 32]);
        assert_eq!(f.ret_width, Some(32));
        let b = body(&m, "f");
        let ops: Vec<(BinOp, bool)> = b
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Binary {
                    op,
                    width: 32,
                    site,
                    ..
                } => Some((*op, site.is_some())),
                _ => None,
            })
            .collect();
        assert_eq!(
            ops,
            vec![
                (BinOp::Mul, false),
                (BinOp::SDiv, true),
                (BinOp::Add, false),
                (BinOp::Shl, true),
                (BinOp::Sub, false)
            ]
        );
        let s = sites(&b.insts);
        assert_eq!(
            s,
            (0..b.num_sites).collect::<Vec<_>>(),
            "sites are dense and in instruction order"
        );
        assert!(
            b.num_sites >= 2 + 2 + 6,
            "2 checked binaries, 2 stores of params, 6 loads"
        );
        // Registers: 2 params then one per value-producing instruction.
        let produced = b
            .insts
            .iter()
            .filter(|i| !matches!(i, Inst::Store { .. } | Inst::Ret { .. }))
            .count();
        assert_eq!(b.num_regs as usize, 2 + produced);
        assert_eq!(b.reg_widths.len(), b.num_regs as usize);
        assert_eq!(b.reg_widths[0], 32);
        assert!(b
            .insts
            .iter()
            .all(|i| !matches!(i, Inst::Unsupported { .. })));
        assert_eq!(b.locs.len(), b.insts.len());
        assert_eq!(b.block_of.len(), b.insts.len());
    }

    #[test]
    fn phis_and_switch_from_textual_ir() {
        let m = load_ll(
            r#"
define i32 @f(i32 %x) {
entry:
  switch i32 %x, label %other [ i32 1, label %one
                                i32 -1, label %two ]
one:
  br label %join
two:
  %t = add i32 %x, 5
  br label %join
other:
  %c = icmp sgt i32 %x, 10
  br i1 %c, label %join, label %exit
join:
  %p = phi i32 [ 7, %one ], [ %t, %two ], [ %x, %other ]
  %q = phi i32 [ 0, %one ], [ 1, %two ], [ 2, %other ]
  %s = add i32 %p, %q
  ret i32 %s
exit:
  ret i32 0
}
"#,
        );
        let b = body(&m, "f");
        assert_eq!(b.blocks.len(), 6);
        let Inst::Switch {
            cond,
            width,
            cases,
            default,
            site,
        } = &b.insts[0]
        else {
            panic!("{:?}", b.insts[0])
        };
        assert_eq!(
            (*cond, *width, *default, *site),
            (Operand::Reg(Reg(0)), 32, BlockId(3), SiteId(0))
        );
        assert_eq!(cases, &vec![(1, BlockId(1)), (0xffff_ffff, BlockId(2))]);
        let join = b.block(BlockId(4));
        assert_eq!(join.body_start.0 - join.first.0, 2, "two phis");
        let Inst::Phi {
            width: 32,
            dst,
            incoming,
        } = &b.insts[join.first.index()]
        else {
            panic!()
        };
        assert_eq!(incoming.len(), 3);
        assert_eq!(incoming[0].0, BlockId(1));
        assert_eq!(konst(&m, &incoming[0].1), Const::Int { width: 32, bits: 7 });
        assert_eq!(incoming[1].0, BlockId(2));
        assert!(matches!(incoming[1].1, Operand::Reg(_)));
        assert_eq!(incoming[2], (BlockId(3), Operand::Reg(Reg(0))));
        // Registers: %x, %t, %c, %p, %q, %s.
        assert_eq!(b.num_regs, 6);
        assert_eq!(*dst, Reg(3));
        let Inst::CondBr {
            then_bb,
            else_bb,
            site,
            ..
        } = &b.insts[b.block(BlockId(3)).end.index() - 1]
        else {
            panic!()
        };
        assert_eq!(
            (*then_bb, *else_bb, *site),
            (BlockId(4), BlockId(5), SiteId(1))
        );
        assert_eq!(b.num_sites, 2);
        for (i, blk) in b.blocks.iter().enumerate() {
            for k in blk.first.index()..blk.end.index() {
                assert_eq!(b.block_of[k], BlockId(i as u32));
            }
        }
        assert_eq!(b.blocks[0].first.0, 0);
        assert_eq!(b.blocks.last().map(|x| x.end.index()), Some(b.insts.len()));
    }

    #[test]
    fn gep_offsets_in_structs_and_arrays() {
        let src = r#"
struct In { short a; long b; };
struct S { char c; int x; struct In in[3]; };
long get(struct S *s, int i) { return s->in[i].b + s->in[2].b + s->x; }
"#;
        let Some(m) = load_c(src) else { return };
        let b = body(&m, "get");
        let geps: Vec<(i64, Vec<(u32, u64)>)> = b
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Gep {
                    offset, indices, ..
                } => Some((
                    *offset,
                    indices.iter().map(|x| (x.width, x.scale)).collect(),
                )),
                _ => None,
            })
            .collect();
        // s->in (8), [i] (var, 16-byte elements), .b (8); s->in (8), [2] (32), .b (8); s->x (4)
        assert_eq!(
            geps,
            vec![
                (8, vec![]),
                (0, vec![(64, 16)]),
                (8, vec![]),
                (8, vec![]),
                (32, vec![]),
                (8, vec![]),
                (4, vec![])
            ]
        );
        let allocas: Vec<u64> = b
            .insts
            .iter()
            .filter_map(|i| {
                if let Inst::Alloca { elem_size, .. } = i {
                    Some(*elem_size)
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(allocas, vec![8, 4]);
        let loads: Vec<(u32, u32)> = b
            .insts
            .iter()
            .filter_map(|i| {
                if let Inst::Load { width, bytes, .. } = i {
                    Some((*width, *bytes))
                } else {
                    None
                }
            })
            .collect();
        assert!(loads.contains(&(64, 8)) && loads.contains(&(32, 4)));
    }

    #[test]
    fn calls_direct_indirect_and_through_casts() {
        let src = r#"
static int twice(int v) { return v * 2; }
int apply(int (*fp)(int), int v) { return fp(v) + twice(v); }
"#;
        let Some(m) = load_c(src) else { return };
        let b = body(&m, "apply");
        let calls: Vec<&Inst> = b
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Call { .. }))
            .collect();
        assert_eq!(calls.len(), 2);
        let Inst::Call {
            callee: Callee::Indirect(Operand::Reg(_)),
            args,
            ret_width: Some(32),
            dst: Some(_),
            ..
        } = calls[0]
        else {
            panic!("{:?}", calls[0])
        };
        assert_eq!(args.len(), 1);
        assert_eq!(args[0].width, 32);
        let Inst::Call {
            callee: Callee::Direct(f),
            ..
        } = calls[1]
        else {
            panic!("{:?}", calls[1])
        };
        assert_eq!(m.func(*f).name, "twice");

        let m = load_ll(
            r#"
declare i32 @g(...)
define void @h() {
  %r = call i32 bitcast (i32 (...)* @g to i32 (i32)*)(i32 1)
  call void @h()
  ret void
}
"#,
        );
        let b = body(&m, "h");
        let Inst::Call {
            callee: Callee::Direct(g),
            args,
            site: SiteId(0),
            ..
        } = &b.insts[0]
        else {
            panic!()
        };
        assert_eq!(m.func(*g).name, "g");
        assert!(m.func(*g).body.is_none() && m.func(*g).is_vararg);
        assert_eq!(konst(&m, &args[0].value), Const::Int { width: 32, bits: 1 });
        let Inst::Call {
            dst: None,
            ret_width: None,
            site: SiteId(1),
            ..
        } = &b.insts[1]
        else {
            panic!()
        };
    }

    #[test]
    fn intrinsics_memcpy_memset_overflow() {
        let src = r#"
#include <string.h>
struct Big { long v[8]; };
int f(struct Big *a, struct Big *b, int x) {
  *a = *b;
  memset(b, 0, sizeof *b);
  int r;
  if (__builtin_sadd_overflow(x, 7, &r)) return -1;
  return r;
}
"#;
        let Some(m) = load_c(src) else { return };
        let b = body(&m, "f");
        let ints: Vec<(Intrinsic, u32, usize, bool)> = b
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Intrinsic {
                    kind,
                    width,
                    args,
                    dst,
                    ..
                } => Some((*kind, *width, args.len(), dst.is_some())),
                _ => None,
            })
            .collect();
        assert_eq!(
            ints,
            vec![
                (Intrinsic::Memcpy, 0, 3, false),
                (Intrinsic::Memset, 0, 3, false),
                (Intrinsic::AddOverflow { signed: true }, 64, 2, true),
            ]
        );
        let Some(Inst::Intrinsic { args, .. }) = b.insts.iter().find(|i| {
            matches!(
                i,
                Inst::Intrinsic {
                    kind: Intrinsic::Memcpy,
                    ..
                }
            )
        }) else {
            panic!()
        };
        assert_eq!(
            konst(&m, &args[2]),
            Const::Int {
                width: 64,
                bits: 64
            }
        );
        let extracts: Vec<(u32, u32)> = b
            .insts
            .iter()
            .filter_map(|i| {
                if let Inst::ExtractValue { offset, width, .. } = i {
                    Some((*offset, *width))
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(
            extracts,
            vec![(crate::ir::overflow_flag_offset(32), 1), (0, 32)]
        );
        assert!(
            interesting(b)
                .iter()
                .all(|i| !matches!(i, Inst::Call { .. })),
            "no llvm.dbg calls survive"
        );
    }

    #[test]
    fn floats_and_fmuladd() {
        let Some(m) =
            load_c("double f(int a, float g) { double d = a * 1.5 + 2.0; return d < g ? d : -d; }")
        else {
            return;
        };
        let b = body(&m, "f");
        let fb: Vec<(FBinOp, FloatTy)> = b
            .insts
            .iter()
            .filter_map(|i| {
                if let Inst::FBinary { op, ty, .. } = i {
                    Some((*op, *ty))
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(
            fb,
            vec![(FBinOp::Mul, FloatTy::F64), (FBinOp::Add, FloatTy::F64)]
        );
        let Some(Inst::FBinary { rhs, .. }) =
            b.insts.iter().find(|i| matches!(i, Inst::FBinary { .. }))
        else {
            panic!()
        };
        assert_eq!(
            konst(&m, rhs),
            Const::Int {
                width: 64,
                bits: u128::from(1.5f64.to_bits())
            }
        );
        assert!(b.insts.iter().any(|i| matches!(
            i,
            Inst::FCmp {
                ty: FloatTy::F64,
                ..
            }
        )));
        assert!(b.insts.iter().any(|i| matches!(
            i,
            Inst::FNeg {
                ty: FloatTy::F64,
                ..
            }
        )));
        assert!(b.insts.iter().any(|i| matches!(i, Inst::FCast { .. })));
        // The multiply's temporary is an extra register after the instruction registers.
        assert_eq!(*b.reg_widths.last().unwrap_or(&0), 64);
    }

    #[test]
    fn unsupported_instructions_do_not_fail_loading() {
        let m = load_ll(
            r#"
define i32 @f(i32* %p, x86_fp80 %l, <4 x i32> %v) {
  %a = atomicrmw add i32* %p, i32 1 seq_cst
  %b = fadd x86_fp80 %l, %l
  %c = add <4 x i32> %v, %v
  %d = load i32, i32* %p
  %e = call i32 @llvm.ctpop.i32(i32 %d)
  %f = call double @llvm.sqrt.f64(double 2.0)
  ret i32 %d
}
declare i32 @llvm.ctpop.i32(i32)
declare double @llvm.sqrt.f64(double)
"#,
        );
        let b = body(&m, "f");
        let what: Vec<String> = b
            .insts
            .iter()
            .filter_map(|i| {
                if let Inst::Unsupported { what } = i {
                    Some(what.clone())
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(what.len(), 4, "{what:?}");
        assert_eq!(what[0], "unsupported instruction `atomicrmw`");
        assert!(what[1].contains("x86_fp80"), "{}", what[1]);
        assert!(what[2].contains("vector"), "{}", what[2]);
        assert!(what[3].contains("llvm.sqrt.f64"), "{}", what[3]);
        // The load after them still has its site 0 and its register.
        let Inst::Load {
            dst,
            site: SiteId(0),
            ..
        } = &b.insts[3]
        else {
            panic!("{:?}", b.insts[3])
        };
        assert_eq!(*dst, Reg(6));
        assert!(matches!(
            b.insts[4],
            Inst::Intrinsic {
                kind: Intrinsic::Ctpop,
                width: 32,
                ..
            }
        ));
        assert_eq!(b.num_regs, 3 + 6);
    }

    #[test]
    fn wide_integers_and_constant_expressions() {
        let m = load_ll(
            r#"
@g = global [4 x i32] zeroinitializer
define i128 @f(i128 %x) {
  %a = add i128 %x, 170141183460469231731687303715884105727
  %p = getelementptr [4 x i32], [4 x i32]* @g, i64 0, i64 2
  %i = ptrtoint i32* getelementptr ([4 x i32], [4 x i32]* @g, i64 0, i64 3) to i64
  %j = add i64 %i, ptrtoint (i32* getelementptr ([4 x i32], [4 x i32]* @g, i64 1, i64 0) to i64)
  %k = select i1 icmp eq (i64 ptrtoint ([4 x i32]* @g to i64), i64 0), i32 1, i32 2
  ret i128 %a
}
"#,
        );
        let b = body(&m, "f");
        let Inst::Binary {
            rhs, width: 128, ..
        } = &b.insts[0]
        else {
            panic!()
        };
        assert_eq!(
            konst(&m, rhs),
            Const::Int {
                width: 128,
                bits: (1u128 << 127) - 1
            }
        );
        let g = m.global_index["g"];
        let Inst::Gep {
            base,
            offset: 8,
            indices,
            ..
        } = &b.insts[1]
        else {
            panic!("{:?}", b.insts[1])
        };
        assert!(indices.is_empty());
        assert_eq!(
            konst(&m, base),
            Const::GlobalAddr {
                global: g,
                offset: 0
            }
        );
        let Inst::Cast {
            src,
            from: 64,
            to: 64,
            ..
        } = &b.insts[2]
        else {
            panic!("{:?}", b.insts[2])
        };
        assert_eq!(
            konst(&m, src),
            Const::GlobalAddr {
                global: g,
                offset: 12
            }
        );
        let Inst::Binary { rhs, .. } = &b.insts[3] else {
            panic!()
        };
        assert_eq!(
            konst(&m, rhs),
            Const::GlobalAddr {
                global: g,
                offset: 16
            }
        );
        let Inst::Select { cond, .. } = &b.insts[4] else {
            panic!()
        };
        let Const::ICmp { lhs, .. } = konst(&m, cond) else {
            panic!()
        };
        assert_eq!(
            m.constant(lhs),
            &Const::GlobalAddr {
                global: g,
                offset: 0
            }
        );
        // Equal constants are pooled once.
        let mut seen = std::collections::HashSet::new();
        assert!(m.consts.iter().all(|c| seen.insert(c.clone())));
    }

    #[test]
    fn aggregates_in_registers() {
        let m = load_ll(
            r#"
define { i64, i32 } @f(i64 %a) {
  %s = insertvalue { i64, i32 } undef, i64 %a, 0
  %t = insertvalue { i64, i32 } %s, i32 7, 1
  %u = extractvalue { i64, i32 } %t, 1
  ret { i64, i32 } { i64 1, i32 2 }
}
"#,
        );
        let b = body(&m, "f");
        let Inst::InsertValue {
            agg,
            agg_width: 128,
            offset: 0,
            width: 64,
            ..
        } = &b.insts[0]
        else {
            panic!()
        };
        assert_eq!(konst(&m, agg), Const::Undef { width: 128 });
        assert!(matches!(
            b.insts[1],
            Inst::InsertValue {
                offset: 64,
                width: 32,
                ..
            }
        ));
        assert!(matches!(
            b.insts[2],
            Inst::ExtractValue {
                offset: 64,
                width: 32,
                ..
            }
        ));
        let Inst::Ret { value: Some(v) } = &b.insts[3] else {
            panic!()
        };
        let Const::Aggregate { width: 128, parts } = konst(&m, v) else {
            panic!()
        };
        let parts: Vec<(u32, Const)> = parts
            .iter()
            .map(|(o, c)| (*o, m.constant(*c).clone()))
            .collect();
        assert_eq!(
            parts,
            vec![
                (0, Const::Int { width: 64, bits: 1 }),
                (64, Const::Int { width: 32, bits: 2 })
            ]
        );
        assert_eq!(func(&m, "f").ret_width, Some(128));
    }

    #[test]
    fn debug_locations() {
        let src = "int f(int a) {\n  int b = a + 1;\n  return b * 3;\n}\n";
        let Some(m) = load_c(src) else { return };
        let f = func(&m, "f");
        let loc = f.loc.expect("function location");
        assert_eq!(loc.line, 1);
        assert!(
            m.files[loc.file.index()].ends_with("/t.c"),
            "{}",
            m.files[loc.file.index()]
        );
        let b = body(&m, "f");
        let line_of = |pred: &dyn Fn(&Inst) -> bool| {
            b.insts
                .iter()
                .zip(&b.locs)
                .find(|(i, _)| pred(i))
                .and_then(|(_, l)| *l)
                .map(|l| l.line)
        };
        assert_eq!(
            line_of(&|i| matches!(i, Inst::Binary { op: BinOp::Add, .. })),
            Some(2)
        );
        assert_eq!(
            line_of(&|i| matches!(i, Inst::Binary { op: BinOp::Mul, .. })),
            Some(3)
        );
        assert!(m.describe_loc(b.locs[b.locs.len() - 1]).ends_with("t.c:3"));
    }
}
