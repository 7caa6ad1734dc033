//! The layer's answers beside Z3's, and the searches it makes.

use crate::expr::{self, constant, read, Array, ArrayRef, Evaluator, UpdateList};
use crate::solver::{Solver, SolverConfig};

pub(super) fn byte(a: &ArrayRef, i: u128) -> expr::ExprRef {
    read(&UpdateList::new(a.clone()), &constant(i, 64))
}

fn solver(chain: &str) -> Solver {
    Solver::new(SolverConfig {
        chain: chain.parse().unwrap(),
        ..SolverConfig::default()
    })
}

/// Queries over one byte, with Z3 and with enumeration: the same
/// answers, and enumeration's models satisfy the query.
#[test]
fn one_byte_queries_are_answered_as_z3_answers_them_and_without_it() {
    let x = Array::symbolic("x", 4);
    let table = Array::constant(
        "table",
        (0..=255u8).map(|b| b.wrapping_mul(37)).collect::<Vec<u8>>(),
    );
    let c = byte(&x, 2);
    let looked_up = read(&UpdateList::new(table), &expr::zext(&c, 64));
    let cases = vec![
        // Satisfiable: a product that wraps.
        (
            vec![expr::ult(&constant(10, 8), &c)],
            expr::eq(&expr::mul(&c, &c), &constant(121, 8)),
        ),
        // Unsatisfiable: an odd square of an even byte.
        (
            vec![expr::eq(
                &expr::binary(crate::ir::BinOp::URem, &c, &constant(2, 8)),
                &constant(0, 8),
            )],
            expr::eq(&expr::mul(&c, &c), &constant(9, 8)),
        ),
        // A constant table read at the byte.
        (vec![], expr::eq(&looked_up, &constant(111, 8))),
        (
            vec![expr::ult(&c, &constant(3, 8))],
            expr::eq(&looked_up, &constant(111, 8)),
        ),
    ];
    for (constraints, cond) in cases {
        let mut z3 = solver("z3");
        let mut en = solver("enumerate,z3");
        let want = z3.may_be_true(&constraints, &cond).unwrap();
        assert_eq!(en.may_be_true(&constraints, &cond).unwrap(), want);
        let mut all = constraints.clone();
        all.push(cond.clone());
        let m = en.get_model(&all, std::slice::from_ref(&x)).unwrap();
        assert_eq!(m.is_some(), want);
        if let Some(m) = m {
            assert_eq!(m.get(&x).map(<[u8]>::len), Some(4));
            let mut e = Evaluator::new(&m);
            assert!(all.iter().all(|c| e.eval(c) == 1));
        }
        assert_eq!(en.stats().z3_calls, 0, "{cond:?}");
    }
}

/// Conjuncts over different bytes, none relating two of them: decided
/// byte by byte, as Z3 decides them.
#[test]
fn bytes_constrained_each_on_its_own_are_solved_each_on_its_own() {
    let x = Array::symbolic("x", 3);
    let y = Array::symbolic("y", 2);
    let (a, b, c) = (byte(&x, 0), byte(&x, 2), byte(&y, 1));
    let constraints = vec![
        expr::eq(&constant(10, 8), &a),
        expr::ult(&constant(200, 8), &b),
        expr::eq(&expr::mul(&c, &c), &constant(121, 8)),
    ];
    for (cond, want) in [
        (
            expr::eq(&expr::and(&b, &constant(7, 8)), &constant(3, 8)),
            true,
        ),
        (expr::eq(&b, &constant(100, 8)), false),
        (expr::ult(&constant(20, 8), &c), true),
    ] {
        let mut z3 = solver("z3");
        let mut en = solver("enumerate,z3");
        assert_eq!(z3.may_be_true(&constraints, &cond).unwrap(), want);
        assert_eq!(en.may_be_true(&constraints, &cond).unwrap(), want);
        let mut all = constraints.clone();
        all.push(cond);
        let m = en.get_model(&all, &[x.clone(), y.clone()]).unwrap();
        assert_eq!(m.is_some(), want);
        if let Some(m) = m {
            assert_eq!(m.get(&x).map(<[u8]>::len), Some(3));
            assert_eq!(m.get(&y).map(<[u8]>::len), Some(2));
            let mut e = Evaluator::new(&m);
            assert!(all.iter().all(|c| e.eval(c) == 1));
        }
        assert_eq!(en.stats().z3_calls, 0);
    }
}

