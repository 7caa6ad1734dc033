//! Marking, compression and merging, as Memoise defines them.
//!
//! - **Marking**: given the candidate nodes (roots of the subtrees a run
//!   must explore again), every node on a path from the root to a
//!   candidate is marked; the rest are not.
//! - **Compression**: the children of every unmarked node are removed.
//!   Unmarked children of marked nodes stay (the paper's "pruning hanging"
//!   nodes): they tell the replay that an alternative was explored, and
//!   here they also keep the tests of the subtree they stood for.
//! - **Merging**: the trie a run built on a compressed trie gets back, at
//!   each hanging node, the subtree the old trie has there, so the result
//!   is complete again.

use super::trie::{Node, NodeId, Trie, TriePoint};
use thin_vec::ThinVec;

/// The marks of one memoized run over one trie (never saved: marking is
/// redone at the start of every run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub marked: Vec<bool>,
    pub candidate: Vec<bool>,
    /// Nodes whose undecided alternatives the run asks about again
    /// (`--retry-undecided`).
    pub retry: Vec<bool>,
}

impl Marks {
    /// Marks `candidates` and every ancestor of them.
    pub fn new(trie: &Trie, candidates: &[NodeId]) -> Marks {
        let mut m = Marks {
            marked: vec![false; trie.arena_len()],
            candidate: vec![false; trie.arena_len()],
            retry: vec![false; trie.arena_len()],
        };
        for &c in candidates {
            m.candidate[c.index()] = true;
        }
        m.add_routes(trie, candidates);
        m
    }

    /// Makes `nodes` retry nodes, marked with their ancestors: a run
    /// follows the trie to each and asks again about its undecided
    /// alternatives, going on down its recorded ones as it would elsewhere.
    pub fn add_retries(&mut self, trie: &Trie, nodes: &[NodeId]) {
        for &n in nodes {
            self.retry[n.index()] = true;
        }
        self.add_routes(trie, nodes);
    }

    /// Marks `nodes` and their ancestors.
    fn add_routes(&mut self, trie: &Trie, nodes: &[NodeId]) {
        for &n in nodes {
            let mut at = Some(n);
            while let Some(id) = at {
                if std::mem::replace(&mut self.marked[id.index()], true) {
                    break;
                }
                at = trie.node(id).parent;
            }
        }
    }

    /// Every node marked, none a candidate: certification follows the
    /// whole trie.
    pub fn all(trie: &Trie) -> Marks {
        Marks {
            marked: vec![true; trie.arena_len()],
            candidate: vec![false; trie.arena_len()],
            retry: vec![false; trie.arena_len()],
        }
    }

    pub fn is_marked(&self, id: NodeId) -> bool {
        self.marked.get(id.index()).copied().unwrap_or(false)
    }

    pub fn is_candidate(&self, id: NodeId) -> bool {
        self.candidate.get(id.index()).copied().unwrap_or(false)
    }

    pub fn is_retry(&self, id: NodeId) -> bool {
        self.retry.get(id.index()).copied().unwrap_or(false)
    }

    /// The nodes of `trie` outside the candidates' subtrees (what a run
    /// keeps), in depth-first order.
    pub fn outside_candidates(&self, trie: &Trie) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![NodeId::ROOT];
        while let Some(id) = stack.pop() {
            if self.is_candidate(id) {
                continue;
            }
            out.push(id);
            stack.extend(trie.node(id).children.iter().rev().copied());
        }
        out
    }

    /// The retry nodes, in arena order.
    pub fn retry_ids(&self) -> Vec<NodeId> {
        (0..self.retry.len())
            .filter(|i| self.retry[*i])
            .map(|i| NodeId(i as u32))
            .collect()
    }

    pub fn candidates(&self) -> usize {
        self.candidate.iter().filter(|c| **c).count()
    }

    /// The candidates, in arena order.
    pub fn candidate_ids(&self) -> Vec<NodeId> {
        (0..self.candidate.len())
            .filter(|i| self.candidate[*i])
            .map(|i| NodeId(i as u32))
            .collect()
    }

    /// Marks for a trie that grew (nodes added after these marks were made
    /// are neither marked nor candidates).
    fn extended(&self, len: usize) -> Marks {
        let mut m = self.clone();
        m.marked.resize(len, false);
        m.candidate.resize(len, false);
        m.retry.resize(len, false);
        m
    }
}

/// The boundary nodes: leaves ended by the depth bound (iterative
/// deepening's candidates).
pub fn boundary_nodes(trie: &Trie) -> Vec<NodeId> {
    trie.leaves()
        .filter(|id| trie.node(*id).end.as_ref().is_some_and(|e| e.is_boundary()))
        .collect()
}

