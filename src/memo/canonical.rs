//! A trie as [`Trie::canonical`] renumbers it, serialized straight from
//! the trie it comes from: the same bytes as serializing the canonical
//! copy, without making the copy. A deep run's trie holds a test in every
//! leaf, and copying them all (then freeing them) was most of the time a
//! run spent saving its trie, time no worker can share.

use bincode::Options;
use rayon::prelude::*;
use serde::Serialize;

use super::file::{bincode_io, codec};
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
        let new_id = numbered_in_arena_order(trie).unwrap_or_else(|| numbered_by_walk(trie));
        let mut order = vec![NodeId(u32::MAX); new_id.iter().filter(|i| i.0 != u32::MAX).count()];
        for (slot, id) in new_id.iter().enumerate() {
            if let Some(o) = order.get_mut(id.index()) {
                *o = NodeId(slot as u32);
            }
        }
        // A function's place is where the canonical walk first names it:
        // the least (node, place in the node) that names it, the node's
        // point before the blocks of its stretch.
        let mut first = vec![(u32::MAX, 0usize); trie.funcs.len()];
        for (slot, n) in trie.nodes.iter().enumerate() {
            let at = new_id[slot].0;
            if at == u32::MAX {
                continue;
            }
            let named = n.point.iter().map(|p| p.func);
            for (k, f) in named.chain(n.stretch.iter().map(|&(f, _)| f)).enumerate() {
                if let Some(best) = first.get_mut(f as usize) {
                    *best = (*best).min((at, k));
                }
            }
        }
        let mut named: Vec<u32> = (0..trie.funcs.len() as u32)
            .filter(|&f| first[f as usize].0 != u32::MAX)
            .collect();
        named.sort_unstable_by_key(|&f| first[f as usize]);
        let mut new_func = vec![u32::MAX; trie.funcs.len()];
        for (rank, &f) in named.iter().enumerate() {
            new_func[f as usize] = rank as u32;
        }
        CanonicalView {
            trie,
            funcs: named.iter().map(|&f| &trie.funcs[f as usize]).collect(),
            order,
            new_id,
            new_func,
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

/// Every reachable node's depth-first number, from two passes over the
/// arena, when every child sits after its parent there (as nodes are
/// added): subtree sizes from the last slot up, then each child's number
/// from its parent's and its elder siblings' sizes. A deep run's trie is
/// far larger than the caches, and a walk from node to node was most of
/// the time its numbering took, with no worker running. `None` when a
/// child sits before its parent.
fn numbered_in_arena_order(trie: &Trie) -> Option<Vec<NodeId>> {
    let n = trie.nodes.len();
    let mut size = vec![1u32; n];
    for (slot, node) in trie.nodes.iter().enumerate().rev() {
        for c in &node.children {
            if c.index() <= slot || c.index() >= n {
                return None;
            }
            size[slot] += size[c.index()];
        }
    }
    let mut new_id = vec![NodeId(u32::MAX); n];
    new_id[NodeId::ROOT.index()] = NodeId(0);
    for (slot, node) in trie.nodes.iter().enumerate() {
        let at = new_id[slot].0;
        if at == u32::MAX {
            continue;
        }
        let mut next = at + 1;
        for c in &node.children {
            new_id[c.index()] = NodeId(next);
            next += size[c.index()];
        }
    }
    Some(new_id)
}

/// The same numbers by a depth-first walk, for a trie whose arena does not
/// keep children after their parents.
fn numbered_by_walk(trie: &Trie) -> Vec<NodeId> {
    let mut new_id = vec![NodeId(u32::MAX); trie.nodes.len()];
    for (i, id) in trie.preorder().into_iter().enumerate() {
        new_id[id.index()] = NodeId(i as u32);
    }
    new_id
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
    test: Option<&'a StoredTest>,
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
            test: n.test.as_deref(),
            kept: &n.kept,
            stretch: n.stretch.iter().map(|&(f, b)| (self.func(f), b)).collect(),
        }
    }

    /// Writes the bincode bytes of the canonical copy to `w`, the nodes
    /// serialized on every core a batch at a time: bincode writes a struct
    /// as its fields (the trie's head, then its nodes) and a sequence as
    /// its length and then its elements, so chunks of nodes serialized
    /// apart join into the same bytes, and only a batch of them is held.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        let batch = NODES_PER_CHUNK * CHUNKS_PER_CORE * rayon::current_num_threads();
        self.write_chunked(NODES_PER_CHUNK, batch, BATCH_BYTES, w)
    }

    /// The bytes [`CanonicalView::write_to`] writes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.write_to(&mut bytes)
            .expect("a vector takes every byte");
        bytes
    }

    /// About the bytes node `id` serializes to: its tests' inputs and
    /// output, and a little for the rest.
    fn weight(&self, id: NodeId) -> usize {
        let n = self.trie.node(id);
        let test = |t: &StoredTest| {
            let inputs: usize = t
                .inputs
                .iter()
                .map(|(name, b)| 16 + name.len() + b.len())
                .sum();
            64 + inputs + t.stdout.as_ref().map_or(0, Vec::len)
        };
        64 + 8 * (n.children.len() + n.stretch.len())
            + n.test.as_deref().map_or(0, test)
            + n.kept.iter().map(test).sum::<usize>()
    }

    /// Writes the nodes at most `batch` at a time, and about as many as
    /// `budget` bytes hold, each batch in chunks of at most `chunk`
    /// serialized on every core.
    fn write_chunked(
        &self,
        chunk: usize,
        batch: usize,
        budget: usize,
        w: &mut dyn std::io::Write,
    ) -> std::io::Result<()> {
        #[derive(Serialize)]
        struct Head<'h> {
            recorded: &'h Recorded,
            funcs: &'h [&'h String],
        }
        codec()
            .serialize_into(
                &mut *w,
                &Head {
                    recorded: &self.trie.recorded,
                    funcs: &self.funcs,
                },
            )
            .map_err(bincode_io)?;
        // A sequence's length is written as the number it is.
        codec()
            .serialize_into(&mut *w, &(self.order.len() as u64))
            .map_err(bincode_io)?;
        let (chunk, batch) = (chunk.max(1), batch.max(1));
        let cores = rayon::current_num_threads();
        let mut rest = &self.order[..];
        while !rest.is_empty() {
            // Nodes up to `budget` bytes: a leaf keeping a test of
            // thousands of inputs is a hundred kilobytes, and 3,000 such
            // tests in one batch of nodes held 134 MB.
            let (mut n, mut bytes) = (0, 0);
            while n < rest.len().min(batch) && (n == 0 || bytes < budget) {
                bytes += self.weight(rest[n]);
                n += 1;
            }
            let (nodes, more) = rest.split_at(n);
            rest = more;
            let per_core = nodes.len().div_ceil(cores).clamp(1, chunk);
            let parts: Vec<Vec<u8>> = nodes
                .par_chunks(per_core)
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
            for part in parts {
                w.write_all(&part)?;
            }
        }
        Ok(())
    }
}

