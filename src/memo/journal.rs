//! The trie's journal: what a run changed in its trie since the trie file
//! was last written whole, appended at each checkpoint.
//!
//! Writing a big trie whole takes seconds (a million nodes: about 1.5 s),
//! which a checkpoint every minute cannot afford; what changed in a minute
//! is far less. So a checkpoint writes the trie whole only when its journal
//! has grown as large as the trie file, and otherwise appends one record:
//! every node added or changed since the record before, whole, under its
//! index in the run's arena (which the trie file, written from the same
//! arena, shares).
//!
//! The file is a header naming the trie file it extends (by the checksum of
//! its body), then records, each with its length and checksum. A record cut
//! short (the process killed while appending it) ends the journal: the
//! checkpoint before it stands. A journal over another trie file (one
//! written since, whole) is stale and is passed over.

use std::io::Write;
use std::path::{Path, PathBuf};

use bincode::Options;
use serde::{Deserialize, Serialize};

use super::file::{bincode_io, codec};
use super::trie::{Node, NodeId, Trie};
use crate::files::Hashing;

const MAGIC: &[u8; 16] = b"mnemo trie jrnl\n";
/// Bumped whenever a record's layout changes; older journals are stale.
/// Version 3: written with the trie file's codec.
const VERSION: u32 = 3;
/// Magic, version, the checksum of the trie file's body.
const HEADER: usize = MAGIC.len() + 4 + 32;
/// A record's length and checksum.
const RECORD_HEAD: usize = 8 + 32;

/// The journal of a trie file: `PROGRAM.trie.journal` beside it.
pub fn journal_path(trie_file: &Path) -> PathBuf {
    crate::files::with_suffix(trie_file, ".journal")
}

/// One checkpoint's changes, as written.
#[derive(Serialize)]
struct RecordOut<'a> {
    /// Slots in the arena after the changes.
    arena: u32,
    /// Index of the first function name added.
    funcs_from: u32,
    funcs: &'a [String],
    nodes: Vec<(NodeId, &'a Node)>,
}

/// One checkpoint's changes, as read.
#[derive(Deserialize)]
struct RecordIn {
    arena: u32,
    funcs_from: u32,
    funcs: Vec<String>,
    nodes: Vec<(NodeId, Node)>,
}

/// A journal being written by a run.
pub struct Journal {
    file: std::fs::File,
    bytes: u64,
}

impl Journal {
    /// Starts an empty journal over `trie_file`, just written whole with
    /// body checksum `base`, replacing any earlier journal; the trie should
    /// track its changes from the same moment ([`Trie::track_changes`]).
    pub fn start(trie_file: &Path, base: &[u8; 32]) -> std::io::Result<Journal> {
        let path = journal_path(trie_file);
        let mut header = Vec::with_capacity(HEADER);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&VERSION.to_le_bytes());
        header.extend_from_slice(base);
        // Appended to through this handle: never to a journal another
        // process (sharing the memo directory) put in its place.
        let file = crate::files::create_atomic(&path, &header)?;
        Ok(Journal {
            file,
            bytes: HEADER as u64,
        })
    }

    /// The journal's size in bytes.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Appends the trie's changes since the last record (or the start).
    /// After an error the journal's end may be a part of a record, which
    /// would hide every later one: the trie must be written whole next.
    pub fn append(&mut self, trie: &mut Trie) -> std::io::Result<()> {
        let Some((funcs_from, ids)) = trie.take_changes() else {
            return Err(std::io::Error::other("the trie's changes were not tracked"));
        };
        if ids.is_empty() && funcs_from == trie.funcs.len() {
            return Ok(());
        }
        let record = RecordOut {
            arena: trie.arena_len() as u32,
            funcs_from: funcs_from as u32,
            funcs: &trie.funcs[funcs_from..],
            nodes: ids.iter().map(|id| (*id, trie.node(*id))).collect(),
        };
        // The body is written as it is encoded, behind room for its head,
        // and the head after it: a deep run's record holds a test in every
        // new leaf, which encoded in memory first was a part of the run's
        // peak. A kill before the head is written leaves a head of zeros,
        // which no body matches: the record is cut short.
        (&self.file).write_all(&[0; RECORD_HEAD])?;
        let mut w = Hashing::new(&self.file).buffered();
        codec()
            .serialize_into(&mut w, &record)
            .map_err(bincode_io)?;
        let (body_len, digest) = w
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?
            .finish();
        let mut head = [0u8; RECORD_HEAD];
        head[..8].copy_from_slice(&body_len.to_le_bytes());
        head[8..].copy_from_slice(&digest);
        std::os::unix::fs::FileExt::write_all_at(&self.file, &head, self.bytes)?;
        self.bytes += (RECORD_HEAD as u64) + body_len;
        Ok(())
    }
}

/// Applies the journal `bytes` to `trie`, read from the trie file whose
/// body has checksum `base`. A journal over another trie file, or of
/// another version, changes nothing; records are applied up to the first
/// one cut short. Returns the records applied, or what is wrong with a
/// whole record that does not fit the trie.
pub(crate) fn replay(trie: &mut Trie, bytes: &[u8], base: &[u8]) -> Result<usize, String> {
    if bytes.len() < HEADER
        || &bytes[..MAGIC.len()] != MAGIC
        || bytes[MAGIC.len()..MAGIC.len() + 4] != VERSION.to_le_bytes()
        || &bytes[MAGIC.len() + 4..HEADER] != base
    {
        return Ok(0);
    }
    let mut at = HEADER;
    let mut applied = 0;
    while let Some(body) = next_record(bytes, at) {
        at += RECORD_HEAD + body.len();
        let r: RecordIn = codec()
            .deserialize(body)
            .map_err(|e| format!("record {} does not decode: {e}", applied + 1))?;
        apply(trie, r).map_err(|e| format!("record {}: {e}", applied + 1))?;
        applied += 1;
    }
    Ok(applied)
}

/// The body of the whole record at `at`, if one is there.
fn next_record(bytes: &[u8], at: usize) -> Option<&[u8]> {
    let head = bytes.get(at..at + RECORD_HEAD)?;
    let mut len = [0u8; 8];
    len.copy_from_slice(&head[..8]);
    let len = usize::try_from(u64::from_le_bytes(len)).ok()?;
    let start = at + RECORD_HEAD;
    let body = bytes.get(start..start.checked_add(len)?)?;
    (blake3::hash(body).as_bytes() == &head[8..]).then_some(body)
}

fn apply(trie: &mut Trie, r: RecordIn) -> Result<(), String> {
    if r.funcs_from as usize != trie.funcs.len() {
        return Err(format!(
            "adds function names from {} to a trie of {}",
            r.funcs_from,
            trie.funcs.len()
        ));
    }
    let arena = r.arena as usize;
    if arena < trie.nodes.len() {
        return Err(format!(
            "has {arena} nodes, fewer than the trie's {}",
            trie.nodes.len()
        ));
    }
    if let Some((id, _)) = r.nodes.iter().find(|(id, _)| id.index() >= arena) {
        return Err(format!("changes node {} of {arena}", id.0));
    }
    trie.funcs.extend(r.funcs);
    trie.nodes.resize(arena, Node::default());
    for (id, node) in r.nodes {
        trie.nodes[id.index()] = node;
    }
    Ok(())
}
