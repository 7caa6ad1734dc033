//! Tests of the solver pipeline against Z3.

use super::*;
use crate::expr::proptests::{build, reference, Env, Gen, ARRAY_SIZE, T};
use crate::expr::{
    add, binary, bool_const, concat, constant, eq, eval, extract, mul, ne, read, sge, slt, uge,
    ugt, ult, zext, Array, UpdateList,
};
use crate::ir::BinOp;

fn byte(a: &ArrayRef, i: u64) -> ExprRef {
    read(&UpdateList::new(a.clone()), &constant(i as u128, 64))
}

/// The little-endian `width`-bit value made of the first bytes of `a`.
fn value(a: &ArrayRef, width: u32) -> ExprRef {
    let n = width.div_ceil(8) as u64;
    let mut v = byte(a, 0);
    for i in 1..n {
        v = concat(&byte(a, i), &v);
    }
    extract(&v, 0, width)
}

fn solver() -> Solver {
    Solver::new(SolverConfig::default())
}

#[test]
fn linear_constraints() {
    let a = Array::symbolic("lin_x", 1);
    let b = Array::symbolic("lin_y", 1);
    let (x, y) = (byte(&a, 0), byte(&b, 0));
    let cs = vec![eq(&add(&x, &y), &constant(10, 8)), ult(&x, &constant(3, 8))];
    let mut s = solver();
    assert!(s.may_be_true(&cs, &eq(&y, &constant(8, 8))).unwrap());
    assert!(!s.may_be_true(&cs, &eq(&y, &constant(7, 8))).unwrap());
    assert!(s.must_be_true(&cs, &uge(&y, &constant(8, 8))).unwrap());
    assert!(!s.must_be_true(&cs, &uge(&y, &constant(9, 8))).unwrap());
    let vx = s.get_value(&cs, &x).unwrap();
    assert!(vx < 3);
    let model = s.get_model(&cs, &[a.clone(), b.clone()]).unwrap().unwrap();
    let (mx, my) = (model.get(&a).unwrap()[0], model.get(&b).unwrap()[0]);
    assert_eq!(mx.wrapping_add(my), 10);
    assert!(mx < 3);
    let unsat = vec![cs[0].clone(), cs[1].clone(), ugt(&y, &constant(10, 8))];
    assert!(s.get_model(&unsat, &[a]).unwrap().is_none());
}

#[test]
fn signed_and_unsigned_comparisons_at_every_width() {
    for w in [8u32, 32, 64, 128] {
        let a = Array::symbolic(&format!("sg_{w}"), 16);
        let x = value(&a, w);
        let zero = constant(0, w);
        let smin = constant(1u128 << (w - 1), w);
        let cs = vec![slt(&x, &zero)];
        let mut s = solver();
        // Negative numbers are the unsigned upper half.
        assert!(s.must_be_true(&cs, &uge(&x, &smin)).unwrap(), "w={w}");
        assert!(!s.may_be_true(&cs, &ult(&x, &smin)).unwrap(), "w={w}");
        let v = s.get_value(&cs, &x).unwrap();
        assert_eq!(v >> (w - 1), 1, "w={w}: {v:#x}");
        // x >s 5 and x <u 3 cannot both hold, x >s -3 and x >u 3 can.
        let five = constant(5, w);
        let minus3 = constant(3u128.wrapping_neg(), w);
        let c2 = vec![slt(&five, &x)];
        assert!(!s.may_be_true(&c2, &ult(&x, &constant(3, w))).unwrap());
        let c3 = vec![slt(&minus3, &x), ugt(&x, &constant(3, w))];
        let model = s.get_model(&c3, std::slice::from_ref(&a)).unwrap().unwrap();
        assert!(eval(&x, &model) > 3, "w={w}");
        // -2 and -1 are above 3 unsigned; -3 and 3 are excluded.
        assert!(s
            .may_be_true(&c3, &eq(&x, &constant(u128::MAX, w)))
            .unwrap());
        assert!(s.may_be_true(&c3, &eq(&x, &constant(4, w))).unwrap());
        assert!(!s.may_be_true(&c3, &eq(&x, &minus3)).unwrap());
        assert!(!s.may_be_true(&c3, &eq(&x, &constant(3, w))).unwrap());
        let c4 = vec![slt(&minus3, &x), slt(&x, &constant(0, w))];
        assert!(s
            .must_be_true(&c4, &uge(&x, &constant(2u128.wrapping_neg(), w)))
            .unwrap());
        assert!(s
            .must_be_true(&c4, &sge(&x, &constant(2u128.wrapping_neg(), w)))
            .unwrap());
    }
}

