//! The heap check at a call site (the HeapPC half of the paper's
//! Algorithm 3) and the map from a summary's inputs to the caller's.
//!
//! A leaf's heap condition lists, in the order its path made them, the
//! assumptions it made of its memory inputs (see `exec::lazy`). Each is
//! checked against the caller's memory, the way the callee itself would
//! find it: a pointer parameter is the argument, a pointer read from an
//! input object is the caller's bytes there, and each must be concrete.
//! What the caller's pointer is (null, the address of an earlier input, or
//! anything else) either matches the assumption, contradicts it (the leaf
//! is not the callee's path in this context: infeasible), or is something
//! no leaf covers (a pointer into an object too small, overlapping another
//! input, aliasing where the summary did not consider it, ...): then the
//! call is executed as usual, for that reason. A leaf's later assumptions
//! are looked at only while the earlier ones match, since the callee only
//! reaches them on that path; an object's checks use the bytes the whole
//! path touches, which covers every prefix of it.

use std::sync::Arc;

use super::summary::{input_array, Leaf, ParamMap, Summary};
use super::Fallback;
use crate::exec::lazy::{Assumed, HeapCondition, HeapEvent, InputKind, PointerOrigin};
use crate::exec::{Executor, ObjectState, State, Value};
use crate::expr::ExprRef;

/// An input object as the caller has it: the bytes `[start, start + len)`
/// of the caller's object `object`, which starts at `base`.
#[derive(Clone)]
struct Found {
    base: u64,
    start: u64,
    len: u64,
    object: Arc<ObjectState>,
}

impl Found {
    fn overlaps(&self, start: u64, len: u64) -> bool {
        start < self.start + self.len.max(1) && self.start < start + len.max(1)
    }
}

/// The caller's pointer at an assumption, as the assumption classes it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Actual {
    Null,
    /// The address input object `m` starts at.
    Alias(u32),
    Other(u64),
}

/// Each leaf's conditions carried over to a call of `summary` with `args`
/// in `state`, one by one (a single false where the heap check finds the
/// leaf infeasible), or why the call is to be executed instead.
pub(super) fn leaf_conditions(
    ex: &mut Executor,
    state: &mut State,
    summary: &Summary,
    args: &[Value],
) -> Result<Vec<Vec<ExprRef>>, Fallback> {
    // Leaves mostly find the same inputs (the same globals, the objects
    // of the same pointer arguments): they share one map, and with it the
    // terms already carried over.
    let mut maps: Vec<(Vec<Input>, ParamMap)> =
        vec![(Vec::new(), ParamMap::new(&summary.params, args))];
    let mut conds = Vec::with_capacity(summary.leaves.len());
    for leaf in &summary.leaves {
        let inputs = if leaf.heap.is_empty() {
            Vec::new()
        } else {
            match check(ex, state, &leaf.heap, args)? {
                None => {
                    conds.push(vec![crate::expr::bool_const(false)]);
                    continue;
                }
                Some(found) => inputs(leaf, &found),
            }
        };
        let at = match maps.iter().position(|(k, _)| *k == inputs) {
            Some(at) => at,
            None => {
                let mut map = ParamMap::new(&summary.params, args);
                for input in &inputs {
                    map.with_object(input.array.clone(), input.object.clone(), input.offset);
                }
                maps.push((inputs, map));
                maps.len() - 1
            }
        };
        conds.push(
            maps[at]
                .1
                .conjuncts(leaf)
                .map_err(|_| Fallback::Unmappable)?,
        );
    }
    Ok(conds)
}

/// A leaf's memory input as found in the caller: its array is the bytes of
/// `object` from `offset`.
struct Input {
    array: String,
    object: Arc<ObjectState>,
    offset: u64,
}

impl PartialEq for Input {
    fn eq(&self, other: &Input) -> bool {
        self.array == other.array
            && Arc::ptr_eq(&self.object, &other.object)
            && self.offset == other.offset
    }
}

/// The memory inputs of a leaf whose heap condition found `found`.
fn inputs(leaf: &Leaf, found: &[Option<Found>]) -> Vec<Input> {
    leaf.heap
        .objects
        .iter()
        .zip(found)
        .enumerate()
        .filter_map(|(i, (o, f))| {
            let (array, f) = (input_array(i, &o.kind)?, f.as_ref()?);
            Some(Input {
                array,
                object: f.object.clone(),
                offset: f.start - f.base,
            })
        })
        .collect()
}

