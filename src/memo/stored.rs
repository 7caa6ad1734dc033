//! A test as the trie keeps it: enough to write its ktest, `.err` report
//! and `tests.json` entry again without running the path.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::exec::{EarlyReason, Executor, PathEnd};
use crate::search::FinishedPath;

/// A test's symbolic inputs in creation order: each one's name and bytes.
///
/// A deep run's trie holds a test in every leaf, and most of what those
/// tests hold is the same from one to the next: the same names in the
/// same order, and the same long inputs (a file's status, an untouched
/// `--sym-stdout` buffer of 1024 zeros). On echo under KLEE's coreutils
/// options, 192,737 tests with a copy of each took 324 MiB, about 1,760
/// bytes each, and stopped the run at `--max-memory` after 16 s. So the
/// names and lengths (the layout) are kept once for all the tests that
/// share them, and so is each distinct long input; a test holds its short
/// inputs' bytes in one block and a reference to each long one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inputs {
    layout: Arc<Layout>,
    /// The bytes of the inputs of at most [`SHARED_FROM`] bytes, in order.
    short: Box<[u8]>,
    /// The longer inputs, in order.
    long: Box<[Arc<[u8]>]>,
}

/// Inputs longer than this are kept once for every test that has them;
/// shorter ones are copied into each test, where a reference and the
/// table entry would take more than the bytes.
const SHARED_FROM: usize = 32;

/// The names and lengths of a test's inputs, in creation order.
#[derive(Debug, Default, PartialEq, Eq, Hash)]
struct Layout(Box<[(Arc<str>, u32)]>);

impl Inputs {
    /// Each input's name and bytes, in creation order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&Arc<str>, &[u8])> {
        let (mut short, mut long) = (0, 0);
        self.layout.0.iter().map(move |(name, len)| {
            let len = *len as usize;
            let bytes = if len > SHARED_FROM {
                long += 1;
                &self.long[long - 1][..]
            } else {
                short += len;
                &self.short[short - len..short]
            };
            (name, bytes)
        })
    }

    /// How many inputs there are.
    pub fn len(&self) -> usize {
        self.layout.0.len()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.layout.0.is_empty()
    }
}

impl Default for Inputs {
    fn default() -> Self {
        Inputs::from_iter(std::iter::empty::<(Arc<str>, &[u8])>())
    }
}

impl<B: AsRef<[u8]>> FromIterator<(Arc<str>, B)> for Inputs {
    fn from_iter<I: IntoIterator<Item = (Arc<str>, B)>>(inputs: I) -> Self {
        let mut layout = Vec::new();
        let mut short = Vec::new();
        let mut long = Vec::new();
        for (name, b) in inputs {
            let b = b.as_ref();
            // No input of mnemo reaches 4 GiB (`Array::constant` cuts there).
            let b = &b[..b.len().min(u32::MAX as usize)];
            if b.len() > SHARED_FROM {
                long.push(shared::bytes(b));
            } else {
                short.extend_from_slice(b);
            }
            layout.push((name, b.len() as u32));
        }
        Inputs {
            layout: shared::layout(Layout(layout.into())),
            short: short.into(),
            long: long.into(),
        }
    }
}

/// The tables that hold what tests share. An entry that only its table
/// holds any more is dropped when the table has doubled since it was last
/// swept, which keeps a table within twice what the live tests use.
mod shared {
    use std::cell::RefCell;
    use std::collections::HashSet;
    use std::hash::{BuildHasher, Hash};
    use std::sync::{Arc, OnceLock};

    use crossbeam_utils::CachePadded;
    use parking_lot::Mutex;
    use rustc_hash::FxBuildHasher;

    use super::Layout;

    /// A set that sweeps out what only it still holds.
    struct Table<T: ?Sized> {
        set: HashSet<Arc<T>, FxBuildHasher>,
        sweep_at: usize,
    }

    const MIN_SWEEP: usize = 1024;

    impl<T: ?Sized + Hash + Eq> Table<T> {
        fn new() -> Self {
            Table {
                set: HashSet::default(),
                sweep_at: MIN_SWEEP,
            }
        }

        fn get_or_insert(&mut self, key: &T, make: impl FnOnce() -> Arc<T>) -> Arc<T> {
            if let Some(a) = self.set.get(key) {
                return a.clone();
            }
            if self.set.len() >= self.sweep_at {
                self.set.retain(|a| Arc::strong_count(a) > 1);
                self.sweep_at = (self.set.len() * 2).max(MIN_SWEEP);
            }
            let a = make();
            self.set.insert(a.clone());
            a
        }
    }

    /// Workers end paths all the time; a table each would be looked up
    /// under one lock.
    const SHARDS: usize = 64;

    /// The one shared copy of these bytes.
    pub(super) fn bytes(b: &[u8]) -> Arc<[u8]> {
        type Shards = [CachePadded<Mutex<Table<[u8]>>>; SHARDS];
        static TABLES: OnceLock<Shards> = OnceLock::new();
        let tables = TABLES
            .get_or_init(|| std::array::from_fn(|_| CachePadded::new(Mutex::new(Table::new()))));
        let shard = FxBuildHasher.hash_one(b) as usize % SHARDS;
        tables[shard].lock().get_or_insert(b, || Arc::from(b))
    }