/// Along a path the same constraints come back with each new
/// condition: what each allows is kept, and every later query is
/// still decided as Z3 decides it, with the least value that fits.
#[test]
fn conjuncts_worked_out_once_serve_the_queries_after() {
    let x = Array::symbolic("x", 2);
    let (a, b) = (byte(&x, 0), byte(&x, 1));
    let path = vec![
        expr::ult(&constant(10, 8), &a),
        expr::ne(&a, &constant(11, 8)),
        expr::ult(&b, &constant(3, 8)),
    ];
    let mut en = solver("enumerate,z3");
    let mut z3 = solver("z3");
    for (cond, least) in [
        (expr::ult(&a, &constant(5, 8)), None),
        (expr::ult(&a, &constant(20, 8)), Some(12)),
        (expr::eq(&b, &constant(2, 8)), Some(12)),
        (expr::ult(&constant(2, 8), &b), None),
        (expr::ult(&a, &constant(13, 8)), Some(12)),
    ] {
        assert_eq!(
            en.may_be_true(&path, &cond).unwrap(),
            z3.may_be_true(&path, &cond).unwrap(),
            "{cond:?}"
        );
        let mut all = path.clone();
        all.push(cond.clone());
        let m = en.get_model(&all, std::slice::from_ref(&x)).unwrap();
        assert_eq!(m.as_ref().map(|m| m.get(&x).unwrap()[0]), least, "{cond:?}");
    }
    assert_eq!(en.stats().z3_calls, 0);
}

#[test]
fn queries_over_more_than_one_byte_go_on_to_z3() {
    let x = Array::symbolic("x", 4);
    let y = Array::symbolic("y", 1);
    let mut en = solver("enumerate,z3");
    let two = expr::ult(&byte(&x, 0), &byte(&x, 1));
    assert!(en.may_be_true(&[], &two).unwrap());
    let other = expr::ult(&byte(&x, 0), &byte(&y, 0));
    assert!(en.may_be_true(&[], &other).unwrap());
    // At an offset that depends on the input.
    let at = expr::zext(&expr::and(&byte(&x, 0), &constant(3, 8)), 64);
    let moving = expr::eq(&read(&UpdateList::new(x.clone()), &at), &constant(7, 8));
    assert!(en.may_be_true(&[], &moving).unwrap());
    // Two bytes each on their own, but a third conjunct relates them.
    let related = vec![
        expr::ult(&constant(5, 8), &byte(&x, 0)),
        expr::ult(&constant(5, 8), &byte(&x, 1)),
    ];
    assert!(en.may_be_true(&related, &two).unwrap());
    assert_eq!(en.stats().z3_calls, 4);
}
/// A little-endian word of `n` bytes of `a`, as a load builds it.
fn word(a: &ArrayRef, n: u128) -> expr::ExprRef {
    (1..n).fold(byte(a, 0), |lo, i| expr::concat(&byte(a, i), &lo))
}

/// `lo <= w <= hi`, signed, as `klee_range` and a bounds check say it.
fn within(w: &expr::ExprRef, lo: u128, hi: u128) -> Vec<expr::ExprRef> {
    vec![
        expr::sle(&constant(lo, 32), w),
        expr::sle(w, &constant(hi, 32)),
    ]
}

/// Remainders and products of two words the path bounds to a few
/// values each (Euclid's gcd on inputs in 1..=8): decided by trying
/// the combinations, as Z3 decides them, with models that hold.
#[test]
fn words_bounded_to_few_values_are_searched_without_z3() {
    use crate::ir::BinOp;
    let (x, y) = (Array::symbolic("x", 4), Array::symbolic("y", 4));
    let (a, b) = (word(&x, 4), word(&y, 4));
    let mut path = within(&a, 1, 8);
    path.extend(within(&b, 1, 8));
    let rem = |l: &expr::ExprRef, r: &expr::ExprRef| expr::binary(BinOp::URem, l, r);
    let c = |v| constant(v, 32);
    let cases = [
        // x mod x is 0: the query gcd asks at its assertion.
        (vec![expr::eq(&a, &b)], expr::ne(&rem(&a, &a), &c(0)), false),
        (vec![], expr::eq(&rem(&a, &b), &c(3)), true),
        (vec![], expr::eq(&expr::mul(&a, &b), &c(49)), true),
        (vec![], expr::eq(&expr::mul(&a, &b), &c(63)), false),
        // A difference taken twice, as the loop of gcd takes it.
        (
            vec![expr::ult(&a, &b)],
            expr::eq(&rem(&expr::sub(&expr::sub(&b, &a), &a), &a), &c(1)),
            true,
        ),
    ];
    for (more, cond, want) in cases {
        let mut constraints = path.clone();
        constraints.extend(more);
        let mut z3 = solver("z3");
        let mut en = solver("enumerate,z3");
        assert_eq!(
            z3.may_be_true(&constraints, &cond).unwrap(),
            want,
            "{cond:?}"
        );
        assert_eq!(
            en.may_be_true(&constraints, &cond).unwrap(),
            want,
            "{cond:?}"
        );
        let mut all = constraints.clone();
        all.push(cond.clone());
        let m = en.get_model(&all, &[x.clone(), y.clone()]).unwrap();
        assert_eq!(m.is_some(), want);
        if let Some(m) = m {
            let mut e = Evaluator::new(&m);
            assert!(all.iter().all(|c| e.eval(c) == 1), "{cond:?}");
        }
        assert_eq!(en.stats().z3_calls, 0, "{cond:?}");
    }
}

