//! KLEE's object memory model: every allocation is an object at a concrete
//! address, and the address space maps addresses to objects.
//!
//! An object's contents keep their bytes at known places (concrete ones,
//! and symbolic ones where they exist; a large object's in pages its copies
//! share, see [`super::contents`]); once the object is written at a
//! symbolic offset its contents become an update list over an array, so
//! later reads at symbolic offsets see every write.

use std::sync::Arc;

use imbl::OrdMap;

use super::budget;
use super::contents::Bytes;
use super::value::{Byte, Value};
use crate::expr::{self, Array, ExprRef, UpdateList};
use crate::ir::{FuncId, InstId};

/// The most places a write at a symbolic offset is spread over, as one
/// select per place and byte, before the object becomes an update list.
const SPREAD_LIMIT: u128 = 16;

/// Where an object lives; decides which frees and accesses are legal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AllocKind {
    Stack,
    Heap,
    Global,
    /// Objects the engine creates for the program: argv strings, varargs.
    Runtime,
}

/// An allocation's identity: where it is and what it is. Immutable.
#[derive(Debug)]
pub struct MemoryObject {
    pub address: u64,
    pub size: u64,
    pub kind: AllocKind,
    /// A name for messages (the global's or variable's name, or "malloc"):
    /// shared, as every alloca of a function has the same one.
    pub name: Arc<str>,
    /// The instruction that allocated it, if any.
    pub site: Option<(FuncId, InstId)>,
    /// Writes are errors (constant globals such as string literals).
    pub read_only: bool,
}

impl MemoryObject {
    #[inline]
    pub fn contains(&self, addr: u64) -> bool {
        addr >= self.address && addr - self.address < self.size.max(1)
    }

    /// Whether the `bytes` bytes at `addr` all lie in the object, without
    /// overflow for any length a program may give.
    #[inline]
    pub fn holds(&self, addr: u64, bytes: u64) -> bool {
        addr.checked_sub(self.address)
            .and_then(|offset| offset.checked_add(bytes))
            .is_some_and(|end| end <= self.size)
    }
}

/// The constant array holding `bytes`, the root of an object read at a
/// symbolic offset: named by its contents and shared, so that every read
/// of the same contents (a lookup table such as cksum's `crctab`, read once
/// per input byte on every path) is over the same array. With a fresh array
/// per read, equal lookups were different expressions: the caches and
/// stores never matched them, and Z3 saw a new array each time.
fn contents_array(bytes: &[u8]) -> crate::expr::ArrayRef {
    let bytes = &bytes[..bytes.len().min(u32::MAX as usize)];
    let digest = blake3::hash(bytes).to_hex();
    let name = format!("mem-{}", &digest[..32]);
    Array::shared(&name, bytes.len() as u32, Some(bytes.into()))
}

/// The contents of one object.
///
/// Every instance counts the bytes it holds in the process's object count
/// (`budget`), which `--max-memory` limits: contents shared copy-on-write
/// between states are one instance, counted once; a copy made on write is
/// counted in full, even where it still shares the constant array of a
/// flushed object with the original (an overestimate).
#[derive(Debug)]
pub struct ObjectState {
    size: u64,
    /// The bytes while no write at a symbolic offset happened (then none:
    /// the update list's root holds them).
    bytes: Bytes,
    /// Set once the object has been written at a symbolic offset: from then
    /// on it is the whole truth about the contents.
    updates: Option<UpdateList>,
    /// The bytes counted for this instance.
    counted: u64,
}

impl Clone for ObjectState {
    fn clone(&self) -> Self {
        ObjectState::counting(self.size, self.bytes.clone(), self.updates.clone())
    }
}

impl Drop for ObjectState {
    fn drop(&mut self) {
        budget::count(self.counted, 0);
    }
}

impl ObjectState {
    pub fn zeroed(size: u64) -> ObjectState {
        ObjectState::counting(size, Bytes::zeroed(size), None)
    }

    pub fn from_bytes(bytes: Vec<u8>) -> ObjectState {
        ObjectState::counting(bytes.len() as u64, Bytes::from_vec(bytes), None)
    }

