//! A read of a large constant table at a symbolic index, as a tree of
//! choices on the index's bits.
//!
//! A scanner that flex generated steps through its tables at indices that
//! earlier table reads computed (`yy_chk[yy_base[state] + c]`, tables of
//! more than a thousand entries). Too many entries to split into cases,
//! such a read went to the theory of arrays, as a select from a chain of
//! a store per entry, and bc's scanner on six bytes of input made a query
//! Z3 could not decide in a minute. As a tree on the bits of the offset
//! into the reachable entries, the read is plain bit-vectors again: each
//! level chooses by one bit, a subtree whose entries are all equal is that
//! byte, and the entries past the last reachable one are left out.

use z3::ast::{Bool, BV};

/// The most entries (from the lowest to the highest index a read can
/// reach) a read is translated as a tree for; past it, the theory of
/// arrays is left to do it.
pub(super) const TREE_LIMIT: u128 = 1 << 16;

/// A subtree: one byte for all its entries, or a choice.
enum Node {
    Byte(u8),
    Choice(BV),
}

impl Node {
    fn term(self) -> BV {
        match self {
            Node::Byte(b) => BV::from_u64(u64::from(b), 8),
            Node::Choice(t) => t,
        }
    }
}

/// Whether a read of `init` at an index in `lo..=hi` is translated as a
/// tree: the entries it can reach (none past the end, which read 0) are
/// at most [`TREE_LIMIT`].
pub(super) fn fits(init: &[u8], lo: u128, hi: u128) -> bool {
    let len = init.len() as u128;
    lo < len && hi.min(len - 1) - lo < TREE_LIMIT
}

/// `init[idx]` (0 past its end), where `idx`, a 64-bit index, is known to
/// lie in `lo..=hi`, and [`fits`] says yes.
pub(super) fn read(idx: &BV, init: &[u8], lo: u128, hi: u128) -> BV {
    debug_assert!(fits(init, lo, hi));
    let last = hi.min(init.len() as u128 - 1);
    let in_table = read_within(idx, init, lo, last);
    if last == hi {
        return in_table;
    }
    idx.bvule(BV::from_u64(last as u64, 64))
        .ite(&in_table, &BV::from_u64(0, 8))
}

/// `init[idx]` for an index in `lo..=hi`, all of them inside `init`.
fn read_within(idx: &BV, init: &[u8], lo: u128, hi: u128) -> BV {
    let entries = hi - lo + 1;
    let byte = |k: u128| init[(lo + k) as usize];
    let levels = u128::BITS - (entries - 1).leading_zeros();
    if levels == 0 {
        return BV::from_u64(u64::from(byte(0)), 8);
    }
    let offset = idx
        .bvsub(BV::from_u64(lo as u64, 64))
        .extract(levels - 1, 0);
    let bits: Vec<_> = (0..levels)
        .map(|l| offset.extract(l, l).eq(BV::from_u64(1, 1)))
        .collect();
    let tree = Tree {
        entries,
        byte: &byte,
        bits: &bits,
    };
    tree.build(levels, 0)
        .map_or_else(|| BV::from_u64(0, 8), Node::term)
}

/// What building a tree needs: how many entries are reachable, the byte
/// of each, and the condition that each bit of the offset is 1.
struct Tree<'a> {
    entries: u128,
    byte: &'a dyn Fn(u128) -> u8,
    bits: &'a [Bool],
}

impl Tree<'_> {
    /// The subtree of the 2^`level` entries from `start`; `None` when none
    /// of them is reachable.
    fn build(&self, level: u32, start: u128) -> Option<Node> {
        if start >= self.entries {
            return None;
        }
        if level == 0 {
            return Some(Node::Byte((self.byte)(start)));
        }
        let half = 1u128 << (level - 1);
        let low = self.build(level - 1, start)?;
        let Some(high) = self.build(level - 1, start + half) else {
            return Some(low);
        };
        Some(match (low, high) {
            (Node::Byte(a), Node::Byte(b)) if a == b => Node::Byte(a),
            (low, high) => {
                Node::Choice(self.bits[level as usize - 1].ite(&high.term(), &low.term()))
            }
        })
    }
}
