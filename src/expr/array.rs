//! Symbolic and constant byte arrays and persistent lists of writes to them.

use super::ExprRef;
use rustc_hash::{FxHashMap, FxHasher};
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Arc, OnceLock, Weak};

/// A byte array the solver reasons about: a symbolic input (`init: None`)
/// or an object whose bytes are known (`init: Some`), used when such an
/// object is read at a symbolic offset. Indices are 64-bit; reading past
/// `size` yields 0.
///
/// Arrays are compared by identity (the `Arc`); the caller keeps names
/// unique within a run, and the names are what the solver and stable hashes
/// see.
#[derive(Debug)]
pub struct Array {
    pub name: String,
    /// Size in bytes.
    pub size: u32,
    pub init: Option<Arc<[u8]>>,
}

/// Shared handle to an [`Array`].
pub type ArrayRef = Arc<Array>;

impl Array {
    /// A fresh symbolic array of `size` bytes.
    pub fn symbolic(name: &str, size: u32) -> ArrayRef {
        Arc::new(Array {
            name: name.to_string(),
            size,
            init: None,
        })
    }

    /// A constant array holding a copy of `bytes` (taken by reference: a
    /// large object's bytes are copied once, not twice). Objects larger than
    /// 4 GiB do not exist in mnemo; larger inputs are cut to `u32::MAX` bytes.
    pub fn constant(name: &str, bytes: impl AsRef<[u8]>) -> ArrayRef {
        let bytes = bytes.as_ref();
        let bytes = &bytes[..bytes.len().min(u32::MAX as usize)];
        Arc::new(Array {
            name: name.to_string(),
            size: bytes.len() as u32,
            init: Some(bytes.into()),
        })
    }

    /// The one live array with this name, size and contents, created if
    /// there is none: arrays read back from files (stores, corpora) and the
    /// solver's canonical arrays are shared this way, so that expressions
    /// over them intern to the same nodes wherever they were built.
    pub fn shared(name: &str, size: u32, init: Option<Arc<[u8]>>) -> ArrayRef {
        type Key = (String, u32, Option<Arc<[u8]>>);
        static TABLE: std::sync::OnceLock<parking_lot::Mutex<FxHashMap<Key, Weak<Array>>>> =
            std::sync::OnceLock::new();
        let mut table = TABLE.get_or_init(Default::default).lock();
        let key = (name.to_string(), size, init);
        if let Some(a) = table.get(&key).and_then(Weak::upgrade) {
            return a;
        }
        if table.len() >= 1024 && table.len().is_power_of_two() {
            table.retain(|_, w| w.strong_count() > 0);
        }
        let a = Arc::new(Array {
            name: key.0.clone(),
            size,
            init: key.2.clone(),
        });
        table.insert(key, Arc::downgrade(&a));
        a
    }

    /// Whether the bytes are known.
    pub fn is_constant(&self) -> bool {
        self.init.is_some()
    }

    /// The known byte at `index` (0 past the end) of a constant array.
    pub fn init_byte(&self, index: u128) -> Option<u8> {
        let init = self.init.as_ref()?;
        Some(
            usize::try_from(index)
                .ok()
                .and_then(|i| init.get(i).copied())
                .unwrap_or(0),
        )
    }

    /// A hash that is the same on every run (name, size and kind only: the
    /// name identifies the array within a run).
    pub fn stable_hash(&self) -> u64 {
        let mut h = FxHasher::default();
        self.name.hash(&mut h);
        h.write_u32(self.size);
        h.write_u8(self.init.is_some() as u8);
        h.finish()
    }
}

/// One write of a byte `value` at a 64-bit `index`, in a persistent list.
pub struct UpdateNode {
    pub index: ExprRef,
    pub value: ExprRef,
    /// The previous (older) write.
    pub next: Option<Arc<UpdateNode>>,
    hash: u64,
    len: usize,
    /// This write and the older ones indexed for reads, once a list this
    /// long has been read through more than once (see [`WriteIndex`]).
    /// Boxed: every write has the room, few lists an index.
    lookup: OnceLock<Box<WriteIndex>>,
}

impl UpdateNode {
    /// A structural hash of this write and all older ones.
    pub fn structural_hash(&self) -> u64 {
        self.hash
    }

    /// This write and the older ones as a [`WriteIndex`], if one has been
    /// built.
    pub fn write_index(&self) -> Option<&WriteIndex> {
        self.lookup.get().map(|ix| &**ix)
    }

