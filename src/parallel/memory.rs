//! `--max-memory` with several workers. The limit and what it is measured
//! against (the states' objects, the process's resident memory) are the
//! process's, but each worker holds its own pending paths. A worker that
//! finds the run at its limit ends some of its own, as one worker would
//! (`search::shed`); one left with no path to end and the run still at
//! its limit waits for the others to end theirs before the run stops,
//! since the memory may be theirs.

use std::sync::atomic::Ordering;

use super::worker::WorkerSlot;
use crate::search::shed::Shed;

/// What worker `w` does with the run at its memory limit: `shed` ends some
/// of its pending paths (returning what that came to, the paths it ended
/// and those it still holds), unless it has none left to end and the run
/// has not been under its limit since. Returns whether the run must stop:
/// every worker that holds paths has ended all it could, and the memory
/// is still there.
pub(super) fn at_limit(
    w: usize,
    slots: &[WorkerSlot],
    shed: impl FnOnce() -> anyhow::Result<(Shed, u64, u64)>,
) -> anyhow::Result<bool> {
    let slot = &slots[w];
    if !slot.shed_failed.load(Ordering::Relaxed) {
        let (shed, ended, pending) = shed()?;
        slot.ended.fetch_add(ended, Ordering::Relaxed);
        slot.pending.store(pending, Ordering::Relaxed);
        match shed {
            Shed::Under => {
                for s in slots {
                    s.shed_failed.store(false, Ordering::Relaxed);
                }
                return Ok(false);
            }
            Shed::Going => return Ok(false),
            Shed::Exhausted => slot.shed_failed.store(true, Ordering::Relaxed),
        }
    }
    // A worker waiting for work holds no paths (its count is 0 then).
    Ok(slots
        .iter()
        .all(|s| s.shed_failed.load(Ordering::Relaxed) || s.pending.load(Ordering::Relaxed) == 0))
}

/// Notes that the run is under its memory limit as worker `w` sees it: a
/// try that freed too little no longer counts toward stopping the run.
pub(super) fn under_limit(slot: &WorkerSlot) {
    if slot.shed_failed.load(Ordering::Relaxed) {
        slot.shed_failed.store(false, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slots(pending: &[u64]) -> Vec<WorkerSlot> {
        pending
            .iter()
            .map(|&p| {
                let s = WorkerSlot::default();
                s.pending.store(p, Ordering::Relaxed);
                s
            })
            .collect()
    }

    /// A worker that ended half of its paths with the run still at its
    /// limit has more to end: the run goes on, whatever the others did.
    #[test]
    fn a_worker_with_paths_left_to_end_does_not_stop_the_run() {
        let s = slots(&[40, 40]);
        assert!(!at_limit(0, &s, || Ok((Shed::Going, 20, 20))).unwrap());
        assert!(!at_limit(1, &s, || Ok((Shed::Going, 20, 20))).unwrap());
        assert!(!at_limit(0, &s, || Ok((Shed::Exhausted, 19, 1))).unwrap());
        // The other still holds paths it has not tried to end.
        assert!(!at_limit(0, &s, || panic!("tried again")).unwrap());
        assert!(at_limit(1, &s, || Ok((Shed::Exhausted, 19, 1))).unwrap());
    }

    /// The run under its limit again: every worker's failed try is
    /// forgotten, and a worker without paths never holds the run up.
    #[test]
    fn under_the_limit_again_every_worker_may_try_again() {
        let s = slots(&[10, 10, 0]);
        assert!(!at_limit(0, &s, || Ok((Shed::Exhausted, 9, 1))).unwrap());
        assert!(!at_limit(1, &s, || Ok((Shed::Under, 5, 5))).unwrap());
        assert!(!s[0].shed_failed.load(Ordering::Relaxed));
        assert!(!at_limit(0, &s, || Ok((Shed::Exhausted, 0, 1))).unwrap());
        assert!(at_limit(1, &s, || Ok((Shed::Exhausted, 4, 1))).unwrap());
    }
}
