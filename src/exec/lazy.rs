//! Lazy initialisation of a summary's memory inputs (as UC-KLEE does, and
//! the lazy initialisation of Qiu et al., ICSE 2015, §IV): while a function
//! is summarised alone, the memory it reaches through a pointer parameter,
//! through a pointer read from such memory, or at a global's address does
//! not exist yet. It is made on first access, with symbolic contents: a
//! global when an address falls into it, and for a pointer its first
//! dereference forks the path over what the pointer may be, each
//! assumption recorded in the path's heap condition:
//!
//! - null (the access is then a null dereference, as it would be at a call
//!   passing null);
//! - a fresh object of [`LAZY_OBJECT_SIZE`] bytes, distinct from every
//!   other input object;
//! - for a parameter only, the object of an earlier pointer parameter (the
//!   same address). A pointer read from memory is never assumed to alias:
//!   a call whose memory has one pointing back into an input is executed
//!   as usual instead (the bound of this lazy initialisation).
//!
//! Pointer values stay the symbolic input they are (`@param0`, the bytes of
//! an input object): only where they point is decided, so a path's
//! conditions never mention the addresses objects have while summarising.
//! The forks are no choice points: a call site replays the callee on its
//! own memory, where the pointer is what it is and nothing forks.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::executor::{Exec, Executor, Flow};
use super::memory::{AllocKind, MemoryObject, ObjectState};
use super::state::State;
use super::value::Value;
use crate::expr::{self, Array, ArrayRef, ExprKind, ExprRef, UpdateList};

/// Bytes a lazily made object has: an access beyond them (or before the
/// pointer) leaves the function without a summary (`input-bound`).
pub const LAZY_OBJECT_SIZE: u64 = 1024;
/// Input objects one path may make before the function is refused.
pub const MAX_INPUT_OBJECTS: usize = 64;
/// Where lazily made objects are placed, and where the objects a summarised
/// function allocates itself go: ranges a run's own objects never reach,
/// so that a comparison of an input pointer with one of them is false at
/// every call site too.
const INPUT_BASE: u64 = 0x6000_0000_0000;
pub(crate) const SUMMARY_HEAP_BASE: u64 = 0x6800_0000_0000;
pub(crate) const SUMMARY_STACK_BASE: u64 = 0x7800_0000_0000;

/// Where an input pointer of a summary comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum PointerOrigin {
    /// Parameter `i`.
    Param(u32),
    /// The 8 bytes at `offset` of input object `object`, as the call found them.
    Field { object: u32, offset: u64 },
}

/// What a path assumed of an input pointer at its first dereference.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Assumed {
    Null,
    /// A fresh object: the next input object.
    Fresh,
    /// The same address as the pointer that made this input object.
    Alias(u32),
}

/// One step of a path's heap condition, in the order the path took them.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum HeapEvent {
    /// An input pointer dereferenced for the first time; `offered`: the
    /// objects it could have aliased (what the summary covers).
    Pointer {
        origin: PointerOrigin,
        assumed: Assumed,
        offered: Vec<u32>,
    },
    /// A global reached at its address: the next input object.
    Global,
}

/// What an input object stands for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum InputKind {
    /// Made for a pointer assumed fresh; its first bytes are the caller's
    /// at that pointer.
    Lazy,
    /// A global, at the address it has in the module.
    Global {
        name: String,
        address: u64,
        size: u64,
        read_only: bool,
        /// A hash of its contents where it is read-only (they are not
        /// inputs then, but part of the summary).
        contents: u64,
    },
}

/// An object of a path's heap condition.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct InputObject {
    pub kind: InputKind,
    /// Bytes from its start the path read or wrote (a global: all of it).
    pub extent: u64,
    pub written: bool,
}

/// A path's heap condition: what it assumed of its memory inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct HeapCondition {
    pub events: Vec<HeapEvent>,
    pub objects: Vec<InputObject>,
}

impl HeapCondition {
    /// Whether the path assumed nothing of memory.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// Why a path's memory cannot be carried to a call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputRefusal {
    /// A symbolic address that is not an input pointer plus a constant.
    SymbolicPointer,
    /// An access outside a lazily made object's bytes, or too many objects.
    Bound,
}

