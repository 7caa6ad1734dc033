//! The scalarized lowering of vector instructions, checked on textual IR
//! and on C: what each family becomes, lane by lane.

use crate::ir::testutil::{
    address_offsets, body, konst, load_c, load_ll, shift_checks, unsupported,
};
use crate::ir::{BinOp, CastOp, Const, FBinOp, FCastOp, FloatTy, Inst, IntPredicate, Operand, Reg};

fn int(width: u32, bits: u128) -> Const {
    Const::Int { width, bits }
}

/// The instructions of a kind, named by a pattern.
macro_rules! all {
    ($insts:expr, $pat:pat) => {
        $insts
            .iter()
            .filter(|i| matches!(i, $pat))
            .collect::<Vec<&Inst>>()
    };
}

#[test]
fn lanewise_arithmetic_comparisons_casts_and_memory() {
    let m = load_ll(
        r#"
define void @f(<4 x i32>* %p, <2 x double>* %q) {
  %a = load <4 x i32>, <4 x i32>* %p
  %s = add <4 x i32> %a, <i32 1, i32 2, i32 3, i32 4>
  %d = udiv <4 x i32> %s, %a
  %c = icmp slt <4 x i32> %d, zeroinitializer
  %m = select <4 x i1> %c, <4 x i32> %d, <4 x i32> %s
  %z = zext <4 x i1> %c to <4 x i32>
  store <4 x i32> %m, <4 x i32>* %p
  %x = load <2 x double>, <2 x double>* %q
  %y = fmul <2 x double> %x, <double 2.0, double 2.0>
  %n = fneg <2 x double> %y
  %e = fcmp olt <2 x double> %n, %x
  %i = fptosi <2 x double> %y to <2 x i32>
  ret void
}
"#,
    );
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    // Lane i of a vector in memory is i * 4 bytes on: one address per lane
    // but the first, for each load and store.
    assert_eq!(address_offsets(&b.insts), [4, 8, 12, 4, 8, 12, 8]);
    let accesses: Vec<(bool, u32, u32, u32)> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Load {
                width, bytes, site, ..
            } => Some((true, *width, *bytes, site.0)),
            Inst::Store {
                width, bytes, site, ..
            } => Some((false, *width, *bytes, site.0)),
            _ => None,
        })
        .collect();
    let mut want = Vec::new();
    want.extend((0..4).map(|s| (true, 32, 4, s)));
    want.extend((8..12).map(|s| (false, 32, 4, s)));
    want.extend((12..14).map(|s| (true, 64, 8, s)));
    assert_eq!(accesses, want, "each lane's access has its own site");
    // The division's lanes each carry a site (4..8), between the loads' and the stores'.
    let divs: Vec<u32> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Binary {
                op: BinOp::UDiv,
                width: 32,
                site: Some(s),
                ..
            } => Some(s.0),
            _ => None,
        })
        .collect();
    assert_eq!(divs, vec![4, 5, 6, 7]);
    assert_eq!(b.num_sites, 14);
    let adds: Vec<Const> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Binary {
                op: BinOp::Add,
                rhs,
                ..
            } => Some(konst(&m, rhs)),
            _ => None,
        })
        .collect();
    assert_eq!(adds, (1..=4).map(|k| int(32, k)).collect::<Vec<_>>());
    let cmps = all!(
        b.insts,
        Inst::ICmp {
            pred: IntPredicate::Slt,
            width: 32,
            ..
        }
    );
    assert_eq!(cmps.len(), 4);
    for c in cmps {
        let Inst::ICmp { dst, rhs, .. } = c else {
            unreachable!()
        };
        assert_eq!(b.reg_widths[dst.index()], 1, "a lane of <4 x i1>");
        assert_eq!(konst(&m, rhs), int(32, 0));
    }
    assert_eq!(all!(b.insts, Inst::Select { width: 32, .. }).len(), 4);
    assert_eq!(
        all!(
            b.insts,
            Inst::Cast {
                op: CastOp::ZExt,
                from: 1,
                to: 32,
                ..
            }
        )
        .len(),
        4
    );
    assert_eq!(
        all!(
            b.insts,
            Inst::FBinary {
                op: FBinOp::Mul,
                ty: FloatTy::F64,
                ..
            }
        )
        .len(),
        2
    );
    assert_eq!(all!(b.insts, Inst::FNeg { .. }).len(), 2);
    assert_eq!(all!(b.insts, Inst::FCmp { .. }).len(), 2);
    assert_eq!(
        all!(
            b.insts,
            Inst::FCast {
                op: FCastOp::ToSigned,
                int_width: 32,
                ..
            }
        )
        .len(),
        2
    );
}

