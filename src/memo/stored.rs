//! A test as the trie keeps it: enough to write its ktest, `.err` report
//! and `tests.json` entry again without running the path.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::exec::{Executor, PathEnd};
use crate::search::FinishedPath;

/// One symbolic input of a test: its name, shared with the path's input
/// and every other test of it, and its bytes. A deep run's trie holds a
/// test in every leaf: with the name a string of its own and the bytes a
/// vector, an input took twice the room.
pub type Input = (Arc<str>, Box<[u8]>);

/// A test kept with the path that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTest {
    /// `(name, bytes)` of each symbolic input, in creation order.
    #[serde(with = "inputs_as_bytes")]
    pub inputs: Vec<Input>,
    pub outcome: StoredOutcome,
    /// What a completed path wrote to stdout under these inputs (the
    /// test's `.stdout`); `None` for other paths.
    #[serde(with = "serde_bytes")]
    pub stdout: Option<Vec<u8>>,
}

/// A test's inputs with each one's bytes written at once, not byte by
/// byte: a deep run's trie holds a test in every leaf, and writing their
/// bytes one call each took a tenth of its save, with no worker running. Bincode and JSON write the same bytes as for the plain
/// vectors, so files of either kind read the same.
mod inputs_as_bytes {
    use serde::ser::SerializeSeq;
    use serde::{Deserialize, Deserializer, Serializer};
    use serde_bytes::{ByteBuf, Bytes};

    use super::Input;

    pub fn serialize<S: Serializer>(inputs: &[Input], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(inputs.len()))?;
        for (name, bytes) in inputs {
            seq.serialize_element(&(&**name, Bytes::new(bytes)))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Input>, D::Error> {
        let inputs = Vec::<(String, ByteBuf)>::deserialize(d)?;
        Ok(inputs
            .into_iter()
            .map(|(n, b)| (n.into(), b.into_vec().into_boxed_slice()))
            .collect())
    }
}

/// How the path of a stored test ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredOutcome {
    Exit {
        code: u8,
    },
    Error {
        kind: String,
        message: String,
        /// Source file and line of the faulting instruction (empty, 0 when unknown).
        file: String,
        line: u32,
        /// `(function, location)` of each frame, innermost first.
        stack: Vec<(String, String)>,
    },
    Early {
        reason: String,
    },
}

impl StoredTest {
    /// The test of an ended path, or `None` for a path that gets none.
    pub fn of_path(executor: &Executor, path: &FinishedPath<'_>) -> Option<StoredTest> {
        let module = executor.module();
        let outcome = match &path.end {
            PathEnd::Silent | PathEnd::Pruned => return None,
            PathEnd::Completed { .. } => StoredOutcome::Exit {
                code: path.exit_code.unwrap_or(0),
            },
            PathEnd::Error(e) => {
                let (file, line) = match e.loc {
                    Some(l) => (module.files[l.file.index()].clone(), l.line),
                    None => (String::new(), 0),
                };
                StoredOutcome::Error {
                    kind: e.kind.to_string(),
                    message: e.message.clone(),
                    file,
                    line,
                    stack: e
                        .stack
                        .iter()
                        .map(|f| (f.function.clone(), module.describe_loc(f.loc)))
                        .collect(),
                }
            }
            PathEnd::Early(reason) => StoredOutcome::Early {
                reason: reason.as_str().to_string(),
            },
        };
        Some(StoredTest {
            inputs: path.inputs.clone(),
            outcome,
            stdout: path.stdout.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use bincode::Options;
    use serde::{Deserialize, Serialize};

    use super::{StoredOutcome, StoredTest};
    use crate::memo::file::codec;

    /// What `StoredTest` derived before its bytes were written at once.
    #[derive(Serialize, Deserialize)]
    struct Plain {
        inputs: Vec<(String, Vec<u8>)>,
        outcome: StoredOutcome,
        stdout: Option<Vec<u8>>,
    }

    /// Trie files, journals and JSON written either way read the same.
    #[test]
    fn a_test_is_written_as_its_plain_fields_were() {
        let tests = [
            StoredTest {
                inputs: vec![
                    ("n".into(), vec![1, 0, 0, 200].into()),
                    ("empty".into(), Box::default()),
                ],
                outcome: StoredOutcome::Exit { code: 3 },
                stdout: Some(b"out\n".to_vec()),
            },
            StoredTest {
                inputs: vec![],
                outcome: StoredOutcome::Early {
                    reason: "max-depth".into(),
                },
                stdout: None,
            },
        ];
        for t in tests {
            let plain = Plain {
                inputs: t
                    .inputs
                    .iter()
                    .map(|(n, b)| (n.to_string(), b.to_vec()))
                    .collect(),
                outcome: t.outcome.clone(),
                stdout: t.stdout.clone(),
            };
            let bytes = codec().serialize(&t).expect("serializes");
            assert_eq!(bytes, codec().serialize(&plain).expect("serializes"));
            let back: StoredTest = codec().deserialize(&bytes).expect("reads back");
            assert_eq!(back, t);
            let json = serde_json::to_string(&t).expect("serializes");
            assert_eq!(json, serde_json::to_string(&plain).expect("serializes"));
            let back: StoredTest = serde_json::from_str(&json).expect("reads back");
            assert_eq!(back, t);
        }
    }
}
