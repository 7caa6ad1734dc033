//! GreenTrie's constraint reduction: the atoms of a query about one term
//! are merged into one set of values; atoms implied by the others go,
//! conflicts are "unsat" at once, and a condition the constraints already
//! imply is "sat" at once.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::interval::{atom_of, Atom, ValueSet};
use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::ExprRef;

/// Entries each memo of the layer holds before it starts afresh: enough
/// for the constraint lists of the paths near one another in a run, few
/// enough that what they keep alive stays small.
const MEMO_ENTRIES: usize = 4096;

/// Merges the comparisons of each term with constants before a query goes
/// on.
///
/// A path asks about the same constraints many times (each alternative of
/// a switch, a model after a yes or no), and on `tty` under KLEE's
/// coreutils arguments 59% of the queries reaching this layer had a
/// constraint list it had reduced before; a merged atom, rebuilt as
/// expressions each time, cost most of a reduction. Both are remembered.
#[derive(Default)]
pub struct ReductionLayer {
    /// Reductions by constraint list (by the expressions' identities);
    /// `None`: the constraints conflict.
    reductions: FxHashMap<Vec<ExprRef>, Option<Arc<Reduced>>>,
    /// The expressions a merged atom was written as.
    merged: FxHashMap<Atom, Vec<ExprRef>>,
}

impl ReductionLayer {
    /// A layer with empty memos.
    pub fn new() -> Self {
        Self::default()
    }

    fn reduction(&mut self, constraints: &[ExprRef]) -> Option<Arc<Reduced>> {
        if let Some(r) = self.reductions.get(constraints) {
            return r.clone();
        }
        if self.reductions.len() >= MEMO_ENTRIES {
            self.reductions.clear();
        }
        if self.merged.len() >= MEMO_ENTRIES {
            self.merged.clear();
        }
        let r = reduce(constraints, &mut self.merged).map(Arc::new);
        self.reductions.insert(constraints.to_vec(), r.clone());
        r
    }
}

/// The conjuncts of `exprs`, with conjunctions split.
fn conjuncts(exprs: &[ExprRef]) -> Vec<ExprRef> {
    let mut out = Vec::new();
    crate::expr::conjuncts(exprs, &mut out);
    out
}

/// The reduced constraints, or `None` when they conflict.
struct Reduced {
    constraints: Vec<ExprRef>,
    /// Term -> what the constraints allow it.
    allowed: BTreeMap<ExprRef, ValueSet>,
}

fn reduce(constraints: &[ExprRef], merged: &mut FxHashMap<Atom, Vec<ExprRef>>) -> Option<Reduced> {
    // Each term's place of first appearance and its atoms, each with the
    // index of the constraint and the conjunct it came from.
    type Atoms = Vec<(usize, ExprRef, Atom)>;
    let mut groups: BTreeMap<ExprRef, (usize, Atoms)> = BTreeMap::new();
    let mut others = Vec::new();
    // Constraints with a conjunct that is no atom, or atoms about several
    // terms: they say nothing about one term alone.
    let mut mixed = vec![false; constraints.len()];
    let mut i = 0;
    for (k, constraint) in constraints.iter().enumerate() {
        let mut term: Option<ExprRef> = None;
        for c in conjuncts(std::slice::from_ref(constraint)) {
            if c.is_false() {
                return None;
            }
            match atom_of(&c) {
                Some(a) => {
                    mixed[k] |= term.as_ref().is_some_and(|t| *t != a.term);
                    term = Some(a.term.clone());
                    groups
                        .entry(a.term.clone())
                        .or_insert_with(|| (i, Vec::new()))
                        .1
                        .push((k, c, a));
                }
                None => {
                    mixed[k] = true;
                    others.push((i, c));
                }
            }
            i += 1;
        }
    }
    let mut placed: Vec<(usize, ExprRef)> = others;
    let mut allowed = BTreeMap::new();
    for (term, (first, atoms)) in groups {
        let set = ValueSet::intersect_all(term.width(), atoms.iter().map(|(_, _, a)| &a.set));
        if set.is_empty() {
            return None;
        }
        // Keep an original conjunct, or constraint, when it alone says it
        // all (the others are implied); otherwise the merged atom. Kept as
        // the program wrote it, the path condition stays in the form Z3 was
        // fastest on: `1 <=s n && n <s 64` (from `klee_range`) rewritten
        // as `1 <=u n && n <=u 63` made a Collatz loop 4 times slower.
        // A constraint whose atoms about the term, together, say it all,
        // if it has no other conjunct. A constraint's atoms lie side by
        // side: one pass, as a byte compared with many constants has many.
        let whole = || {
            atoms
                .chunk_by(|(j, _, _), (k, _, _)| j == k)
                .filter(|run| !mixed[run[0].0])
                .find(|run| {
                    ValueSet::intersect_all(term.width(), run.iter().map(|(_, _, a)| &a.set)) == set
                })
                .map(|run| run[0].0)
        };
        let exprs = if let Some((_, c, _)) = atoms.iter().find(|(_, _, a)| a.set == set) {
            vec![c.clone()]
        } else if let Some(k) = whole() {
            vec![constraints[k].clone()]
        } else {
            let atom = Atom {
                term: term.clone(),
                set: set.clone(),
            };
            merged
                .entry(atom)
                .or_insert_with_key(Atom::to_exprs)
                .clone()
        };
        placed.extend(exprs.into_iter().map(|e| (first, e)));
        allowed.insert(term, set);
    }
    placed.sort_by_key(|(i, _)| *i);
    Some(Reduced {
        constraints: placed.into_iter().map(|(_, e)| e).collect(),
        allowed,
    })
}

