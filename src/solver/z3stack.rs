//! Incremental Z3 (Liu et al.'s "stack"): one solver whose assertion stack
//! follows the path.
//!
//! Each constraint is asserted on its own push level. A query whose
//! constraints start with the ones on the stack (the next branch of the
//! same path) only pushes what is new; a query from another state pops back
//! to the common prefix first. Z3 keeps what it learned at the levels that
//! stay. The condition itself is asserted on a level of its own, popped
//! once it is decided. Checked as an assumption instead, it needed no pop,
//! but every condition asked stayed taken in at the bottom of the stack:
//! each query carried the circuits of all those before it, and the third
//! query of a vectorized loop program (a maximum of 24 words, after a sum
//! and a count) took 300 ms instead of 90 ms, near the half of its
//! probe's second it is given.
//!
//! With `share_subexpressions` ("stackOpt"), an arithmetic subexpression
//! used by a second parent is named by a fresh constant, defined once by an
//! equation; every later use refers to the name.
//!
//! Definitions and the side conditions of reads hold in every query, so
//! one asserted at a level that is later popped is simply asserted again at
//! the current level before the next check.

use super::limit::{Limit, STACK_UNITS_PER_MS};
use super::query::{Answer, Chain, Layer, Query};
use super::z3::{answer, configure, Translator};
use super::SolverError;
use crate::expr::ExprRef;
use z3::Solver as ZSolver;

/// Translations beyond this many are dropped, with the solver, when the
/// stack is back at the bottom (memory bound).
const TRANSLATION_LIMIT: usize = 1 << 20;

/// The incremental Z3 layer; always the last of a chain.
pub struct Z3StackLayer {
    timeout_ms: u64,
    share: bool,
    state: Option<Stack>,
}

struct Stack {
    solver: ZSolver,
    translator: Translator,
    /// The constraints asserted, one per push level.
    asserted: Vec<ExprRef>,
    /// For each side condition of the translator, the level it is asserted
    /// at (`None`: not asserted at any live level).
    side_level: Vec<Option<usize>>,
    /// The limit the solver is configured with.
    limit: Limit,
}

impl Stack {
    fn new(limit: Limit, share: bool) -> Self {
        let solver = ZSolver::new();
        configure(&solver, limit, STACK_UNITS_PER_MS);
        let mut translator = Translator::default();
        translator.name_shared = share;
        Stack {
            solver,
            translator,
            asserted: Vec::new(),
            side_level: Vec::new(),
            limit,
        }
    }

    fn pop_to(&mut self, level: usize) {
        let n = self.asserted.len() - level;
        if n == 0 {
            return;
        }
        self.solver.pop(n as u32);
        self.asserted.truncate(level);
        for l in &mut self.side_level {
            if l.is_some_and(|l| l > level) {
                *l = None;
            }
        }
    }

    /// Asserts, at the current level, the side conditions not asserted at
    /// a live level.
    fn assert_side(&mut self) {
        self.side_level.resize(self.translator.side.len(), None);
        let level = self.asserted.len();
        for (cond, at) in self.translator.side.iter().zip(&mut self.side_level) {
            if at.is_none() {
                self.solver.assert(cond);
                *at = Some(level);
            }
        }
    }

    fn check(&mut self, q: &Query<'_>) -> Result<Answer, SolverError> {
        let common = self
            .asserted
            .iter()
            .zip(q.constraints)
            .take_while(|(a, b)| a == b)
            .count();
        self.pop_to(common);
        for c in &q.constraints[common..] {
            self.translator.translate(c)?;
            let b = self.translator.boolean(c)?;
            self.solver.push();
            self.asserted.push(c.clone());
            self.solver.assert(&b);
        }
        self.translator.translate(&q.expr)?;
        let cond = self.translator.boolean(&q.expr)?;
        self.translator.link_arrays();
        self.assert_side();
        self.solver.push();
        self.solver.assert(&cond);
        let result = self.solver.check();
        let answer = answer(&self.solver, result, q, &self.translator, self.limit);
        self.solver.pop(1);
        answer
    }
}

impl Z3StackLayer {
    /// A layer giving each query at most `timeout_ms` milliseconds; with
    /// `share_subexpressions` it is stackOpt.
    pub fn new(timeout_ms: u64, share_subexpressions: bool) -> Self {
        Z3StackLayer {
            timeout_ms,
            share: share_subexpressions,
            state: None,
        }
    }

    /// The push levels in use (for tests and statistics).
    pub fn depth(&self) -> usize {
        self.state.as_ref().map_or(0, |s| s.asserted.len())
    }
}

impl Layer for Z3StackLayer {
    fn name(&self) -> &'static str {
        if self.share {
            "z3-stackopt"
        } else {
            "z3-stack"
        }
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        next.stats().z3_calls += 1;
        let limit = next.limit(self.timeout_ms)?;
        next.timed(limit.is_probe(), limit, || self.solve(q, limit))
    }
}

