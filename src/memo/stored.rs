//! A test as the trie keeps it: enough to write its ktest, `.err` report
//! and `tests.json` entry again without running the path.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::exec::{Executor, PathEnd};
use crate::search::FinishedPath;

/// A test's symbolic inputs in creation order: each one's name, shared
/// with the path's input and every other test of it, and its bytes. A
/// deep run's trie holds a test in every leaf, most inputs a few bytes:
/// with a vector of bytes each, an input took 40 bytes and an allocation
/// of its own; here it takes 24, all of a test's bytes in one block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// Each input's name and the end of its bytes in `bytes`.
    names: Box<[(Arc<str>, usize)]>,
    bytes: Box<[u8]>,
}

impl Inputs {
    /// Each input's name and bytes, in creation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Arc<str>, &[u8])> {
        let mut start = 0;
        self.names.iter().map(move |(name, end)| {
            let bytes = &self.bytes[start..*end];
            start = *end;
            (name, bytes)
        })
    }

    /// How many inputs there are.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

impl<B: AsRef<[u8]>> FromIterator<(Arc<str>, B)> for Inputs {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, B)>>(inputs: I) -> Self {
        let mut names = Vec::new();
        let mut bytes = Vec::new();
        for (name, b) in inputs {
            bytes.extend_from_slice(b.as_ref());
            names.push((name, bytes.len()));
        }
        Inputs {
            names: names.into(),
            bytes: bytes.into(),
        }
    }
}

/// Written as the sequence of `(name, bytes)` it was before, each input's
/// bytes at once rather than byte by byte (writing them one call each took
/// a tenth of a deep run's save, with no worker running). Bincode and JSON
/// write the same bytes as for the plain vectors, so files of either kind
/// read the same.
impl Serialize for Inputs {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for (name, bytes) in self.iter() {
            seq.serialize_element(&(&**name, serde_bytes::Bytes::new(bytes)))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Inputs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let inputs = Vec::<(String, serde_bytes::ByteBuf)>::deserialize(d)?;
        Ok(inputs
            .into_iter()
            .map(|(n, b)| (Arc::<str>::from(n), b.into_vec()))
            .collect())
    }
}

/// A test kept with the path that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTest {
    /// The symbolic inputs, in creation order.
    pub inputs: Inputs,
    pub outcome: StoredOutcome,
    /// What a completed path wrote to stdout under these inputs (the
    /// test's `.stdout`); `None` for other paths.
    #[serde(with = "serde_bytes")]
    pub stdout: Option<Vec<u8>>,
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

    use super::{Inputs, StoredOutcome, StoredTest};
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
                inputs: [
                    ("n".into(), vec![1, 0, 0, 200]),
                    ("empty".into(), Vec::new()),
                    ("last".into(), vec![7]),
                ]
                .into_iter()
                .collect(),
                outcome: StoredOutcome::Exit { code: 3 },
                stdout: Some(b"out\n".to_vec()),
            },
            StoredTest {
                inputs: Inputs::default(),
                outcome: StoredOutcome::Early {
                    reason: "max-depth".into(),
                },
                stdout: None,
            },
        ];
        let listed: Vec<(&str, &[u8])> = tests[0].inputs.iter().map(|(n, b)| (&**n, b)).collect();
        let expected: [(&str, &[u8]); 3] = [("n", &[1, 0, 0, 200]), ("empty", &[]), ("last", &[7])];
        assert_eq!(listed, expected);
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