impl Layer for ReductionLayer {
    fn name(&self) -> &'static str {
        "reduce"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let Some(reduced) = self.reduction(q.constraints) else {
            next.stats().hit(self.name());
            return Ok(Answer::Unsat);
        };
        // The condition against what the constraints allow its terms.
        let cond = conjuncts(std::slice::from_ref(&q.expr));
        let mut implied = true;
        for c in &cond {
            match atom_of(c) {
                Some(a) => match reduced.allowed.get(&a.term) {
                    Some(allowed) => {
                        let both = allowed.intersect(&a.set);
                        if both.is_empty() {
                            next.stats().hit(self.name());
                            return Ok(Answer::Unsat);
                        }
                        implied &= allowed.is_subset(&a.set);
                    }
                    None => implied = false,
                },
                None => implied = false,
            }
        }
        if q.expr.is_false() {
            next.stats().hit(self.name());
            return Ok(Answer::Unsat);
        }
        // The constraints are feasible (a path condition) and imply the
        // condition: satisfiable, no solver needed unless a model is.
        if implied && q.model.is_none() {
            next.stats().hit(self.name());
            return Ok(Answer::Sat(None));
        }
        next.check(&Query {
            constraints: &reduced.constraints,
            expr: q.expr.clone(),
            model: q.model,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen};
    use crate::expr::{self, constant, read, Array, ArrayRef, Evaluator, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef) -> ExprRef {
        read(&UpdateList::new(a.clone()), &constant(0, 64))
    }

    fn solver() -> Solver {
        Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(ReductionLayer::new())],
        )
    }

    #[test]
    fn conflicts_and_implications_need_no_solver() {
        let x = byte(&Array::symbolic("rd_x", 1));
        let k = |c| constant(c, 8);
        let mut s = solver();
        // x < 5 and x > 7: no solver call.
        assert!(!s
            .may_be_true(&[expr::ult(&x, &k(5))], &expr::ugt(&x, &k(7)))
            .unwrap());
        // x <= 3 implies x != 200 and x < 10.
        assert!(s
            .may_be_true(&[expr::ule(&x, &k(3))], &expr::ult(&x, &k(10)))
            .unwrap());
        // x in [0, 5], x != 3, x != 4, x >= 3: x = 5 only.
        let cs = vec![
            expr::ule(&x, &k(5)),
            expr::ne(&x, &k(3)),
            expr::ne(&x, &k(4)),
        ];
        assert!(!s.may_be_true(&cs, &expr::ult(&k(5), &x)).unwrap());
        assert_eq!(s.stats().z3_calls, 0, "{:?}", s.stats());
        let m = s
            .get_model(&[cs.clone(), vec![expr::uge(&x, &k(3))]].concat(), &[])
            .unwrap()
            .unwrap();
        assert_eq!(Evaluator::new(&m).eval(&x), 5);
    }

    #[test]
    fn a_constraint_that_says_it_all_is_kept_as_written() {
        let x = byte(&Array::symbolic("rd_w", 1));
        let k = |c| constant(c, 8);
        // `1 <=s x <s 64`, as `klee_range` writes it, and an implied `x != 200`.
        let range = expr::and(&expr::sle(&k(1), &x), &expr::slt(&x, &k(64)));
        let r = reduce(
            &[range.clone(), expr::ne(&x, &k(200))],
            &mut Default::default(),
        )
        .unwrap();
        assert_eq!(r.constraints, vec![range.clone()]);
        // A further bound makes the merged atom the only one that says it all.
        let r = reduce(
            &[range.clone(), expr::ult(&x, &k(10))],
            &mut Default::default(),
        )
        .unwrap();
        let set = r.allowed[&x].clone();
        assert!(set.contains(1) && set.contains(9) && !set.contains(0) && !set.contains(10));
        let merged = Atom {
            term: x.clone(),
            set,
        };
        assert_eq!(r.constraints, merged.to_exprs());
        assert!(!r.constraints.contains(&range));
    }

    #[test]
    fn a_constraint_list_is_reduced_once_and_the_memos_stay_bounded() {
        let x = byte(&Array::symbolic("rd_m", 1));
        let k = |c| constant(c, 8);
        let cs = vec![expr::ne(&x, &k(0)), expr::ne(&x, &k(45))];
        let mut layer = ReductionLayer::new();
        let first = layer.reduction(&cs).unwrap();
        let again = layer.reduction(&cs).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "the second query reuses the first's reduction"
        );
        let fresh = reduce(&cs, &mut Default::default()).unwrap();
        assert_eq!(first.constraints, fresh.constraints);
        assert_eq!(first.allowed, fresh.allowed);
        // A conflict is remembered as one.
        let conflict = vec![expr::ult(&x, &k(5)), expr::ugt(&x, &k(7))];
        assert!(layer.reduction(&conflict).is_none());
        assert!(layer
            .reductions
            .get(&conflict[..])
            .is_some_and(|r| r.is_none()));
        // Lists past the bound start the memos afresh rather than grow them.
        for c in 0..(MEMO_ENTRIES as u128 + 10) {
            let y = byte(&Array::symbolic("rd_n", 1));
            layer.reduction(&[expr::ne(&y, &k(c % 256)), expr::ne(&y, &k(c / 256))]);
        }
        assert!(layer.reductions.len() <= MEMO_ENTRIES);
        assert!(layer.merged.len() <= MEMO_ENTRIES);
    }

    #[test]
    fn signed_and_unsigned_mix_and_wrap_around() {
        let x = byte(&Array::symbolic("rd_s", 1));
        let k = |c| constant(c, 8);
        let mut s = solver();
        // x <s 0 means x >=u 128: with x <u 100 there is no value.
        assert!(!s
            .may_be_true(&[expr::slt(&x, &k(0))], &expr::ult(&x, &k(100)))
            .unwrap());
        // x >s -3 and x <s 2 and x >u 250: x in {253, 254, 255}.
        let cs = vec![expr::sgt(&x, &k(0xfd)), expr::slt(&x, &k(2))];
        assert!(s.may_be_true(&cs, &expr::ugt(&x, &k(250))).unwrap());
        assert!(!s.may_be_true(&cs, &expr::eq(&x, &k(0xfd))).unwrap());
        assert_eq!(s.stats().z3_calls, 1);
    }

    #[test]
    fn reduced_queries_agree_with_z3() {
        let env = Env::new("reduce");
        let mut g = Gen::new(17);
        let mut reduced = solver();
        let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
        let x = byte(&env.sym[0]);
        let mut checked = 0;
        for round in 0..200 {
            // Comparisons of one term with constants, plus random noise.
            let mut cs: Vec<ExprRef> = (0..3)
                .map(|i| {
                    let c = constant((round * 37 + i * 91) as u128 % 256, 8);
                    let f = [expr::ult, expr::sge, expr::ne, expr::ule, expr::sgt][(round + i) % 5];
                    f(&x, &c)
                })
                .collect();
            cs.push(build(&g.gen(1, 2), &env));
            // Layers may assume the path condition is feasible, as the
            // engine keeps it: an infeasible one goes in as the condition.
            let last = cs.pop().unwrap();
            if !plain.may_be_true(&cs, &last).unwrap() {
                assert!(!reduced.may_be_true(&cs, &last).unwrap(), "round {round}");
                continue;
            }
            cs.push(last);
            let e = expr::ugt(&x, &constant((round * 13) as u128 % 256, 8));
            assert_eq!(
                reduced.may_be_true(&cs, &e).unwrap(),
                plain.may_be_true(&cs, &e).unwrap(),
                "round {round}"
            );
            let m = reduced.get_model(&cs, &env.sym).unwrap();
            assert!(m.is_some());
            checked += 1;
        }
        assert!(checked > 40, "{checked}");
        assert_eq!(reduced.stats().bad_models, 0);
        assert!(reduced.stats().hits.get("reduce").copied().unwrap_or(0) > 10);
    }
}
