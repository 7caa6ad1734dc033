//! The facts a path's constraints state outright, put into a question:
//! each conjunct is true, the comparison it negates false, and a term it
//! fixes (`K == x`, a condition `c` or `!c`) has that value. KLEE
//! simplifies its queries with the equalities of the path in the same way.
//!
//! A question often reads its inputs only through a term the path has
//! decided already. `sum` prints its checksum with a pointer that moves by
//! whether the checksum is zero, which the path decided when it printed the
//! digits; whether that pointer can fall elsewhere was asked of the nearby
//! search (no witness one byte away: the digits fix the checksum) and then
//! of Z3, 1,229 times in 8 M instructions. With the fact put in, the
//! pointer is a constant and the question answers itself.

use rustc_hash::FxHashMap;

use super::interval::atom_of;
use super::query::{Answer, Chain, Layer, Query};
use super::rewrite::Rewriter;
use super::SolverError;
use crate::expr::{bool_const, conjuncts, constant, not, ExprRef};

/// The most nodes of a question the facts are put into. Walking a
/// question costs a hash lookup a node; the Csmith programs' CRC chains,
/// of many thousands, took 0.87 s of `csmith-2`'s run in the layer alone
/// and were never decided, where the questions the facts decide (a
/// pointer moved by a decided condition, `expr`'s, `stat`'s) are small.
const MAX_NODES: usize = 1 << 12;

/// What the conjuncts of some constraints say of terms, each term with
/// the constant it must equal.
pub(super) struct Facts {
    values: FxHashMap<ExprRef, ExprRef>,
}

impl Facts {
    /// The facts `constraints` state.
    pub(super) fn of(constraints: &[ExprRef]) -> Self {
        let mut parts = Vec::new();
        conjuncts(constraints, &mut parts);
        let mut values = FxHashMap::default();
        for c in parts {
            if let Some(atom) = atom_of(&c) {
                if let [(lo, hi)] = atom.set.ranges() {
                    if lo == hi {
                        values.insert(atom.term.clone(), constant(*lo, atom.term.width()));
                    }
                }
            }
            // A question may hold the negation where the path holds the
            // conjunct: `x == 0` where the path has `!(x == 0)`, `5 <= x`
            // (the builders' `!(x < 5)`) where it has `x < 5`.
            values.insert(not(&c), bool_const(false));
            values.insert(c, bool_const(true));
        }
        Facts { values }
    }

    /// `e` with each term the facts fix replaced by its value, and
    /// simplified: equal to `e` wherever the constraints hold. `None`
    /// where `e` has more than [`MAX_NODES`] nodes.
    pub(super) fn put_into(&self, e: &ExprRef) -> Option<ExprRef> {
        if self.values.is_empty() || e.is_const() {
            return Some(e.clone());
        }
        Rewriter::replacing(&self.values).rewrite_within(e, MAX_NODES)
    }

    /// Whether `e` holds wherever the constraints do (`Some(true)`),
    /// nowhere they do (`Some(false)`), or neither that the facts show.
    pub(super) fn decide(&self, e: &ExprRef) -> Option<bool> {
        self.put_into(e)?.as_const().map(|v| v == 1)
    }
}

/// Answers a query whose condition the facts of its constraints decide:
/// unsatisfiable where they make it false; satisfiable where they make it
/// true and no model is asked for (the constraints are a feasible path's).
/// Others go on as they are.
///
/// It stands just before the Z3 layer: the layers before it answer most
/// queries for less than working out the facts costs, and what reaches it
/// is what Z3 would be asked.
#[derive(Default)]
pub struct FactsLayer;

impl Layer for FactsLayer {
    fn name(&self) -> &'static str {
        "facts"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        if q.expr.is_const() {
            return next.check(q);
        }
        match Facts::of(q.constraints).decide(&q.expr) {
            Some(false) => Ok(Answer::Unsat),
            Some(true) if !q.wants_model() => Ok(Answer::Sat(None)),
            _ => next.check(q),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, read, Array, UpdateList};
    use crate::solver::tests::Spy;
    use crate::solver::{Solver, SolverConfig};

    fn input(name: &str) -> ExprRef {
        let a = Array::symbolic(name, 4);
        expr::concat(
            &read(&UpdateList::new(a.clone()), &constant(1, 64)),
            &read(&UpdateList::new(a), &constant(0, 64)),
        )
    }

