//! One copy of what many nodes of a trie hold alike: the blocks of a
//! stretch, the alternatives of a point. The trie keeps a set of each
//! (see `Trie::share_stretch`); while a trie file is read, the nodes
//! decoded share them already, so that reading a trie does not first hold
//! a copy for every node (on echo's 1.3 million nodes, a quarter of a
//! gigabyte of stretches more than the trie read).

use std::cell::RefCell;
use std::hash::Hash;
use std::sync::Arc;

use rustc_hash::FxHashSet;
use serde::{Deserialize, Deserializer};

use crate::exec::Alt;

/// The copy in `set` of `items`, added if there is none.
pub(super) fn shared<T: Clone + Eq + Hash>(set: &mut FxHashSet<Arc<[T]>>, items: &[T]) -> Arc<[T]> {
    if let Some(s) = set.get(items) {
        return s.clone();
    }
    let s: Arc<[T]> = items.into();
    set.insert(s.clone());
    s
}

/// The copy in `set` of what `items` holds: `items` itself, added, if
/// there is none.
pub(super) fn adopted<T: Eq + Hash>(set: &mut FxHashSet<Arc<[T]>>, items: &Arc<[T]>) -> Arc<[T]> {
    if let Some(s) = set.get(&**items) {
        return s.clone();
    }
    set.insert(items.clone());
    items.clone()
}

/// What the nodes decoded so far on this thread hold, while a
/// [`Decoding`] lasts.
#[derive(Default)]
struct Tables {
    stretches: FxHashSet<Arc<[(u32, u32)]>>,
    alts: FxHashSet<Arc<[Alt]>>,
}

thread_local! {
    static DECODING: RefCell<Option<Tables>> = const { RefCell::new(None) };
}

/// While it lives, the nodes this thread decodes share their stretches and
/// lists of alternatives.
pub(super) struct Decoding(());

impl Decoding {
    pub(super) fn start() -> Decoding {
        DECODING.with(|d| *d.borrow_mut() = Some(Tables::default()));
        Decoding(())
    }
}

impl Drop for Decoding {
    fn drop(&mut self) {
        DECODING.with(|d| *d.borrow_mut() = None);
    }
}

/// Decodes a list, the copy of it decoded before where a [`Decoding`]
/// lasts.
fn decoded<'de, D, T>(
    d: D,
    table: fn(&mut Tables) -> &mut FxHashSet<Arc<[T]>>,
) -> Result<Arc<[T]>, D::Error>
where
    D: Deserializer<'de>,
    T: Clone + Eq + Hash + Deserialize<'de>,
{
    let items = Vec::<T>::deserialize(d)?;
    Ok(DECODING.with(|dec| match &mut *dec.borrow_mut() {
        Some(tables) => shared(table(tables), &items),
        None => items.into(),
    }))
}

/// A node's stretch, decoded (`#[serde(deserialize_with)]`).
pub(super) fn stretch<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<[(u32, u32)]>, D::Error> {
    decoded(d, |t| &mut t.stretches)
}

/// A point's alternatives, decoded (`#[serde(deserialize_with)]`).
pub(super) fn alts<'de, D: Deserializer<'de>>(d: D) -> Result<Arc<[Alt]>, D::Error> {
    decoded(d, |t| &mut t.alts)
}

#[cfg(test)]
mod tests {
    use bincode::Options;

    use super::*;
    use crate::memo::file::codec;
    use crate::memo::trie::{Node, TriePoint};

    /// Nodes decoded while a trie is read share what they hold alike;
    /// decoded at any other time, each has its own.
    #[test]
    fn nodes_decoded_while_a_trie_is_read_share_their_lists() {
        let node = Node {
            point: Some(TriePoint {
                func: 0,
                site: 1,
                line: 2,
                alts: vec![Alt::decided(0, true), Alt::decided(1, false)].into(),
            }),
            stretch: vec![(1, 2), (3, 4)].into(),
            ..Node::default()
        };
        let bytes = codec()
            .serialize(&vec![node.clone(), node])
            .expect("serializes");
        let decode = || -> Vec<Node> { codec().deserialize(&bytes).expect("decodes") };
        let alts = |n: &Node| n.point.as_ref().expect("point").alts.clone();
        let holds_one_copy = |nodes: &[Node]| {
            let stretch = Arc::ptr_eq(&nodes[0].stretch, &nodes[1].stretch);
            let alts = Arc::ptr_eq(&alts(&nodes[0]), &alts(&nodes[1]));
            assert_eq!(stretch, alts);
            stretch
        };
        let apart = decode();
        assert!(!holds_one_copy(&apart));
        let shared = {
            let _sharing = Decoding::start();
            decode()
        };
        assert!(holds_one_copy(&shared));
        assert_eq!(shared, apart);
        assert!(!holds_one_copy(&decode()));
    }
}
