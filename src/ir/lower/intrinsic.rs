//! Calls to `llvm.*` functions: which mnemo drops, copies, executes or
//! expands, and what those it executes become.

use super::FnLower;
use crate::ir::ffi::Val;
use crate::ir::{CastOp, FBinOp, Inst, Intrinsic, Operand, RoundTo};

/// What a call to a function named `llvm.*` becomes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum IntrinsicUse {
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

pub(super) fn classify_intrinsic(name: &str) -> IntrinsicUse {
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
        ("llvm.sadd.sat.", I::AddSat { signed: true }, 2),
        ("llvm.uadd.sat.", I::AddSat { signed: false }, 2),
        ("llvm.ssub.sat.", I::SubSat { signed: true }, 2),
        ("llvm.usub.sat.", I::SubSat { signed: false }, 2),
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
        ("llvm.floor.", I::FRound(RoundTo::Down), 1),
        ("llvm.ceil.", I::FRound(RoundTo::Up), 1),
        ("llvm.trunc.", I::FRound(RoundTo::Zero), 1),
        ("llvm.round.", I::FRound(RoundTo::NearestTiesAway), 1),
        ("llvm.roundeven.", I::FRound(RoundTo::NearestTiesEven), 1),
        ("llvm.rint.", I::FRound(RoundTo::NearestTiesEven), 1),
        ("llvm.nearbyint.", I::FRound(RoundTo::NearestTiesEven), 1),
        ("llvm.sqrt.", I::FSqrt, 1),
        ("llvm.copysign.", I::CopySign, 2),
        ("llvm.minnum.", I::FMinNum, 2),
        ("llvm.maxnum.", I::FMaxNum, 2),
        ("llvm.fma.", I::Fma, 3),
        ("llvm.frameaddress.", I::FrameAddress, 1),
        ("llvm.objectsize.", I::ObjectSize, 4),
    ];
    const EXEC_EXACT: &[(&str, Intrinsic, usize)] = &[
        ("llvm.va_start", I::VaStart, 1),
        ("llvm.va_end", I::VaEnd, 1),
        ("llvm.va_copy", I::VaCopy, 2),
        ("llvm.trap", I::Trap, 0),
        ("llvm.debugtrap", I::Trap, 0),
        ("llvm.ubsantrap", I::UbsanTrap, 1),
        ("llvm.stacksave", I::StackSave, 0),
        ("llvm.stackrestore", I::StackRestore, 1),
        ("llvm.returnaddress", I::ReturnAddress, 1),
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

impl FnLower<'_> {
    pub(super) fn intrinsic(
        &mut self,
        inst: Val,
        name: &str,
        args: &[Val],
        void: bool,
    ) -> Result<(), String> {
        let use_ = classify_intrinsic(name);
        if let (IntrinsicUse::Exec(kind, _), Some(Ok(parts))) = (&use_, self.lanes.get(&inst)) {
            // An overflow intrinsic whose result is kept in two registers.
            let parts = parts.clone();
            return self.split_overflow(*kind, args, &parts);
        }
        let dst = if void { None } else { Some(self.dst(inst)?) };
        match use_ {
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
                let tmp = self.new_reg(ty.width());
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
                if kind.is_float() {
                    self.float(inst)?;
                }
                let width = if void { 0 } else { self.width(inst)? };
                let mut ops = Vec::with_capacity(max_args);
                for &a in args.iter().take(max_args) {
                    self.width(a)?;
                    ops.push(self.operand(a)?);
                }
                let accesses = matches!(
                    kind,
                    Intrinsic::Memcpy | Intrinsic::Memmove | Intrinsic::Memset
                );
                let site = accesses.then(|| self.site());
                self.out.push(Inst::Intrinsic {
                    kind,
                    dst,
                    width,
                    args: ops,
                    site,
                });
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{classify_intrinsic, IntrinsicUse};
    use crate::ir::testutil::{body, load_ll, unsupported};
    use crate::ir::{Inst, Intrinsic, RoundTo};

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
            classify_intrinsic("llvm.fmuladd.f64"),
            IntrinsicUse::FMulAdd
        );
        assert_eq!(classify_intrinsic("llvm.pow.f64"), IntrinsicUse::Unknown);
        let executed = [
            ("llvm.memcpy.p0i8.p0i8.i64", Intrinsic::Memcpy, 3),
            (
                "llvm.umul.with.overflow.i64",
                Intrinsic::MulOverflow { signed: false },
                2,
            ),
            ("llvm.debugtrap", Intrinsic::Trap, 0),
            ("llvm.ubsantrap", Intrinsic::UbsanTrap, 1),
            ("llvm.sqrt.f64", Intrinsic::FSqrt, 1),
            // `llvm.round.` is not a prefix of `llvm.roundeven.`.
            (
                "llvm.roundeven.f32",
                Intrinsic::FRound(RoundTo::NearestTiesEven),
                1,
            ),
            (
                "llvm.round.f80",
                Intrinsic::FRound(RoundTo::NearestTiesAway),
                1,
            ),
            ("llvm.returnaddress", Intrinsic::ReturnAddress, 1),
            ("llvm.frameaddress.p0i8", Intrinsic::FrameAddress, 1),
        ];
        for (name, kind, args) in executed {
            assert_eq!(
                classify_intrinsic(name),
                IntrinsicUse::Exec(kind, args),
                "{name}"
            );
        }
    }

    #[test]
    fn float_intrinsics_keep_their_operands() {
        let m = load_ll(
            r#"
define x86_fp80 @f(double %x, float %y, x86_fp80 %z) {
  %a = call double @llvm.floor.f64(double %x)
  %b = call float @llvm.copysign.f32(float %y, float -1.0)
  %c = call x86_fp80 @llvm.fma.f80(x86_fp80 %z, x86_fp80 %z, x86_fp80 %z)
  %d = call x86_fp80 @llvm.sqrt.f80(x86_fp80 %c)
  ret x86_fp80 %d
}
declare double @llvm.floor.f64(double)
declare float @llvm.copysign.f32(float, float)
declare x86_fp80 @llvm.fma.f80(x86_fp80, x86_fp80, x86_fp80)
declare x86_fp80 @llvm.sqrt.f80(x86_fp80)
"#,
        );
        let b = body(&m, "f");
        let kinds: Vec<(Intrinsic, u32, usize)> = b
            .insts
            .iter()
            .filter_map(|i| match i {
                Inst::Intrinsic {
                    kind, width, args, ..
                } => Some((*kind, *width, args.len())),
                _ => None,
            })
            .collect();
        assert_eq!(
            kinds,
            [
                (Intrinsic::FRound(RoundTo::Down), 64, 1),
                (Intrinsic::CopySign, 32, 2),
                (Intrinsic::Fma, 80, 3),
                (Intrinsic::FSqrt, 80, 1)
            ]
        );
        assert!(unsupported(&b.insts).is_empty());
    }
}
