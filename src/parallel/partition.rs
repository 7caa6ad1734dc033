//! Partitions from the trie (Memoise §4.2.2): the candidate nodes of a run
//! over a recorded trie (boundary nodes, stopped paths) are shared out
//! among workers or shard files as balanced lists, each a set of trie
//! prefixes that its worker replays with the solver off before exploring
//! below them. No precondition is added to any query: a prefix is a path
//! of the trie, not a constraint.
//!
//! Each candidate is weighted by the expected cost of the subtree below
//! it: the nodes the trie already records there (a deeper trie), plus the
//! unexplored tree below it estimated from the trie's own shape, as
//! Knuth's estimator does from a probe: the branching factor observed per
//! level, continued down to the depth bound. The partitioner cuts the
//! trie at a frontier of nodes, each standing for the candidates below it,
//! splitting the heaviest node into its children while it outweighs a
//! list's share or while there are too few nodes to pack; then packs the
//! frontier into lists largest first, each onto the lightest list so far
//! (LPT). The naive split, for comparison, deals out the children of the
//! first branch in turn, whatever their weights.

use std::cmp::Ordering;

use std::sync::Arc;

use crate::exec::Guide;
use crate::ir::Module;
use crate::memo::{Marks, NodeId, Trie, TrieGuide};

/// Frontier nodes per list the partitioner aims for before packing: with
/// several pieces per list, LPT evens out what one piece's weight cannot.
pub const PIECES_PER_LIST: usize = 4;

/// How far below a candidate an unbounded run is estimated to go, in
/// decisions: only the ratios between candidates matter, and an unbounded
/// run's candidates are the pending paths of a stopped run, alike in what
/// is left below them.
const UNBOUNDED_HORIZON: u32 = 8;

/// The largest weight a candidate gets: a deep bound with a large branching
/// factor would otherwise overflow to infinity and make every candidate
/// weigh the same.
const MAX_WEIGHT: f64 = 1e15;

/// How the candidates are shared out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Packing {
    /// Weighted frontier, split where one node outweighs a share, packed
    /// largest first onto the lightest list.
    #[default]
    Lpt,
    /// The children of the first branch dealt out in turn, unweighted.
    Naive,
}

/// One worker's or shard's share: the candidates it explores below, in
/// trie order, and their expected cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Partition {
    pub candidates: Vec<NodeId>,
    pub weight: f64,
}

/// The expected cost below every node of a trie: the sum of the weights of
/// the candidates below it (indexed by arena slot).
#[derive(Clone, Debug)]
pub struct Weights {
    below: Vec<f64>,
    /// Candidates at or below each node.
    count: Vec<u32>,
    candidate: Vec<bool>,
    /// Preorder rank of each node, for ties and trie order.
    rank: Vec<u32>,
}

/// The branching factor the trie shows per level of depth: the geometric
/// mean of the growth from the root to the shallowest candidate's level,
/// where every path was recorded (at least 1).
fn branching(trie: &Trie, depth: &[u32], candidates: &[NodeId]) -> f64 {
    let Some(full) = candidates.iter().map(|c| depth[c.index()]).min() else {
        return 1.0;
    };
    if full == 0 {
        return 1.0;
    }
    // Nodes that start a level: the root and the children of a branch.
    let mut at_level = vec![0u64; full as usize + 1];
    for id in trie.preorder() {
        let d = depth[id.index()];
        let starts = match trie.node(id).parent {
            None => true,
            Some(p) => depth[p.index()] < d,
        };
        if starts && d <= full {
            at_level[d as usize] += 1;
        }
    }
    let last = at_level[full as usize].max(1) as f64;
    last.powf(1.0 / f64::from(full)).max(1.0)
}

impl Weights {
    /// Weighs `candidates` of `trie` for a run bounded at `bound` decisions.
    pub fn new(trie: &Trie, candidates: &[NodeId], bound: Option<u32>) -> Weights {
        let n = trie.arena_len();
        let depth = trie.depths();
        let b = branching(trie, &depth, candidates);
        let order = trie.preorder();
        let mut rank = vec![u32::MAX; n];
        for (i, id) in order.iter().enumerate() {
            rank[id.index()] = i as u32;
        }
        let mut candidate = vec![false; n];
        for c in candidates {
            candidate[c.index()] = true;
        }
        // Recorded nodes below each node, for candidates a deeper trie
        // already explored (a regression's, or a stopped path's subtree).
        let mut recorded = vec![1f64; n];
        for id in order.iter().rev() {
            if let Some(p) = trie.node(*id).parent {
                recorded[p.index()] += recorded[id.index()];
            }
        }
        let mut below = vec![0f64; n];
        let mut count = vec![0u32; n];
        for c in candidates {
            let d = depth[c.index()];
            let left = bound.map_or(UNBOUNDED_HORIZON, |b| b.saturating_sub(d));
            // 1 + b + b^2 + ... + b^left: the estimated tree of `left` more
            // levels.
            let unexplored = if b > 1.0 {
                (b.powf(f64::from(left) + 1.0) - 1.0) / (b - 1.0)
            } else {
                f64::from(left) + 1.0
            };
            below[c.index()] = (recorded[c.index()] - 1.0 + unexplored).min(MAX_WEIGHT);
            count[c.index()] = 1;
        }
        for id in order.iter().rev() {
            if let Some(p) = trie.node(*id).parent {
                below[p.index()] += below[id.index()];
                count[p.index()] += count[id.index()];
            }
        }
        Weights {
            below,
            count,
            candidate,
            rank,
        }
    }