/// Nodes a core serializes at a time.
const NODES_PER_CHUNK: usize = 4096;

/// Chunks per core in a batch: enough that no core waits long for the
/// others, few enough that a batch is a small part of a large trie.
const CHUNKS_PER_CORE: usize = 4;

/// The bytes a batch of serialized nodes is meant to hold.
const BATCH_BYTES: usize = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    /// Chunks of one node, of a few and of all of them, written in batches
    /// of one or several chunks, give the bytes of the canonical copy.
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
                alts: vec![Alt::decided(0, true)].into(),
            });
            at = t.add_child(at, 0);
            t.nodes[at.index()].stretch = vec![(f, level)].into();
        }
        t.nodes[at.index()].end = Some(End::Completed);
        let view = CanonicalView::new(&t);
        let whole = codec().serialize(&t.canonical()).expect("serializes");
        assert_eq!(view.to_bytes(), whole);
        for (chunk, batch, budget) in [
            (1, 1, BATCH_BYTES),
            (1, 4, BATCH_BYTES),
            (2, 3, BATCH_BYTES),
            (100, 100, BATCH_BYTES),
            (100, 100, 1),
            (2, 100, 40),
        ] {
            let mut bytes = Vec::new();
            view.write_chunked(chunk, batch, budget, &mut bytes)
                .expect("written");
            assert_eq!(
                bytes, whole,
                "chunks of {chunk}, batches of {batch} or {budget} bytes"
            );
        }
    }

    /// A trie grown in a random order: at each step a random node that
    /// has no point yet gets one, naming one of five functions, with up to
    /// three taken alternatives; its stretch names two more.
    fn grown(seed: u64, steps: usize) -> Trie {
        let mut rng = seed;
        let mut next = move |n: usize| {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((rng >> 33) as usize) % n.max(1)
        };
        let mut t = Trie::new(Recorded::default());
        let funcs: Vec<u32> = (0..5).map(|i| t.intern_func(&format!("f{i}"))).collect();
        let mut open = vec![NodeId::ROOT];
        for _ in 0..steps {
            if open.is_empty() {
                break;
            }
            let at = open.swap_remove(next(open.len()));
            let alts = 1 + next(3);
            t.nodes[at.index()].point = Some(TriePoint {
                func: funcs[next(5)],
                site: next(100) as u32,
                line: 0,
                alts: vec![Alt::decided(0, true); alts].into(),
            });
            t.nodes[at.index()].stretch = vec![(funcs[next(5)], 1), (funcs[next(5)], 2)].into();
            for via in (0..alts as u32).filter(|_| next(4) > 0) {
                open.push(t.add_child(at, via));
            }
        }
        t
    }

    /// The same trie with its arena slots but the root's reversed: every
    /// child now sits before its parent.
    fn reversed(t: &Trie) -> Trie {
        let n = t.nodes.len();
        let slot = |id: NodeId| {
            if id == NodeId::ROOT {
                id
            } else {
                NodeId((n - id.index()) as u32)
            }
        };
        let mut u = t.clone();
        for (i, node) in t.nodes.iter().enumerate() {
            let mut moved = node.clone();
            moved.parent = node.parent.map(slot);
            moved.children = node.children.iter().map(|&c| slot(c)).collect();
            u.nodes[slot(NodeId(i as u32)).index()] = moved;
        }
        u
    }

    /// Numbering by the arena's order, by a walk where the arena's order
    /// does not allow it, and with a subtree cut out of the trie, gives the
    /// bytes of the canonical copy.
    #[test]
    fn the_view_numbers_nodes_and_functions_as_the_canonical_copy_does() {
        for seed in 0..20 {
            let mut t = grown(seed, 200);
            if let Some(&cut) = t.nodes[0].children.first() {
                // A regression plan leaves cut nodes in the arena.
                t.nodes[0].children.retain(|&c| c != cut);
            }
            let whole = codec().serialize(&t.canonical()).expect("serializes");
            assert_eq!(
                numbered_in_arena_order(&t),
                Some(numbered_by_walk(&t)),
                "seed {seed}"
            );
            assert_eq!(CanonicalView::new(&t).to_bytes(), whole, "seed {seed}");
            let r = reversed(&t);
            if r.nodes.len() > 2 {
                assert_eq!(numbered_in_arena_order(&r), None, "seed {seed}");
            }
            let whole = codec().serialize(&r.canonical()).expect("serializes");
            assert_eq!(CanonicalView::new(&r).to_bytes(), whole, "seed {seed}");
        }
    }
}