#[test]
fn symbolic_index_writes_and_linked_bytes() {
    let a = Array::symbolic("upd_a", 4);
    let ia = Array::symbolic("upd_i", 1);
    let i = zext(&byte(&ia, 0), 64);
    let written = UpdateList::new(a.clone()).write(i.clone(), constant(42, 8));
    let cs = vec![
        ult(&i, &constant(4, 64)),
        eq(&read(&written, &constant(2, 64)), &constant(42, 8)),
        // The plain byte form of a[2]: linked with the array form above.
        ne(&byte(&a, 2), &constant(42, 8)),
    ];
    let mut s = solver();
    assert!(s.must_be_true(&cs, &eq(&i, &constant(2, 64))).unwrap());
    assert_eq!(s.get_value(&cs, &i).unwrap(), 2);
    let model = s.get_model(&cs, &[a.clone(), ia.clone()]).unwrap().unwrap();
    assert_eq!(model.get(&ia).unwrap(), &[2]);
    assert_ne!(model.get(&a).unwrap()[2], 42);
    // Two writes: the newer one wins.
    let twice = written.write(constant(2, 64), constant(7, 8));
    let c2 = vec![
        eq(&read(&twice, &i), &constant(42, 8)),
        ult(&i, &constant(4, 64)),
    ];
    assert!(s.must_be_true(&c2, &ne(&i, &constant(2, 64))).unwrap());
    // Past the end of a symbolic array reads 0.
    let j = zext(&byte(&ia, 0), 64);
    let c3 = vec![uge(&j, &constant(4, 64))];
    assert!(!s
        .may_be_true(&c3, &eq(&read(&UpdateList::new(a), &j), &constant(7, 8)))
        .unwrap());
}

#[test]
fn constant_arrays_at_symbolic_indices() {
    let k = Array::constant("tbl", vec![10, 20, 30, 40]);
    let ia = Array::symbolic("tbl_i", 1);
    let i = zext(&byte(&ia, 0), 64);
    let r = read(&UpdateList::new(k.clone()), &i);
    let mut s = solver();
    let cs = vec![ult(&i, &constant(4, 64)), eq(&r, &constant(30, 8))];
    assert!(s.must_be_true(&cs, &eq(&i, &constant(2, 64))).unwrap());
    assert!(!s
        .may_be_true(&[ult(&i, &constant(4, 64))], &eq(&r, &constant(50, 8)))
        .unwrap());
    // Reading past the end gives 0.
    let c = vec![ult(&i, &constant(8, 64)), eq(&r, &constant(0, 8))];
    assert!(s.must_be_true(&c, &uge(&i, &constant(4, 64))).unwrap());
    // A write on top of a constant array.
    let w = UpdateList::new(k).write(i.clone(), constant(99, 8));
    let j = constant(1, 64);
    let c4 = vec![eq(&read(&w, &j), &constant(99, 8))];
    assert!(s.must_be_true(&c4, &eq(&i, &j)).unwrap());
}

#[test]
fn division_by_zero_agrees_with_eval() {
    let a = Array::symbolic("div_a", 2);
    let (x, y) = (byte(&a, 0), byte(&a, 1));
    let cs = vec![eq(&y, &constant(0, 8)), ugt(&x, &constant(3, 8))];
    let mut s = solver();
    for op in [BinOp::UDiv, BinOp::SDiv, BinOp::URem, BinOp::SRem] {
        let q = binary(op, &x, &y);
        assert!(
            s.must_be_true(&cs, &eq(&q, &constant(0, 8))).unwrap(),
            "{op:?}"
        );
    }
}

