//! Where work moves between workers: a worker that runs dry waits here, a
//! worker with pending states gives some when another waits, and the run
//! ends when every worker waits with nothing left to give, or at a limit.
//! Workers also meet here for a checkpoint: each marks its pending paths,
//! and the last to come saves them with everything found so far.

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
    /// The checkpoint the workers are meeting for, if one was asked.
    round: Option<Round>,
    /// Checkpoint rounds ended (saved, or given up at a halt).
    rounds: u64,
    /// Workers running when the run was halted, and those of them that
    /// have marked their pending paths since (the last saves).
    running_at_halt: usize,
    marked_at_halt: usize,
}

impl Shared {
    /// Whether every worker has arrived for the open round or waits for
    /// work, and none saves it yet.
    fn round_met(&self) -> bool {
        self.round
            .as_ref()
            .is_some_and(|r| !r.saving && r.arrived + self.waiting >= self.running)
    }
}

/// A checkpoint being taken: the workers that have marked their pending
/// paths in the trie, and whether one of them is saving it. The others
/// wait, so that no path ends, forks or moves between the first mark and
/// the save, and given states are not taken meanwhile.
#[derive(Default)]
struct Round {
    arrived: usize,
    saving: bool,
}

/// What a worker does after marking its pending paths for a checkpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Every other worker has marked its paths or waits with none: save
    /// the checkpoint (with the given states, [`Pool::given_for_checkpoint`]),
    /// then [`Pool::end_round`].
    Save,
    /// The checkpoint was saved by another worker, or given up (the run
    /// was halted): go on.
    Resume,
}

