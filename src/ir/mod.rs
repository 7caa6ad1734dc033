//! mnemo's own intermediate representation.
//!
//! The loader (`load`) lowers LLVM bitcode into these plain Rust types once;
//! afterwards the `Module` is immutable and shared by every worker through an
//! `Arc`. Entities live in arenas (`Vec`s) and refer to each other through
//! typed `u32` indices, so nothing outside this module sees an LLVM type and
//! everything here is `Send + Sync`.
//!
//! Instructions are pre-decoded: operands are already registers or constant
//! ids, sizes and offsets come from the data layout, and every instruction
//! that can make the engine fork carries a [`SiteId`], its choice-site index
//! within the function (DESIGN.md, invariant 2).

pub mod archive;
mod asm;
mod consts;
mod debugloc;
mod diagnostics;
mod error;
mod ffi;
mod hash;
mod layout;
mod load;
mod lower;
mod ops;
mod optimize;
pub mod semantics;
mod sniff;
#[cfg(test)]
pub(crate) mod testutil;

pub use asm::{AsmOp, X87_DEFAULT_CONTROL};
pub use error::LoadError;
pub use ops::{
    overflow_flag_offset, BinOp, CastOp, FBinOp, FCastOp, FloatPredicate, FloatTy, IntPredicate,
    Intrinsic, RoundTo,
};

/// How C is compiled for the loader (`mnemo cc` uses them): unoptimized but
/// analyzable (no `optnone`), with debug locations for error reports.
pub const BITCODE_FLAGS: &[&str] = &[
    "-O0",
    "-Xclang",
    "-disable-O0-optnone",
    "-g",
    "-emit-llvm",
    "-c",
];
pub use load::{load_module, load_module_from_memory};

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// The index into the arena this entity lives in.
            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

entity!(
    /// A function of the module, defined or only declared.
    FuncId
);
entity!(
    /// A basic block within one function's body.
    BlockId
);
entity!(
    /// An instruction within one function's body (bodies are flat arrays).
    InstId
);
entity!(
    /// A global variable of the module.
    GlobalId
);
entity!(
    /// An entry of the module's constant pool.
    ConstId
);
entity!(
    /// A virtual register of one function frame. Parameters are `0..n`.
    Reg
);
entity!(
    /// A source file named by debug information.
    FileId
);
entity!(
    /// A choice site: an instruction that can make the engine fork, numbered
    /// in instruction order within its function.
    SiteId
);

/// A source position from the debug information.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct SourceLoc {
    pub file: FileId,
    pub line: u32,
    pub col: u32,
}

/// An instruction operand, resolved at load time.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Operand {
    Reg(Reg),
    Const(ConstId),
}

/// An entry of the constant pool. Constant expressions are kept as trees of
/// pool entries and evaluated once per run, when global addresses are known.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Const {
    /// An integer (or the bit pattern of a float) of `width` bits, `width <= 128`.
    Int { width: u32, bits: u128 },
    /// `undef` and `poison`: mnemo reads them as zero.
    Undef { width: u32 },
    /// The null pointer.
    Null,
    /// The address of a global plus a constant byte offset.
    GlobalAddr { global: GlobalId, offset: i64 },
    /// The address of a function.
    FuncAddr(FuncId),
    /// The address of a block (GNU C's `&&label`), for `indirectbr`.
    BlockAddr { func: FuncId, block: BlockId },
    /// A cast of another constant (`ptrtoint`, `inttoptr`, `bitcast`, `trunc`, ...).
    Cast { op: CastOp, to: u32, value: ConstId },
    /// An integer operation on two constants.
    Binary {
        op: BinOp,
        width: u32,
        lhs: ConstId,
        rhs: ConstId,
    },
    /// An integer comparison of two constants (a 1-bit result).
    ICmp {
        pred: IntPredicate,
        lhs: ConstId,
        rhs: ConstId,
    },
    /// A `select` on constants.
    Select {
        cond: ConstId,
        then_val: ConstId,
        else_val: ConstId,
    },
    /// A first-class aggregate (struct or array) flattened into one bit
    /// vector of `width` bits: each part sits at its bit offset from the
    /// data layout (`offset` 0 is the lowest-addressed byte).
    Aggregate {
        width: u32,
        parts: Vec<(u32, ConstId)>,
    },
}

