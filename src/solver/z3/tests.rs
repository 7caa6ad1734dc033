//! Tests of the translation and of fresh solving.

use super::*;
use crate::expr::proptests::{build, Env, Gen};
use crate::expr::{self, constant, Array, UpdateList};

/// Sat or unsat of `constraints ∧ expr` by a plain fresh solve.
fn is_sat(constraints: &[ExprRef], e: &ExprRef) -> bool {
    solve(
        &Query::new(constraints, e.clone()),
        Limit::time(30_000),
        false,
    )
    .unwrap()
    .0
    .is_sat()
}

#[test]
fn small_arrays_are_read_as_cases_and_stay_plain_bit_vectors() {
    // count[b & 3]++ twice on a zeroed 4-byte table, then count[2] == 2.
    let b = expr::read(
        &UpdateList::new(Array::symbolic("cases_b", 1)),
        &constant(0, 64),
    );
    let table = UpdateList::new(Array::constant("cases_t", vec![0; 4]));
    let field = |shift: u128| {
        expr::zext(
            &expr::and(
                &expr::binary(BinOp::LShr, &b, &constant(shift, 8)),
                &constant(3, 8),
            ),
            64,
        )
    };
    let bump = |t: &UpdateList, i: &ExprRef| {
        t.write(i.clone(), expr::add(&expr::read(t, i), &constant(1, 8)))
    };
    let table = bump(&bump(&table, &field(0)), &field(2));
    let two = expr::eq(&expr::read(&table, &constant(2, 64)), &constant(2, 8));
    let mut t = Translator::default();
    t.translate(&two).unwrap();
    assert!(!t.uses_arrays());
    let arrays = [match b.kind() {
        ExprKind::Read { updates, .. } => updates.root.clone(),
        _ => unreachable!(),
    }];
    let q = Query::new(&[], two.clone()).with_model(&arrays);
    let Answer::Sat(Some(m)) = solve(&q, Limit::time(30_000), false).unwrap().0 else {
        panic!("satisfiable")
    };
    let v = m.get(&arrays[0]).unwrap()[0];
    assert_eq!((v & 3, (v >> 2) & 3), (2, 2), "{v:#x}");
    // Both fields cannot be 2 while one of them is 1.
    let one = expr::eq(&field(0), &constant(1, 64));
    assert!(!is_sat(&[two], &one));
    // A large array read at an index that can reach all of it keeps
    // the theory of arrays; at an index of two bits it is four cases.
    let big = UpdateList::new(Array::symbolic("cases_big", 4096));
    let wide = expr::zext(&expr::concat(&b, &b), 64);
    for (index, arrays) in [(wide, true), (field(0), false)] {
        let r = expr::eq(&expr::read(&big, &index), &constant(9, 8));
        let mut t = Translator::default();
        t.translate(&r).unwrap();
        assert_eq!(t.uses_arrays(), arrays);
        assert!(is_sat(&[], &r));
    }
}

#[test]
fn equal_bytes_of_a_table_share_one_case() {
    // A digit-value table read at c + 1: 0xff but for the ten digits.
    let c_array = Array::symbolic("dv_c", 1);
    let c = expr::read(&UpdateList::new(c_array.clone()), &constant(0, 64));
    let mut table = vec![0xffu8; 257];
    for d in 0..10u8 {
        table[usize::from(b'0' + d) + 1] = d;
    }
    let at = expr::add(&expr::zext(&c, 64), &constant(1, 64));
    let value = expr::read(&UpdateList::new(Array::constant("dv_t", table)), &at);
    let is_digit = expr::ult(&expr::sub(&c, &constant(b'0'.into(), 8)), &constant(10, 8));
    let small = expr::ult(&value, &constant(10, 8));
    let mut t = Translator::default();
    t.translate(&small).unwrap();
    assert!(!t.uses_arrays());
    assert!(!is_sat(&[expr::not(&is_digit)], &small));
    let seven = expr::eq(&value, &constant(7, 8));
    let q = Query::new(&[], seven).with_model(std::slice::from_ref(&c_array));
    let Answer::Sat(Some(m)) = solve(&q, Limit::time(30_000), false).unwrap().0 else {
        panic!("satisfiable")
    };
    assert_eq!(m.get(&c_array).unwrap()[0], b'7');
}

