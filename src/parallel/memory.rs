//! `--max-memory` with several workers. The limit and what it is measured
//! against (the states' objects, the process's resident memory) are the
//! process's, but each worker holds its own pending paths. A worker that
//! finds the run at its limit ends some of its own, as one worker would
//! (`search::shed`); one that frees too little waits for the others to
//! try before the run stops, since the memory may be theirs.

use std::sync::atomic::Ordering;

use super::worker::WorkerSlot;

/// What worker `w` does with the run at its memory limit: `shed` ends some
/// of its pending paths (returning whether the run is under its limit
/// again, the paths it ended and those it still holds), unless it already
/// tried and the run has not been under its limit since. Returns whether
/// the run must stop: every worker that holds paths has tried, and the
/// memory is still there.
pub(super) fn at_limit(
    w: usize,
    slots: &[WorkerSlot],
    shed: impl FnOnce() -> anyhow::Result<(bool, u64, u64)>,
) -> anyhow::Result<bool> {
    let slot = &slots[w];
    if !slot.shed_failed.load(Ordering::Relaxed) {
        let (under, ended, pending) = shed()?;
        slot.ended.fetch_add(ended, Ordering::Relaxed);
        slot.pending.store(pending, Ordering::Relaxed);
        if under {
            for s in slots {
                s.shed_failed.store(false, Ordering::Relaxed);
            }
            return Ok(false);
        }
        slot.shed_failed.store(true, Ordering::Relaxed);
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
