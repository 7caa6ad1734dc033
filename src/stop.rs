//! Ending a run from outside: Ctrl-C (SIGINT), SIGTERM (what `timeout`,
//! CI, Docker and batch schedulers send) and SIGHUP (a closed terminal).
//!
//! The first signal stops the run as a limit would: the paths pending get
//! their tests and everything is written. A second one hurries that end:
//! no more solver calls, the pending paths are kept in the trie without a
//! test (for `--resume`), and the trie, `tests.json` and `stats.json` are
//! written. If the process has not ended [`HURRY_GRACE`] after it (a solver
//! call still running), or at a third signal, it exits at once with what is
//! on disk by then.
//!
//! A test whose files cannot be written (a full disk) stops the run as a
//! second signal does: the tests after it could not be written either, and
//! what was explored is kept for `--resume` rather than lost with the
//! process.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::exec::EarlyReason;

/// How long the run has after a second signal to write what it found.
pub const HURRY_GRACE: Duration = Duration::from_secs(5);

/// The "signal" of a stop asked for by code rather than by a signal (a
/// benchmark ending at the first error): it reads as Ctrl-C.
const BY_CALLER: i32 = 0;

/// The "signal" of a stop at an error `--exit-on-error` names.
const ON_ERROR: i32 = -2;

/// The "signal" of a stop once `--max-tests` tests are written.
const ON_TESTS: i32 = -3;

/// Requests to stop a run, as signals (or a caller) made them; the
/// exploration loop reads it.
#[derive(Debug)]
pub struct StopRequest {
    /// The first request's signal number; -1 while none came.
    first: AtomicI32,
    /// Requests so far.
    count: AtomicU32,
    /// Whether writing a test failed (see [`StopRequest::write_failed`]).
    write_failed: AtomicBool,
}

impl Default for StopRequest {
    fn default() -> Self {
        StopRequest {
            first: AtomicI32::new(-1),
            count: AtomicU32::new(0),
            write_failed: AtomicBool::new(false),
        }
    }
}

impl StopRequest {
    /// Asks the run to stop as Ctrl-C does (reason `interrupted`).
    pub fn interrupt(&self) {
        self.record(BY_CALLER);
    }

    /// Asks the run to stop as at a limit (reason `exit-on-error`), unless
    /// it was asked to stop already. Unlike a signal it does not count as a
    /// request: a Ctrl-C after it is the first, which leaves the pending
    /// paths their tests.
    pub fn error_found(&self) {
        let _ = self
            .first
            .compare_exchange(-1, ON_ERROR, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Asks the run to stop as at a limit (reason `max-tests`), as
    /// [`Self::error_found`] does.
    pub fn enough_tests(&self) {
        let _ = self
            .first
            .compare_exchange(-1, ON_TESTS, Ordering::SeqCst, Ordering::SeqCst);
    }

    /// Asks the run to stop because a test's files could not be written:
    /// at once, as a second signal does (reason `write-failed`, unless a
    /// signal came first). No exit code: the run ends in an error.
    pub fn write_failed(&self) {
        self.write_failed.store(true, Ordering::SeqCst);
    }

    /// Whether [`Self::write_failed`] was called.
    pub fn has_write_failed(&self) -> bool {
        self.write_failed.load(Ordering::Relaxed)
    }

    /// Notes one request by `signal`; returns how many there were.
    fn record(&self, signal: i32) -> u32 {
        let _ = self
            .first
            .compare_exchange(-1, signal, Ordering::SeqCst, Ordering::SeqCst);
        self.count.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Why the run is asked to stop, if it is: `interrupted` for Ctrl-C,
    /// `terminated` for SIGTERM and SIGHUP.
    pub fn reason(&self) -> Option<EarlyReason> {
        match self.first.load(Ordering::Relaxed) {
            -1 if self.has_write_failed() => Some(EarlyReason::WriteFailed),
            -1 => None,
            ON_ERROR => Some(EarlyReason::ExitOnError),
            ON_TESTS => Some(EarlyReason::MaxTests),
            s if s == libc::SIGTERM || s == libc::SIGHUP => Some(EarlyReason::Terminated),
            _ => Some(EarlyReason::Interrupted),
        }
    }

    /// Whether a second request came, or a write failed: the run ends
    /// without asking the solver anything more.
    pub fn hurry(&self) -> bool {
        self.count.load(Ordering::Relaxed) >= 2 || self.has_write_failed()
    }

    /// The exit status of a process a signal stopped: 128 + the signal's
    /// number, as a shell reports a process the signal killed.
    pub fn exit_code(&self) -> Option<u8> {
        match self.first.load(Ordering::Relaxed) {
            s if s > 0 => u8::try_from(128 + s).ok(),
            _ => None,
        }
    }
}

/// Takes SIGINT, SIGTERM and SIGHUP from their default action (ending the
/// process at once) to a [`StopRequest`], for the whole process.
pub fn install_signal_handlers() -> std::io::Result<Arc<StopRequest>> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let stop = Arc::new(StopRequest::default());
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    let seen = stop.clone();
    std::thread::Builder::new()
        .name("mnemo-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                let n = seen.record(signal);
                let code = seen.exit_code().map_or(1, i32::from);
                if n == 1 {
                    eprintln_quietly(
                        "mnemo: stopping: the pending paths get their tests; signal again to end sooner",
                    );
                } else if n == 2 {
                    eprintln_quietly(
                        "mnemo: ending: no more solver calls; the trie and statistics are written",
                    );
                    std::thread::spawn(move || {
                        std::thread::sleep(HURRY_GRACE);
                        eprintln_quietly("mnemo: no clean end after the second signal; exiting");
                        signal_hook::low_level::exit(code);
                    });
                } else if n >= 3 {
                    eprintln_quietly("mnemo: third signal; exiting at once");
                    // Leaves the process without running destructors,
                    // which the main thread may be inside.
                    signal_hook::low_level::exit(code);
                }
            }
        })?;
    Ok(stop)
}

