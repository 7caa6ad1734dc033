//! The exploration loop: pick a state, run it to its next fork or end,
//! report every ended path, and stop cleanly at a limit.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::{Searcher, States};
use crate::exec::{EarlyReason, ErrorKind, Executor, PathEnd, PathError, State, Step};
use crate::expr::{self, Assignment};

/// The limits of a run (the executor's own options are in `ExecConfig`).
#[derive(Clone, Debug, Default)]
pub struct ExploreConfig {
    pub max_time: Option<Duration>,
    pub max_instructions: Option<u64>,
    /// Resident memory of the process, in MiB.
    pub max_memory_mb: Option<u64>,
}

/// A path that ended, with the concrete inputs that drive a native run down it.
pub struct FinishedPath<'a> {
    pub state: &'a State,
    pub end: &'a PathEnd,
    /// `(name, bytes)` of each symbolic input, in creation order.
    pub inputs: Vec<(String, Vec<u8>)>,
    /// The exit status of a completed path, as a process would see it.
    pub exit_code: Option<u8>,
}

/// Whoever wants to hear about ended paths: the test writer, the trie.
pub trait PathObserver {
    fn path_ended(&mut self, executor: &Executor, path: &FinishedPath<'_>) -> anyhow::Result<()>;
}

/// What the progress display shows.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Paths ended so far.
    pub ended: u64,
    /// States still pending.
    pub pending: usize,
}

/// How the exploration went.
#[derive(Clone, Debug, Default)]
pub struct RunOutcome {
    /// The limit that stopped the run, if one did.
    pub stopped_by: Option<EarlyReason>,
    pub elapsed: Duration,
}

/// Explores from `initial` until no state is left or a limit is reached.
/// `interrupted` (set by Ctrl-C) stops the run as a limit would.
pub fn explore(
    executor: &mut Executor,
    searcher: &mut dyn Searcher,
    initial: State,
    limits: &ExploreConfig,
    observer: &mut dyn PathObserver,
    interrupted: &AtomicBool,
    mut progress: impl FnMut(&Executor, Progress),
) -> anyhow::Result<RunOutcome> {
    let start = Instant::now();
    let mut states = States::new();
    searcher.add(initial.id);
    states.insert(initial.id, initial);
    let mut stopped_by = None;
    let mut steps = 0u64;
    let mut ended = 0u64;
    while let Some(id) = searcher.select(&states, executor) {
        let Some(mut state) = states.remove(&id) else {
            searcher.remove(id);
            continue;
        };
        match executor.step(&mut state) {
            Step::Yield => {
                states.insert(id, state);
            }
            Step::Forked(children) => {
                let ids: Vec<u64> = children.iter().map(|c| c.id).collect();
                states.insert(id, state);
                for c in children {
                    states.insert(c.id, c);
                }
                searcher.forked(id, &ids);
            }
            Step::Ended(end) => {
                searcher.remove(id);
                ended += 1;
                finish(executor, &state, end, observer)?;
            }
        }
        steps += 1;
        if steps.is_multiple_of(64) {
            progress(
                executor,
                Progress {
                    ended,
                    pending: states.len(),
                },
            );
        }
        stopped_by = check_limits(limits, executor, start, interrupted, steps);
        if stopped_by.is_some() {
            break;
        }
    }
    let states_left = states.len() as u64;
    if let Some(reason) = stopped_by {
        // Every state still pending ends here, and gets its test.
        for (_, state) in std::mem::take(&mut states) {
            finish(executor, &state, PathEnd::Early(reason), observer)?;
        }
    }
    progress(
        executor,
        Progress {
            ended: ended + states_left,
            pending: 0,
        },
    );
    Ok(RunOutcome {
        stopped_by,
        elapsed: start.elapsed(),
    })
}

fn check_limits(
    limits: &ExploreConfig,
    executor: &Executor,
    start: Instant,
    interrupted: &AtomicBool,
    steps: u64,
) -> Option<EarlyReason> {
    if interrupted.load(Ordering::Relaxed) {
        return Some(EarlyReason::Interrupted);
    }
    if limits
        .max_instructions
        .is_some_and(|m| executor.instructions >= m)
    {
        return Some(EarlyReason::MaxInstructions);
    }
    if limits.max_time.is_some_and(|m| start.elapsed() >= m) {
        return Some(EarlyReason::MaxTime);
    }
    if steps.is_multiple_of(256) {
        if let Some(max) = limits.max_memory_mb {
            if crate::stats::resident_mb().is_some_and(|rss| rss >= max) {
                return Some(EarlyReason::MaxMemory);
            }
        }
    }
    None
}

/// Reports an ended path with the inputs that reproduce it.
fn finish(
    executor: &mut Executor,
    state: &State,
    end: PathEnd,
    observer: &mut dyn PathObserver,
) -> anyhow::Result<()> {
    if matches!(end, PathEnd::Silent | PathEnd::Pruned) {
        return observer.path_ended(
            executor,
            &FinishedPath {
                state,
                end: &end,
                inputs: Vec::new(),
                exit_code: None,
            },
        );
    }
    let (model, end) = match executor.model(state) {
        Ok(m) => (m, end),
        Err(e) => {
            // Without a model there is no test input; say so on the path.
            let err = PathEnd::Error(PathError {
                kind: ErrorKind::Solver,
                message: format!("no test input for this path: {e}"),
                loc: None,
                stack: Vec::new(),
            });
            (Assignment::new(), err)
        }
    };
    let inputs = state
        .symbolics
        .iter()
        .map(|s| {
            let bytes = model
                .get(&s.array)
                .map(|b| b.to_vec())
                .unwrap_or_else(|| vec![0; s.array.size as usize]);
            (s.name.clone(), bytes)
        })
        .collect();
    let exit_code = match &end {
        PathEnd::Completed { status } => Some(match status.as_concrete() {
            Some(v) => v as u8,
            None => expr::eval(&status.to_expr(), &model) as u8,
        }),
        _ => None,
    };
    observer.path_ended(
        executor,
        &FinishedPath {
            state,
            end: &end,
            inputs,
            exit_code,
        },
    )
}
