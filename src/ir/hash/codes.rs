//! The fixed numbers and names a structural hash feeds for each kind of
//! operation: written out, not taken from the enums' order, so that a new
//! variant or a reordering leaves every stored hash as it was.

use crate::ir::{
    CastOp, FBinOp, FCastOp, FloatPredicate, FloatTy, IntPredicate, Intrinsic, RoundTo,
};

pub(super) fn ipred_code(p: IntPredicate) -> u8 {
    match p {
        IntPredicate::Eq => 0,
        IntPredicate::Ne => 1,
        IntPredicate::Ugt => 2,
        IntPredicate::Uge => 3,
        IntPredicate::Ult => 4,
        IntPredicate::Ule => 5,
        IntPredicate::Sgt => 6,
        IntPredicate::Sge => 7,
        IntPredicate::Slt => 8,
        IntPredicate::Sle => 9,
    }
}

pub(super) fn cast_code(op: CastOp) -> u8 {
    match op {
        CastOp::Trunc => 0,
        CastOp::ZExt => 1,
        CastOp::SExt => 2,
        CastOp::Bits => 3,
    }
}

pub(super) fn float_code(t: FloatTy) -> u8 {
    match t {
        FloatTy::F32 => 0,
        FloatTy::F64 => 1,
        FloatTy::F80 => 2,
    }
}

pub(super) fn fbin_code(op: FBinOp) -> u8 {
    match op {
        FBinOp::Add => 0,
        FBinOp::Sub => 1,
        FBinOp::Mul => 2,
        FBinOp::Div => 3,
        FBinOp::Rem => 4,
    }
}

pub(super) fn fcast_code(op: FCastOp) -> u8 {
    match op {
        FCastOp::ToSigned => 0,
        FCastOp::ToUnsigned => 1,
        FCastOp::FromSigned => 2,
        FCastOp::FromUnsigned => 3,
        FCastOp::Resize => 4,
    }
}

pub(super) fn fpred_code(p: FloatPredicate) -> u8 {
    use FloatPredicate as P;
    match p {
        P::False => 0,
        P::Oeq => 1,
        P::Ogt => 2,
        P::Oge => 3,
        P::Olt => 4,
        P::Ole => 5,
        P::One => 6,
        P::Ord => 7,
        P::Uno => 8,
        P::Ueq => 9,
        P::Ugt => 10,
        P::Uge => 11,
        P::Ult => 12,
        P::Ule => 13,
        P::Une => 14,
        P::True => 15,
    }
}

pub(super) fn intrinsic_code(k: Intrinsic) -> &'static str {
    use Intrinsic as I;
    match k {
        I::Memcpy => "memcpy",
        I::Memmove => "memmove",
        I::Memset => "memset",
        I::AddOverflow { signed: true } => "sadd.overflow",
        I::AddOverflow { signed: false } => "uadd.overflow",
        I::SubOverflow { signed: true } => "ssub.overflow",
        I::SubOverflow { signed: false } => "usub.overflow",
        I::MulOverflow { signed: true } => "smul.overflow",
        I::MulOverflow { signed: false } => "umul.overflow",
        I::Abs => "abs",
        I::SMin => "smin",
        I::SMax => "smax",
        I::UMin => "umin",
        I::UMax => "umax",
        I::Bswap => "bswap",
        I::Ctpop => "ctpop",
        I::Ctlz => "ctlz",
        I::Cttz => "cttz",
        I::Fshl => "fshl",
        I::Fshr => "fshr",
        I::VaStart => "va_start",
        I::VaEnd => "va_end",
        I::VaCopy => "va_copy",
        I::Trap => "trap",
        I::UbsanTrap => "ubsantrap",
        I::StackSave => "stacksave",
        I::StackRestore => "stackrestore",
        I::ReturnAddress => "returnaddress",
        I::FrameAddress => "frameaddress",
        I::FAbs => "fabs",
        I::FRound(RoundTo::Down) => "floor",
        I::FRound(RoundTo::Up) => "ceil",
        I::FRound(RoundTo::Zero) => "trunc",
        I::FRound(RoundTo::NearestTiesAway) => "round",
        I::FRound(RoundTo::NearestTiesEven) => "roundeven",
        I::FSqrt => "sqrt",
        I::CopySign => "copysign",
        I::FMinNum => "minnum",
        I::FMaxNum => "maxnum",
        I::Fma => "fma",
        I::ObjectSize => "objectsize",
        I::AddSat { signed: true } => "sadd.sat",
        I::AddSat { signed: false } => "uadd.sat",
        I::SubSat { signed: true } => "ssub.sat",
        I::SubSat { signed: false } => "usub.sat",
    }
}
