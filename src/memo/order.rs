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
    let mut order: Vec<usize> = (0..places.len()).collect();
    if let Some(keys) = path_keys(trie, places) {
        order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        return order;
    }
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
    order.sort_by_key(|&i| key(&places[i]));
    order
}

/// A test's place as a key that sorts depth-first: whether the place is
/// out of the trie (those come last), the alternatives from the root down
/// to it (an ancestor's path is a prefix of its descendants', and children
/// are kept by alternative), and its slot there.
type PathKey = (bool, Vec<u32>, u32);

/// The places' keys, found by walking up from each: a run that writes a
/// test only for new coverage has a few tests in a trie of hundreds of
/// thousands of nodes, which numbering them all would walk (a serial step
/// at the end of a parallel run). `None` when the walks would take longer
/// than numbering the whole trie.
fn path_keys(trie: &Trie, places: &[TestPlace]) -> Option<Vec<PathKey>> {
    let mut budget = trie.arena_len() / 2;
    let mut keys = Vec::with_capacity(places.len());
    for p in places {
        let mut path = Vec::new();
        let mut at = p.node;
        let reached = loop {
            if at.index() >= trie.arena_len() {
                break false;
            }
            if at == NodeId::ROOT {
                break true;
            }
            budget = budget.checked_sub(1)?;
            let node = trie.node(at);
            let Some(parent) = node.parent else {
                break false;
            };
            // A node its parent no longer lists is out of the trie.
            if trie.child(parent, node.via) != Some(at) {
                break false;
            }
            path.push(node.via);
            at = parent;
        };
        if !reached {
            path.clear();
        }
        path.reverse();
        keys.push((!reached, path, p.slot));
    }
    Some(keys)
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

    /// The preorder's ranks, the numbering the walks up must agree with.
    fn by_rank(t: &Trie, places: &[TestPlace]) -> Vec<usize> {
        let mut rank = vec![u32::MAX; t.arena_len()];
        for (i, id) in t.preorder().into_iter().enumerate() {
            rank[id.index()] = i as u32;
        }
        let mut order: Vec<usize> = (0..places.len()).collect();
        order.sort_by_key(|&i| (rank[places[i].node.index()], places[i].slot));
        order
    }

    #[test]
    fn a_few_tests_in_a_large_trie_are_ordered_as_numbering_the_whole_trie_orders_them() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let mut t = Trie::new(Recorded::default());
        let mut ids = vec![NodeId::ROOT];
        for _ in 0..2000 {
            let parent = ids[rng.gen_range(0..ids.len())];
            let via = rng.gen_range(0..6);
            if t.child(parent, via).is_some() {
                continue;
            }
            ids.push(t.add_child(parent, via));
        }
        // A node cut out of the trie is numbered after every other.
        let cut = ids[ids.len() - 1];
        let parent = t.node(cut).parent.unwrap();
        t.nodes[parent.index()].children.retain(|c| *c != cut);
        for n in [3, 20, 60] {
            let mut places: Vec<TestPlace> = (0..n)
                .map(|i| {
                    let node = ids[rng.gen_range(0..ids.len())];
                    if i % 5 == 0 {
                        TestPlace::kept(node, rng.gen_range(0..2))
                    } else {
                        TestPlace::leaf(node)
                    }
                })
                .collect();
            places.push(TestPlace::leaf(cut));
            places.push(TestPlace::leaf(parent));
            assert!(path_keys(&t, &places).is_some(), "{n} places walked");
            assert_eq!(trie_order(&t, &places), by_rank(&t, &places), "{n} places");
        }
        // Too many places for walks: the whole trie is numbered.
        let all: Vec<TestPlace> = ids.iter().map(|&id| TestPlace::leaf(id)).collect();
        assert!(path_keys(&t, &all).is_none());
        assert_eq!(trie_order(&t, &all), by_rank(&t, &all));
    }
}
