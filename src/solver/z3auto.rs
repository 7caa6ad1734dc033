//! Z3 by query: the incremental stack where it is fast, a fresh
//! bit-blasting solver where the stack is slow, and the other one when the
//! first times out.
//!
//! Z3's incremental core decides linear bit-vector queries along a path
//! faster than a fresh solver per query, but it does not bit-blast up
//! front: on multiplication, division and remainder of two unknowns (a
//! remainder chain) and on reads through writes at symbolic indices (a
//! histogram) it was 2 to 8 times slower than a fresh QF_BV solver, and some
//! of its queries timed out that the fresh solver answered in milliseconds.
//! Products by large constants, as hash functions and pseudo-random
//! generators compute them, go to the stack that names shared
//! subexpressions once: on MurmurHash3's finalizer it was 2 to 5 times
//! faster than the plain stack, while on a Collatz loop (products by 3) it
//! was 10 times slower, so small factors stay on the plain stack.
//! A quotient or remainder by a constant that is not a power of two (a
//! hash table's `hash % 65537`) is a divider circuit, on which the stack
//! was slow as well: m4 looks each name up in a table of 65,537 buckets,
//! and its 11,240 recorded queries of a minute's run took Z3 34 s on the
//! stack and 4 s on fresh solvers. Products by hash multipliers still
//! decide where both are there (the hash taken modulo a small prime).
//! The choice is made on the query's content; a query that times out under
//! the chosen solver is asked of the other before the path is given up.
//!
//! A large circuit (SHA-512's 80 rounds over symbolic bytes) goes to the
//! fresh solver alone: the stack's kernel internalizes it without looking
//! at its timer, and its memory grew with the rounds from 0.76 GB at 32 to
//! 6 GB at 64, for a minute past a 10 s limit, where the fresh solver
//! stopped at its limit with 0.3 to 1 GB; such a constraint (2^15 operand
//! bits and more; 24 rounds are 37,000) goes to the fresh solver alone.
//! A condition does from 2^13 bits: it is new at each query, while a
//! constraint is internalized once and stays on the stack for the queries
//! after. md5sum printing the digest of 8 symbolic bytes asks about
//! digits of 13,000 operand bits, which the stack took 8 to 13 s to give
//! up at a 0.5 s limit (and 3 s more to free): a 5-minute run completed 6
//! paths in its first minute. stat's conditions of 8,000 to 16,000 bits
//! reuse a constraint already on the stack and add about 4,000 bits to
//! it: what counts is what a condition adds, and those stay on the stack.
//! No condition of `expr`, `wc` and `sort` under KLEE's arguments reaches
//! 8,000 bits.
//!
//! A fresh solver is given the query in one of two ways: asserted as it
//! is, or each conjunct under an assumed literal (as for an unsat core).
//! Which is faster depends on the query, and measurably so: on remainder
//! chains the plain form is twice as fast (a recursive Euclid), on reads
//! through symbolic writes the assumed form is (0.57 s instead of 0.97 s
//! for a histogram's queries). The likely reason is Z3's preprocessing,
//! which simplifies and eliminates asserted equations before bit-blasting
//! but cannot touch guarded ones: that pays on arithmetic circuits and
//! costs on case splits over index equations.

use super::canon::post_order;
use super::limit::Limit;
use super::query::{Answer, Chain, Layer, Query};
use super::z3::WatchedSolver;
use super::z3stack::Z3StackLayer;
use super::SolverError;
use crate::expr::{ExprKind, ExprNode, ExprRef};
use crate::ir::BinOp;
use rustc_hash::{FxHashMap, FxHashSet};
use std::time::Instant;

/// Classifications kept before the memo is cleared (memory bound).
const MEMO_LIMIT: usize = 1 << 18;

/// The circuit size (in operand bits, see [`circuit_bits`]) from which a
/// constraint goes to the fresh solver alone.
const LARGE_CIRCUIT: u64 = 1 << 15;

/// The circuit size from which a condition goes to the fresh solver alone.
const LARGE_CONDITION: u64 = 1 << 13;