    /// An object whose contents are `array`'s bytes (a summary's input:
    /// nothing is held until it is written).
    pub fn of_array(array: crate::expr::ArrayRef) -> ObjectState {
        let size = array.size as u64;
        ObjectState::counting(size, Bytes::none(), Some(UpdateList::new(array)))
    }

    /// Contents of `size` bytes, what they hold counted.
    fn counting(size: u64, bytes: Bytes, updates: Option<UpdateList>) -> ObjectState {
        let mut o = ObjectState {
            size,
            bytes,
            updates,
            counted: 0,
        };
        o.recount();
        o
    }

    /// The bytes this instance reaches: its buffers (the pages of a large
    /// object, which copies share, included), or the constant array its
    /// contents became when first written at a symbolic offset.
    pub fn footprint(&self) -> u64 {
        self.bytes.footprint() + self.root_footprint()
    }

    fn root_footprint(&self) -> u64 {
        self.updates
            .as_ref()
            .and_then(|u| u.root.init.as_ref())
            .map_or(0, |b| b.len() as u64)
    }

    /// Brings the count of what this instance holds alone up to date
    /// after its buffers changed (pages count themselves).
    fn recount(&mut self) {
        let now = self.bytes.own_footprint() + self.root_footprint();
        budget::count(self.counted, now);
        self.counted = now;
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The byte at a concrete offset (in bounds).
    pub fn byte(&self, offset: u64) -> Byte {
        if let Some(updates) = &self.updates {
            return Byte::from_expr(expr::read(updates, &expr::constant(offset as u128, 64)));
        }
        match self.bytes.get(offset) {
            Ok(e) => Byte::Symbolic(e.clone()),
            Err(v) => Byte::Concrete(v),
        }
    }

    pub fn set_byte(&mut self, offset: u64, byte: Byte) {
        if let Some(updates) = &self.updates {
            self.updates = Some(updates.write(expr::constant(offset as u128, 64), byte.to_expr()));
            return;
        }
        match byte {
            Byte::Concrete(v) => self.bytes.set_concrete(offset, v),
            Byte::Symbolic(e) => {
                let before = self.bytes.own_footprint();
                self.bytes.set_symbolic(offset, e);
                if self.bytes.own_footprint() != before {
                    self.recount();
                }
            }
        }
    }

    /// Reads `bytes` bytes at a concrete offset as a `width`-bit value.
    pub fn read(&self, offset: u64, bytes: u32, width: u32) -> Value {
        if self.updates.is_none() && self.bytes.all_concrete() {
            let bits = self.bytes.read_concrete(offset, bytes.min(16));
            return Value::concrete(bits, width);
        }
        let bs: Vec<Byte> = (0..bytes as u64).map(|i| self.byte(offset + i)).collect();
        Value::from_bytes(&bs, width)
    }

    pub fn write(&mut self, offset: u64, bytes: u32, value: &Value) {
        if let (Value::Concrete { bits, .. }, None, true) =
            (value, &self.updates, self.bytes.all_concrete())
        {
            self.bytes.write_concrete(offset, bytes, bits.get());
            return;
        }
        for i in 0..bytes {
            self.set_byte(offset + i as u64, value.byte(i));
        }
    }

    /// The contents as an update list.
    fn update_list(&self) -> UpdateList {
        if let Some(u) = &self.updates {
            return u.clone();
        }
        let root = contents_array(&self.bytes.to_vec());
        let mut list = UpdateList::new(root);
        for (i, e) in self.bytes.symbolic() {
            list = list.write(expr::constant(i as u128, 64), e);
        }
        list
    }

    /// The contents as an update list, switching to that representation:
    /// the flat buffers are freed, the list's root holds the bytes.
    fn flush(&mut self) -> UpdateList {
        if self.updates.is_none() {
            self.updates = Some(self.update_list());
            self.bytes = Bytes::none();
            self.recount();
        }
        self.update_list()
    }

    /// Reads at a symbolic offset (known to be in bounds under the path).
    pub fn read_symbolic(&self, offset: &ExprRef, bytes: u32, width: u32) -> Value {
        let list = self.update_list();
        let bs: Vec<Byte> = (0..bytes as u128)
            .map(|i| {
                let idx = expr::add(offset, &expr::constant(i, 64));
                Byte::from_expr(expr::read(&list, &idx))
            })
            .collect();
        Value::from_bytes(&bs, width)
    }

    /// Writes at a symbolic offset (known to be in bounds under the path).
    pub fn write_symbolic(&mut self, offset: &ExprRef, bytes: u32, value: &Value) {
        if self.spread_write(offset, bytes, value) {
            return;
        }
        let mut list = self.flush();
        for i in 0..bytes {
            let idx = expr::add(offset, &expr::constant(i as u128, 64));
            list = list.write(idx, value.byte(i).to_expr());
        }
        self.updates = Some(list);
    }

    /// The `n` bytes at `offset`, concrete or symbolic (in bounds under
    /// the path): what a memcpy reads.
    pub fn bytes_at(&self, offset: &Value, n: u64) -> Vec<Byte> {
        match offset {
            Value::Concrete { bits, .. } => {
                (0..n).map(|i| self.byte(bits.get() as u64 + i)).collect()
            }
            Value::Symbolic(off) => {
                // One list for all the bytes: building it copies the object.
                let list = self.update_list();
                (0..n)
                    .map(|i| {
                        let idx = expr::add(off, &expr::constant(u128::from(i), 64));
                        Byte::from_expr(expr::read(&list, &idx))
                    })
                    .collect()
            }
        }
    }

    /// Writes `bytes` at `offset`, concrete or symbolic (in bounds under the
    /// path): what a memcpy or memset writes. At a symbolic offset they go
    /// as stores of up to 16 bytes, so that a struct's copy is one store.
    pub fn set_bytes_at(&mut self, offset: &Value, bytes: &[Byte]) {
        match offset {
            Value::Concrete { bits, .. } => {
                for (i, b) in bytes.iter().enumerate() {
                    self.set_byte(bits.get() as u64 + i as u64, b.clone());
                }
            }
            Value::Symbolic(off) => {
                for (k, chunk) in bytes.chunks(16).enumerate() {
                    let at = expr::add(off, &expr::constant(16 * k as u128, 64));
                    let n = chunk.len() as u32;
                    self.write_symbolic(&at, n, &Value::from_bytes(chunk, 8 * n));
                }
            }
        }
    }

    /// Writes at each offset a symbolic `offset` can take, each under the
    /// condition that it is that one, when there are at most
    /// [`SPREAD_LIMIT`] of them. A regular expression's bit set written at
    /// `8 * (c >> 6)` for a symbolic character `c` stays bytes at known
    /// places: as an update list, every later read of the set was a read
    /// through symbolic writes, and `expr`'s queries on such paths took
    /// 90 ms each instead of 3.
    ///
    /// Only the first such write is spread, into bytes that are all
    /// concrete: a histogram's four increments, each reading the counts
    /// the last one spread, made select chains that took Z3 2.2 times as
    /// long as the update list.
    fn spread_write(&mut self, offset: &ExprRef, bytes: u32, value: &Value) -> bool {
        if self.updates.is_some() || !self.bytes.all_concrete() {
            return false;
        }
        let Some(last) = self.size.checked_sub(u64::from(bytes)) else {
            return false;
        };
        let (lo, hi) = expr::unsigned_range(offset);
        let hi = hi.min(u128::from(last));
        let step = 1u128 << expr::zero_low_bits(offset).min(63);
        let first = lo.next_multiple_of(step);
        if first > hi || (hi - first) / step >= SPREAD_LIMIT {
            return false;
        }
        for k in (first..=hi).step_by(step as usize) {
            let here = expr::eq(offset, &expr::constant(k, 64));
            for i in 0..bytes {
                let at = k as u64 + u64::from(i);
                let kept = self.byte(at).to_expr();
                let byte = expr::select(&here, &value.byte(i).to_expr(), &kept);
                self.set_byte(at, Byte::from_expr(byte));
            }
        }
        true
    }

    /// Makes a byte range symbolic with the given array's bytes.
    pub fn make_symbolic(&mut self, offset: u64, array: &crate::expr::ArrayRef) {
        let list = UpdateList::new(array.clone());
        for i in 0..array.size as u64 {
            let byte = expr::read(&list, &expr::constant(i as u128, 64));
            self.set_byte(offset + i, Byte::from_expr(byte));
        }
    }
}

/// A live object and its contents, shared copy-on-write between states.
#[derive(Clone, Debug)]
pub struct ObjectEntry {
    pub object: Arc<MemoryObject>,
    pub state: Arc<ObjectState>,
}

/// The objects of one state, by base address. Cloning is O(1); a write
/// copies only the object it touches and the index that leads to it.
///
/// Stack objects are kept apart from the others, in a flat list by
/// address, as KLEE binds allocas to their frame: every call inserts its
/// allocas and every return removes them, and in the map each of those
/// after a fork copied the tree's nodes from the root (2.3 KB each), which
/// made up most of what a pending path held on a loop that prints. The
/// live stack objects are few, so copying their list is cheap, and as the
/// stack only grows upwards they are inserted and removed at its end. The
/// list holds the running thread's alone: a parked thread's wait in the
/// map ([`AddressSpace::park_stack`]).
///
/// The maps' nodes are small (`imbl`'s `small-chunks`): the first write to
/// a global after a fork copies the nodes on the way to it, four entries
/// each, where nodes of 64 made a loop that updates a global counter keep
/// 2 KB more on every pending path (a third of the run's memory).
#[derive(Clone, Debug, Default)]
pub struct AddressSpace {
    /// Globals, heap and runtime objects.
    objects: OrdMap<u64, ObjectEntry>,
    /// Stack objects, by address.
    stack: Arc<Vec<ObjectEntry>>,
    /// Heap objects already freed, to tell use-after-free from a wild pointer.
    freed: OrdMap<u64, Arc<MemoryObject>>,
}

impl AddressSpace {
    pub fn insert(&mut self, object: MemoryObject, state: ObjectState) -> Arc<MemoryObject> {
        let object = Arc::new(object);
        let entry = ObjectEntry {
            object: object.clone(),
            state: Arc::new(state),
        };
        if object.kind == AllocKind::Stack {
            let stack = Arc::make_mut(&mut self.stack);
            let at = stack.partition_point(|e| e.object.address < object.address);
            if stack
                .get(at)
                .is_some_and(|e| e.object.address == object.address)
            {
                stack[at] = entry;
            } else {
                stack.insert(at, entry);
            }
        } else {
            self.objects.insert(object.address, entry);
        }
        object
    }

