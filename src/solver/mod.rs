//! The single entry point for every solver question (DESIGN.md, invariant
//! 5).
//!
//! A [`Solver`] runs each [`Query`] through a chain of [`Layer`]s, each a
//! small type in its own file, composed in one place ([`build_layers`]) from
//! the [`ChainSpec`] of `--solver-chain`. The constant layer always comes
//! first, a Z3 layer always last.
//!
//! Every model a layer returns is checked by evaluating the query under it
//! before anybody uses it; a model that fails the check is reported on
//! stderr and the query goes to Z3 directly.
//!
//! One `Solver` per worker thread: Z3 contexts are per thread.

mod arrays;
mod cache;
mod canon;
mod canon_cache;
mod cex;
mod chain;
mod classes;
mod constant;
pub mod corpus;
mod enumerate;
pub(crate) mod equiv;
mod facts;
mod implication;
pub mod interval;
mod limit;
mod model_values;
mod narrow;
mod nearby;
mod query;
mod reduce;
mod rewrite;
mod slice;
pub mod store;
mod verified;
mod z3;
mod z3auto;
mod z3stack;

pub use self::cache::CacheLayer;
pub use self::canon::{canonical_form, canonical_key, CanonLayer, Canonical, CanonicalArrays};
pub use self::canon_cache::{CanonCacheLayer, SharedCanonCache};
pub use self::cex::CexCache;
pub use self::chain::{ChainError, ChainSpec, LayerKind, DEFAULT_CHAIN};
pub use self::constant::ConstantLayer;
pub use self::enumerate::EnumerateLayer;
pub use self::equiv::EquivalenceStore;
pub use self::facts::FactsLayer;
pub use self::implication::{ImplicationEntry, ImplicationLayer};
pub use self::limit::Limit;
pub use self::narrow::NarrowLayer;
pub use self::query::{Answer, Chain, Layer, Query};
pub use self::reduce::ReductionLayer;
pub use self::slice::SliceLayer;
pub use self::z3::{path_condition as path_condition_smtlib, set_z3_seed, Z3Layer};
pub use self::z3auto::{is_nonlinear, Strategy, Z3AutoLayer};
pub use self::z3stack::Z3StackLayer;

use crate::expr::{arrays_in, bool_const, not, ArrayRef, Assignment, Evaluator, ExprRef};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use store::SharedStore;

/// Settings of the solver pipeline.
#[derive(Clone, Debug)]
pub struct SolverConfig {
    /// Time limit of one Z3 call, in milliseconds.
    pub timeout_ms: u64,
    /// The layers queries pass through.
    pub chain: ChainSpec,
    /// Where the store layers keep answers for later runs; `None` keeps
    /// them in memory for this solver only.
    pub store: Option<SharedStore>,
    /// Appends every query that reaches the chain to this corpus file
    /// (`--record-queries`, used to build the test corpus).
    pub record: Option<std::path::PathBuf>,
    /// The `canon-cache` layer's table, shared by the solvers made with
    /// this configuration (a run's workers); `None`: each its own.
    pub canon_cache: Option<SharedCanonCache>,
}

impl Default for SolverConfig {
    fn default() -> Self {
        SolverConfig {
            timeout_ms: 10_000,
            chain: ChainSpec::default(),
            store: None,
            record: None,
            canon_cache: None,
        }
    }
}

/// Counters of one solver; per-thread counters are summed with [`Self::add`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SolverStats {
    /// Queries entering the entry point.
    pub queries: u64,
    /// Queries that reached Z3.
    pub z3_calls: u64,
    /// Queries answered by the cache or by a recent model.
    pub cache_hits: u64,
    /// Models that failed the evaluation check (each one is a bug in a layer).
    pub bad_models: u64,
    /// Queries each layer answered by itself, by layer name.
    pub hits: BTreeMap<&'static str, u64>,
    /// Queries that reached each layer, by layer name (a layer that splits
    /// a query counts each part).
    pub reached: BTreeMap<&'static str, u64>,
    /// Z3 attempts by strategy of the `z3-auto` layer (`stack`, `fresh`),
    /// and `retried`: attempts that timed out and went to the other one.
    pub z3_strategy: BTreeMap<&'static str, u64>,
    /// Feasibility questions the path's own model answered (it satisfies
    /// the condition), never entering the entry point.
    pub path_model: u64,
    /// Questions the inputs next to the path's model answered by
    /// evaluation ([`Solver::nearby`]), never entering the entry point.
    pub nearby: u64,
    /// Alternatives of a fork given up because their query timed out
    /// while the path's model showed another one feasible.
    pub gave_up: u64,
    /// Z3 calls of probes that their wall-clock backstop (or, for a large
    /// circuit, the clock alone) stopped before their work ran out: the
    /// load, not the query, decided those.
    pub clock_timeouts: u64,
    /// Symbolic pointers found to have one address on their path: later
    /// accesses through them ask nothing.
    pub fixed_addresses: u64,
    /// Total time spent in the entry point.
    pub time: Duration,
    /// Time spent in each layer itself (not in the layers after it), by
    /// layer name.
    pub layer_time: BTreeMap<&'static str, Duration>,
}

