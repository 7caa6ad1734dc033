//! Tries on disk: a magic line, a format version and a checksum before the
//! bincode body, written atomically into the memo directory.

use std::path::{Path, PathBuf};

use bincode::Options;
use thiserror::Error;

use super::canonical::CanonicalView;
use super::journal::{journal_path, replay};
use super::share::Decoding;
use super::trie::Trie;
use crate::files::FrameError;

const MAGIC: &[u8; 16] = b"mnemo trie file\n";
/// Bumped whenever the body's layout changes. Version 3: integers as
/// variable-length numbers. Version 4: an alternative may be undecided.
pub const FORMAT_VERSION: u32 = 4;
/// The oldest format read: version 3's alternatives (feasible or not) read
/// as they are, and older ones are refused.
pub const OLDEST_FORMAT_VERSION: u32 = 3;

/// Why a trie file could not be used.
#[derive(Debug, Error)]
pub enum TrieFileError {
    #[error("cannot {doing} {path}: {error}")]
    Io {
        /// `read`, `write` or `remove`.
        doing: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path} is not a mnemo trie file")]
    NotATrie { path: PathBuf },
    #[error("{path} is a trie of format {found}; this mnemo reads formats {OLDEST_FORMAT_VERSION} to {FORMAT_VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("{path} is damaged (checksum mismatch)")]
    Checksum { path: PathBuf },
    #[error("{path} is damaged: {detail}")]
    Body { path: PathBuf, detail: String },
}

impl TrieFileError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            TrieFileError::Io { path, .. }
            | TrieFileError::NotATrie { path }
            | TrieFileError::Version { path, .. }
            | TrieFileError::Checksum { path }
            | TrieFileError::Body { path, .. } => path,
        }
    }
}

/// How a trie's nodes are written, in its file and its journal: bincode
/// with integers as variable-length numbers. Nearly every number in a trie
/// (function, block and site indices, node numbers near their parent's)
/// is small, and fixed-width integers made files three times larger,
/// written while no worker runs.
pub(crate) fn codec() -> impl bincode::Options + Copy {
    bincode::DefaultOptions::new()
}

/// The trie file of a program in a memo directory: one per program name.
pub fn trie_path(memo_dir: &Path, program: &str) -> PathBuf {
    memo_dir.join(format!("{program}.trie"))
}

/// The bytes of a trie file: its nodes numbered in depth-first order, so
/// that two runs that found the same paths give equal files.
pub fn encode(trie: &Trie) -> Vec<u8> {
    frame(&CanonicalView::new(trie).to_bytes())
}

/// Writes a trie file atomically with the nodes numbered as in the arena
/// (the numbering the trie's journal refers to), creating its directory.
/// Returns the file's length and its body's checksum, which the journal
/// names.
pub fn save_arena(trie: &Trie, path: &Path) -> Result<(u64, [u8; 32]), TrieFileError> {
    write_with(path, |w| {
        codec().serialize_into(w, trie).map_err(bincode_io)
    })
}

/// The I/O error of a serialization that failed in its writer; any other
/// failure, which a trie's serialization never has, as an I/O error too.
#[allow(clippy::boxed_local)] // bincode's error is a box: `map_err` hands it over.
pub(crate) fn bincode_io(e: bincode::Error) -> std::io::Error {
    match *e {
        bincode::ErrorKind::Io(e) => e,
        e => std::io::Error::other(e),
    }
}

/// `body` behind the header: magic, version and checksum. The fuzz target
/// frames its input this way, so that the body's reader sees bytes the
/// checksum would otherwise turn away.
pub fn frame(body: &[u8]) -> Vec<u8> {
    crate::files::frame(MAGIC, FORMAT_VERSION, body)
}

/// A trie from the bytes of a trie file (`path` names it in errors).
pub fn decode(bytes: &[u8], path: &Path) -> Result<Trie, TrieFileError> {
    let _sharing = Decoding::start();
    checked(decode_body(bytes, path)?, path)
}

/// A trie read as part of another file (a shard's prefixes), checked as a
/// trie file's body is.
pub fn checked(mut trie: Trie, path: &Path) -> Result<Trie, TrieFileError> {
    check_shape(&trie).map_err(|detail| TrieFileError::Body {
        path: path.to_path_buf(),
        detail,
    })?;
    trie.reindex();
    Ok(trie)
}

/// The trie of a trie file's bytes, its shape not yet checked.
fn decode_body(bytes: &[u8], path: &Path) -> Result<Trie, TrieFileError> {
    let body = crate::files::unframe(bytes, MAGIC, OLDEST_FORMAT_VERSION..=FORMAT_VERSION)
        .map_err(|e| frame_error(e, path))?;
    codec().deserialize(body).map_err(|e| TrieFileError::Body {
        path: path.to_path_buf(),
        detail: e.to_string(),
    })
}

/// The error of a trie file whose frame is not a trie's of these formats.
fn frame_error(e: FrameError, path: &Path) -> TrieFileError {
    let path = path.to_path_buf();
    match e {
        FrameError::Foreign => TrieFileError::NotATrie { path },
        FrameError::Version(found) => TrieFileError::Version { path, found },
        FrameError::Checksum => TrieFileError::Checksum { path },
    }
}

