//! The counterexample cache's stored sets as a trie, to find every stored
//! subset of a query's set.
//!
//! A stored set is a path from the root, its conjuncts oldest first (by
//! serial). The queries of one path add its newest constraints to the
//! older ones, so their sets share long prefixes. The search walks each
//! shared prefix once; checking the stored subsets one by one cost the sum
//! of their sizes, which on a path of depth d is d² per query (on a loop
//! run 400 times, three quarters of the run).

use rustc_hash::FxHashMap;

use crate::expr::ExprRef;

/// A trie node, by index in the arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct NodeId(u32);

const ROOT: NodeId = NodeId(0);
/// No node, or no entry.
const NONE: u32 = u32::MAX;

struct Node {
    /// The conjunct on the edge into the node; `None` at the root.
    label: Option<ExprRef>,
    first_child: u32,
    next_sibling: u32,
    children: u32,
    /// The entry whose set ends here, or [`NONE`].
    entry: u32,
}

impl Node {
    fn new(label: Option<ExprRef>) -> Self {
        Node {
            label,
            first_child: NONE,
            next_sibling: NONE,
            children: 0,
            entry: NONE,
        }
    }
}

/// Stored conjunct sets, each naming an entry of the cache, searched for
/// the subsets of a query.
pub struct SubsetTrie {
    nodes: Vec<Node>,
    /// (parent, the label's address) -> child. The address identifies an
    /// interned expression while the trie holds it, and the map is only
    /// looked up, never iterated, so nothing depends on addresses' order.
    edges: FxHashMap<(NodeId, usize), NodeId>,
}

impl Default for SubsetTrie {
    fn default() -> Self {
        SubsetTrie {
            nodes: vec![Node::new(None)],
            edges: FxHashMap::default(),
        }
    }
}

impl SubsetTrie {
    /// Nodes held, the root included: what the trie's memory grows with.
    pub fn nodes(&self) -> usize {
        self.nodes.len()
    }

    /// Stores `set` (in any order, without repeats) as `entry`'s; a set
    /// stored before keeps its first entry.
    pub fn insert(&mut self, set: &[ExprRef], entry: u32) {
        let mut ordered: Vec<&ExprRef> = set.iter().collect();
        ordered.sort_by(|a, b| a.serial().cmp(&b.serial()).then_with(|| a.cmp(b)));
        let mut at = ROOT;
        for c in ordered {
            let key = (at, c.as_ptr() as usize);
            at = match self.edges.get(&key) {
                Some(&child) => child,
                None => {
                    let child = NodeId(self.nodes.len() as u32);
                    let mut node = Node::new(Some(c.clone()));
                    let parent = &mut self.nodes[at.0 as usize];
                    node.next_sibling = parent.first_child;
                    parent.first_child = child.0;
                    parent.children += 1;
                    self.nodes.push(node);
                    self.edges.insert(key, child);
                    child
                }
            };
        }
        let end = &mut self.nodes[at.0 as usize].entry;
        if *end == NONE {
            *end = entry;
        }
    }

    /// Calls `found` with the entry of every stored subset of `query`
    /// (sorted by `Ord`, without repeats) until it returns `false`.
    pub fn subsets(&self, query: &[ExprRef], mut found: impl FnMut(u32) -> bool) {
        let mut stack = vec![ROOT];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n.0 as usize];
            if node.entry != NONE && !found(node.entry) {
                return;
            }
            // Through whichever is shorter: the node's children, or the
            // query's conjuncts (at the root, a child per first conjunct).
            if node.children as usize > query.len() {
                for c in query {
                    if let Some(&child) = self.edges.get(&(n, c.as_ptr() as usize)) {
                        stack.push(child);
                    }
                }
            } else {
                let mut child = node.first_child;
                while child != NONE {
                    let next = &self.nodes[child as usize];
                    let label = next.label.as_ref().expect("only the root has no label");
                    if query.binary_search(label).is_ok() {
                        stack.push(NodeId(child));
                    }
                    child = next.next_sibling;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SubsetTrie;
    use crate::expr::{self, Array, ExprRef, UpdateList};

    fn atoms(n: u64) -> Vec<ExprRef> {
        let x = expr::read(
            &UpdateList::new(Array::symbolic("subsets_x", 1)),
            &expr::constant(0, 64),
        );
        (0..n)
            .map(|k| expr::ult(&x, &expr::constant(200 - k as u128, 8)))
            .collect()
    }

    fn sorted(mut v: Vec<ExprRef>) -> Vec<ExprRef> {
        v.sort();
        v.dedup();
        v
    }

    fn subsets_of(t: &SubsetTrie, q: &[ExprRef]) -> Vec<u32> {
        let mut out = Vec::new();
        t.subsets(&sorted(q.to_vec()), |e| {
            out.push(e);
            true
        });
        out.sort();
        out
    }

    #[test]
    fn finds_exactly_the_stored_subsets_of_a_query() {
        let a = atoms(6);
        let mut t = SubsetTrie::default();
        // Stored in an order unlike both the serial and the `Ord` order.
        let stored: Vec<Vec<usize>> = vec![
            vec![3, 0],
            vec![0],
            vec![0, 1, 2],
            vec![5, 4],
            vec![1],
            vec![],
            vec![2, 0, 1, 3],
        ];
        for (i, s) in stored.iter().enumerate() {
            let set: Vec<ExprRef> = s.iter().map(|&k| a[k].clone()).collect();
            t.insert(&set, i as u32);
        }
        // Every query over the six atoms, against a direct check.
        for mask in 0u32..64 {
            let q: Vec<ExprRef> = (0..6)
                .filter(|k| mask >> k & 1 == 1)
                .map(|k| a[k].clone())
                .collect();
            let want: Vec<u32> = stored
                .iter()
                .enumerate()
                .filter(|(_, s)| s.iter().all(|&k| mask >> k & 1 == 1))
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(subsets_of(&t, &q), want, "query {mask:06b}");
        }
    }

    #[test]
    fn a_set_stored_twice_keeps_its_first_entry_and_a_search_can_stop() {
        let a = atoms(3);
        let mut t = SubsetTrie::default();
        t.insert(&a[..2], 7);
        t.insert(&[a[1].clone(), a[0].clone()], 9);
        t.insert(&a[..1], 8);
        assert_eq!(subsets_of(&t, &a), vec![7, 8]);
        let mut seen = 0;
        t.subsets(&sorted(a.clone()), |_| {
            seen += 1;
            false
        });
        assert_eq!(seen, 1, "the search stops when asked to");
    }

    #[test]
    fn nested_sets_of_a_deep_path_share_their_nodes() {
        // The sets a path of depth 200 asks about: each adds one conjunct.
        let a = atoms(200);
        let mut t = SubsetTrie::default();
        for d in 1..=a.len() {
            t.insert(&a[..d], d as u32);
        }
        assert_eq!(t.nodes(), a.len() + 1);
        assert_eq!(subsets_of(&t, &a[..50]).len(), 50);
        // A wide root (many first conjuncts) is searched through the query.
        let mut wide = SubsetTrie::default();
        for (i, c) in a.iter().enumerate() {
            wide.insert(std::slice::from_ref(c), i as u32);
        }
        assert_eq!(subsets_of(&wide, &a[10..13]), vec![10, 11, 12]);
    }
}
