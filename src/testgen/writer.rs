//! Writes what a run found: a ktest per path, an `.err` report per error
//! path, `tests.json` with each test's predicted outcome, and the path counts
//! that go into `stats.json`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::ktest::{KTest, KTestObject};
use super::replay::{Outcome, TestRecord, TestsJson};
use crate::exec::{Executor, PathEnd, PathError};
use crate::ir::Module;
use crate::search::{FinishedPath, PathObserver};
use crate::stats::PathStats;

/// The observer that turns ended paths into files in the output directory.
pub struct TestWriter {
    dir: PathBuf,
    program: String,
    args: Vec<String>,
    records: Vec<TestRecord>,
    pub paths: PathStats,
}

impl TestWriter {
    /// Prepares `dir`, which must not exist or be empty, so no earlier
    /// run's results are mixed in or lost.
    pub fn create(dir: &Path, program: &str, args: Vec<String>) -> anyhow::Result<TestWriter> {
        if dir.exists() {
            let non_empty = std::fs::read_dir(dir)
                .with_context(|| format!("cannot read output directory {}", dir.display()))?
                .next()
                .is_some();
            if non_empty {
                anyhow::bail!(
                    "output directory {} already holds files; remove it or name another with --output-dir",
                    dir.display()
                );
            }
        }
        std::fs::create_dir_all(dir)
            .with_context(|| format!("cannot create output directory {}", dir.display()))?;
        Ok(TestWriter {
            dir: dir.to_path_buf(),
            program: program.to_string(),
            args,
            records: Vec::new(),
            paths: PathStats::default(),
        })
    }

    pub fn tests(&self) -> u64 {
        self.records.len() as u64
    }

    /// Writes `tests.json`; called at the end of the run.
    pub fn finish(&self) -> anyhow::Result<()> {
        let json = TestsJson {
            version: 1,
            program: self.program.clone(),
            tests: self.records.clone(),
        };
        let path = self.dir.join("tests.json");
        json.write_atomic(&path)
            .with_context(|| format!("cannot write {}", path.display()))
    }

    fn write_err(&self, module: &Module, id: usize, e: &PathError) -> anyhow::Result<()> {
        let mut text = String::new();
        let _ = writeln!(text, "Error: {}", e.message);
        let _ = writeln!(text, "Kind: {}", e.kind);
        if let Some(l) = e.loc {
            let _ = writeln!(text, "File: {}", module.files[l.file.index()]);
            let _ = writeln!(text, "Line: {}", l.line);
        }
        let _ = writeln!(text, "Stack:");
        for (i, f) in e.stack.iter().enumerate() {
            let _ = writeln!(
                text,
                "  #{i} {} at {}",
                f.function,
                module.describe_loc(f.loc)
            );
        }
        let path = self.dir.join(format!("test{id:06}.{}.err", e.kind));
        crate::files::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }
}

impl PathObserver for TestWriter {
    fn path_ended(&mut self, executor: &Executor, path: &FinishedPath<'_>) -> anyhow::Result<()> {
        let module = executor.module();
        let outcome = match path.end {
            PathEnd::Silent => return Ok(()),
            PathEnd::Completed { .. } => {
                self.paths.completed += 1;
                Outcome::Exit {
                    exit_code: path.exit_code.unwrap_or(0),
                }
            }
            PathEnd::Error(e) => {
                *self.paths.errors.entry(e.kind.to_string()).or_default() += 1;
                let (file, line) = match e.loc {
                    Some(l) => (module.files[l.file.index()].clone(), l.line),
                    None => (String::new(), 0),
                };
                Outcome::Error {
                    kind: e.kind.to_string(),
                    file,
                    line,
                    message: e.message.clone(),
                }
            }
            PathEnd::Early(reason) => {
                *self
                    .paths
                    .early
                    .entry(reason.as_str().to_string())
                    .or_default() += 1;
                Outcome::Early {
                    reason: reason.as_str().to_string(),
                }
            }
        };
        let id = self.records.len() + 1;
        let ktest = KTest {
            args: self.args.clone(),
            sym_argvs: 0,
            sym_argv_len: 0,
            objects: path
                .inputs
                .iter()
                .map(|(name, bytes)| KTestObject {
                    name: name.clone(),
                    bytes: bytes.clone(),
                })
                .collect(),
        };
        let name = format!("test{id:06}.ktest");
        let kpath = self.dir.join(&name);
        ktest
            .write_atomic(&kpath)
            .with_context(|| format!("cannot write {}", kpath.display()))?;
        if let PathEnd::Error(e) = path.end {
            self.write_err(module, id, e)?;
        }
        self.records.push(TestRecord {
            id: id as u32,
            ktest: name,
            outcome,
        });
        Ok(())
    }
}