/// The meeting point of a parallel run's workers.
pub struct Pool {
    shared: Mutex<Shared>,
    wake: Condvar,
    /// Waiting workers that no given state waits for: read at every step of
    /// every worker, so kept outside the lock.
    hungry: AtomicUsize,
    halted: AtomicBool,
    /// A checkpoint round is open: read at every step of every worker.
    round_open: AtomicBool,
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
                round: None,
                rounds: 0,
                running_at_halt: 0,
                marked_at_halt: 0,
            }),
            wake: Condvar::new(),
            hungry: AtomicUsize::new(0),
            halted: AtomicBool::new(false),
            round_open: AtomicBool::new(false),
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
        if s.halted.is_none() {
            s.halted = Some(reason);
            // Each of them ends its pending paths; one that leaves first
            // still counts, so that the last to mark them is known.
            s.running_at_halt = s.running;
        }
        self.halted.store(true, Ordering::Release);
        // A checkpoint round open now is given up: the workers end their
        // pending paths, and the run's end saves them.
        self.close_round(&mut s);
        self.wake.notify_all();
    }

    /// A state for a worker that ran dry, waiting until one is given;
    /// `None` when the run is over (no worker has anything left) or halted.
    pub fn take(&self) -> Option<State> {
        let mut s = self.lock();
        loop {
            if s.halted.is_some() || s.done {
                return None;
            }
            // During a checkpoint the given states are the saver's to mark.
            if s.round.is_none() {
                if let Some(state) = s.given.pop() {
                    self.set_hungry(&s);
                    return Some(state);
                }
            }
            s.waiting += 1;
            if s.round.is_none() && s.waiting == s.running {
                // Everyone waits and nothing is given: nothing is pending
                // anywhere.
                s.done = true;
                s.waiting -= 1;
                self.wake.notify_all();
                return None;
            }
            if s.round_met() {
                // The workers that marked their paths were waiting for
                // this one alone.
                self.wake.notify_all();
            }
            self.set_hungry(&s);
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
            s.waiting -= 1;
            self.set_hungry(&s);
        }
    }

    /// Whether a checkpoint round is open: the worker is to mark its
    /// pending paths and [`Pool::arrive`].
    pub fn round_open(&self) -> bool {
        self.round_open.load(Ordering::Acquire)
    }

    /// Opens a checkpoint round, unless one is open or the run is over.
    pub fn open_round(&self) {
        let mut s = self.lock();
        if s.round.is_some() || s.halted.is_some() || s.done {
            return;
        }
        s.round = Some(Round::default());
        self.round_open.store(true, Ordering::Release);
        self.wake.notify_all();
    }

    /// A worker has marked its pending paths for the open round: waits
    /// until the checkpoint is saved, unless it is the one to save it.
    pub fn arrive(&self) -> Turn {
        let mut s = self.lock();
        let Some(round) = s.round.as_mut() else {
            return Turn::Resume;
        };
        round.arrived += 1;
        let this = s.rounds;
        loop {
            if s.rounds != this {
                return Turn::Resume;
            }
            if s.round_met() {
                if let Some(round) = s.round.as_mut() {
                    round.saving = true;
                }
                return Turn::Save;
            }
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// A worker has marked its pending paths after the halt: whether it
    /// is the last of the workers running at the halt to do so, the one to
    /// save the checkpoint of the halt. (The others go on ending their paths:
    /// none forks or moves after the halt, so a path ended before the save
    /// is saved ended, one after it pending.)
    pub fn marked_at_halt(&self) -> bool {
        let mut s = self.lock();
        s.marked_at_halt += 1;
        s.marked_at_halt == s.running_at_halt
    }

    /// The states given and not taken, for the saver of a checkpoint to
    /// mark; they are given back with [`Pool::end_round`].
    pub fn given_for_checkpoint(&self) -> Vec<State> {
        std::mem::take(&mut self.lock().given)
    }

    /// The checkpoint is saved: gives back the states `given` and lets
    /// every worker go on.
    pub fn end_round(&self, given: Vec<State>) {
        let mut s = self.lock();
        s.given.extend(given);
        self.close_round(&mut s);
        self.set_hungry(&s);
        self.wake.notify_all();
    }

    fn close_round(&self, s: &mut Shared) {
        if s.round.take().is_some() {
            s.rounds += 1;
        }
        self.round_open.store(false, Ordering::Release);
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
            // No worker holds a path: nothing is left to save.
            self.close_round(&mut s);
        }
        self.wake.notify_all();
    }

    /// States that changed worker so far.
    pub fn moved(&self) -> u64 {
        self.lock().moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{ExecConfig, Executor};
    use crate::ir::testutil::load_ll;
    use std::sync::Arc;
    use std::time::Duration;

    fn state() -> State {
        let module = load_ll("define i32 @main() {\n  ret i32 0\n}\n");
        let mut executor = Executor::new(Arc::new(module), ExecConfig::default());
        executor.initial_state().expect("initial state")
    }

    #[test]
    fn one_worker_saves_a_round_once_every_other_has_arrived_or_waits() {
        let pool = Pool::new(3);
        let turns = std::thread::scope(|scope| {
            // The third worker has run dry.
            let waiting = scope.spawn(|| pool.take().is_none());
            pool.open_round();
            assert!(pool.round_open());
            // The saver ends the round; the other waits until then.
            let take_part = || {
                let turn = pool.arrive();
                if turn == Turn::Save {
                    pool.end_round(Vec::new());
                }
                turn
            };
            let other = scope.spawn(take_part);
            let mine = take_part();
            let theirs = other.join().expect("arrives");
            assert!(!pool.round_open());
            pool.halt(EarlyReason::Interrupted);
            assert!(waiting.join().expect("waits"));
            [mine, theirs]
        });
        assert_eq!(turns.iter().filter(|&&t| t == Turn::Save).count(), 1);
    }

    #[test]
    fn a_halt_or_a_worker_leaving_ends_the_wait_of_those_arrived() {
        let pool = Pool::new(2);
        pool.open_round();
        std::thread::scope(|scope| {
            let arrived = scope.spawn(|| pool.arrive());
            pool.halt(EarlyReason::MaxTime);
            assert_eq!(arrived.join().expect("arrives"), Turn::Resume);
        });
        // No round opens once the run is halted.
        pool.open_round();
        assert!(!pool.round_open());

        let pool = Pool::new(2);
        pool.open_round();
        std::thread::scope(|scope| {
            let arrived = scope.spawn(|| pool.arrive());
            pool.leave();
            assert_eq!(arrived.join().expect("arrives"), Turn::Save);
        });
    }

    #[test]
    fn a_state_given_is_not_taken_while_a_round_is_open() {
        let pool = Pool::new(2);
        pool.open_round();
        assert!(pool.give(vec![state()]).is_empty());
        let taken = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let taker = scope.spawn(|| {
                let s = pool.take();
                taken.store(true, Ordering::SeqCst);
                s
            });
            std::thread::sleep(Duration::from_millis(50));
            assert!(!taken.load(Ordering::SeqCst));
            // The saver marks the given state and gives it back.
            assert_eq!(pool.arrive(), Turn::Save);
            let given = pool.given_for_checkpoint();
            assert_eq!(given.len(), 1);
            pool.end_round(given);
            assert!(taker.join().expect("takes").is_some());
        });
    }

    #[test]
    fn the_last_worker_to_mark_its_paths_at_the_halt_saves() {
        let pool = Pool::new(3);
        pool.halt(EarlyReason::Terminated);
        pool.halt(EarlyReason::MaxTime);
        assert_eq!(pool.halted(), Some(EarlyReason::Terminated));
        assert!(!pool.marked_at_halt());
        // One that has ended its paths leaves before the others mark.
        pool.leave();
        assert!(!pool.marked_at_halt());
        assert!(pool.marked_at_halt());
    }
}
