//! Room for the run under `--max-memory`: when the memory the run holds
//! reaches the limit, pending paths are ended early (`max-memory`, each
//! with its test, as KLEE kills states past its cap) until the run is well
//! under it again, and exploration goes on with the rest. Only when no
//! path is left to end, and letting go of the cut choice points kept for
//! later does not bring the memory down either (the states are not what
//! holds it), does the limit stop the run.

use super::ending::{end_pending, Ending};
use super::{PathObserver, Searcher, States};
use crate::exec::{give_back_freed, Executor};
use crate::stop::StopRequest;

/// The share of the limit the run is brought back under, so that it does
/// not reach the limit again at the next fork.
const LOW_WATER: f64 = 0.8;

/// What a round of [`shed_for_memory`] came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shed {
    /// The run is under its limit again.
    Under,
    /// The run is still at its limit, and paths are left for the next
    /// round to end.
    Going,
    /// The run is at its limit with no path left to end (one at most)
    /// and no cut point kept: its states are not what holds the memory.
    Exhausted,
}

/// Ends pending paths until the run's memory is under [`LOW_WATER`] of the
/// limit: each time a quarter of those left, the ones longest without new
/// coverage first (the ones a coverage-guided search would take last).
/// Stops after half of the paths pending at the start, or when one is
/// left.
///
/// Paths share their memory objects copy-on-write, so ending one frees
/// only what it alone holds: on cat at 1000 MiB, ending 944 of 1,632 paths
/// freed no object at all. The cap of half a round leaves exploration time
/// between rounds rather than ending every path at once. A round that
/// reaches its cap with the run still at its limit leaves the rest to the
/// next check rather than stopping the run: with two workers, each ending
/// half of its paths while the other forked could both find the run still
/// at its limit, and a run that way stopped in under 3 s of its 6.
pub(crate) fn shed_for_memory(
    executor: &mut Executor,
    searcher: &mut dyn Searcher,
    states: &mut States,
    ending: &mut Ending<'_>,
    observer: &mut dyn PathObserver,
    stop: &StopRequest,
) -> anyhow::Result<Shed> {
    let at_start = states.len();
    let mut shed = 0;
    loop {
        let Some((used, limit)) = executor.memory_in_use() else {
            return Ok(Shed::Under);
        };
        if (used as f64) < limit as f64 * LOW_WATER {
            return Ok(Shed::Under);
        }
        if states.len() > 1 && shed * 2 >= at_start {
            return Ok(if used < limit {
                Shed::Under
            } else {
                Shed::Going
            });
        }
        if states.len() <= 1 {
            // The cut points kept to take up later go before the run
            // stops.
            if executor.drop_kept_cuts() > 0 {
                give_back_freed();
                continue;
            }
            return Ok(if used < limit {
                Shed::Under
            } else {
                Shed::Exhausted
            });
        }
        let n = states.len().div_ceil(4).min(states.len() - 1);
        let mut by_staleness: Vec<(u64, u64)> =
            states.values().map(|s| (s.since_new_cover, s.id)).collect();
        by_staleness.sort_unstable_by(|a, b| b.cmp(a));
        let mut victims = States::new();
        for &(_, id) in &by_staleness[..n] {
            if let Some(state) = states.remove(&id) {
                searcher.remove(id);
                victims.insert(id, state);
            }
        }
        shed += victims.len();
        end_pending(executor, victims, ending, observer, stop)?;
        give_back_freed();
    }
}
