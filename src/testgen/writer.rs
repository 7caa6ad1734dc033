//! Writes what a run found: a ktest per path, an `.err` report per error
//! path, a `.stdout` per completed path (the bytes it wrote to stdout under
//! the test's inputs, which a native run with them prints), `tests.json`
//! with each test's predicted outcome, and the path counts that go into
//! `stats.json`.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::Context;

use super::index::{write_index, Outcome, TestRecord, TESTS_JSON, TESTS_JSON_VERSION};
use super::stage::{PathFiles, Role, StagedTest, Stager};
use crate::exec::EarlyReason;
use crate::memo::{StoredOutcome, StoredTest};
use crate::stats::PathStats;

/// The files a written test has besides its ktest and its `.err` report.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Extras {
    /// What a completed path wrote to stdout.
    pub stdout: bool,
    /// Its path condition (`--write-smt2s`).
    pub condition: bool,
    /// The source lines its path executed (`--write-cov`).
    pub coverage: bool,
}

/// The observer that turns ended paths into files in the output directory.
pub struct TestWriter {
    /// The output directory and the program's arguments.
    pub(super) stager: Stager,
    program: String,
    pub(super) records: Vec<TestRecord>,
    /// Which files each test written has besides its ktest and its
    /// report (in the order of `records`).
    pub(super) extras: Vec<Extras>,
    pub paths: PathStats,
    /// Test files of an earlier run in the directory, by test number, not
    /// yet written over by this run's.
    leftovers: BTreeMap<usize, Vec<String>>,
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
        Ok(TestWriter::new(dir, program, args, BTreeMap::new()))
    }

    fn new(
        dir: &Path,
        program: &str,
        args: Vec<String>,
        leftovers: BTreeMap<usize, Vec<String>>,
    ) -> TestWriter {
        TestWriter {
            stager: Stager {
                dir: dir.to_path_buf(),
                args,
                numbered: Default::default(),
                error_sites: Default::default(),
            },
            program: program.to_string(),
            records: Vec::new(),
            extras: Vec::new(),
            paths: PathStats::default(),
            leftovers,
        }
    }

    /// Like [`TestWriter::create`], but `dir` may hold the results of the
    /// run being resumed (and nothing else): a resumed run writes them all
    /// again, from its trie and from the paths it finishes. Nothing is
    /// removed first, so that a resumed run killed early leaves a directory
    /// that can be resumed again: each test is written over the earlier
    /// test of its number, `tests.json` and `stats.json` are replaced
    /// whole, and the earlier tests past this run's last are removed at its
    /// end.
    pub fn resume(dir: &Path, program: &str, args: Vec<String>) -> anyhow::Result<TestWriter> {
        if !dir.exists() {
            return TestWriter::create(dir, program, args);
        }
        let entries = std::fs::read_dir(dir)
            .with_context(|| format!("cannot read output directory {}", dir.display()))?;
        let mut leftovers: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for e in entries {
            let e = e.with_context(|| format!("cannot read output directory {}", dir.display()))?;
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(id) = test_number(&name) {
                leftovers.entry(id).or_default().push(name);
            } else if !is_results_file(&name) && !is_temporary(&name) {
                anyhow::bail!(
                    "output directory {} holds {name}, which no run wrote; name the stopped run's output directory or an empty one",
                    dir.display()
                );
            }
        }
        // Of a process killed while writing them.
        crate::files::remove_dead_temporaries(dir, |name| {
            test_number(name).is_some() || is_results_file(name)
        })
        .with_context(|| format!("cannot clean up output directory {}", dir.display()))?;
        Ok(TestWriter::new(dir, program, args, leftovers))
    }

    /// Counts a path that ended early for `reason` and got no test (see
    /// `paths.untested`).
    pub fn count_untested(&mut self, reason: &str) {
        self.paths.untested += 1;
        *self.paths.early.entry(reason.to_string()).or_default() += 1;
    }

    /// Counts a path that ended following a seed (`paths.seeded`).
    pub fn count_seeded(&mut self) {
        self.paths.seeded += 1;
    }

    /// Counts a path with this outcome in `paths`; returns its entry's
    /// outcome for `tests.json`.
    fn count(&mut self, outcome: &StoredOutcome) -> Outcome {
        match outcome {
            StoredOutcome::Exit { code } => {
                self.paths.completed += 1;
                Outcome::Exit { exit_code: *code }
            }
            StoredOutcome::Error(e) => {
                *self.paths.errors.entry(e.kind.clone()).or_default() += 1;
                Outcome::Error {
                    kind: e.kind.clone(),
                    file: e.file.clone(),
                    line: e.line,
                    message: e.message.clone(),
                }
            }
            StoredOutcome::Early { reason } => {
                *self.paths.early.entry(reason.clone()).or_default() += 1;
                Outcome::Early {
                    reason: reason.clone(),
                    signal: None,
                }
            }
            StoredOutcome::Signalled { signal } => {
                let reason = EarlyReason::Signalled(*signal).as_str();
                *self.paths.early.entry(reason.to_string()).or_default() += 1;
                Outcome::Early {
                    reason: reason.to_string(),
                    signal: Some(*signal),
                }
            }
        }
    }

    /// Counts a path whose test the run keeps in its trie but writes no
    /// file for (`--only-new-coverage`, see `paths.unwritten`).
    pub fn count_unwritten(&mut self, test: &StoredTest) {
        self.count(&test.outcome);
        self.paths.unwritten += 1;
    }

    pub fn tests(&self) -> u64 {
        self.records.len() as u64
    }

    /// Writes `tests.json` for the tests written so far (at a checkpoint),
    /// by number: parallel workers list them in another order than they
    /// took their numbers.
    pub fn write_index(&self) -> anyhow::Result<()> {
        let mut tests: Vec<&TestRecord> = self.records.iter().collect();
        tests.sort_unstable_by_key(|t| t.id);
        let path = self.stager.dir.join(TESTS_JSON);
        write_index(&path, TESTS_JSON_VERSION, &self.program, &tests)
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// Writes `tests.json` and removes what is left of an earlier run's
    /// tests; called at the end of the run.
    pub fn finish(&mut self) -> anyhow::Result<()> {
        self.write_index()?;
        for (_, names) in std::mem::take(&mut self.leftovers) {
            for name in names {
                self.remove_leftover(&name)?;
            }
        }
        Ok(())
    }

    /// Makes number `id` this run's, its files `names`: an earlier run's
    /// file of the number that this one did not replace (another kind of
    /// report, or none) would be taken for this test's.
    pub(super) fn claim_number(&mut self, id: usize, names: &[String]) -> anyhow::Result<()> {
        for earlier in self.leftovers.remove(&id).unwrap_or_default() {
            if !names.contains(&earlier) {
                self.remove_leftover(&earlier)?;
            }
        }
        Ok(())
    }

    fn remove_leftover(&self, name: &str) -> anyhow::Result<()> {
        let path = self.stager.dir.join(name);
        match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("cannot remove {}", path.display()))
            }
            _ => Ok(()),
        }
    }

    /// Writes one test: its ktest, its `.err` report for an error, or its
    /// `.stdout`, and its entry for `tests.json`; counts its path.
    pub fn write(&mut self, test: &StoredTest) -> anyhow::Result<()> {
        let staged = self.stager.stage(test.clone(), PathFiles::default())?;
        self.commit(staged).map(drop)
    }

    /// What a parallel worker writes its tests' files with before it takes
    /// the writer (see [`StagedTest`]).
    pub fn stager(&self) -> &Stager {
        &self.stager
    }

    /// Lists a staged test under its number in `tests.json` and counts
    /// it. Returns the test.
    pub fn commit(&mut self, mut staged: StagedTest) -> anyhow::Result<StoredTest> {
        let id = staged.number;
        let extras = Extras {
            stdout: staged.files.iter().any(|(r, _)| *r == Role::Stdout),
            condition: staged.files.iter().any(|(r, _)| *r == Role::Condition),
            coverage: staged.files.iter().any(|(r, _)| *r == Role::Coverage),
        };
        let names: Vec<String> = staged
            .files
            .drain(..)
            .map(|(role, _)| role.name(id))
            .collect();
        let test = staged
            .test
            .take()
            .expect("a staged test holds its test until it is committed");
        let outcome = self.count(&test.outcome);
        self.claim_number(id, &names)?;
        self.extras.push(extras);
        self.records.push(TestRecord {
            id: id as u32,
            ktest: test_name(id),
            outcome,
        });
        Ok(test)
    }
}