    #[test]
    fn a_pointer_moved_by_a_decided_condition_is_fixed() {
        let sum = input("stdin");
        let zero = expr::eq(&constant(0, 16), &sum);
        // The pointer moves by one where the sum is zero.
        let base = constant(0x1000, 64);
        let p = expr::sub(&base, &expr::zext(&zero, 64));
        let facts = Facts::of(&[not(&zero)]);
        assert_eq!(facts.put_into(&p).and_then(|e| e.as_const()), Some(0x1000));
        let elsewhere = expr::ne(&p, &base);
        assert_eq!(facts.decide(&elsewhere), Some(false));
        // Without the fact, nothing is decided.
        assert_eq!(Facts::of(&[]).decide(&elsewhere), None);
    }

    #[test]
    fn a_term_equal_to_a_constant_takes_its_value() {
        let x = input("x");
        let y = input("y");
        let facts = Facts::of(&[expr::eq(&constant(7, 16), &x)]);
        let e = expr::ult(&expr::add(&x, &constant(1, 16)), &constant(9, 16));
        assert_eq!(facts.decide(&e), Some(true));
        // A term the constraints do not fix stays.
        let open = expr::ult(&expr::add(&x, &y), &constant(9, 16));
        assert_eq!(facts.decide(&open), None);
        assert!(!facts.put_into(&open).is_some_and(|e| e.is_const()));
    }

    #[test]
    fn an_inequality_decides_its_flipped_form() {
        let x = input("x");
        let below = expr::ult(&x, &constant(5, 16));
        let facts = Facts::of(std::slice::from_ref(&below));
        // `x >= 5` is written `5 <= x`, a node of its own.
        let at_least = expr::uge(&x, &constant(5, 16));
        assert_eq!(facts.decide(&at_least), Some(false));
        assert_eq!(facts.decide(&below), Some(true));
        // A bound alone fixes no value.
        assert_eq!(facts.decide(&expr::eq(&x, &constant(3, 16))), None);
    }

    #[test]
    fn facts_inside_a_conjunction_count() {
        let x = input("x");
        let c = expr::ne(&x, &constant(0, 16));
        let d = expr::ult(&x, &constant(100, 16));
        let facts = Facts::of(&[expr::and(&c, &d)]);
        assert_eq!(facts.decide(&expr::eq(&x, &constant(0, 16))), Some(false));
        assert_eq!(facts.decide(&d), Some(true));
    }

    /// The layer answers what the facts decide, without the layers after
    /// it, and as Z3 does; the rest goes on as it came.
    #[test]
    fn the_layer_answers_what_the_facts_decide_as_z3_does() {
        let sum = input("fl_sum");
        let other = input("fl_other");
        let zero = expr::eq(&constant(0, 16), &sum);
        let p = expr::sub(&constant(0x1000, 64), &expr::zext(&zero, 64));
        let constraints = vec![not(&zero), expr::ult(&other, &constant(9, 16))];
        let spy = Spy::default();
        let mut facts = Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(FactsLayer), Box::new(spy.clone())],
        );
        let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
        let decided = [
            expr::ne(&p, &constant(0x1000, 64)),
            expr::eq(&p, &constant(0x1000, 64)),
            expr::ule(&constant(9, 16), &other),
        ];
        for q in &decided {
            assert_eq!(
                facts.may_be_true(&constraints, q).unwrap(),
                plain.may_be_true(&constraints, q).unwrap(),
                "{q:?}"
            );
        }
        assert!(spy.conditions().is_empty(), "{:?}", spy.conditions());
        // Undecided, or decided true where a model is wanted: on to Z3.
        let open = expr::eq(&other, &constant(3, 16));
        assert!(facts.may_be_true(&constraints, &open).unwrap());
        assert_eq!(spy.conditions(), vec![open.clone()]);
        let all = [constraints.clone(), vec![decided[1].clone()]].concat();
        let arrays = [Array::symbolic("fl_sum", 4)];
        let model = facts.get_model(&all, &arrays).unwrap();
        assert!(model.is_some());
        assert_eq!(facts.stats().bad_models, 0);
    }

    /// A question of more nodes than the facts are put into is left
    /// undecided, though a fact would decide it.
    #[test]
    fn a_large_question_is_left_to_the_rest_of_the_chain() {
        let x = input("fb_x");
        let zero = expr::eq(&constant(0, 16), &x);
        let a = Array::symbolic("fb_big", MAX_NODES as u32);
        let big = (0..MAX_NODES as u128).fold(constant(0, 8), |acc, i| {
            expr::add(&acc, &read(&UpdateList::new(a.clone()), &constant(i, 64)))
        });
        let facts = Facts::of(&[not(&zero)]);
        let small = expr::and(&zero, &expr::ult(&x, &constant(9, 16)));
        assert_eq!(facts.decide(&small), Some(false));
        let large = expr::and(&zero, &expr::ult(&big, &constant(9, 8)));
        assert_eq!(facts.decide(&large), None);
    }
}
