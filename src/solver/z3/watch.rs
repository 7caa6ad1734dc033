//! Fresh Z3 solves on a thread of their own, which the caller stops
//! waiting for shortly after the time it gave them.
//!
//! Z3 4.8.12 looks at its timer between steps, and some of its steps on
//! large circuits are long: on a Csmith program's path conditions through
//! CRC tables read at symbolic indices, a fresh solver given one second
//! took up to 11 s, and a run given 60 s took 69. Here the query goes to a
//! helper thread with its own Z3 context (each thread has one); once the
//! time given and a grace for Z3's timer have passed, the caller takes the
//! query as timed out and goes on. The helper finishes the abandoned query
//! when Z3 next looks at its timer, then takes the next one: a query queued
//! behind an abandoned one waits out of its own time, so no caller waits
//! past its limit.

use super::solve;
use crate::expr::{ArrayRef, ExprRef};
use crate::solver::limit::Limit;
use crate::solver::query::{Answer, Query};
use crate::solver::SolverError;
use std::sync::mpsc::{channel, RecvTimeoutError, Sender};
use std::time::Duration;

/// What [`solve`] gives: the answer, and the unsat core when one was asked.
type Solved = Result<(Answer, Option<Vec<ExprRef>>), SolverError>;

/// Z3's recursion over a deep term runs on this thread's stack: as much as
/// a main thread has, and more (only the pages used are ever committed).
const STACK_BYTES: usize = 256 << 20;

/// A query's solve, owned by the closure, for the helper to run.
type Work = Box<dyn FnOnce() -> Solved + Send>;

/// One piece of work for the helper, with where to send its result.
struct Job {
    work: Work,
    reply: Sender<Solved>,
}

/// A helper thread for fresh solves, started at the first one.
#[derive(Default)]
pub(crate) struct WatchedSolver {
    jobs: Option<Sender<Job>>,
}

impl WatchedSolver {
    /// [`solve`] on the helper thread; a timeout once `limit`'s time and
    /// the grace have passed without an answer.
    pub(crate) fn solve(&mut self, q: &Query<'_>, limit: Limit, assume: bool) -> Solved {
        let constraints = q.constraints.to_vec();
        let expr = q.expr.clone();
        let model = q.model.map(<[ArrayRef]>::to_vec);
        self.run(
            limit.ms,
            Box::new(move || {
                let q = Query {
                    constraints: &constraints,
                    expr,
                    model: model.as_deref(),
                };
                solve(&q, limit, assume)
            }),
        )
    }

    /// Runs `work` on the helper and waits for it at most `timeout_ms` and
    /// the grace.
    fn run(&mut self, timeout_ms: u64, work: Work) -> Solved {
        let (reply, answer) = channel();
        let job = Job { work, reply };
        let sent = match &self.jobs {
            Some(jobs) => jobs.send(job).map_err(|e| e.0),
            None => Err(job),
        };
        if let Err(job) = sent {
            // Not started yet, or it ended (a panic in Z3): a new one.
            let jobs = spawn()
                .map_err(|e| SolverError::Unknown(format!("cannot start a thread for Z3: {e}")))?;
            jobs.send(job)
                .map_err(|_| SolverError::Unknown("Z3's thread ended at once".into()))?;
            self.jobs = Some(jobs);
        }
        match answer.recv_timeout(Duration::from_millis(timeout_ms) + grace(timeout_ms)) {
            Ok(solved) => solved,
            Err(RecvTimeoutError::Timeout) => Err(SolverError::Timeout),
            Err(RecvTimeoutError::Disconnected) => {
                self.jobs = None;
                Err(SolverError::Unknown(
                    "Z3's thread ended during the query".into(),
                ))
            }
        }
    }
}

/// How long past its limit Z3 may answer before the caller stops waiting:
/// its timer fires on time, and stopping takes it 5 to 15% more on queries
/// it does stop on.
fn grace(timeout_ms: u64) -> Duration {
    Duration::from_millis(50 + timeout_ms / 5)
}

/// Starts the helper: it answers jobs in order until its queue is dropped.
fn spawn() -> std::io::Result<Sender<Job>> {
    let (jobs, queue) = channel::<Job>();
    std::thread::Builder::new()
        .name("mnemo-z3".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            for job in queue {
                // The caller may have stopped waiting.
                let _ = job.reply.send((job.work)());
            }
        })?;
    Ok(jobs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::proptests::input_byte as byte;
    use crate::expr::{self, constant};
    use std::time::Instant;

    #[test]
    fn answers_come_back_from_the_helper() {
        let mut w = WatchedSolver::default();
        let x = byte("watch_x");
        let sat = expr::eq(&x, &constant(7, 8));
        let (answer, _) = w
            .solve(&Query::new(&[], sat.clone()), Limit::time(10_000), false)
            .unwrap();
        assert!(answer.is_sat());
        let c = [sat.clone()];
        let other = expr::eq(&x, &constant(8, 8));
        let (answer, _) = w
            .solve(&Query::new(&c, other.clone()), Limit::time(10_000), false)
            .unwrap();
        assert!(!answer.is_sat());
        // With cores, as a fresh solver gives them.
        let (answer, core) = w
            .solve(&Query::new(&c, other), Limit::time(10_000), true)
            .unwrap();
        assert!(!answer.is_sat());
        assert!(core.is_some());
    }

    #[test]
    fn work_past_its_time_is_given_up_on_time_and_the_next_waits_its_turn() {
        let mut w = WatchedSolver::default();
        let slow: Work = Box::new(|| {
            std::thread::sleep(Duration::from_millis(1500));
            Ok((Answer::Unsat, None))
        });
        let start = Instant::now();
        let r = w.run(100, slow);
        assert!(matches!(r, Err(SolverError::Timeout)), "{r:?}");
        let limit = Duration::from_millis(100) + grace(100);
        assert!(
            start.elapsed() < limit + Duration::from_millis(200),
            "{:?}",
            start.elapsed()
        );
        // Queued behind the abandoned work, a quick job that cannot wait
        // long enough times out too; one that can is answered.
        let quick = || -> Work { Box::new(|| Ok((Answer::Sat(None), None))) };
        assert!(matches!(w.run(100, quick()), Err(SolverError::Timeout)));
        let r = w.run(5_000, quick());
        assert!(matches!(r, Ok((Answer::Sat(None), None))), "{r:?}");
    }

    #[test]
    fn a_helper_that_panicked_is_replaced() {
        let mut w = WatchedSolver::default();
        let r = w.run(5_000, Box::new(|| panic!("as Z3 might")));
        assert!(matches!(r, Err(SolverError::Unknown(_))), "{r:?}");
        let r = w.run(5_000, Box::new(|| Ok((Answer::Unsat, None))));
        assert!(matches!(r, Ok((Answer::Unsat, None))), "{r:?}");
    }
}
