//! Queries whose conjuncts each read at most one symbolic byte, decided by
//! trying each byte's 256 values.
//!
//! Code that scans its input a byte at a time asks, for each new byte, a
//! question about it together with what the path learnt of the bytes
//! before it: is it in this class of characters, does this table give it
//! that entry. Each such conjunct constrains one byte, and the bytes do
//! not constrain each other, so the query is satisfiable exactly when every
//! byte has a value that satisfies its own conjuncts. Z3 answered ptx's
//! such questions (table lookups at the byte's offset, each a disjunction
//! over the table's entries) in 2 to 30 ms, mostly unsatisfiable;
//! evaluating each conjunct for the byte's 256 values, once, and
//! intersecting the values each allows takes a fraction of that. Any
//! other query goes on to the next layer.

use rustc_hash::{FxHashMap, FxHashSet};

use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::{conjuncts, ArrayRef, Assignment, Evaluator, ExprKind, ExprNode, ExprRef};

/// Conjuncts larger than this many nodes make their query go on:
/// evaluating them for every value would cost more than Z3 does.
const MAX_NODES: usize = 4096;

/// Conjuncts kept before the memo is cleared (memory bound).
const MEMO_LIMIT: usize = 1 << 18;

/// Decides queries whose conjuncts each read at most one symbolic byte.
///
/// A path's constraints come back in every query along it, so what each
/// conjunct allows is worked out once and kept: a query is then decided by
/// intersecting, for each byte, the sets of values its conjuncts allow.
/// (Trying each query's 256 values afresh took a quarter to a third of
/// the solver's time on cp, chmod and nohup.)
#[derive(Default)]
pub struct EnumerateLayer {
    known: FxHashMap<ExprRef, Conjunct>,
}

/// A symbolic byte: its array and offset.
type Byte = (ArrayRef, u64);

/// A set of byte values, one bit each.
type Values = [u64; 4];

/// What a conjunct is to this layer.
#[derive(Clone)]
enum Conjunct {
    /// It reads more than one byte, a byte at an offset that depends on
    /// the input, a byte out of its array, or is too large: the query
    /// goes on.
    Other,
    /// It reads no symbolic byte: whether it holds.
    Fixed(bool),
    /// It reads one byte: the values of that byte under which it holds.
    Byte(Byte, Values),
}

/// The byte `e` reads, `Ok(None)` for none; `Err(())` when it reads more
/// than one, a byte at an offset that depends on the input, a byte out
/// of its array (Z3 leaves those free; evaluation reads them as 0), or
/// has more than [`MAX_NODES`] nodes.
fn byte_of(e: &ExprRef) -> Result<Option<Byte>, ()> {
    let mut seen: FxHashSet<*const ExprNode> = FxHashSet::default();
    let mut stack = vec![e];
    let mut byte: Option<Byte> = None;
    let mut nodes = 0;
    while let Some(e) = stack.pop() {
        if e.is_const() || !seen.insert(e.as_ptr()) {
            continue;
        }
        nodes += 1;
        if nodes > MAX_NODES {
            return Err(());
        }
        if let ExprKind::Read { updates, index } = e.kind() {
            let root = &updates.root;
            if !root.is_constant() {
                let at = index.as_const().ok_or(())?;
                if at >= u128::from(root.size) {
                    return Err(());
                }
                let at = at as u64;
                match &byte {
                    None => byte = Some((root.clone(), at)),
                    Some((a, i)) if std::sync::Arc::ptr_eq(a, root) && *i == at => {}
                    Some(_) => return Err(()),
                }
            }
        }
        e.for_each_child(|c| {
            if !c.is_const() {
                stack.push(c)
            }
        });
    }
    Ok(byte)
}

/// What `c` is to the layer: the byte it reads and the values of it under
/// which it holds, found by trying each.
fn classify(c: &ExprRef) -> Conjunct {
    match byte_of(c) {
        Err(()) => Conjunct::Other,
        Ok(None) => Conjunct::Fixed(Evaluator::new(&Assignment::new()).eval(c) == 1),
        Ok(Some((array, at))) => {
            let mut values = [0u64; 4];
            let mut bytes = vec![0; at as usize + 1];
            for v in 0..=u8::MAX {
                bytes[at as usize] = v;
                let mut a = Assignment::new();
                a.set(&array, bytes.clone());
                if Evaluator::new(&a).eval(c) == 1 {
                    values[usize::from(v / 64)] |= 1 << (v % 64);
                }
            }
            Conjunct::Byte((array, at), values)
        }
    }
}

/// The least value in `values`, if any.
fn least(values: &Values) -> Option<u8> {
    values
        .iter()
        .enumerate()
        .find(|(_, w)| **w != 0)
        .map(|(i, w)| (i * 64) as u8 + w.trailing_zeros() as u8)
}

/// A model giving `found` and zeros elsewhere, for every array asked for
/// and every array the query reads.
fn model(wanted: &[ArrayRef], found: &[(Byte, u8)]) -> Assignment {
    let mut m = Assignment::new();
    let read = found.iter().map(|((array, _), _)| array);
    for array in wanted.iter().filter(|a| !a.is_constant()).chain(read) {
        if m.contains(array) {
            continue;
        }
        let mut bytes = vec![0; array.size as usize];
        for ((a, at), v) in found {
            if std::sync::Arc::ptr_eq(a, array) {
                bytes[*at as usize] = *v;
            }
        }
        m.set(array, bytes);
    }
    m
}

impl EnumerateLayer {
    /// What `c` is to the layer, worked out on its first query.
    fn conjunct(&mut self, c: &ExprRef) -> Conjunct {
        if let Some(k) = self.known.get(c) {
            return k.clone();
        }
        if self.known.len() > MEMO_LIMIT {
            self.known.clear();
        }
        let k = classify(c);
        self.known.insert(c.clone(), k.clone());
        k
    }
}

impl Layer for EnumerateLayer {
    fn name(&self) -> &'static str {
        "enumerate"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let mut all = Vec::new();
        conjuncts(q.constraints, &mut all);
        conjuncts(std::slice::from_ref(&q.expr), &mut all);
        // The values each byte may take (those all of its conjuncts allow),
        // in the order the bytes come: a map keyed by address would order
        // the model's arrays differently from one run to the next.
        let mut bytes: Vec<(Byte, Values)> = Vec::new();
        let mut slot: FxHashMap<(usize, u64), usize> = FxHashMap::default();
        let mut holds = true;
        for c in &all {
            match self.conjunct(c) {
                Conjunct::Other => return next.check(q),
                Conjunct::Fixed(b) => holds &= b,
                Conjunct::Byte(byte, values) => {
                    let key = (std::sync::Arc::as_ptr(&byte.0) as usize, byte.1);
                    let i = *slot.entry(key).or_insert_with(|| {
                        bytes.push((byte, [u64::MAX; 4]));
                        bytes.len() - 1
                    });
                    for (h, v) in bytes[i].1.iter_mut().zip(values) {
                        *h &= v;
                    }
                }
            }
        }
        next.stats().hit(self.name());
        if !holds {
            return Ok(Answer::Unsat);
        }
        let mut found = Vec::with_capacity(bytes.len());
        for (byte, values) in bytes {
            let Some(v) = least(&values) else {
                return Ok(Answer::Unsat);
            };
            found.push((byte, v));
        }
        Ok(Answer::Sat(q.model.map(|wanted| model(wanted, &found))))
    }
}

#[cfg(test)]
mod tests {
    use crate::expr::{self, constant, read, Array, ArrayRef, Evaluator, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef, i: u128) -> expr::ExprRef {
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
}