/// Checks a leaf's heap condition against the caller: the caller's input
/// objects (by the leaf's object numbers) where it holds, `None` where it
/// contradicts the caller, or why it cannot be decided.
fn check(
    ex: &mut Executor,
    state: &mut State,
    heap: &HeapCondition,
    args: &[Value],
) -> Result<Option<Vec<Option<Found>>>, Fallback> {
    let mut found: Vec<Option<Found>> = vec![None; heap.objects.len()];
    let mut next = 0usize;
    for event in &heap.events {
        match event {
            HeapEvent::Global => {
                let k = next;
                next += 1;
                let f = global(ex, state, heap, k)?;
                if found.iter().flatten().any(|g| g.overlaps(f.start, f.len)) {
                    return Err(Fallback::HeapOverlap);
                }
                found[k] = Some(f);
            }
            HeapEvent::Pointer {
                origin,
                assumed,
                offered,
            } => {
                let c = pointer(*origin, args, &found)?;
                let actual = if c == 0 {
                    Actual::Null
                } else if let Some(m) = found
                    .iter()
                    .position(|f| f.as_ref().is_some_and(|f| f.start == c))
                {
                    Actual::Alias(m as u32)
                } else {
                    Actual::Other(c)
                };
                if let Actual::Alias(m) = actual {
                    if !offered.contains(&m) {
                        return Err(Fallback::HeapAlias);
                    }
                }
                match (assumed, actual) {
                    (Assumed::Null, Actual::Null) => {}
                    (Assumed::Alias(m), Actual::Alias(a)) if *m == a => {}
                    (Assumed::Fresh, Actual::Other(c)) => {
                        let k = next;
                        next += 1;
                        let f = fresh(state, heap, k, c)?;
                        if found.iter().flatten().any(|g| g.overlaps(f.start, f.len)) {
                            return Err(Fallback::HeapOverlap);
                        }
                        found[k] = Some(f);
                    }
                    _ => return Ok(None),
                }
            }
        }
    }
    Ok(Some(found))
}

/// The caller's value of an input pointer, which must be concrete.
fn pointer(
    origin: PointerOrigin,
    args: &[Value],
    found: &[Option<Found>],
) -> Result<u64, Fallback> {
    let v = match origin {
        PointerOrigin::Param(i) => args.get(i as usize).cloned(),
        PointerOrigin::Field { object, offset } => {
            let f = found
                .get(object as usize)
                .and_then(|f| f.as_ref())
                .ok_or(Fallback::Unmappable)?;
            let at = f.start - f.base + offset;
            if offset + 8 > f.len || at + 8 > f.object.size() {
                return Err(Fallback::HeapSize);
            }
            Some(f.object.read(at, 8, 64))
        }
    };
    v.and_then(|v| v.as_concrete())
        .map(|c| c as u64)
        .ok_or(Fallback::HeapSymbolic)
}

/// The caller's object for lazily made input object `k`, at `c`.
fn fresh(state: &State, heap: &HeapCondition, k: usize, c: u64) -> Result<Found, Fallback> {
    let o = heap.objects.get(k).ok_or(Fallback::Unmappable)?;
    if o.kind != InputKind::Lazy {
        return Err(Fallback::Unmappable);
    }
    let entry = state.memory.find(c).ok_or(Fallback::HeapNoObject)?;
    let (base, size) = (entry.object.address, entry.object.size);
    if c - base + o.extent > size {
        return Err(Fallback::HeapSize);
    }
    if o.written && entry.object.read_only {
        return Err(Fallback::HeapReadOnly);
    }
    Ok(Found {
        base,
        start: c,
        len: o.extent,
        object: entry.state.clone(),
    })
}

/// The caller's global for input object `k`: the same object at the same
/// address. While summarising, the caller's own globals are inputs made
/// as reached; this makes the global one if the caller has not yet.
fn global(
    ex: &mut Executor,
    state: &mut State,
    heap: &HeapCondition,
    k: usize,
) -> Result<Found, Fallback> {
    let Some(InputKind::Global {
        name,
        address,
        size,
        read_only,
        ..
    }) = heap.objects.get(k).map(|o| &o.kind)
    else {
        return Err(Fallback::Unmappable);
    };
    if ex.summarising {
        ex.input_global(state, *address);
    }
    let entry = state
        .memory
        .get(*address)
        .filter(|e| *e.object.name == **name && e.object.size == *size)
        .filter(|e| e.object.read_only == *read_only)
        .ok_or(Fallback::HeapNoObject)?;
    Ok(Found {
        base: *address,
        start: *address,
        len: *size,
        object: entry.state.clone(),
    })
}