#[test]
fn a_table_read_at_a_byte_is_split_on_the_bytes_values_only() {
    // tr's translation table: xlate[i] = i, then xlate[x] = y and
    // xlate[z] = y at symbolic bytes, read at a symbolic byte c. A
    // write at 300 cannot be reached by a byte and is left out.
    let byte = |name: &str| {
        let a = Array::symbolic(name, 1);
        (a.clone(), expr::read(&UpdateList::new(a), &constant(0, 64)))
    };
    let ((_, x), (_, y), (_, z), (c_array, c)) =
        (byte("xl_x"), byte("xl_y"), byte("xl_z"), byte("xl_c"));
    let identity: Vec<u8> = (0..=255).collect();
    let wide = |e: &ExprRef| expr::zext(e, 64);
    let xlate = UpdateList::new(Array::constant("xlate", identity))
        .write(wide(&x), y.clone())
        .write(constant(300, 64), constant(7, 8))
        .write(wide(&z), y.clone());
    let out = expr::read(&xlate, &wide(&c));
    let newline = expr::eq(&out, &constant(b'\n'.into(), 8));
    let mut t = Translator::default();
    t.translate(&newline).unwrap();
    assert!(!t.uses_arrays(), "256 bytes and two writes are cases");
    let arrays = [c_array];
    let no_write = [expr::not(&expr::eq(&c, &x)), expr::not(&expr::eq(&c, &z))];
    let q = Query::new(&no_write, newline.clone()).with_model(&arrays);
    let Answer::Sat(Some(m)) = solve(&q, Limit::time(30_000), false).unwrap().0 else {
        panic!("satisfiable")
    };
    assert_eq!(m.get(&arrays[0]).unwrap()[0], b'\n');
    // Untouched by the writes, the table maps 'a' to 'a' only.
    let a = expr::eq(&c, &constant(b'a'.into(), 8));
    let not_a = expr::not(&expr::eq(&out, &constant(b'a'.into(), 8)));
    assert!(!is_sat(
        &[no_write[0].clone(), no_write[1].clone(), a.clone()],
        &not_a
    ));
    // Through a write, it maps 'a' to whatever y is.
    let through = expr::eq(&c, &x);
    assert!(is_sat(&[through, a], &not_a));
}

#[test]
fn a_large_constant_table_is_read_as_a_tree_on_the_index_bits() {
    // A 3,000-byte table in runs of equal bytes, none of them 0xab, read
    // at base + a 12-bit index: more entries than cases, so a tree, which
    // reaches past the table's end (reading 0 there).
    let (size, base) = (3000usize, 1500u128);
    let mut seed = 0x9e37_79b9_u32;
    let mut table = Vec::with_capacity(size);
    while table.len() < size {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let (byte, run) = ((seed >> 24) as u8, 1 + (seed >> 8) as usize % 5);
        let byte = if byte == 0xab { 1 } else { byte.max(1) };
        table.extend(std::iter::repeat_n(byte, run.min(size - table.len())));
    }
    let word = Array::symbolic("tree_i", 2);
    let byte = |k: u128| expr::read(&UpdateList::new(word.clone()), &constant(k, 64));
    let i = expr::concat(&byte(1), &byte(0));
    let low = expr::and(&expr::zext(&i, 64), &constant(0xfff, 64));
    let at = expr::add(&low, &constant(base, 64));
    let t_array = Array::constant("tree_t", table.clone());
    let read = |updates: &UpdateList| expr::read(updates, &at);
    let plain = UpdateList::new(t_array.clone());
    let is = |v: u8| expr::eq(&read(&plain), &constant(v.into(), 8));
    let mut t = Translator::default();
    t.translate(&is(7)).unwrap();
    assert!(!t.uses_arrays(), "a tree is plain bit-vectors");
    let reachable = |k: usize| table.get(k).copied().unwrap_or(0);
    let arrays = [word.clone()];
    for v in [table[1500], table[2999], table[1777], 0, 0xab] {
        let expected = (1500..1500 + 4096).any(|k| reachable(k) == v);
        let q = Query::new(&[], is(v)).with_model(&arrays);
        match solve(&q, Limit::time(30_000), false).unwrap().0 {
            Answer::Sat(Some(m)) => {
                assert!(expected, "{v:#x} is not in the table's reach");
                let bytes = m.get(&word).unwrap();
                let k = (usize::from(bytes[0]) | usize::from(bytes[1]) << 8) & 0xfff;
                assert_eq!(reachable(1500 + k), v, "the model's entry");
            }
            Answer::Unsat => assert!(!expected, "{v:#x} is in the table's reach"),
            other => panic!("{v:#x}: {other:?}"),
        }
    }
    // At each index, the entry there and no other.
    for k in [0u128, 1, 2, 511, 512, 1499, 1500, 2047, 4095] {
        let here = expr::eq(&at, &constant(base + k, 64));
        let entry = constant(reachable((base + k) as usize).into(), 8);
        assert!(!is_sat(
            &[here],
            &expr::not(&expr::eq(&read(&plain), &entry))
        ));
    }
    // Past the end the read is 0, and only there.
    let past = expr::ule(&constant(size as u128, 64), &at);
    assert!(!is_sat(std::slice::from_ref(&past), &expr::not(&is(0))));
    assert!(!is_sat(&[expr::not(&past)], &is(0)));
    // A write at a symbolic place on top of the tree.
    let w = Array::symbolic("tree_w", 1);
    let x = expr::zext(&expr::read(&UpdateList::new(w), &constant(0, 64)), 64);
    let x = expr::add(&x, &constant(base, 64));
    let written = plain.write(x.clone(), constant(0xab, 8));
    let ab = expr::eq(&read(&written), &constant(0xab, 8));
    assert!(is_sat(&[], &ab));
    assert!(!is_sat(&[expr::not(&expr::eq(&x, &at))], &ab));
}

