//! What one Z3 call may spend.
//!
//! A query gets wall-clock time, as KLEE's solver timeout does: the user
//! sets it (`--solver-timeout`), and a query still undecided then is
//! given up. A probe ([`super::Solver::probing`]) gets a tenth of that,
//! and it was once wall-clock time too: whether a probe was answered then
//! depended on how busy the machine was, and two runs of one program with
//! one seed could end different paths, which invariant 7 forbids. With six
//! busy loops on two cores, a query taking Z3 100 ms of the 500 ms its
//! first solver was given ran out of time in 19 of 20 runs.
//!
//! A probe is therefore given an amount of Z3's own work, counted in its
//! resource units (`rlimit`, a count of the steps Z3 takes; each check
//! may take that many more), which no load changes. Its wall-clock limit
//! stays, several times the work's nominal time, for work Z3 does not
//! count, such as internalizing a large circuit.
//!
//! A query's time is backed by work the other way round. Z3 learns that
//! its time is up from a timer thread, which a loaded machine can wake
//! long after the limit: beside eight busy loops on two cores, a query
//! given 1 ms ran 279 ms and was answered. A query is therefore also given
//! several times the work its time allows at the nominal rates, which an
//! idle machine does not reach first (the rates measured stay under twice
//! the nominal) and which stops Z3 however late the timer is.

/// How many of Z3's resource units the incremental stack spends in a
/// millisecond, nominally. Measured on queries of 20 ms and more: 3,500
/// to 4,700 at the median in the testsuite, 4,000 to 6,500 on the hard
/// subjects, 1,300 on a GCD's (the rates vary with the kind of work). A
/// recursive Euclid on the stack alone, which runs at 6,500, gives up 7
/// of its probes where the wall clock gave up 5 (the default chain sends
/// its queries to a fresh solver).
pub const STACK_UNITS_PER_MS: u64 = 5_000;

/// The same for a fresh solver (bit-blasting, then SAT): 1,300 on the
/// testsuite's queries and a Csmith program's CRC tables, 2,700 to 4,700
/// on the hard subjects' remainder chains and hashes. At 2,000, three of
/// a recursive Euclid's probes under `--solver-chain z3` were given up
/// that the wall clock had answered; at 3,000, none is.
pub const FRESH_UNITS_PER_MS: u64 = 3_000;

/// A probe's wall-clock limit, as a multiple of its work's nominal time:
/// room for the rates above being a few times off, and for a loaded
/// machine.
const BACKSTOP: u64 = 4;

/// A query's work backstop, as a multiple of the work its time allows at
/// the nominal rates.
const WORK_BACKSTOP: u64 = 4;

/// The longest time that still gets a work backstop: the most Z3's
/// 32-bit `rlimit` holds at the larger nominal rate. A query given longer
/// has none, rather than one shorter than its time.
const MAX_BACKSTOPPED_MS: u64 = u32::MAX as u64 / (STACK_UNITS_PER_MS * WORK_BACKSTOP);

/// The time, and for a probe the work, one Z3 call may spend.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    /// Wall-clock milliseconds.
    pub ms: u64,
    /// A probe's work, in milliseconds at the nominal rates above
    /// (`None`: no limit but the time).
    pub work_ms: Option<u64>,
}

impl Limit {
    /// `ms` milliseconds of wall-clock time.
    pub fn time(ms: u64) -> Self {
        Limit {
            ms: ms.max(1),
            work_ms: None,
        }
    }

    /// A probe's: `work_ms` of work, and no more time than `configured`.
    pub fn probe(work_ms: u64, configured: u64) -> Self {
        let work_ms = work_ms.max(1);
        Limit {
            ms: work_ms.saturating_mul(BACKSTOP).min(configured).max(1),
            work_ms: Some(work_ms),
        }
    }

    /// At most `left_ms` milliseconds of this.
    pub fn within(self, left_ms: u64) -> Self {
        Limit {
            ms: self.ms.min(left_ms).max(1),
            ..self
        }
    }

    /// The first half, for the first of two solvers asked in turn.
    pub fn first_half(self) -> Self {
        Limit {
            ms: (self.ms / 2).max(1),
            work_ms: self.work_ms.map(|w| (w / 2).max(1)),
        }
    }

