//! The memory a run may use (`--max-memory`), held two ways: the bytes of
//! the states' memory objects, counted as objects are made, copied and
//! freed, so that an allocation is refused before it is made; and the
//! process's resident memory, sampled every millisecond by a watcher
//! thread, for what the count does not see (expressions, the solver, the
//! trie).
//!
//! The count is of the process, not of one executor: `--max-memory` limits
//! the process, and states move between threads.
//!
//! Without `--max-memory` a run still keeps its resident memory under a
//! guard, half of the machine's: a run on a program that forks
//! without end (a loop on fresh input) grew to 19.6 GB in nine minutes,
//! where the kernel would have killed it and lost every pending path's
//! test.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, Weak};
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

/// The share of the machine's memory (or of its cgroup's, where that is
/// less) a run keeps under when no `--max-memory` is given: past the
/// machine's the kernel's OOM killer ends the run, and with it the tests
/// of every pending path; at the guard those paths end with their tests
/// instead. Half, because a run can go well past its limit before it
/// stops: where the trie's tests and the expressions hold the memory
/// rather than the states, each path ended to make room adds its test, and
/// runs limited to 600 and 1,152 MiB peaked at 775 and 1,711.
const GUARD_DIVISOR: u64 = 2;

/// The resident memory a run keeps under without `--max-memory`, in MiB:
/// half of the machine's memory or of its cgroup's limit, whichever is
/// less. `None` where neither is known.
pub fn default_guard_mb() -> Option<u64> {
    static GUARD: std::sync::OnceLock<Option<u64>> = std::sync::OnceLock::new();
    *GUARD.get_or_init(|| {
        let mut system = sysinfo::System::new();
        system.refresh_memory();
        let machine = system.total_memory();
        let total = system
            .cgroup_limits()
            .map_or(machine, |c| c.total_memory.min(machine));
        (total > 0).then_some((total >> 20) / GUARD_DIVISOR)
    })
}

/// A limit on memory and what watches it.
///
/// `--max-memory` limits both the objects' bytes (an allocation past it
/// is refused) and the resident memory. The guard a run has without it
/// limits the resident memory alone: what a program may allocate stays
/// as it is without a limit, and only the process is kept alive.
pub(crate) struct Budget {
    /// The limit on the objects' bytes (`u64::MAX`: none).
    objects: u64,
    /// The limit on resident memory, in bytes (`u64::MAX`: none).
    resident: u64,
    /// Samples the resident memory while a limit is set.
    watcher: Option<Arc<Watcher>>,
}

impl Default for Budget {
    /// No limit at all.
    fn default() -> Self {
        Budget {
            objects: u64::MAX,
            resident: u64::MAX,
            watcher: None,
        }
    }
}

impl Budget {
    /// A limit of `mb` MiB on the objects and the resident memory.
    pub(crate) fn limited(mb: u64) -> Budget {
        let guarded = Budget::guarded(mb);
        Budget {
            objects: guarded.resident,
            ..guarded
        }
    }

    /// A limit of `mb` MiB on the resident memory alone: the guard of a
    /// run without `--max-memory`.
    pub(crate) fn guarded(mb: u64) -> Budget {
        Budget {
            objects: u64::MAX,
            resident: mb.saturating_mul(1 << 20),
            watcher: Watcher::shared(),
        }
    }

    /// Whether `bytes` more object bytes stay within the limit.
    #[inline]
    pub(crate) fn allows(&self, bytes: u64) -> bool {
        self.objects == u64::MAX || object_bytes().saturating_add(bytes) <= self.objects
    }

    /// Whether the run has reached the limit: the objects' bytes, or the
    /// resident memory at the last sample.
    #[inline]
    pub(crate) fn exceeded(&self) -> bool {
        self.is_limited() && !self.holds_within(1.0)
    }

    /// Whether the run holds less than `share` of its limit (always, with
    /// no limit).
    #[inline]
    pub(crate) fn below(&self, share: f64) -> bool {
        !self.is_limited() || self.holds_within(share)
    }

