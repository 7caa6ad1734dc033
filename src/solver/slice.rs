//! Slicing (Green; KLEE's independent solver): a query only needs the
//! constraints that share symbolic arrays with it, transitively.
//!
//! The path condition is assumed satisfiable (see [`Query`]), so the
//! constraints unrelated to the condition cannot change a sat/unsat
//! answer. A model, though, must satisfy every constraint: then the query
//! is split into its independent factors, each solved on its own (and each
//! a likely hit for the caches after this layer), and their models joined.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use super::arrays::ArraysOf;
use super::query::{Answer, Chain, Layer, Query};
use super::verified::Verified;
use super::SolverError;
use crate::expr::{bool_const, Array, ArrayRef, Assignment, ExprRef};

/// Keeps only the part of each query its answer depends on.
#[derive(Default)]
pub struct SliceLayer {
    /// The symbolic arrays of each expression seen.
    arrays: ArraysOf,
    /// The model this layer last returned. States along a path, and
    /// neighbouring paths, share most of their factors: a factor this model
    /// already satisfies takes its bytes from it, without a query (a loop
    /// reading fresh input has one factor per input, and asking for each
    /// again dominated its model queries).
    last: Assignment,
    /// Checks factors against `last`: most of them hold under the bytes
    /// `last` shares with the model before it, which they were checked
    /// against then.
    verified: Verified,
}

impl SliceLayer {
    /// A layer with nothing cached.
    pub fn new() -> Self {
        Self::default()
    }
}

/// Union-find over arrays, by address.
#[derive(Default)]
struct Factors {
    parent: FxHashMap<*const Array, *const Array>,
}

impl Factors {
    fn find(&mut self, a: *const Array) -> *const Array {
        let mut root = a;
        while let Some(&p) = self.parent.get(&root) {
            if p == root {
                break;
            }
            root = p;
        }
        // Path compression keeps later finds short.
        let mut x = a;
        while x != root {
            let next = self.parent.insert(x, root).unwrap_or(root);
            x = next;
        }
        self.parent.entry(root).or_insert(root);
        root
    }

    fn union(&mut self, arrays: &[ArrayRef]) {
        let Some(first) = arrays.first() else {
            return;
        };
        let r = self.find(Arc::as_ptr(first));
        for a in &arrays[1..] {
            let s = self.find(Arc::as_ptr(a));
            if s != r {
                self.parent.insert(s, r);
            }
        }
    }
}

/// A query's constraints split into independent factors.
pub(super) struct Factored {
    /// The constraints of each factor other than the condition's, in their
    /// original order, with the factor's arrays.
    pub others: Vec<(Vec<ExprRef>, Vec<ArrayRef>)>,
    /// The condition's own factor: the constraints that share arrays with
    /// it, transitively, and those without any array.
    pub own: Vec<ExprRef>,
    /// The arrays of the own factor, the condition's first.
    pub own_arrays: Vec<ArrayRef>,
}

impl Factored {
    /// Splits `constraints` by the arrays they share, `expr` joining its own
    /// factor; with `own_only`, the other factors are left out.
    pub fn new(
        arrays_of: &mut ArraysOf,
        constraints: &[ExprRef],
        expr: &ExprRef,
        own_only: bool,
    ) -> Self {
        let mut spans = Vec::with_capacity(constraints.len() + 1);
        arrays_of.spans(constraints.iter().chain(std::iter::once(expr)), &mut spans);
        let expr_arrays = spans.pop().map_or(&[][..], |s| arrays_of.get(s));
        let per_constraint = spans.iter().map(|&s| arrays_of.get(s));
        if own_only {
            if let Some(own) = Self::own_factor(constraints, per_constraint.clone(), expr_arrays) {
                return own;
            }
        }
        let mut factors = Factors::default();
        for arrays in per_constraint.clone().chain(std::iter::once(expr_arrays)) {
            factors.union(arrays);
        }
        let expr_root = expr_arrays.first().map(|a| factors.find(Arc::as_ptr(a)));

        // Constraints by factor, in their original order; the condition's
        // own factor is group 0. No symbolic array: a fact about constants
        // that the builders did not fold; it belongs to every factor's
        // truth, so it is kept with the condition.
        let mut groups: Vec<Group> = vec![Group::default()];
        let mut group_of: FxHashMap<*const Array, usize> = FxHashMap::default();
        if let Some(root) = expr_root {
            group_of.insert(root, 0);
            groups[0].add_arrays(expr_arrays);
        }
        for (c, arrays) in constraints.iter().zip(per_constraint) {
            let g = match arrays.first() {
                None => 0,
                Some(first) => {
                    let root = factors.find(Arc::as_ptr(first));
                    if own_only && Some(root) != expr_root {
                        continue;
                    }
                    *group_of.entry(root).or_insert_with(|| {
                        groups.push(Group::default());
                        groups.len() - 1
                    })
                }
            };
            groups[g].constraints.push(c.clone());
            groups[g].add_arrays(arrays);
        }
        let mut groups = groups.into_iter();
        let own = groups.next().unwrap_or_default();
        Factored {
            others: groups.map(|g| (g.constraints, g.arrays)).collect(),
            own: own.constraints,
            own_arrays: own.arrays,
        }
    }