/// The number of a test file (`test000042.ktest`, `test000042.assert.err`).
pub(super) fn test_number(name: &str) -> Option<usize> {
    let rest = name.strip_prefix("test")?;
    let digits = rest.find(|c: char| !c.is_ascii_digit())?;
    let (number, kind) = rest.split_at(digits);
    let ours = kind == ".ktest"
        || kind == ".stdout"
        || kind == ".smt2"
        || kind == ".cov"
        || kind
            .strip_prefix('.')
            .and_then(|k| k.strip_suffix(".err"))
            .is_some_and(|k| !k.is_empty() && !k.contains('.'));
    if number.len() < 6 || !ours {
        return None;
    }
    number.parse().ok()
}

/// `tests.json` and `stats.json`.
fn is_results_file(name: &str) -> bool {
    name == "tests.json" || name == "stats.json"
}

/// A temporary file of an atomic write of one of a run's files (see
/// [`crate::files::write_atomic`]), which a killed run may leave.
pub(super) fn is_temporary(name: &str) -> bool {
    crate::files::temporary_of(name)
        .is_some_and(|(of, _)| test_number(of).is_some() || is_results_file(of))
}

/// The ktest file of test number `id`.
pub(super) fn test_name(id: usize) -> String {
    format!("test{id:06}.ktest")
}

