//! Unit tests of the trie, its file, and marking, compression and merging
//! (the paper's procedures) on small hand-built tries.

use super::file::{
    codec, decode, encode, load, save, save_arena, write, TrieFileError, FORMAT_VERSION,
    OLDEST_FORMAT_VERSION,
};
use super::journal::{journal_path, Journal};
use super::mark::{boundary_nodes, compress, merge, Marks};
use super::plan::kept_tests;
use super::stored::{StoredOutcome, StoredTest};
use super::trie::{End, NodeId, Recorded, Trie, TriePoint};
use crate::exec::{Alt, Answer};
use bincode::Options;
use std::path::Path;

fn two_way() -> Vec<Alt> {
    vec![Alt::decided(0, true), Alt::decided(0, true)]
}

fn test_of(tag: u8, outcome: StoredOutcome) -> StoredTest {
    StoredTest {
        inputs: [("x".into(), vec![tag, 0, 0, 0])].into_iter().collect(),
        outcome,
        stdout: None,
    }
}

/// The tag [`test_of`] gave `t`.
fn tag(t: &StoredTest) -> u8 {
    t.inputs.iter().next().map_or(0, |(_, bytes)| bytes[0])
}

/// Adds a path of alternatives below the root (every point `f:level`, two
/// feasible alternatives) ending in `end`, with a test tagged `tag`.
fn add(t: &mut Trie, alts: &[u32], end: End, tag: u8) -> NodeId {
    let f = t.intern_func("f");
    let mut at = NodeId::ROOT;
    for (level, &a) in alts.iter().enumerate() {
        t.touch(at);
        let n = &mut t.nodes[at.index()];
        n.end = None;
        n.test = None;
        if n.point.is_none() {
            n.point = Some(TriePoint {
                func: f,
                site: level as u32,
                line: 10 + level as u32,
                alts: two_way().into(),
            });
        }
        at = match t.child(at, a) {
            Some(c) => c,
            None => t.add_child(at, a),
        };
    }
    let outcome = match &end {
        End::Early { reason } => StoredOutcome::Early {
            reason: reason.clone(),
        },
        _ => StoredOutcome::Exit { code: 0 },
    };
    t.touch(at);
    let n = &mut t.nodes[at.index()];
    if end.is_boundary() {
        n.point = Some(TriePoint {
            func: f,
            site: alts.len() as u32,
            line: 10 + alts.len() as u32,
            alts: two_way().into(),
        });
    }
    n.end = Some(end);
    n.test = Some(Box::new(test_of(tag, outcome)));
    at
}

fn boundary() -> End {
    End::Early {
        reason: End::MAX_DEPTH.into(),
    }
}

/// The shape of Memoise's Figure 3 at depth 3: paths 00, 01, 10 end,
/// path 11 reaches the bound.
fn figure3() -> Trie {
    let mut t = Trie::new(Recorded {
        program: "compute".into(),
        entry: "main".into(),
        max_depth: Some(2),
        ..Recorded::default()
    });
    add(&mut t, &[0, 0], End::Completed, 1);
    add(&mut t, &[0, 1], End::Completed, 2);
    add(&mut t, &[1, 0], End::Completed, 3);
    add(&mut t, &[1, 1], boundary(), 4);
    t
}

#[test]
fn a_trie_file_round_trips_and_is_canonical() {
    let t = figure3();
    let bytes = encode(&t);
    let back = decode(&bytes, Path::new("t.trie")).expect("decodes");
    assert_eq!(back, t.canonical());
    // The same paths inserted in another order give the same file.
    let mut u = Trie::new(t.recorded.clone());
    add(&mut u, &[1, 1], boundary(), 4);
    add(&mut u, &[1, 0], End::Completed, 3);
    add(&mut u, &[0, 1], End::Completed, 2);
    add(&mut u, &[0, 0], End::Completed, 1);
    assert_eq!(encode(&u), bytes);
}

