//! Narrowing: a wide term that the constraints keep below `2^k` is
//! written, everywhere else in the query, as the zero extension of its `k`
//! low bits, so that the builders do its arithmetic at `k` bits.
//!
//! A 64-bit `st_blksize` that KLEE's file model keeps below 2^16, fed to
//! gnulib's buffer-size LCM (`a * b / gcd(a, b)`), left Z3 64-bit
//! multipliers and dividers to bit-blast: a second a query on `cmp`. The
//! constraint that bounds the term knows better, but Z3 does not narrow
//! a divider for it.

use rustc_hash::FxHashMap;

use super::canon::post_order;
use super::interval::atom_of;
use super::query::{Answer, Chain, Layer, Query};
use super::rewrite::Rewriter;
use super::z3auto::is_nonlinear;
use super::SolverError;
use crate::expr::{extract, zext, ExprKind, ExprRef};
use crate::ir::BinOp;

/// Terms narrower than this are left as they are: a byte's arithmetic is
/// cheap already, and the extension would only add nodes.
const MIN_WIDTH: u32 = 16;

/// Expressions whose nonlinearity is remembered before the memo starts
/// afresh (memory bound).
const MEMO_LIMIT: usize = 1 << 18;

/// Rewrites each nonlinear query over the narrow forms of the terms its
/// constraints bound, keeping the bounding constraints as written.
///
/// Those constraints stay so that the query is the same question: they
/// make each term equal to its narrow form, and a model of the rewritten
/// query gives the dropped high bits the zeros the bound asks for.
///
/// Linear queries go on as written: their circuits grow with the width
/// only linearly, and the assertion stack that Z3 answers them on reuses
/// the constraints of the query before only when they come back the same
/// (rewritten under the bounds each query has, they did not, and a loop
/// summing bounded inputs ran 6% slower).
#[derive(Default)]
pub struct NarrowLayer {
    /// Whether an expression multiplies, divides or takes the remainder of
    /// two unknowns somewhere, by expression (constraints recur).
    nonlinear: FxHashMap<ExprRef, bool>,
}

impl NarrowLayer {
    /// The layer, with an empty memo.
    pub fn new() -> Self {
        Self::default()
    }

    fn is_nonlinear(&mut self, root: &ExprRef) -> bool {
        if self.nonlinear.len() > MEMO_LIMIT {
            self.nonlinear.clear();
        }
        post_order(root, &mut self.nonlinear, |e, memo| {
            let mut any = is_nonlinear(e);
            e.for_each_child(|c| any |= memo.get(c).copied().unwrap_or(false));
            any
        })
    }
}

impl Layer for NarrowLayer {
    fn name(&self) -> &'static str {
        "narrow"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        if !q
            .constraints
            .iter()
            .chain(std::iter::once(&q.expr))
            .any(|e| self.is_nonlinear(e))
        {
            return next.check(q);
        }
        let mut bits: FxHashMap<ExprRef, u32> = FxHashMap::default();
        let mut bounds = vec![false; q.constraints.len()];
        for (i, c) in q.constraints.iter().enumerate() {
            if let Some((term, k)) = bound(c) {
                bounds[i] = true;
                let least = bits.entry(term).or_insert(k);
                *least = (*least).min(k);
            }
        }
        if bits.is_empty() {
            return next.check(q);
        }
        let replacing: FxHashMap<ExprRef, ExprRef> = bits
            .into_iter()
            .map(|(term, k)| {
                let narrow = zext(&extract(&term, 0, k), term.width());
                (term, narrow)
            })
            .collect();
        let mut rewriter = Rewriter::replacing(&replacing);
        let constraints: Vec<ExprRef> = q
            .constraints
            .iter()
            .zip(&bounds)
            .map(|(c, &is_bound)| {
                if is_bound {
                    c.clone()
                } else {
                    rewriter.rewrite(c)
                }
            })
            .collect();
        let expr = rewriter.rewrite(&q.expr);
        next.check(&Query {
            constraints: &constraints,
            expr,
            model: q.model,
        })
    }
}

/// The term `c` keeps below `2^k`, and `k`, where `k` is less than the
/// term's width and more than 0: a comparison with a constant (`x <u
/// 4096`), a mask of the high bits that must be zero (`x & ~0xFFFF ==
/// 0`), or high bits that must be zero (`x >> 16 == 0`). A term equal to 0
/// is left to Z3: put in for a remainder in cmp's queries, the constant
/// doubled their time.
fn bound(c: &ExprRef) -> Option<(ExprRef, u32)> {
    let atom = atom_of(c)?;
    let w = atom.term.width();
    let is_zero = atom.set.ranges() == [(0, 0)];
    let (term, k) = match atom.term.kind() {
        ExprKind::Binary {
            op: BinOp::And,
            lhs,
            rhs,
        } if is_zero && lhs.is_const() => {
            // The mask's ones run from its top bit down to bit k.
            let ones = (lhs.as_const()? << (128 - w)).leading_ones();
            (rhs.clone(), w - ones)
        }
        // `x >> k == 0`, as the builders write it.
        ExprKind::Extract { expr, offset } if is_zero && offset + w == expr.width() => {
            (expr.clone(), *offset)
        }
        _ => {
            let (_, hi) = *atom.set.ranges().last()?;
            (atom.term.clone(), 128 - hi.leading_zeros())
        }
    };
    let w = term.width();
    let narrow_already = matches!(term.kind(), ExprKind::ZExt(_)) || term.is_const();
    (0 < k && k < w && w >= MIN_WIDTH && !narrow_already).then_some((term, k))
}

#[cfg(test)]
mod tests;