/// The error report of test number `id`.
pub(super) fn err_name(id: usize, kind: &str) -> String {
    format!("test{id:06}.{kind}.err")
}

/// The path condition of test number `id`, in SMT-LIB 2.
pub(super) fn condition_name(id: usize) -> String {
    format!("test{id:06}.smt2")
}

/// The source lines test number `id`'s path executed.
pub(super) fn coverage_name(id: usize) -> String {
    format!("test{id:06}.cov")
}

/// What completed test number `id` wrote to stdout.
pub fn stdout_name(id: usize) -> String {
    format!("test{id:06}.stdout")
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::memo::StoredError;
    use crate::testgen::{KTest, TestsJson};

    /// The bytes of `t`'s first input.
    fn first_input(t: &StoredTest) -> Vec<u8> {
        t.inputs
            .iter()
            .next()
            .map(|(_, b)| b.to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn test_files_are_told_from_others_by_name() {
        assert_eq!(test_number("test000042.ktest"), Some(42));
        assert_eq!(test_number("test000042.div-by-zero.err"), Some(42));
        assert_eq!(test_number("test000042.stdout"), Some(42));
        assert_eq!(test_number("test000042.smt2"), Some(42));
        assert_eq!(test_number("test000042.cov"), Some(42));
        assert_eq!(test_number("test1234567.ktest"), Some(1234567));
        for other in [
            "test42.ktest",
            "test000042.ktest.bak",
            "test000042..err",
            "test000042.a.b.err",
            "test000042.smt",
            "testing.ktest",
            "notes.txt",
        ] {
            assert_eq!(test_number(other), None, "{other}");
        }
    }

    fn stored(code: u8) -> StoredTest {
        StoredTest {
            inputs: [("x".into(), vec![code])].into_iter().collect(),
            outcome: StoredOutcome::Exit { code },
            stdout: Some(vec![b'0' + code]),
        }
    }

    fn error() -> StoredTest {
        StoredTest {
            inputs: [("x".into(), vec![9])].into_iter().collect(),
            outcome: StoredOutcome::Error(Box::new(StoredError {
                kind: "assert".into(),
                message: "m".into(),
                file: "f.c".into(),
                line: 3,
                stack: Vec::new(),
            })),
            stdout: None,
        }
    }

    pub(in crate::testgen) fn test(tag: u8, error: bool) -> StoredTest {
        StoredTest {
            inputs: [("x".into(), vec![tag])].into_iter().collect(),
            outcome: if error {
                StoredOutcome::Error(Box::new(StoredError {
                    kind: "assert".into(),
                    message: format!("failed {tag}"),
                    file: String::new(),
                    line: 0,
                    stack: Vec::new(),
                }))
            } else {
                StoredOutcome::Exit { code: tag }
            },
            stdout: (!error).then(|| vec![tag]),
        }
    }

    pub(in crate::testgen) fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .expect("dir")
            .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn staged_tests_keep_their_numbers_and_are_listed_by_number() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("out");
        let mut w = TestWriter::create(&dir, "p", Vec::new()).expect("create");
        let first = w
            .stager()
            .clone()
            .stage(test(1, false), PathFiles::default())
            .expect("stage");
        let second = w
            .stager()
            .clone()
            .stage(test(2, true), PathFiles::default())
            .expect("stage");
        let files = [
            "test000001.ktest",
            "test000001.stdout",
            "test000002.assert.err",
            "test000002.ktest",
        ];
        // Staged, their files are in place, and no test is listed yet.
        assert_eq!(names(&dir), files);
        w.write_index().expect("index");
        let listed = TestsJson::read(&dir.join("tests.json")).expect("tests.json");
        assert!(listed.tests.is_empty());
        // Listed in another order than they were staged.
        assert_eq!(first_input(&w.commit(second).expect("commit")), [2]);
        w.write_index().expect("index");
        let listed = TestsJson::read(&dir.join("tests.json")).expect("tests.json");
        assert_eq!(listed.tests.len(), 1);
        assert_eq!(listed.tests[0].ktest, "test000002.ktest");
        assert_eq!(first_input(&w.commit(first).expect("commit")), [1]);
        w.finish().expect("finish");
        let mut all = files.to_vec();
        all.push("tests.json");
        assert_eq!(names(&dir), all);
        let listed = TestsJson::read(&dir.join("tests.json")).expect("tests.json");
        let ids: Vec<u32> = listed.tests.iter().map(|t| t.id).collect();
        assert_eq!(ids, [1, 2]);
        let k = KTest::read(&dir.join("test000002.ktest")).expect("ktest");
        assert_eq!(k.objects[0].bytes, vec![2]);
        assert_eq!(w.paths.completed, 1);
    }

    #[test]
    fn a_staged_test_never_committed_leaves_no_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("out");
        let w = TestWriter::create(&dir, "p", Vec::new()).expect("create");
        let staged = w
            .stager()
            .clone()
            .stage(error(), PathFiles::default())
            .expect("stage");
        assert_eq!(names(&dir).len(), 2);
        drop(staged);
        assert!(names(&dir).is_empty(), "{:?}", names(&dir));
    }

    #[test]
    fn a_resumed_run_writes_over_the_earlier_tests_and_removes_the_rest_at_its_end() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("out");
        let mut first = TestWriter::create(&dir, "p", Vec::new()).expect("create");
        for t in [stored(1), error(), stored(3)] {
            first.write(&t).expect("write");
        }
        first.finish().expect("finish");
        std::fs::write(dir.join("stats.json"), "{}").expect("stats");
        // A temporary of a write that a killed process left.
        std::fs::write(dir.join(".test000004.ktest.tmp.999999999.0"), "").expect("tmp");

        let mut again = TestWriter::resume(&dir, "p", Vec::new()).expect("resume");
        // Nothing is removed before it is replaced.
        assert!(dir.join("tests.json").exists() && dir.join("test000003.ktest").exists());
        assert!(!dir.join(".test000004.ktest.tmp.999999999.0").exists());
        again.write(&stored(5)).expect("write");
        again.write(&stored(6)).expect("write");
        // The error report of test 2 went with the test it described.
        assert!(!dir.join("test000002.assert.err").exists());
        again.finish().expect("finish");
        assert_eq!(
            names(&dir),
            [
                "stats.json",
                "test000001.ktest",
                "test000001.stdout",
                "test000002.ktest",
                "test000002.stdout",
                "tests.json"
            ]
        );
        let out = std::fs::read(dir.join("test000002.stdout")).expect("stdout");
        assert_eq!(out, b"6");
        let json = std::fs::read_to_string(dir.join("tests.json")).expect("tests.json");
        assert_eq!(json.matches("\"ktest\"").count(), 2, "{json}");
    }

    #[test]
    fn a_directory_holding_other_files_is_not_taken_over() {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::write(tmp.path().join("test000001.ktest"), "").expect("write");
        std::fs::write(tmp.path().join("notes.txt"), "mine").expect("write");
        let e = TestWriter::resume(tmp.path(), "p", Vec::new())
            .err()
            .expect("refused");
        assert!(e.to_string().contains("notes.txt"), "{e}");
        assert!(tmp.path().join("test000001.ktest").exists());
    }
}
