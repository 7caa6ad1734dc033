//! The embedded persistent store: one SQLite file, safe under crashes
//! (SQLite's journal) and under several mnemo processes at once (WAL mode
//! and a busy timeout).
//!
//! A file that is not a mnemo store (not SQLite, another program's
//! database, another format version) is refused with a clear error and
//! left exactly as it was.

use super::{seal, unseal, Backend, Entries, StoreError};
use parking_lot::Mutex;
use rusqlite::{params, Connection, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Written into the `meta` table; another value means another program or
/// format.
const MAGIC: &str = "mnemo solver store";
const FORMAT: i64 = 1;

/// A [`Backend`] in one SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens the store at `path`, creating it (and its directory) if it does
    /// not exist.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        let io = |reason: String| StoreError::Io {
            store: format!("file {}", path.display()),
            reason,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| io(format!("cannot create {}: {e}", dir.display())))?;
        }
        // Processes opening a new file together contend for the locks that
        // set it up; SQLite reports some of those conflicts at once rather
        // than waiting, so the setup is tried again for a while.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            match Self::try_open(path) {
                Err(StoreError::Io { reason, .. })
                    if (reason.contains("locked") || reason.contains("busy"))
                        && std::time::Instant::now() < deadline =>
                {
                    std::thread::sleep(Duration::from_millis(10));
                }
                other => return other,
            }
        }
    }

    fn try_open(path: &Path) -> Result<Self, StoreError> {
        let describe = || format!("file {}", path.display());
        let io = |reason: String| StoreError::Io {
            store: describe(),
            reason,
        };
        let corrupt = |reason: String| StoreError::Corrupt {
            store: describe(),
            reason,
        };
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE
                | OpenFlags::SQLITE_OPEN_CREATE
                | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| io(e.to_string()))?;
        conn.busy_timeout(Duration::from_secs(10))
            .map_err(|e| io(e.to_string()))?;
        // Read before anything is written: a foreign file must stay intact.
        let tables: Vec<String> = conn
            .prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
            .and_then(|mut s| {
                s.query_map([], |r| r.get::<_, String>(0))?
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(|e| corrupt(e.to_string()))?;
        if tables.is_empty() {
            // Tables and meta in one transaction: another process opening
            // the new file at the same moment sees both or neither.
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(|e| io(e.to_string()))?;
            conn.execute_batch(&format!(
                "BEGIN IMMEDIATE;
                 CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                 CREATE TABLE IF NOT EXISTS entries (key BLOB PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
                 INSERT OR IGNORE INTO meta VALUES ('magic', '{MAGIC}'), ('format', {FORMAT});
                 COMMIT;"
            ))
            .map_err(|e| io(e.to_string()))?;
        } else if !tables.iter().any(|t| t == "meta") || !tables.iter().any(|t| t == "entries") {
            return Err(corrupt(format!(
                "an SQLite database of another program (tables: {})",
                tables.join(", ")
            )));
        } else {
            conn.pragma_update(None, "journal_mode", "WAL")
                .map_err(|e| io(e.to_string()))?;
        }
        let meta = |key: &str| -> Result<Option<rusqlite::types::Value>, StoreError> {
            conn.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                .optional()
                .map_err(|e| corrupt(e.to_string()))
        };
        use rusqlite::types::Value;
        if meta("magic")? != Some(Value::Text(MAGIC.to_string())) {
            return Err(corrupt("its meta table is not mnemo's".to_string()));
        }
        match meta("format")? {
            Some(Value::Integer(FORMAT)) => {}
            other => {
                return Err(corrupt(format!(
                    "format {other:?}, this mnemo reads format {FORMAT}"
                )))
            }
        }
        // In WAL mode NORMAL still never corrupts the file on a crash (the
        // last answers may be lost, which only costs a solver call later),
        // and it spares an fsync per answer.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| io(e.to_string()))?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
        })
    }

    fn error(&self, e: rusqlite::Error) -> StoreError {
        StoreError::Io {
            store: self.describe(),
            reason: e.to_string(),
        }
    }
}