    /// The condition's own factor alone, when the constraints that share
    /// an array with the condition read no other array (one input per
    /// condition, as a loop over fresh input makes, or every condition on
    /// the bytes of one string): found in one pass, without sorting every
    /// other constraint into a factor. `None` otherwise: the factor reaches
    /// further, and the general union of factors finds it.
    fn own_factor<'a>(
        constraints: &[ExprRef],
        per_constraint: impl Iterator<Item = &'a [ArrayRef]>,
        expr_arrays: &[ArrayRef],
    ) -> Option<Self> {
        let mut own = Group::default();
        own.add_arrays(expr_arrays);
        let reached = own.arrays.len();
        for (c, arrays) in constraints.iter().zip(per_constraint) {
            if arrays.is_empty() || arrays.iter().any(|a| own.seen.contains(&Arc::as_ptr(a))) {
                own.constraints.push(c.clone());
                own.add_arrays(arrays);
                if own.arrays.len() > reached {
                    return None;
                }
            }
        }
        Some(Factored {
            others: Vec::new(),
            own: own.constraints,
            own_arrays: own.arrays,
        })
    }
}

/// The constraints of one factor and their arrays, each once.
#[derive(Default)]
struct Group {
    constraints: Vec<ExprRef>,
    arrays: Vec<ArrayRef>,
    seen: FxHashSet<*const Array>,
}

impl Group {
    fn add_arrays(&mut self, arrays: &[ArrayRef]) {
        for a in arrays {
            if self.seen.insert(Arc::as_ptr(a)) {
                self.arrays.push(a.clone());
            }
        }
    }
}

