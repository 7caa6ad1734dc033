//! What flows through the solver chain: queries, answers, and the layer
//! interface every stage implements.

use super::{SolverError, SolverStats};
use crate::expr::{ArrayRef, Assignment, ExprRef};
use std::time::{Duration, Instant};

/// "Is `constraints ∧ expr` satisfiable?", optionally asking for a model.
///
/// The constraints are normally a path condition the engine has kept
/// feasible; layers may rely on that when no model is wanted (as KLEE does):
/// with a constant-true `expr` such a query is satisfiable without asking
/// anybody.
#[derive(Clone, Debug)]
pub struct Query<'a> {
    pub constraints: &'a [ExprRef],
    /// A width-1 expression.
    pub expr: ExprRef,
    /// When set, a satisfiable answer must carry an assignment giving bytes
    /// for each of these arrays and for every symbolic array the query
    /// reads (so that it can be checked by evaluation).
    pub model: Option<&'a [ArrayRef]>,
}

impl<'a> Query<'a> {
    /// A satisfiability query without a model.
    pub fn new(constraints: &'a [ExprRef], expr: ExprRef) -> Self {
        Query {
            constraints,
            expr,
            model: None,
        }
    }

    /// The same query, asking for the values of `arrays`.
    pub fn with_model(self, arrays: &'a [ArrayRef]) -> Self {
        Query {
            model: Some(arrays),
            ..self
        }
    }

    /// Whether a model is requested.
    pub fn wants_model(&self) -> bool {
        self.model.is_some()
    }
}

/// The answer to a [`Query`].
#[derive(Clone, Debug)]
pub enum Answer {
    Unsat,
    /// Satisfiable; the model is present when one was requested.
    Sat(Option<Assignment>),
}

impl Answer {
    /// Whether the query is satisfiable.
    pub fn is_sat(&self) -> bool {
        matches!(self, Answer::Sat(_))
    }
}

/// One stage of the solver pipeline: answers a query itself or passes it
/// (possibly rewritten) on to the rest of the chain.
pub trait Layer {
    /// A short name for diagnostics.
    fn name(&self) -> &'static str;

    /// Answers `query`, asking `next` for help if needed.
    fn check(&mut self, query: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError>;
}

/// The layers after the current one, plus the statistics they update.
pub struct Chain<'a> {
    layers: &'a mut [Box<dyn Layer>],
    stats: &'a mut SolverStats,
    /// Time spent in calls made through this chain, so that the layer that
    /// made them is charged only its own time.
    spent: Duration,
}

impl<'a> Chain<'a> {
    /// A chain running `layers` in order.
    pub fn new(layers: &'a mut [Box<dyn Layer>], stats: &'a mut SolverStats) -> Self {
        Chain {
            layers,
            stats,
            spent: Duration::ZERO,
        }
    }

    /// Passes `query` to the next layer.
    pub fn check(&mut self, query: &Query<'_>) -> Result<Answer, SolverError> {
        match self.layers.split_first_mut() {
            Some((first, rest)) => {
                *self.stats.reached.entry(first.name()).or_default() += 1;
                let start = Instant::now();
                let mut next = Chain::new(rest, self.stats);
                let answer = first.check(query, &mut next);
                let total = start.elapsed();
                let own = total.saturating_sub(next.spent);
                *self.stats.layer_time.entry(first.name()).or_default() += own;
                self.spent += total;
                answer
            }
            None => Err(SolverError::Unknown(
                "the solver chain ended without an answer".to_string(),
            )),
        }
    }

    /// The statistics of the solver running this chain.
    pub fn stats(&mut self) -> &mut SolverStats {
        self.stats
    }
}