/// The memory inputs of a path being summarised: its heap condition so
/// far, and where each dereferenced pointer points.
#[derive(Clone, Debug, Default)]
pub struct InputHeap {
    pub condition: HeapCondition,
    /// Each input object's address while summarising.
    addresses: Vec<u64>,
    /// Pointers dereferenced so far: the pointer and its object (`None`: null).
    roots: Vec<(ExprRef, Option<u32>)>,
    /// The pointer that made each object (globals: none).
    made_by: Vec<Option<ExprRef>>,
    /// Set when the path cannot be summarised.
    pub refused: Option<InputRefusal>,
}

impl InputHeap {
    fn object_at(&self, base: u64) -> Option<usize> {
        self.addresses.iter().position(|a| *a == base)
    }

    fn touch(&mut self, object: usize, end: u64) {
        let o = &mut self.condition.objects[object];
        o.extent = o.extent.max(end);
    }
}

/// The name of the array holding input object `i`'s first contents.
pub fn input_array_name(i: usize) -> String {
    format!("@in{i}")
}

/// The input object an array stands for, if it is one.
pub fn input_array_object(name: &str) -> Option<usize> {
    name.strip_prefix("@in")?.parse().ok()
}

/// A pointer as its input and a constant byte offset, where it is one.
fn split_offset(p: &ExprRef) -> (ExprRef, u64) {
    if let ExprKind::Binary {
        op: crate::ir::BinOp::Add,
        lhs,
        rhs,
    } = p.kind()
    {
        if let Some(c) = lhs.as_const() {
            return (rhs.clone(), c as u64);
        }
        if let Some(c) = rhs.as_const() {
            return (lhs.clone(), c as u64);
        }
    }
    (p.clone(), 0)
}

/// The 64-bit little-endian word at `first` of an array's first contents.
pub fn word_of(array: &ArrayRef, first: u64) -> ExprRef {
    let list = UpdateList::new(array.clone());
    let mut e = expr::read(&list, &expr::constant(first as u128, 64));
    for k in 1..8 {
        let b = expr::read(&list, &expr::constant((first + k) as u128, 64));
        e = expr::concat(&b, &e);
    }
    e
}

/// The value a concatenation of bytes was cut from, where every piece is
/// exactly the bits of one expression at its place (what extracting those
/// bits builds, simplified the same way): the pieces then are that value.
fn rebuilt(p: &ExprRef) -> Option<ExprRef> {
    let mut pieces: Vec<(u32, ExprRef)> = Vec::new();
    let mut stack = vec![(0u32, p.clone())];
    while let Some((at, e)) = stack.pop() {
        match e.kind() {
            ExprKind::Concat { hi, lo } => {
                stack.push((at + lo.width(), hi.clone()));
                stack.push((at, lo.clone()));
            }
            _ => pieces.push((at, e.clone())),
        }
    }
    let whole = pieces.iter().find_map(|(_, e)| match e.kind() {
        ExprKind::Extract { expr: x, .. } if x.width() == p.width() => Some(x.clone()),
        _ => None,
    })?;
    pieces
        .iter()
        .all(|(at, e)| expr::extract(&whole, *at, e.width()) == *e)
        .then_some(whole)
}

/// The array and first index of a 64-bit little-endian word read from an
/// array's first contents at consecutive constant indices.
pub fn input_word(e: &ExprRef) -> Option<(ArrayRef, u64)> {
    if e.width() != 64 {
        return None;
    }
    let mut bytes = Vec::with_capacity(8);
    let mut stack = vec![e.clone()];
    // Low bytes first: a concat's low half, then its high half.
    while let Some(x) = stack.pop() {
        match x.kind() {
            ExprKind::Concat { hi, lo } => {
                stack.push(hi.clone());
                stack.push(lo.clone());
            }
            ExprKind::Read { updates, index } if updates.head.is_none() => {
                bytes.push((updates.root.clone(), index.as_const()? as u64));
            }
            _ => return None,
        }
    }
    let (array, first) = bytes.first()?.clone();
    let consecutive = bytes
        .iter()
        .enumerate()
        .all(|(i, (a, k))| Arc::ptr_eq(a, &array) && *k == first + i as u64);
    (bytes.len() == 8 && consecutive && array.init.is_none()).then_some((array, first))
}

impl Executor {
    /// Starts tracking a summarised path's memory inputs, and places the
    /// objects it allocates away from a run's.
    pub(crate) fn track_inputs(state: &mut State) {
        state.inputs = Some(Arc::default());
        state.next_heap = SUMMARY_HEAP_BASE;
        state.next_stack = SUMMARY_STACK_BASE;
    }