    /// The expected cost below `id`.
    pub fn of(&self, id: NodeId) -> f64 {
        self.below.get(id.index()).copied().unwrap_or(0.0)
    }

    /// The expected cost of the whole run.
    pub fn total(&self) -> f64 {
        self.of(NodeId::ROOT)
    }

    fn has_work(&self, id: NodeId) -> bool {
        self.count.get(id.index()).is_some_and(|c| *c > 0)
    }

    fn is_candidate(&self, id: NodeId) -> bool {
        self.candidate.get(id.index()).copied().unwrap_or(false)
    }

    fn rank(&self, id: NodeId) -> u32 {
        self.rank.get(id.index()).copied().unwrap_or(u32::MAX)
    }

    /// Heaviest first; equal weights in trie order, so that a partition
    /// does not depend on anything but the trie.
    fn heavier_first(&self, a: NodeId, b: NodeId) -> Ordering {
        self.of(b)
            .total_cmp(&self.of(a))
            .then(self.rank(a).cmp(&self.rank(b)))
    }

    /// The children of `id` with candidates below them (none below a
    /// candidate: its subtree is explored as one).
    fn parts(&self, trie: &Trie, id: NodeId) -> Vec<NodeId> {
        if self.is_candidate(id) {
            return Vec::new();
        }
        trie.node(id)
            .children
            .iter()
            .copied()
            .filter(|c| self.has_work(*c))
            .collect()
    }

    /// The candidates at or below `id`, in trie order.
    fn candidates_below(&self, trie: &Trie, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            if self.is_candidate(n) {
                out.push(n);
                continue;
            }
            stack.extend(self.parts(trie, n).into_iter().rev());
        }
        out
    }
}

/// The frontier the weighted partitioner packs: nodes whose subtrees
/// together hold every candidate once, the heaviest split into its
/// children while it outweighs a share of `lists` or while there are fewer
/// than [`PIECES_PER_LIST`] nodes a list.
pub fn frontier(trie: &Trie, weights: &Weights, lists: usize) -> Vec<NodeId> {
    if !weights.has_work(NodeId::ROOT) {
        return Vec::new();
    }
    let share = weights.total() / lists.max(1) as f64;
    let want = lists.max(1) * PIECES_PER_LIST;
    let mut done: Vec<NodeId> = Vec::new();
    // Splittable nodes, kept heaviest last.
    let mut open = vec![NodeId::ROOT];
    while let Some(&heaviest) = open.last() {
        if open.len() + done.len() >= want && weights.of(heaviest) <= share {
            break;
        }
        open.pop();
        let parts = weights.parts(trie, heaviest);
        if parts.is_empty() {
            done.push(heaviest);
            continue;
        }
        open.extend(parts);
        open.sort_by(|a, b| weights.heavier_first(*b, *a));
    }
    done.extend(open);
    done.sort_by_key(|id| weights.rank(*id));
    done
}

/// Shares the candidates `weights` was made for out into `lists` lists
/// (some empty when there are fewer pieces than lists).
pub fn partition(trie: &Trie, weights: &Weights, lists: usize, packing: Packing) -> Vec<Partition> {
    let lists = lists.max(1);
    let mut out = vec![Partition::default(); lists];
    match packing {
        Packing::Lpt => {
            let mut pieces = frontier(trie, weights, lists);
            pieces.sort_by(|a, b| weights.heavier_first(*a, *b));
            for piece in pieces {
                let lightest = (0..lists)
                    .min_by(|a, b| out[*a].weight.total_cmp(&out[*b].weight).then(a.cmp(b)))
                    .unwrap_or(0);
                out[lightest].weight += weights.of(piece);
                out[lightest]
                    .candidates
                    .extend(weights.candidates_below(trie, piece));
            }
        }
        Packing::Naive => {
            for (i, piece) in first_branch(trie, weights).into_iter().enumerate() {
                let p = &mut out[i % lists];
                p.weight += weights.of(piece);
                p.candidates.extend(weights.candidates_below(trie, piece));
            }
        }
    }
    for p in &mut out {
        p.candidates.sort_by_key(|id| weights.rank(*id));
    }
    out
}