/// Words with too many combinations left, or with no bound on them,
/// go on to Z3, which answers.
#[test]
fn words_with_many_values_left_go_on_to_z3() {
    let (x, y) = (Array::symbolic("x", 4), Array::symbolic("y", 4));
    let (a, b) = (word(&x, 4), word(&y, 4));
    let mut wide = within(&a, 0, 99);
    wide.extend(within(&b, 0, 99));
    let cond = expr::eq(&expr::mul(&a, &b), &constant(77 * 13, 32));
    let mut en = solver("enumerate,z3");
    assert!(en.may_be_true(&wide, &cond).unwrap());
    assert_eq!(en.stats().z3_calls, 1);
    let unbounded = within(&a, 1, 8);
    assert!(en.may_be_true(&unbounded, &cond).unwrap());
    assert_eq!(en.stats().z3_calls, 2);
}
/// A loop reading a fresh word each round and comparing it with the
/// round's number: each word's bounds alone read its bytes, so every
/// question and the path's model are answered without Z3, and a
/// contradiction is found as Z3 finds it.
#[test]
fn free_words_take_a_value_their_bounds_allow_without_z3() {
    let words: Vec<_> = (0..300)
        .map(|k| Array::symbolic(&format!("x{k}"), 4))
        .collect();
    let c = |v| constant(v, 32);
    let mut path = Vec::new();
    let mut en = solver("enumerate,z3");
    for (k, a) in words.iter().enumerate() {
        let x = expr::add(&word(a, 4), &c(3));
        let cond = expr::slt(&x, &c(k as u128));
        assert!(en.may_be_true(&path, &cond).unwrap());
        assert!(en.may_be_true(&path, &expr::not(&cond)).unwrap());
        path.push(expr::not(&cond));
    }
    let m = en.get_model(&path, &words).unwrap().unwrap();
    let mut ev = Evaluator::new(&m);
    assert!(path.iter().all(|c| ev.eval(c) == 1));
    let x = word(&words[7], 4);
    let mut narrow = vec![expr::ult(&x, &c(10))];
    assert!(!en.may_be_true(&narrow, &expr::ult(&c(20), &x)).unwrap());
    narrow.push(expr::ne(&x, &c(0)));
    assert!(!en.may_be_true(&narrow, &expr::eq(&x, &c(0))).unwrap());
    assert_eq!(en.stats().z3_calls, 0);
}

