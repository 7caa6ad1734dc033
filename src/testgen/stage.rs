//! A test's files written before the writer is taken: parallel workers
//! share one writer, and writing files was most of what reporting a path
//! cost, so each worker takes its test's number from a shared counter and
//! writes the files under their names on its own (each atomically). The
//! writer, held, only lists the test and counts it.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::Context;

use super::ktest::{KTest, KTestObject};
use super::writer::{condition_name, coverage_name, err_name, stdout_name, test_name};
use crate::memo::{StoredError, StoredOutcome, StoredTest};

/// What writing any test's files needs: the output directory, the
/// program's arguments and the last test number given out. Cloned into
/// each worker.
#[derive(Clone, Debug)]
pub struct Stager {
    pub(super) dir: PathBuf,
    pub(super) args: Vec<String>,
    pub(super) numbered: Arc<AtomicUsize>,
    /// The errors (kind, file, line) a test was written for so far, for
    /// `--emit-all-errors=false`.
    pub(super) error_sites: Arc<Mutex<HashSet<(String, String, u32)>>>,
}

/// Which of a test's files a staged file becomes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Role {
    Ktest,
    Err(String),
    Stdout,
    /// The path condition in SMT-LIB 2 (`--write-smt2s`).
    Condition,
    /// The source lines the path executed (`--write-cov`).
    Coverage,
}

/// What an explored path adds to its test's files, where the run asks for
/// it: its condition in SMT-LIB 2 and the source lines it executed, as
/// text. A test written from the trie has neither.
#[derive(Clone, Debug, Default)]
pub struct PathFiles {
    pub condition: Option<String>,
    pub coverage: Option<String>,
}

impl Role {
    /// The name of this file of test number `id`.
    pub(super) fn name(&self, id: usize) -> String {
        match self {
            Role::Ktest => test_name(id),
            Role::Err(kind) => err_name(id, kind),
            Role::Stdout => stdout_name(id),
            Role::Condition => condition_name(id),
            Role::Coverage => coverage_name(id),
        }
    }
}

/// A test whose files are written under its number, waiting to be listed
/// (`TestWriter::commit`). Dropped without being committed, it removes its
/// files.
pub struct StagedTest {
    pub(super) test: Option<StoredTest>,
    /// Its number; 0 for a test that gets no files.
    pub(super) number: usize,
    pub(super) files: Vec<(Role, PathBuf)>,
}

impl StagedTest {
    /// A test that gets no files (`--only-new-coverage`): the trie keeps
    /// it. Made before the writer is taken, as a staged test is.
    pub fn unwritten(test: StoredTest) -> StagedTest {
        StagedTest {
            test: Some(test),
            number: 0,
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
    /// The count of test numbers given out so far, as every copy of the
    /// stager adds to it.
    pub fn numbered(&self) -> Arc<AtomicUsize> {
        self.numbered.clone()
    }

    /// Whether `outcome` is an error no test written so far had at its
    /// place (its kind, file and line), as KLEE writes one test for each
    /// error and instruction unless asked for all; true for the outcomes
    /// of paths that did not fail. Noted, so that the next such is not.
    pub fn first_error_at(&self, outcome: &StoredOutcome) -> bool {
        let StoredOutcome::Error(e) = outcome else {
            return true;
        };
        self.error_sites
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((e.kind.clone(), e.file.clone(), e.line))
    }

    /// Gives `test` the next number and writes its files (its ktest, and
    /// its `.err` report or its `.stdout`, and what `path` adds) under it.
    pub fn stage(&self, test: StoredTest, path: PathFiles) -> anyhow::Result<StagedTest> {
        let ktest = KTest {
            args: self.args.clone(),
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: test
                .inputs
                .iter()
                .map(|(name, bytes)| KTestObject {
                    name: name.to_string(),
                    bytes: bytes.to_vec(),
                })
                .collect(),
        };
        let mut contents = vec![(Role::Ktest, ktest.to_bytes())];
        if let Some((kind, text)) = err_report(&test) {
            contents.push((Role::Err(kind.to_string()), text));
        }
        if let Some(bytes) = &test.stdout {
            contents.push((Role::Stdout, bytes.clone()));
        }
        if let Some(text) = path.condition {
            contents.push((Role::Condition, text.into_bytes()));
        }
        if let Some(text) = path.coverage {
            contents.push((Role::Coverage, text.into_bytes()));
        }
        let number = self.numbered.fetch_add(1, Ordering::Relaxed) + 1;
        let mut staged = StagedTest {
            test: Some(test),
            number,
            files: Vec::with_capacity(contents.len()),
        };
        for (role, bytes) in contents {
            let path = self.dir.join(role.name(number));
            crate::files::write_atomic(&path, &bytes)
                .with_context(|| format!("cannot write {}", path.display()))?;
            staged.files.push((role, path));
        }
        Ok(staged)
    }
}

impl Drop for StagedTest {
    fn drop(&mut self) {
        for (_, path) in self.files.drain(..) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// The error kind and the `.err` report of an error's test.
fn err_report(test: &StoredTest) -> Option<(&str, Vec<u8>)> {
    let StoredOutcome::Error(e) = &test.outcome else {
        return None;
    };
    let StoredError {
        kind,
        message,
        file,
        line,
        stack,
    } = &**e;
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