    /// Whether the run holds no more than `share` of its limits: the
    /// objects' bytes, and the resident memory at the last sample (below
    /// the share's whole MiB).
    #[inline]
    fn holds_within(&self, share: f64) -> bool {
        let room = |limit: u64| (limit as f64 * share) as u64;
        (self.objects == u64::MAX || object_bytes() <= room(self.objects))
            && (self.resident == u64::MAX || self.sampled_mb() < room(self.resident) >> 20)
    }

    /// The resident memory at the watcher's last sample, in MiB.
    fn sampled_mb(&self) -> u64 {
        self.watcher
            .as_ref()
            .map_or(0, |w| w.resident_mb.load(Ordering::Relaxed))
    }

    /// The memory in use now against the limit, in bytes: the objects'
    /// count (where they are limited) or the resident memory, whichever is
    /// larger (measured, not sampled); `None` without a limit.
    pub(crate) fn in_use(&self) -> Option<(u64, u64)> {
        if self.resident == u64::MAX {
            return None;
        }
        let resident = crate::stats::resident_mb().unwrap_or(0) << 20;
        let objects = if self.objects == u64::MAX {
            0
        } else {
            object_bytes()
        };
        Some((objects.max(resident), self.resident))
    }

    /// The `--max-memory` limit in MiB, if one is set (not the guard).
    pub(crate) fn limit_mb(&self) -> Option<u64> {
        (self.objects != u64::MAX).then_some(self.objects >> 20)
    }

    /// Whether a limit (or the guard) is set.
    pub(crate) fn is_limited(&self) -> bool {
        self.resident != u64::MAX
    }
}

/// The thread sampling resident memory, one for the process, however many
/// executors watch it; stopped when the last of them lets it go.
struct Watcher {
    resident_mb: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// The process's watcher, started if none runs. `None` where threads
    /// cannot be started: the object count still holds.
    fn shared() -> Option<Arc<Watcher>> {
        static SHARED: Mutex<Weak<Watcher>> = Mutex::new(Weak::new());
        let mut shared = SHARED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = shared.upgrade() {
            return Some(w);
        }
        let w = Arc::new(Watcher::start()?);
        *shared = Arc::downgrade(&w);
        Some(w)
    }

    fn start() -> Option<Watcher> {
        let resident_mb = Arc::new(AtomicU64::new(crate::stats::resident_mb().unwrap_or(0)));
        let stop = Arc::new(AtomicBool::new(false));
        let (sampled, stopped) = (resident_mb.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("mnemo-memory".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    if let Some(rss) = crate::stats::resident_mb() {
                        sampled.store(rss, Ordering::Relaxed);
                    }
                    std::thread::sleep(SAMPLE_EVERY);
                }
            })
            .ok()?;
        Some(Watcher {
            resident_mb,
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
    fn the_guard_watches_resident_memory_and_refuses_no_allocation() {
        let b = Budget::guarded(1);
        assert!(b.is_limited());
        assert!(b.limit_mb().is_none(), "no --max-memory");
        assert!(b.allows(u64::MAX / 2));
        let start = std::time::Instant::now();
        while !b.exceeded() {
            assert!(start.elapsed() < Duration::from_secs(5), "never seen");
            std::thread::sleep(Duration::from_millis(1));
        }
        let (used, limit) = b.in_use().expect("guarded");
        assert_eq!(limit, 1 << 20);
        assert!(used > limit);
    }

    #[test]
    fn budgets_share_one_watcher() {
        let (a, b) = (Budget::limited(1 << 20), Budget::guarded(1 << 20));
        let (a, b) = (a.watcher.expect("started"), b.watcher.expect("started"));
        assert!(Arc::ptr_eq(&a, &b));
    }

    #[test]
    fn the_guard_is_a_share_of_the_machine() {
        let guard = default_guard_mb().expect("Linux says how much memory it has");
        let machine = sysinfo::System::new_with_specifics(
            sysinfo::RefreshKind::nothing().with_memory(sysinfo::MemoryRefreshKind::everything()),
        )
        .total_memory()
            >> 20;
        assert!(guard > 0 && guard <= machine / 2, "{guard} of {machine}");
    }

    #[test]
    fn an_allocation_alone_past_the_limit_is_refused() {
        let b = Budget::limited(1 << 20);
        assert!(!b.allows(u64::MAX / 2));
        assert!(b.allows(1 << 20));
    }
}