/// The trie of a trie file, its shape not yet checked, and its body's
/// checksum, read from the file as it is decoded.
fn read_body(path: &Path) -> Result<(Trie, [u8; 32]), TrieFileError> {
    use crate::files::ReadFramedError;
    let versions = OLDEST_FORMAT_VERSION..=FORMAT_VERSION;
    // The body's length bounds what a damaged length field can make the
    // decoder allocate: the checksum is only checked after it.
    let read = crate::files::read_framed(path, MAGIC, versions, |r, body| {
        codec().with_limit(body).deserialize_from::<_, Trie>(r)
    });
    let detail = |detail: String| TrieFileError::Body {
        path: path.to_path_buf(),
        detail,
    };
    match read {
        Ok((trie, sum, 0)) => Ok((trie, sum)),
        Ok((_, _, left)) => Err(detail(format!("{left} bytes after the trie"))),
        Err(ReadFramedError::Io(error)) => Err(TrieFileError::Io {
            doing: "read",
            path: path.to_path_buf(),
            error,
        }),
        Err(ReadFramedError::Frame(e)) => Err(frame_error(e, path)),
        Err(ReadFramedError::Body(e)) => Err(detail(e.to_string())),
    }
}

/// Indices in range and parents consistent: a file that passed the
/// checksum but was written wrongly must not make later code panic.
fn check_shape(trie: &Trie) -> Result<(), String> {
    let n = trie.nodes.len();
    if n == 0 {
        return Err("no root node".into());
    }
    if trie.nodes[0].parent.is_some() {
        return Err("the root has a parent".into());
    }
    for (i, node) in trie.nodes.iter().enumerate() {
        if let Some(p) = &node.point {
            if p.func as usize >= trie.funcs.len() {
                return Err(format!(
                    "node {i} names function {} of {}",
                    p.func,
                    trie.funcs.len()
                ));
            }
        }
        let mut last = None;
        for c in &node.children {
            let child = trie
                .nodes
                .get(c.index())
                .ok_or_else(|| format!("node {i} has child {} of {n}", c.0))?;
            if child.parent.map(|p| p.index()) != Some(i) {
                return Err(format!("node {} does not name {i} as its parent", c.0));
            }
            let alts = node.point.as_ref().map_or(0, |p| p.alts.len());
            if child.via as usize >= alts {
                return Err(format!(
                    "node {} takes alternative {} of {alts}",
                    c.0, child.via
                ));
            }
            if last.is_some_and(|l| l >= child.via) {
                return Err(format!("children of node {i} out of order"));
            }
            last = Some(child.via);
        }
    }
    // Each non-root node is the child of exactly its parent: no cycles.
    let mut seen = vec![false; n];
    for id in trie.preorder() {
        if std::mem::replace(&mut seen[id.index()], true) {
            return Err(format!("node {} is reached twice", id.0));
        }
    }
    Ok(())
}

/// Reads a trie file, with what its journal adds (the checkpoints of a
/// run since the file was written whole).
pub fn load(path: &Path) -> Result<Trie, TrieFileError> {
    let _sharing = Decoding::start();
    let (mut trie, base) = read_body(path)?;
    let base = &base[..];
    let journal = journal_path(path);
    let damaged = |path: &Path, detail| TrieFileError::Body {
        path: path.to_path_buf(),
        detail,
    };
    let applied = match std::fs::read(&journal) {
        Ok(j) => replay(&mut trie, &j, base).map_err(|d| damaged(&journal, d))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(error) => {
            return Err(TrieFileError::Io {
                doing: "read",
                path: journal,
                error,
            })
        }
    };
    let named = if applied > 0 { &journal } else { path };
    check_shape(&trie).map_err(|d| damaged(named, d))?;
    trie.reindex();
    Ok(trie)
}

/// Writes a trie file atomically (creating its directory), and removes its
/// journal, which the file holds now. Returns how many nodes it wrote.
pub fn save(trie: &Trie, path: &Path) -> Result<u64, TrieFileError> {
    let view = CanonicalView::new(trie);
    write_with(path, |w| view.write_to(w))?;
    match std::fs::remove_file(journal_path(path)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(TrieFileError::Io {
            doing: "remove",
            path: journal_path(path),
            error: e,
        }),
        _ => Ok(view.nodes() as u64),
    }
}

/// Writes the bytes of a trie file atomically, creating its directory.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), TrieFileError> {
    in_its_directory(path, |path| crate::files::write_atomic(path, bytes))
}

/// Writes a trie file atomically, creating its directory, its body
/// written by `body` straight to the file (see
/// [`crate::files::write_framed_atomic`]).
fn write_with(
    path: &Path,
    body: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(u64, [u8; 32]), TrieFileError> {
    in_its_directory(path, |path| {
        crate::files::write_framed_atomic(path, MAGIC, FORMAT_VERSION, body)
    })
}

/// What `write` returns after writing `path`, its directory created first;
/// either's failure as the error of writing `path`.
fn in_its_directory<T>(
    path: &Path,
    write: impl FnOnce(&Path) -> std::io::Result<T>,
) -> Result<T, TrieFileError> {
    let io = |error| TrieFileError::Io {
        doing: "write",
        path: path.to_path_buf(),
        error,
    };
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    write(path).map_err(io)
}