    /// This write and the older ones as a [`WriteIndex`], built if there is
    /// none and the list is long enough to gain by it; `None` where the
    /// indexes alive hold as many writes as they may.
    pub fn indexed(&self) -> Option<&WriteIndex> {
        if let Some(ix) = self.write_index() {
            return Some(ix);
        }
        if self.len < MIN_INDEXED_LEN
            || INDEXED.load(AtomicOrdering::Relaxed) + self.len > MAX_INDEXED
        {
            return None;
        }
        Some(self.lookup.get_or_init(|| {
            INDEXED.fetch_add(self.len, AtomicOrdering::Relaxed);
            Box::new(WriteIndex::new(self))
        }))
    }
}

/// Lists shorter than this are walked: an index costs more than it saves.
pub const MIN_INDEXED_LEN: usize = 32;

/// The writes the indexes alive may hold together (about 30 bytes each): a
/// loop that writes and reads in turn makes a list per write, each a write
/// longer than the one before.
const MAX_INDEXED: usize = 1 << 20;

/// The writes held by the indexes alive.
static INDEXED: AtomicUsize = AtomicUsize::new(0);

/// A list of writes as a read at a known position sees it, where walking it
/// write by write would cost its length each time. A read at a symbolic
/// index into a large object that the program has written many bytes of
/// (grep's scanner tables) sees a list of thousands of writes at fixed
/// positions with a few symbolic ones on top; the solver's search for a
/// byte's values evaluates such a read 256 times and more.
pub struct WriteIndex {
    /// For each fixed position written, the place (0: the newest write)
    /// and value of the newest write there.
    fixed: FxHashMap<u64, (u32, ExprRef)>,
    /// The writes at symbolic positions, newest first: place, position,
    /// value.
    symbolic: Vec<(u32, ExprRef, ExprRef)>,
    /// What a read may need the value of: the symbolic positions, and the
    /// values that are not constants of the writes a read can see.
    operands: Vec<ExprRef>,
}

impl WriteIndex {
    fn new(head: &UpdateNode) -> Self {
        let mut fixed: FxHashMap<u64, (u32, ExprRef)> = FxHashMap::default();
        let mut symbolic = Vec::new();
        let mut operands = Vec::new();
        let writes = UpdateIter { next: Some(head) };
        for (place, write) in writes.enumerate() {
            let place = place as u32;
            match write.index.as_const() {
                Some(at) => {
                    // Positions are 64-bit: the value fits.
                    if let std::collections::hash_map::Entry::Vacant(e) = fixed.entry(at as u64) {
                        if !write.value.is_const() {
                            operands.push(write.value.clone());
                        }
                        e.insert((place, write.value.clone()));
                    }
                }
                None => {
                    operands.push(write.index.clone());
                    if !write.value.is_const() {
                        operands.push(write.value.clone());
                    }
                    symbolic.push((place, write.index.clone(), write.value.clone()));
                }
            }
        }
        WriteIndex {
            fixed,
            symbolic,
            operands,
        }
    }

    /// The value written last at position `at`, given the value of each
    /// symbolic position (`value`); `None` where no write reaches `at`.
    pub fn find(&self, at: u128, mut value: impl FnMut(&ExprRef) -> u128) -> Option<&ExprRef> {
        let fixed = u64::try_from(at).ok().and_then(|at| self.fixed.get(&at));
        let newest_fixed = fixed.map_or(u32::MAX, |(place, _)| *place);
        for (place, index, written) in &self.symbolic {
            if *place > newest_fixed {
                break;
            }
            if value(index) == at {
                return Some(written);
            }
        }
        fixed.map(|(_, written)| written)
    }

    /// The expressions a read through the list may need the value of.
    pub fn operands(&self) -> &[ExprRef] {
        &self.operands
    }
}

impl Drop for UpdateNode {
    fn drop(&mut self) {
        if self.write_index().is_some() {
            INDEXED.fetch_sub(self.len, AtomicOrdering::Relaxed);
        }
        // Unlink the tail iteratively: a list of a hundred thousand writes
        // must not recurse a hundred thousand times when it dies.
        let mut next = self.next.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut node) => next = node.next.take(),
                Err(_) => break,
            }
        }
    }
}