/// Words that overlap, share bytes with a conjunct of their own byte or
/// with a product, or repeat a byte, are not free: random bounds on
/// such words get Z3's answers, and the models hold.
#[test]
fn words_that_share_bytes_are_answered_as_z3_answers_them() {
    use crate::expr::CmpOp;
    use rand::{Rng, SeedableRng};
    let a = Array::symbolic("a", 6);
    let b = Array::symbolic("b", 2);
    let terms = [
        word(&a, 4),
        word(&a, 2),
        expr::concat(&byte(&a, 5), &byte(&a, 4)),
        expr::concat(&byte(&a, 4), &expr::concat(&byte(&a, 5), &byte(&a, 4))),
        expr::concat(&byte(&b, 1), &byte(&b, 0)),
        byte(&a, 0),
        byte(&b, 1),
        expr::mul(&word(&b, 2), &expr::concat(&byte(&a, 5), &byte(&a, 4))),
    ];
    let ops = [CmpOp::Eq, CmpOp::Ult, CmpOp::Ule, CmpOp::Slt, CmpOp::Sle];
    let mut rng = rand::rngs::SmallRng::seed_from_u64(11);
    let mut en = solver("enumerate,z3");
    let mut z3 = solver("z3");
    let mut free = 0;
    for _ in 0..400 {
        let n = rng.gen_range(1..4);
        let mut all: Vec<_> = (0..n)
            .map(|_| {
                let t = &terms[rng.gen_range(0..terms.len())];
                let w = t.width();
                let v = constant(rng.gen::<u128>() & crate::expr::mask(w), w);
                let op = ops[rng.gen_range(0..ops.len())];
                let e = if rng.gen() {
                    expr::cmp(op, t, &v)
                } else {
                    expr::cmp(op, &v, t)
                };
                if rng.gen_range(0..3) == 0 {
                    expr::not(&e)
                } else {
                    e
                }
            })
            .collect();
        let cond = all.pop().unwrap();
        let want = z3.may_be_true(&all, &cond).unwrap();
        let calls = en.stats().z3_calls;
        assert_eq!(
            en.may_be_true(&all, &cond).unwrap(),
            want,
            "{all:?} {cond:?}"
        );
        free += usize::from(en.stats().z3_calls == calls);
        all.push(cond);
        if let Some(m) = en.get_model(&all, &[a.clone(), b.clone()]).unwrap() {
            let mut ev = Evaluator::new(&m);
            assert!(all.iter().all(|c| ev.eval(c) == 1), "{all:?}");
        }
    }
    assert_eq!(en.stats().bad_models, 0);
    assert!(free > 100, "{free} of 400 answered without Z3");
}

/// Random expressions over two 4-byte arrays whose bytes the path
/// bounds to one to four values each: enumeration (searching where the
/// combinations are few, passing the query on where not) answers as Z3
/// does, and its models hold.
#[test]
fn random_expressions_over_bounded_bytes_are_answered_as_z3_answers_them() {
    use crate::expr::proptests::{build, reference, Env, Gen, ARRAY_SIZE};
    use rand::{Rng, SeedableRng};
    let env = Env::new("en");
    let mut en = solver("enumerate,z3");
    let mut z3 = solver("z3");
    let hits = |s: &Solver| s.stats().hits.get("enumerate").copied().unwrap_or(0);
    let mut searched = 0;
    for seed in 0..200u64 {
        let mut g = Gen::new(seed);
        let w = g.width();
        let tree = g.gen(w, 1 + (seed % 3) as u32);
        let e = build(&tree, &env);
        let mut rng = rand::rngs::SmallRng::seed_from_u64(seed);
        let n = env.sym.len() * ARRAY_SIZE as usize;
        let bytes: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let mut path = Vec::new();
        for (k, arr) in env.sym.iter().enumerate() {
            for i in 0..ARRAY_SIZE as u128 {
                let b = bytes[k * ARRAY_SIZE as usize + i as usize];
                let spread = rng.gen_range(0..4u8);
                let lo = b.saturating_sub(spread / 2);
                path.push(expr::ule(&constant(u128::from(lo), 8), &byte(arr, i)));
                path.push(expr::ule(
                    &byte(arr, i),
                    &constant(u128::from(lo.saturating_add(spread)), 8),
                ));
            }
        }
        // One value the expression takes within the bounds, and one it
        // may not.
        let taken = reference(&tree, &env, &bytes);
        let other = taken ^ u128::from(rng.gen::<u8>() | 1);
        for v in [taken, other & crate::expr::mask(w)] {
            let cond = expr::eq(&e, &constant(v, w));
            let want = z3.may_be_true(&path, &cond).unwrap();
            let before = hits(&en);
            assert_eq!(
                en.may_be_true(&path, &cond).unwrap(),
                want,
                "seed {seed}: {e:?}"
            );
            if hits(&en) > before && super::bytes_of(&e).is_ok_and(|b| b.len() > 1) {
                searched += 1;
            }
            let mut all = path.clone();
            all.push(cond);
            if let Some(m) = en.get_model(&all, &env.sym).unwrap() {
                let mut ev = Evaluator::new(&m);
                assert!(all.iter().all(|c| ev.eval(c) == 1), "seed {seed}: {e:?}");
            }
        }
    }
    assert_eq!(en.stats().bad_models, 0);
    assert!(
        searched > 40,
        "{searched} queries relating bytes were searched"
    );
}

/// Asks `s` for a model of `x` under `path` and `goal`, and checks that it
/// satisfies them.
pub(super) fn assert_model_satisfies(
    s: &mut Solver,
    path: &[expr::ExprRef],
    goal: &expr::ExprRef,
    x: &ArrayRef,
) {
    let model = s
        .model_where(path, goal, std::slice::from_ref(x), None)
        .unwrap()
        .expect("a model");
    let mut e = Evaluator::new(&model);
    assert!(path.iter().chain([goal]).all(|c| e.eval(c) == 1));
}

