//! Where work moves between workers: a worker that runs dry waits here, a
//! worker with pending states gives some when another waits, and the run
//! ends when every worker waits with nothing left to give, or at a limit.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

use crate::exec::{EarlyReason, State};

/// What the workers share under the lock.
struct Shared {
    /// States given away and not yet taken.
    given: Vec<State>,
    /// Workers waiting for a state.
    waiting: usize,
    /// Workers still in the run (a worker that panicked has left it).
    running: usize,
    /// The limit or signal that stopped the run, once one did.
    halted: Option<EarlyReason>,
    /// Every worker waited with nothing given: the exploration is over.
    done: bool,
    /// States that changed worker.
    moved: u64,
}

/// The meeting point of a parallel run's workers.
pub struct Pool {
    shared: Mutex<Shared>,
    wake: Condvar,
    /// Waiting workers that no given state waits for: read at every step of
    /// every worker, so kept outside the lock.
    hungry: AtomicUsize,
    halted: AtomicBool,
}

impl Pool {
    pub fn new(workers: usize) -> Pool {
        Pool {
            shared: Mutex::new(Shared {
                given: Vec::new(),
                waiting: 0,
                running: workers,
                halted: None,
                done: false,
                moved: 0,
            }),
            wake: Condvar::new(),
            hungry: AtomicUsize::new(0),
            halted: AtomicBool::new(false),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A worker that panicked holding the lock left the state whole (no
        // update here is half done): the others go on.
        self.shared.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set_hungry(&self, s: &Shared) {
        self.hungry
            .store(s.waiting.saturating_sub(s.given.len()), Ordering::Release);
    }

    /// How many waiting workers no given state is left for.
    pub fn hungry(&self) -> usize {
        self.hungry.load(Ordering::Acquire)
    }

    /// Whether a limit stopped the run.
    pub fn is_halted(&self) -> bool {
        self.halted.load(Ordering::Acquire)
    }

    /// The limit that stopped the run, if one did.
    pub fn halted(&self) -> Option<EarlyReason> {
        self.lock().halted
    }

    /// Stops every worker: each ends its pending states as `reason` says.
    /// The first reason given stays.
    pub fn halt(&self, reason: EarlyReason) {
        let mut s = self.lock();
        s.halted.get_or_insert(reason);
        self.halted.store(true, Ordering::Release);
        self.wake.notify_all();
    }

    /// A state for a worker that ran dry, waiting until one is given;
    /// `None` when the run is over (no worker has anything left) or halted.
    pub fn take(&self) -> Option<State> {
        let mut s = self.lock();
        loop {
            if s.halted.is_some() {
                return None;
            }
            if let Some(state) = s.given.pop() {
                self.set_hungry(&s);
                return Some(state);
            }
            if s.done {
                return None;
            }
            s.waiting += 1;
            if s.waiting == s.running {
                // Everyone waits and nothing is given: nothing is pending
                // anywhere.
                s.done = true;
                s.waiting -= 1;
                self.wake.notify_all();
                return None;
            }
            self.set_hungry(&s);
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
            s.waiting -= 1;
            self.set_hungry(&s);
        }
    }

    /// Gives `states` to the waiting workers; returns them when the run was
    /// halted meanwhile (their worker ends them).
    pub fn give(&self, states: Vec<State>) -> Vec<State> {
        let mut s = self.lock();
        if s.halted.is_some() {
            return states;
        }
        s.moved += states.len() as u64;
        s.given.extend(states);
        self.set_hungry(&s);
        self.wake.notify_all();
        Vec::new()
    }

    /// The states given and not taken, for a worker to end at a limit
    /// (nothing is given once the run is halted).
    pub fn drain(&self) -> Vec<State> {
        let mut s = self.lock();
        let out = std::mem::take(&mut s.given);
        self.set_hungry(&s);
        out
    }

    /// A worker leaves the run (its end, or a panic): if the others all
    /// wait, the run is over.
    pub fn leave(&self) {
        let mut s = self.lock();
        s.running = s.running.saturating_sub(1);
        if s.running == s.waiting && s.given.is_empty() {
            s.done = true;
        }
        self.wake.notify_all();
    }

    /// States that changed worker so far.
    pub fn moved(&self) -> u64 {
        self.lock().moved
    }
}
