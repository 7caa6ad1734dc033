//! KLEE's random-path: walk the tree of forks from the root, choosing a
//! child at random at each fork, so shallow states are favoured and a
//! subtree that forks a lot cannot starve the rest.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;

use super::{Searcher, States};
use crate::exec::Executor;

struct Node {
    parent: Option<u32>,
    children: Vec<u32>,
    /// Live states below (or at) this node.
    live: u32,
    state: Option<u64>,
}

/// Random-path search over the fork tree, seeded for reproducibility.
pub struct RandomPath {
    nodes: Vec<Node>,
    leaf_of: FxHashMap<u64, u32>,
    roots: Vec<u32>,
    rng: SmallRng,
}

impl RandomPath {
    pub fn new(seed: u64) -> RandomPath {
        RandomPath {
            nodes: Vec::new(),
            leaf_of: FxHashMap::default(),
            roots: Vec::new(),
            rng: SmallRng::seed_from_u64(seed),
        }
    }

    fn leaf(&mut self, parent: Option<u32>, state: u64) -> u32 {
        let id = self.nodes.len() as u32;
        self.nodes.push(Node {
            parent,
            children: Vec::new(),
            live: 1,
            state: Some(state),
        });
        self.leaf_of.insert(state, id);
        id
    }

    fn adjust(&mut self, mut node: Option<u32>, delta: i32) {
        while let Some(n) = node {
            let nd = &mut self.nodes[n as usize];
            nd.live = (nd.live as i32 + delta) as u32;
            node = nd.parent;
        }
    }

    fn pick(&mut self, options: &[u32]) -> Option<u32> {
        let live: Vec<u32> = options
            .iter()
            .copied()
            .filter(|n| self.nodes[*n as usize].live > 0)
            .collect();
        if live.is_empty() {
            return None;
        }
        Some(live[self.rng.gen_range(0..live.len())])
    }
}

impl Searcher for RandomPath {
    fn select(&mut self, _: &States, _: &Executor) -> Option<u64> {
        let roots = self.roots.clone();
        let mut node = self.pick(&roots)?;
        loop {
            let n = &self.nodes[node as usize];
            if let Some(s) = n.state {
                return Some(s);
            }
            let children = n.children.clone();
            node = self.pick(&children)?;
        }
    }

    fn forked(&mut self, parent: u64, children: &[u64]) {
        let Some(leaf) = self.leaf_of.remove(&parent) else {
            return;
        };
        self.nodes[leaf as usize].state = None;
        let mut kids = vec![self.leaf(Some(leaf), parent)];
        for c in children {
            kids.push(self.leaf(Some(leaf), *c));
        }
        self.nodes[leaf as usize].children = kids;
        self.adjust(Some(leaf), children.len() as i32);
    }

    fn add(&mut self, id: u64) {
        let n = self.leaf(None, id);
        self.roots.push(n);
    }

    fn remove(&mut self, id: u64) {
        if let Some(leaf) = self.leaf_of.remove(&id) {
            self.nodes[leaf as usize].state = None;
            self.adjust(Some(leaf), -1);
        }
    }
}