/// Passes queries on unchanged, keeping each as it came: what the layers
/// above it made of the queries.
#[derive(Clone, Default)]
pub(super) struct Spy(std::rc::Rc<std::cell::RefCell<Vec<Seen>>>);

/// A query as a [`Spy`] saw it: its constraints and its condition.
type Seen = (Vec<ExprRef>, ExprRef);

impl Spy {
    /// The number of constraints of each query seen, in order.
    pub(super) fn constraint_counts(&self) -> Vec<usize> {
        self.0.borrow().iter().map(|(c, _)| c.len()).collect()
    }

    /// The condition of each query seen, in order.
    pub(super) fn conditions(&self) -> Vec<ExprRef> {
        self.0.borrow().iter().map(|(_, e)| e.clone()).collect()
    }

    /// Forgets the queries seen.
    pub(super) fn clear(&self) {
        self.0.borrow_mut().clear();
    }
}

impl Layer for Spy {
    fn name(&self) -> &'static str {
        "spy"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        self.0
            .borrow_mut()
            .push((q.constraints.to_vec(), q.expr.clone()));
        next.check(q)
    }
}

/// Times out on every query, counting them: the layers above it see what
/// they do when Z3 runs out of time.
pub(super) struct Stuck(pub(super) std::rc::Rc<std::cell::Cell<u32>>);

impl Layer for Stuck {
    fn name(&self) -> &'static str {
        "stuck"
    }

    fn check(&mut self, _q: &Query<'_>, _next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        self.0.set(self.0.get() + 1);
        Err(SolverError::Timeout)
    }
}

/// Answers every query with an empty model: always wrong for a query that
/// needs a nonzero byte.
struct BogusLayer;

impl Layer for BogusLayer {
    fn name(&self) -> &'static str {
        "bogus"
    }

    fn check(&mut self, _q: &Query<'_>, _next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        Ok(Answer::Sat(Some(Assignment::new())))
    }
}

#[test]
fn bad_models_are_caught_and_z3_answers() {
    let a = Array::symbolic("bogus_a", 1);
    let x = byte(&a, 0);
    let cs = vec![eq(&x, &constant(5, 8))];
    let mut s = Solver::with_layers(SolverConfig::default(), vec![Box::new(BogusLayer)]);
    let model = s.get_model(&cs, std::slice::from_ref(&a)).unwrap().unwrap();
    assert_eq!(model.get(&a).unwrap(), &[5]);
    let st = s.stats();
    assert_eq!((st.queries, st.z3_calls, st.bad_models), (1, 1, 1));
    // A model lacking a requested array is rejected too.
    let ok = s.get_model(&[], std::slice::from_ref(&a)).unwrap().unwrap();
    assert_eq!(ok.get(&a), Some(&[0u8][..]));
    assert_eq!(s.stats().bad_models, 2);
}

#[test]
fn statistics_count_queries_cache_hits_and_z3_calls() {
    let a = Array::symbolic("st_a", 1);
    let x = byte(&a, 0);
    let cs = vec![ult(&x, &constant(10, 8))];
    let mut s = Solver::new(SolverConfig {
        chain: "cache,cex,z3".parse().unwrap(),
        ..SolverConfig::default()
    });
    let e = eq(&x, &constant(3, 8));
    assert!(s.may_be_true(&cs, &e).unwrap());
    assert!(s.may_be_true(&cs, &e).unwrap());
    // Constant conditions never reach Z3.
    assert!(s.may_be_true(&cs, &bool_const(true)).unwrap());
    assert!(!s.may_be_true(&cs, &bool_const(false)).unwrap());
    let st = s.stats();
    assert_eq!(st.queries, 4);
    assert_eq!(st.z3_calls, 1);
    assert_eq!(st.cache_hits, 1);
    assert!(st.time > Duration::ZERO);
    let mut total = SolverStats::default();
    total.add(&st);
    total.merge(&st);
    assert_eq!(total.queries, 8);
    assert_eq!(total.z3_calls, 2);
}

