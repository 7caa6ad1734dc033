//! `tests.json`, the index of a run's tests with the outcome the engine
//! predicted for each, as CONTRACT.md specifies it.

use std::fmt;
use std::fs;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::replay::ReplayError;
use crate::files::write_atomic_with;

/// The `version` field of the `tests.json` files mnemo writes.
pub const TESTS_JSON_VERSION: u32 = 1;

/// The file name of the test index in an output directory.
pub const TESTS_JSON: &str = "tests.json";

/// The index of a run's tests: `tests.json` in the output directory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestsJson {
    pub version: u32,
    pub program: String,
    pub tests: Vec<TestRecord>,
}

/// One test: its number, its `.ktest` file (relative to the output
/// directory) and the outcome the engine predicted for it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TestRecord {
    pub id: u32,
    pub ktest: String,
    #[serde(flatten)]
    pub outcome: Outcome,
}

/// How a path ended in the engine; serialized with an `"outcome"` tag
/// (`"exit"`, `"error"`, `"early"`) next to the record's other fields.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "lowercase")]
pub enum Outcome {
    /// The program finished; `exit_code` is what a process would report.
    Exit { exit_code: u8 },
    /// The path ended in an error of `kind` (CONTRACT.md's list).
    Error {
        kind: String,
        file: String,
        line: u32,
        message: String,
    },
    /// The run stopped the path at a limit (`max-depth`, `max-time`, ...),
    /// or (`signalled`, with the signal's number) a signal the program
    /// sent itself ended it, as it ends the native process.
    Early {
        reason: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<u8>,
    },
}

impl TestsJson {
    /// Reads and checks `tests.json`.
    pub fn read(path: &Path) -> Result<TestsJson, ReplayError> {
        let text = fs::read_to_string(path).map_err(|error| ReplayError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let parsed: TestsJson = serde_json::from_str(&text).map_err(|error| ReplayError::Json {
            path: path.to_path_buf(),
            error,
        })?;
        if parsed.version != TESTS_JSON_VERSION {
            return Err(ReplayError::Version {
                path: path.to_path_buf(),
                version: parsed.version,
            });
        }
        Ok(parsed)
    }

    /// Writes the index atomically (temporary file, rename); the caller
    /// names the file in its error.
    pub fn write_atomic(&self, path: &Path) -> std::io::Result<()> {
        let tests: Vec<&TestRecord> = self.tests.iter().collect();
        write_index(path, self.version, &self.program, &tests)
    }
}

/// Writes a `tests.json` of `tests`, in their order, atomically and as it
/// is encoded: a long run's index is tens of megabytes, written at every
/// checkpoint, and neither it nor a copy of its records is held whole.
pub fn write_index(
    path: &Path,
    version: u32,
    program: &str,
    tests: &[&TestRecord],
) -> std::io::Result<()> {
    /// [`TestsJson`] as written: the same fields, its records borrowed.
    #[derive(Serialize)]
    struct Index<'a> {
        version: u32,
        program: &'a str,
        tests: &'a [&'a TestRecord],
    }
    write_atomic_with(path, |w| {
        let index = Index {
            version,
            program,
            tests,
        };
        serde_json::to_writer_pretty(&mut *w, &index).map_err(std::io::Error::from)?;
        w.write_all(b"\n")
    })
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Exit { exit_code } => write!(f, "exit {exit_code}"),
            Outcome::Error {
                kind, file, line, ..
            } => write!(f, "{kind} at {file}:{line}"),
            Outcome::Early {
                reason,
                signal: Some(signal),
            } => write!(f, "early ({reason}, signal {signal})"),
            Outcome::Early { reason, .. } => write!(f, "early ({reason})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_json_matches_the_contract() {
        let index = TestsJson {
            version: 1,
            program: "prog.bc".into(),
            tests: vec![
                TestRecord {
                    id: 1,
                    ktest: "test000001.ktest".into(),
                    outcome: Outcome::Exit { exit_code: 0 },
                },
                TestRecord {
                    id: 2,
                    ktest: "test000002.ktest".into(),
                    outcome: Outcome::Error {
                        kind: "assert".into(),
                        file: "prog.c".into(),
                        line: 23,
                        message: "...".into(),
                    },
                },
                TestRecord {
                    id: 3,
                    ktest: "test000003.ktest".into(),
                    outcome: Outcome::Early {
                        reason: "max-depth".into(),
                        signal: None,
                    },
                },
            ],
        };
        let contract = r#"{"version": 1, "program": "prog.bc", "tests": [
     {"id": 1, "ktest": "test000001.ktest", "outcome": "exit", "exit_code": 0},
     {"id": 2, "ktest": "test000002.ktest", "outcome": "error", "kind": "assert", "file": "prog.c", "line": 23, "message": "..."},
     {"id": 3, "ktest": "test000003.ktest", "outcome": "early", "reason": "max-depth"} ]}"#;
        let parsed: TestsJson = serde_json::from_str(contract).unwrap();
        assert_eq!(parsed, index);
        let as_value = serde_json::to_value(&index).unwrap();
        assert_eq!(
            as_value,
            serde_json::from_str::<serde_json::Value>(contract).unwrap()
        );

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(TESTS_JSON);
        index.write_atomic(&path).unwrap();
        assert_eq!(TestsJson::read(&path).unwrap(), index);
        fs::write(&path, r#"{"version": 2, "program": "p", "tests": []}"#).unwrap();
        assert!(matches!(
            TestsJson::read(&path),
            Err(ReplayError::Version { version: 2, .. })
        ));
        fs::write(
            &path,
            r#"{"version": 1, "program": "p", "tests": [{"id": 1}]}"#,
        )
        .unwrap();
        assert!(matches!(
            TestsJson::read(&path),
            Err(ReplayError::Json { .. })
        ));
    }
}
