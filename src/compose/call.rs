//! Composition at call sites (the paper's Algorithms 2 and 3): the
//! callee's recorded paths are carried over to the call's arguments, the
//! solver says which of them the caller's path allows, the caller forks
//! once per such path and replays the callee along it with the solver off.

use std::collections::BTreeMap;
use std::sync::Arc;

use parking_lot::Mutex;

use super::summary::SharedSummary;
use super::Fallback;
use crate::exec::{CallComposer, Executor, State, Value};
use crate::expr::{self, ArrayRef};
use crate::ir::{FuncId, Reg, SiteId};

/// What the composer did, for `stats.json`.
#[derive(Clone, Debug, Default)]
pub struct CallCounts {
    /// Calls composed from a summary.
    pub composed: u64,
    /// Calls executed as usual, by reason (`Fallback::as_str`).
    pub executed: BTreeMap<&'static str, u64>,
    /// Recorded paths checked against a caller's path, and found feasible.
    pub paths_checked: u64,
    pub paths_feasible: u64,
}

/// The run's composer: the summaries by function, and why the others have
/// none.
pub struct Composer {
    summaries: Vec<Result<SharedSummary, Fallback>>,
    /// With a depth bound, a composed call would count the callee's
    /// choices as one: the run would cut other paths than a whole-program
    /// run. Calls are executed as usual then.
    depth_bounded: bool,
    counts: Mutex<CallCounts>,
}

impl Composer {
    /// A composer over these summaries (`summaries[f]` for function `f`).
    pub fn new(summaries: Vec<Result<SharedSummary, Fallback>>, depth_bounded: bool) -> Composer {
        Composer {
            summaries,
            depth_bounded,
            counts: Mutex::new(CallCounts::default()),
        }
    }

    /// The counters so far.
    pub fn counts(&self) -> CallCounts {
        self.counts.lock().clone()
    }

    fn executed(&self, why: Fallback) -> crate::exec::Exec<bool> {
        *self.counts.lock().executed.entry(why.as_str()).or_default() += 1;
        Ok(false)
    }
}

impl CallComposer for Composer {
    fn at_call(
        &self,
        ex: &mut Executor,
        state: &mut State,
        callee: FuncId,
        args: &[Value],
        dst: Option<Reg>,
        site: SiteId,
    ) -> crate::exec::Exec<bool> {
        // A call inside a replayed callee is part of that replay.
        if Executor::is_replaying(state) {
            return Ok(false);
        }
        if let Some((_, model)) = ex.forced_path(state) {
            ex.enter_replay(state, callee, args.to_vec(), dst, model)?;
            return Ok(true);
        }
        let summary = match self.summaries.get(callee.index()) {
            Some(Ok(s)) => s.clone(),
            Some(Err(why)) => return self.executed(*why),
            None => return self.executed(Fallback::NotReached),
        };
        if self.depth_bounded {
            return self.executed(Fallback::DepthBound);
        }
        if state.guide.is_some() {
            return self.executed(Fallback::Guided);
        }
        let conds = match super::heap::leaf_conditions(ex, state, &summary, args) {
            Ok(c) => c,
            Err(why) => return self.executed(why),
        };
        // The model must give every array the callee's choices may read.
        let mut arrays: Vec<ArrayRef> = state.symbolics.iter().map(|s| s.array.clone()).collect();
        expr::arrays_in_all(&state.constraints, &mut arrays);
        expr::arrays_in_all(&conds, &mut arrays);
        arrays.sort_by_key(|a| Arc::as_ptr(a) as usize);
        arrays.dedup_by(|a, b| Arc::ptr_eq(a, b));
        arrays.retain(|a| a.init.is_none());
        let mut models = Vec::with_capacity(conds.len());
        for c in &conds {
            if c.is_false() {
                models.push(None);
                continue;
            }
            let mut cs = (*state.constraints).clone();
            cs.push(c.clone());
            match ex.solver.get_model(&cs, &arrays) {
                Ok(m) => models.push(m.map(Arc::new)),
                Err(e) => return Err(ex.solver_error(state, e)),
            }
        }
        let feasible = models.iter().filter(|m| m.is_some()).count() as u64;
        if feasible == 0 {
            return self.executed(Fallback::NoFeasiblePath);
        }
        {
            let mut counts = self.counts.lock();
            counts.composed += 1;
            counts.paths_checked += conds.len() as u64;
            counts.paths_feasible += feasible;
        }
        let (_, model) = ex.fork_over_paths(state, site, &conds, models)?;
        ex.enter_replay(state, callee, args.to_vec(), dst, model)?;
        Ok(true)
    }
}
