//! The trie of a run (Memoise): a node per choice taken, named by its
//! choice location and alternative; leaves say how the path ended.
//!
//! Nodes live in an arena addressed by [`NodeId`]. A node stands for the
//! prefix of decisions leading to it; its `point` is the choice point the
//! paths through it reached next (with every alternative, feasible or not:
//! the infeasible ones are the paper's unsatisfiable nodes), its children
//! the alternatives taken. A leaf's `end` says how its path ended; a
//! boundary node is a leaf ended by the depth bound, whose point is known
//! but whose alternatives were not taken.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

use super::share::{self, adopted, shared};
use super::stored::StoredTest;
use crate::exec::{Alt, Decision, Point, Trail};
use crate::ir::{BlockId, FuncId, Module};

/// A node of a trie, by index in its arena.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId(pub u32);

impl NodeId {
    pub const ROOT: NodeId = NodeId(0);

    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A choice point as the trie names it: by function name (an index into
/// the trie's table) and choice-site index, so that it survives a new
/// version of the program in which the function is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TriePoint {
    pub func: u32,
    pub site: u32,
    pub line: u32,
    /// The trie keeps one copy of each list (most are two feasible
    /// alternatives of a branch; echo's trie holds a dozen different ones).
    #[serde(deserialize_with = "share::alts")]
    pub alts: Arc<[Alt]>,
}

impl TriePoint {
    pub fn feasible(&self) -> usize {
        self.alts.iter().filter(|a| a.feasible()).count()
    }

    /// Alternatives not known to be feasible or not.
    pub fn undecided(&self) -> usize {
        self.alts.iter().filter(|a| a.undecided()).count()
    }

    /// Takes what a later path at this point learned of the alternatives
    /// this one left undecided; whether anything changed.
    fn settle(&mut self, alts: &[Alt]) -> bool {
        let settles = |mine: &Alt, now: &Alt| {
            mine.undecided() && !now.undecided() && mine.payload == now.payload
        };
        if !self.alts.iter().zip(alts).any(|(m, n)| settles(m, n)) {
            return false;
        }
        for (mine, now) in Arc::make_mut(&mut self.alts).iter_mut().zip(alts) {
            if settles(mine, now) {
                mine.answer = now.answer;
            }
        }
        true
    }
}

/// How the path of a leaf ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum End {
    Completed,
    Error {
        kind: String,
        line: u32,
    },
    /// Stopped early: `max-depth` (a boundary node) or a limit of the run.
    Early {
        reason: String,
    },
    /// Ended without a test (`klee_silent_exit`, an infeasible assumption).
    Silent,
}

impl End {
    pub const MAX_DEPTH: &'static str = "max-depth";
    /// The reason of a path still running when a checkpoint was written: a
    /// run resumed from that checkpoint explores it again.
    pub const PENDING: &'static str = "pending";

    /// The end of a path pending at a checkpoint.
    pub fn pending() -> End {
        End::Early {
            reason: End::PENDING.to_string(),
        }
    }

    pub fn is_boundary(&self) -> bool {
        matches!(self, End::Early { reason } if reason == End::MAX_DEPTH)
    }

    /// Stopped by a limit of the run other than the depth bound: the path
    /// a resumed run goes on with. A path waiting for a signal none sends
    /// (`blocked`) or ended by a signal's default action (`signalled`)
    /// ended as the program does: run again, it ends so again.
    pub fn is_stopped(&self) -> bool {
        const PROGRAM_ENDS: [&str; 2] = ["blocked", "signalled"];
        matches!(self, End::Early { reason }
            if reason != End::MAX_DEPTH && !PROGRAM_ENDS.contains(&reason.as_str()))
    }

    pub fn describe(&self) -> String {
        match self {
            End::Completed => "completed".into(),
            End::Error { kind, line } => format!("error {kind} at line {line}"),
            End::Early { reason } => format!("early ({reason})"),
            End::Silent => "silent".into(),
        }
    }
}

