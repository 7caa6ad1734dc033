//! Coverage-new: prefer states close to instructions no path has covered
//! yet, and states that covered something new recently.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;

use super::sum_tree::SumTree;
use super::{Searcher, States};
use crate::exec::{Executor, State};
use crate::ir::{BlockId, FuncId};

/// Weighted random choice by distance to uncovered code, seeded.
///
/// A state's weight changes only when it runs (its place and its steps
/// since new coverage) or when coverage grows (the distances): weights are
/// kept in a sum tree and recomputed then, so that a choice costs the
/// logarithm of the pending states, not a walk over all of them.
pub struct CovNew {
    /// The pending states, one per slot of `weights`.
    ids: Vec<u64>,
    slot_of: FxHashMap<u64, usize>,
    weights: SumTree,
    /// States whose weight is not computed yet (new, or they ran).
    stale: Vec<u64>,
    rng: SmallRng,
    /// Per function: blocks to the nearest block with uncovered code, valid
    /// while the executor's covered count is `cache_at`.
    distances: FxHashMap<FuncId, Vec<u32>>,
    cache_at: u64,
}

impl CovNew {
    pub fn new(seed: u64) -> CovNew {
        CovNew {
            ids: Vec::new(),
            slot_of: FxHashMap::default(),
            weights: SumTree::default(),
            stale: Vec::new(),
            rng: SmallRng::seed_from_u64(seed),
            distances: FxHashMap::default(),
            cache_at: u64::MAX,
        }
    }

    fn distances(&mut self, f: FuncId, ex: &Executor) -> &Vec<u32> {
        self.distances.entry(f).or_insert_with(|| {
            let body = ex
                .module()
                .func(f)
                .body
                .as_ref()
                .expect("frames run defined functions");
            let n = body.blocks.len();
            let mut preds: Vec<Vec<usize>> = vec![Vec::new(); n];
            for b in 0..n {
                for s in body.successors(BlockId(b as u32)) {
                    preds[s.index()].push(b);
                }
            }
            let mut dist = vec![u32::MAX; n];
            let mut queue = std::collections::VecDeque::new();
            for (b, block) in body.blocks.iter().enumerate() {
                if (block.first.0..block.end.0).any(|i| !ex.is_covered(f, crate::ir::InstId(i))) {
                    dist[b] = 0;
                    queue.push_back(b);
                }
            }
            while let Some(b) = queue.pop_front() {
                for &p in &preds[b] {
                    if dist[p] == u32::MAX {
                        dist[p] = dist[b] + 1;
                        queue.push_back(p);
                    }
                }
            }
            dist
        })
    }

    fn weight(&mut self, state: &State, ex: &Executor) -> f64 {
        let fr = state.frame();
        let body = ex
            .module()
            .func(fr.func)
            .body
            .as_ref()
            .expect("frames run defined functions");
        let block = body.block_of[fr.pc.index()];
        let d = self.distances(fr.func, ex)[block.index()];
        let near = if d == u32::MAX {
            1e-3
        } else {
            1.0 / (1.0 + d as f64).powi(2)
        };
        let fresh = 1.0 / (1.0 + state.since_new_cover as f64 / 1000.0);
        near * fresh
    }

    fn reweigh(&mut self, id: u64, states: &States, ex: &Executor) {
        if let (Some(&slot), Some(state)) = (self.slot_of.get(&id), states.get(&id)) {
            let w = self.weight(state, ex);
            self.weights.set(slot, w);
        }
    }

    fn insert(&mut self, id: u64) {
        if self.slot_of.contains_key(&id) {
            return;
        }
        self.slot_of.insert(id, self.ids.len());
        self.ids.push(id);
        self.stale.push(id);
    }
}

impl Searcher for CovNew {
    fn select(&mut self, states: &States, ex: &Executor) -> Option<u64> {
        if self.ids.is_empty() {
            return None;
        }
        if ex.covered_instructions() != self.cache_at {
            // New coverage moves every distance: every weight is redone.
            self.distances.clear();
            self.cache_at = ex.covered_instructions();
            self.stale.clear();
            for slot in 0..self.ids.len() {
                self.reweigh(self.ids[slot], states, ex);
            }
        } else {
            for id in std::mem::take(&mut self.stale) {
                self.reweigh(id, states, ex);
            }
        }
        let point = self.rng.gen::<f64>() * self.weights.total();
        let slot = self
            .weights
            .find(point)
            .unwrap_or(self.ids.len() - 1)
            .min(self.ids.len() - 1);
        Some(self.ids[slot])
    }

    fn stepped(&mut self, id: u64) {
        self.stale.push(id);
    }

    fn forked(&mut self, parent: u64, children: &[u64]) {
        self.stale.push(parent);
        for &c in children {
            self.insert(c);
        }
    }

    fn add(&mut self, id: u64) {
        self.insert(id);
    }

    fn remove(&mut self, id: u64) {
        let Some(slot) = self.slot_of.remove(&id) else {
            return;
        };
        let last = self.ids.len() - 1;
        self.ids.swap_remove(slot);
        if slot != last {
            let moved = self.ids[slot];
            self.slot_of.insert(moved, slot);
            let w = self.weights.get(last);
            self.weights.set(slot, w);
        }
        self.weights.set(last, 0.0);
    }
}
