//! Recorded queries: a file of the queries a run asked, replayed by the
//! tests through every solver chain to check that each one answers as
//! fresh Z3 does.
//!
//! The file starts with [`MAGIC`]; each record is the number of
//! constraints (u32, little-endian), whether a model was wanted (u8), the
//! length of the encoding (u32) and the stable encoding
//! ([`crate::expr::serial`]) of the constraints followed by the condition.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::query::{Answer, Chain, Layer, Query};
use super::SolverError;
use crate::expr::serial::{self, Decoder};
use crate::expr::ExprRef;

/// The first bytes of a corpus file (they carry the format version).
pub const MAGIC: &[u8; 8] = b"MNEMOQC1";

/// Why a corpus could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    #[error("{path}: cannot read: {error}")]
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}: not a query corpus of this version (bad magic)")]
    Magic { path: PathBuf },
    #[error("{path}: record {record} at byte {offset}: {what}")]
    Record {
        path: PathBuf,
        record: usize,
        offset: usize,
        what: String,
    },
}

/// One recorded query.
#[derive(Clone, Debug)]
pub struct RecordedQuery {
    pub constraints: Vec<ExprRef>,
    pub expr: ExprRef,
    /// Whether the engine asked for a model (of every array the query
    /// reads, when replayed).
    pub wants_model: bool,
}

impl RecordedQuery {
    /// Asks `solver` this query as the engine asked it: with a model of
    /// every array it reads when the engine wanted a model.
    pub fn ask(&self, solver: &mut super::Solver) -> Result<Answer, SolverError> {
        let mut arrays = Vec::new();
        let mut all = self.constraints.clone();
        all.push(self.expr.clone());
        crate::expr::arrays_in_all(&all, &mut arrays);
        let query = Query::new(&self.constraints, self.expr.clone());
        if self.wants_model {
            solver.check(&query.with_model(&arrays))
        } else {
            solver.check(&query)
        }
    }
}

/// The first layer of a recording chain: writes every query to a file and
/// passes it on unchanged (`--record-queries FILE`).
///
/// Each query is one unbuffered append, so the corpus is whole whenever
/// the process ends (recording is a diagnostic aid; a write per query is
/// cheap beside the query).
pub struct Recorder {
    out: Option<File>,
    path: PathBuf,
}

impl Recorder {
    /// A recorder appending to the corpus at `path`, created if missing
    /// (so that the runs of several programs make one corpus).
    pub fn append(path: &Path) -> std::io::Result<Recorder> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        if file.metadata()?.len() == 0 {
            file.write_all(MAGIC)?;
        } else if std::fs::read(path)?.get(..MAGIC.len()) != Some(MAGIC.as_slice()) {
            return Err(std::io::Error::other(format!(
                "{} exists and is not a query corpus; not appending to it",
                path.display()
            )));
        }
        Ok(Recorder {
            out: Some(file),
            path: path.to_path_buf(),
        })
    }

    fn record(&mut self, q: &Query<'_>) {
        let Some(out) = self.out.as_mut() else {
            return;
        };
        let mut exprs = q.constraints.to_vec();
        exprs.push(q.expr.clone());
        let bytes = serial::encode(&exprs);
        let mut record = Vec::with_capacity(9 + bytes.len());
        record.extend_from_slice(&(q.constraints.len() as u32).to_le_bytes());
        record.push(q.wants_model() as u8);
        record.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        record.extend_from_slice(&bytes);
        if let Err(e) = out.write_all(&record) {
            // Recording is a diagnostic aid: losing it must not end the run.
            eprintln!(
                "mnemo: warning: cannot record queries to {}: {e}; recording stops",
                self.path.display()
            );
            self.out = None;
        }
    }
}

impl Layer for Recorder {
    fn name(&self) -> &'static str {
        "record"
    }

    fn check(&mut self, q: &Query<'_>, next: &mut Chain<'_>) -> Result<Answer, SolverError> {
        self.record(q);
        next.check(q)
    }
}