#[test]
fn cache_reuses_models_only_when_they_cover_the_request() {
    let a = Array::symbolic("cm_a", 1);
    let b = Array::symbolic("cm_b", 1);
    let cs = vec![eq(&byte(&a, 0), &constant(1, 8))];
    // The exact cache alone: the counterexample cache would answer the wider
    // request below from the first model.
    let mut s = Solver::with_layers(
        SolverConfig::default(),
        vec![Box::new(CacheLayer::default())],
    );
    s.get_model(&cs, std::slice::from_ref(&a)).unwrap().unwrap();
    s.get_model(&cs, std::slice::from_ref(&a)).unwrap().unwrap();
    assert_eq!((s.stats().z3_calls, s.stats().cache_hits), (1, 1));
    let m = s.get_model(&cs, &[a.clone(), b.clone()]).unwrap().unwrap();
    assert_eq!(s.stats().z3_calls, 2);
    assert_eq!(m.get(&a), Some(&[1u8][..]));
    assert!(m.get(&b).is_some());
}

#[test]
fn hard_queries_time_out_cleanly() {
    // Factoring a 128-bit product of two 64-bit numbers (the largest
    // 64-bit prime and a neighbour): no product wraps, so the only answers
    // are its factors, which bit-blasting cannot find in any time a test
    // has. (Two 32-bit factors in 64 bits were found now and then when a
    // loaded machine let Z3 run past its millisecond.)
    let p = u64::MAX as u128 - 58;
    let q = u64::MAX as u128 - 94;
    let a = Array::symbolic("fac_a", 8);
    let b = Array::symbolic("fac_b", 8);
    let (x, y) = (zext(&value(&a, 64), 128), zext(&value(&b, 64), 128));
    let cs = vec![ugt(&x, &constant(1, 128)), ugt(&y, &constant(1, 128))];
    let mut s = Solver::new(SolverConfig {
        timeout_ms: 1,
        ..SolverConfig::default()
    });
    let r = s.may_be_true(&cs, &eq(&mul(&x, &y), &constant(p * q, 128)));
    assert_eq!(r, Err(SolverError::Timeout));
    assert_eq!(s.stats().z3_calls, 1);
}

/// Asks Z3 about `tree` with every array byte fixed to `bytes`: it must
/// agree with the reference value (and so with `eval`).
fn check_against_z3(s: &mut Solver, env: &Env, tree: &T, bytes: &[u8], what: &str) {
    let e = build(tree, env);
    let mut cs = Vec::new();
    for (k, arr) in env.sym.iter().enumerate() {
        for i in 0..ARRAY_SIZE as u64 {
            let v = bytes[k * ARRAY_SIZE as usize + i as usize];
            cs.push(eq(&byte(arr, i), &constant(v as u128, 8)));
        }
    }
    let expected = reference(tree, env, bytes);
    assert_eq!(eval(&e, &env.assignment(bytes)), expected);
    let fixed = eq(&e, &constant(expected, e.width()));
    assert!(
        s.must_be_true(&cs, &fixed).unwrap(),
        "{what}: Z3 disagrees on {e:?} (expected {expected:#x})"
    );
    assert_eq!(s.get_value(&cs, &e).unwrap(), expected, "{what}: {e:?}");
}

