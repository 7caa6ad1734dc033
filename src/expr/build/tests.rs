//! The builders' rewrites on examples: folding, identities, and the
//! canonical forms the rules rely on.

use super::*;
use crate::expr::{Array, ExprKind};

fn byte(name: &str) -> ExprRef {
    let a = Array::symbolic(name, 4);
    read(&UpdateList::new(a), &constant(0, 64))
}

#[test]
fn division_of_zero_extended_operands_is_done_narrow() {
    let (x, y) = (byte("narrow_x"), byte("narrow_y"));
    let (x32, y32) = (zext(&x, 32), zext(&y, 32));
    let narrow = |op, a: &ExprRef, b: &ExprRef| zext(&binary(op, a, b), 32);
    assert_eq!(binary(BinOp::SRem, &x32, &y32), narrow(BinOp::URem, &x, &y));
    assert_eq!(binary(BinOp::SDiv, &x32, &y32), narrow(BinOp::UDiv, &x, &y));
    // A constant counts at its own width: 300 needs 9 bits.
    let by300 = binary(BinOp::URem, &x32, &constant(300, 32));
    assert_eq!(
        by300,
        zext(&binary(BinOp::URem, &zext(&x, 9), &constant(300, 9)), 32)
    );
    // A full-width constant stays as it is.
    let big = binary(BinOp::SRem, &x32, &constant(0x8000_0000, 32));
    assert!(matches!(
        big.kind(),
        ExprKind::Binary {
            op: BinOp::SRem,
            ..
        }
    ));
    // The values agree everywhere, division by zero included.
    for (a, b) in [(200u128, 7u128), (255, 0), (0, 0), (13, 255), (128, 128)] {
        let mut m = crate::expr::Assignment::new();
        m.set(&array_of(&x), vec![a as u8, 0, 0, 0]);
        m.set(&array_of(&y), vec![b as u8, 0, 0, 0]);
        for op in [BinOp::UDiv, BinOp::SDiv, BinOp::URem, BinOp::SRem] {
            let want = fold_binary(op, a, b, 32);
            assert_eq!(crate::expr::eval(&binary(op, &x32, &y32), &m), want);
        }
    }
}

/// A choice between narrow values, and a product of two that cannot wrap,
/// are narrow values themselves, so that a division of them is done narrow
/// (gnulib's LCM of two block sizes: `a * b / gcd`).
#[test]
fn choices_and_products_of_zero_extended_values_are_done_narrow() {
    let (x, y) = (byte("narrow_choice_x"), byte("narrow_choice_y"));
    let (x64, y64) = (zext(&x, 64), zext(&y, 64));
    let c = ult(&x, &y);
    // A choice of a byte or a 12-bit constant: a 12-bit choice.
    let chosen = select(&c, &x64, &constant(4000, 64));
    assert_eq!(
        chosen,
        zext(&select(&c, &zext(&x, 12), &constant(4000, 12)), 64)
    );
    // Two constants stay a choice of constants.
    let constants = select(&c, &constant(1, 64), &constant(2, 64));
    assert!(matches!(constants.kind(), ExprKind::Select { .. }));
    // A product of two bytes: 16 bits.
    let product = mul(&x64, &y64);
    assert_eq!(product, zext(&mul(&zext(&x, 16), &zext(&y, 16)), 64));
    // By a constant it stays wide (indices are scaled so).
    assert!(matches!(
        mul(&constant(4, 64), &x64).kind(),
        ExprKind::Binary { .. }
    ));
    // A product that could wrap stays as it is.
    let wide = zext(&concat(&x, &concat(&x, &x)), 32);
    let wraps = mul(&wide, &zext(&y, 32));
    assert_eq!(wraps.width(), 32);
    assert!(matches!(
        wraps.kind(),
        ExprKind::Binary { op: BinOp::Mul, .. }
    ));
    // The quotient of the product by the choice is a 16-bit division.
    assert!(divides_at(&binary(BinOp::UDiv, &product, &chosen), 16));
    for (a, b) in [(255u8, 255u8), (3, 200), (0, 7), (200, 3)] {
        let mut m = crate::expr::Assignment::new();
        m.set(&array_of(&x), vec![a, 0, 0, 0]);
        m.set(&array_of(&y), vec![b, 0, 0, 0]);
        let want = if a < b { u128::from(a) } else { 4000 };
        assert_eq!(crate::expr::eval(&chosen, &m), want);
        assert_eq!(
            crate::expr::eval(&product, &m),
            u128::from(a) * u128::from(b)
        );
    }
}