#[test]
fn phis_refer_forward_to_lanes() {
    let m = load_ll(
        r#"
define i32 @sum(i32* %p, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %j, %loop ]
  %acc = phi <4 x i32> [ zeroinitializer, %entry ], [ %next, %loop ]
  %at = getelementptr i32, i32* %p, i64 %i
  %vp = bitcast i32* %at to <4 x i32>*
  %v = load <4 x i32>, <4 x i32>* %vp
  %next = add <4 x i32> %acc, %v
  %j = add i64 %i, 4
  %more = icmp ult i64 %j, %n
  br i1 %more, label %loop, label %done
done:
  %r = call i32 @llvm.vector.reduce.add.v4i32(<4 x i32> %next)
  ret i32 %r
}
declare i32 @llvm.vector.reduce.add.v4i32(<4 x i32>)
"#,
    );
    let b = body(&m, "sum");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    let header = &b.blocks[1];
    assert_eq!(
        header.body_start.0 - header.first.0,
        5,
        "the scalar phi and one per lane"
    );
    let phis = &b.insts[header.first.index() + 1..header.body_start.index()];
    let lane_adds: Vec<Reg> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Binary {
                op: BinOp::Add,
                width: 32,
                dst,
                ..
            } => Some(*dst),
            _ => None,
        })
        .collect();
    assert_eq!(
        lane_adds.len(),
        4 + 3,
        "4 lanes, then a reduction of 3 adds"
    );
    for (k, phi) in phis.iter().enumerate() {
        let Inst::Phi {
            width: 32,
            incoming,
            ..
        } = phi
        else {
            panic!("{phi:?}")
        };
        assert_eq!(konst(&m, &incoming[0].1), int(32, 0));
        assert_eq!(incoming[1].1, Operand::Reg(lane_adds[k]), "lane {k}");
    }
    // The reduction adds the lanes first to last into the call's register.
    let done = &b.insts[b.blocks[2].first.index()..];
    let Inst::Binary {
        lhs: Operand::Reg(first),
        rhs: Operand::Reg(second),
        ..
    } = &done[0]
    else {
        panic!("{:?}", done[0])
    };
    assert_eq!((*first, *second), (lane_adds[0], lane_adds[1]));
    let Inst::Binary { dst: last, .. } = &done[2] else {
        panic!()
    };
    assert_eq!(
        done[3],
        Inst::Ret {
            value: Some(Operand::Reg(*last))
        }
    );
}

