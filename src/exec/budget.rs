//! The memory a run may use (`--max-memory`), held two ways: the bytes of
//! the states' memory objects, counted as objects are made, copied and
//! freed, so that an allocation is refused before it is made; and the
//! process's resident memory, sampled every millisecond by a watcher
//! thread, for what the count does not see (expressions, the solver, the
//! trie).
//!
//! The count is of the process, not of one executor: `--max-memory` limits
//! the process, and states move between threads.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_utils::CachePadded;

/// Bytes held by the contents of every live memory object of every state.
static OBJECT_BYTES: Counter = Counter::new();

/// A count that many threads change all the time and few read: each
/// thread counts in a slot of its own (one counter every worker writes
/// would pass its cache line from core to core on each change), and a
/// slot goes below zero when what one thread counted another gives back.
struct Counter {
    slots: [CachePadded<AtomicI64>; COUNT_SLOTS],
}

/// Slots of a [`Counter`]: threads beyond this share them.
const COUNT_SLOTS: usize = 32;

/// Threads that have taken a slot so far.
static SLOTS_TAKEN: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static SLOT: usize = SLOTS_TAKEN.fetch_add(1, Ordering::Relaxed) % COUNT_SLOTS;
}

impl Counter {
    const fn new() -> Counter {
        Counter {
            slots: [const { CachePadded::new(AtomicI64::new(0)) }; COUNT_SLOTS],
        }
    }

    fn change(&self, old: u64, new: u64) {
        if new != old {
            let delta = new.wrapping_sub(old) as i64;
            SLOT.with(|&s| self.slots[s].fetch_add(delta, Ordering::Relaxed));
        }
    }

    fn sum(&self) -> u64 {
        let sum: i64 = self.slots.iter().map(|c| c.load(Ordering::Relaxed)).sum();
        sum.max(0) as u64
    }
}

/// Notes that object contents now hold `bytes` more (or fewer) bytes.
pub(crate) fn count(old: u64, new: u64) {
    OBJECT_BYTES.change(old, new);
}

/// Bytes the states' memory objects hold now, in the whole process.
pub fn object_bytes() -> u64 {
    OBJECT_BYTES.sum()
}

/// How often the watcher samples the process's resident memory.
const SAMPLE_EVERY: Duration = Duration::from_millis(1);

/// Hands memory freed by the allocators back to the operating system, so
/// that resident memory falls when pending states are let go: mimalloc
/// (the binary's allocator) and glibc's malloc (Z3's, and the library's
/// under another binary) both keep freed pages to reuse otherwise.
pub fn give_back_freed() {
    // SAFETY: mi_collect only frees and decommits pages the calling
    // thread's heap no longer uses; where mimalloc is not the allocator
    // its heap is empty.
    unsafe {
        libmimalloc_sys::mi_collect(true);
    }
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free pages of the allocator's own.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// A limit on memory and what watches it; none by default.
pub(crate) struct Budget {
    /// The limit in bytes (`u64::MAX`: none).
    limit: u64,
    /// The resident memory at the watcher's last sample, in MiB.
    resident_mb: Arc<AtomicU64>,
    watcher: Option<Watcher>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            limit: u64::MAX,
            resident_mb: Arc::new(AtomicU64::new(0)),
            watcher: None,
        }
    }
}

impl Budget {
    /// A limit of `mb` MiB, with a thread watching resident memory.
    pub(crate) fn limited(mb: u64) -> Budget {
        let limit = mb.saturating_mul(1 << 20);
        let resident_mb = Arc::new(AtomicU64::new(0));
        let watcher = Watcher::start(resident_mb.clone());
        Budget {
            limit,
            resident_mb,
            watcher,
        }
    }

    /// Whether `bytes` more object bytes stay within the limit.
    #[inline]
    pub(crate) fn allows(&self, bytes: u64) -> bool {
        self.limit == u64::MAX || object_bytes().saturating_add(bytes) <= self.limit
    }