/// Equal stretches are one copy in a trie read back, as in the trie that
/// recorded them.
#[test]
fn a_trie_read_back_holds_each_stretch_and_list_of_alternatives_once() {
    let mut t = figure3();
    let f = t.intern_func("f");
    for (i, n) in t.nodes.iter_mut().enumerate() {
        n.stretch = vec![(f, 1), (f, 2 + (i % 2) as u32)].into();
    }
    let back = decode(&encode(&t), Path::new("t.trie")).expect("decodes");
    let mut copies: Vec<&std::sync::Arc<[(u32, u32)]>> = Vec::new();
    for n in &back.nodes {
        assert_eq!(n.stretch.len(), 2);
        if !copies.iter().any(|c| std::sync::Arc::ptr_eq(c, &n.stretch)) {
            copies.push(&n.stretch);
        }
    }
    assert_eq!(copies.len(), 2, "{} nodes", back.nodes.len());
    // Every point of figure 3 has two feasible alternatives, each made
    // apart by `add`.
    let lists: Vec<&std::sync::Arc<[Alt]>> = back
        .nodes
        .iter()
        .filter_map(|n| Some(&n.point.as_ref()?.alts))
        .collect();
    assert!(lists.len() > 2);
    assert!(lists.iter().all(|l| std::sync::Arc::ptr_eq(l, lists[0])));
}

/// The file is written from the trie in its canonical numbering without a
/// copy of it: its bytes must be those of the copy, framed, also where the
/// arena's order and the function table's differ from the canonical ones.
#[test]
fn a_trie_file_holds_the_canonical_copy_byte_for_byte() {
    let mut t = Trie::new(figure3().recorded);
    // Functions interned in an order the walk does not name them in, one
    // named by no node, and one index past the table.
    let unused = t.intern_func("unused");
    let late = t.intern_func("late");
    add(&mut t, &[1, 1], boundary(), 4);
    add(&mut t, &[0, 0], End::Completed, 1);
    let leaf = add(&mut t, &[1, 0], End::Completed, 3);
    let f = t.intern_func("f");
    t.touch(leaf);
    let n = &mut t.nodes[leaf.index()];
    n.stretch = vec![(late, 3), (f, 1), (unused + 100, 7)].into();
    n.kept = thin_vec::thin_vec![test_of(9, StoredOutcome::Exit { code: 2 })];
    let root = &mut t.nodes[NodeId::ROOT.index()];
    root.stretch = vec![(late, 0)].into();
    let copy = t.canonical();
    let body = bincode::Options::serialize(super::file::codec(), &copy).expect("serializes");
    assert_eq!(encode(&t), super::file::frame(&body));
    assert_eq!(
        decode(&encode(&t), Path::new("t.trie")).expect("decodes"),
        copy
    );
}

