//! The expansion of integers wider than 128 bits into limbs, checked on
//! textual IR and on C: what memory accesses, shifts and comparisons
//! become, and what stays refused. `tests/wide_ints.rs` checks the values
//! they compute against LLVM's constant folding.

use crate::ir::testutil::{address_offsets, body, load_c, load_ll, unsupported};
use crate::ir::{Inst, IntPredicate};

#[test]
fn a_wide_load_and_store_are_one_access_per_limb() {
    let m = load_ll(
        r#"
define void @f(i152* %p, i192* %q) {
  %x = load i152, i152* %p
  %y = load i192, i192* %q
  store i152 %x, i152* %p
  ret void
}
"#,
    );
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    let loads: Vec<(u32, u32)> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Load { width, bytes, .. } => Some((*width, *bytes)),
            _ => None,
        })
        .collect();
    // 19 bytes: two whole limbs and the top 3 bytes.
    assert_eq!(
        loads,
        [(64, 8), (64, 8), (24, 3), (64, 8), (64, 8), (64, 8)]
    );
    let stores: Vec<(u32, u32)> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::Store { width, bytes, .. } => Some((*width, *bytes)),
            _ => None,
        })
        .collect();
    assert_eq!(stores, [(64, 8), (64, 8), (24, 3)]);
    assert_eq!(address_offsets(&b.insts), [8, 16, 8, 16, 8, 16]);
    // Each access is a choice site of its own, as a scalar access is.
    assert_eq!(b.num_sites, 9);
}

#[test]
fn a_shift_by_whole_limbs_moves_limbs_and_a_comparison_folds_limbs() {
    let m = load_ll(
        r#"
define i1 @f(i192* %p) {
  %x = load i192, i192* %p
  %y = lshr i192 %x, 128
  %c = icmp slt i192 %x, %y
  ret i1 %c
}
"#,
    );
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    // A shift by two whole limbs shifts nothing within a limb: it only
    // copies the top limb down and zeros the rest.
    let shifts = b
        .insts
        .iter()
        .filter(|i| {
            matches!(i, Inst::Binary { op, .. } if matches!(op, crate::ir::BinOp::LShr | crate::ir::BinOp::Shl))
        })
        .count();
    assert_eq!(shifts, 0, "{:?}", b.insts);
    // Signed below at the top limb only; unsigned and equal elsewhere.
    let preds: Vec<IntPredicate> = b
        .insts
        .iter()
        .filter_map(|i| match i {
            Inst::ICmp {
                pred, width: 64, ..
            } => Some(*pred),
            _ => None,
        })
        .collect();
    use IntPredicate::*;
    assert_eq!(preds, [Ult, Ult, Eq, Slt, Eq]);
}

#[test]
fn what_stays_refused_says_why() {
    let m = load_ll(
        r#"
define i192 @f(i192* %p, i192 %arg, i192 %n) {
  %x = load i192, i192* %p
  %m = mul i192 %x, %x
  %d = udiv i192 %x, 3
  %s = shl i192 %x, %n
  %a = add i192 %arg, 1
  %r = call i192 @g(i192 %x)
  ret i192 %x
}
declare i192 @g(i192)
"#,
    );
    let b = body(&m, "f");
    assert_eq!(
        unsupported(&b.insts),
        [
            "unsupported `mul` of integers wider than 128 bits in `mul`",
            "unsupported `udiv` of integers wider than 128 bits in `udiv`",
            "unsupported `shl` of an integer wider than 128 bits by a variable amount in `shl`",
            "unsupported integers wider than 128 bits as arguments or return values in `add`",
            "unsupported integers wider than 128 bits as arguments or return values in `call`",
            "unsupported integers wider than 128 bits as arguments or return values in `ret`",
        ]
    );
}

#[test]
fn bitfields_of_a_packed_struct_wider_than_128_bits_lower_without_refusal() {
    let src = r#"
#pragma pack(push, 1)
struct s { signed a : 29; signed b : 30; unsigned c : 8; signed d : 20;
           signed e : 19; unsigned f : 30; signed g : 4; unsigned h : 9; };
#pragma pack(pop)
int f(struct s *p) { p->e = p->b; p->h = p->c + 1; return p->g + p->e; }
"#;
    let Some(m) = load_c(src) else { return };
    let b = body(&m, "f");
    assert!(unsupported(&b.insts).is_empty(), "{:?}", b.insts);
    // Every register stays within a limb.
    assert!(b.reg_widths.iter().all(|&w| w <= 64), "{:?}", b.reg_widths);
}
