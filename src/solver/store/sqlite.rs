//! The embedded persistent store: one SQLite file, safe under crashes
//! (SQLite's journal) and under several mnemo processes at once (WAL mode
//! and a busy timeout).
//!
//! A file that is not a mnemo store (not SQLite, another program's
//! database, another format version) is refused with a clear error and
//! left exactly as it was. A mnemo store that fails SQLite's integrity
//! check when it is opened is neither read nor written: it is moved aside
//! as `FILE.bad` (`.bad.1`, ... : an earlier one is never replaced), and the
//! next run starts a fresh store in its place. One that reports damage
//! during a run is left alone for the rest of the run. A file no one but
//! mnemo has changed since it was last checked is not checked again (see
//! [`super::checked`]).

use super::{checked, seal, unseal, Backend, Entries, StoreError};
use parking_lot::Mutex;
use rusqlite::config::DbConfig;
use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Written into the `meta` table; another value means another program or
/// format.
const MAGIC: &str = "mnemo solver store";
const FORMAT: i64 = 1;

/// A [`Backend`] in one SQLite file.
pub struct SqliteStore {
    path: PathBuf,
    conn: Mutex<Connection>,
    /// Set once SQLite reported the file damaged: it is not touched again.
    damaged: AtomicBool,
    /// Notes the file's state once `conn` (declared before it, so dropped
    /// first) has closed.
    note: CloseNote,
}

/// Records, when dropped, the state a store was closed in, unless the
/// store turned out damaged.
struct CloseNote {
    path: PathBuf,
    armed: bool,
}

impl Drop for CloseNote {
    fn drop(&mut self) {
        if self.armed {
            checked::record(&self.path);
        }
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        if self.damaged.load(Ordering::Relaxed) {
            self.note.armed = false;
            checked::forget(&self.path);
        }
    }
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
        // Before SQLite opens it: opening does not change the file, but
        // the note is of the file as it was closed.
        let unchanged = checked::unchanged_since_noted(path);
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
        // A mnemo store, as far as its first pages tell: the rest is
        // checked before anything is read from it or written to it, unless
        // it was checked before and only mnemo has written to it since.
        let problem = match unchanged {
            true => None,
            false => integrity_problem(&conn).map_err(|e| io(e.to_string()))?,
        };
        if let Some(problem) = problem {
            // Closing must not checkpoint the journal into a damaged file.
            let _ = conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
            drop(conn);
            return Err(StoreError::Damaged {
                store: describe(),
                reason: problem,
                kept: move_aside(path),
            });
        }
        // In WAL mode NORMAL still never corrupts the file on a crash (the
        // last answers may be lost, which only costs a solver call later),
        // and it spares an fsync per answer.
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(|e| io(e.to_string()))?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            damaged: AtomicBool::new(false),
            note: CloseNote {
                path: path.to_path_buf(),
                armed: true,
            },
        })
    }

    fn error(&self, e: rusqlite::Error) -> StoreError {
        if is_damage(&e) {
            self.damaged.store(true, Ordering::Relaxed);
            return self.damage(&e.to_string());
        }
        StoreError::Io {
            store: self.describe(),
            reason: e.to_string(),
        }
    }

    fn damage(&self, reason: &str) -> StoreError {
        StoreError::Corrupt {
            store: self.describe(),
            reason: format!("{reason}; it is not used again in this run"),
        }
    }

    /// Refuses to touch a file SQLite found damaged.
    fn usable(&self) -> Result<(), StoreError> {
        if self.damaged.load(Ordering::Relaxed) {
            return Err(self.damage("SQLite reported it damaged"));
        }
        Ok(())
    }
}

/// What SQLite's quick integrity check finds wrong with the file (every
/// page of its tables read; `None`: nothing). An error that is not damage
/// (a lock held too long) is returned as such: the file is then left alone.
fn integrity_problem(conn: &Connection) -> Result<Option<String>, rusqlite::Error> {
    let rows = conn.prepare("PRAGMA quick_check(5)").and_then(|mut s| {
        s.query_map([], |r| r.get::<_, String>(0))?
            .collect::<Result<Vec<_>, _>>()
    });
    let what = match rows {
        Ok(rows) if rows.len() == 1 && rows[0] == "ok" => return Ok(None),
        Ok(rows) => rows.join("; "),
        Err(e) if is_damage(&e) => e.to_string(),
        Err(e) => return Err(e),
    };
    Ok(Some(format!("SQLite's integrity check fails: {what}")))
}