    /// The position in the stack list of the last object based at or
    /// below `addr`.
    fn stack_at_or_below(&self, addr: u64) -> Option<usize> {
        // Most accesses are to the newest frame's objects, at the end.
        let last = self.stack.last()?;
        if addr >= last.object.address {
            return Some(self.stack.len() - 1);
        }
        self.stack
            .partition_point(|e| e.object.address <= addr)
            .checked_sub(1)
    }

    /// The live object based at or below `addr` that ends last: the
    /// candidate to contain it.
    fn at_or_below(&self, addr: u64) -> Option<&ObjectEntry> {
        let stacked = self.stack_at_or_below(addr).map(|i| &self.stack[i]);
        // get_prev walks down the tree; a range iterator would allocate
        // its paths, and this is every load's and store's lookup.
        let mapped = self.objects.get_prev(&addr).map(|(_, e)| e);
        match (stacked, mapped) {
            (Some(s), Some(m)) => Some(if s.object.address > m.object.address {
                s
            } else {
                m
            }),
            (s, m) => s.or(m),
        }
    }

    /// The live object containing `addr`. Objects do not overlap, so a
    /// stack object that holds it is the one: most loads and stores are
    /// to the stack, and they skip the map's walk.
    pub fn find(&self, addr: u64) -> Option<&ObjectEntry> {
        let holds = |entry: &&ObjectEntry| entry.object.contains(addr);
        self.stack_at_or_below(addr)
            .map(|i| &self.stack[i])
            .filter(holds)
            .or_else(|| self.objects.get_prev(&addr).map(|(_, e)| e).filter(holds))
    }