/// The layer before a Z3 that times out on every query, and what it was
/// asked.
pub(super) fn enumerate_before_stuck_z3() -> (Solver, Asked) {
    let caps = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let layers: Vec<Box<dyn crate::solver::Layer>> = vec![
        Box::new(super::EnumerateLayer::default()),
        Box::new(Capped(caps.clone())),
    ];
    (
        Solver::with_layers(SolverConfig::default(), layers),
        Asked(caps),
    )
}

/// The caps of the queries a [`Capped`] layer was asked.
pub(super) struct Asked(std::rc::Rc<std::cell::RefCell<Vec<Option<u64>>>>);

impl Asked {
    /// The queries Z3 was asked with its whole time, not as a long
    /// search's short try.
    pub(super) fn full(&self) -> usize {
        let caps = self.0.borrow();
        caps.iter().filter(|&&c| c != Some(super::TRY_MS)).count()
    }
}

/// A layer below the enumeration that records the cap each query it is
/// asked comes with, and times out on every one.
struct Capped(std::rc::Rc<std::cell::RefCell<Vec<Option<u64>>>>);

impl crate::solver::Layer for Capped {
    fn name(&self) -> &'static str {
        "capped"
    }

    fn check(
        &mut self,
        _q: &crate::solver::Query<'_>,
        next: &mut crate::solver::Chain<'_>,
    ) -> Result<crate::solver::Answer, crate::solver::SolverError> {
        self.0.borrow_mut().push(next.cap_ms());
        Err(crate::solver::SolverError::Timeout)
    }
}

/// Two bytes' worth of combinations are too many to try before Z3 but for
/// a chain of divisions, which Z3 is slow on (five bytes' worth then),
/// and few enough to try all of
/// once Z3 runs out of time: each query is decided, sat or unsat, with a
/// model that satisfies it. Six bytes' worth stay undecided.
#[test]
fn queries_over_two_bytes_are_searched_whole_before_or_after_z3() {
    use crate::expr::{binary, ne, ugt, zext};
    use crate::ir::BinOp;
    use crate::solver::SolverError;
    let x = Array::symbolic("two_bytes", 6);
    let [a, b, c, d, e, f] = [0, 1, 2, 3, 4, 5].map(|i| zext(&byte(&x, i), 32));
    let k = |v| constant(v, 32);
    let urem = |p: &expr::ExprRef, q: &expr::ExprRef| binary(BinOp::URem, p, q);
    let (mut s, asked) = enumerate_before_stuck_z3();
    let r = urem(&a, &b);
    let path = vec![ne(&b, &k(0)), ne(&r, &k(0))];
    // One remainder: Z3 is asked first, and runs out of time.
    assert_eq!(super::chain_in(&ugt(&r, &b)), None);
    assert_eq!(s.may_be_true(&path, &ugt(&r, &b)), Ok(false));
    assert_eq!(asked.full(), 1);
    // A remainder by a remainder, sat (a = 10, b = 7): searched first.
    let chained = expr::eq(&urem(&b, &r), &k(3));
    assert_eq!(super::chain_in(&chained), Some(super::Chained::Divisions));
    assert_eq!(s.may_be_true(&path, &chained), Ok(true));
    assert_model_satisfies(&mut s, &path, &chained, &x);
    assert_eq!(asked.full(), 1);
    // A third byte in the chain: searched too.
    let wide = expr::eq(&urem(&urem(&b, &r), &c), &k(5));
    assert_eq!(s.may_be_true(&path, &wide), Ok(true));
    assert_eq!(asked.full(), 1);
    // A fourth and a fifth: searched too, the bytes before each read only
    // through the remainder they leave.
    let wider = expr::eq(&urem(&urem(&urem(&urem(&b, &r), &c), &d), &e), &k(5));
    assert_eq!(s.may_be_true(&path, &wider), Ok(true));
    assert_model_satisfies(&mut s, &path, &wider, &x);
    assert_eq!(asked.full(), 1);
    // A sixth: too many combinations to search.
    let widest = expr::eq(
        &urem(&urem(&urem(&urem(&urem(&b, &r), &c), &d), &e), &f),
        &k(5),
    );
    assert_eq!(s.may_be_true(&path, &widest), Err(SolverError::Timeout));
    assert_eq!(asked.full(), 2);
}

