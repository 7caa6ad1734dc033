//! A trie as [`Trie::canonical`] renumbers it, serialized straight from
//! the trie it comes from: the same bytes as serializing the canonical
//! copy, without making the copy. A deep run's trie holds a test in every
//! leaf, and copying them all (then freeing them) was most of the time a
//! run spent saving its trie, time no worker can share.

use bincode::Options;
use rayon::prelude::*;
use serde::Serialize;

use super::file::codec;
use super::stored::StoredTest;
use super::trie::{End, NodeId, Recorded, Trie, TriePoint};
use crate::exec::Alt;

/// The canonical numbering of a trie's nodes and functions, and the trie.
pub struct CanonicalView<'a> {
    trie: &'a Trie,
    /// The nodes in depth-first order: the canonical node `i` is `order[i]`.
    order: Vec<NodeId>,
    /// Per arena slot, its canonical number.
    new_id: Vec<NodeId>,
    /// Per function index, its canonical number (`u32::MAX`: never named).
    new_func: Vec<u32>,
    /// The function names in canonical order.
    funcs: Vec<&'a String>,
}

impl<'a> CanonicalView<'a> {
    /// Numbers `trie` as [`Trie::canonical`] does: nodes in depth-first
    /// order, functions in the order that walk first names them (a node's
    /// point before the blocks of its stretch).
    pub fn new(trie: &'a Trie) -> CanonicalView<'a> {
        // One walk numbers the nodes and the functions: a deep run's trie
        // is far larger than the caches, and a second walk over its nodes
        // cost as much as the first, with no worker running.
        let mut order = Vec::with_capacity(trie.nodes.len());
        let mut new_id = vec![NodeId(u32::MAX); trie.nodes.len()];
        let mut new_func = vec![u32::MAX; trie.funcs.len()];
        let mut funcs = Vec::new();
        let mut stack = vec![NodeId::ROOT];
        while let Some(id) = stack.pop() {
            new_id[id.index()] = NodeId(order.len() as u32);
            order.push(id);
            let n = trie.node(id);
            let named = n.point.iter().map(|p| p.func);
            for f in named.chain(n.stretch.iter().map(|&(f, _)| f)) {
                if let Some(slot) = new_func.get_mut(f as usize) {
                    if *slot == u32::MAX {
                        *slot = funcs.len() as u32;
                        funcs.push(&trie.funcs[f as usize]);
                    }
                }
            }
            stack.extend(n.children.iter().rev().copied());
        }
        CanonicalView {
            trie,
            order,
            new_id,
            new_func,
            funcs,
        }
    }

    /// How many nodes the trie has, out of the arena's.
    pub fn nodes(&self) -> usize {
        self.order.len()
    }

    /// A function's canonical number; one out of the table's range keeps
    /// its own, as in [`Trie::canonical`].
    fn func(&self, f: u32) -> u32 {
        self.new_func.get(f as usize).copied().unwrap_or(f)
    }
}

/// Field for field what `#[derive(Serialize)]` writes for [`TriePoint`].
#[derive(Serialize)]
#[serde(rename = "TriePoint")]
struct PointView<'a> {
    func: u32,
    site: u32,
    line: u32,
    alts: &'a [Alt],
}

/// Field for field what `#[derive(Serialize)]` writes for a trie node.
#[derive(Serialize)]
#[serde(rename = "Node")]
struct NodeView<'a> {
    parent: Option<NodeId>,
    via: u32,
    point: Option<PointView<'a>>,
    children: Vec<NodeId>,
    end: &'a Option<End>,
    test: &'a Option<StoredTest>,
    kept: &'a [StoredTest],
    stretch: Vec<(u32, u32)>,
}

impl CanonicalView<'_> {
    /// The node of arena slot `id` as the canonical trie has it.
    fn node(&self, id: NodeId) -> NodeView<'_> {
        let n = self.trie.node(id);
        NodeView {
            parent: n.parent.map(|p| self.new_id[p.index()]),
            via: n.via,
            point: n.point.as_ref().map(|p: &TriePoint| PointView {
                func: self.func(p.func),
                site: p.site,
                line: p.line,
                alts: &p.alts,
            }),
            children: n.children.iter().map(|c| self.new_id[c.index()]).collect(),
            end: &n.end,
            test: &n.test,
            kept: &n.kept,
            stretch: n.stretch.iter().map(|&(f, b)| (self.func(f), b)).collect(),
        }
    }

    /// The bincode bytes of the canonical copy after `front` zero bytes
    /// (room for a header), with the nodes serialized on every core:
    /// bincode writes a struct as its fields (the trie's head, then its
    /// nodes) and a sequence as its length and then its elements, so chunks
    /// of nodes serialized apart join into the same bytes.
    pub fn to_bincode(&self, front: usize) -> Vec<u8> {
        self.to_bincode_in(front, NODES_PER_CHUNK)
    }

    fn to_bincode_in(&self, front: usize, chunk: usize) -> Vec<u8> {
        #[derive(Serialize)]
        struct Head<'h> {
            recorded: &'h Recorded,
            funcs: &'h [&'h String],
        }
        let chunks: Vec<Vec<u8>> = self
            .order
            .par_chunks(chunk.max(1))
            .map(|ids| {
                let mut bytes = Vec::new();
                for id in ids {
                    codec()
                        .serialize_into(&mut bytes, &self.node(*id))
                        .expect("a trie node always serializes");
                }
                bytes
            })
            .collect();
        let head = codec()
            .serialize(&Head {
                recorded: &self.trie.recorded,
                funcs: &self.funcs,
            })
            .expect("a trie's head always serializes");
        // A sequence's length is written as the number it is.
        let len = codec()
            .serialize(&(self.order.len() as u64))
            .expect("a number serializes");
        let size = front + head.len() + len.len() + chunks.iter().map(Vec::len).sum::<usize>();
        let mut out = Vec::with_capacity(size);
        out.resize(front, 0);
        out.extend_from_slice(&head);
        out.extend_from_slice(&len);
        for c in &chunks {
            out.extend_from_slice(c);
        }
        out
    }
}

/// Nodes a core serializes at a time.
const NODES_PER_CHUNK: usize = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks of one node, of a few and of all of them give the bytes of
    /// the canonical copy.
    #[test]
    fn chunked_bytes_are_the_whole_views() {
        let mut t = Trie::new(Recorded::default());
        let f = t.intern_func("f");
        let mut at = NodeId::ROOT;
        for level in 0..5 {
            t.nodes[at.index()].point = Some(TriePoint {
                func: f,
                site: level,
                line: level,
                alts: vec![Alt {
                    payload: 0,
                    feasible: true,
                }],
            });
            at = t.add_child(at, 0);
            t.nodes[at.index()].stretch = vec![(f, level)];
        }
        t.nodes[at.index()].end = Some(End::Completed);
        let view = CanonicalView::new(&t);
        let whole = codec().serialize(&t.canonical()).expect("serializes");
        for chunk in [1, 2, 100] {
            let bytes = view.to_bincode_in(3, chunk);
            assert_eq!(&bytes[..3], &[0, 0, 0]);
            assert_eq!(&bytes[3..], &whole[..], "chunks of {chunk}");
        }
    }
}