/// One node: a prefix of decisions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub parent: Option<NodeId>,
    /// The alternative of the parent's point that leads here.
    pub via: u32,
    /// The choice point reached next, once a path has reached one.
    pub point: Option<TriePoint>,
    /// Children by increasing `via`. Thin vectors (a pointer, with the
    /// length and capacity kept beside the elements) for these and `kept`,
    /// as a deep run's trie has hundreds of thousands of nodes and most
    /// keep no test and have no child.
    pub children: ThinVec<NodeId>,
    /// Set on a leaf: how its path ended.
    pub end: Option<End>,
    /// The leaf's test.
    pub test: Option<Box<StoredTest>>,
    /// Tests of the subtree compression cut off below this node.
    pub kept: ThinVec<StoredTest>,
    /// The blocks executed between the parent's decision and this node's
    /// point or end, as `(function, block)` (function indices of the
    /// trie's table): what a change must touch to impact the node. The
    /// trie keeps one copy of each.
    #[serde(deserialize_with = "share::stretch")]
    pub stretch: Arc<[(u32, u32)]>,
}

/// What a trie was recorded for: a trie is only followed by a run of the
/// same program, entry and arguments.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    /// The program's name (its bitcode file's stem).
    pub program: String,
    pub entry: String,
    pub args: Vec<String>,
    /// Structural hash of every defined function, by name.
    pub hashes: BTreeMap<String, u64>,
    /// The depth bound of the run (`None`: unbounded).
    pub max_depth: Option<u32>,
}

impl Recorded {
    /// What a run of `module` with these options records.
    pub fn of(
        module: &Module,
        program: &str,
        entry: &str,
        args: &[String],
        max_depth: Option<u32>,
    ) -> Recorded {
        Recorded {
            program: program.to_string(),
            entry: entry.to_string(),
            args: args.to_vec(),
            hashes: function_hashes(module),
            max_depth,
        }
    }

    /// The depth bound as text (`none` when unbounded).
    pub fn bound_text(&self) -> String {
        bound_text(self.max_depth)
    }

    /// Functions defined in one version and not the other, or defined in
    /// both with different bodies.
    pub fn changed_functions(&self, module: &Module) -> Vec<String> {
        let now = function_hashes(module);
        let mut changed: Vec<String> = self
            .hashes
            .iter()
            .filter(|(name, h)| now.get(*name) != Some(h))
            .map(|(name, _)| name.clone())
            .collect();
        changed.extend(
            now.keys()
                .filter(|name| !self.hashes.contains_key(*name))
                .cloned(),
        );
        changed.sort();
        changed
    }
}

/// A depth bound as text (`none` when unbounded).
pub fn bound_text(bound: Option<u32>) -> String {
    bound.map_or("none".to_string(), |d| d.to_string())
}

/// The structural hash of every defined function, by name.
pub fn function_hashes(module: &Module) -> BTreeMap<String, u64> {
    module
        .functions
        .iter()
        .filter(|f| f.body.is_some())
        .map(|f| (f.name.clone(), f.hash))
        .collect()
}

/// A run's trie.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Trie {
    pub recorded: Recorded,
    /// Function names the points refer to.
    pub funcs: Vec<String>,
    pub nodes: Vec<Node>,
    #[serde(skip)]
    func_index: FxHashMap<String, u32>,
    /// Every stretch the nodes hold, once.
    #[serde(skip)]
    stretches: FxHashSet<Arc<[(u32, u32)]>>,
    /// Every list of alternatives the nodes' points hold, once.
    #[serde(skip)]
    alt_lists: FxHashSet<Arc<[Alt]>>,
    /// What changed since the trie was last written whole, while a run
    /// keeps a journal of it (see [`super::journal`]).
    #[serde(skip)]
    changes: Option<Changes>,
    #[serde(skip)]
    epoch: Epoch,
}

/// What a trie notes in the decisions it records (see
/// [`Trie::insert_path`]) is only good for that trie and while no node a
/// path went through has become a leaf: a number unique to the trie, taken
/// afresh (by a copy too) whenever notes taken so far must not be used.
/// 0: none taken yet.
#[derive(Debug, Default)]
struct Epoch(u32);

