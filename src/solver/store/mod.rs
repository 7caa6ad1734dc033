//! Where the solver keeps answers beyond one run: key-value backends under
//! the equivalence and implication stores.
//!
//! A store is named on the command line by a spec: `memory`, a file path
//! (the embedded persistent store, SQLite), or `redis://HOST:PORT`. Several
//! stores form a [`MultiStore`], looked up in order and written first to
//! the first store, then in the background to the others, as Green does.
//!
//! Every value is kept with a checksum of its key and bytes, so a damaged
//! entry reads as an error (a miss for the layers), never as a wrong
//! answer.

mod checked;
mod memory;
mod multi;
pub(crate) mod redis;
mod spec;
mod sqlite;

pub use self::memory::MemoryStore;
pub use self::multi::{open_all, MultiStore};
pub use self::redis::{LocalServer, RedisStore};
pub use self::spec::StoreSpec;
pub use self::sqlite::SqliteStore;

use std::path::PathBuf;
use std::sync::Arc;

/// Key-value pairs, as a prefix scan returns them.
pub type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// A key-value store the solver layers can share between threads.
pub trait Backend: Send + Sync {
    /// The value under `key`, if any.
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;
    /// Sets `key` to `value` (last writer wins; equal keys mean equal
    /// answers, so races are harmless).
    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), StoreError>;
    /// Every entry whose key starts with `prefix`.
    fn scan_prefix(&self, prefix: &[u8]) -> Result<Entries, StoreError>;
    /// What this store is, for messages (`file solver.db`, `redis://...`).
    fn describe(&self) -> String;
    /// Waits until everything put so far is durable or sent.
    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }
}

/// Why a store could not be opened, read or written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("solver store {store} is damaged or not a mnemo store: {reason}")]
    Corrupt { store: String, reason: String },
    /// A mnemo store that failed its integrity check when opened, and
    /// where it was moved (or why it could not be).
    #[error("solver store {store} is damaged ({reason}); {}", match kept {
        Ok(k) => format!("it is kept as {}, and the next run starts a fresh store", k.display()),
        Err(e) => format!("it could not be moved aside ({e}): move or delete it to start a fresh store"),
    })]
    Damaged {
        store: String,
        reason: String,
        kept: Result<PathBuf, String>,
    },
    /// A spec that names no store (empty, a malformed Redis URL).
    #[error("`{spec}` names no solver store: {reason}")]
    BadSpec { spec: String, reason: String },
    #[error("solver store {store} is unreachable: {reason}")]
    Unreachable { store: String, reason: String },
    #[error("solver store {store}: {reason}")]
    Io { store: String, reason: String },
}

/// The solver stores of a run, shared by its worker threads.
#[derive(Clone)]
pub struct SharedStore(pub Arc<dyn Backend>);

impl std::fmt::Debug for SharedStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedStore({})", self.0.describe())
    }
}

/// Opens the store `spec` names: `memory`, `redis://HOST:PORT`, or a file.
/// `none` names no store to open; the caller turns the stores off for it.
pub fn open(spec: &str) -> Result<Box<dyn Backend>, StoreError> {
    match StoreSpec::parse(spec)? {
        StoreSpec::Memory => Ok(Box::new(MemoryStore::default())),
        StoreSpec::Redis(url) => Ok(Box::new(RedisStore::connect(&url)?)),
        StoreSpec::File(path) => Ok(Box::new(SqliteStore::open(&path)?)),
        StoreSpec::Off => Err(StoreError::BadSpec {
            spec: spec.to_string(),
            reason: "`none` turns the stores off".to_string(),
        }),
    }
}

/// The store used when no `--store` is given: `$MNEMO_STORE` (any store
/// spec), or the file `solver.db` in the user's cache directory.
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MNEMO_STORE") {
        return Some(PathBuf::from(p));
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
    Some(cache.join("mnemo").join("solver.db"))
}

/// The bytes kept for `value` under `key`: a checksum of both, then the
/// value.
pub(crate) fn seal(key: &[u8], value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 8);
    out.extend_from_slice(&checksum(key, value));
    out.extend_from_slice(value);
    out
}

/// The value kept in `sealed` under `key`, if its checksum holds.
pub(crate) fn unseal(
    store: &dyn Backend,
    key: &[u8],
    sealed: &[u8],
) -> Result<Vec<u8>, StoreError> {
    if sealed.len() >= 8 {
        let (sum, value) = sealed.split_at(8);
        if sum == checksum(key, value) {
            return Ok(value.to_vec());
        }
    }
    Err(StoreError::Corrupt {
        store: store.describe(),
        reason: "an entry fails its checksum".to_string(),
    })
}

fn checksum(key: &[u8], value: &[u8]) -> [u8; 8] {
    let mut h = blake3::Hasher::new();
    h.update(&(key.len() as u64).to_le_bytes());
    h.update(key);
    h.update(value);
    let mut out = [0; 8];
    out.copy_from_slice(&h.finalize().as_bytes()[..8]);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// What every backend must do.
    pub(crate) fn round_trips(store: &dyn Backend) {
        assert_eq!(store.get(b"Emissing").unwrap(), None);
        store.put(b"Ea", b"one").unwrap();
        store.put(b"Eb", b"").unwrap();
        store.put(b"Ia", b"three").unwrap();
        store.put(b"Ea", b"two").unwrap();
        store.flush().unwrap();
        assert_eq!(store.get(b"Ea").unwrap().as_deref(), Some(&b"two"[..]));
        assert_eq!(store.get(b"Eb").unwrap().as_deref(), Some(&b""[..]));
        let mut e = store.scan_prefix(b"E").unwrap();
        e.sort();
        assert_eq!(
            e,
            vec![(b"Ea".to_vec(), b"two".to_vec()), (b"Eb".to_vec(), vec![])]
        );
        assert_eq!(store.scan_prefix(b"I").unwrap().len(), 1);
        // Binary keys with bytes that mean something to glob patterns.
        store.put(b"E*?[\x00\xff", b"x").unwrap();
        assert_eq!(
            store.get(b"E*?[\x00\xff").unwrap().as_deref(),
            Some(&b"x"[..])
        );
        assert_eq!(store.scan_prefix(b"E*").unwrap().len(), 1);
    }

    #[test]
    fn sealing_detects_damage() {
        let store = MemoryStore::default();
        let sealed = seal(b"k", b"value");
        assert_eq!(unseal(&store, b"k", &sealed).unwrap(), b"value");
        assert!(unseal(&store, b"other", &sealed).is_err());
        let mut bad = sealed.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(unseal(&store, b"k", &bad).is_err());
        assert!(unseal(&store, b"k", &sealed[..3]).is_err());
    }

    #[test]
    fn specs_pick_backends() {
        assert!(open("memory").unwrap().describe().contains("memory"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("s.db");
        let s = open(path.to_str().unwrap()).unwrap();
        assert!(s.describe().contains("s.db"));
        assert!(matches!(
            open("redis://127.0.0.1:1"),
            Err(StoreError::Unreachable { .. })
        ));
    }
}
