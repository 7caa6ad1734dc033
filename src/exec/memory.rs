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
            self.bytes.write_concrete(offset, bytes, *bits);
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
            Value::Concrete { bits, .. } => (0..n).map(|i| self.byte(*bits as u64 + i)).collect(),
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
                    self.set_byte(*bits as u64 + i as u64, b.clone());
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
/// stack only grows upwards they are inserted and removed at its end.
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

    pub fn len(&self) -> usize {
        self.objects.len() + self.stack.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{eval, Assignment};

    #[test]
    fn equal_contents_read_at_a_symbolic_offset_give_equal_expressions() {
        let index = expr::read(
            &UpdateList::new(Array::symbolic("mem_index", 1)),
            &expr::constant(0, 64),
        );
        let offset = expr::zext(&expr::and(&index, &expr::constant(3, 8)), 64);
        let table = || ObjectState::from_bytes(vec![10, 20, 30, 40]);
        let (a, b) = (table(), table());
        // Two objects (or two reads of one) with the same bytes: the same
        // lookup, which caches and stores can recognise.
        assert_eq!(
            a.read_symbolic(&offset, 1, 8),
            b.read_symbolic(&offset, 1, 8)
        );
        assert_eq!(
            a.read_symbolic(&offset, 1, 8),
            a.read_symbolic(&offset, 1, 8)
        );
        let other = ObjectState::from_bytes(vec![10, 20, 30, 41]);
        assert_ne!(
            a.read_symbolic(&offset, 1, 8),
            other.read_symbolic(&offset, 1, 8)
        );
    }

    fn object(addr: u64, size: u64) -> MemoryObject {
        MemoryObject {
            address: addr,
            size,
            kind: AllocKind::Heap,
            name: "o".into(),
            site: None,
            read_only: false,
        }
    }

    #[test]
    fn an_object_holds_the_bytes_that_end_by_its_end() {
        let o = object(0x1000, 16);
        assert!(o.holds(0x1000, 16));
        assert!(o.holds(0x100f, 1));
        assert!(o.holds(0x1010, 0));
        assert!(!o.holds(0x100f, 2));
        assert!(!o.holds(0xfff, 1));
        // A length near the top of the address space does not wrap around.
        assert!(!o.holds(0x1008, u64::MAX - 4));
    }

    #[test]
    fn concrete_bytes_stay_concrete_little_endian() {
        let mut o = ObjectState::zeroed(8);
        o.write(2, 4, &Value::concrete(0x1122_3344, 32));
        assert_eq!(o.read(2, 4, 32), Value::concrete(0x1122_3344, 32));
        assert_eq!(o.read(2, 1, 8), Value::concrete(0x44, 8));
        assert_eq!(o.read(0, 8, 64), Value::concrete(0x0000_1122_3344_0000, 64));
    }

    #[test]
    fn symbolic_bytes_mix_with_concrete_ones() {
        let arr = Array::symbolic("x", 2);
        let mut o = ObjectState::zeroed(4);
        o.write(0, 4, &Value::concrete(0xaabb_ccdd, 32));
        o.make_symbolic(1, &arr);
        let v = o.read(0, 4, 32);
        assert!(matches!(v, Value::Symbolic(_)));
        let mut a = Assignment::new();
        a.set(&arr, vec![0x01, 0x02]);
        assert_eq!(eval(&v.to_expr(), &a), 0xaa02_01dd);
        // Overwriting with a concrete value makes the byte concrete again.
        o.write(1, 2, &Value::concrete(0x7777, 16));
        assert_eq!(o.read(0, 4, 32), Value::concrete(0xaa77_77dd, 32));
    }

    #[test]
    fn a_large_object_keeps_only_its_symbolic_bytes() {
        let size = 64 << 20;
        let arr = Array::symbolic("big", 2);
        let mut o = ObjectState::zeroed(size);
        // Nothing is held for bytes nobody wrote but a page table.
        let untouched = o.footprint();
        assert!(untouched < size / 256, "{untouched}");
        o.make_symbolic(size - 2, &arr);
        // A slot per byte would be 8 bytes for each of the 64 MiB: the
        // last page and its slots are all that is added.
        assert!(o.footprint() - untouched <= 9 * 4096, "{}", o.footprint());
        let mut a = Assignment::new();
        a.set(&arr, vec![0x34, 0x12]);
        assert_eq!(eval(&o.read(size - 2, 2, 16).to_expr(), &a), 0x1234);
        assert_eq!(o.read(0, 2, 16), Value::concrete(0, 16));
        o.write(size - 2, 1, &Value::concrete(0x99, 8));
        assert_eq!(eval(&o.read(size - 2, 2, 16).to_expr(), &a), 0x1299);
        // The update list holds the one symbolic byte left.
        let idx = expr::constant((size - 1) as u128, 64);
        assert_eq!(eval(&expr::read(&o.update_list(), &idx), &a), 0x12);
    }

    #[test]
    fn a_write_at_a_symbolic_offset_is_seen_by_every_later_read() {
        let idx = Array::symbolic("i", 8);
        let list = UpdateList::new(idx.clone());
        let mut off = expr::read(&list, &expr::constant(0, 64));
        for k in 1..8 {
            off = expr::concat(&expr::read(&list, &expr::constant(k, 64)), &off);
        }
        let mut o = ObjectState::from_bytes(vec![10, 20, 30, 40]);
        o.write_symbolic(&off, 1, &Value::concrete(99, 8));
        let mut a = Assignment::new();
        for (i, expect) in [[99, 20, 30, 40], [10, 20, 99, 40]].iter().enumerate() {
            a.set(&idx, (2 * i as u64).to_le_bytes().to_vec());
            for (k, e) in expect.iter().enumerate() {
                let b = o.read(k as u64, 1, 8);
                assert_eq!(
                    eval(&b.to_expr(), &a),
                    *e as u128,
                    "byte {k} with index {}",
                    2 * i
                );
            }
            let r = o.read_symbolic(&off, 1, 8);
            assert_eq!(eval(&r.to_expr(), &a), 99);
        }
    }

    #[test]
    fn a_write_at_a_few_places_is_spread_over_them() {
        // A bit set of four 64-bit words, the word of character `c` written
        // with `c` in every byte: as `bitset_set (set, c)` writes its word.
        let arr = Array::symbolic("spread_c", 1);
        let c = expr::read(&UpdateList::new(arr.clone()), &expr::constant(0, 64));
        let word = expr::binary(
            crate::ir::BinOp::LShr,
            &expr::zext(&c, 64),
            &expr::constant(6, 64),
        );
        let offset = expr::mul(&expr::constant(8, 64), &word);
        let value = Value::from_expr(expr::concat(
            &expr::concat(&expr::concat(&c, &c), &expr::concat(&c, &c)),
            &expr::concat(&expr::concat(&c, &c), &expr::concat(&c, &c)),
        ));
        let mut spread = ObjectState::zeroed(32);
        spread.write_symbolic(&offset, 8, &value);
        assert!(spread.updates.is_none(), "kept as bytes at known places");
        // A second write goes to a list over the spread bytes.
        let mut twice = spread.clone();
        let one = Value::concrete(1, 8);
        twice.write_symbolic(&offset, 1, &one);
        assert!(twice.updates.is_some());
        // Over a wider object a byte offset has too many places: a list.
        let wide_offset = expr::zext(&c, 64);
        let mut listed = ObjectState::zeroed(300);
        listed.write_symbolic(&wide_offset, 1, &Value::from_expr(c.clone()));
        assert!(listed.updates.is_some());
        let mut a = Assignment::new();
        for v in 0..=255u8 {
            a.set(&arr, vec![v]);
            for k in 0..32u64 {
                let expect = if k / 8 == u64::from(v >> 6) { v } else { 0 };
                let got = eval(&spread.read(k, 1, 8).to_expr(), &a);
                assert_eq!(got, u128::from(expect), "byte {k} with c = {v}");
            }
            for k in 0..32u64 {
                let first = if k / 8 == u64::from(v >> 6) { v } else { 0 };
                let expect = if k == u64::from(v >> 6) * 8 { 1 } else { first };
                let got = eval(&twice.read(k, 1, 8).to_expr(), &a);
                assert_eq!(got, u128::from(expect), "byte {k} with c = {v}, twice");
            }
            let back = spread.read_symbolic(&offset, 8, 64);
            assert_eq!(eval(&back.to_expr(), &a), eval(&value.to_expr(), &a));
            for k in [0u64, u64::from(v), 299] {
                let expect = if k == u64::from(v) { v } else { 0 };
                let got = eval(&listed.read(k, 1, 8).to_expr(), &a);
                assert_eq!(got, u128::from(expect), "byte {k} with c = {v}");
            }
        }
    }

    #[test]
    fn every_instance_counts_the_bytes_it_holds() {
        let mut o = ObjectState::zeroed(1000);
        assert_eq!(o.footprint(), 1000);
        assert_eq!(o.counted, 1000);
        // A symbolic byte brings the table of symbolic bytes.
        o.make_symbolic(3, &Array::symbolic("s", 1));
        let with_table = 1000 + 1000 * std::mem::size_of::<Option<ExprRef>>() as u64;
        assert_eq!(o.counted, with_table);
        let copy = o.clone();
        assert_eq!(copy.counted, with_table);
        // Written at a symbolic offset, the bytes live in the list's root
        // alone.
        let idx = expr::read(
            &UpdateList::new(Array::symbolic("i", 8)),
            &expr::constant(0, 64),
        );
        o.write_symbolic(&expr::zext(&idx, 64), 1, &Value::concrete(1, 8));
        assert_eq!(o.counted, 1000);
        assert_eq!(o.footprint(), 1000);
        assert_eq!(o.size(), 1000);
        assert_eq!(eval(&o.read(3, 1, 8).to_expr(), &Assignment::new()), 0);
    }

    /// The first four bytes of the live object at `base`.
    fn first_word(m: &AddressSpace, base: u64) -> Value {
        m.get(base).expect("live").state.read(0, 4, 32)
    }

    #[test]
    fn stack_objects_and_the_others_answer_as_one_address_space() {
        let stack = |addr, size| MemoryObject {
            kind: AllocKind::Stack,
            ..object(addr, size)
        };
        let mut m = AddressSpace::default();
        // Interleaved by address, inserted out of order.
        m.insert(stack(0x3000, 8), ObjectState::zeroed(8));
        m.insert(object(0x1000, 16), ObjectState::zeroed(16));
        m.insert(stack(0x2000, 4), ObjectState::zeroed(4));
        m.insert(object(0x4000, 4), ObjectState::zeroed(4));
        m.insert(stack(0x5000, 2), ObjectState::zeroed(2));
        assert_eq!(m.len(), 5);
        fn bases(m: &AddressSpace, from: u64) -> Vec<u64> {
            m.objects_from(from).map(|e| e.object.address).collect()
        }
        assert_eq!(bases(&m, 0), [0x1000, 0x2000, 0x3000, 0x4000, 0x5000]);
        assert_eq!(bases(&m, 0x2000), [0x2000, 0x3000, 0x4000, 0x5000]);
        assert_eq!(bases(&m, 0x3001), [0x4000, 0x5000]);
        for (addr, base) in [
            (0x1003, 0x1000),
            (0x2003, 0x2000),
            (0x3007, 0x3000),
            (0x5001, 0x5000),
        ] {
            assert_eq!(m.find(addr).map(|e| e.object.address), Some(base));
        }
        assert!(m.find(0x2004).is_none());
        assert!(m.find(0x5002).is_none());
        assert_eq!(m.gap_around(0x2010), (0x2004, 0x3000));
        assert_eq!(m.gap_around(0x3100), (0x3008, 0x4000));
        assert_eq!(m.gap_around(0x6000), (0x5002, u64::MAX));
        assert_eq!(m.below(0x3100).map(|o| o.address), Some(0x3000));
        assert_eq!(m.below(0x4100).map(|o| o.address), Some(0x4000));
        assert_eq!(m.get(0x3000).map(|e| e.object.size), Some(8));
        assert!(m.get(0x3001).is_none());

        // A write to a stack object leaves a copy of the space alone.
        let copy = m.clone();
        m.state_mut(0x3000)
            .expect("live")
            .write(0, 4, &Value::concrete(7, 32));
        assert_eq!(first_word(&m, 0x3000), Value::concrete(7, 32));
        assert_eq!(first_word(&copy, 0x3000), Value::concrete(0, 32));

        // A stack object removed is gone, and not freed as heap is.
        assert!(m.remove(0x5000).is_some());
        assert!(m.remove(0x2000).is_some());
        assert!(m.find(0x2001).is_none());
        assert!(m.find_freed(0x2001).is_none());
        assert_eq!(bases(&m, 0), [0x1000, 0x3000, 0x4000]);
        assert_eq!(copy.len(), 5);
    }

    #[test]
    fn address_space_finds_objects_and_remembers_freed_ones() {
        let mut m = AddressSpace::default();
        m.insert(object(0x1000, 16), ObjectState::zeroed(16));
        m.insert(object(0x2000, 4), ObjectState::zeroed(4));
        assert_eq!(m.find(0x100f).map(|e| e.object.address), Some(0x1000));
        assert!(m.find(0x1010).is_none());
        assert!(m.find(0x0fff).is_none());
        let copy = m.clone();
        m.state_mut(0x2000)
            .expect("live")
            .write(0, 4, &Value::concrete(5, 32));
        assert_eq!(first_word(&copy, 0x2000), Value::concrete(0, 32));
        m.remove(0x2000);
        assert!(m.find(0x2001).is_none());
        assert_eq!(m.find_freed(0x2001).map(|o| o.address), Some(0x2000));
        assert_eq!(copy.len(), 2);
    }
}