#[test]
fn extract_insert_and_shuffle() {
    let m = load_ll(
        r#"
define i32 @f(<4 x i32>* %p, i32 %i, i8 %c) {
  %v = load <4 x i32>, <4 x i32>* %p
  %e0 = extractelement <4 x i32> %v, i32 2
  %e1 = extractelement <4 x i32> %v, i32 %i
  %w = insertelement <4 x i32> %v, i32 %e1, i64 1
  %u = insertelement <4 x i32> %w, i32 %e0, i32 %i
  %s = shufflevector <4 x i32> %u, <4 x i32> %v, <4 x i32> <i32 7, i32 undef, i32 0, i32 4>
  %b = insertelement <4 x i8> poison, i8 %c, i64 0
  %splat = shufflevector <4 x i8> %b, <4 x i8> poison, <4 x i32> zeroinitializer
  %r = extractelement <4 x i8> %splat, i32 3
  ret i32 %e0
}
"#,
    );
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    let lanes_v: Vec<Reg> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Load { dst, .. } => Some(*dst),
            _ => None,
        })
        .collect();
    let rest: Vec<&Inst> = b
        .insts
        .iter()
        .filter(|i| !matches!(i, Inst::Load { .. } | Inst::Gep { .. }))
        .collect();
    // A constant index copies the lane.
    let Inst::Cast {
        op: CastOp::Bits,
        from: 32,
        to: 32,
        src,
        dst: e0,
    } = rest[0]
    else {
        panic!("{:?}", rest[0])
    };
    assert_eq!(*src, Operand::Reg(lanes_v[2]));
    // A variable one compares it with each lane's number and selects.
    for (k, inst) in rest[1..4].iter().enumerate() {
        let Inst::ICmp {
            pred: IntPredicate::Eq,
            width: 32,
            lhs: Operand::Reg(Reg(1)),
            rhs,
            ..
        } = inst
        else {
            panic!("{inst:?}")
        };
        assert_eq!(konst(&m, rhs), int(32, k as u128 + 1));
    }
    let Inst::Select {
        then_val, else_val, ..
    } = rest[4]
    else {
        panic!("{:?}", rest[4])
    };
    assert_eq!(
        (*then_val, *else_val),
        (Operand::Reg(lanes_v[1]), Operand::Reg(lanes_v[0]))
    );
    let Inst::Select { dst: e1, .. } = rest[6] else {
        panic!("{:?}", rest[6])
    };
    // insertelement at 1: lanes copied, lane 1 from %e1.
    let w: Vec<(Operand, Reg)> = rest[7..11]
        .iter()
        .map(|i| match i {
            Inst::Cast { src, dst, .. } => (*src, *dst),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(w[1].0, Operand::Reg(*e1));
    assert_eq!(w[0].0, Operand::Reg(lanes_v[0]));
    // insertelement at %i: a comparison and a select per lane.
    let u: Vec<Reg> = rest[11..19]
        .chunks(2)
        .map(|pair| match pair {
            [Inst::ICmp { .. }, Inst::Select {
                then_val,
                else_val,
                dst,
                ..
            }] => {
                assert_eq!(*then_val, Operand::Reg(*e0));
                assert!(w.iter().any(|(_, d)| Operand::Reg(*d) == *else_val));
                *dst
            }
            other => panic!("{other:?}"),
        })
        .collect();
    // The shuffle takes lane 7 (%v's 3), nothing, lane 0 (%u's 0), lane 4 (%v's 0).
    let s: Vec<Operand> = rest[19..23]
        .iter()
        .map(|i| match i {
            Inst::Cast { src, .. } => *src,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(s[0], Operand::Reg(lanes_v[3]));
    assert_eq!(konst(&m, &s[1]), Const::Undef { width: 32 });
    assert_eq!(s[2], Operand::Reg(u[0]));
    assert_eq!(s[3], Operand::Reg(lanes_v[0]));
    // The splat of %c: lane 0 of the insertion in every lane.
    let splat: Vec<Operand> = rest[27..31]
        .iter()
        .map(|i| match i {
            Inst::Cast { src, from: 8, .. } => *src,
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(splat.iter().all(|s| *s == splat[0]));
    assert!(matches!(rest[31], Inst::Cast { from: 8, to: 8, .. }));
}

#[test]
fn bitcasts_regroup_bits_little_endian() {
    let m = load_ll(
        r#"
define i64 @f(<4 x i32>* %p, i64 %x) {
  %v = load <4 x i32>, <4 x i32>* %p
  %w = bitcast <4 x i32> %v to <2 x i64>
  %f = bitcast <4 x i32> %v to <4 x float>
  %b = bitcast i64 %x to <8 x i8>
  %h = extractelement <8 x i8> %b, i32 5
  %n = bitcast <8 x i8> %b to i64
  %m = bitcast <8 x i1> <i1 1, i1 0, i1 0, i1 0, i1 0, i1 0, i1 0, i1 1> to i8
  ret i64 %n
}
"#,
    );
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    let rest: Vec<&Inst> = b
        .insts
        .iter()
        .filter(|i| !matches!(i, Inst::Load { .. } | Inst::Gep { .. }))
        .collect();
    // <4 x i32> to <2 x i64>: each i64 lane from two i32 lanes, the first low.
    let pairs: Vec<(u32, u32, u32)> = rest[0..4]
        .iter()
        .map(|i| match i {
            Inst::InsertValue {
                agg_width,
                offset,
                width,
                ..
            } => (*agg_width, *offset, *width),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        pairs,
        vec![(64, 0, 32), (64, 32, 32), (64, 0, 32), (64, 32, 32)]
    );
    // To the same shape: a copy per lane.
    assert!(rest[4..8].iter().all(|i| matches!(
        i,
        Inst::Cast {
            op: CastOp::Bits,
            from: 32,
            to: 32,
            ..
        }
    )));
    // i64 to <8 x i8>: byte k at bit 8k.
    for (k, i) in rest[8..16].iter().enumerate() {
        let Inst::ExtractValue {
            agg: Operand::Reg(Reg(1)),
            offset,
            width: 8,
            ..
        } = i
        else {
            panic!("{i:?}")
        };
        assert_eq!(*offset, 8 * k as u32);
    }
    // <8 x i8> back to i64: eight insertions, the last into %n.
    let ins: Vec<u32> = rest[17..25]
        .iter()
        .map(|i| match i {
            Inst::InsertValue {
                agg_width: 64,
                offset,
                width: 8,
                ..
            } => *offset,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ins, (0..8).map(|k| 8 * k).collect::<Vec<_>>());
    // Sub-byte lanes pack one bit each in a register.
    let bits: Vec<(u32, Const)> = rest[25..33]
        .iter()
        .map(|i| match i {
            Inst::InsertValue {
                agg_width: 8,
                offset,
                width: 1,
                elem,
                ..
            } => (*offset, konst(&m, elem)),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(bits[0], (0, int(1, 1)));
    assert_eq!(bits[7], (7, int(1, 1)));
}

#[test]
fn vector_constants_are_one_pool_entry_per_lane() {
    let m = load_ll(
        r#"
@g = global <2 x i64> <i64 1, i64 2>
define void @f(<4 x float>* %p, <2 x i8*>* %q) {
  store <4 x float> <float 1.0, float undef, float 0.0, float 1.0>, <4 x float>* %p
  store <4 x float> zeroinitializer, <4 x float>* %p
  store <2 x i8*> <i8* bitcast (<2 x i64>* @g to i8*), i8* null>, <2 x i8*>* %q
  ret void
}
"#,
    );
    let b = body(&m, "f");
    let values: Vec<Const> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Store { value, .. } => Some(konst(&m, value)),
            _ => None,
        })
        .collect();
    let one = int(32, u128::from(1.0f32.to_bits()));
    assert_eq!(
        values[..8],
        [
            one.clone(),
            Const::Undef { width: 32 },
            int(32, 0),
            one,
            int(32, 0),
            int(32, 0),
            int(32, 0),
            int(32, 0)
        ]
    );
    let g = m.global_index["g"];
    assert_eq!(
        values[8..],
        [
            Const::GlobalAddr {
                global: g,
                offset: 0
            },
            Const::Null
        ]
    );
    let init = m.globals[g.index()].init.as_ref().expect("initialized");
    assert_eq!(init.bytes[..9], [1, 0, 0, 0, 0, 0, 0, 0, 2]);
}

#[test]
fn getelementptr_over_vectors_is_lanewise() {
    let m = load_ll(
        r#"
%S = type { i32, [4 x i16] }
define void @f(%S* %p, <2 x i64> %i) {
  %a = getelementptr %S, %S* %p, <2 x i64> %i, i32 1, <2 x i64> <i64 1, i64 3>
  %b = getelementptr i8, <2 x i8*> <i8* null, i8* null>, i64 5
  ret void
}
"#,
    );
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    let geps: Vec<(i64, Vec<u64>)> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Gep {
                offset, indices, ..
            } => Some((*offset, indices.iter().map(|x| x.scale).collect())),
            _ => None,
        })
        .collect();
    // field 1 at 4, then element 1 or 3 of i16s; each lane scaled by the struct's 12 bytes.
    assert_eq!(
        geps,
        vec![(6, vec![12]), (10, vec![12]), (5, vec![]), (5, vec![])]
    );
}

#[test]
fn what_stays_refused_says_why() {
    let m = load_ll(
        r#"
define void @f(<8 x i1>* %p, <8 x i1> %m, <4 x i64> %wide, <vscale x 4 x i32>* %s) {
  store <8 x i1> %m, <8 x i1>* %p
  %v = load <vscale x 4 x i32>, <vscale x 4 x i32>* %s
  %w = add <4 x i64> %wide, %wide
  call void @g(<4 x i64> <i64 1, i64 2, i64 3, i64 4>)
  %x = load <8 x i1>, <8 x i1>* %p
  ret void
}
declare void @g(<4 x i64>)
"#,
    );
    let b = body(&m, "f");
    assert_eq!(
        unsupported(&b.insts),
        [
            "unsupported vector of sub-byte lanes `<8 x i1>` in memory in `store`",
            "unsupported vector type `<vscale x 4 x i32>` in `load`",
            "unsupported vector parameter of type `<4 x i64>` (more than 128 bits) in `add`",
            "unsupported vector call argument of type `<4 x i64>` (more than 128 bits) in `call`",
            "unsupported vector of sub-byte lanes `<8 x i1>` in memory in `load`",
        ]
    );
    // The <8 x i1> parameter fits a byte: its lanes are split off first.
    assert_eq!(all!(b.insts, Inst::ExtractValue { width: 1, .. }).len(), 8);
}

#[test]
fn vector_size_types_from_c_lower_without_refusal() {
    let src = r#"
typedef int v4si __attribute__((vector_size(16)));
typedef long long v2di __attribute__((vector_size(16)));
int f(v4si *p, int i) {
  v4si a = *p;
  v4si b = a * 3 + (v4si){1, 2, 3, 4};
  v4si c = a < b;
  v4si d = __builtin_shufflevector(b, c, 0, 5, 2, 7);
  v2di e = (v2di)d;
  return d[i] + (int)e[1] + c[3];
}
"#;
    let Some(m) = load_c(src) else { return };
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    assert!(b.insts.iter().any(|i| matches!(
        i,
        Inst::Binary {
            op: BinOp::Mul,
            width: 32,
            ..
        }
    )));
}

mod calls;

#[test]
fn a_vector_shift_only_a_select_may_choose_is_not_checked() {
    // The loop vectorizer's form of `b[i] < 32 ? a[i] >> b[i] : 0`.
    let m = load_ll(
        r#"
define <2 x i32> @f(<2 x i32> %a, <2 x i32> %b) {
  %over = icmp ugt <2 x i32> %b, <i32 31, i32 31>
  %hoisted = lshr <2 x i32> %a, %b
  %pick = select <2 x i1> %over, <2 x i32> zeroinitializer, <2 x i32> %hoisted
  %kept = shl <2 x i32> %pick, %b
  ret <2 x i32> %kept
}
"#,
    );
    let b = body(&m, "f");
    let shifts = shift_checks(&b.insts);
    // One instruction per lane: the chosen lanes unchecked, the returned
    // ones checked.
    assert_eq!(
        shifts,
        [
            (BinOp::LShr, false),
            (BinOp::LShr, false),
            (BinOp::Shl, true),
            (BinOp::Shl, true),
        ]
    );
}
