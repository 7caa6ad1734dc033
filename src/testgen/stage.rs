//! A test's files written before the test has its number: parallel
//! workers share one writer, and writing files was most of what reporting
//! a path cost, so each worker writes its tests' files under temporary
//! names on its own and holds the writer only to number them (a rename per
//! file).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Context;

use super::ktest::{KTest, KTestObject};
use super::writer::{err_name, stdout_name, test_name};
use crate::memo::{StoredOutcome, StoredTest};

/// What writing any test's files needs: the output directory and the
/// program's arguments. Cloned into each worker.
#[derive(Clone, Debug)]
pub struct Stager {
    pub(super) dir: PathBuf,
    pub(super) args: Vec<String>,
}

/// Which of a test's files a staged file becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Ktest,
    Err(String),
    Stdout,
}

impl Role {
    /// The name of this file of test number `id`.
    pub(super) fn name(&self, id: usize) -> String {
        match self {
            Role::Ktest => test_name(id),
            Role::Err(kind) => err_name(id, kind),
            Role::Stdout => stdout_name(id),
        }
    }
}

/// A test whose files are written under temporary names, waiting for its
/// number (`TestWriter::commit`). Dropped without being committed, it
/// removes its files.
pub struct StagedTest {
    pub(super) test: Option<StoredTest>,
    pub(super) files: Vec<(Role, PathBuf)>,
}

impl StagedTest {
    /// A test that gets no files (`--only-new-coverage`): the trie keeps
    /// it. Made before the writer is taken, as a staged test is.
    pub fn unwritten(test: StoredTest) -> StagedTest {
        StagedTest {
            test: Some(test),
            files: Vec::new(),
        }
    }

    /// Takes the test of one that gets no files; `None` for one that does.
    pub fn take_unwritten(&mut self) -> Option<StoredTest> {
        if self.files.is_empty() {
            self.test.take()
        } else {
            None
        }
    }
}

impl Stager {
    /// Writes `test`'s files (its ktest, and its `.err` report or its
    /// `.stdout`) under temporary names.
    pub fn stage(&self, test: StoredTest) -> anyhow::Result<StagedTest> {
        let ktest = KTest {
            args: self.args.clone(),
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: test
                .inputs
                .iter()
                .map(|(name, bytes)| KTestObject {
                    name: name.clone(),
                    bytes: bytes.clone(),
                })
                .collect(),
        };
        let mut contents = vec![(Role::Ktest, test_name(0), ktest.to_bytes())];
        if let Some((kind, text)) = err_report(&test) {
            contents.push((Role::Err(kind.to_string()), err_name(0, kind), text));
        }
        if let Some(bytes) = &test.stdout {
            contents.push((Role::Stdout, stdout_name(0), bytes.clone()));
        }
        let mut staged = StagedTest {
            test: Some(test),
            files: Vec::with_capacity(contents.len()),
        };
        // Number 0 is never a test's: the temporaries are told apart from
        // finished files, and a killed run's are removed as temporaries of
        // test files.
        for (role, name, bytes) in contents {
            let target = self.dir.join(&name);
            let tmp = crate::files::stage(&target, &bytes)
                .with_context(|| format!("cannot write a test into {}", self.dir.display()))?;
            staged.files.push((role, tmp));
        }
        Ok(staged)
    }
}

impl Drop for StagedTest {
    fn drop(&mut self) {
        for (_, tmp) in self.files.drain(..) {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// The error kind and the `.err` report of an error's test.
fn err_report(test: &StoredTest) -> Option<(&str, Vec<u8>)> {
    let StoredOutcome::Error {
        kind,
        message,
        file,
        line,
        stack,
    } = &test.outcome
    else {
        return None;
    };
    let mut text = String::new();
    let _ = writeln!(text, "Error: {message}");
    let _ = writeln!(text, "Kind: {kind}");
    if *line != 0 || !file.is_empty() {
        let _ = writeln!(text, "File: {file}");
        let _ = writeln!(text, "Line: {line}");
    }
    let _ = writeln!(text, "Stack:");
    for (i, (function, at)) in stack.iter().enumerate() {
        let _ = writeln!(text, "  #{i} {function} at {at}");
    }
    Some((kind, text.into_bytes()))
}
