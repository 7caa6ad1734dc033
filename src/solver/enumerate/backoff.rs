//! When a search that has run long hands its query to Z3 for a short try.
//!
//! The queries whose conjuncts chain lookups are searched with a large
//! budget because Z3 can be far slower on them: on bc's scanner (flex
//! tables indexed by entries of others, five to eight deep) it runs out of
//! its 10 s where the search takes a second. On grep's (a hash of two
//! pattern bytes looked up in a bucket table, two deep) it is the other
//! way round: the searches that ran past a few milliseconds took 46 ms on
//! average, Z3 11 ms on the same queries, and three quarters of a 60 s run
//! went to them. Chains a few deep therefore give Z3 a short try once
//! their search has run a few milliseconds, as long as such tries keep
//! answering: a program whose shallow chains Z3 is slow on pays for few.
//! Each try that times out doubles the number of searches that go on
//! without one (up to [`MAX_WAIT`]), and one that answers brings the
//! tries back at once.

/// The most searches that go on without a try of Z3 after tries that
/// timed out: where every try does, one search in this many pays for one.
const MAX_WAIT: u32 = 1024;

/// Whether the next searches that run long give Z3 a short try.
#[derive(Debug, Default)]
pub(super) struct Backoff {
    /// Searches to go on without a try before the next one.
    wait: u32,
    /// Searches that go on without a try after the next try that times
    /// out (0: none yet).
    after_timeout: u32,
}

impl Backoff {
    /// Whether this search, which has run long, gives Z3 a try now.
    pub(super) fn try_now(&mut self) -> bool {
        match self.wait.checked_sub(1) {
            Some(left) => {
                self.wait = left;
                false
            }
            None => true,
        }
    }

    /// Z3 answered the try: the next searches that run long try it too.
    pub(super) fn answered(&mut self) {
        *self = Backoff::default();
    }

    /// Z3 ran out of the try's time: twice as many searches as after the
    /// last such try go on without one.
    pub(super) fn timed_out(&mut self) {
        self.after_timeout = (self.after_timeout * 2).clamp(1, MAX_WAIT);
        self.wait = self.after_timeout;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The searches among `n` that try Z3, when every try times out.
    fn tries_when_every_one_times_out(b: &mut Backoff, n: u32) -> Vec<u32> {
        (0..n)
            .filter(|_| {
                let now = b.try_now();
                if now {
                    b.timed_out();
                }
                now
            })
            .collect()
    }

    #[test]
    fn tries_that_time_out_are_made_ever_more_rarely_and_one_answer_resets_them() {
        let mut b = Backoff::default();
        // Tries answered: every search tries.
        for _ in 0..5 {
            assert!(b.try_now());
            b.answered();
        }
        // Each timeout doubles the wait: searches 0, 2, 5, 10, 19, 36, ...
        let tries = tries_when_every_one_times_out(&mut b, 40);
        assert_eq!(tries, [0, 2, 5, 10, 19, 36]);
        // The wait stops growing at its bound.
        let mut b = Backoff::default();
        let tries = tries_when_every_one_times_out(&mut b, 20_000);
        let gaps: Vec<u32> = tries.windows(2).map(|w| w[1] - w[0] - 1).collect();
        assert_eq!(gaps[..4], [1, 2, 4, 8]);
        assert!(gaps.iter().all(|&g| g <= MAX_WAIT));
        assert_eq!(*gaps.last().unwrap(), MAX_WAIT);
        // One answer: the next search tries again, and a timeout after it
        // waits one search only.
        b.answered();
        assert!(b.try_now());
        b.timed_out();
        assert!(!b.try_now());
        assert!(b.try_now());
    }
}
