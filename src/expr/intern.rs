//! The global expression interner and the iterative destruction of
//! expressions.
//!
//! The table maps identity keys (a node's shape over its operands'
//! addresses) to weak references, so it never keeps an expression alive;
//! a shard drops its dead entries whenever it has grown to twice the
//! number of live entries it held after its last purge, which bounds its
//! size by a constant factor of the live expressions.

use super::{kind_tag, ExprKind, ExprNode, ExprRef};
use crossbeam_utils::CachePadded;
use parking_lot::Mutex;
use rustc_hash::{FxHashMap, FxHasher};
use std::cell::{Cell, RefCell};
use std::hash::Hasher;
use std::mem::ManuallyDrop;
use std::sync::{Arc, OnceLock, Weak};

/// Every worker builds expressions all the time: with 16 shards, 16
/// workers waited on each other's shards (and on the shards that shared
/// their cache line), and one subject took 3.8 s where 128 padded shards
/// take 2.9 s. A power of two: the key's top bits choose the shard.
const SHARDS: usize = 128;
/// A shard's smallest purge threshold: 128K dead entries in all at most.
const MIN_PURGE: usize = 1024;

enum Bucket {
    One(Weak<ExprNode>),
    Many(Vec<Weak<ExprNode>>),
}

struct Shard {
    map: FxHashMap<u64, Bucket>,
    /// Number of weak references stored (live or dead).
    entries: usize,
    purge_at: usize,
}

impl Shard {
    fn new() -> Self {
        Shard {
            map: FxHashMap::default(),
            entries: 0,
            purge_at: MIN_PURGE,
        }
    }

    fn purge(&mut self) {
        let mut live = 0usize;
        self.map.retain(|_, bucket| match bucket {
            Bucket::One(w) => {
                let alive = w.strong_count() > 0;
                live += alive as usize;
                alive
            }
            Bucket::Many(v) => {
                v.retain(|w| w.strong_count() > 0);
                live += v.len();
                !v.is_empty()
            }
        });
        self.entries = live;
        self.purge_at = (live * 2).max(MIN_PURGE);
    }
}

fn shards() -> &'static [CachePadded<Mutex<Shard>>; SHARDS] {
    static TABLE: OnceLock<[CachePadded<Mutex<Shard>>; SHARDS]> = OnceLock::new();
    TABLE.get_or_init(|| std::array::from_fn(|_| CachePadded::new(Mutex::new(Shard::new()))))
}

/// The stable structural hash of a node with this shape and width.
pub(super) fn hash_kind(kind: &ExprKind, width: u32) -> u64 {
    let mut h = FxHasher::default();
    h.write_u8(kind_tag(kind));
    h.write_u32(width);
    match kind {
        ExprKind::Const(v) => h.write_u128(*v),
        ExprKind::Read { updates, index } => {
            h.write_u64(updates.structural_hash());
            h.write_u64(index.structural_hash());
        }
        ExprKind::Select {
            cond,
            then_e,
            else_e,
        } => {
            h.write_u64(cond.structural_hash());
            h.write_u64(then_e.structural_hash());
            h.write_u64(else_e.structural_hash());
        }
        ExprKind::Concat { hi, lo } => {
            h.write_u64(hi.structural_hash());
            h.write_u64(lo.structural_hash());
        }
        ExprKind::Extract { expr, offset } => {
            h.write_u32(*offset);
            h.write_u64(expr.structural_hash());
        }
        ExprKind::ZExt(e) | ExprKind::SExt(e) | ExprKind::Not(e) => {
            h.write_u64(e.structural_hash())
        }
        ExprKind::Binary { op, lhs, rhs } => {
            h.write_u8(op.code());
            h.write_u64(lhs.structural_hash());
            h.write_u64(rhs.structural_hash());
        }
        ExprKind::Cmp { op, lhs, rhs } => {
            h.write_u8(*op as u8);
            h.write_u64(lhs.structural_hash());
            h.write_u64(rhs.structural_hash());
        }
    }
    mix(h.finish())
}

/// The first serial of the next block a thread takes.
static SERIAL: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Serials a thread takes at a time: one counter that every worker bumps
/// for every new node keeps its cache line moving between cores.
const SERIAL_BLOCK: u32 = 1024;

