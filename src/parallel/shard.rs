//! Shard files: one partition of a run, for another machine (a batch
//! scheduler's array job). A shard holds what its run needs and nothing
//! else: the hash of the module it was made for, the trie cut down to the
//! prefixes of its candidates, the candidates, and the run's options. It is
//! framed like a trie file (magic, format version, checksum) and written
//! atomically.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::files::FrameError;
use crate::ir::Module;
use crate::memo::trie::function_hashes;
use crate::memo::{compress, Marks, NodeId, Trie};

const MAGIC: &[u8; 16] = b"mnemo shard file";
/// Bumped whenever the body's layout changes. Version 2: an alternative
/// may be undecided. Version 3: retry nodes follow the shard.
pub const SHARD_VERSION: u32 = 3;
/// The oldest format read: version 1's alternatives read as they are, and
/// a shard of versions 1 and 2 has no retry nodes.
const OLDEST_SHARD_VERSION: u32 = 1;

/// The options of the run a shard belongs to: every shard of a partition
/// runs with the same ones, whatever the command line of the machine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardOptions {
    pub entry: String,
    pub args: Vec<String>,
    pub max_depth: Option<u32>,
    pub max_time_s: Option<f64>,
    pub max_instructions: Option<u64>,
    pub max_memory_mb: Option<u64>,
    pub max_stack_frames: u32,
    /// The searcher, by its command-line name.
    pub searcher: String,
    pub seed: u64,
    pub solver_timeout_ms: u64,
    /// The solver chain, as `--solver-chain` writes it.
    pub solver_chain: String,
    pub link_runtime: bool,
}

/// One shard of a partitioned run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Shard {
    /// This shard's number, from 0, and how many the partition has.
    pub index: u32,
    pub count: u32,
    /// The hash that names the partition (its trie, options and number of
    /// shards): the shards of one partition carry the same.
    pub partition: String,
    /// The hash of the trie file the partition was made from, which
    /// `mnemo merge` joins the shards' subtrees into.
    pub trie: String,
    /// [`module_hash`] of the program the partition was made for.
    pub module_hash: String,
    /// The program's bitcode as `mnemo partition` was given it.
    pub program: PathBuf,
    pub options: ShardOptions,
    /// The partition's trie reduced to the paths to this shard's
    /// candidates (with the alternatives the paths pass by, unexplored).
    pub prefixes: Trie,
    /// The candidates, nodes of `prefixes`, in trie order.
    pub candidates: Vec<NodeId>,
    /// Their expected cost, in the partitioner's units.
    pub weight: f64,
    /// Nodes of `prefixes` whose undecided alternatives the shard's run
    /// asks about again (`--retry-undecided`). Encoded after the rest, so
    /// that the bodies of earlier versions, which end before, still read.
    #[serde(skip)]
    pub retries: Vec<NodeId>,
}

/// Why a shard file cannot be used.
#[derive(Debug, Error)]
pub enum ShardError {
    #[error("cannot {doing} {path}: {error}")]
    Io {
        doing: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path} is not a mnemo shard file")]
    NotAShard { path: PathBuf },
    #[error("{path} is a shard of format {found}; this mnemo reads formats {OLDEST_SHARD_VERSION} to {SHARD_VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("{path} is damaged (checksum mismatch)")]
    Checksum { path: PathBuf },
    #[error("{path} is damaged: {detail}")]
    Body { path: PathBuf, detail: String },
    #[error(
        "{path} was made for another build of the program: its module hash is {shard}, {program}'s is {now}; partition the run again for this build"
    )]
    Stale {
        path: PathBuf,
        program: PathBuf,
        shard: String,
        now: String,
    },
}

/// The hash a shard names its module by: every defined function's name and
/// structural hash (the runtime's included), so that any change to the
/// code the shard runs is seen, and nothing else (file paths, debug
/// producers) is.
pub fn module_hash(module: &Module) -> String {
    let hashes = function_hashes(module);
    let bytes = bincode::serialize(&hashes).expect("a map of names and numbers serializes");
    blake3::hash(&bytes).to_hex().to_string()
}

/// The trie a shard carries: `trie` cut to the paths to `candidates` and
/// to `retries`, with no tests (the other shards' and the kept ones are
/// not this shard's to write); and the ids in it of the candidates and of
/// the retry nodes.
pub fn prefixes(
    trie: &Trie,
    candidates: &[NodeId],
    retries: &[NodeId],
) -> (Trie, Vec<NodeId>, Vec<NodeId>) {
    let mut marks = Marks::new(trie, candidates);
    marks.add_retries(trie, retries);
    let (mut cut, marks) = compress(trie, &marks);
    let (mut ids, mut retry_ids) = (Vec::new(), Vec::new());
    for (i, node) in cut.nodes.iter_mut().enumerate() {
        let id = NodeId(i as u32);
        if marks.is_candidate(id) {
            ids.push(id);
        }
        if marks.is_retry(id) {
            retry_ids.push(id);
        }
        if !marks.is_marked(id) {
            node.test = None;
            node.kept.clear();
        }
    }
    (cut, ids, retry_ids)
}

impl Shard {
    /// The shard's file name in a directory of `count` shards: numbered from
    /// 000, as wide as the largest number, so names sort by number.
    pub fn file_name(index: u32, count: u32) -> String {
        let width = count.saturating_sub(1).to_string().len().max(3);
        format!("{index:0width$}.shard")
    }

