//! The operations instructions name: integer and floating point
//! arithmetic, comparisons and casts, and the intrinsics the engine
//! executes itself.

use serde::{Deserialize, Serialize};

/// Integer binary operations, shared by the IR and expressions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    UDiv,
    SDiv,
    URem,
    SRem,
    And,
    Or,
    Xor,
    Shl,
    LShr,
    AShr,
}

impl BinOp {
    /// Every operation, in the order of their codes.
    pub const ALL: [BinOp; 13] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::UDiv,
        BinOp::SDiv,
        BinOp::URem,
        BinOp::SRem,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::LShr,
        BinOp::AShr,
    ];

    /// A code that never changes between versions of mnemo, for hashes that
    /// are kept on disk (function hashes, expression hashes).
    pub fn code(self) -> u8 {
        match self {
            BinOp::Add => 0,
            BinOp::Sub => 1,
            BinOp::Mul => 2,
            BinOp::UDiv => 3,
            BinOp::SDiv => 4,
            BinOp::URem => 5,
            BinOp::SRem => 6,
            BinOp::And => 7,
            BinOp::Or => 8,
            BinOp::Xor => 9,
            BinOp::Shl => 10,
            BinOp::LShr => 11,
            BinOp::AShr => 12,
        }
    }
}

/// Integer comparison predicates, as LLVM's `icmp` has them.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum IntPredicate {
    Eq,
    Ne,
    Ugt,
    Uge,
    Ult,
    Ule,
    Sgt,
    Sge,
    Slt,
    Sle,
}

/// Integer and pointer casts. Pointers are 64-bit integers in mnemo.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum CastOp {
    Trunc,
    ZExt,
    SExt,
    /// `bitcast`, `ptrtoint`, `inttoptr` and `addrspacecast`: the bits are kept
    /// and truncated or zero-extended to the target width.
    Bits,
}

/// The floating point formats mnemo computes with (concretely only).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum FloatTy {
    F32,
    F64,
    /// x87's 80-bit extended format, C's `long double` on x86-64: 10 bytes
    /// in a register and in memory, 16 with the padding a type's size has.
    F80,
}

impl FloatTy {
    /// The format whose values hold `width` bits.
    pub fn of_width(width: u32) -> Option<FloatTy> {
        match width {
            32 => Some(FloatTy::F32),
            64 => Some(FloatTy::F64),
            80 => Some(FloatTy::F80),
            _ => None,
        }
    }

    /// The bits a value of this format holds.
    pub fn width(self) -> u32 {
        match self {
            FloatTy::F32 => 32,
            FloatTy::F64 => 64,
            FloatTy::F80 => 80,
        }
    }
}

/// Floating point binary operations.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum FBinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// Floating point comparison predicates (`fcmp`), ordered and unordered.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum FloatPredicate {
    False,
    Oeq,
    Ogt,
    Oge,
    Olt,
    Ole,
    One,
    Ord,
    Uno,
    Ueq,
    Ugt,
    Uge,
    Ult,
    Ule,
    Une,
    True,
}

/// Conversions involving floating point values.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum FCastOp {
    /// float -> signed integer of `to` bits
    ToSigned,
    /// float -> unsigned integer of `to` bits
    ToUnsigned,
    /// signed integer -> float
    FromSigned,
    /// unsigned integer -> float
    FromUnsigned,
    /// float -> float (fptrunc, fpext)
    Resize,
}

/// Intrinsics clang -O0 emits for C that mnemo executes. `llvm.dbg.*`,
/// `llvm.lifetime.*` and similar no-ops are dropped by the loader and
/// `llvm.expect.*` becomes a plain copy.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Intrinsic {
    /// args: dst, src, len
    Memcpy,
    /// args: dst, src, len
    Memmove,
    /// args: dst, byte, len
    Memset,
    /// `llvm.{s,u}{add,sub,mul}.with.overflow.iN`: args a, b; result is the
    /// aggregate `{ iN, i1 }` flattened: value in bits `0..N`, flag at bit `N`
    /// (the data layout puts the flag in the next byte: see `overflow_flag_offset`).
    AddOverflow {
        signed: bool,
    },
    SubOverflow {
        signed: bool,
    },
    MulOverflow {
        signed: bool,
    },
    /// args: value, is_int_min_poison
    Abs,
    SMin,
    SMax,
    UMin,
    UMax,
    Bswap,
    Ctpop,
    /// args: value, is_zero_poison
    Ctlz,
    /// args: value, is_zero_poison
    Cttz,
    Fshl,
    Fshr,
    /// args: va_list pointer
    VaStart,
    /// args: va_list pointer
    VaEnd,
    /// args: dst va_list pointer, src va_list pointer
    VaCopy,
    /// `llvm.trap` and `llvm.debugtrap`
    Trap,
    /// `llvm.ubsantrap`: a `-fsanitize=` check failed, compiled with
    /// `-fsanitize-trap`. args: the check's number (clang's handler order)
    UbsanTrap,
    /// `llvm.stacksave`: returns an opaque token (mnemo returns 0).
    StackSave,
    /// `llvm.stackrestore`: a no-op for mnemo.
    StackRestore,
    /// `llvm.returnaddress` (`__builtin_return_address`): args level.
    ReturnAddress,
    /// `llvm.frameaddress` (`__builtin_frame_address`): args level.
    FrameAddress,
    /// `llvm.fabs.*`
    FAbs,
    /// `llvm.floor.*`, `ceil`, `trunc`, `round`, `roundeven`, `rint` and
    /// `nearbyint` (clang's own for the C functions): a float rounded to an
    /// integral value of its format.
    FRound(RoundTo),
    /// `llvm.sqrt.*`
    FSqrt,
    /// `llvm.copysign.*`: args magnitude, sign
    CopySign,
    /// `llvm.minnum.*` and `llvm.maxnum.*` (C's `fmin`, `fmax`): a NaN
    /// operand gives way to the other; of two equal ones (`+0`, `-0`), the
    /// first, as x86-64's code gives it.
    FMinNum,
    FMaxNum,
    /// `llvm.fma.*`: `a * b + c` rounded once.
    Fma,
    /// `llvm.objectsize.*`: mnemo answers "unknown" (-1 or 0 by the `min` flag).
    ObjectSize,
    /// `llvm.{s,u}add.sat.iN`: args a, b; the sum, held at the type's
    /// bounds where it would overflow (what -O2 makes of a checked add).
    AddSat {
        signed: bool,
    },
    /// `llvm.{s,u}sub.sat.iN`: the difference, held at the bounds.
    SubSat {
        signed: bool,
    },
}

/// Which integral value `Intrinsic::FRound` rounds to. `rint` and
/// `nearbyint` round in the current mode, which the engine keeps at the
/// default, to nearest with ties to even.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum RoundTo {
    Down,
    Up,
    Zero,
    NearestTiesAway,
    NearestTiesEven,
}

impl Intrinsic {
    /// Whether it computes on floats (its operands and result are of one
    /// float format).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            Intrinsic::FAbs
                | Intrinsic::FRound(_)
                | Intrinsic::FSqrt
                | Intrinsic::CopySign
                | Intrinsic::FMinNum
                | Intrinsic::FMaxNum
                | Intrinsic::Fma
        )
    }
}

/// Bit offset of the overflow flag in the flattened result `{ iN, i1 }` of an
/// overflow intrinsic whose value has `value_width` bits: the flag is the
/// byte after the value's store size, as the data layout places it.
pub fn overflow_flag_offset(value_width: u32) -> u32 {
    value_width.div_ceil(8) * 8
}