/// The solver a query goes to first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The incremental assertion stack (Liu et al.).
    Stack,
    /// The incremental stack with shared subexpressions named once
    /// ("stackOpt").
    Shared,
    /// A fresh solver for this query, bit-blasting plain bit-vectors.
    Fresh,
    /// A fresh solver, each conjunct asserted under an assumed literal.
    Assumed,
    /// A fresh solver for a circuit too large for the stack, with no
    /// retry on the stack.
    Large,
}

impl Strategy {
    /// The name counted in `solver.z3_strategy`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Stack => "stack",
            Strategy::Shared => "shared",
            Strategy::Fresh => "fresh",
            Strategy::Assumed => "assumed",
            Strategy::Large => "large",
        }
    }

    /// The strategy a query that timed out under this one is asked of,
    /// if any.
    fn other(self) -> Option<Strategy> {
        match self {
            Strategy::Stack | Strategy::Shared => Some(Strategy::Fresh),
            Strategy::Fresh | Strategy::Assumed => Some(Strategy::Stack),
            Strategy::Large => None,
        }
    }
}

/// What in an expression makes the stack slow, worst last (an expression's
/// is the worst of its own and its operands').
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Hardness {
    Linear,
    /// A quotient or remainder by a constant that is not a power of two:
    /// a divider circuit, as a hash table's `hash % size` makes.
    Dividing,
    /// A product by a large constant, as hash functions and pseudo-random
    /// generators multiply (FNV, MurmurHash, linear congruences).
    Mixing,
    /// A read through a write at a symbolic index.
    SymbolicWrites,
    /// A product, quotient or remainder of two unknowns.
    Nonlinear,
}

/// The Z3 layer that picks the stack or a fresh solver for each query.
pub struct Z3AutoLayer {
    timeout_ms: u64,
    stack: Z3StackLayer,
    /// The stack that names shared subexpressions, for hash-like mixing.
    shared: Z3StackLayer,
    /// What an expression holds that the stack is slow on, by expression
    /// (constraints recur from query to query).
    hard: FxHashMap<ExprRef, Hardness>,
    /// The circuit size of each constraint asked about (up to
    /// [`LARGE_CIRCUIT`]).
    bits: FxHashMap<ExprRef, u64>,
    /// Fresh solvers, on a thread the layer stops waiting for at the limit.
    fresh: WatchedSolver,
}

impl Z3AutoLayer {
    /// A layer giving each query at most `timeout_ms` milliseconds, shared
    /// by its attempts.
    pub fn new(timeout_ms: u64) -> Self {
        Z3AutoLayer {
            timeout_ms,
            stack: Z3StackLayer::new(timeout_ms, false),
            shared: Z3StackLayer::new(timeout_ms, true),
            hard: FxHashMap::default(),
            bits: FxHashMap::default(),
            fresh: WatchedSolver::default(),
        }
    }

    /// The solver `q` goes to first: fresh alone when a constraint or the
    /// condition is a large circuit; fresh when one
    /// multiplies, divides or takes the remainder of two
    /// non-constant terms; fresh under assumptions when one reads an array
    /// through a write at a symbolic index (and none is nonlinear); the
    /// stack that names shared subexpressions for a product by a hash
    /// multiplier; fresh for a quotient or remainder by a constant that is
    /// not a power of two; else the stack.
    pub fn strategy(&mut self, q: &Query<'_>) -> Strategy {
        if self.hard.len() > MEMO_LIMIT {
            self.hard.clear();
        }
        if self.bits.len() > MEMO_LIMIT {
            self.bits.clear();
        }
        let parts = || q.constraints.iter().chain(std::iter::once(&q.expr));
        let mut condition_bits = 0;
        for e in parts() {
            let bits = *self
                .bits
                .entry(e.clone())
                .or_insert_with(|| circuit_bits(e, LARGE_CIRCUIT));
            if bits >= LARGE_CIRCUIT {
                return Strategy::Large;
            }
            condition_bits = bits;
        }
        // A constraint is internalized once and stays on the stack for the
        // queries after; what a condition adds to them is new at each query.
        if condition_bits >= LARGE_CONDITION {
            let known = nodes_of(q.constraints);
            if circuit_bits_beyond(&q.expr, known, LARGE_CONDITION) >= LARGE_CONDITION {
                return Strategy::Large;
            }
        }
        let hardness = q
            .constraints
            .iter()
            .chain(std::iter::once(&q.expr))
            .map(|e| self.hardness(e))
            .max()
            .unwrap_or(Hardness::Linear);
        match hardness {
            Hardness::Linear => Strategy::Stack,
            Hardness::Dividing => Strategy::Fresh,
            Hardness::Mixing => Strategy::Shared,
            Hardness::SymbolicWrites => Strategy::Assumed,
            Hardness::Nonlinear => Strategy::Fresh,
        }
    }