impl SolverStats {
    /// Adds `other`'s counters to these.
    pub fn add(&mut self, other: &SolverStats) {
        self.queries += other.queries;
        self.z3_calls += other.z3_calls;
        self.cache_hits += other.cache_hits;
        self.bad_models += other.bad_models;
        self.path_model += other.path_model;
        self.nearby += other.nearby;
        self.gave_up += other.gave_up;
        self.clock_timeouts += other.clock_timeouts;
        self.fixed_addresses += other.fixed_addresses;
        self.time += other.time;
        for (layer, n) in &other.hits {
            *self.hits.entry(layer).or_default() += n;
        }
        for (layer, n) in &other.reached {
            *self.reached.entry(layer).or_default() += n;
        }
        for (strategy, n) in &other.z3_strategy {
            *self.z3_strategy.entry(strategy).or_default() += n;
        }
        for (layer, t) in &other.layer_time {
            *self.layer_time.entry(layer).or_default() += *t;
        }
    }

    /// Counts one query that `layer` answered without the layers after it.
    pub fn hit(&mut self, layer: &'static str) {
        *self.hits.entry(layer).or_default() += 1;
    }

    /// Same as [`Self::add`]: sums another worker's counters into these.
    pub fn merge(&mut self, other: &SolverStats) {
        self.add(other)
    }
}

/// Why the solver could not answer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    #[error("the solver timed out")]
    Timeout,
    #[error("the solver could not decide the query: {0}")]
    Unknown(String),
}

/// The one place chains are composed: the layers `config.chain` names, in
/// its order, after the constant layer.
pub fn build_layers(config: &SolverConfig) -> Vec<Box<dyn Layer>> {
    let mut layers: Vec<Box<dyn Layer>> = vec![Box::new(ConstantLayer)];
    if let Some(path) = &config.record {
        match corpus::Recorder::append(path) {
            Ok(r) => layers.push(Box::new(r)),
            Err(e) => eprintln!(
                "mnemo: warning: cannot record queries into {}: {e}",
                path.display()
            ),
        }
    }
    let backend = || -> Arc<dyn store::Backend> {
        match &config.store {
            Some(s) => s.0.clone(),
            None => Arc::new(store::MemoryStore::default()),
        }
    };
    for kind in config.chain.layers() {
        layers.push(match kind {
            LayerKind::Store => Box::new(EquivalenceStore::new(backend())),
            LayerKind::Implication => match &config.store {
                Some(s) => Box::new(ImplicationLayer::with_store(s.0.clone())),
                None => Box::new(ImplicationLayer::new()),
            },
            LayerKind::Slice => Box::new(SliceLayer::new()),
            LayerKind::Reduce => Box::new(ReductionLayer::new()),
            LayerKind::Canon => Box::new(CanonLayer::new()),
            LayerKind::CanonCache => match &config.canon_cache {
                Some(shared) => Box::new(CanonCacheLayer::sharing(shared)),
                None => Box::new(CanonCacheLayer::default()),
            },
            LayerKind::Enumerate => Box::new(EnumerateLayer::default()),
            LayerKind::Facts => Box::new(FactsLayer),
            LayerKind::Narrow => Box::new(NarrowLayer::new()),
            LayerKind::Cache => Box::new(CacheLayer::default()),
            LayerKind::Cex => Box::new(CexCache::default()),
            LayerKind::Z3 => Box::new(Z3Layer::new(config.timeout_ms)),
            LayerKind::Z3Stack => Box::new(Z3StackLayer::new(config.timeout_ms, false)),
            LayerKind::Z3StackOpt => Box::new(Z3StackLayer::new(config.timeout_ms, true)),
            LayerKind::Z3Auto => Box::new(Z3AutoLayer::new(config.timeout_ms)),
        });
    }
    layers
}

