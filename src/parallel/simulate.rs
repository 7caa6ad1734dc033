//! A prediction, not a measurement: how a run would share out among more
//! workers than this machine has, from the costs the run recorded. The
//! partitions are made as a real run makes them (weights from the trie the
//! run started from, packed largest first); each candidate's real cost is
//! the size of its subtree in the finished run's trie, a node costing one
//! plus the blocks its stretch executed. Static partitions end when their
//! heaviest list does; with dynamic balancing an idle worker takes the
//! shallowest pending node of the worker with the most pending, as
//! `--balance trie` moves states.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::partition::{partition, Packing, Weights};
use crate::memo::{NodeId, Trie};

/// The predicted speedup and imbalance of one number of workers.
#[derive(Clone, Debug, PartialEq)]
pub struct Prediction {
    pub workers: usize,
    /// Static partitions alone: the total cost over the heaviest list's.
    pub static_speedup: f64,
    pub static_imbalance: f64,
    /// Partitions with dynamic balancing on top.
    pub speedup: f64,
    pub imbalance: f64,
}

/// What a node of the finished run costs.
fn cost(done: &Trie, id: NodeId) -> f64 {
    1.0 + done.node(id).stretch.len() as f64
}

/// Predicts `workers` workers exploring below `candidates` of `base`
/// (bounded at `bound`), the finished run's trie being `done`.
pub fn predict(
    base: &Trie,
    candidates: &[NodeId],
    bound: Option<u32>,
    done: &Trie,
    workers: usize,
) -> Prediction {
    let workers = workers.max(1);
    let weights = Weights::new(base, candidates, bound);
    let lists = partition(base, &weights, workers, Packing::Lpt);
    // Each list's candidates as nodes of the finished trie.
    let roots: Vec<Vec<NodeId>> = lists
        .iter()
        .map(|l| {
            l.candidates
                .iter()
                .filter_map(|c| done.find(&base.path_to(*c)))
                .collect()
        })
        .collect();
    let mut below = vec![0f64; done.arena_len()];
    for id in done.preorder().into_iter().rev() {
        below[id.index()] += cost(done, id);
        if let Some(p) = done.node(id).parent {
            below[p.index()] += below[id.index()];
        }
    }
    let static_costs: Vec<f64> = roots
        .iter()
        .map(|r| r.iter().map(|n| below[n.index()]).sum())
        .collect();
    let total: f64 = static_costs.iter().sum();
    let heaviest = static_costs.iter().copied().fold(0.0, f64::max);
    let busy = dynamic(done, roots);
    let makespan = busy.1;
    Prediction {
        workers,
        static_speedup: if heaviest > 0.0 {
            total / heaviest
        } else {
            1.0
        },
        static_imbalance: super::imbalance(&static_costs),
        speedup: if makespan > 0.0 {
            total / makespan
        } else {
            1.0
        },
        imbalance: super::imbalance(&busy.0),
    }
}

/// Simulates workers exploring from `roots` (per worker, nodes of `done`)
/// node by node, an idle worker taking the shallowest pending node of the
/// worker with the most; returns each worker's busy time and when the last
/// one ends.
fn dynamic(done: &Trie, roots: Vec<Vec<NodeId>>) -> (Vec<f64>, f64) {
    let n = roots.len();
    let mut pending: Vec<VecDeque<NodeId>> = roots.into_iter().map(VecDeque::from).collect();
    let mut busy = vec![0f64; n];
    let mut running: Vec<Option<NodeId>> = vec![None; n];
    // (finish time in integer ticks, worker): costs are whole numbers.
    let mut events: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut idle: Vec<usize> = Vec::new();
    let mut end = 0u64;
    let take = |w: usize, pending: &mut Vec<VecDeque<NodeId>>| -> Option<NodeId> {
        if let Some(node) = pending[w].pop_back() {
            return Some(node);
        }
        let victim = (0..pending.len()).max_by_key(|v| (pending[*v].len(), Reverse(*v)))?;
        pending[victim].pop_front()
    };
    let mut start = |w: usize,
                     now: u64,
                     pending: &mut Vec<VecDeque<NodeId>>,
                     events: &mut BinaryHeap<Reverse<(u64, usize)>>,
                     running: &mut Vec<Option<NodeId>>|
     -> bool {
        match take(w, pending) {
            Some(node) => {
                let c = cost(done, node);
                busy[w] += c;
                running[w] = Some(node);
                events.push(Reverse((now + c as u64, w)));
                true
            }
            None => false,
        }
    };
    for w in 0..n {
        if !start(w, 0, &mut pending, &mut events, &mut running) {
            idle.push(w);
        }
    }
    while let Some(Reverse((now, w))) = events.pop() {
        end = end.max(now);
        if let Some(node) = running[w].take() {
            pending[w].extend(done.node(node).children.iter().rev().copied());
        }
        if !start(w, now, &mut pending, &mut events, &mut running) {
            idle.push(w);
        }
        while !idle.is_empty() && pending.iter().any(|p| !p.is_empty()) {
            let i = idle.remove(0);
            if !start(i, now, &mut pending, &mut events, &mut running) {
                idle.push(i);
                break;
            }
        }
    }
    (busy, end as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::partition::tests::trie_of;

    /// A complete binary trie of `depth` levels and its leaves.
    fn full(depth: u32) -> (Trie, Vec<NodeId>) {
        let paths: Vec<Vec<u32>> = (0..1u32 << depth)
            .map(|i| (0..depth).rev().map(|b| (i >> b) & 1).collect())
            .collect();
        let refs: Vec<&[u32]> = paths.iter().map(Vec::as_slice).collect();
        trie_of(&refs)
    }

    #[test]
    fn an_even_tree_speeds_up_with_its_workers_until_it_runs_out_of_pieces() {
        let (base, candidates) = full(4);
        let (done, _) = full(10);
        let one = predict(&base, &candidates, Some(10), &done, 1);
        assert!((one.speedup - 1.0).abs() < 1e-9, "{one:?}");
        let four = predict(&base, &candidates, Some(10), &done, 4);
        assert!(four.static_speedup > 3.9 && four.speedup > 3.9, "{four:?}");
        assert!(four.imbalance < 1.05, "{four:?}");
        // More workers than candidates: static partitions leave workers
        // idle, dynamic balancing splits the subtrees further.
        let many = predict(&base, &candidates, Some(10), &done, 64);
        assert!(many.static_speedup <= 16.0 + 1e-9, "{many:?}");
        assert!(many.speedup > many.static_speedup, "{many:?}");
    }
}