impl Clone for Epoch {
    fn clone(&self) -> Epoch {
        Epoch(0)
    }
}

/// Epochs handed out so far, process-wide.
static EPOCHS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Epoch {
    fn get(&mut self) -> u32 {
        if self.0 == 0 {
            self.0 = EPOCHS
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                .wrapping_add(1)
                .max(1);
        }
        self.0
    }

    /// What a decision taken at `node` notes.
    fn note(&mut self, node: NodeId) -> u64 {
        (u64::from(self.get()) << 32) | u64::from(node.0)
    }

    /// The node a decision's note names, if this epoch took it.
    fn noted(&mut self, note: u64) -> Option<NodeId> {
        (note >> 32 == u64::from(self.get())).then_some(NodeId(note as u32))
    }
}

/// The nodes (and function names) added or changed since a point in time:
/// what a checkpoint appends to the trie's journal.
#[derive(Clone, Debug, Default)]
struct Changes {
    /// Per arena slot: already in `ids`.
    noted: Vec<bool>,
    ids: Vec<NodeId>,
    /// Function names before this index were there already.
    funcs: usize,
}

impl Changes {
    fn note(&mut self, id: NodeId) {
        if self.noted.len() <= id.index() {
            self.noted.resize(id.index() + 1, false);
        }
        if !std::mem::replace(&mut self.noted[id.index()], true) {
            self.ids.push(id);
        }
    }
}

impl PartialEq for Trie {
    fn eq(&self, other: &Self) -> bool {
        self.recorded == other.recorded && self.funcs == other.funcs && self.nodes == other.nodes
    }
}

impl Trie {
    /// A trie with only its root.
    pub fn new(recorded: Recorded) -> Trie {
        Trie {
            recorded,
            funcs: Vec::new(),
            nodes: vec![Node::default()],
            func_index: FxHashMap::default(),
            stretches: FxHashSet::default(),
            alt_lists: FxHashSet::default(),
            changes: None,
            epoch: Epoch::default(),
        }
    }

    /// Starts noting the nodes that change from now on (the trie was just
    /// written whole), for [`Trie::take_changes`].
    pub fn track_changes(&mut self) {
        self.changes = Some(Changes {
            funcs: self.funcs.len(),
            ..Changes::default()
        });
    }

    /// The changes noted since [`Trie::track_changes`] or the last call:
    /// the index of the first new function name, and the nodes added or
    /// changed, in the order they first changed. `None` when no changes
    /// are tracked.
    pub fn take_changes(&mut self) -> Option<(usize, Vec<NodeId>)> {
        let funcs = self.funcs.len();
        let c = self.changes.as_mut()?;
        let ids = std::mem::take(&mut c.ids);
        for id in &ids {
            c.noted[id.index()] = false;
        }
        Some((std::mem::replace(&mut c.funcs, funcs), ids))
    }

    /// Notes that node `id` changed (for code that changes nodes itself).
    pub(crate) fn touch(&mut self, id: NodeId) {
        if let Some(c) = &mut self.changes {
            c.note(id);
        }
    }