/// The writes made to an array at symbolic positions (or on top of such
/// writes), newest first. Cloning shares the list.
#[derive(Clone)]
pub struct UpdateList {
    pub root: ArrayRef,
    pub head: Option<Arc<UpdateNode>>,
}

impl UpdateList {
    /// The array with no writes.
    pub fn new(root: ArrayRef) -> Self {
        UpdateList { root, head: None }
    }

    /// This list with one more write on top. `index` has width 64 and
    /// `value` width 8.
    pub fn write(&self, index: ExprRef, value: ExprRef) -> UpdateList {
        assert_eq!(index.width(), 64, "array index must be 64 bits wide");
        assert_eq!(value.width(), 8, "array value must be one byte");
        let mut h = FxHasher::default();
        h.write_u64(index.structural_hash());
        h.write_u64(value.structural_hash());
        h.write_u64(self.head.as_ref().map_or(0, |n| n.hash));
        let len = self.len() + 1;
        UpdateList {
            root: self.root.clone(),
            head: Some(Arc::new(UpdateNode {
                index,
                value,
                next: self.head.clone(),
                hash: h.finish(),
                len,
                lookup: OnceLock::new(),
            })),
        }
    }

    /// The number of writes.
    pub fn len(&self) -> usize {
        self.head.as_ref().map_or(0, |n| n.len)
    }

    /// Whether there are no writes.
    pub fn is_empty(&self) -> bool {
        self.head.is_none()
    }

    /// Whether a write is at an index that is not a constant: a read
    /// through the list is then a case split on conditions the input sets.
    pub fn has_symbolic_write(&self) -> bool {
        self.iter().any(|w| !w.index.is_const())
    }

    /// The writes, newest first.
    pub fn iter(&self) -> UpdateIter<'_> {
        UpdateIter {
            next: self.head.as_deref(),
        }
    }

    /// A hash that is the same on every run.
    pub fn structural_hash(&self) -> u64 {
        let mut h = FxHasher::default();
        h.write_u64(self.root.stable_hash());
        h.write_u64(self.head.as_ref().map_or(0, |n| n.hash));
        h.finish()
    }

    /// A stable order, used by `ExprRef`'s `Ord` on hash collisions.
    pub(super) fn cmp_structural(&self, other: &Self) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        let by_root = self
            .root
            .name
            .cmp(&other.root.name)
            .then(self.root.size.cmp(&other.root.size))
            .then(self.len().cmp(&other.len()));
        if by_root != Ordering::Equal {
            return by_root;
        }
        for (a, b) in self.iter().zip(other.iter()) {
            let o = a.index.cmp(&b.index).then_with(|| a.value.cmp(&b.value));
            if o != Ordering::Equal {
                return o;
            }
        }
        Ordering::Equal
    }
}

/// Iterator over the writes of an [`UpdateList`], newest first.
pub struct UpdateIter<'a> {
    next: Option<&'a UpdateNode>,
}

impl<'a> Iterator for UpdateIter<'a> {
    type Item = &'a UpdateNode;

    fn next(&mut self) -> Option<&'a UpdateNode> {
        let node = self.next?;
        self.next = node.next.as_deref();
        Some(node)
    }
}

/// Same root array (by identity) and the same writes: equal nodes are found
/// by pointer; lists built separately with the same writes compare equal
/// too (their index and value expressions are interned).
impl PartialEq for UpdateList {
    fn eq(&self, other: &Self) -> bool {
        if !Arc::ptr_eq(&self.root, &other.root) || self.len() != other.len() {
            return false;
        }
        let (mut a, mut b) = (self.head.as_ref(), other.head.as_ref());
        loop {
            match (a, b) {
                (None, None) => return true,
                (Some(x), Some(y)) => {
                    if Arc::ptr_eq(x, y) {
                        return true;
                    }
                    if x.hash != y.hash || x.index != y.index || x.value != y.value {
                        return false;
                    }
                    a = x.next.as_ref();
                    b = y.next.as_ref();
                }
                _ => return false,
            }
        }
    }
}

impl Eq for UpdateList {}

impl Hash for UpdateList {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.structural_hash());
    }
}

impl std::fmt::Debug for UpdateList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        super::print::fmt_updates(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_without_an_index_costs_a_pointer_and_a_flag() {
        // Every symbolic write of a run is one of these: the index's room
        // must not grow them.
        assert!(
            std::mem::size_of::<UpdateNode>() <= 64,
            "{}",
            std::mem::size_of::<UpdateNode>()
        );
    }
}
