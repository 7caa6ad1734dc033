//! Lowering one LLVM function body into a flat, pre-decoded `Body`.
//!
//! Two passes: the first numbers blocks and registers (so phis and
//! branches can refer forward), the second translates each instruction.
//! An instruction mnemo cannot execute becomes `Inst::Unsupported` in place,
//! which keeps the rest of the function usable.

use super::consts::{bin_op, describe, float_op, int_cast, int_predicate, Cx};
use super::ffi::{Bb, Val};
use super::{
    BinOp, Block, BlockId, Body, CastOp, FCastOp, FloatPredicate, FloatTy, GepIndex, Inst, InstId,
    Operand, Reg, SiteId, SourceLoc,
};
use inkwell::llvm_sys::{
    LLVMOpcode as O, LLVMRealPredicate, LLVMTypeKind as K, LLVMValueKind as VK,
};
use rustc_hash::FxHashMap;

mod asm_arith;
mod atomic;
mod call;
mod emit;
mod intrinsic;
mod overflow;
mod vector;
mod vector_calls;
mod wide;
use call::intrinsic_name;
use intrinsic::{classify_intrinsic, IntrinsicUse};

/// Whether an instruction disappears from the lowered body.
fn is_dropped(inst: Val) -> bool {
    inst.opcode() == O::LLVMCall
        && inst.ty().kind() == K::LLVMVoidTypeKind
        && intrinsic_name(inst).is_some_and(|n| classify_intrinsic(&n) == IntrinsicUse::Drop)
}

/// How many operations may lie between a hoisted shift and the `select`
/// that chooses its value (see `only_selected`).
const SPECULATION_DEPTH: u32 = 3;

/// Whether the value of `v` is only ever chosen by a `select`, directly or
/// through arithmetic and comparisons that cannot fail (or is frozen): the
/// shape of a shift the optimizer
/// hoisted above the test guarding it (`b < 32 ? a << b : a` is a `shl`
/// and a `select` at -O2). On a path where its amount is out of range, the
/// `select` discards its value; LLVM makes that value poison, not undefined
/// behaviour, so such a shift is not checked (`Inst::Binary`'s `site`).
fn only_selected(v: Val, depth: u32) -> bool {
    let users = v.users();
    !users.is_empty()
        && users.into_iter().all(|u| match u.opcode() {
            O::LLVMSelect => u.operand(0) != Some(v),
            // Any value will do there: freeze turns poison into one.
            O::LLVMFreeze => true,
            O::LLVMICmp
            | O::LLVMAdd
            | O::LLVMSub
            | O::LLVMMul
            | O::LLVMAnd
            | O::LLVMOr
            | O::LLVMXor
            | O::LLVMShl
            | O::LLVMLShr
            | O::LLVMAShr
            | O::LLVMTrunc
            | O::LLVMZExt
            | O::LLVMSExt
                if depth > 0 =>
            {
                only_selected(u, depth - 1)
            }
            _ => false,
        })
}

/// Whether `inst`, an operation `op` on scalars or vectors, is checked (a
/// zero divisor, an oversized shift): not a shift whose value only a
/// `select` may choose.
fn is_checked_here(op: BinOp, inst: Val) -> bool {
    super::semantics::is_checked(op)
        && !(matches!(op, BinOp::Shl | BinOp::LShr | BinOp::AShr)
            && only_selected(inst, SPECULATION_DEPTH))
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
        lanes: FxHashMap::default(),
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
    /// The lane registers of each vector value (see `vector`), the limb
    /// registers of each wide integer (see `wide`), or why it has none; and
    /// the value and flag registers of an overflow intrinsic's result too
    /// wide for one (see `overflow`).
    lanes: FxHashMap<Val, Result<Vec<Reg>, String>>,
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
        let prologue = self.vector_parameters(&f.params());
        let bbs = f.basic_blocks();
        let code: Vec<Vec<Val>> = bbs.iter().map(|b| b.instructions()).collect();
        for (i, &b) in bbs.iter().enumerate() {
            self.blocks.insert(b, BlockId(i as u32));
        }
        for inst in code.iter().flatten() {
            if vector::is_vector(inst.ty()) {
                let lanes = self.lane_regs(inst.ty());
                self.lanes.insert(*inst, lanes);
            } else if wide::is_wide(inst.ty()) {
                let limbs = self.limb_regs(inst.ty());
                self.lanes.insert(*inst, limbs);
            } else if let Some(parts) = self.overflow_parts(*inst) {
                self.lanes.insert(*inst, Ok(parts));
            } else if inst.ty().kind() != K::LLVMVoidTypeKind && !is_dropped(*inst) {
                let w = self.cx.layout.lenient_width(inst.ty());
                let r = self.new_reg(w);
                self.regs.insert(*inst, r);
            }
        }

        let mut blocks = Vec::with_capacity(bbs.len());
        for (bi, insts) in code.iter().enumerate() {
            let block = BlockId(bi as u32);
            let first = self.insts.len();
            if bi == 0 {
                for i in &prologue {
                    self.insts.push(i.clone());
                    self.locs.push(None);
                    self.block_of.push(block);
                }
            }
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
        if vector::is_vector(v.ty()) {
            return Err(format!(
                "vector `{}` where a scalar is expected",
                describe(v)
            ));
        }
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
        if vector::involves_vector(inst) {
            return self.vector(inst);
        }
        if wide::involves_wide(inst) {
            return self.wide(inst);
        }
        let opcode = inst.opcode();
        if let Some(op) = bin_op(opcode) {
            let width = self.width(inst)?;
            let lhs = self.operand(self.op(inst, 0)?)?;
            let rhs = self.operand(self.op(inst, 1)?)?;
            let dst = self.dst(inst)?;
            let site = is_checked_here(op, inst).then(|| self.site());
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
                let op = float_op(opcode).ok_or("floating-point operation")?;
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
                let op = int_cast(opcode).ok_or("integer cast")?;
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
                let site = matches!(count, Operand::Reg(_)).then(|| self.site());
                self.out.push(Inst::Alloca {
                    dst,
                    elem_size,
                    count,
                    count_width,
                    align,
                    site,
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
                if let (Some(Ok(parts)), [field]) = (self.lanes.get(&a), inst.indices().as_slice())
                {
                    // An overflow intrinsic's result kept in two registers.
                    let part = *parts
                        .get(*field as usize)
                        .ok_or("extractvalue past the end of its aggregate")?;
                    let width = self.width(inst)?;
                    let dst = self.dst(inst)?;
                    self.copy(width, Operand::Reg(part), dst);
                    return Ok(());
                }
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
            O::LLVMIndirectBr => {
                let a = self.op(inst, 0)?;
                let addr = self.operand(a)?;
                let mut targets = Vec::new();
                for i in 0..inst.num_successors() {
                    let b = self.block(inst.successor(i))?;
                    if !targets.contains(&b) {
                        targets.push(b);
                    }
                }
                let site = self.site();
                self.out.push(Inst::IndirectBr {
                    addr,
                    targets,
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
            O::LLVMAtomicRMW => self.atomic_rmw(inst)?,
            O::LLVMAtomicCmpXchg => self.cmpxchg(inst)?,
            // One thread: there is nothing to order against.
            O::LLVMFence => {}
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
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod vector_tests;
#[cfg(test)]
mod wide_tests;