    /// The freed object that contained `addr`, if any.
    pub fn find_freed(&self, addr: u64) -> Option<&Arc<MemoryObject>> {
        let (_, obj) = self.freed.get_prev(&addr)?;
        obj.contains(addr).then_some(obj)
    }

    /// The addresses around `addr`, which is in no object, that no object
    /// covers: from the end of the object below to the start of the one above.
    pub fn gap_around(&self, addr: u64) -> (u64, u64) {
        let lo = self
            .at_or_below(addr)
            .map_or(0, |e| e.object.address + e.object.size);
        let hi = self
            .objects_from(addr)
            .next()
            .map_or(u64::MAX, |e| e.object.address);
        (lo.min(addr), hi)
    }

    /// The live object that ends last at or below `addr`, which is in no
    /// object: the one an access at `addr` most likely overran.
    pub fn below(&self, addr: u64) -> Option<&Arc<MemoryObject>> {
        self.at_or_below(addr).map(|e| &e.object)
    }

    /// The live objects at `addr` and above, in address order.
    pub fn objects_from(&self, addr: u64) -> impl Iterator<Item = &ObjectEntry> {
        let first = self.stack.partition_point(|e| e.object.address < addr);
        let mut stacked = self.stack[first..].iter().peekable();
        let mut mapped = self.objects.range(addr..).map(|(_, e)| e).peekable();
        std::iter::from_fn(move || match (stacked.peek(), mapped.peek()) {
            (Some(s), Some(m)) if s.object.address < m.object.address => stacked.next(),
            (_, Some(_)) => mapped.next(),
            (_, None) => stacked.next(),
        })
    }

