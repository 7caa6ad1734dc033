//! The tests' numbering: a run numbers its tests by their place in the
//! trie, not by the order their paths ended in, so that the numbering does
//! not depend on the searcher's order or on the number of workers
//! (DESIGN.md, invariant 7).

use super::trie::{NodeId, Trie};

/// Where a test sits in a trie: a leaf's own test, or one of the tests a
/// node keeps for the subtree compression cut off below it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct TestPlace {
    pub node: NodeId,
    /// 0 for the leaf's test, 1 + i for the node's i-th kept test (a node's
    /// own test comes before the ones it keeps, as `Trie::tests_below`
    /// lists them).
    pub slot: u32,
}

impl TestPlace {
    pub fn leaf(node: NodeId) -> TestPlace {
        TestPlace { node, slot: 0 }
    }

    pub fn kept(node: NodeId, i: usize) -> TestPlace {
        TestPlace {
            node,
            slot: 1 + i as u32,
        }
    }
}

/// The order of tests by their places in `trie`: `order[k]` is the index
/// in `places` of the test numbered `k + 1` (depth-first, children by
/// alternative). Tests at the same place keep the order they came in.
pub fn trie_order(trie: &Trie, places: &[TestPlace]) -> Vec<usize> {
    let mut rank = vec![u32::MAX; trie.arena_len()];
    for (i, id) in trie.preorder().into_iter().enumerate() {
        rank[id.index()] = i as u32;
    }
    let key = |p: &TestPlace| {
        (
            rank.get(p.node.index()).copied().unwrap_or(u32::MAX),
            p.slot,
        )
    };
    let mut order: Vec<usize> = (0..places.len()).collect();
    order.sort_by_key(|&i| key(&places[i]));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memo::Recorded;

    #[test]
    fn tests_are_ordered_depth_first_whatever_order_they_came_in() {
        let mut t = Trie::new(Recorded::default());
        let a = t.add_child(NodeId::ROOT, 1);
        let b = t.add_child(NodeId::ROOT, 0);
        let c = t.add_child(b, 1);
        let d = t.add_child(b, 0);
        // Came in as a, c, d, and two tests kept at a.
        let places = [
            TestPlace::leaf(a),
            TestPlace::leaf(c),
            TestPlace::leaf(d),
            TestPlace::kept(a, 1),
            TestPlace::kept(a, 0),
        ];
        // Depth first: b (d, c), then a with its own test and those kept.
        assert_eq!(trie_order(&t, &places), vec![2, 1, 0, 4, 3]);
    }
}