    /// Rebuilds what is not stored (after reading a trie from disk).
    pub(crate) fn reindex(&mut self) {
        self.func_index = self
            .funcs
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i as u32))
            .collect();
        self.stretches.clear();
        self.alt_lists.clear();
        for n in &mut self.nodes {
            n.stretch = adopted(&mut self.stretches, &n.stretch);
            if let Some(p) = &mut n.point {
                p.alts = adopted(&mut self.alt_lists, &p.alts);
            }
        }
    }

    /// The trie's copy of a stretch. Paths through one place of the
    /// program run the same blocks between its decisions: echo's 789,130
    /// nodes held 329 different stretches, which a copy each made 138 MiB,
    /// the largest part of its trie.
    pub(crate) fn share_stretch(&mut self, blocks: &[(u32, u32)]) -> Arc<[(u32, u32)]> {
        shared(&mut self.stretches, blocks)
    }

    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Slots in the arena: what per-node tables are sized by. Nodes cut off
    /// by a regression plan stay in the arena, unreachable, until the trie
    /// is saved.
    pub fn arena_len(&self) -> usize {
        self.nodes.len()
    }

    /// The child of `id` down alternative `via`, if taken.
    pub fn child(&self, id: NodeId, via: u32) -> Option<NodeId> {
        let n = self.node(id);
        n.children
            .binary_search_by_key(&via, |c| self.node(*c).via)
            .ok()
            .map(|i| n.children[i])
    }

    /// The name of a point's function.
    pub fn func_name(&self, p: &TriePoint) -> &str {
        self.funcs.get(p.func as usize).map_or("?", |s| s.as_str())
    }

    pub(crate) fn intern_func(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.func_index.get(name) {
            return i;
        }
        let i = self.funcs.len() as u32;
        self.funcs.push(name.to_string());
        self.func_index.insert(name.to_string(), i);
        i
    }

    fn trie_point(&mut self, p: &Point, module: &Module) -> TriePoint {
        TriePoint {
            func: self.intern_func(&module.func(p.func).name),
            site: p.site.0,
            line: p.line,
            alts: shared(&mut self.alt_lists, &p.alts),
        }
    }

    /// Adds a child of `parent` down `via` (keeping children ordered).
    pub(crate) fn add_child(&mut self, parent: NodeId, via: u32) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node {
            parent: Some(parent),
            via,
            ..Node::default()
        });
        let pos = {
            let nodes = &self.nodes;
            nodes[parent.index()]
                .children
                .partition_point(|c| nodes[c.index()].via < via)
        };
        self.nodes[parent.index()].children.insert(pos, id);
        self.touch(parent);
        self.touch(id);
        id
    }

    fn stretch_of(
        &mut self,
        blocks: &[u32],
        module: &Module,
        block_at: &dyn Fn(u32) -> (FuncId, BlockId),
    ) -> Arc<[(u32, u32)]> {
        let blocks: Vec<(u32, u32)> = blocks
            .iter()
            .map(|g| {
                let (f, b) = block_at(*g);
                (self.intern_func(&module.func(f).name), b.0)
            })
            .collect();
        self.share_stretch(&blocks)
    }

    /// Records an ended path: its decisions from the root, the point it
    /// stopped at (the depth bound, an assumption that cannot hold), how it
    /// ended, its test, and the blocks it executed after its last decision
    /// (`block_at` names module-wide block numbers). A leaf the path passes
    /// through (a boundary or stopped path of an earlier run) becomes an
    /// inner node; the leaf it ends at is replaced.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_path(
        &mut self,
        module: &Module,
        block_at: &dyn Fn(u32) -> (FuncId, BlockId),
        path: &Trail<Decision>,
        stopped_at: Option<&Point>,
        last_stretch: &[u32],
        end: End,
        test: Option<StoredTest>,
    ) -> NodeId {
        // The path's deepest decision this trie has seen: every path
        // sharing it has the same decisions up to it, so the walk from the
        // root can start there. Many workers record into one trie, one at
        // a time, and the walk (a cache miss or more a level) was most of
        // what that took.
        // The walk back gathers the decisions from there, and only those.
        let mut at = NodeId::ROOT;
        let mut from_there = Vec::new();
        for d in path.iter_rev() {
            from_there.push(d);
            if let Some(node) = self.epoch.noted(d.stretch.noted()) {
                at = node;
                break;
            }
        }
        for d in from_there.into_iter().rev() {
            d.stretch.note(self.epoch.note(at));
            let n = &self.nodes[at.index()];
            let was_leaf = n.end.is_some() || n.test.is_some();
            let mut changed = was_leaf;
            if self.nodes[at.index()].point.is_none() {
                let p = self.trie_point(&d.point, module);
                self.nodes[at.index()].point = Some(p);
                changed = true;
            } else {
                // A run that asked again about an alternative left undecided.
                changed |= self.settle_point(at, &d.point.alts);
            }
            // A leaf passed through (a path stopped or pending before it got
            // this far) holds the blocks its path ran until it stopped: only
            // part of the stretch before this decision.
            if self.nodes[at.index()].stretch.is_empty() || was_leaf {
                let s = self.stretch_of(&d.stretch, module, block_at);
                self.nodes[at.index()].stretch = s;
                changed = true;
            }
            if was_leaf {
                let n = &mut self.nodes[at.index()];
                n.end = None;
                n.test = None;
            }
            if changed {
                self.touch(at);
            }
            at = match self.child(at, d.taken) {
                Some(c) => c,
                None => self.add_child(at, d.taken),
            };
        }
        if let Some(p) = stopped_at {
            let p = self.trie_point(p, module);
            self.nodes[at.index()].point = Some(p);
        }
        let s = self.stretch_of(last_stretch, module, block_at);
        let n = &mut self.nodes[at.index()];
        n.stretch = s;
        n.end = Some(end);
        n.test = test.map(Box::new);
        if !n.children.is_empty() {
            // Paths through this node are to turn it back into an inner
            // node, which the walks that skip it would not do.
            self.epoch = Epoch::default();
        }
        self.touch(at);
        at
    }

    /// Settles node `id`'s point with what `alts` knows of the
    /// alternatives it left undecided (see [`TriePoint::settle`]), keeping
    /// the trie's one copy of the list it comes to; whether anything
    /// changed.
    pub(crate) fn settle_point(&mut self, id: NodeId, alts: &[Alt]) -> bool {
        let Some(p) = &mut self.nodes[id.index()].point else {
            return false;
        };
        if !p.settle(alts) {
            return false;
        }
        p.alts = shared(&mut self.alt_lists, &p.alts);
        true
    }

    /// Settles the points of the recorded nodes a path not recorded itself
    /// (a pruned replay) went through, and the one it stopped at, with what
    /// its points know of the alternatives the trie held undecided.
    pub fn settle_along(&mut self, path: &Trail<Decision>, stopped_at: &Point) {
        let mut at = Some(NodeId::ROOT);
        let points = path.iter().map(|d| (&d.point, Some(d.taken)));
        for (point, taken) in points.chain([(stopped_at, None)]) {
            let Some(id) = at else {
                return;
            };
            let same_point = matches!(&self.nodes[id.index()].point,
                Some(p) if p.site == point.site.0 && p.alts.len() == point.alts.len());
            if same_point && self.settle_point(id, &point.alts) {
                self.touch(id);
            }
            at = taken.and_then(|t| self.child(id, t));
        }
    }

    /// Alternatives of the recorded choice points that no run could decide.
    pub fn undecided(&self) -> u64 {
        self.preorder()
            .into_iter()
            .filter_map(|id| self.node(id).point.as_ref())
            .map(|p| p.undecided() as u64)
            .sum()
    }

    /// The node a sequence of `(function name, site, alternative)` leads to.
    pub fn find(&self, path: &[(String, u32, u32)]) -> Option<NodeId> {
        let mut at = NodeId::ROOT;
        for (f, site, alt) in path {
            let p = self.node(at).point.as_ref()?;
            if self.func_name(p) != f || p.site != *site {
                return None;
            }
            at = self.child(at, *alt)?;
        }
        Some(at)
    }

    /// The decisions leading to `id`, as `(function name, site, alternative)`.
    pub fn path_to(&self, id: NodeId) -> Vec<(String, u32, u32)> {
        let mut out = Vec::new();
        let mut at = id;
        while let Some(parent) = self.node(at).parent {
            let p = self
                .node(parent)
                .point
                .as_ref()
                .expect("a node with children has a point");
            out.push((self.func_name(p).to_string(), p.site, self.node(at).via));
            at = parent;
        }
        out.reverse();
        out
    }

    /// The depth of a node: decisions on its path taken where more than one
    /// alternative was feasible (what `--max-depth` bounds).
    pub fn depth_of(&self, id: NodeId) -> u32 {
        let mut d = 0;
        let mut at = id;
        while let Some(parent) = self.node(at).parent {
            if self
                .node(parent)
                .point
                .as_ref()
                .is_some_and(|p| p.feasible() >= 2)
            {
                d += 1;
            }
            at = parent;
        }
        d
    }

    /// The depth of every node (as [`Trie::depth_of`] counts), by arena slot.
    pub fn depths(&self) -> Vec<u32> {
        let mut depth = vec![0u32; self.arena_len()];
        for id in self.preorder() {
            if let Some(parent) = self.node(id).parent {
                let branch = self
                    .node(parent)
                    .point
                    .as_ref()
                    .is_some_and(|p| p.feasible() >= 2);
                depth[id.index()] = depth[parent.index()] + u32::from(branch);
            }
        }
        depth
    }

    /// The decisions leading to `id`, as `function:site/alternative` words.
    pub fn path_text(&self, id: NodeId) -> String {
        self.path_to(id)
            .iter()
            .map(|(f, s, a)| format!("{f}:{s}/{a}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every node in depth-first order (children by alternative).
    pub fn preorder(&self) -> Vec<NodeId> {
        self.subtree(NodeId::ROOT)
    }

    /// `id` and every node below it, in depth-first order.
    pub fn subtree(&self, id: NodeId) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            out.push(n);
            stack.extend(self.node(n).children.iter().rev().copied());
        }
        out
    }

    /// The same trie with its nodes numbered in depth-first order and its
    /// functions in the order that walk first names them, so that two runs
    /// that found the same paths in different orders (another searcher,
    /// another number of workers) give equal tries (and equal files).
    pub fn canonical(&self) -> Trie {
        let order = self.preorder();
        let mut new_id = vec![NodeId(u32::MAX); self.nodes.len()];
        for (i, id) in order.iter().enumerate() {
            new_id[id.index()] = NodeId(i as u32);
        }
        let mut new_func = vec![u32::MAX; self.funcs.len()];
        let mut funcs = Vec::with_capacity(self.funcs.len());
        let mut name = |f: u32| -> u32 {
            let Some(slot) = new_func.get_mut(f as usize) else {
                return f;
            };
            if *slot == u32::MAX {
                *slot = funcs.len() as u32;
                funcs.push(self.funcs[f as usize].clone());
            }
            *slot
        };
        let nodes = order
            .iter()
            .map(|id| {
                let n = self.node(*id);
                let point = n.point.as_ref().map(|p| TriePoint {
                    func: name(p.func),
                    ..p.clone()
                });
                let stretch = n.stretch.iter().map(|&(f, b)| (name(f), b)).collect();
                Node {
                    parent: n.parent.map(|p| new_id[p.index()]),
                    via: n.via,
                    point,
                    children: n.children.iter().map(|c| new_id[c.index()]).collect(),
                    end: n.end.clone(),
                    test: n.test.clone(),
                    kept: n.kept.clone(),
                    stretch,
                }
            })
            .collect();
        let mut t = Trie {
            recorded: self.recorded.clone(),
            funcs,
            nodes,
            func_index: FxHashMap::default(),
            stretches: FxHashSet::default(),
            alt_lists: FxHashSet::default(),
            changes: None,
            epoch: Epoch::default(),
        };
        t.reindex();
        t
    }

    /// Every test the trie keeps below `id` (leaves and cut subtrees).
    pub fn tests_below(&self, id: NodeId) -> Vec<&StoredTest> {
        self.subtree(id)
            .into_iter()
            .flat_map(|n| {
                let node = self.node(n);
                node.test.as_deref().into_iter().chain(&node.kept)
            })
            .collect()
    }

    /// The leaves, in depth-first order.
    pub fn leaves(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.preorder()
            .into_iter()
            .filter(|id| self.node(*id).end.is_some())
    }
}