/// The solver entry point of one worker thread.
///
/// Queries assume their constraints are satisfiable (they are path
/// conditions the engine keeps feasible), as KLEE does; see [`Query`].
pub struct Solver {
    /// The chain; the last layer is always a Z3 layer.
    layers: Vec<Box<dyn Layer>>,
    /// A fresh Z3 layer, asked directly when a layer returns a bad model.
    fallback: Z3Layer,
    stats: SolverStats,
    /// No Z3 call runs past this instant (see [`Self::set_deadline`]).
    deadline: Option<Instant>,
    /// The arrays of each constraint, for splitting a path condition whose
    /// model is known ([`Self::model_where`]).
    arrays: arrays::ArraysOf,
    /// The time limit of a probe (see [`Self::probing`]), and the limit in
    /// force now.
    probe_ms: u64,
    cap_ms: Option<u64>,
    /// Set by [`Self::cap_every_call`].
    timeouts_stand: bool,
    /// The constraints answers' models were checked against, with the
    /// bytes they held under.
    verified: verified::Verified,
    /// Values under the path models and witnesses evaluated again and
    /// again ([`Self::value_under`], [`Self::nearby`]).
    model_values: model_values::ModelValues,
    /// What the path conditions' conjuncts allow their bytes, for the
    /// nearby search (each question along a path meets them again).
    conjuncts: enumerate::Conjuncts,
}

/// A probe gets this share of the configured time limit of a query.
const PROBE_SHARE: u64 = 10;

impl Solver {
    /// The pipeline `config.chain` describes.
    pub fn new(config: SolverConfig) -> Self {
        let layers = build_layers(&config);
        Self::of_layers(&config, layers)
    }

    fn of_layers(config: &SolverConfig, layers: Vec<Box<dyn Layer>>) -> Self {
        Solver {
            layers,
            fallback: Z3Layer::new(config.timeout_ms),
            stats: SolverStats::default(),
            deadline: None,
            arrays: arrays::ArraysOf::default(),
            probe_ms: (config.timeout_ms / PROBE_SHARE).max(1),
            cap_ms: None,
            timeouts_stand: false,
            verified: verified::Verified::default(),
            model_values: model_values::ModelValues::default(),
            conjuncts: enumerate::Conjuncts::default(),
        }
    }

    /// A pipeline running `layers` in order, then a fresh Z3 (for testing
    /// layers one at a time).
    pub fn with_layers(config: SolverConfig, mut layers: Vec<Box<dyn Layer>>) -> Self {
        layers.push(Box::new(Z3Layer::new(config.timeout_ms)));
        Self::of_layers(&config, layers)
    }

    /// The entry point: answers `q` through the chain, with every model
    /// checked.
    pub fn check(&mut self, q: &Query<'_>) -> Result<Answer, SolverError> {
        let start = Instant::now();
        self.stats.queries += 1;
        let result = self.check_checked(q);
        self.stats.time += start.elapsed();
        result
    }

    fn check_checked(&mut self, q: &Query<'_>) -> Result<Answer, SolverError> {
        let answer = Chain::new(&mut self.layers, &mut self.stats)
            .with_deadline(self.deadline)
            .with_cap(self.cap_ms)
            .with_timeouts_standing(self.timeouts_stand)
            .check(q)?;
        if answer_is_valid(q, &answer, &mut self.verified) {
            return Ok(answer);
        }
        self.stats.bad_models += 1;
        eprintln!(
            "mnemo: warning: a solver layer answered with a model that does not satisfy \
             the query; asking Z3 directly"
        );
        let answer = self.fallback.check(
            q,
            &mut Chain::new(&mut [], &mut self.stats).with_deadline(self.deadline),
        )?;
        if answer_is_valid(q, &answer, &mut self.verified) {
            Ok(answer)
        } else {
            self.stats.bad_models += 1;
            Err(SolverError::Unknown(
                "Z3's model does not satisfy the query (translation bug)".to_string(),
            ))
        }
    }

