//! A read at a symbolic index of a constant root, through writes at
//! constant indices, as a tree of choices on the index's bits.
//!
//! A scanner that flex generated steps through its tables at indices that
//! earlier table reads computed (`yy_chk[yy_base[state] + c]`, tables of
//! more than a thousand entries), and a `klee_make_symbolic` into a local
//! array writes each of its bytes into the array's zeroed contents. Too
//! many cases to split on, such reads went to the theory of arrays, as a
//! select from a chain of a store per entry over a constant array, which
//! Z3 could not decide in a minute (bc's scanner on six bytes of input)
//! or in 30 s (a byte of a 1,024-byte symbolic array equal to 5). As a
//! tree on the bits of the offset into the entries the index can reach,
//! each entry a byte or the value written there, the read is plain
//! bit-vectors again: each level chooses by one bit, a subtree whose
//! entries are one byte is that byte, and entries past the last reachable
//! one are left out.

use rustc_hash::FxHashMap;
use z3::ast::{Bool, BV};

use super::{Translator, CASE_SPLIT_LIMIT};
use crate::expr::{ExprRef, UpdateList, UpdateNode};
use crate::solver::SolverError;

/// The most entries (from the lowest to the highest index a read can
/// reach) a read is translated as a tree for; past it, the theory of
/// arrays is left to do it.
pub(super) const TREE_LIMIT: u128 = 1 << 16;

impl Translator {
    /// A read of a constant root through writes at constant indices, too
    /// many cases in all, as a tree on the index's bits over the entries
    /// it can reach (see `table`): each entry is the newest of the oldest
    /// writes (those below any write at a symbolic index) at its index,
    /// else the root's byte; the newer writes, and those past the root's
    /// end, are case splits on top. `None` where the entries or the writes
    /// on top are too many, or the root is symbolic (the theory of arrays
    /// reads a symbolic root through a few writes at once). `(lo, hi)` is
    /// the index's unsigned range.
    ///
    /// A `klee_make_symbolic` into a 1,024-byte local array is its 1,024
    /// bytes written into the object's zeroed contents: as a select from
    /// a store per byte over a constant array, a read of it at a symbolic
    /// index took Z3 more than 30 s to find any value, and the engine gave
    /// the branch up.
    pub(super) fn read_as_tree(
        &mut self,
        updates: &UpdateList,
        index: &ExprRef,
        (lo, hi): (u128, u128),
    ) -> Result<Option<BV>, SolverError> {
        let root = &updates.root;
        let size = u128::from(root.size);
        // The writes are walked whole for each read (a select walks a list
        // once): a list past twice the entries goes to the array theory.
        let too_long = updates.len() as u128 > 2 * TREE_LIMIT;
        if root.init.is_none() || too_long || lo >= size || hi.min(size - 1) - lo >= TREE_LIMIT {
            return Ok(None);
        }
        let last = hi.min(size - 1);
        // Newest first; the writes below the last one at a symbolic index
        // are folded into the entries (the newest at an index wins).
        let nodes: Vec<&UpdateNode> = updates.iter().collect();
        let older = nodes
            .iter()
            .rposition(|n| !n.index.is_const())
            .map_or(0, |i| i + 1);
        let mut folded: FxHashMap<u128, &ExprRef> = FxHashMap::default();
        for n in &nodes[older..] {
            if let Some(k) = n.index.as_const().filter(|k| (lo..=last).contains(k)) {
                folded.entry(k).or_insert(&n.value);
            }
        }
        // Newer writes the index can reach, then older ones past the end.
        let on_top: Vec<&UpdateNode> = nodes[..older]
            .iter()
            .filter(|n| n.index.as_const().is_none_or(|k| lo <= k && k <= hi))
            .chain(
                nodes[older..]
                    .iter()
                    .filter(|n| n.index.as_const().is_some_and(|k| last < k && k <= hi)),
            )
            .copied()
            .collect();
        if on_top.len() > CASE_SPLIT_LIMIT {
            return Ok(None);
        }
        let mut entries = Vec::with_capacity((last - lo + 1) as usize);
        for k in lo..=last {
            entries.push(match folded.get(&k) {
                Some(v) => match v.as_const() {
                    Some(b) => Entry::Byte(b as u8),
                    None => Entry::Term(self.bv(v)?),
                },
                None => Entry::Byte(root.init_byte(k).unwrap_or(0)),
            });
        }
        let idx = self.bv(index)?;
        let mut value = read(&idx, lo, hi, entries);
        for node in on_top.into_iter().rev() {
            let at = idx.eq(self.bv(&node.index)?);
            value = at.ite(&self.bv(&node.value)?, &value);
        }
        Ok(Some(value))
    }
}

/// What one entry reads: a known byte, or a write's value.
pub(super) enum Entry {
    Byte(u8),
    Term(BV),
}

impl Entry {
    fn term(self) -> BV {
        match self {
            Entry::Byte(b) => BV::from_u64(u64::from(b), 8),
            Entry::Term(t) => t,
        }
    }
}

/// The read at `idx`, a 64-bit index known to lie in `lo..=hi`, of the
/// `entries` from `lo` on (at least one, at most [`TREE_LIMIT`]); 0 past
/// the last of them.
pub(super) fn read(idx: &BV, lo: u128, hi: u128, mut entries: Vec<Entry>) -> BV {
    debug_assert!(!entries.is_empty() && entries.len() as u128 <= TREE_LIMIT);
    let last = lo + entries.len() as u128 - 1;
    let count = entries.len() as u128;
    let levels = u128::BITS - (count - 1).leading_zeros();
    let in_table = if levels == 0 {
        entries.swap_remove(0).term()
    } else {
        let offset = idx
            .bvsub(BV::from_u64(lo as u64, 64))
            .extract(levels - 1, 0);
        let bits: Vec<Bool> = (0..levels)
            .map(|l| offset.extract(l, l).eq(BV::from_u64(1, 1)))
            .collect();
        let mut leaves = entries.into_iter().map(Some).collect::<Vec<_>>();
        build(&bits, levels, 0, &mut leaves).map_or_else(|| BV::from_u64(0, 8), Entry::term)
    };
    if last >= hi {
        return in_table;
    }
    idx.bvule(BV::from_u64(last as u64, 64))
        .ite(&in_table, &BV::from_u64(0, 8))
}

/// The subtree of the 2^`level` entries from `start`, `bits[l]` choosing
/// at level `l + 1`; a subtree whose entries are one byte is that byte,
/// and `None` when none of its entries exists.
fn build(bits: &[Bool], level: u32, start: u128, leaves: &mut [Option<Entry>]) -> Option<Entry> {
    if start >= leaves.len() as u128 {
        return None;
    }
    if level == 0 {
        return leaves[start as usize].take();
    }
    let half = 1u128 << (level - 1);
    let low = build(bits, level - 1, start, leaves)?;
    let Some(high) = build(bits, level - 1, start + half, leaves) else {
        return Some(low);
    };
    Some(match (low, high) {
        (Entry::Byte(a), Entry::Byte(b)) if a == b => Entry::Byte(a),
        (low, high) => Entry::Term(bits[level as usize - 1].ite(&high.term(), &low.term())),
    })
}