    /// Ends a summarised path that cannot be carried to a call site.
    pub(crate) fn refuse_inputs(&self, state: &mut State, why: InputRefusal) -> Flow {
        if let Some(inputs) = &mut state.inputs {
            Arc::make_mut(inputs).refused.get_or_insert(why);
        }
        self.error(
            state,
            super::end::ErrorKind::Ptr,
            "memory a summary cannot carry to its calls",
        )
    }

    /// Resolves an access through a symbolic pointer while summarising:
    /// an input pointer plus a constant, its object made on first use.
    pub(super) fn resolve_input(
        &mut self,
        state: &mut State,
        p: &ExprRef,
        bytes: u64,
    ) -> Exec<(u64, Value)> {
        let Some((root, offset)) = Self::pointer_form(p) else {
            return Err(self.refuse_inputs(state, InputRefusal::SymbolicPointer));
        };
        let known = state
            .inputs
            .as_ref()
            .and_then(|h| h.roots.iter().find(|(r, _)| *r == root).map(|(_, o)| *o));
        let object = match known {
            Some(o) => o,
            None => self.bind_pointer(state, &root)?,
        };
        let Some(object) = object else {
            // Null plus the offset, as a call passing null would see it.
            return Err(self.bad_address(state, offset, bytes));
        };
        let end = offset.checked_add(bytes).filter(|e| *e <= LAZY_OBJECT_SIZE);
        let (Some(end), Some(inputs)) = (end, state.inputs.as_mut()) else {
            return Err(self.refuse_inputs(state, InputRefusal::Bound));
        };
        let inputs = Arc::make_mut(inputs);
        inputs.touch(object as usize, end);
        let base = inputs.addresses[object as usize];
        Ok((base, Value::concrete(offset as u128, 64)))
    }

    /// A pointer as an input word plus a constant, where it is one: as
    /// built, or as it comes back from memory (a pointer stored and loaded
    /// again is rebuilt byte by byte, some bytes simplified on their own).
    fn pointer_form(p: &ExprRef) -> Option<(ExprRef, u64)> {
        // A pointer stepped in a loop nests one rebuilt sum in the next.
        let (mut e, mut offset) = (p.clone(), 0u64);
        loop {
            let (root, c) = split_offset(&rebuilt(&e).unwrap_or_else(|| e.clone()));
            offset = offset.wrapping_add(c);
            if input_word(&root).is_some() {
                return Some((root, offset));
            }
            if root == e {
                return None;
            }
            e = root;
        }
    }

    /// Decides what an input pointer dereferenced for the first time points
    /// to, forking the path over the possibilities; returns this state's.
    fn bind_pointer(&mut self, state: &mut State, root: &ExprRef) -> Exec<Option<u32>> {
        let origin = match self.pointer_origin(state, root) {
            Some(o) => o,
            None => return Err(self.refuse_inputs(state, InputRefusal::SymbolicPointer)),
        };
        let heap = state.inputs.clone().unwrap_or_default();
        if heap.condition.objects.len() >= MAX_INPUT_OBJECTS {
            return Err(self.refuse_inputs(state, InputRefusal::Bound));
        }
        // Objects a parameter may share with an earlier parameter.
        let offered: Vec<u32> = match origin {
            PointerOrigin::Param(_) => heap
                .made_by
                .iter()
                .enumerate()
                .filter(|(_, by)| {
                    by.as_ref()
                        .is_some_and(|r| matches!(self.param_of(r), Some(PointerOrigin::Param(_))))
                })
                .map(|(i, _)| i as u32)
                .collect(),
            PointerOrigin::Field { .. } => Vec::new(),
        };
        let zero = expr::constant(0, 64);
        let mut fresh = expr::ne(root, &zero);
        // A fresh parameter differs from the parameters it could alias. No
        // more is said of where pointers are (each such fact makes every
        // later query larger): a path that assumes more than holds is
        // ruled out by the heap check at the call instead.
        for &m in &offered {
            if let Some(by) = &heap.made_by[m as usize] {
                fresh = expr::and(&fresh, &expr::ne(root, by));
            }
        }
        // Null last: the path taking it ends in this instruction, and the
        // children of a path that ends are dropped with it.
        let mut alternatives = vec![(Assumed::Fresh, fresh)];
        for &m in &offered {
            if let Some(by) = &heap.made_by[m as usize] {
                alternatives.push((Assumed::Alias(m), expr::eq(root, by)));
            }
        }
        alternatives.push((Assumed::Null, expr::eq(root, &zero)));
        let mut feasible = Vec::with_capacity(alternatives.len());
        for (assumed, cond) in alternatives {
            if self.may_be_true(state, &cond)? {
                feasible.push((assumed, cond));
            }
        }
        let Some(((first, first_cond), rest)) = feasible.split_first() else {
            return Err(Flow::End(super::end::PathEnd::Silent));
        };
        for (assumed, cond) in rest {
            let mut child = state.fork_child(self.next_id());
            child.add_constraint(cond.clone());
            self.assume_pointer(&mut child, root, origin, *assumed, &offered);
            self.forked.push(child);
        }
        state.add_constraint(first_cond.clone());
        Ok(self.assume_pointer(state, root, origin, *first, &offered))
    }