    /// Runs `f` with every Z3 call limited to a tenth of the configured
    /// time: for the questions a path may do without, such as whether a
    /// branch's other side is feasible when the path's model already shows
    /// one side is. A question that hard comes from a hash of symbolic
    /// input (a CRC printed digit by digit), where the full limit on each
    /// of them left no time for the rest of the program.
    pub fn probing<T>(&mut self, f: impl FnOnce(&mut Self) -> T) -> T {
        let probe = self.cap_ms.map_or(self.probe_ms, |c| c.min(self.probe_ms));
        let before = self.cap_ms.replace(probe);
        let result = f(self);
        self.cap_ms = before;
        result
    }

    /// Gives every Z3 call from now on, probe or not, at most `work_ms`
    /// of work as a probe's is counted (see [`Self::probing`]), so that
    /// whether a call is answered does not depend on the load, and makes
    /// a call's timeout the query's answer, with no search after it (which
    /// can take seconds): for work whose outcome must be the same wherever
    /// it runs, and may give up, such as a function's summary.
    pub fn cap_every_call(&mut self, work_ms: u64) {
        self.cap_ms = Some(work_ms.max(1));
        self.timeouts_stand = true;
    }

    /// Queries asked so far, and of them those that reached Z3 (the
    /// counters of [`Self::stats`], without copying the rest).
    pub fn calls(&self) -> (u64, u64) {
        (self.stats.queries, self.stats.z3_calls)
    }

    /// Gives every Z3 call from now on no time past `deadline` (`None`:
    /// only the configured time limit per query): a query that would run
    /// past it times out.
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Whether the deadline [`Self::set_deadline`] gave has come, so that a timeout now is its doing
    /// rather than the query's.
    pub fn at_deadline(&self) -> bool {
        query::at_deadline(self.deadline)
    }

    /// Whether `constraints ∧ e` can hold.
    pub fn may_be_true(
        &mut self,
        constraints: &[ExprRef],
        e: &ExprRef,
    ) -> Result<bool, SolverError> {
        Ok(self.check(&Query::new(constraints, e.clone()))?.is_sat())
    }

    /// Whether `e` holds under every solution of `constraints`.
    pub fn must_be_true(
        &mut self,
        constraints: &[ExprRef],
        e: &ExprRef,
    ) -> Result<bool, SolverError> {
        Ok(!self.may_be_true(constraints, &not(e))?)
    }

    /// A value `e` can take under (satisfiable) `constraints`.
    pub fn get_value(&mut self, constraints: &[ExprRef], e: &ExprRef) -> Result<u128, SolverError> {
        if let Some(v) = e.as_const() {
            self.stats.queries += 1;
            return Ok(v);
        }
        let mut arrays = Vec::new();
        arrays_in(e, &mut arrays);
        let query = Query::new(constraints, bool_const(true)).with_model(&arrays);
        match self.check(&query)? {
            Answer::Sat(Some(model)) => Ok(Evaluator::new(&model).eval(e)),
            Answer::Sat(None) => Err(SolverError::Unknown(
                "get_value: no model was returned".to_string(),
            )),
            Answer::Unsat => Err(SolverError::Unknown(
                "get_value: the constraints are unsatisfiable".to_string(),
            )),
        }
    }

    /// A solution of `constraints` giving the bytes of every array in
    /// `arrays`, or `None` if there is none.
    pub fn get_model(
        &mut self,
        constraints: &[ExprRef],
        arrays: &[ArrayRef],
    ) -> Result<Option<Assignment>, SolverError> {
        self.model_where(constraints, &bool_const(true), arrays, None)
    }

    /// A model of `constraints` (satisfiable) together with `e`, giving
    /// `arrays`, or `None` when `e` cannot hold: one question where
    /// `may_be_true` and then `get_model` would be two. `known`, when
    /// given, satisfies `constraints`: the factors `e` does not touch keep
    /// its bytes, and `arrays` go unused (the model covers what `known`
    /// covers, and `e`'s factor).
    pub fn model_where(
        &mut self,
        constraints: &[ExprRef],
        e: &ExprRef,
        arrays: &[ArrayRef],
        known: Option<&Assignment>,
    ) -> Result<Option<Assignment>, SolverError> {
        if let Some(known) = known {
            return self.extend_model(constraints, e, known);
        }
        let query = Query::new(constraints, e.clone()).with_model(arrays);
        match self.check(&query)? {
            Answer::Sat(Some(model)) => Ok(Some(model)),
            Answer::Sat(None) => Err(SolverError::Unknown(
                "get_model: no model was returned".to_string(),
            )),
            Answer::Unsat => Ok(None),
        }
    }

