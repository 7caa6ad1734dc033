//! What flows through the solver chain: queries, answers, and the layer
//! interface every stage implements.

use super::limit::Limit;
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
    /// Set while a layer above wants an unsat core of its query; Z3 layers
    /// only pay for computing one then.
    wants_core: bool,
    /// The unsat core of the last query this chain answered unsat, when a
    /// Z3 layer gave one.
    core: Option<Vec<ExprRef>>,
    /// When set, Z3 layers give a query no time past this instant (a run
    /// writing the tests of its pending paths after its time limit).
    deadline: Option<Instant>,
    /// The most time any Z3 call of this query may take (see
    /// [`Self::with_cap`]).
    cap_ms: Option<u64>,
    /// Whether a Z3 call's timeout stands, with no search after it (see
    /// [`Self::timeout_stands`]).
    timeouts_stand: bool,
}

/// Whether `deadline` has come, so that a timeout now says nothing about
/// the query: Z3's own timer may fire a little before the deadline it was
/// given.
pub(crate) fn at_deadline(deadline: Option<Instant>) -> bool {
    let slack = Duration::from_millis(100);
    deadline.is_some_and(|d| Instant::now() + slack >= d)
}

impl<'a> Chain<'a> {
    /// A chain running `layers` in order.
    pub fn new(layers: &'a mut [Box<dyn Layer>], stats: &'a mut SolverStats) -> Self {
        Chain {
            layers,
            stats,
            spent: Duration::ZERO,
            wants_core: false,
            core: None,
            deadline: None,
            cap_ms: None,
            timeouts_stand: false,
        }
    }

    /// The same chain, where a Z3 call's timeout is the answer (`true`)
    /// rather than a cue for a layer to decide the query another way.
    pub fn with_timeouts_standing(mut self, stand: bool) -> Self {
        self.timeouts_stand = stand;
        self
    }

    /// Whether a timeout now is the query's answer: at the deadline, or
    /// where the chain was made so ([`Self::with_timeouts_standing`]).
    pub fn timeout_stands(&self) -> bool {
        self.timeouts_stand || self.at_deadline()
    }

    /// The same chain, giving each Z3 call at most `cap_ms` milliseconds
    /// whatever a layer's own limit (`None`: its own limit).
    pub fn with_cap(mut self, cap_ms: Option<u64>) -> Self {
        self.cap_ms = cap_ms;
        self
    }

    /// The cap on each Z3 call's time, if any (see [`Self::with_cap`]).
    pub fn cap_ms(&self) -> Option<u64> {
        self.cap_ms
    }