    /// What `root` holds that the stack is slow on, walking each
    /// subexpression once (expressions are DAGs and may be deep: no
    /// recursion).
    fn hardness(&mut self, root: &ExprRef) -> Hardness {
        // A read's children include its writes' indices and values.
        post_order(root, &mut self.hard, |e, hard| {
            let mut h = own_hardness(e);
            e.for_each_child(|c| h = h.max(hard.get(c).copied().unwrap_or(Hardness::Linear)));
            h
        })
    }

    fn attempt(
        &mut self,
        strategy: Strategy,
        q: &Query<'_>,
        next: &mut Chain<'_>,
        budget: Limit,
    ) -> Result<Answer, SolverError> {
        *next.stats().z3_strategy.entry(strategy.name()).or_default() += 1;
        // A large circuit's time goes mostly to translating it (1 to 2.6 s
        // for a Csmith program's CRC tables), which Z3's units do not
        // count: a probe of one keeps to the wall clock, as a query does.
        let probe = budget.is_probe();
        let budget = match strategy {
            Strategy::Large => budget.wall_clock(),
            _ => budget,
        };
        let timeout = next.within_deadline(budget)?;
        let wants_core = next.wants_core();
        let (answer, core) = next.timed(probe, timeout, || match strategy {
            Strategy::Stack => Ok((self.stack.solve(q, timeout)?, None)),
            Strategy::Shared => Ok((self.shared.solve(q, timeout)?, None)),
            Strategy::Fresh | Strategy::Assumed | Strategy::Large => {
                let assume = strategy == Strategy::Assumed || wants_core;
                self.fresh.solve(q, timeout, assume)
            }
        })?;
        if let Some(core) = core.filter(|_| wants_core) {
            next.set_core(core);
        }
        Ok(answer)
    }
}

/// What `e` itself (not its operands) holds that the stack is slow on.
fn own_hardness(e: &ExprRef) -> Hardness {
    match e.kind() {
        ExprKind::Binary { .. } if is_nonlinear(e) => Hardness::Nonlinear,
        ExprKind::Binary {
            op: BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem,
            rhs,
            ..
        } if rhs.as_const().is_some_and(|c| !c.is_power_of_two()) => Hardness::Dividing,
        ExprKind::Binary {
            op: BinOp::Mul,
            lhs,
            rhs,
        } if is_mixing_factor(lhs) || is_mixing_factor(rhs) => Hardness::Mixing,
        // A read through a write at a symbolic index is a case split whose
        // conditions are unknown; reading a table at a symbolic index
        // through known writes is not, and the stack decides it faster.
        ExprKind::Read { updates, .. } if updates.has_symbolic_write() => Hardness::SymbolicWrites,
        _ => Hardness::Linear,
    }
}

/// The size of the circuit `root` bit-blasts to, counted once per
/// distinct subexpression as the bits of its operation (the square of
/// the width for products, quotients and remainders), up to `limit`:
/// the walk stops there, so that sizing a huge expression costs no more
/// than a small one.
fn circuit_bits(root: &ExprRef, limit: u64) -> u64 {
    circuit_bits_beyond(root, FxHashSet::default(), limit)
}