/// The nodes whose choice point has an alternative no run could decide,
/// outside the subtrees of `marks`' candidates (explored anew, they ask
/// about every alternative there).
pub fn undecided_nodes(trie: &Trie, marks: &Marks) -> Vec<NodeId> {
    marks
        .outside_candidates(trie)
        .into_iter()
        .filter(|id| {
            trie.node(*id)
                .point
                .as_ref()
                .is_some_and(|p| p.undecided() > 0)
        })
        .collect()
}

/// The leaves of paths a limit of the run stopped (resume's candidates).
pub fn stopped_nodes(trie: &Trie) -> Vec<NodeId> {
    trie.leaves()
        .filter(|id| trie.node(*id).end.as_ref().is_some_and(|e| e.is_stopped()))
        .collect()
}

/// The compressed trie and its marks: the children of unmarked nodes are
/// removed, their tests kept on the node.
pub fn compress(trie: &Trie, marks: &Marks) -> (Trie, Marks) {
    let mut out = trie.clone();
    out.nodes.clear();
    let mut out_marks = Marks::default();
    // (old id, new parent)
    let mut stack = vec![(NodeId::ROOT, None::<NodeId>)];
    while let Some((old, parent)) = stack.pop() {
        let n = trie.node(old);
        let id = NodeId(out.nodes.len() as u32);
        let marked = marks.is_marked(old);
        let mut node = Node {
            parent,
            children: ThinVec::new(),
            ..n.clone()
        };
        if !marked && !n.children.is_empty() {
            node.kept = trie.tests_below(old).into_iter().cloned().collect();
            node.test = None;
        }
        out.nodes.push(node);
        out_marks.marked.push(marked);
        out_marks.candidate.push(marks.is_candidate(old));
        out_marks.retry.push(marks.is_retry(old));
        if let Some(p) = parent {
            out.nodes[p.index()].children.push(id);
        }
        if marked {
            for c in n.children.iter().rev() {
                stack.push((*c, Some(id)));
            }
        }
    }
    (out, out_marks)
}

/// Merges the trie `new`, built by a run on the compression of `old` with
/// marks `marks`, with `old`: every hanging (unmarked) node of `new` gets
/// back the subtree `old` has there. Candidates are left as the run made
/// them. The result is complete.
pub fn merge(old: &Trie, new: &Trie, marks: &Marks) -> Trie {
    let marks = marks.extended(new.arena_len());
    let mut out = new.clone();
    let mut work = vec![(NodeId::ROOT, NodeId::ROOT)];
    while let Some((o, n)) = work.pop() {
        if marks.is_candidate(n) {
            continue;
        }
        if !marks.is_marked(n) {
            if !old.node(o).children.is_empty() {
                out.nodes[n.index()].kept.clear();
                graft(old, o, &mut out, n);
            }
            continue;
        }
        for &nc in &new.node(n).children {
            if let Some(oc) = old.child(o, new.node(nc).via) {
                work.push((oc, nc));
            }
        }
    }
    out
}

/// Adds to the node `to` of `dst` what a run that asked again about its
/// undecided alternatives learned at the same node, `from` of `src`: the
/// answers, and the subtrees of the alternatives found feasible. The
/// alternatives `to` already has children for keep them.
pub(crate) fn take_answers(src: &Trie, from: NodeId, dst: &mut Trie, to: NodeId) {
    if let Some(now) = &src.node(from).point {
        dst.settle_point(to, &now.alts);
    }
    for &c in &src.node(from).children {
        let via = src.node(c).via;
        if dst.child(to, via).is_none() {
            let id = dst.add_child(to, via);
            graft(src, c, dst, id);
        }
    }
}

/// Copies the children of `from` in `src`, with their subtrees, under
/// `to` in `dst`, whose point and leaf data become `from`'s. Function
/// indices are translated into `dst`'s table on the way.
pub(crate) fn graft(src: &Trie, from: NodeId, dst: &mut Trie, to: NodeId) {
    let mut stack = vec![(from, to)];
    while let Some((s, d)) = stack.pop() {
        let sn = src.node(s);
        let mut func =
            |f: u32| dst.intern_func(src.funcs.get(f as usize).map_or("", |n| n.as_str()));
        let point = sn.point.as_ref().map(|p| TriePoint {
            func: func(p.func),
            ..p.clone()
        });
        let stretch: Vec<_> = sn.stretch.iter().map(|&(f, b)| (func(f), b)).collect();
        let stretch = dst.share_stretch(&stretch);
        let dn = &mut dst.nodes[d.index()];
        dn.point = point;
        dn.stretch = stretch;
        dn.end = sn.end.clone();
        dn.test = sn.test.clone();
        dn.kept = sn.kept.clone();
        dn.children.clear();
        for &c in &sn.children {
            let id = dst.add_child(d, src.node(c).via);
            stack.push((c, id));
        }
    }
}
