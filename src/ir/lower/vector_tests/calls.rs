//! Vectors across calls and in intrinsics: packed arguments and results,
//! lane-wise intrinsics, reductions, SSE2.

use super::int;
use crate::ir::testutil::{body, func, konst, load_ll, unsupported};
use crate::ir::{BinOp, Const, FBinOp, FloatTy, Inst, Intrinsic, Operand, Reg};

#[test]
fn intrinsics_on_vectors_run_lane_by_lane() {
    let m = load_ll(
        r#"
define i32 @f(<4 x i32>* %p, <2 x float>* %q) {
  %v = load <4 x i32>, <4 x i32>* %p
  %a = call <4 x i32> @llvm.umax.v4i32(<4 x i32> %v, <4 x i32> <i32 7, i32 7, i32 7, i32 7>)
  %b = call <4 x i32> @llvm.abs.v4i32(<4 x i32> %a, i1 false)
  %m = call i32 @llvm.vector.reduce.smax.v4i32(<4 x i32> %b)
  %o = call i1 @llvm.vector.reduce.or.v4i1(<4 x i1> <i1 0, i1 0, i1 1, i1 0>)
  %x = load <2 x float>, <2 x float>* %q
  %y = call <2 x float> @llvm.fmuladd.v2f32(<2 x float> %x, <2 x float> %x, <2 x float> %x)
  %s = call float @llvm.vector.reduce.fadd.v2f32(float 0.0, <2 x float> %y)
  %t = call float @llvm.vector.reduce.fmax.v2f32(<2 x float> %y)
  %u = call <2 x float> @llvm.sqrt.v2f32(<2 x float> %y)
  ret i32 %m
}
declare <4 x i32> @llvm.umax.v4i32(<4 x i32>, <4 x i32>)
declare <4 x i32> @llvm.abs.v4i32(<4 x i32>, i1)
declare i32 @llvm.vector.reduce.smax.v4i32(<4 x i32>)
declare i1 @llvm.vector.reduce.or.v4i1(<4 x i1>)
declare <2 x float> @llvm.fmuladd.v2f32(<2 x float>, <2 x float>, <2 x float>)
declare float @llvm.vector.reduce.fadd.v2f32(float, <2 x float>)
declare float @llvm.vector.reduce.fmax.v2f32(<2 x float>)
declare <2 x float> @llvm.sqrt.v2f32(<2 x float>)
"#,
    );
    let b = body(&m, "f");
    let kinds: Vec<(Intrinsic, usize)> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Intrinsic {
                kind,
                args,
                width: 32,
                ..
            } => Some((*kind, args.len())),
            _ => None,
        })
        .collect();
    let mut want = vec![(Intrinsic::UMax, 2); 4];
    want.extend([(Intrinsic::Abs, 2); 4]);
    want.extend([(Intrinsic::SMax, 2); 3]);
    // A float intrinsic runs on each lane too.
    want.extend([(Intrinsic::FSqrt, 1); 2]);
    assert_eq!(kinds, want);
    // The flag of abs is the scalar argument in every lane.
    let Some(Inst::Intrinsic { args, .. }) = b.insts.iter().find(|i| {
        matches!(
            i,
            Inst::Intrinsic {
                kind: Intrinsic::Abs,
                ..
            }
        )
    }) else {
        panic!()
    };
    assert_eq!(konst(&m, &args[1]), int(1, 0));
    assert_eq!(
        all!(
            b.insts,
            Inst::Binary {
                op: BinOp::Or,
                width: 1,
                ..
            }
        )
        .len(),
        3
    );
    // fmuladd: a multiply and an add per lane; the float sum starts from its start value.
    let fops: Vec<FBinOp> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::FBinary {
                op,
                ty: FloatTy::F32,
                ..
            } => Some(*op),
            _ => None,
        })
        .collect();
    assert_eq!(
        fops,
        [
            FBinOp::Mul,
            FBinOp::Add,
            FBinOp::Mul,
            FBinOp::Add,
            FBinOp::Add,
            FBinOp::Add
        ]
    );
    assert_eq!(
        unsupported(&b.insts),
        ["unsupported intrinsic `llvm.vector.reduce.fmax.v2f32`"]
    );
}