/// A lookup in a constant table of 256 entries named `name`, entry `b`
/// being `entry(b)`, as a scanner's DFA tables are.
fn table(name: &str, entry: fn(u8) -> u8) -> impl Fn(&expr::ExprRef) -> expr::ExprRef {
    let contents = Array::constant(name, (0..=255u8).map(entry).collect::<Vec<u8>>());
    move |i| read(&UpdateList::new(contents.clone()), &expr::zext(i, 64))
}

/// A table looked up at an entry of another table for an input byte, as a
/// scanner's DFA tables are, over three bytes: searched before Z3, which
/// is never asked with its whole time, with a model that satisfies the
/// query; one lookup alone is Z3's.
#[test]
fn chained_table_lookups_are_searched_before_z3() {
    use crate::expr::{add, ult};
    let x = Array::symbolic("scanned", 3);
    let lookup = table("next_state", |b| b.wrapping_mul(73) ^ 0x5a);
    // The state after each byte: the table at the state before plus the byte.
    let s1 = lookup(&byte(&x, 0));
    let s2 = lookup(&add(&s1, &byte(&x, 1)));
    let s3 = lookup(&add(&s2, &byte(&x, 2)));
    assert_eq!(super::chain_in(&ult(&s1, &constant(9, 8))), None);
    let goal = expr::eq(&s3, &constant(200, 8));
    assert_eq!(super::chain_in(&goal), Some(super::Chained::Lookups(3)));
    let (mut s, asked) = enumerate_before_stuck_z3();
    let path = vec![ult(&s1, &constant(100, 8)), ult(&s2, &constant(50, 8))];
    assert_model_satisfies(&mut s, &path, &goal, &x);
    assert_eq!(asked.full(), 0);
}

/// A copy of `x`'s first four bytes in an 8-byte buffer named `name`, as
/// grep makes of a pattern, and its read at `k + (byte 1 == '-')`.
fn pattern_copy(x: &ArrayRef, name: &str) -> impl Fn(u128) -> expr::ExprRef {
    use crate::expr::{add, eq, zext};
    let mut buf = UpdateList::new(Array::constant(name, vec![0u8; 8]));
    for i in 0..4 {
        buf = buf.write(constant(i, 64), byte(x, i));
    }
    let dash = zext(&eq(&byte(x, 1), &constant(45, 8)), 64);
    move |k| read(&buf, &add(&constant(k, 64), &dash))
}

/// grep copies a pattern's first bytes to a buffer and reads it at
/// `1 + (byte 1 == '-')`: the read gives one of bytes 1 and 2, never the
/// writes of bytes 0 and 3 (or the buffer's own bytes at those offsets).
/// A hash of the byte read that no value makes zero is then decided over
/// those two bytes by the search (Z3 given a short try at most); reading
/// all four, the search had 2^24 combinations to exhaust and gave up.
#[test]
fn writes_the_index_cannot_reach_are_not_searched() {
    use crate::expr::{eq, ne, zext};
    let x = Array::symbolic("pattern", 4);
    let at = pattern_copy(&x, "buf");
    let (read_bytes, _) = super::input_bytes(&at(1), 16, 4096).unwrap();
    let offsets: Vec<u64> = read_bytes.iter().map(|(_, i)| *i).collect();
    assert_eq!(offsets.len(), 2, "{offsets:?}");
    assert!(offsets.contains(&1) && offsets.contains(&2), "{offsets:?}");
    // A table that has no zero but at 200, looked up at the byte read.
    let table = |zero_at: Option<u8>| {
        Array::constant(
            "hash",
            (0..=255u8)
                .map(|b| if Some(b) == zero_at { 0 } else { b | 1 })
                .collect::<Vec<u8>>(),
        )
    };
    let path = vec![
        eq(&byte(&x, 0), &constant(92, 8)),
        ne(&at(3), &constant(7, 8)),
    ];
    for (zero_at, sat) in [(None, false), (Some(200), true)] {
        let hashed = read(&UpdateList::new(table(zero_at)), &zext(&at(1), 64));
        let goal = eq(&hashed, &constant(0, 8));
        assert_eq!(super::chain_in(&goal), Some(super::Chained::Lookups(2)));
        let (mut s, asked) = enumerate_before_stuck_z3();
        assert_eq!(s.may_be_true(&path, &goal), Ok(sat));
        if sat {
            assert_model_satisfies(&mut s, &path, &goal, &x);
        }
        assert_eq!(asked.full(), 0);
    }
}

