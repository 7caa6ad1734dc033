//! Rebuilding a query's expressions through the builders, with arrays
//! renamed (the canonical form) or terms replaced by equal ones
//! (narrowing): the builders simplify each rebuilt node, so what a
//! replacement makes foldable is folded.

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::expr::{read, rebuilt, rewrite_in, ArrayRef, ExprKind, ExprRef, UpdateList, UpdateNode};

/// Rebuilds expressions with some arrays renamed and some terms replaced,
/// remembering what it rebuilt across calls.
pub(super) struct Rewriter<'a> {
    renaming: &'a [(ArrayRef, ArrayRef)],
    replacing: Option<&'a FxHashMap<ExprRef, ExprRef>>,
    done: FxHashMap<ExprRef, ExprRef>,
    lists: FxHashMap<*const UpdateNode, UpdateList>,
}

impl<'a> Rewriter<'a> {
    /// A rewriter giving each array of `renaming`'s pairs the second name.
    pub(super) fn renaming(renaming: &'a [(ArrayRef, ArrayRef)]) -> Self {
        Rewriter {
            renaming,
            replacing: None,
            done: FxHashMap::default(),
            lists: FxHashMap::default(),
        }
    }

    /// A rewriter putting each value of `replacing` where its key occurs.
    /// A replacement is taken as it is, not rewritten itself.
    pub(super) fn replacing(replacing: &'a FxHashMap<ExprRef, ExprRef>) -> Self {
        Rewriter {
            renaming: &[],
            replacing: Some(replacing),
            done: FxHashMap::default(),
            lists: FxHashMap::default(),
        }
    }

    /// `root` rebuilt.
    pub(super) fn rewrite(&mut self, root: &ExprRef) -> ExprRef {
        self.rewrite_within(root, usize::MAX)
            .expect("an unbounded rewrite finishes")
    }

    /// `root` rebuilt, or `None` once more than `max_nodes` of its nodes
    /// (not rebuilt before) have been met: for a rewrite that is only worth
    /// its cost on small expressions.
    pub(super) fn rewrite_within(&mut self, root: &ExprRef, max_nodes: usize) -> Option<ExprRef> {
        let Rewriter {
            renaming,
            replacing,
            done,
            lists,
        } = self;
        let mut met = 0usize;
        rewrite_in(
            root,
            done,
            |e| {
                met += 1;
                if met > max_nodes {
                    return Err(());
                }
                Ok(replacing.and_then(|r| r.get(e)).cloned())
            },
            |e, done| {
                // A node none of whose operands changed is itself, unless
                // it reads an array being renamed: rebuilding it through
                // the interner would only find it again, and a question
                // of thousands of nodes (a CRC's chain) with a fact or two
                // in one corner is mostly such nodes.
                let renamed = !renaming.is_empty() && matches!(e.kind(), ExprKind::Read { .. });
                if !renamed && unchanged(e, done) {
                    return e.clone();
                }
                match e.kind() {
                    ExprKind::Read { updates, index } => {
                        read(&list(renaming, lists, done, updates), &done[index])
                    }
                    _ => rebuilt(e, |c| done[c].clone()),
                }
            },
        )
        .ok()
    }
}

/// Whether each operand of `e` is what it was.
fn unchanged(e: &ExprRef, done: &FxHashMap<ExprRef, ExprRef>) -> bool {
    let mut same = true;
    e.for_each_child(|c| same &= done[c] == *c);
    same
}

/// The write list `updates` rebuilt over the renamed array, from the
/// rebuilt indices and values in `done` (they are children of the read);
/// `lists` remembers each list rebuilt.
fn list(
    renaming: &[(ArrayRef, ArrayRef)],
    lists: &mut FxHashMap<*const UpdateNode, UpdateList>,
    done: &FxHashMap<ExprRef, ExprRef>,
    updates: &UpdateList,
) -> UpdateList {
    let mut writes: Vec<&Arc<UpdateNode>> = Vec::new();
    let mut cur = updates.head.as_ref();
    let root = &updates.root;
    let renamed = renaming
        .iter()
        .find(|(from, _)| Arc::ptr_eq(from, root))
        .map_or_else(|| root.clone(), |(_, to)| to.clone());
    let mut base = UpdateList::new(renamed);
    while let Some(node) = cur {
        if let Some(l) = lists.get(&Arc::as_ptr(node)) {
            base = l.clone();
            break;
        }
        writes.push(node);
        cur = node.next.as_ref();
    }
    for node in writes.into_iter().rev() {
        base = base.write(done[&node.index].clone(), done[&node.value].clone());
        lists.insert(Arc::as_ptr(node), base.clone());
    }
    base
}