/// A pre-decoded instruction.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Inst {
    /// Integer arithmetic. Division, remainder and shifts are checked (zero
    /// divisor, oversized shift) where they carry a choice site, the fork
    /// of a check that may fail; one without a site is not checked (a shift
    /// whose value only a `select` may choose, or the lowering's own).
    Binary {
        op: BinOp,
        width: u32,
        lhs: Operand,
        rhs: Operand,
        dst: Reg,
        site: Option<SiteId>,
    },
    ICmp {
        pred: IntPredicate,
        width: u32,
        lhs: Operand,
        rhs: Operand,
        dst: Reg,
    },
    FBinary {
        op: FBinOp,
        ty: FloatTy,
        lhs: Operand,
        rhs: Operand,
        dst: Reg,
    },
    FNeg {
        ty: FloatTy,
        src: Operand,
        dst: Reg,
    },
    FCmp {
        pred: FloatPredicate,
        ty: FloatTy,
        lhs: Operand,
        rhs: Operand,
        dst: Reg,
    },
    Cast {
        op: CastOp,
        from: u32,
        to: u32,
        src: Operand,
        dst: Reg,
    },
    /// `from`/`to`: the integer width on the integer side; `float` the float side
    /// (for `Resize`, `float` is the source type and `to_float` the target).
    FCast {
        op: FCastOp,
        float: FloatTy,
        to_float: FloatTy,
        int_width: u32,
        src: Operand,
        dst: Reg,
    },
    Select {
        width: u32,
        cond: Operand,
        then_val: Operand,
        else_val: Operand,
        dst: Reg,
    },
    /// Phis sit at the start of their block and are evaluated together when
    /// control enters the block.
    Phi {
        width: u32,
        dst: Reg,
        incoming: Vec<(BlockId, Operand)>,
    },
    /// Allocates `elem_size * count` bytes on the stack.
    Alloca {
        dst: Reg,
        elem_size: u64,
        count: Operand,
        count_width: u32,
        align: u32,
        /// The choice site of a count that is not a constant (a VLA): a
        /// symbolic one forks over its values.
        site: Option<SiteId>,
    },
    /// Loads `width` bits (`bytes` in memory; an `i1` is one byte).
    Load {
        dst: Reg,
        addr: Operand,
        width: u32,
        bytes: u32,
        site: SiteId,
    },
    Store {
        value: Operand,
        addr: Operand,
        width: u32,
        bytes: u32,
        site: SiteId,
    },
    /// `base + offset + sum(index_i * scale_i)`, each index sign-extended to 64 bits.
    Gep {
        dst: Reg,
        base: Operand,
        offset: i64,
        indices: Vec<GepIndex>,
    },
    /// Reads `width` bits at bit `offset` of a flattened aggregate.
    ExtractValue {
        dst: Reg,
        agg: Operand,
        offset: u32,
        width: u32,
    },
    /// Writes `elem` (`width` bits) at bit `offset` of an aggregate of `agg_width` bits.
    InsertValue {
        dst: Reg,
        agg: Operand,
        agg_width: u32,
        elem: Operand,
        offset: u32,
        width: u32,
    },
    Br {
        target: BlockId,
    },
    CondBr {
        cond: Operand,
        then_bb: BlockId,
        else_bb: BlockId,
        site: SiteId,
    },
    Switch {
        cond: Operand,
        width: u32,
        cases: Vec<(u128, BlockId)>,
        default: BlockId,
        site: SiteId,
    },
    /// A jump to the block at an address (GNU C's `goto *p`), one of
    /// `targets`; the site is used when the address is symbolic.
    IndirectBr {
        addr: Operand,
        targets: Vec<BlockId>,
        site: SiteId,
    },
    Ret {
        value: Option<Operand>,
    },
    Unreachable,
    /// A call; the site is used when a symbolic function pointer forks.
    Call {
        dst: Option<Reg>,
        ret_width: Option<u32>,
        callee: Callee,
        args: Vec<Arg>,
        site: SiteId,
    },
    Intrinsic {
        kind: Intrinsic,
        dst: Option<Reg>,
        width: u32,
        args: Vec<Operand>,
        /// The choice site of an intrinsic that accesses memory through
        /// its arguments (memcpy, memmove, memset): it forks over the
        /// objects a symbolic pointer reaches and the values of a symbolic
        /// length.
        site: Option<SiteId>,
    },
    /// Inline assembly whose meaning the engine knows (see [`AsmOp`]);
    /// `addr` is the memory operand of those that have one.
    Asm {
        op: AsmOp,
        addr: Option<Operand>,
    },
    /// An instruction mnemo cannot execute. Loading succeeds; a path that
    /// reaches it ends with an "unsupported" error naming `what`.
    Unsupported {
        what: String,
    },
}