    /// The one shared copy of this layout. A thread's paths mostly have the
    /// layout its last path had, so that one is looked at first, without
    /// a lock.
    pub(super) fn layout(layout: Layout) -> Arc<Layout> {
        thread_local! {
            static LAST: RefCell<Option<Arc<Layout>>> = const { RefCell::new(None) };
        }
        static TABLE: OnceLock<Mutex<Table<Layout>>> = OnceLock::new();
        LAST.with(|last| {
            let mut last = last.borrow_mut();
            if let Some(l) = last.as_ref().filter(|l| ***l == layout) {
                return l.clone();
            }
            let l = TABLE
                .get_or_init(|| Mutex::new(Table::new()))
                .lock()
                .get_or_insert(&layout, || Arc::new(Layout(layout.0.clone())));
            *last = Some(l.clone());
            l
        })
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
    /// Boxed: most stored tests are of paths that exited or stopped
    /// early, and each would otherwise be as large as an error's.
    Error(Box<StoredError>),
    Early {
        reason: String,
    },
    /// Killed by a signal it sent itself (ended early, `signalled`).
    /// Last, so that trie files written before it read as before.
    Signalled {
        signal: u8,
    },
}

/// What a stored test of a failed path reports. Written as the fields of
/// the variant it once was, so trie files and JSON read as before.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredError {
    pub kind: String,
    pub message: String,
    /// Source file and line of the faulting instruction (empty, 0 when unknown).
    pub file: String,
    pub line: u32,
    /// `(function, location)` of each frame, innermost first.
    pub stack: Vec<(String, String)>,
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
                StoredOutcome::Error(Box::new(StoredError {
                    kind: e.kind.to_string(),
                    message: e.message.clone(),
                    file,
                    line,
                    stack: e
                        .stack
                        .iter()
                        .map(|f| (f.function.clone(), module.describe_loc(f.loc)))
                        .collect(),
                }))
            }
            PathEnd::Early(EarlyReason::Signalled(signal)) => {
                StoredOutcome::Signalled { signal: *signal }
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

    use super::{Inputs, StoredError, StoredOutcome, StoredTest};
    use crate::memo::file::codec;

    /// What `StoredTest` derived before its bytes were written at once.
    #[derive(Serialize, Deserialize)]
    struct Plain {
        inputs: Vec<(String, Vec<u8>)>,
        outcome: PlainOutcome,
        stdout: Option<Vec<u8>>,
    }

    /// `StoredOutcome` before its error was boxed.
    #[derive(Serialize, Deserialize)]
    enum PlainOutcome {
        Exit {
            code: u8,
        },
        Error {
            kind: String,
            message: String,
            file: String,
            line: u32,
            stack: Vec<(String, String)>,
        },
        Early {
            reason: String,
        },
        Signalled {
            signal: u8,
        },
    }

    impl From<&StoredOutcome> for PlainOutcome {
        fn from(o: &StoredOutcome) -> Self {
            match o.clone() {
                StoredOutcome::Exit { code } => PlainOutcome::Exit { code },
                StoredOutcome::Error(e) => PlainOutcome::Error {
                    kind: e.kind,
                    message: e.message,
                    file: e.file,
                    line: e.line,
                    stack: e.stack,
                },
                StoredOutcome::Early { reason } => PlainOutcome::Early { reason },
                StoredOutcome::Signalled { signal } => PlainOutcome::Signalled { signal },
            }
        }
    }

    /// Inputs of every length read back as they were given, and tests
    /// with the same names or the same long input hold one copy of it.
    #[test]
    fn tests_share_their_layout_and_long_inputs() {
        use std::sync::Arc;
        let given = |fill: u8| -> Vec<(Arc<str>, Vec<u8>)> {
            [0usize, 1, 31, 32, 33, 1024]
                .iter()
                .map(|&n| (Arc::from(format!("in{n}")), vec![fill; n]))
                .collect()
        };
        let a: Inputs = given(7).into_iter().collect();
        let b: Inputs = given(7).into_iter().collect();
        let c: Inputs = given(9).into_iter().collect();
        for (inputs, fill) in [(&a, 7), (&c, 9)] {
            let read: Vec<(String, Vec<u8>)> = inputs
                .iter()
                .map(|(n, b)| (n.to_string(), b.to_vec()))
                .collect();
            let expected: Vec<(String, Vec<u8>)> = given(fill)
                .into_iter()
                .map(|(n, b)| (n.to_string(), b))
                .collect();
            assert_eq!(read, expected);
        }
        assert!(Arc::ptr_eq(&a.layout, &b.layout) && Arc::ptr_eq(&a.layout, &c.layout));
        // Only the inputs longer than 32 bytes are shared.
        assert_eq!(a.long.len(), 2);
        assert!(a.long.iter().zip(&b.long).all(|(x, y)| Arc::ptr_eq(x, y)));
        assert!(a.long.iter().zip(&c.long).all(|(x, y)| !Arc::ptr_eq(x, y)));
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(Inputs::default().is_empty());
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
            StoredTest {
                inputs: Inputs::default(),
                outcome: StoredOutcome::Signalled { signal: 15 },
                stdout: Some(Vec::new()),
            },
            StoredTest {
                inputs: [("x".into(), vec![0])].into_iter().collect(),
                outcome: StoredOutcome::Error(Box::new(StoredError {
                    kind: "assert".into(),
                    message: "x != 0".into(),
                    file: "f.c".into(),
                    line: 9,
                    stack: vec![("main".into(), "f.c:9".into())],
                })),
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
                outcome: PlainOutcome::from(&t.outcome),
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