/// The distinct subexpressions of `roots`.
fn nodes_of(roots: &[ExprRef]) -> FxHashSet<*const ExprNode> {
    let mut seen = FxHashSet::default();
    let mut stack: Vec<&ExprRef> = roots.iter().collect();
    while let Some(e) = stack.pop() {
        if seen.insert(e.as_ptr()) {
            e.for_each_child(|c| {
                if !seen.contains(&c.as_ptr()) {
                    stack.push(c);
                }
            });
        }
    }
    seen
}

/// [`circuit_bits`] of what `root` adds to the subexpressions in `seen`.
fn circuit_bits_beyond(root: &ExprRef, mut seen: FxHashSet<*const ExprNode>, limit: u64) -> u64 {
    let mut stack = vec![root];
    let mut bits = 0u64;
    while let Some(e) = stack.pop() {
        if bits >= limit {
            break;
        }
        if !seen.insert(e.as_ptr()) {
            continue;
        }
        let width = u64::from(e.width());
        bits += match e.kind() {
            // A product by a constant is one adder per bit set in it.
            ExprKind::Binary {
                op: BinOp::Mul,
                lhs,
                rhs,
            } if lhs.is_const() || rhs.is_const() => {
                let c = lhs.as_const().or(rhs.as_const()).unwrap_or(0);
                width * u64::from(c.count_ones()).max(1)
            }
            ExprKind::Binary {
                op: BinOp::Mul | BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem,
                ..
            } => width * width,
            ExprKind::Binary { .. } | ExprKind::Not(_) | ExprKind::Select { .. } => width,
            ExprKind::Cmp { lhs, .. } => u64::from(lhs.width()),
            _ => 0,
        };
        e.for_each_child(|c| {
            if !seen.contains(&c.as_ptr()) {
                stack.push(c);
            }
        });
    }
    bits.min(limit)
}

/// Whether `e` is a constant factor of at least 2^16 that is not a power
/// of two (a shift), as hash multipliers are.
fn is_mixing_factor(e: &ExprRef) -> bool {
    e.as_const()
        .is_some_and(|c| c >= 1 << 16 && !c.is_power_of_two())
}

/// Whether `e` itself multiplies, divides or takes the remainder of two
/// non-constant terms.
pub fn is_nonlinear(e: &ExprRef) -> bool {
    match e.kind() {
        ExprKind::Binary { op, lhs, rhs } => {
            matches!(
                op,
                BinOp::Mul | BinOp::UDiv | BinOp::SDiv | BinOp::URem | BinOp::SRem
            ) && !lhs.is_const()
                && !rhs.is_const()
        }
        _ => false,
    }
}