/// One variable index of a `getelementptr`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct GepIndex {
    pub value: Operand,
    pub width: u32,
    pub scale: u64,
}

/// A call argument with its width in bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Arg {
    pub value: Operand,
    pub width: u32,
    /// Of x86-64's SSE class (a float, a double, a vector): passed in a
    /// vector register, where a variadic callee's `va_arg` looks for it.
    pub sse: bool,
    /// Passed by value in memory: the operand points at what the callee
    /// gets a copy of.
    pub byval: Option<ByVal>,
}

/// The object a `byval` argument copies: the callee owns the copy, so its
/// writes never reach the caller's, and a variadic callee finds the bytes
/// themselves on the stack, where `va_arg` reads a large struct.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ByVal {
    pub size: u64,
    pub align: u32,
}

/// The target of a call.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Callee {
    Direct(FuncId),
    Indirect(Operand),
}

/// A basic block: the range `first..end` of its function's instructions, the
/// phis being `first..body_start`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Block {
    pub first: InstId,
    pub body_start: InstId,
    pub end: InstId,
}

/// A function body: blocks over one flat instruction array.
#[derive(Clone, Debug)]
pub struct Body {
    /// Entry block is `BlockId(0)`.
    pub blocks: Vec<Block>,
    pub insts: Vec<Inst>,
    /// Debug location of each instruction (parallel to `insts`).
    pub locs: Vec<Option<SourceLoc>>,
    /// The block each instruction belongs to (parallel to `insts`).
    pub block_of: Vec<BlockId>,
    /// Registers a frame needs (parameters included).
    pub num_regs: u32,
    /// Choice sites in this body; sites are `0..num_sites`.
    pub num_sites: u32,
    /// Width of each register in bits (parallel to registers).
    pub reg_widths: Vec<u32>,
}

/// A function of the module.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    /// Width in bits of each parameter; parameter `i` is register `i`.
    pub params: Vec<u32>,
    /// Width of the return value; `None` for `void`.
    pub ret_width: Option<u32>,
    pub is_vararg: bool,
    /// `None` for a declaration (an external function).
    pub body: Option<Body>,
    pub loc: Option<SourceLoc>,
    /// Structural hash of the lowered body (callees named, not numbered), so
    /// a function unchanged between two versions of a program keeps its hash.
    pub hash: u64,
    /// Structural hash of each block's instructions, for the CFG diff of
    /// regression analysis (empty for a declaration).
    pub block_hashes: Vec<u64>,
}

/// A global variable. Its initial contents are a byte image plus pointer
/// relocations (pointer-valued constants written at byte offsets), so the
/// executor never walks LLVM constant trees.
#[derive(Clone, Debug)]
pub struct Global {
    pub name: String,
    pub size: u64,
    pub align: u32,
    pub is_constant: bool,
    /// Declared `_Thread_local`: each thread of the process has its own.
    pub thread_local: bool,
    /// `None` for an external declaration without initializer.
    pub init: Option<GlobalInit>,
    pub loc: Option<SourceLoc>,
}

/// A symbol's name without the number a linker appends to tell apart
/// same-named internal symbols of several files (`__get_tp.115`, a
/// static function two of musl's files define): two versions of a program
/// number them differently, while a C name never holds a dot.
pub fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, n))
            if !base.is_empty()
                && !n.is_empty()
                && n.bytes().all(|b| b.is_ascii_digit())
                && !name.starts_with("llvm.") =>
        {
            base
        }
        _ => name,
    }
}

/// The initial image of a global.
#[derive(Clone, Debug)]
pub struct GlobalInit {
    pub bytes: Vec<u8>,
    /// `(byte offset, pointer-sized constant)` written over `bytes` once addresses are known.
    pub relocs: Vec<(u64, ConstId)>,
}

