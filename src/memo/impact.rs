//! Regression analysis (Memoise §4.1.2): which trie nodes a change to the
//! program can affect.
//!
//! 1. Changed functions are found by their structural hashes; inside each,
//!    changed blocks by a diff of the two CFGs (blocks paired by a longest
//!    common subsequence of block hashes; an unpaired old block is changed).
//! 2. Each trie node records the stretch of execution that led to it: the
//!    blocks run between its parent's decision and its own point or end.
//!    Going backward from a change, the nearest choice point before it on
//!    any recorded path is the decision that starts the stretch holding the
//!    change: the node a stretch holding a changed block leads to is
//!    impacted, and its subtree is explored again from the node's start.
//!    (A static walk over the CFG would stop at choice sites that a path
//!    passed while their condition was still concrete, and miss changes
//!    behind them; the recorded stretches cannot.)
//! 3. When the global or function layout changed, recorded addresses no
//!    longer name the same objects: every memory or call fork is impacted.
//!
//! Nodes outside impacted subtrees ran only unchanged blocks; their blocks
//! are renumbered into the new version's CFG.

use rustc_hash::FxHashMap;

use super::trie::{NodeId, Trie, TriePoint};
use crate::ir::{base_name, Function, Module};

/// The differences between two versions of a program, on the old one.
pub struct Diff {
    /// Functions changed, added or removed, by name.
    pub changed_functions: Vec<String>,
    /// Per changed old function, by name: for each block, its number in the
    /// new version, or `None` when it changed.
    blocks: FxHashMap<String, Vec<Option<u32>>>,
    /// Whether globals or functions were added, removed or moved, so that
    /// addresses recorded in the trie may name other things now.
    pub layout_changed: bool,
    /// Old functions whose new version has another name: the number
    /// llvm-link gives a static function that several files define
    /// (`__get_tp.115` now `__get_tp.117`).
    renamed: FxHashMap<String, String>,
}

/// Pairs each old function that has a body with its new version, among the
/// new functions of the same [`base_name`]: first the same name and hash,
/// then the same hash (a renumbered static function), then the same name,
/// then any namesake left; a looser round never takes the partner of a
/// surer one.
fn pair_functions(old: &Module, new: &Module) -> Vec<Option<usize>> {
    let mut by_base: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (j, g) in new.functions.iter().enumerate() {
        if g.body.is_some() {
            by_base.entry(base_name(&g.name)).or_default().push(j);
        }
    }
    let rounds: [fn(&Function, &Function) -> bool; 4] = [
        |f, g| f.name == g.name && f.hash == g.hash,
        |f, g| f.hash == g.hash,
        |f, g| f.name == g.name,
        |_, _| true,
    ];
    let mut taken = vec![false; new.functions.len()];
    let mut out = vec![None; old.functions.len()];
    for round in rounds {
        for (i, f) in old.functions.iter().enumerate() {
            if out[i].is_some() || f.body.is_none() {
                continue;
            }
            let Some(namesakes) = by_base.get(base_name(&f.name)) else {
                continue;
            };
            if let Some(&j) = namesakes
                .iter()
                .find(|&&j| !taken[j] && round(f, &new.functions[j]))
            {
                taken[j] = true;
                out[i] = Some(j);
            }
        }
    }
    out
}

/// Pairs equal hashes of two sequences (a longest common subsequence);
/// returns, for each element of `a`, the index of its partner in `b`.
fn paired(a: &[u64], b: &[u64]) -> Vec<Option<u32>> {
    let (n, m) = (a.len(), b.len());
    let mut len = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            len[i][j] = if a[i] == b[j] {
                len[i + 1][j + 1] + 1
            } else {
                len[i + 1][j].max(len[i][j + 1])
            };
        }
    }
    let mut out = vec![None; n];
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if a[i] == b[j] {
            out[i] = Some(j as u32);
            i += 1;
            j += 1;
        } else if len[i + 1][j] >= len[i][j + 1] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

