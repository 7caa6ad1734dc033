//! The trie as a guide for the executor: marked nodes are followed with the
//! solver off, candidates explored anew, unmarked subtrees skipped.

use std::sync::Arc;

use super::mark::Marks;
use super::trie::{NodeId, Trie};
use crate::exec::{Guidance, Guide, GuideNode, Next};
use crate::ir::{FuncId, Module, SiteId};

/// A marked trie that guides a run of the program it was recorded for.
pub struct TrieGuide {
    trie: Arc<Trie>,
    marks: Marks,
    /// The program's function for each function the trie names.
    funcs: Vec<Option<FuncId>>,
    names: Vec<String>,
    /// The inputs of a test below each node (see [`Guide::witness`]).
    witness: Vec<Option<Arc<[Vec<u8>]>>>,
}

impl TrieGuide {
    pub fn new(trie: Arc<Trie>, marks: Marks, module: &Module) -> TrieGuide {
        let funcs = trie
            .funcs
            .iter()
            .map(|name| module.func_by_name(name))
            .collect();
        let names = module.functions.iter().map(|f| f.name.clone()).collect();
        let mut witness: Vec<Option<Arc<[Vec<u8>]>>> = vec![None; trie.arena_len()];
        for id in trie.preorder().into_iter().rev() {
            let n = trie.node(id);
            let own = n
                .test
                .as_deref()
                .into_iter()
                .chain(&n.kept)
                .next()
                .map(|t| {
                    t.inputs
                        .iter()
                        .map(|(_, b)| b.to_vec())
                        .collect::<Arc<[Vec<u8>]>>()
                });
            witness[id.index()] =
                own.or_else(|| n.children.iter().find_map(|c| witness[c.index()].clone()));
        }
        TrieGuide {
            trie,
            marks,
            funcs,
            names,
            witness,
        }
    }

    fn next_for(&self, child: NodeId) -> Next {
        if self.marks.is_candidate(child) && self.trie.node(child).point.is_none() {
            Next::Free
        } else if self.marks.is_marked(child) {
            Next::Guided(GuideNode(child.0))
        } else {
            Next::Skip
        }
    }
}

impl Guide for TrieGuide {
    fn start(&self) -> Next {
        self.next_for(NodeId::ROOT)
    }

    fn at_point(&self, node: GuideNode, func: FuncId, site: SiteId) -> Guidance {
        let id = NodeId(node.0);
        let here = self
            .names
            .get(func.index())
            .map_or("?", |s| s.as_str())
            .to_string();
        let Some(n) = self.trie.nodes.get(id.index()) else {
            return Guidance::Mismatch(format!("the trie has no node {}", node.0));
        };
        let Some(p) = &n.point else {
            let ended = n.end.as_ref().map_or("nowhere".into(), |e| e.describe());
            return Guidance::Mismatch(format!(
                "the recorded path ended here ({ended}), but the program reaches choice site {} of `{here}`",
                site.0
            ));
        };
        if self.funcs.get(p.func as usize).copied().flatten() != Some(func) || p.site != site.0 {
            return Guidance::Mismatch(format!(
                "the trie expects choice site {} of `{}` (line {}), but the program reaches site {} of `{here}`",
                p.site,
                self.trie.func_name(p),
                p.line,
                site.0
            ));
        }
        let candidate = self.marks.is_candidate(id);
        let retry = self.marks.is_retry(id);
        let next = p
            .alts
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if retry && a.undecided() {
                    Next::Ask
                } else if !a.feasible() {
                    Next::Skip
                } else if candidate {
                    Next::Free
                } else {
                    self.trie
                        .child(id, i as u32)
                        .map_or(Next::Skip, |c| self.next_for(c))
                }
            })
            .collect();
        Guidance::Follow {
            alts: p.alts.clone(),
            next,
        }
    }

    fn witness(&self, node: GuideNode) -> Option<Arc<[Vec<u8>]>> {
        self.witness.get(node.0 as usize).cloned().flatten()
    }
}