impl Backend for SqliteStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let sealed: Option<Vec<u8>> = self
            .conn
            .lock()
            .prepare_cached("SELECT value FROM entries WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .map_err(|e| self.error(e))?;
        sealed.map(|s| unseal(self, key, &s)).transpose()
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.conn
            .lock()
            .prepare_cached("INSERT OR REPLACE INTO entries VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![key, seal(key, value)]))
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Entries, StoreError> {
        let rows: Vec<(Vec<u8>, Vec<u8>)> = {
            let conn = self.conn.lock();
            let mut s = conn
                .prepare_cached("SELECT key, value FROM entries WHERE key >= ?1 ORDER BY key")
                .map_err(|e| self.error(e))?;
            let mut out = Vec::new();
            let mut rows = s.query([prefix]).map_err(|e| self.error(e))?;
            while let Some(row) = rows.next().map_err(|e| self.error(e))? {
                let key: Vec<u8> = row.get(0).map_err(|e| self.error(e))?;
                if !key.starts_with(prefix) {
                    break;
                }
                out.push((key, row.get(1).map_err(|e| self.error(e))?));
            }
            out
        };
        // A damaged entry is left out (and reported once), not fatal.
        let mut out = Vec::with_capacity(rows.len());
        let mut damaged = 0;
        for (k, sealed) in rows {
            match unseal(self, &k, &sealed) {
                Ok(v) => out.push((k, v)),
                Err(_) => damaged += 1,
            }
        }
        if damaged > 0 {
            eprintln!(
                "mnemo: warning: {}: {damaged} damaged entries skipped",
                self.describe()
            );
        }
        Ok(out)
    }

    fn describe(&self) -> String {
        format!("file {}", self.path.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_persists() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a").join("store.db");
        super::super::tests::round_trips(&SqliteStore::open(&path).unwrap());
        let again = SqliteStore::open(&path).unwrap();
        assert_eq!(again.get(b"Ea").unwrap().as_deref(), Some(&b"two"[..]));
    }

    #[test]
    fn a_garbage_file_is_refused_and_left_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.db");
        let garbage: Vec<u8> = (0..5000u32).map(|i| (i * 7 + 3) as u8).collect();
        std::fs::write(&path, &garbage).unwrap();
        let err = SqliteStore::open(&path).err().unwrap();
        assert!(matches!(err, StoreError::Corrupt { .. }), "{err}");
        assert!(err.to_string().contains("store.db"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), garbage);
    }

    #[test]
    fn a_foreign_database_is_refused_and_left_intact() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("other.db");
        Connection::open(&path)
            .unwrap()
            .execute_batch("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        let err = SqliteStore::open(&path).err().unwrap();
        assert!(err.to_string().contains("another program"), "{err}");
        assert_eq!(std::fs::read(&path).unwrap(), before);
    }

    #[test]
    fn another_format_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        drop(SqliteStore::open(&path).unwrap());
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE meta SET value = 99 WHERE key = 'format'", [])
            .unwrap();
        let err = SqliteStore::open(&path).err().unwrap();
        assert!(err.to_string().contains("format"), "{err}");
    }

    #[test]
    fn a_damaged_entry_reads_as_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = SqliteStore::open(&path).unwrap();
        store.put(b"Ek", b"answer").unwrap();
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE entries SET value = X'00112233445566778899'", [])
            .unwrap();
        assert!(matches!(store.get(b"Ek"), Err(StoreError::Corrupt { .. })));
        assert!(store.scan_prefix(b"E").unwrap().is_empty());
    }

    #[test]
    fn two_processes_creating_one_file_at_once_both_succeed() {
        for round in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("s.db");
            let threads: Vec<_> = (0..3)
                .map(|_| {
                    let path = path.clone();
                    std::thread::spawn(move || SqliteStore::open(&path).map(|_| ()))
                })
                .collect();
            for t in threads {
                t.join()
                    .unwrap()
                    .unwrap_or_else(|e| panic!("round {round}: {e}"));
            }
        }
    }

    #[test]
    fn two_connections_write_one_file_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let threads: Vec<_> = (0..2u8)
            .map(|t| {
                let path = path.clone();
                std::thread::spawn(move || {
                    let store = SqliteStore::open(&path).unwrap();
                    for i in 0..200u32 {
                        let key = [&[b'E', t][..], &i.to_le_bytes()].concat();
                        store.put(&key, &i.to_be_bytes()).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(
            SqliteStore::open(&path)
                .unwrap()
                .scan_prefix(b"E")
                .unwrap()
                .len(),
            400
        );
    }
}