/// Bytes with one value come first, then those that complete the
/// conjunct with the fewest combinations left, so that it is checked
/// near the search's root.
#[test]
fn the_search_completes_the_cheapest_conjunct_first() {
    let e = constant(1, 1);
    let values = [256, 256, 256, 1];
    let conjuncts = vec![(&e, vec![0, 1, 2, 3]), (&e, vec![3, 1])];
    assert_eq!(
        super::search::search_order(&conjuncts, |i| values[i]),
        vec![3, 1, 0, 2]
    );
    // Ties go to the last conjunct (the query's own condition), and each
    // keeps its bytes' order.
    let conjuncts = vec![(&e, vec![2, 0]), (&e, vec![1, 0])];
    assert_eq!(
        super::search::search_order(&conjuncts, |i| values[i]),
        vec![1, 0, 2]
    );
}

/// Random buffers of input bytes written at fixed offsets over constant
/// contents, read at indices of narrow ranges, as copies of a pattern's
/// first bytes are: enumeration answers as Z3 does, and its models hold.
#[test]
fn reads_of_written_buffers_at_narrow_indices_are_answered_as_z3_answers_them() {
    use crate::expr::{add, and, eq, ule, zext};
    use rand::{Rng, SeedableRng};
    let x = Array::symbolic("copied", 6);
    let mut en = solver("enumerate,z3");
    let mut z3 = solver("z3");
    let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
    for seed in 0..60 {
        let contents: Vec<u8> = (0..10).map(|_| rng.gen_range(0..4)).collect();
        let mut buf = UpdateList::new(Array::constant(&format!("buf{seed}"), contents));
        for _ in 0..rng.gen_range(2..8) {
            let (at, from) = (rng.gen_range(0..8u128), rng.gen_range(0..6u128));
            buf = buf.write(constant(at, 64), byte(&x, from));
        }
        // An index of two or four values, chosen by an input byte.
        let index = |rng: &mut rand::rngs::SmallRng| {
            let chooser = byte(&x, rng.gen_range(0..6));
            let offset = constant(rng.gen_range(0..7), 64);
            if rng.gen() {
                add(&offset, &zext(&eq(&chooser, &constant(45, 8)), 64))
            } else {
                add(&offset, &zext(&and(&chooser, &constant(3, 8)), 64))
            }
        };
        let mut path: Vec<_> = (0..6)
            .map(|i| ule(&byte(&x, i), &constant(rng.gen_range(1..64), 8)))
            .collect();
        path.push(expr::ne(&read(&buf, &index(&mut rng)), &constant(1, 8)));
        let goal = eq(
            &read(&buf, &index(&mut rng)),
            &constant(rng.gen_range(0..6), 8),
        );
        let want = z3.may_be_true(&path, &goal).unwrap();
        assert_eq!(en.may_be_true(&path, &goal).unwrap(), want, "seed {seed}");
        if want {
            assert_model_satisfies(&mut en, &path, &goal, &x);
        }
    }
    assert!(en.stats().hits.get("enumerate").copied().unwrap_or(0) > 30);
}

/// A conjunct that skips a byte before its last is checked once for each
/// value of the bytes it reads, not for each value of the skipped one:
/// grep's `buf[3 + (byte 1 == '-')] == 0` fixes byte 3 by byte 1 whatever
/// byte 2 is, and checked for each of byte 2's values it made the search
/// run out of its budget on a query no value satisfies.
#[test]
fn conjuncts_that_skip_a_byte_are_checked_once_for_its_values() {
    use crate::expr::{add, eq, ne, zext};
    let x = Array::symbolic("pattern3", 4);
    let at = pattern_copy(&x, "buf3");
    let no_zero = Array::constant("no_zero", (0..=255u8).map(|b| b | 1).collect::<Vec<u8>>());
    let path = vec![
        eq(&byte(&x, 0), &constant(92, 8)),
        eq(&at(3), &constant(0, 8)),
        ne(&at(1), &constant(0, 8)),
    ];
    let sum = add(&at(1), &at(2));
    let goal = eq(
        &read(&UpdateList::new(no_zero), &zext(&sum, 64)),
        &constant(0, 8),
    );
    let (mut s, asked) = enumerate_before_stuck_z3();
    assert_eq!(s.may_be_true(&path, &goal), Ok(false));
    assert_eq!(asked.full(), 0);
}

