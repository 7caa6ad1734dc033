//! Coverage-new: prefer states close to instructions no path has covered
//! yet, and states that covered something new recently.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rustc_hash::FxHashMap;

use super::{Searcher, States};
use crate::exec::Executor;
use crate::ir::{BlockId, FuncId};

/// Weighted random choice by distance to uncovered code, seeded.
pub struct CovNew {
    ids: Vec<u64>,
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
}

impl Searcher for CovNew {
    fn select(&mut self, states: &States, ex: &Executor) -> Option<u64> {
        if self.ids.is_empty() {
            return None;
        }
        if ex.covered_instructions() != self.cache_at {
            self.distances.clear();
            self.cache_at = ex.covered_instructions();
        }
        let mut weights = Vec::with_capacity(self.ids.len());
        for id in self.ids.clone() {
            let s = &states[&id];
            let fr = s.frame();
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
            let fresh = 1.0 / (1.0 + s.since_new_cover as f64 / 1000.0);
            weights.push(near * fresh);
        }
        let total: f64 = weights.iter().sum();
        let mut r = self.rng.gen::<f64>() * total;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return Some(self.ids[i]);
            }
            r -= w;
        }
        self.ids.last().copied()
    }

    fn forked(&mut self, _parent: u64, children: &[u64]) {
        self.ids.extend(children);
    }

    fn add(&mut self, id: u64) {
        self.ids.push(id);
    }

    fn remove(&mut self, id: u64) {
        self.ids.retain(|s| *s != id);
    }
}