    /// `known` (a model of `constraints`) with the bytes of `e`'s factor
    /// changed to make `e` hold, or `None` when it cannot: only that factor
    /// is asked, whatever the chain (bytes `known` lacks read as 0).
    fn extend_model(
        &mut self,
        constraints: &[ExprRef],
        e: &ExprRef,
        known: &Assignment,
    ) -> Result<Option<Assignment>, SolverError> {
        let factor = slice::Factored::new(&mut self.arrays, constraints, e, true);
        let query = Query::new(&factor.own, e.clone()).with_model(&factor.own_arrays);
        match self.check(&query)? {
            Answer::Sat(Some(own)) => {
                let mut model = known.with_room(factor.own_arrays.len());
                model.set_from(&own, &factor.own_arrays);
                Ok(Some(model))
            }
            Answer::Sat(None) => Err(SolverError::Unknown(
                "extend_model: no model was returned".to_string(),
            )),
            Answer::Unsat => Ok(None),
        }
    }

    /// Whether `constraints ∧ e` can hold, where the inputs next to
    /// `known` (a model of `constraints`, such as the path's) tell by
    /// evaluation alone: a model one byte `e` reads away shows it can; it
    /// is decided where the constraints fix each byte `e` reads, or where
    /// those bytes are few enough to try all their values. `None`: ask the
    /// solver. For a question that may be hard for Z3, such as whether a
    /// hashed index can take another value.
    pub fn nearby(
        &mut self,
        constraints: &[ExprRef],
        e: &ExprRef,
        known: &Arc<Assignment>,
    ) -> Option<bool> {
        // A witness of the question before, on this path or one the search
        // interleaves with it, mostly answers the next one: checked
        // against every constraint, it is a model.
        let answer = if self.model_values.witness(constraints, e, known) {
            Some(true)
        } else {
            match nearby::witness_nearby(
                &mut self.arrays,
                &mut self.conjuncts,
                constraints,
                e,
                known,
            ) {
                // Checked against every constraint, in case `known` is not
                // their model after all.
                nearby::Nearby::Witness(model, values) => self
                    .model_values
                    .add_witness(model, values, constraints, e, known)
                    .then_some(true),
                nearby::Nearby::Decided(holds) => Some(holds),
                nearby::Nearby::Unknown => None,
            }
        };
        if answer.is_some() {
            self.stats.nearby += 1;
        }
        answer
    }

    /// The value of `e` under `model`, a model evaluated before: the
    /// values of the subexpressions found under it then are reused (a
    /// hashed index, one step longer at each lookup, costs its new step).
    pub fn value_under(&mut self, model: &Arc<Assignment>, e: &ExprRef) -> u128 {
        self.model_values.value(model, e)
    }

    /// Counts a question the path's own model answered before it reached
    /// the entry point.
    pub fn answered_by_path_model(&mut self) {
        self.stats.path_model += 1;
    }

    /// Counts `n` alternatives of a fork given up after a timeout.
    pub fn gave_up_after_timeout(&mut self, n: usize) {
        self.stats.gave_up += n as u64;
    }

    /// Counts a symbolic pointer found to have one address on its path.
    pub fn fixed_address(&mut self) {
        self.stats.fixed_addresses += 1;
    }

    /// Adds counters of another solver (another worker's) to these.
    pub fn add_stats(&mut self, other: &SolverStats) {
        self.stats.add(other);
    }

    /// The counters so far.
    pub fn stats(&self) -> SolverStats {
        self.stats.clone()
    }
}

/// Whether `answer` is acceptable for `q`: a requested model must exist,
/// cover the requested arrays and make every constraint and the condition
/// evaluate to true.
fn answer_is_valid(q: &Query<'_>, answer: &Answer, verified: &mut verified::Verified) -> bool {
    let model = match (answer, q.model) {
        (Answer::Unsat, _) | (Answer::Sat(None), None) => return true,
        (Answer::Sat(None), Some(_)) => return false,
        (Answer::Sat(Some(model)), _) => model,
    };
    if let Some(wanted) = q.model {
        if !wanted.iter().all(|a| model.contains(a)) {
            return false;
        }
    }
    let all = q.constraints.iter().chain(std::iter::once(&q.expr));
    verified.all_hold(model, all, q.constraints.len() + 1)
}

#[cfg(test)]
mod tests;
