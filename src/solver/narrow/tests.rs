use super::*;
use crate::expr::{self, concat, constant, read, Array, ArrayRef, Evaluator, UpdateList};
use crate::solver::tests::Spy;
use crate::solver::{Solver, SolverConfig};

/// The little-endian value of `n` bytes of `a` from byte 0.
fn word(a: &ArrayRef, n: u64) -> ExprRef {
    let byte = |i: u64| read(&UpdateList::new(a.clone()), &constant(u128::from(i), 64));
    (1..n).fold(byte(0), |acc, i| concat(&byte(i), &acc))
}

fn udiv(a: &ExprRef, b: &ExprRef) -> ExprRef {
    expr::binary(BinOp::UDiv, a, b)
}

fn urem(a: &ExprRef, b: &ExprRef) -> ExprRef {
    expr::binary(BinOp::URem, a, b)
}

/// The widths of the divisions and multiplications under `e`.
fn arithmetic_widths(e: &ExprRef, out: &mut Vec<u32>) {
    if let ExprKind::Binary { op, .. } = e.kind() {
        if matches!(op, BinOp::UDiv | BinOp::URem | BinOp::Mul) {
            out.push(e.width());
        }
    }
    e.for_each_child(|c| arithmetic_widths(c, out));
}

#[test]
fn each_form_of_bound_names_its_term_and_width() {
    let x = word(&Array::symbolic("nw_bound", 8), 8);
    let k = |c| constant(c, 64);
    let high = k(!0xFFFFu128 & expr::mask(64));
    assert_eq!(bound(&expr::ult(&x, &k(4096))), Some((x.clone(), 12)));
    assert_eq!(bound(&expr::ule(&x, &k(4096))), Some((x.clone(), 13)));
    assert_eq!(
        bound(&expr::eq(&k(0), &expr::and(&high, &x))),
        Some((x.clone(), 16))
    );
    // A shift of a word of input bytes is built as tests of the bytes; a
    // sum stays a sum.
    let sum = expr::add(&x, &word(&Array::symbolic("nw_sum", 8), 8));
    let shifted = expr::binary(BinOp::LShr, &sum, &k(20));
    assert_eq!(bound(&expr::eq(&k(0), &shifted)), Some((sum.clone(), 20)));
    // No bound: signed, a mask with a hole at the top, a lower bound, a
    // byte, a value already narrow.
    assert_eq!(bound(&expr::slt(&x, &k(4096))), None);
    let holed = k(0x7FFF_0000);
    assert_eq!(bound(&expr::eq(&k(0), &expr::and(&holed, &x))), None);
    assert_eq!(bound(&expr::ugt(&x, &k(4096))), None);
    let b = word(&Array::symbolic("nw_byte", 1), 1);
    assert_eq!(bound(&expr::ult(&b, &constant(16, 8))), None);
    assert_eq!(bound(&expr::ult(&zext(&b, 64), &k(16))), None);
}

/// gnulib's buffer size from two block sizes, `a * b / gcd`-like: with
/// each size kept below 2^16 by the constraints, Z3 gets no 64-bit
/// divider or multiplier, answers as it does to the query as written, and
/// its model keeps the bounds.
#[test]
fn bounded_terms_do_their_arithmetic_narrow() {
    let (sa, sb) = (Array::symbolic("nw_a", 8), Array::symbolic("nw_b", 8));
    let (a, b) = (word(&sa, 8), word(&sb, 8));
    let k = |c| constant(c, 64);
    let high = k(!0xFFFFu128 & expr::mask(64));
    let cs = vec![
        expr::eq(&k(0), &expr::and(&high, &a)),
        expr::ult(&b, &k(8192)),
        expr::ne(&b, &k(0)),
        expr::ne(&urem(&a, &b), &k(0)),
    ];
    let lcm = udiv(&expr::mul(&a, &b), &urem(&a, &b));
    let cond = expr::eq(&lcm, &k(3 * 4096));
    let spy = Spy::default();
    let mut narrow = Solver::with_layers(
        SolverConfig::default(),
        vec![Box::new(NarrowLayer::new()), Box::new(spy.clone())],
    );
    let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
    assert_eq!(
        narrow.may_be_true(&cs, &cond).unwrap(),
        plain.may_be_true(&cs, &cond).unwrap()
    );
    let mut widths = Vec::new();
    arithmetic_widths(&spy.conditions()[0], &mut widths);
    assert!(
        !widths.is_empty() && widths.iter().all(|&w| w <= 29),
        "{widths:?}"
    );
    let all = [cs.clone(), vec![cond]].concat();
    let m = narrow.get_model(&all, &[sa, sb]).unwrap().unwrap();
    let eval = |e: &ExprRef| Evaluator::new(&m).eval(e);
    assert!(eval(&a) < 0x10000 && eval(&b) < 8192, "{m:?}");
    assert_eq!(eval(&lcm), 3 * 4096);
    assert_eq!(narrow.stats().bad_models, 0);
}

/// Over many bounds and conditions, the narrowed queries answer as Z3
/// does to the queries as written, and every model is checked.
#[test]
fn narrowed_queries_agree_with_z3() {
    let sx = Array::symbolic("nw_x", 4);
    let sy = Array::symbolic("nw_y", 2);
    let (x, y) = (word(&sx, 4), zext(&word(&sy, 2), 32));
    let k = |c: u128| constant(c & 0xFFFF_FFFF, 32);
    let mut narrow =
        Solver::with_layers(SolverConfig::default(), vec![Box::new(NarrowLayer::new())]);
    let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
    let mut sat = 0;
    for round in 0..60u128 {
        let limit = 1 + (round * 977) % 70_000;
        let fact = match round % 3 {
            0 => expr::ult(&x, &k(limit)),
            1 => expr::eq(&k(0), &expr::and(&k(!0u128 << (8 + round % 9)), &x)),
            _ => expr::eq(&k(0), &expr::binary(BinOp::LShr, &x, &k(4 + round % 13))),
        };
        let value = match round % 4 {
            0 => expr::mul(&x, &y),
            1 => udiv(&expr::mul(&x, &y), &y),
            2 => urem(&x, &y),
            _ => expr::add(&x, &udiv(&y, &x)),
        };
        let cs = vec![fact, expr::ne(&y, &k(0))];
        let cond = expr::eq(&value, &k((round * 7919) % 600));
        let answer = narrow.may_be_true(&cs, &cond).unwrap();
        assert_eq!(
            answer,
            plain.may_be_true(&cs, &cond).unwrap(),
            "round {round}"
        );
        if answer {
            sat += 1;
            let all = [cs, vec![cond]].concat();
            assert!(narrow
                .get_model(&all, &[sx.clone(), sy.clone()])
                .unwrap()
                .is_some());
        }
    }
    assert!(sat > 10, "{sat}");
    assert_eq!(narrow.stats().bad_models, 0);
}