#[test]
fn vectors_cross_calls_packed() {
    let m = load_ll(
        r#"
define <2 x float> @swap(<2 x float> %v) {
  %s = shufflevector <2 x float> %v, <2 x float> poison, <2 x i32> <i32 1, i32 0>
  ret <2 x float> %s
}
define float @caller(float %a) {
  %v = insertelement <2 x float> <float 0.0, float 2.0>, float %a, i32 0
  %w = call <2 x float> @swap(<2 x float> %v)
  %r = extractelement <2 x float> %w, i32 0
  ret float %r
}
"#,
    );
    let swap = func(&m, "swap");
    assert_eq!((swap.params.clone(), swap.ret_width), (vec![64], Some(64)));
    let b = body(&m, "swap");
    // The parameter's lanes are split off first in the entry block.
    assert!(matches!(
        b.insts[0],
        Inst::ExtractValue {
            agg: Operand::Reg(Reg(0)),
            offset: 0,
            width: 32,
            ..
        }
    ));
    assert!(matches!(
        b.insts[1],
        Inst::ExtractValue {
            offset: 32,
            width: 32,
            ..
        }
    ));
    let Inst::Ret {
        value: Some(Operand::Reg(packed)),
    } = b.insts[b.insts.len() - 1]
    else {
        panic!()
    };
    assert_eq!(b.reg_widths[packed.index()], 64);
    let b = body(&m, "caller");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    let Some(Inst::Call {
        args,
        ret_width: Some(64),
        dst: Some(ret),
        ..
    }) = b.insts.iter().find(|i| matches!(i, Inst::Call { .. }))
    else {
        panic!()
    };
    assert_eq!(args[0].width, 64);
    // The result is split into its lanes after the call.
    assert!(b.insts.iter().any(|i| matches!(
        i,
        Inst::ExtractValue { agg: Operand::Reg(r), offset: 32, .. } if r == ret
    )));
}

#[test]
fn sse2_sign_masks_and_immediate_shifts() {
    let m = load_ll(
        r#"
define i32 @f(<16 x i8>* %p, i32 %n) {
  %v = load <16 x i8>, <16 x i8>* %p
  %m = call i32 @llvm.x86.sse2.pmovmskb.128(<16 x i8> %v)
  %w = bitcast <16 x i8> %v to <4 x i32>
  %s = call <4 x i32> @llvm.x86.sse2.psrli.d(<4 x i32> %w, i32 %n)
  %a = call <4 x i32> @llvm.x86.sse2.psrai.d(<4 x i32> %w, i32 40)
  %x = call <2 x i64> @llvm.x86.sse2.psad.bw(<16 x i8> %v, <16 x i8> %v)
  ret i32 %m
}
declare i32 @llvm.x86.sse2.pmovmskb.128(<16 x i8>)
declare <4 x i32> @llvm.x86.sse2.psrli.d(<4 x i32>, i32)
declare <4 x i32> @llvm.x86.sse2.psrai.d(<4 x i32>, i32)
declare <2 x i64> @llvm.x86.sse2.psad.bw(<16 x i8>, <16 x i8>)
"#,
    );
    let b = body(&m, "f");
    // Bit 7 of each byte, packed into bits 0..16 of the mask.
    let tops = all!(
        b.insts,
        Inst::ExtractValue {
            offset: 7,
            width: 1,
            ..
        }
    );
    assert_eq!(tops.len(), 16);
    let packed: Vec<u32> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::InsertValue {
                agg_width: 32,
                width: 1,
                offset,
                ..
            } => Some(*offset),
            _ => None,
        })
        .collect();
    assert_eq!(packed, (0..16).collect::<Vec<_>>());
    // A count of the lane width or more shifts logically to zero, and
    // arithmetically as a shift by 31 does.
    let selects: Vec<(u32, Const)> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Select {
                width, else_val, ..
            } => Some((*width, konst(&m, else_val))),
            _ => None,
        })
        .collect();
    let mut want = vec![(32, int(32, 0)); 5];
    want.push((32, int(32, 31)));
    assert_eq!(selects, want);
    let shifts: Vec<BinOp> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Binary {
                op, site: Some(_), ..
            } => Some(*op),
            _ => None,
        })
        .collect();
    assert_eq!(shifts, [[BinOp::LShr; 4], [BinOp::AShr; 4]].concat());
    assert_eq!(
        unsupported(&b.insts),
        ["unsupported intrinsic `llvm.x86.sse2.psad.bw`"]
    );
}