#[test]
fn division_of_a_narrow_dividend_by_a_wide_divisor_is_done_narrow() {
    // A 16-bit divisor, sign-extended: not zero-extended, so the dividend
    // alone is narrow.
    let a = Array::symbolic("wide_divisor", 2);
    let half = |i| read(&UpdateList::new(a.clone()), &constant(i, 64));
    let y16 = concat(&half(1), &half(0));
    let y64 = sext(&y16, 64);
    let x = byte("narrow_dividend");
    let x64 = zext(&x, 64);
    for (op, dividend) in [
        (BinOp::URem, constant(1, 64)),
        (BinOp::UDiv, constant(100, 64)),
        (BinOp::URem, x64.clone()),
        (BinOp::UDiv, x64.clone()),
    ] {
        let e = binary(op, &dividend, &y64);
        assert!(!divides_at(&e, 64), "{op:?}: {e:?}");
        // The values agree everywhere, division by zero and divisors past
        // the dividend's width included.
        for (xv, yv) in [
            (7u8, 0u16),
            (200, 3),
            (255, 0xffff),
            (1, 1),
            (0, 9),
            (9, 0x8000),
            (100, 256),
        ] {
            let mut m = crate::expr::Assignment::new();
            m.set(&a, yv.to_le_bytes().to_vec());
            m.set(&array_of(&x), vec![xv, 0, 0, 0]);
            let d = crate::expr::eval(&dividend, &m);
            let y = crate::expr::eval(&y64, &m);
            assert_eq!(
                crate::expr::eval(&e, &m),
                fold_binary(op, d, y, 64),
                "{op:?} {d} {y}"
            );
        }
    }
}

/// The divisions and remainders in `e`: each one's operation and width.
fn divisions(e: &ExprRef) -> Vec<(BinOp, u32)> {
    let mut found = Vec::new();
    let mut stack = vec![e.clone()];
    while let Some(n) = stack.pop() {
        if let ExprKind::Binary { op, lhs, .. } = n.kind() {
            if matches!(op, BinOp::UDiv | BinOp::URem | BinOp::SDiv | BinOp::SRem) {
                found.push((*op, lhs.width()));
            }
        }
        n.for_each_child(|c| stack.push(c.clone()));
    }
    found
}

/// Whether `e` divides (or takes a remainder) at `width` bits anywhere.
fn divides_at(e: &ExprRef, width: u32) -> bool {
    divisions(e).iter().any(|&(_, w)| w == width)
}

/// Whether `e` divides (unsigned) anywhere.
fn divides(e: &ExprRef) -> bool {
    divisions(e).iter().any(|&(op, _)| op == BinOp::UDiv)
}

/// The array a byte made by [`byte`] reads.
fn array_of(e: &ExprRef) -> crate::expr::ArrayRef {
    match e.kind() {
        ExprKind::Read { updates, .. } => updates.root.clone(),
        _ => unreachable!("not a read: {e:?}"),
    }
}