    /// What is left for the second solver once the first spent `spent_ms`
    /// of [`Self::first_half`]: the rest of the time, the other half of
    /// the work (what the first did of it is not counted: it is the same
    /// whatever the load).
    pub fn rest(self, spent_ms: u64) -> Self {
        Limit {
            ms: self.ms.saturating_sub(spent_ms).max(1),
            work_ms: self.work_ms.map(|w| (w - w / 2).max(1)),
        }
    }

    /// The same on the wall clock: a probe's nominal time becomes its
    /// time, its work backed as a query's is.
    pub fn wall_clock(self) -> Self {
        Limit {
            ms: self.work_ms.map_or(self.ms, |w| w.min(self.ms)),
            work_ms: None,
        }
    }

    /// Whether this is a probe's, its work counted.
    pub fn is_probe(self) -> bool {
        self.work_ms.is_some()
    }

    /// Whether Z3 may stop this for running out of work: a probe's, or a
    /// query's backstop.
    pub fn counts_work(self) -> bool {
        self.is_probe() || self.ms <= MAX_BACKSTOPPED_MS
    }

    /// Z3's `rlimit` for an engine spending `units_per_ms` (0: none): a
    /// probe's work, or a query's backstop.
    pub fn units(self, units_per_ms: u64) -> u32 {
        let work = match self.work_ms {
            Some(w) => w.saturating_mul(units_per_ms),
            None if self.counts_work() => self
                .ms
                .saturating_mul(WORK_BACKSTOP)
                .saturating_mul(units_per_ms),
            None => return 0,
        };
        u32::try_from(work).unwrap_or(u32::MAX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_gets_time_and_a_probe_gets_work_with_time_as_a_backstop() {
        let query = Limit::time(10_000);
        assert_eq!(query.units(STACK_UNITS_PER_MS), 200_000_000);
        assert_eq!(query.units(FRESH_UNITS_PER_MS), 120_000_000);
        assert!(query.counts_work());
        // A query too long for the backstop to fit has none.
        let long = Limit::time(MAX_BACKSTOPPED_MS);
        assert_eq!(long.units(STACK_UNITS_PER_MS), 4_294_960_000);
        let longer = Limit::time(MAX_BACKSTOPPED_MS + 1);
        assert!(!longer.counts_work());
        assert_eq!(longer.units(STACK_UNITS_PER_MS), 0);
        assert_eq!(longer.units(FRESH_UNITS_PER_MS), 0);
        let probe = Limit::probe(1_000, 10_000);
        assert_eq!(probe.ms, 4_000);
        assert_eq!(probe.units(STACK_UNITS_PER_MS), 5_000_000);
        assert_eq!(probe.units(FRESH_UNITS_PER_MS), 3_000_000);
        // The backstop never exceeds the configured time, nor a deadline.
        assert_eq!(Limit::probe(1_000, 2_500).ms, 2_500);
        assert_eq!(probe.within(300), Limit { ms: 300, ..probe });
        // Nothing is ever zero, which Z3 would read as no limit.
        assert_eq!(Limit::probe(0, 0).units(1), 1);
        assert_eq!(Limit::time(0).within(0).ms, 1);
        assert_eq!(Limit::probe(u64::MAX, u64::MAX).units(2), u32::MAX);
        // A probe on the wall clock: its work's time, no units.
        assert_eq!(probe.wall_clock(), Limit::time(1_000));
        assert_eq!(probe.within(300).wall_clock(), Limit::time(300));
        assert_eq!(query.wall_clock(), query);
    }

    #[test]
    fn two_solvers_in_turn_share_the_time_and_split_the_work() {
        let probe = Limit::probe(1_001, 10_000);
        let first = probe.first_half();
        assert_eq!(
            first,
            Limit {
                ms: 2_002,
                work_ms: Some(500)
            }
        );
        // However long the first took, the second gets the other half of
        // the work; the time is what is left of the whole.
        assert_eq!(
            probe.rest(3_000),
            Limit {
                ms: 1_004,
                work_ms: Some(501)
            }
        );
        assert_eq!(probe.rest(5_000).ms, 1);
        let query = Limit::time(10_000);
        assert_eq!(query.first_half(), Limit::time(5_000));
        assert_eq!(query.rest(6_000), Limit::time(4_000));
    }
}