    fn stack_index(&self, base: u64) -> Option<usize> {
        let i = self.stack_at_or_below(base)?;
        (self.stack[i].object.address == base).then_some(i)
    }

    pub fn get(&self, base: u64) -> Option<&ObjectEntry> {
        match self.stack_index(base) {
            Some(i) => Some(&self.stack[i]),
            None => self.objects.get(&base),
        }
    }

    /// Mutable contents of the object at `base` (copied if shared).
    pub fn state_mut(&mut self, base: u64) -> Option<&mut ObjectState> {
        let entry = match self.stack_index(base) {
            Some(i) => &mut Arc::make_mut(&mut self.stack)[i],
            None => self.objects.get_mut(&base)?,
        };
        Some(Arc::make_mut(&mut entry.state))
    }

    /// Removes a live object; heap objects are remembered as freed.
    pub fn remove(&mut self, base: u64) -> Option<ObjectEntry> {
        if let Some(i) = self.stack_index(base) {
            return Some(Arc::make_mut(&mut self.stack).remove(i));
        }
        let entry = self.objects.remove(&base)?;
        if entry.object.kind == AllocKind::Heap {
            self.freed.insert(base, entry.object.clone());
        }
        Some(entry)
    }

    /// Moves the running thread's stack objects into the map as it goes
    /// off: the list stays one thread's, so a return removes at its end
    /// (interleaved threads' frames made every return move the objects
    /// of the threads that called after it).
    pub fn park_stack(&mut self) {
        for entry in Arc::unwrap_or_clone(std::mem::take(&mut self.stack)) {
            self.objects.insert(entry.object.address, entry);
        }
    }

    /// Takes the stack objects at `bases`, the thread going on's, back
    /// from the map into the list.
    pub fn unpark_stack(&mut self, bases: impl IntoIterator<Item = u64>) {
        let stack = Arc::make_mut(&mut self.stack);
        stack.extend(bases.into_iter().filter_map(|b| self.objects.remove(&b)));
        stack.sort_unstable_by_key(|e| e.object.address);
    }

    pub fn len(&self) -> usize {
        self.objects.len() + self.stack.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests;
