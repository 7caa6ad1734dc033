//! What the later checks of a search read of the bytes given values
//! before them.
//!
//! A scanner's queries (bc's, grep's) chain table lookups: the state after
//! a byte is read from a table at the state before it and the byte's
//! class, and each conjunct reads the bytes before its own only through
//! that state. Whether the search can complete a combination of the first
//! bytes then depends on the state they lead to, not on the bytes: of the
//! 2^24 combinations of bc's first three input bytes, a few dozen states
//! differ. The nodes through which the checks from a byte on read the
//! bytes before it are that byte's interface; their values are a key under
//! which the search remembers the combinations it could not complete.

use rustc_hash::{FxHashMap, FxHashSet};

use super::search::{inputs, post_order};
use super::{Byte, Values};
use crate::expr::{Array, ExprKind, ExprNode, ExprRef};

/// For each byte of a search's order, the nodes through which the checks
/// of the bytes from it on read the bytes before it; `None` where a key of
/// their values could not tell two combinations apart that the bytes
/// themselves do (every byte before it with more than one value is read
/// as it is), and where a check reads an input byte in a way the nodes do
/// not show (at an index that depends on the input).
///
/// `checks[i]` are the conjuncts checked at the `i`th byte of `order`
/// (filtered or not); `found` and `domains` are the search's.
pub(super) fn interfaces(
    order: &[usize],
    found: &[(Byte, u8)],
    domains: &[Values],
    checks: &[Vec<&ExprRef>],
) -> Vec<Option<Vec<ExprRef>>> {
    let none = || vec![None; order.len()];
    let place: FxHashMap<(*const Array, u64), usize> = order
        .iter()
        .enumerate()
        .map(|(at, &slot)| {
            let ((array, offset), _) = &found[slot];
            ((std::sync::Arc::as_ptr(array), *offset), at)
        })
        .collect();
    let inputs_arrays: FxHashSet<*const Array> = place.keys().map(|&(a, _)| a).collect();
    // The input byte a node reads itself, as a place in `order`.
    let own = |e: &ExprRef| -> Result<Option<usize>, ()> {
        let ExprKind::Read { updates, index } = e.kind() else {
            return Ok(None);
        };
        if !inputs_arrays.contains(&std::sync::Arc::as_ptr(&updates.root)) {
            return Ok(None);
        }
        let at = index.as_const().ok_or(())?;
        let at = u64::try_from(at).map_err(|_| ())?;
        Ok(place
            .get(&(std::sync::Arc::as_ptr(&updates.root), at))
            .copied())
    };
    // The last place in `order` of the bytes each node depends on (none:
    // it depends on no byte searched).
    let mut last: FxHashMap<*const ExprNode, Option<usize>> = FxHashMap::default();
    for node in post_order(checks.iter().flatten().copied()) {
        let Ok(mut at) = own(node) else {
            return none();
        };
        inputs(node, |c| {
            at = at.max(last.get(&c.as_ptr()).copied().flatten());
        });
        last.insert(node.as_ptr(), at);
    }
    let last_of = |e: &ExprRef| last.get(&e.as_ptr()).copied().flatten();
    let mut out = none();
    for (i, out) in out.iter_mut().enumerate().skip(1) {
        let mut interface: Vec<ExprRef> = Vec::new();
        let mut seen: FxHashSet<*const ExprNode> = FxHashSet::default();
        let mut stack: Vec<&ExprRef> = checks[i..].iter().flatten().copied().collect();
        let mut whole = true;
        while let Some(node) = stack.pop() {
            if !seen.insert(node.as_ptr()) {
                continue;
            }
            // A node that reads a byte before `i` itself, and bytes from
            // `i` on through its writes: the byte is read where no
            // child's value shows it.
            if own(node).ok().flatten().is_some_and(|at| at < i) {
                whole = false;
                break;
            }
            inputs(node, |c| match last_of(c) {
                Some(at) if at >= i => stack.push(c),
                Some(_) if seen.insert(c.as_ptr()) => interface.push(c.clone()),
                _ => {}
            });
        }
        if !whole {
            continue;
        }
        // The bytes before `i` with more than one value, each read as it
        // is: the key would be the bytes themselves.
        let varied = order[..i]
            .iter()
            .filter(|&&slot| super::count(&domains[slot]) > 1)
            .count();
        let read_as_they_are = interface
            .iter()
            .filter(|e| {
                own(e)
                    .ok()
                    .flatten()
                    .is_some_and(|at| super::count(&domains[order[at]]) > 1)
            })
            .count();
        if read_as_they_are < varied {
            *out = Some(interface);
        }
    }
    out
}