    /// The same chain, giving Z3 no time past `deadline`.
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }

    /// What a Z3 call configured with `configured` milliseconds may spend:
    /// a probe's work under a cap, the time left before the deadline at
    /// most; a timeout once the deadline has passed.
    pub fn limit(&self, configured: u64) -> Result<Limit, SolverError> {
        let limit = match self.cap_ms {
            Some(cap) => Limit::probe(cap.min(configured), configured),
            None => Limit::time(configured),
        };
        self.within_deadline(limit)
    }

    /// `limit`, with no time past the deadline; a timeout once it has
    /// passed.
    pub fn within_deadline(&self, limit: Limit) -> Result<Limit, SolverError> {
        let Some(deadline) = self.deadline else {
            return Ok(limit);
        };
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_millis();
        if left == 0 {
            return Err(SolverError::Timeout);
        }
        Ok(limit.within(u64::try_from(left).unwrap_or(u64::MAX)))
    }

    /// Runs one Z3 call given `limit` and counts, in
    /// `solver.clock_timeouts`, a probe the wall clock stopped rather than
    /// its work running out: whether such a probe is answered depends on
    /// how busy the machine is. `probe` says whether the call is a
    /// probe's, whose work a large circuit leaves to the clock alone.
    pub fn timed<T>(
        &mut self,
        probe: bool,
        limit: Limit,
        call: impl FnOnce() -> Result<T, SolverError>,
    ) -> Result<T, SolverError> {
        let start = Instant::now();
        let result = call();
        if probe
            && matches!(result, Err(SolverError::Timeout))
            && start.elapsed() >= Duration::from_millis(limit.ms)
            && !self.at_deadline()
        {
            self.stats.clock_timeouts += 1;
        }
        result
    }

    /// Whether a timeout now is the run's deadline's doing rather than the
    /// query's.
    pub fn at_deadline(&self) -> bool {
        at_deadline(self.deadline)
    }

    /// Passes `query` to the next layer.
    pub fn check(&mut self, query: &Query<'_>) -> Result<Answer, SolverError> {
        self.core = None;
        match self.layers.split_first_mut() {
            Some((first, rest)) => {
                *self.stats.reached.entry(first.name()).or_default() += 1;
                let start = Instant::now();
                let mut next = Chain::new(rest, self.stats);
                next.wants_core = self.wants_core;
                next.deadline = self.deadline;
                next.cap_ms = self.cap_ms;
                next.timeouts_stand = self.timeouts_stand;
                let answer = first.check(query, &mut next);
                let total = start.elapsed();
                let own = total.saturating_sub(next.spent);
                // A core only ever comes with the unsat answer it explains.
                if matches!(answer, Ok(Answer::Unsat)) {
                    self.core = next.core.take();
                }
                *self.stats.layer_time.entry(first.name()).or_default() += own;
                self.spent += total;
                answer
            }
            None => Err(SolverError::Unknown(
                "the solver chain ended without an answer".to_string(),
            )),
        }
    }

    /// Passes `query` on as [`Self::check`] does, giving each Z3 call at
    /// most `cap_ms` milliseconds' work (less where the chain's own cap is
    /// less): a short try, whose timeout a layer takes as a cue to decide
    /// the query another way.
    pub fn check_capped(&mut self, query: &Query<'_>, cap_ms: u64) -> Result<Answer, SolverError> {
        let cap = self.cap_ms.map_or(cap_ms, |c| c.min(cap_ms));
        let before = self.cap_ms.replace(cap);
        let answer = self.check(query);
        self.cap_ms = before;
        answer
    }

    /// Passes `query` on as [`Self::check`] does, asking for an unsat core:
    /// with an unsat answer, the constraints (or condition) the layers
    /// below found unsatisfiable together, when a Z3 layer could say.
    ///
    /// A core is a set of expressions that is unsatisfiable by itself; a
    /// layer that rewrote the query on its way down leaves a core of its
    /// rewritten expressions, so a caller keeps only cores made of its own
    /// conjuncts.
    pub fn check_with_core(
        &mut self,
        query: &Query<'_>,
    ) -> Result<(Answer, Option<Vec<ExprRef>>), SolverError> {
        let before = std::mem::replace(&mut self.wants_core, true);
        let answer = self.check(query);
        self.wants_core = before;
        let core = self.core.take();
        answer.map(|a| (a, core))
    }

    /// Whether a layer above wants an unsat core (see
    /// [`Self::check_with_core`]).
    pub fn wants_core(&self) -> bool {
        self.wants_core
    }

    /// Gives the unsat core of the query being answered: the last layer
    /// (Z3) calls this on the chain it was handed before answering unsat.
    pub fn set_core(&mut self, core: Vec<ExprRef>) {
        self.core = Some(core);
    }

    /// The statistics of the solver running this chain.
    pub fn stats(&mut self) -> &mut SolverStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Z3 call that times out after `ms` milliseconds.
    fn timing_out(ms: u64) -> impl FnOnce() -> Result<(), SolverError> {
        move || {
            std::thread::sleep(Duration::from_millis(ms));
            Err(SolverError::Timeout)
        }
    }

    #[test]
    fn a_probe_the_clock_stopped_is_counted_and_one_out_of_work_is_not() {
        let mut stats = SolverStats::default();
        let mut layers: Vec<Box<dyn Layer>> = Vec::new();
        let mut chain = Chain::new(&mut layers, &mut stats);
        // Its work is a millisecond, its backstop four.
        let probe = Limit::probe(1, 10_000);
        let r = chain.timed(true, probe, timing_out(5));
        assert_eq!(r, Err(SolverError::Timeout));
        // Out of work well before its time.
        let roomy = Limit::probe(10_000, 100_000);
        let _ = chain.timed(true, roomy, timing_out(0));
        // A query's timeout is its time's; an answer is no timeout.
        let _ = chain.timed(false, probe, timing_out(5));
        let late = chain.timed(true, probe, || {
            std::thread::sleep(Duration::from_millis(5));
            Ok(())
        });
        assert_eq!(late, Ok(()));
        // At the run's deadline, the deadline decided.
        let mut chain = chain.with_deadline(Some(Instant::now()));
        let _ = chain.timed(true, probe, timing_out(5));
        drop(chain);
        assert_eq!(stats.clock_timeouts, 1);
    }
}