/// A lowered module: immutable after loading, shared by reference.
#[derive(Clone, Debug)]
pub struct Module {
    /// Path or name the module was loaded from.
    pub source: String,
    pub functions: Vec<Function>,
    pub globals: Vec<Global>,
    pub consts: Vec<Const>,
    pub files: Vec<String>,
    pub func_index: FxHashMap<String, FuncId>,
    pub global_index: FxHashMap<String, GlobalId>,
}

impl Module {
    pub fn func(&self, id: FuncId) -> &Function {
        &self.functions[id.index()]
    }

    pub fn global(&self, id: GlobalId) -> &Global {
        &self.globals[id.index()]
    }

    pub fn constant(&self, id: ConstId) -> &Const {
        &self.consts[id.index()]
    }

    pub fn func_by_name(&self, name: &str) -> Option<FuncId> {
        self.func_index.get(name).copied()
    }

    /// `file:line` of a location, for messages.
    pub fn describe_loc(&self, loc: Option<SourceLoc>) -> String {
        match loc {
            Some(l) => format!("{}:{}", self.files[l.file.index()], l.line),
            None => "<unknown location>".to_string(),
        }
    }
}

impl Body {
    pub fn inst(&self, id: InstId) -> &Inst {
        &self.insts[id.index()]
    }

    pub fn block(&self, id: BlockId) -> &Block {
        &self.blocks[id.index()]
    }
}

/// The targets of a symbolic switch's alternatives, as the executor numbers
/// them (and the trie records them): each distinct case target in case
/// order, then the default.
pub fn switch_alternatives(cases: &[(u128, BlockId)], default: BlockId) -> Vec<BlockId> {
    let mut targets: Vec<BlockId> = Vec::new();
    for (_, b) in cases {
        if !targets.contains(b) {
            targets.push(*b);
        }
    }
    targets.push(default);
    targets
}

impl Inst {
    /// The choice site of an instruction that can make the engine fork.
    pub fn site(&self) -> Option<SiteId> {
        match self {
            Inst::CondBr { site, .. }
            | Inst::Switch { site, .. }
            | Inst::IndirectBr { site, .. }
            | Inst::Load { site, .. }
            | Inst::Store { site, .. }
            | Inst::Call { site, .. } => Some(*site),
            Inst::Binary { site, .. }
            | Inst::Alloca { site, .. }
            | Inst::Intrinsic { site, .. } => *site,
            _ => None,
        }
    }

    /// The blocks a branch's alternatives go on to, in the order its fork
    /// lists them; empty for other instructions. An `indirectbr`'s last
    /// alternative, an address none of its targets has, goes on to none.
    pub fn alternative_blocks(&self) -> Vec<BlockId> {
        match self {
            Inst::CondBr {
                then_bb, else_bb, ..
            } => vec![*then_bb, *else_bb],
            Inst::Switch { cases, default, .. } => switch_alternatives(cases, *default),
            Inst::IndirectBr { targets, .. } => targets.clone(),
            _ => Vec::new(),
        }
    }

    /// Whether this instruction goes to another block of its function.
    #[inline]
    pub fn is_branch(&self) -> bool {
        matches!(
            self,
            Inst::Br { .. } | Inst::CondBr { .. } | Inst::Switch { .. } | Inst::IndirectBr { .. }
        )
    }

    /// The blocks control may go to after this instruction (terminators only).
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            Inst::Br { target } => vec![*target],
            Inst::CondBr {
                then_bb, else_bb, ..
            } => vec![*then_bb, *else_bb],
            Inst::Switch { cases, default, .. } => {
                let mut v: Vec<BlockId> = cases.iter().map(|(_, b)| *b).collect();
                v.push(*default);
                v
            }
            Inst::IndirectBr { targets, .. } => targets.clone(),
            _ => Vec::new(),
        }
    }
}

impl Body {
    /// The successors of a block, from its terminator.
    pub fn successors(&self, b: BlockId) -> Vec<BlockId> {
        let block = self.block(b);
        if block.end.0 == block.first.0 {
            return Vec::new();
        }
        self.insts[block.end.index() - 1].successors()
    }
}