/// A new node's serial (what it hashes by), unique until they wrap after
/// 2^32 nodes, which costs collisions, never wrong answers: equality is
/// by identity.
fn next_serial() -> u32 {
    thread_local! {
        /// The next serial of the thread's block, and the block's end.
        static BLOCK: Cell<(u32, u32)> = const { Cell::new((0, 0)) };
    }
    BLOCK.with(|b| {
        let (mut next, mut end) = b.get();
        if next == end {
            next = SERIAL.fetch_add(SERIAL_BLOCK, std::sync::atomic::Ordering::Relaxed);
            end = next.wrapping_add(SERIAL_BLOCK);
        }
        b.set((next.wrapping_add(1), end));
        next
    })
}

/// A final mix, so that the shard index (high bits) and the map's own
/// hashing (which multiplies) see well-spread values.
pub(super) fn mix(x: u64) -> u64 {
    let x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    let x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// The key a node is found by in the table: its shape over the identities
/// of its operands (their addresses, alive while `kind` holds them), not
/// over their structural hashes. Paths that fork and then each create an
/// input under the same name make distinct arrays whose expressions have
/// equal structural hashes; keyed by those, one bucket held hundreds of
/// live nodes on a loop reading fresh input, and finding a node walked
/// them all. Equal kinds have equal keys: operands compare by identity,
/// and update lists by their array's identity and their writes' contents.
fn identity_key(kind: &ExprKind, width: u32) -> u64 {
    let mut h = FxHasher::default();
    h.write_u8(kind_tag(kind));
    h.write_u32(width);
    let id = |h: &mut FxHasher, e: &ExprRef| h.write_usize(e.as_ptr() as usize);
    match kind {
        ExprKind::Const(v) => h.write_u128(*v),
        ExprKind::Read { updates, index } => {
            id(&mut h, index);
            h.write_usize(Arc::as_ptr(&updates.root) as usize);
            h.write_u64(updates.structural_hash());
        }
        ExprKind::Select {
            cond,
            then_e,
            else_e,
        } => {
            id(&mut h, cond);
            id(&mut h, then_e);
            id(&mut h, else_e);
        }
        ExprKind::Concat { hi, lo } => {
            id(&mut h, hi);
            id(&mut h, lo);
        }
        ExprKind::Extract { expr, offset } => {
            id(&mut h, expr);
            h.write_u32(*offset);
        }
        ExprKind::ZExt(e) | ExprKind::SExt(e) | ExprKind::Not(e) => id(&mut h, e),
        ExprKind::Binary { op, lhs, rhs } => {
            h.write_u8(op.code());
            id(&mut h, lhs);
            id(&mut h, rhs);
        }
        ExprKind::Cmp { op, lhs, rhs } => {
            h.write_u8(*op as u8);
            id(&mut h, lhs);
            id(&mut h, rhs);
        }
    }
    mix(h.finish())
}

/// Returns the unique node for `kind` at `width`, creating it if needed.
/// Callers (the builders) guarantee that the node is well formed.
pub(super) fn intern(kind: ExprKind, width: u32) -> ExprRef {
    let key = identity_key(&kind, width);
    let mut shard = shards()[(key >> (64 - SHARDS.trailing_zeros())) as usize].lock();
    ExprRef(shard.intern(kind, width, key))
}

impl Shard {
    fn intern(&mut self, kind: ExprKind, width: u32, key: u64) -> Arc<ExprNode> {
        let found = |w: &Weak<ExprNode>| -> Option<Arc<ExprNode>> {
            let node = w.upgrade()?;
            (node.width == width && *node.kind == kind).then_some(node)
        };
        if let Some(bucket) = self.map.get(&key) {
            let hit = match bucket {
                Bucket::One(w) => found(w),
                Bucket::Many(v) => v.iter().find_map(found),
            };
            if let Some(node) = hit {
                return node;
            }
        }
        // The node keeps its structural hash, the same on every run (the
        // stores and the canonical order rely on it); the table, its key.
        let hash = hash_kind(&kind, width);
        let node = Arc::new(ExprNode {
            kind: ManuallyDrop::new(kind),
            width,
            serial: next_serial(),
            hash,
        });
        let weak = Arc::downgrade(&node);
        match self.map.get_mut(&key) {
            Some(Bucket::Many(v)) => {
                // Reuse a dead slot if there is one, so a bucket does not
                // grow with every re-creation of the same expression.
                match v.iter_mut().find(|w| w.strong_count() == 0) {
                    Some(slot) => *slot = weak,
                    None => {
                        v.push(weak);
                        self.entries += 1;
                    }
                }
            }
            Some(bucket @ Bucket::One(_)) => {
                let Bucket::One(old) = std::mem::replace(bucket, Bucket::Many(Vec::new())) else {
                    unreachable!("matched Bucket::One above")
                };
                *bucket = if old.strong_count() == 0 {
                    Bucket::One(weak)
                } else {
                    self.entries += 1;
                    Bucket::Many(vec![old, weak])
                };
            }
            None => {
                self.map.insert(key, Bucket::One(weak));
                self.entries += 1;
            }
        }
        if self.entries >= self.purge_at {
            self.purge();
        }
        node
    }
}

/// Number of expressions currently alive in the interner (for tests and
/// statistics; it takes every shard lock).
pub fn live_expressions() -> usize {
    shards()
        .iter()
        .map(|s| {
            s.lock()
                .map
                .values()
                .map(|b| match b {
                    Bucket::One(w) => (w.strong_count() > 0) as usize,
                    Bucket::Many(v) => v.iter().filter(|w| w.strong_count() > 0).count(),
                })
                .sum::<usize>()
        })
        .sum()
}

thread_local! {
    static DRAINING: Cell<bool> = const { Cell::new(false) };
    static PENDING: RefCell<Vec<ExprKind>> = const { RefCell::new(Vec::new()) };
}

/// Drops the kind of a dying node without recursing once per level of the
/// expression: while one drop is in progress on this thread, the kinds of
/// nodes that die as a consequence are queued and dropped by the loop below.
pub(super) fn drop_kind(kind: ExprKind) {
    if matches!(kind, ExprKind::Const(_)) {
        return;
    }
    let nested = match DRAINING.try_with(|d| d.replace(true)) {
        Ok(nested) => nested,
        // Thread-local storage is being torn down: drop recursively.
        Err(_) => return drop(kind),
    };
    if nested {
        // Should the queue be gone already, the closure and with it `kind`
        // is dropped right here, recursively, which is still correct.
        let _ = PENDING.try_with(move |p| p.borrow_mut().push(kind));
        return;
    }
    drop(kind);
    // The queue's borrow ends before each drop, so the nested pushes above
    // never find it borrowed.
    while let Some(k) = PENDING.try_with(|p| p.borrow_mut().pop()).ok().flatten() {
        drop(k);
    }
    let _ = DRAINING.try_with(|d| d.set(false));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_does_not_keep_dead_entries_without_bound() {
        let mut shard = Shard::new();
        let mut keep = Vec::new();
        for v in 0..100_000u128 {
            let kind = ExprKind::Const(v);
            let hash = hash_kind(&kind, 64);
            let node = shard.intern(kind, 64, hash);
            if v % 100 == 0 {
                keep.push(node);
            }
        }
        // 1000 live nodes; the dead ones are purged once they dominate.
        assert!(
            shard.entries <= (2 * keep.len()).max(MIN_PURGE),
            "{}",
            shard.entries
        );
        // Live nodes are still found.
        let kind = ExprKind::Const(500);
        let hash = hash_kind(&kind, 64);
        assert!(Arc::ptr_eq(&shard.intern(kind, 64, hash), &keep[5]));
    }

    #[test]
    fn equal_hashes_with_different_shapes_stay_distinct() {
        let mut shard = Shard::new();
        let a = shard.intern(ExprKind::Const(1), 8, 42);
        let b = shard.intern(ExprKind::Const(2), 8, 42);
        assert!(!Arc::ptr_eq(&a, &b));
        assert!(Arc::ptr_eq(&shard.intern(ExprKind::Const(2), 8, 42), &b));
        assert!(Arc::ptr_eq(&shard.intern(ExprKind::Const(1), 8, 42), &a));
    }
}