/// A message on stderr that may be gone (SIGHUP: a closed terminal).
fn eprintln_quietly(message: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "{message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_signal_names_the_reason_and_the_exit_code() {
        let s = StopRequest::default();
        assert_eq!(s.reason(), None);
        assert_eq!(s.exit_code(), None);
        s.record(libc::SIGTERM);
        assert_eq!(s.reason(), Some(EarlyReason::Terminated));
        assert!(!s.hurry());
        s.record(libc::SIGINT);
        assert_eq!(s.reason(), Some(EarlyReason::Terminated));
        assert_eq!(s.exit_code(), Some(143));
        assert!(s.hurry());
    }

    #[test]
    fn a_stop_by_the_caller_reads_as_ctrl_c_without_an_exit_code() {
        let s = StopRequest::default();
        s.interrupt();
        assert_eq!(s.reason(), Some(EarlyReason::Interrupted));
        assert_eq!(s.exit_code(), None);
        let hup = StopRequest::default();
        hup.record(libc::SIGHUP);
        assert_eq!(hup.reason(), Some(EarlyReason::Terminated));
        assert_eq!(hup.exit_code(), Some(129));
    }

    #[test]
    fn a_failed_write_hurries_the_end_and_gives_way_to_an_earlier_signal() {
        let s = StopRequest::default();
        s.write_failed();
        assert_eq!(s.reason(), Some(EarlyReason::WriteFailed));
        assert!(s.hurry());
        assert_eq!(s.exit_code(), None);
        let signalled = StopRequest::default();
        signalled.record(libc::SIGINT);
        assert!(!signalled.hurry());
        signalled.write_failed();
        assert_eq!(signalled.reason(), Some(EarlyReason::Interrupted));
        assert!(signalled.hurry());
    }

    #[test]
    fn a_stop_at_an_error_is_no_request_and_keeps_its_reason() {
        let s = StopRequest::default();
        s.error_found();
        assert_eq!(s.reason(), Some(EarlyReason::ExitOnError));
        assert_eq!(s.exit_code(), None);
        // A Ctrl-C after it is the first request: the pending paths still
        // get their tests; the second hurries.
        s.record(libc::SIGINT);
        assert!(!s.hurry());
        assert_eq!(s.reason(), Some(EarlyReason::ExitOnError));
        s.record(libc::SIGINT);
        assert!(s.hurry());
        // A signal first keeps its own reason and exit code.
        let signalled = StopRequest::default();
        signalled.record(libc::SIGTERM);
        signalled.error_found();
        assert_eq!(signalled.reason(), Some(EarlyReason::Terminated));
        assert_eq!(signalled.exit_code(), Some(143));
    }
}
