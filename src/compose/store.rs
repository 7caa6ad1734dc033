//! Summaries on disk: one file per function and key in the memo
//! directory's `summaries/`, framed with a magic line, a format version and
//! a checksum, written atomically. A file records a summary, or why the
//! function has none, so that neither is worked out again while the
//! function (and what it calls) is unchanged.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::summary::{Choice, Leaf, LeafEnd, Summary};
use crate::exec::lazy::HeapCondition;
use crate::expr::serial::{encode, Decoder};
use crate::files::FrameError;

const MAGIC: &[u8; 16] = b"mnemo summary \n\0";
/// Bumped whenever the body's layout changes; older files are refused.
const FORMAT_VERSION: u32 = 3;

/// What a function's file says.
#[derive(Clone, Debug)]
pub enum Stored {
    Summary(Summary),
    /// The function has no summary, for this reason (a fallback's name).
    Refused(String),
}

#[derive(Serialize, Deserialize)]
enum Body {
    Summary {
        function: String,
        key: u64,
        bound: u32,
        params: Vec<u32>,
        leaves: Vec<(Vec<Choice>, LeafEnd, u32, HeapCondition)>,
        /// Every leaf's condition, one after the other (`leaves[i].2` each).
        conditions: Vec<u8>,
    },
    Refused {
        function: String,
        key: u64,
        reason: String,
    },
}

/// Why a summary file could not be used.
#[derive(Debug, Error)]
pub enum SummaryFileError {
    #[error("cannot {doing} {path}: {error}")]
    Io {
        doing: &'static str,
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path} is not a mnemo summary file")]
    Foreign { path: PathBuf },
    #[error("{path} is a summary of format {found}; this mnemo reads format {FORMAT_VERSION}")]
    Version { path: PathBuf, found: u32 },
    #[error("{path} is damaged: {detail}")]
    Damaged { path: PathBuf, detail: String },
}

/// The directory of summaries in a memo directory.
pub fn summaries_dir(memo_dir: &Path) -> PathBuf {
    memo_dir.join("summaries")
}

/// The file of `function`'s summary under `key`.
pub fn summary_path(memo_dir: &Path, function: &str, key: u64) -> PathBuf {
    summaries_dir(memo_dir).join(format!("{}-{key:016x}.summary", file_name(function)))
}

/// A function name as part of a file name (C names are safe; others are
/// escaped byte by byte).
fn file_name(function: &str) -> String {
    function
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b == b'_' || b == b'.' {
                (b as char).to_string()
            } else {
                format!("%{b:02x}")
            }
        })
        .collect()
}

/// The files of `function`'s summaries (one per key seen), newest first.
pub fn files_of(memo_dir: &Path, function: &str) -> std::io::Result<Vec<PathBuf>> {
    let prefix = format!("{}-", file_name(function));
    let mut found = Vec::new();
    let dir = summaries_dir(memo_dir);
    for entry in std::fs::read_dir(&dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(&prefix) else {
            continue;
        };
        let is_key = rest
            .strip_suffix(".summary")
            .is_some_and(|k| k.len() == 16 && k.bytes().all(|b| b.is_ascii_hexdigit()));
        if is_key {
            let modified = entry.metadata().and_then(|m| m.modified()).ok();
            found.push((modified, entry.path()));
        }
    }
    found.sort_by(|a, b| b.cmp(a));
    Ok(found.into_iter().map(|(_, p)| p).collect())
}

/// Writes what was found out about a function, atomically.
pub fn save(
    memo_dir: &Path,
    function: &str,
    key: u64,
    what: &Stored,
) -> Result<(), SummaryFileError> {
    let path = summary_path(memo_dir, function, key);
    let body = match what {
        Stored::Summary(s) => {
            let all: Vec<_> = s.leaves.iter().flat_map(|l| l.condition.clone()).collect();
            Body::Summary {
                function: s.function.clone(),
                key: s.key,
                bound: s.bound,
                params: s.params.clone(),
                leaves: s
                    .leaves
                    .iter()
                    .map(|l| {
                        let n = l.condition.len() as u32;
                        (l.choices.clone(), l.end.clone(), n, l.heap.clone())
                    })
                    .collect(),
                conditions: encode(&all),
            }
        }
        Stored::Refused(reason) => Body::Refused {
            function: function.to_string(),
            key,
            reason: reason.clone(),
        },
    };
    let bytes = bincode::serialize(&body).expect("a summary always serializes");
    let io = |error| SummaryFileError::Io {
        doing: "write",
        path: path.clone(),
        error,
    };
    std::fs::create_dir_all(summaries_dir(memo_dir)).map_err(io)?;
    crate::files::write_atomic(&path, &crate::files::frame(MAGIC, FORMAT_VERSION, &bytes))
        .map_err(io)
}

/// Reads a summary file.
pub fn load(path: &Path) -> Result<Stored, SummaryFileError> {
    let bytes = std::fs::read(path).map_err(|error| SummaryFileError::Io {
        doing: "read",
        path: path.to_path_buf(),
        error,
    })?;
    let damaged = |detail: String| SummaryFileError::Damaged {
        path: path.to_path_buf(),
        detail,
    };
    let body = crate::files::unframe(&bytes, MAGIC, FORMAT_VERSION..=FORMAT_VERSION).map_err(
        |e| match e {
            FrameError::Foreign => SummaryFileError::Foreign {
                path: path.to_path_buf(),
            },
            FrameError::Version(found) => SummaryFileError::Version {
                path: path.to_path_buf(),
                found,
            },
            FrameError::Checksum => damaged("checksum mismatch".into()),
        },
    )?;
    let body: Body = bincode::deserialize(body).map_err(|e| damaged(e.to_string()))?;
    Ok(match body {
        Body::Refused { reason, .. } => Stored::Refused(reason),
        Body::Summary {
            function,
            key,
            bound,
            params,
            leaves,
            conditions,
        } => {
            let all = Decoder::new()
                .decode(&conditions)
                .map_err(|e| damaged(e.to_string()))?;
            let wanted: usize = leaves.iter().map(|l| l.2 as usize).sum();
            if wanted != all.len() {
                return Err(damaged(format!(
                    "its leaves have {wanted} conditions, the file {}",
                    all.len()
                )));
            }
            let mut rest = all.into_iter();
            let leaves = leaves
                .into_iter()
                .map(|(choices, end, n, heap)| Leaf {
                    choices,
                    end,
                    condition: rest.by_ref().take(n as usize).collect(),
                    heap,
                })
                .collect();
            Stored::Summary(Summary {
                function,
                key,
                bound,
                params,
                leaves,
            })
        }
    })
}

/// Reads the file of `function` under `key`, if there is one; a damaged
/// or foreign file counts as none (it is rebuilt and replaced), with a
/// warning.
pub fn find(memo_dir: &Path, function: &str, key: u64) -> Option<Stored> {
    let path = summary_path(memo_dir, function, key);
    match load(&path) {
        Ok(s) => Some(s),
        Err(SummaryFileError::Io { error, .. }) if error.kind() == std::io::ErrorKind::NotFound => {
            None
        }
        Err(e) => {
            eprintln!("mnemo: warning: {e}; the summary is built again");
            None
        }
    }
}
