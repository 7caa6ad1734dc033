//! Lowering checked on C and textual IR: what each instruction family
//! becomes.

use crate::ir::testutil::{
    body, func, interesting, konst, load_c, load_ll, shift_checks, unsupported,
};
use crate::ir::{
    BinOp, BlockId, Callee, Const, FBinOp, FloatTy, Inst, Intrinsic, Operand, Reg, SiteId,
};

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
fn indirect_branches_and_block_addresses_from_textual_ir() {
    let m = load_ll(
        r#"
@table = global [2 x i8*] [i8* blockaddress(@f, %a), i8* blockaddress(@f, %b)]

define i32 @f(i8* %p) {
entry:
  indirectbr i8* %p, [label %a, label %b, label %a]
a:
  ret i32 1
b:
  ret i32 2
}

define i8* @g() {
  ret i8* blockaddress(@f, %b)
}
"#,
    );
    let f = m.func_by_name("f").expect("f");
    let b = body(&m, "f");
    // A target listed twice is one alternative.
    assert_eq!(
        b.insts[0],
        Inst::IndirectBr {
            addr: Operand::Reg(Reg(0)),
            targets: vec![BlockId(1), BlockId(2)],
            site: SiteId(0),
        }
    );
    assert_eq!(
        b.insts[0].alternative_blocks(),
        vec![BlockId(1), BlockId(2)]
    );
    assert_eq!(b.successors(BlockId(0)), vec![BlockId(1), BlockId(2)]);
    let Inst::Ret { value: Some(v) } = &body(&m, "g").insts[0] else {
        panic!("{:?}", body(&m, "g").insts)
    };
    let at_b = Const::BlockAddr {
        func: f,
        block: BlockId(2),
    };
    assert_eq!(konst(&m, v), at_b);
    // In an initializer, block addresses are placed when the run starts.
    let table = m.globals.iter().find(|g| g.name == "table").expect("table");
    let init = table.init.as_ref().expect("initializer");
    let relocs: Vec<(u64, Const)> = init
        .relocs
        .iter()
        .map(|(off, c)| (*off, m.consts[c.index()].clone()))
        .collect();
    let at_a = Const::BlockAddr {
        func: f,
        block: BlockId(1),
    };
    assert_eq!(relocs, vec![(0, at_a), (8, at_b)]);
}

#[test]
fn gep_into_a_vector_steps_by_its_lanes_unless_they_are_packed_bits() {
    let m = load_ll(
        r#"
define i32* @lane(<4 x i32>* %v, i64 %i) {
  %p = getelementptr inbounds <4 x i32>, <4 x i32>* %v, i64 1, i64 %i
  %q = getelementptr inbounds <4 x i32>, <4 x i32>* %v, i64 0, i64 3
  %b = getelementptr inbounds <8 x i1>, <8 x i1>* null, i64 0, i64 %i
  ret i32* %q
}
"#,
    );
    let b = body(&m, "lane");
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
    // A whole vector is 16 bytes, a lane 4.
    assert_eq!(geps, vec![(16, vec![4]), (12, vec![])]);
    let what = unsupported(&b.insts);
    assert_eq!(what.len(), 1, "{what:?}");
    assert!(what[0].contains("vector of `i1`"), "{}", what[0]);
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
define i32 @f(i32* %p, float* %q, half %l, <8 x i32> %v) {
  %a = atomicrmw fadd float* %q, float 1.0 seq_cst
  %b = fadd half %l, %l
  %c = add <8 x i32> %v, %v
  %d = load i32, i32* %p
  %e = call i32 @llvm.ctpop.i32(i32 %d)
  %f = call double @llvm.pow.f64(double 2.0, double 0.5)
  ret i32 %d
}
declare i32 @llvm.ctpop.i32(i32)
declare double @llvm.pow.f64(double, double)
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
    assert_eq!(
        what[0],
        "unsupported floating-point operation in `atomicrmw`"
    );
    assert!(what[1].contains("half"), "{}", what[1]);
    assert_eq!(
        what[2],
        "unsupported vector parameter of type `<8 x i32>` (more than 128 bits) in `add`"
    );
    assert!(what[3].contains("llvm.pow.f64"), "{}", what[3]);
    // The load after them still has its site 0 and its register.
    let Inst::Load {
        dst,
        site: SiteId(0),
        ..
    } = &b.insts[3]
    else {
        panic!("{:?}", b.insts[3])
    };
    // Registers: 4 parameters, %a, %b, the 8 lanes of %c, then %d.
    assert_eq!(*dst, Reg(14));
    assert!(matches!(
        b.insts[4],
        Inst::Intrinsic {
            kind: Intrinsic::Ctpop,
            width: 32,
            ..
        }
    ));
    assert_eq!(b.num_regs, 4 + 2 + 8 + 3);
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

#[test]
fn a_shift_only_a_select_may_choose_is_not_checked() {
    let m = load_ll(
        r#"
define i32 @f(i32 %a, i32 %b) {
  %in = icmp ult i32 %b, 32
  %hoisted = lshr i32 %a, %b
  %pick = select i1 %in, i32 %hoisted, i32 0
  %through = shl i32 %a, %b
  %cmp = icmp ugt i32 %through, 5
  %or = select i1 %in, i1 %cmp, i1 false
  %frozen = shl i32 %b, %a
  %f = freeze i32 %frozen
  %used = ashr i32 %a, %b
  %cond = icmp eq i32 %used, 0
  %bad = select i1 %cond, i32 %pick, i32 %f
  %kept = lshr i32 %b, %a
  %r = add i32 %kept, %bad
  ret i32 %r
}
"#,
    );
    let b = body(&m, "f");
    let shifts = shift_checks(&b.insts);
    // Chosen by a select, directly or through a comparison, or frozen: not
    // checked. A select's condition, or a value returned, is used: checked.
    assert_eq!(
        shifts,
        [
            (BinOp::LShr, false),
            (BinOp::Shl, false),
            (BinOp::Shl, false),
            (BinOp::AShr, true),
            (BinOp::LShr, true),
        ]
    );
}