impl Layer for Z3AutoLayer {
    fn name(&self) -> &'static str {
        "z3-auto"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        next.stats().z3_calls += 1;
        // Only the fresh solver gives unsat cores.
        let first = if next.wants_core() {
            Strategy::Fresh
        } else {
            self.strategy(q)
        };
        let Some(other) = first.other() else {
            let limit = next.limit(self.timeout_ms)?;
            return self.attempt(first, q, next, limit);
        };
        // The query's time is shared: a query neither strategy answers
        // costs the timeout once, not twice (a hash of symbolic input
        // printed digit by digit asks many such).
        let total = next.limit(self.timeout_ms)?;
        let start = Instant::now();
        match self.attempt(first, q, next, total.first_half()) {
            Err(SolverError::Timeout) => {
                *next.stats().z3_strategy.entry("retried").or_default() += 1;
                let spent = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
                self.attempt(other, q, next, total.rest(spent))
            }
            answer => answer,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::{build, input_byte as byte, Env, Gen};
    use crate::expr::{self, constant, Array, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    #[test]
    fn nonlinear_arithmetic_and_symbolic_writes_go_to_a_fresh_solver() {
        let (x, y) = (byte("auto_x"), byte("auto_y"));
        let mut layer = Z3AutoLayer::new(10_000);
        let linear = expr::ult(&expr::add(&x, &y), &constant(9, 8));
        let scaled = expr::ult(&expr::mul(&constant(3, 8), &x), &constant(9, 8));
        let product = expr::ult(&expr::mul(&x, &y), &constant(9, 8));
        let remainder = expr::eq(&expr::binary(BinOp::URem, &x, &y), &constant(1, 8));
        let table = UpdateList::new(Array::symbolic("auto_t", 4));
        let looked_up = expr::eq(&expr::read(&table, &expr::zext(&x, 64)), &constant(1, 8));
        let written = table.write(expr::zext(&y, 64), constant(1, 8));
        let indexed = expr::eq(&expr::read(&written, &constant(2, 64)), &constant(1, 8));
        let strategy = |layer: &mut Z3AutoLayer, cs: &[ExprRef], e: &ExprRef| {
            layer.strategy(&Query::new(cs, e.clone()))
        };
        assert_eq!(strategy(&mut layer, &[], &linear), Strategy::Stack);
        assert_eq!(strategy(&mut layer, &[], &scaled), Strategy::Stack);
        assert_eq!(strategy(&mut layer, &[], &product), Strategy::Fresh);
        assert_eq!(
            strategy(&mut layer, std::slice::from_ref(&remainder), &linear),
            Strategy::Fresh
        );
        assert_eq!(strategy(&mut layer, &[], &looked_up), Strategy::Stack);
        assert_eq!(
            strategy(&mut layer, std::slice::from_ref(&linear), &indexed),
            Strategy::Assumed
        );
        // A product by a hash multiplier goes to the stack that names shared
        // subexpressions; small factors and shifts stay on the plain stack.
        let wide = expr::zext(&x, 32);
        let hashed = expr::mul(&wide, &constant(0x85eb_ca6b, 32));
        let mixing = expr::eq(&expr::binary(BinOp::Xor, &hashed, &wide), &constant(3, 32));
        assert_eq!(strategy(&mut layer, &[], &mixing), Strategy::Shared);
        let tripled = expr::eq(&expr::mul(&wide, &constant(3, 32)), &constant(3, 32));
        assert_eq!(strategy(&mut layer, &[], &tripled), Strategy::Stack);
        let shifted = expr::eq(&expr::mul(&wide, &constant(1 << 20, 32)), &constant(0, 32));
        assert_eq!(strategy(&mut layer, &[], &shifted), Strategy::Stack);
        // A quotient or remainder by a constant that is not a power of two
        // is a divider circuit; by a power of two, a shift or a mask.
        let other = expr::zext(&y, 32);
        let by = |op, c| expr::eq(&expr::binary(op, &wide, &constant(c, 32)), &other);
        let bucket = by(BinOp::URem, 1021);
        assert_eq!(strategy(&mut layer, &[], &bucket), Strategy::Fresh);
        assert_eq!(
            strategy(&mut layer, &[], &by(BinOp::SDiv, 10)),
            Strategy::Fresh
        );
        assert_eq!(
            strategy(&mut layer, &[], &by(BinOp::UDiv, 8)),
            Strategy::Stack
        );
        // Hash mixing decides over a divider (a hash taken modulo 7).
        let mixed = expr::binary(BinOp::URem, &hashed, &constant(7, 32));
        let mixed_bucket = expr::eq(&mixed, &constant(3, 32));
        assert_eq!(strategy(&mut layer, &[], &mixed_bucket), Strategy::Shared);
        // Nonlinear arithmetic decides when both are there.
        assert_eq!(
            strategy(&mut layer, std::slice::from_ref(&indexed), &product),
            Strategy::Fresh
        );
        // Memoized answers are the same answers.
        assert_eq!(strategy(&mut layer, &[linear], &remainder), Strategy::Fresh);
    }

    #[test]
    fn a_large_circuit_goes_to_the_fresh_solver_alone() {
        let x = expr::zext(&byte("auto_big"), 64);
        // Rounds of sums and xors of rotations, each round's value used
        // twice: the DAG grows by a few nodes a round, the tree doubles.
        let mut v = x.clone();
        let rounds = |v: &mut ExprRef, n: usize| {
            for i in 0..n {
                let k = constant(0x9e37_79b9_7f4a_7c15 ^ i as u128, 64);
                let rot = expr::binary(
                    BinOp::Or,
                    &expr::binary(BinOp::LShr, v, &constant(14, 64)),
                    &expr::binary(BinOp::Shl, v, &constant(50, 64)),
                );
                *v = expr::add(&expr::binary(BinOp::Xor, &rot, v), &k);
            }
        };
        rounds(&mut v, 8);
        let small = expr::eq(&v, &constant(7, 64));
        let bits = circuit_bits(&small, u64::MAX);
        assert!((8 * 64..LARGE_CIRCUIT).contains(&bits), "{bits}");
        let mut layer = Z3AutoLayer::new(10_000);
        assert_eq!(
            layer.strategy(&Query::new(&[], small.clone())),
            Strategy::Stack
        );
        // A condition of medium size goes to the fresh solver, a
        // constraint of that size stays on the stack.
        let mut m = v.clone();
        rounds(&mut m, 40);
        let medium = expr::eq(&m, &constant(7, 64));
        let bits = circuit_bits(&medium, u64::MAX);
        assert!((LARGE_CONDITION..LARGE_CIRCUIT).contains(&bits), "{bits}");
        assert_eq!(
            layer.strategy(&Query::new(&[], medium.clone())),
            Strategy::Large
        );
        assert_eq!(
            layer.strategy(&Query::new(std::slice::from_ref(&medium), small.clone())),
            Strategy::Stack
        );
        // Nor does a condition that adds little to the constraints.
        let other = expr::eq(&m, &constant(8, 64));
        assert!(circuit_bits(&other, u64::MAX) >= LARGE_CONDITION);
        assert_eq!(
            layer.strategy(&Query::new(std::slice::from_ref(&medium), other)),
            Strategy::Stack
        );
        rounds(&mut v, 200);
        let large = expr::eq(&v, &constant(7, 64));
        assert_eq!(circuit_bits(&large, 1000), 1000);
        assert!(circuit_bits(&large, u64::MAX) >= LARGE_CIRCUIT);
        // In a constraint or as the condition.
        assert_eq!(
            layer.strategy(&Query::new(&[], large.clone())),
            Strategy::Large
        );
        assert_eq!(
            layer.strategy(&Query::new(std::slice::from_ref(&large), small)),
            Strategy::Large
        );
        assert_eq!(Strategy::Large.other(), None);
        // A product by a constant costs its set bits, not the square.
        let scaled = expr::mul(&x, &constant(10, 64));
        assert_eq!(circuit_bits(&scaled, u64::MAX), 2 * 64);
    }

    #[test]
    fn agrees_with_fresh_z3_along_random_paths() {
        let env = Env::new("auto");
        let mut g = Gen::new(11);
        // A few of these queries take Z3 seconds, past the default limit
        // on a loaded machine: both sides must answer, since the test is
        // about agreement, not time.
        let patient = 120_000;
        let mut auto = Solver::new(SolverConfig {
            chain: "z3-auto".parse().unwrap(),
            timeout_ms: patient,
            ..SolverConfig::default()
        });
        // Plain Z3 is the reference.
        let reference = SolverConfig {
            timeout_ms: patient,
            ..SolverConfig::default()
        };
        let mut fresh = Solver::with_layers(reference, vec![]);
        let mut path: Vec<ExprRef> = Vec::new();
        for step in 0..300 {
            let c = build(&g.gen(1, 2), &env);
            let a = auto.may_be_true(&path, &c).unwrap();
            assert_eq!(a, fresh.may_be_true(&path, &c).unwrap(), "step {step}");
            if step % 5 == 0 {
                assert!(auto.get_model(&path, &env.sym).unwrap().is_some());
            }
            if a && path.len() < 8 && step % 3 != 0 {
                path.push(c);
            } else if step % 4 == 0 {
                path.truncate(path.len() / 2);
            }
        }
        assert_eq!(auto.stats().bad_models, 0);
        let used = auto.stats().z3_strategy;
        assert!(used.get("stack").is_some_and(|&n| n > 0), "{used:?}");
    }
}