#[test]
fn damaged_or_foreign_trie_files_are_named_errors() {
    let bytes = encode(&figure3());
    let p = Path::new("x.trie");
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert!(matches!(
        decode(&flipped, p),
        Err(TrieFileError::Checksum { .. })
    ));
    assert!(matches!(
        decode(b"hello", p),
        Err(TrieFileError::NotATrie { .. })
    ));
    let mut version = bytes.clone();
    version[16..20].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    match decode(&version, p) {
        Err(e @ TrieFileError::Version { .. }) => {
            assert!(e.to_string().contains("x.trie"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    assert!(decode(&bytes[..bytes.len() / 2], p).is_err());
}

#[test]
fn a_format_3_alternative_reads_as_it_was_written() {
    // Format 3 wrote an alternative as a payload and a bool.
    #[derive(serde::Serialize)]
    struct Format3Alt {
        payload: u64,
        feasible: bool,
    }
    for (payload, feasible) in [(0, false), (7, true), (u64::MAX, true)] {
        let old = codec()
            .serialize(&Format3Alt { payload, feasible })
            .expect("serializes");
        let alt: Alt = codec().deserialize(&old).expect("reads");
        assert_eq!(alt, Alt::decided(payload, feasible));
        assert_eq!(codec().serialize(&alt).expect("serializes"), old);
    }
    let undecided = Alt {
        payload: 3,
        answer: Answer::Undecided,
    };
    let bytes = codec().serialize(&undecided).expect("serializes");
    assert_eq!(
        codec().deserialize::<Alt>(&bytes).expect("reads"),
        undecided
    );
    // A whole file: its body unchanged, its header says format 3.
    let mut bytes = encode(&figure3());
    bytes[16..20].copy_from_slice(&OLDEST_FORMAT_VERSION.to_le_bytes());
    let p = Path::new("old.trie");
    assert_eq!(
        decode(&bytes, p).expect("reads").canonical(),
        figure3().canonical()
    );
    bytes[16..20].copy_from_slice(&(OLDEST_FORMAT_VERSION - 1).to_le_bytes());
    assert!(matches!(
        decode(&bytes, p),
        Err(TrieFileError::Version { found: 2, .. })
    ));
}

#[test]
fn a_well_summed_but_inconsistent_body_is_refused() {
    let mut t = figure3();
    // A child pointing back at the root would make walks loop.
    t.nodes[1].children.push(NodeId::ROOT);
    let body = bincode::serialize(&t).expect("serializes");
    let mut bytes = encode(&figure3())[..52].to_vec();
    bytes[20..52].copy_from_slice(blake3::hash(&body).as_bytes());
    bytes.extend_from_slice(&body);
    assert!(matches!(
        decode(&bytes, Path::new("y.trie")),
        Err(TrieFileError::Body { .. })
    ));
}

#[test]
fn marking_marks_candidates_and_their_ancestors_only() {
    let t = figure3();
    let b = boundary_nodes(&t);
    assert_eq!(b.len(), 1);
    let m = Marks::new(&t, &b);
    let marked: Vec<Vec<(String, u32, u32)>> = t
        .preorder()
        .into_iter()
        .filter(|id| m.is_marked(*id))
        .map(|id| t.path_to(id))
        .collect();
    let alts: Vec<Vec<u32>> = marked
        .iter()
        .map(|p| p.iter().map(|(_, _, a)| *a).collect())
        .collect();
    assert_eq!(alts, vec![vec![], vec![1], vec![1, 1]]);
    assert!(m.is_candidate(b[0]));
    assert_eq!(m.candidates(), 1);
}

#[test]
fn compression_cuts_unmarked_subtrees_but_keeps_hanging_nodes_and_tests() {
    let t = figure3();
    let m = Marks::new(&t, &boundary_nodes(&t));
    let (c, cm) = compress(&t, &m);
    // root, 0 (hanging, its two leaves cut), 1, 10 (hanging leaf), 11.
    assert_eq!(c.arena_len(), 5);
    let zero = c.child(NodeId::ROOT, 0).expect("hanging node kept");
    assert!(c.node(zero).children.is_empty());
    assert!(!cm.is_marked(zero));
    let kept: Vec<u8> = c.node(zero).kept.iter().map(tag).collect();
    assert_eq!(kept, vec![1, 2]);
    // The tests a run reuses are the same before and after compression.
    let tags = |v: Vec<StoredTest>| {
        let mut x: Vec<u8> = v.iter().map(tag).collect();
        x.sort();
        x
    };
    assert_eq!(tags(kept_tests(&c, &cm)), vec![1, 2, 3]);
    assert_eq!(tags(kept_tests(&t, &m)), vec![1, 2, 3]);
}

#[test]
fn merging_a_run_on_the_compressed_trie_restores_the_complete_trie() {
    let old = figure3();
    let m = Marks::new(&old, &boundary_nodes(&old));
    let (compressed, cm) = compress(&old, &m);
    // The deeper run explores below the boundary node 11, on the compressed
    // trie and (for reference) on the full one.
    let mut on_compressed = compressed.clone();
    let mut on_full = old.clone();
    for t in [&mut on_compressed, &mut on_full] {
        add(t, &[1, 1, 0], End::Completed, 5);
        add(t, &[1, 1, 1], boundary(), 6);
    }
    let merged = merge(&old, &on_compressed, &cm);
    assert_eq!(merged.canonical(), on_full.canonical());
    // The hanging node's kept tests are back in their leaves.
    assert_eq!(
        merged.tests_below(NodeId::ROOT).len(),
        on_full.tests_below(NodeId::ROOT).len()
    );
}

#[test]
fn a_path_through_a_boundary_node_makes_it_an_inner_node() {
    let mut t = figure3();
    let b = boundary_nodes(&t)[0];
    add(&mut t, &[1, 1, 0], End::Completed, 7);
    assert!(t.node(b).end.is_none());
    assert!(t.node(b).test.is_none());
    assert!(boundary_nodes(&t).is_empty());
    let found = t.find(&[("f".into(), 0, 1), ("f".into(), 1, 1), ("f".into(), 2, 0)]);
    assert_eq!(
        found.map(|n| t.node(n).end.clone()),
        Some(Some(End::Completed))
    );
}

/// `t` written whole to `path` as a checkpoint does, with a journal begun.
fn checkpoint_whole(t: &mut Trie, path: &Path) -> Journal {
    let (_, sum) = save_arena(t, path).expect("written");
    t.track_changes();
    Journal::start(path, &sum).expect("journal")
}

/// A trie file is read as it is decoded, and checked after: damage is the
/// same named error as from its bytes in memory, also where it makes a
/// length claim more than the file holds.
#[test]
fn a_damaged_trie_file_is_a_named_error_when_loaded_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.trie");
    let bytes = encode(&figure3());
    // The magic, the version and the checksum.
    let header = 16 + 4 + 32;
    let load_of = |b: &[u8]| {
        std::fs::write(&path, b).expect("written");
        load(&path)
    };
    assert_eq!(load_of(&bytes).expect("loads"), figure3().canonical());
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert!(matches!(
        load_of(&flipped),
        Err(TrieFileError::Checksum { .. })
    ));
    // The program's name now claims a length of about 2^58 bytes.
    let mut huge = bytes.clone();
    huge[header] = 253;
    assert!(matches!(
        load_of(&huge),
        Err(TrieFileError::Checksum { .. })
    ));
    assert!(matches!(
        load_of(&bytes[..bytes.len() / 2]),
        Err(TrieFileError::Checksum { .. })
    ));
    assert!(matches!(
        load_of(b"hello"),
        Err(TrieFileError::NotATrie { .. })
    ));
    let mut version = bytes.clone();
    version[16..20].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert!(matches!(
        load_of(&version),
        Err(TrieFileError::Version { .. })
    ));
    // Bytes after the trie, under a checksum that holds: written wrongly.
    let mut longer = bytes[header..].to_vec();
    longer.push(0);
    match load_of(&super::file::frame(&longer)) {
        Err(e @ TrieFileError::Body { .. }) => {
            assert!(e.to_string().contains("1 bytes after the trie"), "{e}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_trie_file_and_its_journal_give_the_trie_of_the_last_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("p.trie");
    let mut t = figure3();
    let mut journal = checkpoint_whole(&mut t, &path);
    assert_eq!(load(&path).expect("loads"), t);

    // A pending leaf below the boundary node, and a new function name.
    add(&mut t, &[1, 1, 0], End::pending(), 5);
    t.intern_func("g");
    journal.append(&mut t).expect("appended");
    let first = t.clone();
    let first_bytes = journal.bytes();
    assert_eq!(load(&path).expect("loads"), first);
    // The pending leaf's path ends; another path is still pending.
    add(&mut t, &[1, 1, 0], End::Completed, 6);
    add(&mut t, &[1, 1, 1, 0], End::pending(), 7);
    journal.append(&mut t).expect("appended");
    assert_eq!(load(&path).expect("loads"), t);
    // Nothing changed: nothing appended.
    let before = journal.bytes();
    journal.append(&mut t).expect("appended");
    assert_eq!(journal.bytes(), before);

    // Killed while appending: the record cut short is passed over.
    let j = journal_path(&path);
    let bytes = std::fs::read(&j).expect("journal");
    std::fs::write(&j, &bytes[..bytes.len() - 3]).expect("cut");
    assert_eq!(load(&path).expect("loads"), first);
    std::fs::write(&j, &bytes[..first_bytes as usize + 10]).expect("cut");
    assert_eq!(load(&path).expect("loads"), first);
    // Killed after the record's body, before its head: the head is zeros.
    let mut headless = bytes.clone();
    headless[first_bytes as usize..first_bytes as usize + 40].fill(0);
    std::fs::write(&j, &headless).expect("headless");
    assert_eq!(load(&path).expect("loads"), first);

    // A journal over an earlier trie file is stale.
    std::fs::write(&j, &bytes).expect("restored");
    let mut whole = figure3();
    add(&mut whole, &[1, 1, 1], End::Completed, 8);
    save_arena(&whole, &path).expect("written");
    assert_eq!(load(&path).expect("loads"), whole);
    // The trie saved at the end of a run takes the journal's place.
    save(&t, &path).expect("saved");
    assert!(!j.exists());
    assert_eq!(load(&path).expect("loads"), t.canonical());
}

#[test]
fn a_whole_journal_record_that_does_not_fit_the_trie_is_a_named_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("p.trie");
    let mut t = figure3();
    let mut journal = checkpoint_whole(&mut t, &path);
    add(&mut t, &[0, 0, 1], End::Completed, 5);
    journal.append(&mut t).expect("appended");
    // Another trie file in its place, which the journal is made to name:
    // its record adds function names and nodes to a trie without them.
    save_arena(&Trie::new(t.recorded.clone()), &path).expect("written");
    let mut other = std::fs::read(&path).expect("read");
    let sum = *blake3::hash(&other[52..]).as_bytes();
    other[20..52].copy_from_slice(&sum);
    write(&path, &other).expect("written");
    let j = journal_path(&path);
    let mut jb = std::fs::read(&j).expect("journal");
    jb[20..52].copy_from_slice(&sum);
    std::fs::write(&j, &jb).expect("journal");
    match load(&path) {
        Err(e @ TrieFileError::Body { .. }) => {
            assert_eq!(e.path(), j.as_path(), "{e}");
        }
        other => panic!("{other:?}"),
    }
}

/// The decisions of every path of a binary tree of `depth` levels, made as
/// forking states make them: the children of a fork share the stretch
/// before it (and the notes the trie takes in it).
fn forked_paths(depth: u32) -> Vec<crate::exec::Trail<crate::exec::Decision>> {
    use crate::exec::{Decision, Point, Stretch};
    use crate::ir::{FuncId, SiteId};
    use std::sync::Arc;
    let alts: Arc<[Alt]> = two_way().into();
    let mut paths = vec![crate::exec::Trail::new()];
    for level in 0..depth {
        let mut next = Vec::new();
        for path in paths {
            let stretch = Arc::new(Stretch::new(vec![level, level + 1]));
            for taken in 0..2 {
                let mut child: crate::exec::Trail<Decision> = path.clone();
                child.push_back(Decision {
                    point: Point {
                        func: FuncId(0),
                        site: SiteId(level),
                        line: 10 + level,
                        alts: alts.clone(),
                    },
                    taken,
                    stretch: stretch.clone(),
                });
                next.push(child);
            }
        }
        paths = next;
    }
    paths
}

/// The same decisions, sharing nothing: every walk starts at the root.
fn unshared(
    path: &crate::exec::Trail<crate::exec::Decision>,
) -> crate::exec::Trail<crate::exec::Decision> {
    path.iter()
        .map(|d| crate::exec::Decision {
            stretch: std::sync::Arc::new(crate::exec::Stretch::new(d.stretch.to_vec())),
            ..d.clone()
        })
        .collect()
}

/// Paths recorded from the decisions a trie noted while recording their
/// siblings give the trie of the same paths recorded from the root: in any
/// order, in another trie (whose notes those are not), and when a path has
/// ended at an inner node that the next path must make inner again.
#[test]
fn recording_from_noted_decisions_gives_the_trie_recorded_from_the_root() {
    let module = crate::ir::testutil::load_ll("define void @f() {\n  ret void\n}\n");
    let block_at = |g: u32| (crate::ir::FuncId(0), crate::ir::BlockId(g));
    let paths = forked_paths(5);
    // A fixed shuffle: siblings are recorded far apart, as workers do.
    let order: Vec<usize> = (0..paths.len())
        .map(|i| (i * 13 + 5) % paths.len())
        .collect();
    let record = |t: &mut Trie, path: &crate::exec::Trail<crate::exec::Decision>, end: End| {
        let tag = path.len() as u8;
        t.insert_path(
            &module,
            &block_at,
            path,
            None,
            &[7],
            end,
            Some(test_of(tag, StoredOutcome::Exit { code: 0 })),
        )
    };
    let stopped = || End::Early {
        reason: "max-time".into(),
    };
    let mut noted = Trie::new(Recorded::default());
    let mut plain = Trie::new(Recorded::default());
    for &i in &order[..20] {
        record(&mut noted, &paths[i], End::Completed);
        record(&mut plain, &unshared(&paths[i]), End::Completed);
    }
    // A path stopped part way: its node, inner already, is a leaf again
    // until a path goes through it.
    let prefix: crate::exec::Trail<_> = paths[order[0]].iter().take(2).cloned().collect();
    let leaf = record(&mut noted, &prefix, stopped());
    assert_eq!(leaf, record(&mut plain, &unshared(&prefix), stopped()));
    assert!(noted.node(leaf).end.is_some());
    for &i in &order[20..] {
        record(&mut noted, &paths[i], End::Completed);
        record(&mut plain, &unshared(&paths[i]), End::Completed);
    }
    assert!(
        noted.node(leaf).end.is_none(),
        "the stopped leaf is inner again"
    );
    assert!(noted == plain);
    assert_eq!(encode(&noted), encode(&plain));
    // Another trie does not follow this one's notes.
    let mut other = Trie::new(Recorded::default());
    for &i in order.iter().rev() {
        record(&mut other, &paths[i], End::Completed);
    }
    let mut other_plain = Trie::new(Recorded::default());
    for &i in order.iter().rev() {
        record(&mut other_plain, &unshared(&paths[i]), End::Completed);
    }
    assert!(other == other_plain);
    assert_eq!(encode(&other), encode(&plain));
}

/// Sets what is known of alternative `alt` of node `id`'s point.
fn set_answer(t: &mut Trie, id: NodeId, alt: usize, answer: Answer) {
    let p = t.nodes[id.index()].point.as_mut().expect("point");
    std::sync::Arc::make_mut(&mut p.alts)[alt].answer = answer;
}

/// Figure 3's trie run to its end (no boundary), where the first choice
/// point's alternative 1 and the point below alternative 0 have each an
/// undecided alternative instead of a feasible one.
fn with_undecided() -> (Trie, Vec<NodeId>) {
    let mut t = Trie::new(Recorded {
        program: "compute".into(),
        entry: "main".into(),
        max_depth: None,
        ..Recorded::default()
    });
    add(&mut t, &[0, 0], End::Completed, 1);
    add(&mut t, &[0, 1], End::Completed, 2);
    let root = NodeId::ROOT;
    let left = t.child(root, 0).expect("left");
    for (id, alt) in [(root, 1), (left, 0)] {
        set_answer(&mut t, id, alt, Answer::Undecided);
    }
    // No path takes the undecided alternative below `left`.
    let gone = t.child(left, 0).expect("child");
    t.nodes[left.index()].children.retain(|c| *c != gone);
    t.reindex();
    (t, vec![root, left])
}

#[test]
fn retry_nodes_are_the_points_with_undecided_alternatives() {
    use super::mark::undecided_nodes;
    use super::plan::Plan;
    let (t, nodes) = with_undecided();
    let now = t.recorded.clone();
    assert_eq!(undecided_nodes(&t, &Marks::new(&t, &[])), nodes);
    // Below a candidate, everything is asked anew: no retry there.
    let left = nodes[1];
    assert_eq!(
        undecided_nodes(&t, &Marks::new(&t, &[left])),
        [NodeId::ROOT]
    );

    let plain = Plan::new(t.clone(), &now, Vec::new(), false, false, &mut |_, b| b).expect("plan");
    assert!(!plain.explores(), "a finished run has nothing to explore");
    assert_eq!(plain.kept.len(), 1);

    let retry = Plan::new(t.clone(), &now, Vec::new(), false, true, &mut |_, b| b).expect("plan");
    assert!(retry.explores());
    assert_eq!((retry.retries, retry.candidates), (2, 0));
    assert!(nodes
        .iter()
        .all(|n| retry.marks.is_retry(*n) && retry.marks.is_marked(*n)));
    // The recorded path's test is kept: the retry explores only what
    // the undecided alternatives lead to.
    assert_eq!(retry.kept.len(), 1);
    let leaf = t.child(left, 1).expect("leaf");
    assert!(!retry.marks.is_marked(leaf) && !retry.marks.is_retry(leaf));

    // Compression keeps the retry nodes and their routes.
    let compressed =
        Plan::new(t.clone(), &now, Vec::new(), true, true, &mut |_, b| b).expect("plan");
    assert_eq!(compressed.retries, 2);
    assert_eq!(compressed.marks.retry_ids().len(), 2);
}

#[test]
fn the_views_name_undecided_alternatives() {
    let (t, _) = with_undecided();
    let c = super::show::counts(&t);
    assert_eq!((c.undecided, c.unsat), (2, 0));
    let show = super::show::show_text(&t);
    assert_eq!(show.matches(": undecided").count(), 2, "{show}");
    assert!(super::show::stats_text(&t, None).contains("undecided:   2"));
    assert!(super::show::dot_text(&t).contains("label=\"undecided\""));
}

#[test]
fn what_a_retry_learned_joins_the_trie_it_came_from() {
    use super::mark::take_answers;
    let (mut t, nodes) = with_undecided();
    let (root, left) = (nodes[0], nodes[1]);
    // The retry found the root's alternative 1 feasible, with two paths
    // below, and `left`'s alternative 0 infeasible; its copy of the
    // recorded path (a hanging node) carries another test.
    let mut learned = t.clone();
    set_answer(&mut learned, root, 1, Answer::Feasible);
    set_answer(&mut learned, left, 0, Answer::Infeasible);
    add(&mut learned, &[1, 0], End::Completed, 5);
    add(&mut learned, &[1, 1], End::Completed, 6);
    let kept = learned.child(left, 1).expect("recorded");
    learned.nodes[kept.index()].test = Some(Box::new(test_of(9, StoredOutcome::Exit { code: 0 })));

    for at in [root, left] {
        take_answers(&learned, at, &mut t, at);
    }
    assert_eq!(super::show::counts(&t).undecided, 0);
    let point = |id: NodeId| t.node(id).point.clone().expect("point");
    assert_eq!(point(root).alts[1].answer, Answer::Feasible);
    assert_eq!(point(left).alts[0].answer, Answer::Infeasible);
    let right = t.child(root, 1).expect("the new subtree");
    let tags: Vec<u8> = t
        .node(right)
        .children
        .iter()
        .map(|c| tag(t.node(*c).test.as_deref().expect("a test")))
        .collect();
    assert_eq!(tags, [5, 6]);
    // What the node had stays as it was.
    let recorded = t.child(left, 1).expect("recorded");
    assert_eq!(tag(t.node(recorded).test.as_deref().expect("a test")), 2);
    assert!(t.child(left, 0).is_none());
}