/// The guides of a parallel run over `base` (marked `marks`) whose workers
/// each start on a partition of the candidates: per worker, a guide that
/// follows its partition's prefixes (and skips the others'), and whether
/// it has any.
pub fn worker_guides(
    base: &Arc<Trie>,
    marks: &Marks,
    bound: Option<u32>,
    jobs: usize,
    packing: Packing,
    module: &Module,
) -> Vec<(Arc<dyn Guide>, bool)> {
    let candidates = marks.candidate_ids();
    let weights = Weights::new(base, &candidates, bound);
    // The retry nodes go to the first worker: each alternative is to be
    // asked about once, and they are few.
    let mut retries = marks.retry_ids();
    partition(base, &weights, jobs, packing)
        .into_iter()
        .map(|p| {
            let mut own = Marks::new(base, &p.candidates);
            let work = !p.candidates.is_empty() || !retries.is_empty();
            own.add_retries(base, &std::mem::take(&mut retries));
            let guide: Arc<dyn Guide> = Arc::new(TrieGuide::new(base.clone(), own, module));
            (guide, work)
        })
        .collect()
}

/// The children of the first node with more than one child holding
/// candidates (or the one candidate a chain of single children leads to).
fn first_branch(trie: &Trie, weights: &Weights) -> Vec<NodeId> {
    if !weights.has_work(NodeId::ROOT) {
        return Vec::new();
    }
    let mut at = NodeId::ROOT;
    loop {
        let parts = weights.parts(trie, at);
        match parts.as_slice() {
            [] => return vec![at],
            [one] => at = *one,
            _ => return parts,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::exec::Alt;
    use crate::memo::trie::TriePoint;
    use crate::memo::{End, Recorded};

    /// A trie whose every inner node branches two ways, with boundary
    /// leaves: `shape` gives, per leaf in order, its path of alternatives.
    pub(crate) fn trie_of(paths: &[&[u32]]) -> (Trie, Vec<NodeId>) {
        let mut t = Trie::new(Recorded::default());
        let func = t.intern_func("f");
        let mut leaves = Vec::new();
        for path in paths {
            let mut at = NodeId::ROOT;
            for &alt in *path {
                if t.nodes[at.index()].point.is_none() {
                    t.nodes[at.index()].point = Some(TriePoint {
                        func,
                        site: 0,
                        line: 0,
                        alts: (0..2).map(|i| Alt::decided(i, true)).collect(),
                    });
                }
                at = match t.child(at, alt) {
                    Some(c) => c,
                    None => t.add_child(at, alt),
                };
            }
            t.nodes[at.index()].end = Some(End::Early {
                reason: End::MAX_DEPTH.into(),
            });
            leaves.push(at);
        }
        (t, leaves)
    }

    #[test]
    fn every_candidate_goes_to_exactly_one_list() {
        let (t, c) = trie_of(&[
            &[0, 0, 0],
            &[0, 0, 1],
            &[0, 1],
            &[1, 0],
            &[1, 1, 0],
            &[1, 1, 1],
        ]);
        let w = Weights::new(&t, &c, Some(5));
        for lists in 1..8 {
            for packing in [Packing::Lpt, Packing::Naive] {
                let parts = partition(&t, &w, lists, packing);
                assert_eq!(parts.len(), lists);
                let mut all: Vec<NodeId> =
                    parts.iter().flat_map(|p| p.candidates.clone()).collect();
                all.sort();
                let mut want = c.clone();
                want.sort();
                assert_eq!(all, want, "{lists} lists, {packing:?}");
            }
        }
    }

    #[test]
    fn shallower_candidates_weigh_more_and_lpt_evens_them_out() {
        // One leaf at depth 1 (most left below it), four at depth 3.
        let (t, c) = trie_of(&[&[0], &[1, 0, 0], &[1, 0, 1], &[1, 1, 0], &[1, 1, 1]]);
        let w = Weights::new(&t, &c, Some(6));
        assert!(w.of(c[0]) > w.of(c[1]));
        let lpt = partition(&t, &w, 2, Packing::Lpt);
        let naive = partition(&t, &w, 2, Packing::Naive);
        let costs = |ps: &[Partition]| ps.iter().map(|p| p.weight).collect::<Vec<_>>();
        assert!(
            crate::parallel::imbalance(&costs(&lpt))
                <= crate::parallel::imbalance(&costs(&naive)) + 1e-9
        );
        // The naive split takes the first branch: the shallow leaf alone,
        // and the four deep ones together.
        assert_eq!(naive[0].candidates, vec![c[0]]);
        assert_eq!(naive[1].candidates, c[1..].to_vec());
    }

    #[test]
    fn a_node_heavier_than_a_share_is_split() {
        // Everything below one child of the root: the frontier must go
        // below it to give three lists work.
        let (t, c) = trie_of(&[&[0, 0, 0], &[0, 0, 1], &[0, 1, 0], &[0, 1, 1]]);
        let w = Weights::new(&t, &c, Some(4));
        let parts = partition(&t, &w, 3, Packing::Lpt);
        assert!(parts.iter().all(|p| !p.candidates.is_empty()));
        let f = frontier(&t, &w, 2);
        assert!(f.len() >= 2, "{f:?}");
    }

    #[test]
    fn no_candidates_give_empty_lists() {
        let (t, _) = trie_of(&[&[0], &[1]]);
        let w = Weights::new(&t, &[], Some(3));
        let parts = partition(&t, &w, 4, Packing::Lpt);
        assert!(parts.iter().all(|p| p.candidates.is_empty()));
    }
}