impl Diff {
    /// The changes from `old` to `new`.
    pub fn new(old: &Module, new: &Module) -> Diff {
        let mut changed_functions = Vec::new();
        let mut blocks = FxHashMap::default();
        let mut renamed = FxHashMap::default();
        let pairs = pair_functions(old, new);
        let mut paired_new = vec![false; new.functions.len()];
        for (f, partner) in old.functions.iter().zip(pairs) {
            let Some(body) = &f.body else { continue };
            match partner {
                Some(j) => {
                    paired_new[j] = true;
                    let g = &new.functions[j];
                    if g.name != f.name {
                        renamed.insert(f.name.clone(), g.name.clone());
                    }
                    if g.hash != f.hash {
                        changed_functions.push(f.name.clone());
                        blocks.insert(f.name.clone(), paired(&f.block_hashes, &g.block_hashes));
                    }
                }
                None => {
                    changed_functions.push(f.name.clone());
                    blocks.insert(f.name.clone(), vec![None; body.blocks.len()]);
                }
            }
        }
        for (g, paired) in new.functions.iter().zip(paired_new) {
            if g.body.is_some() && !paired {
                changed_functions.push(g.name.clone());
            }
        }
        changed_functions.sort();
        changed_functions.dedup();
        // Addresses follow the order and sizes of functions and globals, not
        // the numbers in their names.
        let names = |m: &Module| {
            m.functions
                .iter()
                .map(|f| base_name(&f.name).to_string())
                .collect::<Vec<_>>()
        };
        let globals = |m: &Module| {
            m.globals
                .iter()
                .map(|g| (base_name(&g.name).to_string(), g.size, g.align))
                .collect::<Vec<_>>()
        };
        let layout_changed = names(old) != names(new) || globals(old) != globals(new);
        Diff {
            changed_functions,
            blocks,
            layout_changed,
            renamed,
        }
    }

    /// The block's number in the new version (`None`: it changed).
    fn new_block(&self, func: &str, block: u32) -> Option<u32> {
        match self.blocks.get(func) {
            None => Some(block),
            Some(map) => map.get(block as usize).copied().flatten(),
        }
    }

    /// Whether a node's point forks on recorded addresses.
    fn address_fork(p: &TriePoint) -> bool {
        p.alts
            .iter()
            .enumerate()
            .any(|(i, a)| a.payload != i as u64 && a.payload != 0)
    }

    /// Whether the stretch leading to `id` ran a changed block, or its point
    /// forks on addresses the new layout may give to other objects.
    fn impacts(&self, trie: &Trie, id: NodeId) -> bool {
        let n = trie.node(id);
        let changed_block = n.stretch.iter().any(|(f, b)| {
            let name = trie.funcs.get(*f as usize).map_or("", |s| s.as_str());
            self.new_block(name, *b).is_none()
        });
        changed_block || (self.layout_changed && n.point.as_ref().is_some_and(Self::address_fork))
    }

    /// The impacted nodes of a trie recorded on the old version, topmost
    /// only: nothing below an impacted node is listed.
    pub fn impacted(&self, trie: &Trie) -> Vec<NodeId> {
        let mut out = Vec::new();
        let mut stack = vec![NodeId::ROOT];
        while let Some(id) = stack.pop() {
            if self.impacts(trie, id) {
                out.push(id);
                continue;
            }
            stack.extend(trie.node(id).children.iter().rev().copied());
        }
        out
    }

    /// Renumbers the blocks of the trie's stretches into the new version's
    /// CFG (blocks that changed, which only impacted nodes ran, are dropped),
    /// and renames the functions llvm-link numbered otherwise now.
    pub fn renumber(&self, trie: &mut Trie) {
        let funcs = trie.funcs.clone();
        for n in &mut trie.nodes {
            n.stretch = n
                .stretch
                .iter()
                .filter_map(|&(f, b)| {
                    let name = funcs.get(f as usize).map_or("", |s| s.as_str());
                    self.new_block(name, b).map(|nb| (f, nb))
                })
                .collect();
        }
        for name in &mut trie.funcs {
            if let Some(now) = self.renamed.get(name) {
                name.clone_from(now);
            }
        }
        // Names and stretches both changed.
        trie.reindex();
    }
}