/// Reads a corpus file; arrays of the same name and size are one array
/// across all its queries, as they were in the run that recorded them.
pub fn read_corpus(path: &Path) -> Result<Vec<RecordedQuery>, CorpusError> {
    let bytes = std::fs::read(path).map_err(|error| CorpusError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let Some(mut rest) = bytes.strip_prefix(MAGIC.as_slice()) else {
        return Err(CorpusError::Magic {
            path: path.to_path_buf(),
        });
    };
    let mut decoder = Decoder::new();
    let mut out = Vec::new();
    while !rest.is_empty() {
        let offset = bytes.len() - rest.len();
        let bad = |what: String| CorpusError::Record {
            path: path.to_path_buf(),
            record: out.len(),
            offset,
            what,
        };
        if rest.len() < 9 {
            return Err(bad("truncated record header".to_string()));
        }
        let n = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        let wants_model = rest[4] != 0;
        let len = u32::from_le_bytes([rest[5], rest[6], rest[7], rest[8]]) as usize;
        let body = rest
            .get(9..9 + len)
            .ok_or_else(|| bad("truncated record".to_string()))?;
        let mut exprs = decoder.decode(body).map_err(|e| bad(e.to_string()))?;
        if exprs.len() != n + 1 || exprs.iter().any(|e| e.width() != 1) {
            return Err(bad(format!(
                "expected {} width-1 expressions, found {}",
                n + 1,
                exprs.len()
            )));
        }
        let expr = exprs.pop().expect("n + 1 >= 1 expressions");
        out.push(RecordedQuery {
            constraints: exprs,
            expr,
            wants_model,
        });
        rest = &rest[9 + len..];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{self, Array, UpdateList};
    use crate::solver::{Solver, SolverConfig};

    fn record_two(path: &Path) -> (ExprRef, ExprRef) {
        let x = Array::symbolic("corpus_x", 1);
        let b = expr::read(&UpdateList::new(x.clone()), &expr::constant(0, 64));
        let c = expr::ult(&b, &expr::constant(10, 8));
        let e = expr::eq(&b, &expr::constant(3, 8));
        let config = SolverConfig {
            record: Some(path.to_path_buf()),
            ..SolverConfig::default()
        };
        let mut s = Solver::new(config);
        assert!(s.may_be_true(std::slice::from_ref(&c), &e).unwrap());
        assert!(s
            .get_model(std::slice::from_ref(&c), &[x])
            .unwrap()
            .is_some());
        (c, e)
    }

    #[test]
    fn a_recorded_run_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.corpus");
        let (c, e) = record_two(&path);
        record_two(&path);
        let qs = read_corpus(&path).unwrap();
        assert_eq!(qs.len(), 4, "two runs append to one corpus");
        assert_eq!(qs[0].constraints.len(), 1);
        assert_eq!(qs[0].constraints[0].structural_hash(), c.structural_hash());
        assert_eq!(qs[0].expr.structural_hash(), e.structural_hash());
        assert!(!qs[0].wants_model && qs[1].wants_model);
        // One decoder for the file: the same array in every query.
        assert_eq!(qs[0].constraints[0], qs[2].constraints[0]);
    }

    #[test]
    fn damaged_corpora_are_reported_with_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("q.corpus");
        record_two(&path);
        let good = std::fs::read(&path).unwrap();
        std::fs::write(&path, &good[..good.len() - 3]).unwrap();
        let err = read_corpus(&path).unwrap_err().to_string();
        assert!(err.contains("record 1"), "{err}");
        std::fs::write(&path, b"something else").unwrap();
        assert!(matches!(read_corpus(&path), Err(CorpusError::Magic { .. })));
        // Never appended to: a file that is not a corpus stays as it was.
        assert!(Recorder::append(&path).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), b"something else");
    }
}
