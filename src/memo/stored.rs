//! A test as the trie keeps it: enough to write its ktest, `.err` report
//! and `tests.json` entry again without running the path.

use serde::{Deserialize, Serialize};

use crate::exec::{Executor, PathEnd};
use crate::search::FinishedPath;

/// A test kept with the path that produced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredTest {
    /// `(name, bytes)` of each symbolic input, in creation order.
    pub inputs: Vec<(String, Vec<u8>)>,
    pub outcome: StoredOutcome,
    /// What a completed path wrote to stdout under these inputs (the
    /// test's `.stdout`); `None` for other paths.
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
