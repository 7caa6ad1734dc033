//! Writes what a run found: a ktest per path, an `.err` report per error
//! path, `tests.json` with each test's predicted outcome, and the path counts
//! that go into `stats.json`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::ktest::{KTest, KTestObject};
use super::replay::{Outcome, TestRecord, TestsJson};
use crate::memo::{StoredOutcome, StoredTest};
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

    /// Like [`TestWriter::create`], but a directory holding an earlier run's
    /// results (a `tests.json`) is emptied of them first: a resumed run
    /// writes them all again, from its trie and from the paths it finishes.
    pub fn replace(dir: &Path, program: &str, args: Vec<String>) -> anyhow::Result<TestWriter> {
        if dir.join("tests.json").is_file() {
            let entries = std::fs::read_dir(dir)
                .with_context(|| format!("cannot read output directory {}", dir.display()))?;
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let ours = (name.starts_with("test")
                    && (name.ends_with(".ktest") || name.ends_with(".err")))
                    || name == "tests.json"
                    || name == "stats.json";
                if ours {
                    std::fs::remove_file(e.path())
                        .with_context(|| format!("cannot remove {}", e.path().display()))?;
                }
            }
        }
        TestWriter::create(dir, program, args)
    }

    /// Counts a path that ended early for `reason` and got no test (see
    /// `paths.untested`).
    pub fn count_untested(&mut self, reason: &str) {
        self.paths.untested += 1;
        *self.paths.early.entry(reason.to_string()).or_default() += 1;
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

    fn write_err(&self, id: usize, test: &StoredTest) -> anyhow::Result<()> {
        let StoredOutcome::Error {
            kind,
            message,
            file,
            line,
            stack,
        } = &test.outcome
        else {
            return Ok(());
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
        let path = self.dir.join(err_name(id, kind));
        crate::files::write_atomic(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Numbers the tests written so far anew: `order[k]` is the index, in
    /// the order they were written, of the test that becomes number
    /// `k + 1`. Files move along each cycle of the permutation, with one
    /// file of the cycle under a temporary name at a time, so a run killed
    /// meanwhile loses no test.
    pub fn renumber(&mut self, order: &[usize]) -> anyhow::Result<()> {
        if order.len() != self.records.len() || order.iter().enumerate().all(|(k, &i)| k == i) {
            return Ok(());
        }
        // `to[i]`: the new index of the test written `i`-th.
        let mut to = vec![usize::MAX; order.len()];
        for (k, &i) in order.iter().enumerate() {
            to[i] = k;
        }
        let mut done = vec![false; order.len()];
        for start in 0..order.len() {
            if done[start] || to[start] == start {
                done[start] = true;
                continue;
            }
            // The cycle start -> to[start] -> ... -> start: park the start's
            // files, fill its slot from the test that goes there, and so on
            // back round.
            let parked = self.park(start)?;
            let mut slot = start;
            loop {
                let from = order[slot];
                done[slot] = true;
                if from == start {
                    self.unpark(&parked, start, slot)?;
                    break;
                }
                self.move_files(from, slot)?;
                slot = from;
            }
        }
        let old = std::mem::take(&mut self.records);
        self.records = order
            .iter()
            .enumerate()
            .map(|(k, &i)| TestRecord {
                id: k as u32 + 1,
                ktest: test_name(k + 1),
                outcome: old[i].outcome.clone(),
            })
            .collect();
        Ok(())
    }

    /// The files of the test written `i`-th: its ktest and its `.err`
    /// report, if it has one.
    fn files_of(&self, i: usize, number: usize) -> Vec<PathBuf> {
        let mut files = vec![self.dir.join(test_name(number))];
        if let Outcome::Error { kind, .. } = &self.records[i].outcome {
            files.push(self.dir.join(err_name(number, kind)));
        }
        files
    }

    fn rename(from: &Path, to: &Path) -> anyhow::Result<()> {
        std::fs::rename(from, to)
            .with_context(|| format!("cannot rename {} to {}", from.display(), to.display()))
    }

    /// Moves the files of test `i` (still under its number `i + 1`) to
    /// temporary names.
    fn park(&self, i: usize) -> anyhow::Result<Vec<(PathBuf, PathBuf)>> {
        let mut parked = Vec::new();
        for f in self.files_of(i, i + 1) {
            let mut tmp = f.clone().into_os_string();
            tmp.push(".renumbering");
            let tmp = PathBuf::from(tmp);
            Self::rename(&f, &tmp)?;
            parked.push((f, tmp));
        }
        Ok(parked)
    }

    /// Gives the parked files of test `start` the number `slot + 1`.
    fn unpark(
        &self,
        parked: &[(PathBuf, PathBuf)],
        start: usize,
        slot: usize,
    ) -> anyhow::Result<()> {
        let targets = self.files_of(start, slot + 1);
        for ((_, tmp), target) in parked.iter().zip(targets) {
            Self::rename(tmp, &target)?;
        }
        Ok(())
    }

    /// Gives the files of test `from` (under its number `from + 1`) the
    /// number `slot + 1`.
    fn move_files(&self, from: usize, slot: usize) -> anyhow::Result<()> {
        for (f, t) in self
            .files_of(from, from + 1)
            .into_iter()
            .zip(self.files_of(from, slot + 1))
        {
            Self::rename(&f, &t)?;
        }
        Ok(())
    }

    /// Writes one test: its ktest, its `.err` report for an error, and its
    /// entry for `tests.json`; counts its path.
    pub fn write(&mut self, test: &StoredTest) -> anyhow::Result<()> {
        let outcome = match &test.outcome {
            StoredOutcome::Exit { code } => {
                self.paths.completed += 1;
                Outcome::Exit { exit_code: *code }
            }
            StoredOutcome::Error {
                kind,
                message,
                file,
                line,
                ..
            } => {
                *self.paths.errors.entry(kind.clone()).or_default() += 1;
                Outcome::Error {
                    kind: kind.clone(),
                    file: file.clone(),
                    line: *line,
                    message: message.clone(),
                }
            }
            StoredOutcome::Early { reason } => {
                *self.paths.early.entry(reason.clone()).or_default() += 1;
                Outcome::Early {
                    reason: reason.clone(),
                }
            }
        };
        let id = self.records.len() + 1;
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
        let name = test_name(id);
        let kpath = self.dir.join(&name);
        ktest
            .write_atomic(&kpath)
            .with_context(|| format!("cannot write {}", kpath.display()))?;
        self.write_err(id, test)?;
        self.records.push(TestRecord {
            id: id as u32,
            ktest: name,
            outcome,
        });
        Ok(())
    }
}

/// The ktest file of test number `id`.
fn test_name(id: usize) -> String {
    format!("test{id:06}.ktest")
}

/// The error report of test number `id`.
fn err_name(id: usize, kind: &str) -> String {
    format!("test{id:06}.{kind}.err")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(tag: u8, error: bool) -> StoredTest {
        StoredTest {
            inputs: vec![("x".to_string(), vec![tag])],
            outcome: if error {
                StoredOutcome::Error {
                    kind: "assert".into(),
                    message: format!("failed {tag}"),
                    file: String::new(),
                    line: 0,
                    stack: Vec::new(),
                }
            } else {
                StoredOutcome::Exit { code: tag }
            },
        }
    }

    #[test]
    fn renumbering_moves_every_file_with_its_test() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut w = TestWriter::create(dir.path(), "p", Vec::new()).expect("writer");
        // Tags 0..5 written in this order; 1 and 3 are errors.
        for tag in 0..5u8 {
            w.write(&test(tag, tag % 2 == 1)).expect("write");
        }
        // Numbers 1..5 go to the tests written 3rd, 1st, 5th, 2nd, 4th:
        // the cycle 0 -> 1 -> 3 -> 4 -> 2 -> 0 over the slots.
        let order = [2, 0, 4, 1, 3];
        w.renumber(&order).expect("renumber");
        for (k, &i) in order.iter().enumerate() {
            let k = KTest::read(&dir.path().join(test_name(k + 1))).expect("ktest");
            assert_eq!(k.objects[0].bytes, vec![i as u8]);
        }
        let mut names: Vec<String> = std::fs::read_dir(dir.path())
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        // The errors (tags 1 and 3) are now tests 4 and 5.
        let mut expect: Vec<String> = (1..=5).map(test_name).collect();
        expect.extend([err_name(4, "assert"), err_name(5, "assert")]);
        expect.sort();
        assert_eq!(names, expect);
        let err = std::fs::read_to_string(dir.path().join(err_name(5, "assert"))).expect("err");
        assert!(err.contains("failed 3"), "{err}");
        assert_eq!(w.records[3].id, 4);
        assert!(matches!(
            w.records[0].outcome,
            Outcome::Exit { exit_code: 2 }
        ));
    }
}