/// Whether SQLite says the file is damaged (rather than busy, say).
fn is_damage(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

/// Moves a damaged store and its journal files (`-wal`, `-shm`) out of the
/// way under a name no earlier damaged store has; says where, for the
/// message.
fn move_aside(path: &Path) -> Result<PathBuf, String> {
    checked::forget(path);
    let kept = crate::files::keep_aside(path, "bad").map_err(|e| e.to_string())?;
    for journal in ["-wal", "-shm"] {
        let from = crate::files::with_suffix(path, journal);
        let to = crate::files::with_suffix(&kept, journal);
        if from.exists() && !to.exists() {
            std::fs::rename(&from, &to).map_err(|e| format!("{}: {e}", from.display()))?;
        }
    }
    Ok(kept)
}

impl Backend for SqliteStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.usable()?;
        let sealed: Option<Vec<u8>> = self
            .conn
            .lock()
            .prepare_cached("SELECT value FROM entries WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
            .map_err(|e| self.error(e))?;
        sealed.map(|s| unseal(self, key, &s)).transpose()
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.usable()?;
        self.conn
            .lock()
            .prepare_cached("INSERT OR REPLACE INTO entries VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![key, seal(key, value)]))
            .map_err(|e| self.error(e))?;
        Ok(())
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Entries, StoreError> {
        self.usable()?;
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

    /// Each answer is in SQLite's journal once put; what is left is to note
    /// the state the file is left in, for the next run to trust.
    fn flush(&self) -> Result<(), StoreError> {
        if !self.damaged.load(Ordering::Relaxed) {
            checked::record(&self.path);
        }
        Ok(())
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

    /// A store of `n` entries whose pages past the first two (the schema
    /// and the meta table) are overwritten with garbage; returns its bytes.
    fn damaged_store(path: &Path, n: u32) -> Vec<u8> {
        let store = SqliteStore::open(path).unwrap();
        for i in 0..n {
            store
                .put(&[b"E".as_slice(), &i.to_le_bytes()].concat(), &[7; 64])
                .unwrap();
        }
        // The last connection folds the journal into the file.
        drop(store);
        let mut bytes = std::fs::read(path).unwrap();
        assert!(bytes.len() > 3 * 4096, "{} bytes", bytes.len());
        for b in &mut bytes[2 * 4096..2 * 4096 + 200] {
            *b = 0xa5;
        }
        std::fs::write(path, &bytes).unwrap();
        bytes
    }

    #[test]
    fn a_store_failing_the_integrity_check_is_kept_aside_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        for (round, kept) in ["s.db.bad", "s.db.bad.1"].iter().enumerate() {
            let bytes = damaged_store(&path, 500);
            let err = SqliteStore::open(&path).err().unwrap();
            let text = err.to_string();
            assert!(matches!(err, StoreError::Damaged { .. }), "{text}");
            assert!(
                text.contains("s.db") && text.contains("integrity check"),
                "{text}"
            );
            assert!(text.contains(kept), "round {round}: {text}");
            assert!(!path.exists());
            // Neither read past the check nor written: byte for byte.
            assert_eq!(std::fs::read(dir.path().join(kept)).unwrap(), bytes);
        }
        // The next run starts a fresh store in its place.
        let fresh = SqliteStore::open(&path).unwrap();
        assert_eq!(fresh.get(b"E\0\0\0\0").unwrap(), None);
    }

    #[test]
    fn a_store_left_whole_is_opened_without_the_check_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.db");
        let store = SqliteStore::open(&path).unwrap();
        store.put(b"Ea", b"one").unwrap();
        assert!(!checked::unchanged_since_noted(&path), "nothing noted yet");
        // A run ends with a flush and leaves without closing the file.
        store.flush().unwrap();
        assert!(checked::unchanged_since_noted(&path));
        store.put(b"Eb", b"two").unwrap();
        assert!(!checked::unchanged_since_noted(&path), "written since");
        drop(store);
        assert!(checked::unchanged_since_noted(&path));
        let again = SqliteStore::open(&path).unwrap();
        assert_eq!(again.get(b"Ea").unwrap().as_deref(), Some(&b"one"[..]));
        drop(again);
        assert!(checked::unchanged_since_noted(&path));
        // Damage reported during a run: the next open checks the file.
        let store = SqliteStore::open(&path).unwrap();
        store.damaged.store(true, Ordering::Relaxed);
        drop(store);
        assert!(!checked::unchanged_since_noted(&path));
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