    /// Records an assumption about `root` on the path; returns its object.
    fn assume_pointer(
        &mut self,
        state: &mut State,
        root: &ExprRef,
        origin: PointerOrigin,
        assumed: Assumed,
        offered: &[u32],
    ) -> Option<u32> {
        let object = match assumed {
            Assumed::Null => None,
            Assumed::Alias(m) => Some(m),
            Assumed::Fresh => {
                let i = state
                    .inputs
                    .as_ref()
                    .map_or(0, |h| h.condition.objects.len());
                let array = Array::shared(&input_array_name(i), LAZY_OBJECT_SIZE as u32, None);
                let address = INPUT_BASE + i as u64 * (LAZY_OBJECT_SIZE + 4096);
                state.memory.insert(
                    MemoryObject {
                        address,
                        size: LAZY_OBJECT_SIZE,
                        kind: AllocKind::Runtime,
                        name: format!("input object {i}").into(),
                        site: None,
                        read_only: false,
                    },
                    ObjectState::of_array(array),
                );
                let heap = Arc::make_mut(state.inputs.get_or_insert_with(Default::default));
                heap.condition.objects.push(InputObject {
                    kind: InputKind::Lazy,
                    extent: 0,
                    written: false,
                });
                heap.addresses.push(address);
                heap.made_by.push(Some(root.clone()));
                Some(i as u32)
            }
        };
        let heap = Arc::make_mut(state.inputs.get_or_insert_with(Default::default));
        heap.condition.events.push(HeapEvent::Pointer {
            origin,
            assumed,
            offered: offered.to_vec(),
        });
        heap.roots.push((root.clone(), object));
        object
    }

    /// Where a pointer comes from, if it is an input: a pointer parameter,
    /// or a word of an input object's first contents.
    fn pointer_origin(&self, state: &State, root: &ExprRef) -> Option<PointerOrigin> {
        if let Some(o) = self.param_of(root) {
            return Some(o);
        }
        let (array, offset) = input_word(root)?;
        let heap = state.inputs.as_ref()?;
        let object = match input_array_object(&array.name) {
            Some(i) => i,
            None => heap.condition.objects.iter().position(|o| {
                matches!(&o.kind, InputKind::Global { name, .. } if global_array_name(name) == array.name)
            })?,
        };
        (object < heap.condition.objects.len()).then_some(PointerOrigin::Field {
            object: object as u32,
            offset,
        })
    }

    /// The parameter a pointer is, if it is one.
    fn param_of(&self, root: &ExprRef) -> Option<PointerOrigin> {
        let (array, offset) = input_word(root)?;
        let i = array.name.strip_prefix("@param")?.parse().ok()?;
        (offset == 0 && array.size == 8).then_some(PointerOrigin::Param(i))
    }

    /// Makes the global at `addr` an input of the summarised path, if one
    /// is there and not made yet.
    pub(crate) fn input_global(&mut self, state: &mut State, addr: u64) -> bool {
        if state.inputs.is_none() || state.memory.find(addr).is_some() {
            return false;
        }
        let Some(g) = self.global_at(addr) else {
            return false;
        };
        let global = &self.module.globals[g];
        let address = self.global_address(g);
        let (contents, hash) = if global.is_constant {
            let c = self.global_contents(g);
            let hash = contents_hash(&c, global.size);
            (c, hash)
        } else {
            let array = Array::shared(&global_array_name(&global.name), global.size as u32, None);
            (ObjectState::of_array(array), 0)
        };
        state.memory.insert(
            MemoryObject {
                address,
                size: global.size,
                kind: AllocKind::Global,
                name: global.name.as_str().into(),
                site: None,
                read_only: global.is_constant,
            },
            contents,
        );
        let heap = Arc::make_mut(state.inputs.get_or_insert_with(Default::default));
        heap.condition.objects.push(InputObject {
            kind: InputKind::Global {
                name: global.name.clone(),
                address,
                size: global.size,
                read_only: global.is_constant,
                contents: hash,
            },
            extent: global.size,
            written: false,
        });
        heap.condition.events.push(HeapEvent::Global);
        heap.addresses.push(address);
        heap.made_by.push(None);
        true
    }