    /// Whether the run has reached the limit: the objects' bytes, or the
    /// resident memory at the last sample.
    #[inline]
    pub(crate) fn exceeded(&self) -> bool {
        self.limit != u64::MAX && !self.holds_within(self.limit)
    }

    /// Whether the run holds less than `share` of its limit (always, with
    /// no limit).
    #[inline]
    pub(crate) fn below(&self, share: f64) -> bool {
        self.limit == u64::MAX || self.holds_within((self.limit as f64 * share) as u64)
    }

    /// Whether the run holds no more than `room` bytes: the objects'
    /// bytes, and the resident memory at the last sample (below `room`'s
    /// whole MiB).
    #[inline]
    fn holds_within(&self, room: u64) -> bool {
        object_bytes() <= room && self.resident_mb.load(Ordering::Relaxed) < room >> 20
    }

    /// The memory in use now against the limit, in bytes: the objects'
    /// count or the resident memory, whichever is larger (measured, not
    /// sampled); `None` without a limit.
    pub(crate) fn in_use(&self) -> Option<(u64, u64)> {
        if self.limit == u64::MAX {
            return None;
        }
        let resident = crate::stats::resident_mb().unwrap_or(0) << 20;
        Some((object_bytes().max(resident), self.limit))
    }

    /// The limit in MiB, if one is set.
    pub(crate) fn limit_mb(&self) -> Option<u64> {
        (self.limit != u64::MAX).then_some(self.limit >> 20)
    }

    /// Whether a limit is set.
    pub(crate) fn is_limited(&self) -> bool {
        self.limit != u64::MAX || self.watcher.is_some()
    }
}

/// The thread sampling resident memory; stopped when dropped.
struct Watcher {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// `None` where threads cannot be started: the object count still holds.
    fn start(resident_mb: Arc<AtomicU64>) -> Option<Watcher> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::Builder::new()
            .name("mnemo-memory".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    if let Some(rss) = crate::stats::resident_mb() {
                        resident_mb.store(rss, Ordering::Relaxed);
                    }
                    std::thread::sleep(SAMPLE_EVERY);
                }
            })
            .ok()?;
        Some(Watcher {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_below_the_resident_memory_is_seen_within_milliseconds() {
        // Any process holds more than 1 MiB.
        let b = Budget::limited(1);
        let start = std::time::Instant::now();
        while !b.exceeded() {
            assert!(start.elapsed() < Duration::from_secs(5), "never seen");
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(b.is_limited());
    }

    #[test]
    fn no_limit_allows_everything() {
        let b = Budget::default();
        assert!(!b.is_limited());
        assert!(b.allows(u64::MAX));
        assert!(!b.exceeded());
    }

    /// Objects move between workers: bytes counted in one thread and given
    /// back in another, by more threads than there are slots, add up.
    #[test]
    fn bytes_counted_in_one_thread_and_given_back_in_another_add_up() {
        let c = Counter::new();
        std::thread::scope(|s| {
            s.spawn(|| c.change(0, 4096));
        });
        assert_eq!(c.sum(), 4096);
        std::thread::scope(|s| {
            s.spawn(|| c.change(4096, 1024));
        });
        assert_eq!(c.sum(), 1024);
        let threads = COUNT_SLOTS as u64 + 8;
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| c.change(0, 3));
            }
        });
        assert_eq!(c.sum(), 1024 + 3 * threads);
        c.change(1024 + 3 * threads, 0);
        assert_eq!(c.sum(), 0);
        c.change(5, 0);
        assert_eq!(c.sum(), 0, "never below nothing");
    }

    #[test]
    fn an_allocation_alone_past_the_limit_is_refused() {
        let b = Budget::limited(1 << 20);
        assert!(!b.allows(u64::MAX / 2));
        assert!(b.allows(1 << 20));
    }
}