#[test]
fn symbolic_bytes_written_into_a_zeroed_object_are_read_as_a_tree() {
    // klee_make_symbolic into a 1,024-byte local: each byte written into
    // the zeroed contents, then a write at a symbolic place on top.
    let input = Array::symbolic("tw_big", 1024);
    let bytes = UpdateList::new(input.clone());
    let mut object = UpdateList::new(Array::constant("tw_mem", vec![0u8; 1024]));
    for k in 0..1024u128 {
        object = object.write(constant(k, 64), expr::read(&bytes, &constant(k, 64)));
    }
    let (i_array, k_array) = (Array::symbolic("tw_i", 2), Array::symbolic("tw_k", 1));
    let byte = |a: &ArrayRef, n: u128| expr::read(&UpdateList::new(a.clone()), &constant(n, 64));
    let i = expr::and(
        &expr::zext(&expr::concat(&byte(&i_array, 1), &byte(&i_array, 0)), 64),
        &constant(1023, 64),
    );
    let five = expr::eq(&expr::read(&object, &i), &constant(5, 8));
    let mut t = Translator::default();
    t.translate(&five).unwrap();
    assert!(!t.uses_arrays(), "folded into a tree");
    let arrays = [input.clone(), i_array.clone()];
    let q = Query::new(&[], five.clone()).with_model(&arrays);
    let Answer::Sat(Some(m)) = solve(&q, Limit::time(30_000), false).unwrap().0 else {
        panic!("satisfiable")
    };
    let at = m.get(&i_array).unwrap();
    let at = (usize::from(at[0]) | usize::from(at[1]) << 8) & 1023;
    assert_eq!(m.get(&input).unwrap()[at], 5, "the model's byte at {at}");
    // Through a write of 7 at k, the byte at k is 7 whatever the input.
    let k = expr::zext(&byte(&k_array, 0), 64);
    let written = object.write(k.clone(), constant(7, 8));
    let seven = expr::eq(&expr::read(&written, &i), &constant(7, 8));
    assert!(!is_sat(&[expr::eq(&i, &k)], &expr::not(&seven)));
    assert!(is_sat(&[expr::not(&expr::eq(&i, &k))], &seven));
}