#[test]
fn signed_division_of_sign_extended_operands_is_done_narrow() {
    let (x, y) = (byte("signed_x"), byte("signed_y"));
    let (sx, sy, zy) = (sext(&x, 32), sext(&y, 32), zext(&y, 32));
    let c = |v: i32| constant(v as u32 as u128, 32);
    let pairs = [
        (sx.clone(), sy.clone()),
        (sx.clone(), zy.clone()),
        (c(1), sy.clone()),
        (c(-100), sy.clone()),
        (c(-32768), sy.clone()),
        (sx.clone(), c(7)),
        (sx.clone(), c(-1)),
    ];
    for (a, b) in &pairs {
        for op in [BinOp::SDiv, BinOp::SRem] {
            let e = binary(op, a, b);
            assert!(!divides_at(&e, 32), "{op:?}: {e:?}");
        }
    }
    // The values agree everywhere: MIN / -1, MIN % -1 and division by
    // zero included.
    let mut m = crate::expr::Assignment::new();
    for xv in 0..=255u8 {
        for yv in 0..=255u8 {
            m.set(&array_of(&x), vec![xv, 0, 0, 0]);
            m.set(&array_of(&y), vec![yv, 0, 0, 0]);
            for (a, b) in &pairs {
                let (av, bv) = (crate::expr::eval(a, &m), crate::expr::eval(b, &m));
                for op in [BinOp::SDiv, BinOp::SRem] {
                    let e = binary(op, a, b);
                    assert_eq!(
                        crate::expr::eval(&e, &m),
                        fold_binary(op, av, bv, 32),
                        "{op:?} {av:#x} {bv:#x}: {e:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn signed_division_of_a_narrow_dividend_by_a_wide_divisor_is_done_narrow() {
    let a = Array::symbolic("signed_wide_divisor", 4);
    let at = |i| read(&UpdateList::new(a.clone()), &constant(i, 64));
    let y32 = concat(&concat(&at(3), &at(2)), &concat(&at(1), &at(0)));
    let x = byte("signed_narrow_dividend");
    let sx = sext(&x, 32);
    for op in [BinOp::SDiv, BinOp::SRem] {
        let e = binary(op, &sx, &y32);
        assert!(!divides_at(&e, 32), "{op:?}: {e:?}");
    }
    // Divisors at the edges of the range where the narrow operation is
    // used, and far outside it, each way.
    let near = [
        0i32, 1, -1, 2, -2, 127, -128, 128, -129, 255, 256, -256, -257, 1000,
    ];
    let divisors = near.iter().chain(&[i32::MAX, i32::MIN]);
    let mut m = crate::expr::Assignment::new();
    for xv in 0..=255u8 {
        for &yv in divisors.clone() {
            m.set(&array_of(&x), vec![xv, 0, 0, 0]);
            m.set(&a, yv.to_le_bytes().to_vec());
            let (av, bv) = (crate::expr::eval(&sx, &m), yv as u32 as u128);
            for op in [BinOp::SDiv, BinOp::SRem] {
                assert_eq!(
                    crate::expr::eval(&binary(op, &sx, &y32), &m),
                    fold_binary(op, av, bv, 32),
                    "{op:?} {av:#x} {bv:#x}"
                );
            }
        }
    }
}

#[test]
fn interning_gives_pointer_equality() {
    let x = byte("intern_x");
    let a = add(&zext(&x, 32), &constant(3, 32));
    let b = add(&constant(3, 32), &zext(&x, 32));
    assert_eq!(a, b);
    assert_eq!(a.as_ptr(), b.as_ptr());
    assert_ne!(a, add(&zext(&x, 32), &constant(4, 32)));
}

#[test]
fn constants_fold_with_llvm_semantics() {
    let c = |v, w| constant(v, w);
    assert_eq!(add(&c(0xff, 8), &c(1, 8)).as_const(), Some(0));
    assert_eq!(
        binary(BinOp::SDiv, &c(0x80, 8), &c(0xff, 8)).as_const(),
        Some(0x80)
    );
    assert_eq!(
        binary(BinOp::SRem, &c(0x80, 8), &c(0xff, 8)).as_const(),
        Some(0)
    );
    assert_eq!(binary(BinOp::UDiv, &c(7, 8), &c(0, 8)).as_const(), Some(0));
    assert_eq!(binary(BinOp::Shl, &c(1, 8), &c(8, 8)).as_const(), Some(0));
    assert_eq!(
        binary(BinOp::AShr, &c(0x80, 8), &c(9, 8)).as_const(),
        Some(0xff)
    );
    assert_eq!(
        binary(BinOp::AShr, &c(0x80, 8), &c(3, 8)).as_const(),
        Some(0xf0)
    );
    let min128 = 1u128 << 127;
    assert_eq!(
        binary(BinOp::SDiv, &c(min128, 128), &c(u128::MAX, 128)).as_const(),
        Some(min128)
    );
    assert!(slt(&c(0x80, 8), &c(1, 8)).is_true());
    assert!(ult(&c(1, 8), &c(0x80, 8)).is_true());
    assert_eq!(sext(&c(0x80, 8), 16).as_const(), Some(0xff80));
    assert_eq!(constant(0x1ff, 8).as_const(), Some(0xff));
}

#[test]
fn identities() {
    let x = zext(&byte("id_x"), 32);
    let zero = constant(0, 32);
    let one = constant(1, 32);
    assert_eq!(add(&x, &zero), x);
    assert_eq!(mul(&x, &one), x);
    assert_eq!(mul(&x, &zero), zero);
    assert_eq!(and(&x, &zero), zero);
    assert_eq!(
        or(&x, &constant(u32::MAX as u128, 32)).as_const(),
        Some(u32::MAX as u128)
    );
    assert_eq!(xor(&x, &x), zero);
    assert_eq!(sub(&x, &x), zero);
    assert_eq!(not(&not(&x)), x);
    assert!(eq(&x, &x).is_true());
    let b = eq(&x, &one);
    assert_eq!(select(&bool_const(true), &x, &one), x);
    assert_eq!(select(&b, &x, &x), x);
    assert_eq!(and(&b, &bool_const(true)), b);
    assert!(and(&b, &bool_const(false)).is_false());
    assert!(or(&b, &bool_const(true)).is_true());
    assert_eq!(eq(&b, &bool_const(true)), b);
    assert_eq!(eq(&b, &bool_const(false)), not(&b));
    // (x + 3) - 3 == x through constant reassociation.
    assert_eq!(sub(&add(&x, &constant(3, 32)), &constant(3, 32)), x);
}

#[test]
fn booleans_from_c_comparisons_collapse() {
    // C's `if ((int)(a < b) != 0)` must become `a < b` again.
    let a = byte("cb_a");
    let b = byte("cb_b");
    let lt = ult(&a, &b);
    let widened = zext(&lt, 32);
    assert_eq!(ne(&widened, &constant(0, 32)), lt);
    assert_eq!(eq(&widened, &constant(0, 32)), not(&lt));
    assert_eq!(not(&lt), ule(&b, &a));
}

#[test]
fn extract_and_concat_see_through_each_other() {
    let x = zext(&byte("ec_x"), 32);
    let y = byte("ec_y");
    let bytes: Vec<ExprRef> = (0..4).map(|i| extract(&x, 8 * i, 8)).collect();
    // Reassemble in both associations.
    let right = concat(&bytes[3], &concat(&bytes[2], &concat(&bytes[1], &bytes[0])));
    assert_eq!(right, x);
    let left = concat(&concat(&concat(&bytes[3], &bytes[2]), &bytes[1]), &bytes[0]);
    assert_eq!(left, x);
    let c = concat(&y, &constant(0xab, 8));
    assert_eq!(extract(&c, 8, 8), y);
    assert_eq!(extract(&c, 0, 8).as_const(), Some(0xab));
    assert_eq!(extract(&zext(&y, 32), 16, 8).as_const(), Some(0));
    assert_eq!(extract(&extract(&x, 8, 16), 8, 8), extract(&x, 16, 8));
    assert_eq!(zext(&zext(&y, 16), 32), zext(&y, 32));
    assert_eq!(sext(&constant(0x7f, 8), 32).as_const(), Some(0x7f));
}

/// A word stored byte by byte and loaded back, as memory does.
fn through_bytes(w: &ExprRef) -> ExprRef {
    let b: Vec<ExprRef> = (0..4).map(|i| extract(w, 8 * i, 8)).collect();
    concat(&b[3], &concat(&b[2], &concat(&b[1], &b[0])))
}

#[test]
fn values_computed_from_a_word_come_back_whole_from_its_bytes() {
    let bytes: Vec<ExprRef> = (0..4).map(|i| byte(&format!("wb_{i}"))).collect();
    let w = concat(&bytes[3], &concat(&bytes[2], &concat(&bytes[1], &bytes[0])));
    // The low byte of a sum is simplified on its own; the word must still
    // reassemble, in either association.
    let minus_one = binary(BinOp::Add, &constant(0xffff_ffff, 32), &w);
    assert_eq!(through_bytes(&minus_one), minus_one);
    let b: Vec<ExprRef> = (0..4).map(|i| extract(&minus_one, 8 * i, 8)).collect();
    let left = concat(&concat(&concat(&b[3], &b[2]), &b[1]), &b[0]);
    assert_eq!(left, minus_one);
    // Every byte of a bitwise operation with a constant is simplified.
    let flipped = binary(BinOp::Xor, &constant(0x5a5a_5a5a, 32), &w);
    assert_eq!(through_bytes(&flipped), flipped);
    // A loop decrementing a variable kept in memory: one adder, not one
    // per iteration.
    let mut x = w.clone();
    for _ in 0..100 {
        x = through_bytes(&binary(BinOp::Add, &constant(0xffff_ffff, 32), &x));
    }
    assert_eq!(
        x,
        binary(BinOp::Add, &constant((1u128 << 32) - 100, 32), &w)
    );
}

#[test]
fn reads_through_updates() {
    let arr = Array::symbolic("rt_a", 8);
    let i = zext(&byte("rt_i"), 64);
    let v = byte("rt_v");
    let l1 = UpdateList::new(arr.clone())
        .write(constant(1, 64), constant(11, 8))
        .write(i.clone(), v.clone());
    assert_eq!(read(&l1, &i), v);
    let l = l1.write(constant(2, 64), constant(22, 8));
    assert_eq!(l.len(), 3);
    assert_eq!(read(&l, &constant(2, 64)).as_const(), Some(22));
    // The newest write may be at `i`: the read stays symbolic.
    assert!(matches!(read(&l, &i).kind(), ExprKind::Read { .. }));
    // Index 1 hits the symbolic write first: the read stays, without the
    // newest write that cannot match.
    let r = read(&l, &constant(1, 64));
    match r.kind() {
        ExprKind::Read { updates, .. } => assert_eq!(updates.len(), 2),
        other => panic!("expected a read, got {other:?}"),
    }
    let k = Array::constant("rt_k", vec![5, 6, 7]);
    assert_eq!(
        read(&UpdateList::new(k.clone()), &constant(1, 64)).as_const(),
        Some(6)
    );
    assert_eq!(
        read(&UpdateList::new(k), &constant(9, 64)).as_const(),
        Some(0)
    );
    // Lists built separately with the same writes give the same read.
    let l2 = UpdateList::new(arr).write(i.clone(), v.clone());
    let l3 = UpdateList {
        root: l2.root.clone(),
        head: None,
    }
    .write(i.clone(), v);
    let j = zext(&byte("rt_j"), 64);
    assert_eq!(read(&l2, &j), read(&l3, &j));
}

#[test]
fn stable_order_and_debug() {
    let x = byte("ord_x");
    let y = byte("ord_y");
    let s = add(&zext(&x, 16), &zext(&y, 16));
    assert_eq!(s, add(&zext(&y, 16), &zext(&x, 16)));
    assert!(zext(&x, 16).cmp(&zext(&y, 16)) != std::cmp::Ordering::Equal);
    let text = format!("{:?}", ult(&s, &constant(7, 16)));
    assert!(text.contains("(ult (add"), "{text}");
    assert!(text.contains("7:w16"), "{text}");
    assert!(text.contains("(read ord_x 0:w64)"), "{text}");
}

#[test]
fn deep_chains_drop_without_overflowing_the_stack() {
    let x = zext(&byte("deep_x"), 64);
    let mut e = x.clone();
    for i in 0..200_000u128 {
        e = binary(BinOp::Xor, &mul(&e, &x), &constant(i | 1, 64));
    }
    assert_eq!(e.width(), 64);
    drop(e);
    let arr = Array::symbolic("deep_a", 4);
    let mut l = UpdateList::new(arr);
    for _ in 0..200_000 {
        l = l.write(x.clone(), constant(1, 8));
    }
    assert_eq!(l.len(), 200_000);
    drop(l);
}

#[test]
fn quotients_by_constants_nest_into_one_and_compare_without_dividing() {
    let x = byte("quot_x");
    let array = array_of(&x);
    let divisors = [1u128, 2, 3, 7, 10, 16, 100, 255];
    let bounds = [0u128, 1, 2, 9, 25, 26, 127, 254, 255];
    let ops = [CmpOp::Eq, CmpOp::Ult, CmpOp::Ule];
    for d in divisors {
        let q = binary(BinOp::UDiv, &x, &constant(d, 8));
        for c in [3u128, 10, 26, 255] {
            let nested = binary(BinOp::UDiv, &q, &constant(c, 8));
            assert!(
                !matches!(nested.kind(), ExprKind::Binary { op: BinOp::UDiv, lhs, .. } if divides(lhs)),
                "{nested:?}"
            );
            for v in 0..=255u128 {
                let mut m = crate::expr::Assignment::new();
                m.set(&array, vec![v as u8, 0, 0, 0]);
                assert_eq!(crate::expr::eval(&nested, &m), v / d / c, "({v}/{d})/{c}");
            }
        }
        for k in bounds {
            for op in ops {
                let (left, right) = (cmp(op, &constant(k, 8), &q), cmp(op, &q, &constant(k, 8)));
                assert!(!divides(&left) && !divides(&right), "{left:?} {right:?}");
                for v in 0..=255u128 {
                    let mut m = crate::expr::Assignment::new();
                    m.set(&array, vec![v as u8, 0, 0, 0]);
                    let got = |e: &ExprRef| crate::expr::eval(e, &m) == 1;
                    assert_eq!(got(&left), fold_cmp(op, k, v / d, 8), "{k} {op:?} {v}/{d}");
                    assert_eq!(got(&right), fold_cmp(op, v / d, k, 8), "{v}/{d} {op:?} {k}");
                }
            }
        }
    }
}