impl Layer for SliceLayer {
    fn name(&self) -> &'static str {
        "slice"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        let Factored {
            others,
            own,
            own_arrays,
        } = Factored::new(&mut self.arrays, q.constraints, &q.expr, q.model.is_none());
        let Some(wanted) = q.model else {
            return next.check(&Query::new(&own, q.expr.clone()));
        };
        // Each factor's model gives only that factor's arrays: a layer may
        // answer with a model of a larger set, whose other arrays belong to
        // other factors.
        let mut model = Assignment::new();
        let trivial = own.is_empty() && q.expr.is_true();
        match if trivial {
            Answer::Sat(Some(Assignment::new()))
        } else {
            next.check(&Query::new(&own, q.expr.clone()).with_model(&own_arrays))?
        } {
            Answer::Unsat => return Ok(Answer::Unsat),
            Answer::Sat(Some(m)) => model.set_from(&m, &own_arrays),
            Answer::Sat(None) => {
                return Err(SolverError::Unknown(
                    "a layer answered sat without the model asked for".to_string(),
                ))
            }
        }
        let truth = bool_const(true);
        let check: usize = others.iter().map(|(cs, _)| cs.len()).sum();
        for (constraints, arrays) in &others {
            if arrays.iter().all(|a| self.last.contains(a))
                && self.verified.all_hold(&self.last, constraints, check)
            {
                model.set_from(&self.last, arrays);
                continue;
            }
            match next.check(&Query::new(constraints, truth.clone()).with_model(arrays))? {
                Answer::Unsat => return Ok(Answer::Unsat),
                Answer::Sat(Some(m)) => model.set_from(&m, arrays),
                Answer::Sat(None) => {
                    return Err(SolverError::Unknown(
                        "a layer answered sat without the model asked for".to_string(),
                    ))
                }
            }
        }
        for a in wanted {
            if !model.contains(a) {
                model.set(a, vec![0; a.size as usize]);
            }
        }
        self.last = model.clone();
        Ok(Answer::Sat(Some(model)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen};
    use crate::expr::{self, Evaluator, UpdateList};
    use crate::solver::tests::Spy;
    use crate::solver::{Solver, SolverConfig};

    fn byte(a: &ArrayRef, i: u128) -> ExprRef {
        expr::read(&UpdateList::new(a.clone()), &expr::constant(i, 64))
    }

    #[test]
    fn unrelated_constraints_are_dropped_and_models_cover_every_factor() {
        let x = Array::symbolic("sl_x", 1);
        let y = Array::symbolic("sl_y", 1);
        let z = Array::symbolic("sl_z", 2);
        let cs = vec![
            expr::ult(&byte(&x, 0), &expr::constant(10, 8)),
            expr::ugt(&byte(&y, 0), &expr::constant(200, 8)),
            expr::eq(&byte(&z, 0), &byte(&z, 1)),
            expr::ult(&byte(&z, 1), &byte(&x, 0)),
        ];
        let spy = Spy::default();
        let mut s = Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(SliceLayer::new()), Box::new(spy.clone())],
        );
        assert!(s
            .may_be_true(&cs, &expr::eq(&byte(&y, 0), &expr::constant(201, 8)))
            .unwrap());
        assert_eq!(
            spy.constraint_counts(),
            vec![1],
            "only y's constraint goes on"
        );
        spy.clear();
        let m = s
            .get_model(&cs, &[x.clone(), y.clone(), z.clone()])
            .unwrap()
            .unwrap();
        let mut ev = Evaluator::new(&m);
        assert!(cs.iter().all(|c| ev.eval(c) == 1));
        // Two factors: {x, z} and {y}.
        let mut sizes = spy.constraint_counts();
        sizes.sort();
        assert_eq!(sizes, vec![1, 3]);
        assert_eq!(s.stats().bad_models, 0);
    }

    #[test]
    fn factors_the_last_model_satisfies_are_not_asked_again() {
        let (x, y, z) = (
            Array::symbolic("sl_lx", 1),
            Array::symbolic("sl_ly", 1),
            Array::symbolic("sl_lz", 1),
        );
        let mut cs = vec![
            expr::ult(&byte(&x, 0), &expr::constant(10, 8)),
            expr::ugt(&byte(&y, 0), &expr::constant(200, 8)),
        ];
        let spy = Spy::default();
        let mut s = Solver::with_layers(
            SolverConfig::default(),
            vec![Box::new(SliceLayer::new()), Box::new(spy.clone())],
        );
        let arrays = [x.clone(), y.clone(), z.clone()];
        assert!(s.get_model(&cs, &arrays).unwrap().is_some());
        assert_eq!(spy.constraint_counts().len(), 2, "one query per factor");
        // The next state on the path adds a factor: only it is asked.
        spy.clear();
        cs.push(expr::eq(&byte(&z, 0), &expr::constant(7, 8)));
        let m = s.get_model(&cs, &arrays).unwrap().unwrap();
        assert_eq!(spy.constraint_counts(), vec![1]);
        let mut ev = Evaluator::new(&m);
        assert!(cs.iter().all(|c| ev.eval(c) == 1));
        // A factor the last model does not satisfy is asked again.
        spy.clear();
        cs[1] = expr::ult(&byte(&y, 0), &expr::constant(3, 8));
        let m = s.get_model(&cs, &arrays).unwrap().unwrap();
        assert_eq!(spy.constraint_counts(), vec![1]);
        let mut ev = Evaluator::new(&m);
        assert!(cs.iter().all(|c| ev.eval(c) == 1));
        assert_eq!(s.stats().bad_models, 0);
    }

    #[test]
    fn the_own_factor_alone_is_the_own_factor_of_the_whole_split() {
        let env = Env::new("slice_own");
        let mut g = Gen::new(5);
        let mut arrays = ArraysOf::default();
        let mut one_pass = 0;
        for round in 0..300 {
            let n = 1 + round % 6;
            let cs: Vec<ExprRef> = (0..n).map(|_| build(&g.gen(1, 2), &env)).collect();
            let e = build(&g.gen(1, 2), &env);
            let alone = Factored::new(&mut arrays, &cs, &e, true);
            let whole = Factored::new(&mut arrays, &cs, &e, false);
            assert_eq!(alone.own, whole.own, "round {round}");
            let names = |v: &[ArrayRef]| v.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
            assert_eq!(
                names(&alone.own_arrays),
                names(&whole.own_arrays),
                "round {round}"
            );
            let mut spans = Vec::new();
            arrays.spans(cs.iter().chain([&e]), &mut spans);
            let expr_arrays = arrays.get(spans[n]).to_vec();
            let per = spans[..n].iter().map(|&s| arrays.get(s));
            one_pass += Factored::own_factor(&cs, per, &expr_arrays).is_some() as usize;
        }
        // Both ways of finding the factor were taken.
        assert!((30..270).contains(&one_pass), "{one_pass}");
    }

    #[test]
    fn random_queries_agree_with_z3() {
        let env = Env::new("slice");
        let mut g = Gen::new(11);
        let mut sliced =
            Solver::with_layers(SolverConfig::default(), vec![Box::new(SliceLayer::new())]);
        let mut plain = Solver::with_layers(SolverConfig::default(), vec![]);
        let mut checked = 0;
        for round in 0..150 {
            let cs: Vec<ExprRef> = (0..3).map(|_| build(&g.gen(1, 2), &env)).collect();
            // Slicing assumes a feasible path condition, as the engine keeps.
            if !plain.may_be_true(&cs, &expr::bool_const(true)).unwrap() {
                continue;
            }
            let e = build(&g.gen(1, 2), &env);
            assert_eq!(
                sliced.may_be_true(&cs, &e).unwrap(),
                plain.may_be_true(&cs, &e).unwrap(),
                "round {round}"
            );
            let mut all = cs.clone();
            all.push(e);
            let wanted = env.sym.clone();
            let a = sliced.get_model(&all, &wanted).unwrap();
            let b = plain.get_model(&all, &wanted).unwrap();
            assert_eq!(a.is_some(), b.is_some(), "round {round}");
            checked += 1;
        }
        assert!(checked > 30, "{checked}");
        assert_eq!(sliced.stats().bad_models, 0);
    }
}