#[test]
fn z3_agrees_with_eval_on_random_expressions() {
    let env = Env::new("zr");
    let mut s = solver();
    for seed in 0..150u64 {
        let mut g = Gen::new(seed);
        let w = g.width();
        let tree = g.gen(w, 1 + (seed % 4) as u32);
        let bytes: Vec<u8> = (0..8u8)
            .map(|i| {
                (seed as u8)
                    .wrapping_mul(37)
                    .wrapping_add(i.wrapping_mul(91))
            })
            .collect();
        check_against_z3(&mut s, &env, &tree, &bytes, &format!("seed {seed}"));
    }
    // Every outer operation of the two-level shapes, including division by
    // zero and reads past the end.
    let mut g = Gen::new(99);
    for o in 0..crate::expr::proptests::OUTER_SHAPES {
        for rep in 0..6u8 {
            let tree = g.local(o, None, None);
            let bytes = [rep, 0, 0xff, 0x80, 1, rep.wrapping_mul(77), 0x7f, 3];
            check_against_z3(&mut s, &env, &tree, &bytes, &format!("shape {o}/{rep}"));
        }
    }
    assert_eq!(s.stats().bad_models, 0);
}

#[test]
fn a_known_model_keeps_the_bytes_of_factors_the_condition_does_not_touch() {
    let a = Array::symbolic("km_x", 1);
    let b = Array::symbolic("km_y", 1);
    let c = Array::symbolic("km_z", 1);
    let (x, y, z) = (byte(&a, 0), byte(&b, 0), byte(&c, 0));
    // Two factors: {x, y} and {z}.
    let cs = vec![
        ult(&x, &y),
        ugt(&z, &constant(200, 8)),
        ult(&y, &constant(50, 8)),
    ];
    let mut known = Assignment::new();
    known.set(&a, vec![1]);
    known.set(&b, vec![2]);
    known.set(&c, vec![222]);
    let mut s = solver();
    let arrays = [a.clone(), b.clone(), c.clone()];
    let cond = eq(&x, &constant(30, 8));
    let m = s
        .model_where(&cs, &cond, &arrays, Some(&known))
        .unwrap()
        .expect("x = 30 with 30 < y < 50 holds");
    assert_eq!(m.get(&c), Some(&[222u8][..]), "z's factor keeps its bytes");
    assert_eq!(eval(&x, &m), 30);
    assert!(cs.iter().all(|k| eval(k, &m) == 1));
    assert_eq!(s.stats().queries, 1, "one question, of x's factor");
    let none = s
        .model_where(&cs, &eq(&x, &constant(60, 8)), &arrays, Some(&known))
        .unwrap();
    assert!(none.is_none(), "x = 60 needs y > 60, which y < 50 forbids");
}

/// Answers every query unsat, keeping the limit a Z3 call would have had.
struct Limits(std::rc::Rc<std::cell::RefCell<Vec<Limit>>>);

impl Layer for Limits {
    fn name(&self) -> &'static str {
        "limits"
    }

    fn check(&mut self, _q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        self.0.borrow_mut().push(next.limit(10_000)?);
        Ok(Answer::Unsat)
    }
}

#[test]
fn a_solver_capped_for_good_gives_every_call_the_cap_in_work() {
    let seen = std::rc::Rc::default();
    let config = SolverConfig {
        timeout_ms: 10_000,
        ..SolverConfig::default()
    };
    let mut s = Solver::of_layers(&config, vec![Box::new(Limits(std::rc::Rc::clone(&seen)))]);
    let x = read(
        &UpdateList::new(Array::symbolic("capped", 1)),
        &constant(0, 64),
    );
    let ask = |s: &mut Solver, c: u128| s.check(&Query::new(&[], eq(&x, &constant(c, 8))));
    // A query has time; a probe has a tenth of it in work.
    ask(&mut s, 1).unwrap();
    s.probing(|s| ask(s, 2)).unwrap();
    // Capped, every call has the cap's work, a probe no more than that.
    s.cap_every_call(50);
    ask(&mut s, 3).unwrap();
    s.probing(|s| ask(s, 4)).unwrap();
    let work: Vec<_> = seen.borrow().iter().map(|l: &Limit| l.work_ms).collect();
    assert_eq!(work, [None, Some(1_000), Some(50), Some(50)]);
}