#[test]
fn a_core_leaves_out_what_the_conflict_does_not_need() {
    let x = expr::read(
        &UpdateList::new(Array::symbolic("core_x", 1)),
        &constant(0, 64),
    );
    let y = expr::read(
        &UpdateList::new(Array::symbolic("core_y", 1)),
        &constant(0, 64),
    );
    let z = expr::read(
        &UpdateList::new(Array::symbolic("core_z", 1)),
        &constant(0, 64),
    );
    let unrelated = expr::eq(&expr::mul(&z, &z), &constant(9, 8));
    let lo = expr::ult(&x, &y);
    let cs = vec![
        unrelated.clone(),
        lo.clone(),
        expr::ult(&y, &constant(4, 8)),
    ];
    let e = expr::ult(&constant(200, 8), &x);
    let (answer, core) = solve(&Query::new(&cs, e.clone()), Limit::time(30_000), true).unwrap();
    assert!(!answer.is_sat());
    let core = core.expect("a core comes with unsat");
    assert!(!core.contains(&unrelated), "{core:?}");
    assert!(core.contains(&e) && core.contains(&lo), "{core:?}");
    // No core without the request, and none for sat.
    assert!(solve(&Query::new(&cs, e), Limit::time(30_000), false)
        .unwrap()
        .1
        .is_none());
    let (sat, core) = solve(&Query::new(&cs, lo), Limit::time(30_000), true).unwrap();
    assert!(sat.is_sat() && core.is_none());
}

#[test]
fn cores_of_random_queries_are_unsat_subsets() {
    let env = Env::new("core");
    let mut g = Gen::new(31);
    let mut cores = 0;
    for round in 0..200 {
        let cs: Vec<ExprRef> = (0..4).map(|_| build(&g.gen(1, 2), &env)).collect();
        let e = build(&g.gen(1, 2), &env);
        let (answer, core) = solve(&Query::new(&cs, e.clone()), Limit::time(30_000), true).unwrap();
        assert_eq!(answer.is_sat(), is_sat(&cs, &e), "round {round}");
        let Some(core) = core else { continue };
        cores += 1;
        assert!(
            core.iter().all(|c| *c == e || cs.contains(c)),
            "round {round}: {core:?}"
        );
        // The core alone is unsatisfiable.
        assert!(!is_sat(&core, &expr::bool_const(true)), "round {round}");
    }
    assert!(cores > 10, "{cores}");
}

/// `x * y = 65521 * 65519`, over 16-bit `x` and `y` widened to 32 bits
/// and both above 1: a semiprime to factor, some work for Z3.
pub(crate) fn factoring() -> ExprRef {
    let half = |name: &str| {
        let a = UpdateList::new(Array::symbolic(name, 2));
        let byte = |i| expr::read(&a, &constant(i, 64));
        expr::zext(&expr::concat(&byte(1), &byte(0)), 32)
    };
    let (x, y) = (half("factor_x"), half("factor_y"));
    let one = constant(1, 32);
    expr::and(
        &expr::eq(&expr::mul(&x, &y), &constant(65_521 * 65_519, 32)),
        &expr::and(&expr::ugt(&x, &one), &expr::ugt(&y, &one)),
    )
}

#[test]
fn a_probe_runs_out_of_work_whatever_its_time() {
    let q = Query::new(&[], factoring());
    let probe = Limit {
        ms: 600_000,
        work_ms: Some(1),
    };
    assert!(matches!(solve(&q, probe, false), Err(SolverError::Timeout)));
    assert!(matches!(solve(&q, probe, true), Err(SolverError::Timeout)));
    let r = solve(&q, Limit::time(600_000), false);
    assert!(matches!(r, Ok((Answer::Sat(_), _))), "{r:?}");
}

#[test]
fn a_query_out_of_its_work_backstop_timed_out() {
    let spent = || Some("max. resource limit exceeded".to_string());
    assert!(matches!(
        super::unknown(spent(), Limit::time(10)),
        SolverError::Timeout
    ));
    // The stack gives no reason at all when its units run out.
    assert!(matches!(
        super::unknown(Some("unknown".to_string()), Limit::time(10)),
        SolverError::Timeout
    ));
    // A query too long for a backstop has no units to run out of: Z3's
    // unknown is then its own.
    assert!(matches!(
        super::unknown(spent(), Limit::time(u64::from(u32::MAX))),
        SolverError::Unknown(_)
    ));
}