impl Z3StackLayer {
    /// Decides `q` on the stack (the layer's work, without its counting:
    /// the `z3-auto` layer calls it too).
    pub(super) fn solve(&mut self, q: &Query<'_>, limit: Limit) -> Result<Answer, SolverError> {
        let share = self.share;
        let stack = self.state.get_or_insert_with(|| Stack::new(limit, share));
        let shared_prefix = stack
            .asserted
            .first()
            .zip(q.constraints.first())
            .is_some_and(|(a, b)| a == b);
        if !shared_prefix && stack.translator.len() > TRANSLATION_LIMIT {
            *stack = Stack::new(limit, share);
        }
        if stack.limit != limit {
            configure(&stack.solver, limit, STACK_UNITS_PER_MS);
            stack.limit = limit;
        }
        let result = stack.check(q);
        if result.is_err() {
            // A timeout may leave Z3 in any state: start afresh next time.
            self.state = None;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, Env, Gen};
    use crate::expr::{self, constant, Array, Evaluator, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    #[test]
    fn follows_a_path_and_pops_to_the_common_prefix() {
        let a = Array::symbolic("st_a", 2);
        let x = expr::read(&UpdateList::new(a.clone()), &constant(0, 64));
        let y = expr::read(&UpdateList::new(a.clone()), &constant(1, 64));
        let c1 = expr::ult(&x, &constant(100, 8));
        let c2 = expr::ugt(&y, &x);
        let c3 = expr::eq(&x, &constant(7, 8));
        let mut layer = Z3StackLayer::new(10_000, false);
        let mut stats = crate::solver::SolverStats::default();
        let mut ask = |layer: &mut Z3StackLayer, cs: &[crate::expr::ExprRef], e| {
            let mut layers: Vec<Box<dyn Layer>> = Vec::new();
            let q = Query::new(cs, e);
            layer
                .check(&q, &mut Chain::new(&mut layers, &mut stats))
                .unwrap()
                .is_sat()
        };
        assert!(ask(&mut layer, std::slice::from_ref(&c1), c2.clone()));
        assert_eq!(layer.depth(), 1);
        assert!(ask(&mut layer, &[c1.clone(), c2.clone()], c3.clone()));
        assert_eq!(layer.depth(), 2);
        assert!(!ask(
            &mut layer,
            &[c1.clone(), c2.clone(), c3.clone()],
            expr::ugt(&x, &constant(8, 8))
        ));
        assert_eq!(layer.depth(), 3);
        // Another state: back to the common prefix {c1}, then its own branch.
        assert!(ask(
            &mut layer,
            &[c1.clone(), expr::not(&c2)],
            expr::eq(&y, &constant(0, 8))
        ));
        assert_eq!(layer.depth(), 2);
        assert!(ask(&mut layer, &[], expr::ugt(&x, &constant(200, 8))));
        assert_eq!(layer.depth(), 0);
    }

    #[test]
    fn a_probe_runs_out_of_work_and_the_next_query_has_its_time() {
        let q = Query::new(&[], crate::solver::z3::tests::factoring());
        for share in [false, true] {
            let mut layer = Z3StackLayer::new(600_000, share);
            let probe = Limit {
                ms: 600_000,
                work_ms: Some(1),
            };
            let r = layer.solve(&q, probe);
            assert!(matches!(r, Err(SolverError::Timeout)), "{r:?}");
            let r = layer.solve(&q, Limit::time(600_000));
            assert!(matches!(r, Ok(Answer::Sat(_))), "{r:?}");
            // On a stack that has answered, too.
            let r = layer.solve(&q, probe);
            assert!(matches!(r, Err(SolverError::Timeout)), "{r:?}");
        }
    }

    fn agree_with_fresh_z3(share: bool) {
        let env = Env::new(if share { "stko" } else { "stk" });
        let mut g = Gen::new(if share { 3 } else { 4 });
        let mut stack = Solver::new(SolverConfig {
            chain: if share { "z3-stackopt" } else { "z3-stack" }
                .parse()
                .unwrap(),
            ..SolverConfig::default()
        });
        let mut fresh = Solver::with_layers(SolverConfig::default(), vec![]);
        // Random walks over a tree of paths: extend, branch, backtrack.
        let mut path: Vec<crate::expr::ExprRef> = Vec::new();
        let mut checked = 0;
        for step in 0..300 {
            let c = build(&g.gen(1, 2), &env);
            let (a, b) = (
                stack.may_be_true(&path, &c).unwrap(),
                fresh.may_be_true(&path, &c).unwrap(),
            );
            assert_eq!(a, b, "step {step}");
            if step % 5 == 0 {
                let m = stack.get_model(&path, &env.sym).unwrap();
                let m = m.expect("the path is feasible");
                let mut ev = Evaluator::new(&m);
                assert!(path.iter().all(|p| ev.eval(p) == 1));
            }
            checked += 1;
            if a && path.len() < 8 && step % 3 != 0 {
                path.push(c);
            } else if step % 4 == 0 {
                let keep = path.len() / 2;
                path.truncate(keep);
            }
        }
        assert!(checked == 300);
        assert_eq!(stack.stats().bad_models, 0);
    }

    #[test]
    fn stack_agrees_with_fresh_z3() {
        agree_with_fresh_z3(false);
    }

    #[test]
    fn stackopt_agrees_with_fresh_z3() {
        agree_with_fresh_z3(true);
    }
}