/// A scanner over five bytes with sixteen states: 2^40 combinations, far
/// too many to try, but the checks from each byte on read the bytes
/// before it only through the state they lead to, so the search goes on
/// from each state once at each byte. Decided by the search, unsat and
/// sat (Z3 given a short try at most), with a model that satisfies the query.
#[test]
fn combinations_that_lead_to_a_state_already_tried_are_not_searched_again() {
    use crate::expr::{add, ne};
    let x = Array::symbolic("scanned5", 5);
    let lookup = table("next16", |b| (b.wrapping_mul(73) ^ 0x5a) & 15);
    let mut states = vec![lookup(&byte(&x, 0))];
    for k in 1..5 {
        let state = lookup(&add(&states[states.len() - 1], &byte(&x, k)));
        states.push(state);
    }
    // No state on the way is 0.
    let path: Vec<_> = states[..4].iter().map(|s| ne(s, &constant(0, 8))).collect();
    let (mut s, asked) = enumerate_before_stuck_z3();
    let unreachable = expr::eq(&states[4], &constant(16, 8));
    assert_eq!(s.may_be_true(&path, &unreachable), Ok(false));
    let goal = expr::eq(&states[4], &constant(9, 8));
    assert_model_satisfies(&mut s, &path, &goal, &x);
    assert_eq!(asked.full(), 0);
}

/// A scanner's state after `x`'s bytes, over tables of 256 states (for
/// three bytes 2^24 combinations, the search going on from each state
/// once a byte: some 2^19 evaluations), asked to be odd and 200 at once,
/// which no input makes it, with `k` added to the last byte so that each
/// query is new.
fn odd_and_200(x: &ArrayRef, k: u128) -> (Vec<expr::ExprRef>, expr::ExprRef) {
    use crate::expr::add;
    let lookup = table("next256", |b| b.wrapping_mul(73) ^ 0x5a);
    let mut state = lookup(&byte(x, 0));
    for i in 1..u128::from(x.size) {
        let input = if i + 1 == u128::from(x.size) {
            add(&byte(x, i), &constant(k, 8))
        } else {
            byte(x, i)
        };
        state = lookup(&add(&state, &input));
    }
    let odd = expr::eq(&expr::and(&state, &constant(1, 8)), &constant(1, 8));
    (vec![odd], expr::eq(&state, &constant(200, 8)))
}

/// A chained search that runs past its first few milliseconds gives Z3 a
/// short try (capped), and decides the query itself when the try times
/// out; tries that time out are made ever more rarely. Where Z3 answers
/// them, every such search hands its query over. At the run's deadline,
/// and where the chain is deeper than [`super::MAX_TRIED_DEPTH`], no
/// search gives a try.
#[test]
fn a_long_chained_search_gives_z3_a_short_try_while_tries_answer() {
    let x = Array::symbolic("scanned3", 3);
    let (mut s, asked) = enumerate_before_stuck_z3();
    for k in 0..6 {
        let (path, goal) = odd_and_200(&x, k);
        assert_eq!(super::chain_in(&goal), Some(super::Chained::Lookups(3)));
        assert_eq!(s.may_be_true(&path, &goal), Ok(false), "query {k}");
    }
    // Queries 0, 2 and 5 tried Z3, each capped; the search decided all.
    assert_eq!(*asked.0.borrow(), vec![Some(super::TRY_MS); 3]);
    // A small search decides its query before any try.
    let (path, _) = odd_and_200(&x, 0);
    let two = expr::eq(&byte(&x, 0), &constant(7, 8));
    assert_eq!(s.may_be_true(&path, &two), Ok(true));
    assert_eq!(asked.0.borrow().len(), 3);
    // With Z3 below, which answers these in its try: each is Z3's.
    let mut s = solver("enumerate,z3-auto");
    for k in 0..3 {
        let (path, goal) = odd_and_200(&x, k);
        assert_eq!(s.may_be_true(&path, &goal), Ok(false));
    }
    assert_eq!(s.stats().z3_calls, 3);
    assert_eq!(s.stats().hits.get("enumerate"), None);
    // At the run's deadline, where Z3 answers nothing: the search alone.
    let (mut s, asked) = enumerate_before_stuck_z3();
    s.set_deadline(Some(std::time::Instant::now()));
    let (path, goal) = odd_and_200(&x, 0);
    assert_eq!(s.may_be_true(&path, &goal), Ok(false));
    assert!(asked.0.borrow().is_empty());
    // Four deep: the search alone, however long it runs.
    let x = Array::symbolic("scanned4", 4);
    let (mut s, asked) = enumerate_before_stuck_z3();
    let (path, goal) = odd_and_200(&x, 0);
    assert_eq!(super::chain_in(&goal), Some(super::Chained::Lookups(4)));
    assert_eq!(s.may_be_true(&path, &goal), Ok(false));
    assert!(asked.0.borrow().is_empty());
}