    /// Notes a write into the object at `base`, if it is an input.
    pub(crate) fn note_input_write(state: &mut State, base: u64) {
        let Some(inputs) = &mut state.inputs else {
            return;
        };
        if let Some(i) = inputs.object_at(base) {
            Arc::make_mut(inputs).condition.objects[i].written = true;
        }
    }

    /// The hash of a global's contents as the module gives them, for the
    /// check that a stored summary's read-only globals are this module's.
    pub(crate) fn global_contents_hash(&self, name: &str) -> Option<(u64, u64, bool, u64)> {
        let g = self.module.globals.iter().position(|g| g.name == name)?;
        let global = &self.module.globals[g];
        let hash = if global.is_constant {
            contents_hash(&self.global_contents(g), global.size)
        } else {
            0
        };
        Some((
            self.global_address(g),
            global.size,
            global.is_constant,
            hash,
        ))
    }
}

/// The name of the array holding a writable global's contents at a call.
pub fn global_array_name(name: &str) -> String {
    format!("@global:{name}")
}

/// A stable hash of an object's concrete bytes (symbolic ones count as a
/// marker).
fn contents_hash(o: &ObjectState, size: u64) -> u64 {
    let mut h = blake3::Hasher::new();
    for i in 0..size {
        match o.byte(i) {
            super::value::Byte::Concrete(b) => h.update(&[0, b]),
            super::value::Byte::Symbolic(_) => h.update(&[1, 0]),
        };
    }
    let mut first = [0u8; 8];
    first.copy_from_slice(&h.finalize().as_bytes()[..8]);
    u64::from_le_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(array: &ArrayRef, first: u64) -> ExprRef {
        word_of(array, first)
    }

    #[test]
    fn a_word_of_an_array_is_recognised_with_its_offset() {
        let a = Array::shared(&input_array_name(2), LAZY_OBJECT_SIZE as u32, None);
        let w = word(&a, 8);
        let (array, first) = input_word(&w).expect("a word");
        assert_eq!((array.name.as_str(), first), ("@in2", 8));
        assert_eq!(input_array_object(&array.name), Some(2));
        let (root, off) = split_offset(&expr::add(&w, &expr::constant(16, 64)));
        assert_eq!((root, off), (w.clone(), 16));
    }

    #[test]
    fn other_expressions_are_not_input_words() {
        let a = Array::shared("@in0", 64, None);
        // Bytes out of order, a short word, and a word plus a symbolic index.
        let list = UpdateList::new(a.clone());
        let b0 = expr::read(&list, &expr::constant(0, 64));
        let b1 = expr::read(&list, &expr::constant(1, 64));
        assert!(input_word(&expr::zext(&expr::concat(&b0, &b1), 64)).is_none());
        let w = word(&a, 0);
        let idx = expr::zext(&b0, 64);
        let (root, _) = split_offset(&expr::add(&w, &idx));
        assert!(input_word(&root).is_none());
        assert_eq!(input_array_object("@param0"), None);
    }

    #[test]
    fn a_pointer_rebuilt_from_its_bytes_is_the_sum_it_was() {
        let a = Array::shared("@param0", 8, None);
        let p = expr::add(&word(&a, 0), &expr::constant(1, 64));
        // Stored and loaded again: each byte an extract of the sum.
        let bytes: Vec<ExprRef> = (0..8).map(|k| expr::extract(&p, 8 * k, 8)).collect();
        let mut back = bytes[0].clone();
        for b in &bytes[1..] {
            back = expr::concat(b, &back);
        }
        assert_eq!(Executor::pointer_form(&back), Some((word(&a, 0), 1)));
        // Stepped again, from the rebuilt form.
        let q = expr::add(&back, &expr::constant(1, 64));
        let mut again = expr::extract(&q, 0, 8);
        for k in 1..8 {
            again = expr::concat(&expr::extract(&q, 8 * k, 8), &again);
        }
        assert_eq!(Executor::pointer_form(&again), Some((word(&a, 0), 2)));
        // A byte of another value breaks it.
        let b = Array::shared("@param1", 8, None);
        let other = expr::extract(&word(&b, 0), 0, 8);
        let mixed = expr::concat(&expr::extract(&p, 8, 56), &other);
        assert_eq!(Executor::pointer_form(&mixed), None);
    }
}