    pub fn encode(&self) -> Vec<u8> {
        let body = crate::files::with_tail(self, &self.retries);
        crate::files::frame(MAGIC, SHARD_VERSION, &body)
    }

    /// A shard from a shard file's bytes (`path` names it in errors).
    pub fn decode(bytes: &[u8], path: &Path) -> Result<Shard, ShardError> {
        let path = path.to_path_buf();
        let body = crate::files::unframe(bytes, MAGIC, OLDEST_SHARD_VERSION..=SHARD_VERSION)
            .map_err(|e| match e {
                FrameError::Foreign => ShardError::NotAShard { path: path.clone() },
                FrameError::Version(found) => ShardError::Version {
                    path: path.clone(),
                    found,
                },
                FrameError::Checksum => ShardError::Checksum { path: path.clone() },
            })?;
        let body_error = |detail: String| ShardError::Body {
            path: path.clone(),
            detail,
        };
        let (mut shard, retries): (Shard, _) =
            crate::files::head_and_tail(body).map_err(|e| body_error(e.to_string()))?;
        shard.retries = retries;
        // The prefixes are a trie: checked as a trie file's body is.
        let prefixes = std::mem::replace(&mut shard.prefixes, Trie::new(Default::default()));
        shard.prefixes = crate::memo::file::checked(prefixes, &path)
            .map_err(|e| body_error(format!("its trie: {e}")))?;
        if shard.count == 0 || shard.index >= shard.count {
            return Err(body_error(format!(
                "shard {} of {}",
                shard.index, shard.count
            )));
        }
        let outside = |ids: &[NodeId]| {
            ids.iter()
                .find(|c| c.index() >= shard.prefixes.arena_len())
                .map(|c| c.0)
        };
        for (what, ids) in [
            ("candidate", &shard.candidates),
            ("retry node", &shard.retries),
        ] {
            if let Some(c) = outside(ids) {
                return Err(body_error(format!(
                    "{what} {c} of a trie of {} nodes",
                    shard.prefixes.arena_len()
                )));
            }
        }
        Ok(shard)
    }

    pub fn read(path: &Path) -> Result<Shard, ShardError> {
        let bytes = std::fs::read(path).map_err(|error| ShardError::Io {
            doing: "read",
            path: path.to_path_buf(),
            error,
        })?;
        Shard::decode(&bytes, path)
    }

    /// Writes the shard atomically.
    pub fn write(&self, path: &Path) -> Result<(), ShardError> {
        crate::files::write_atomic(path, &self.encode()).map_err(|error| ShardError::Io {
            doing: "write",
            path: path.to_path_buf(),
            error,
        })
    }

    /// Refuses a module other than the one the shard was made for.
    pub fn check_module(
        &self,
        path: &Path,
        program: &Path,
        module: &Module,
    ) -> Result<(), ShardError> {
        let now = module_hash(module);
        if now != self.module_hash {
            return Err(ShardError::Stale {
                path: path.to_path_buf(),
                program: program.to_path_buf(),
                shard: self.module_hash.clone(),
                now,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shard() -> Shard {
        let (t, leaves) = crate::parallel::partition::tests::trie_of(&[&[0], &[1]]);
        let a = leaves[0];
        Shard {
            index: 1,
            count: 3,
            partition: "p".into(),
            trie: "t".into(),
            module_hash: "m".into(),
            program: "prog.bc".into(),
            options: ShardOptions::default(),
            prefixes: t,
            candidates: vec![a],
            weight: 2.0,
            retries: Vec::new(),
        }
    }

    #[test]
    fn retry_nodes_follow_the_shard_and_earlier_formats_have_none() {
        let path = Path::new("s.shard");
        let with = Shard {
            retries: vec![NodeId::ROOT],
            ..shard()
        };
        let back = Shard::decode(&with.encode(), path).expect("decodes");
        assert_eq!(back.retries, [NodeId::ROOT]);
        assert_eq!(back.candidates, with.candidates);
        // Version 2's body is the same shard without what follows it.
        let body = bincode::serialize(&with).expect("serializes");
        let v2 = crate::files::frame(MAGIC, 2, &body);
        let back = Shard::decode(&v2, path).expect("version 2 reads");
        assert!(back.retries.is_empty());
        assert_eq!(back.candidates, with.candidates);
        let far = Shard {
            retries: vec![NodeId(99)],
            ..shard()
        };
        let e = Shard::decode(&far.encode(), path).expect_err("refused");
        assert!(e.to_string().contains("retry node 99 of a trie of"), "{e}");
    }

    #[test]
    fn a_shard_reads_back_and_damage_is_named() {
        let path = Path::new("s.shard");
        let bytes = shard().encode();
        let back = Shard::decode(&bytes, path).expect("decodes");
        assert_eq!((back.index, back.count), (1, 3));
        assert_eq!(back.candidates, shard().candidates);
        let mut flipped = bytes.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        assert!(matches!(
            Shard::decode(&flipped, path),
            Err(ShardError::Checksum { .. })
        ));
        assert!(matches!(
            Shard::decode(b"mnemo trie file\nxxxx", path),
            Err(ShardError::NotAShard { .. })
        ));
        let mut old = bytes;
        old[16] = 0;
        assert!(matches!(
            Shard::decode(&old, path),
            Err(ShardError::Version { found: 0, .. })
        ));
    }

    #[test]
    fn file_names_sort_by_number() {
        assert_eq!(Shard::file_name(17, 64), "017.shard");
        assert_eq!(Shard::file_name(17, 5000), "0017.shard");
    }
}
