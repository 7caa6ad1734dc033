//! Several stores as one, as Green layers them: looked up in order, written
//! to the first at once and to the others by a background thread, so a slow
//! or remote store never holds up the solver.

use super::{open, Backend, Entries, StoreError};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

enum Job {
    Put(Vec<u8>, Vec<u8>),
    Flush(Sender<()>),
}

/// A [`Backend`] over an ordered list of stores.
pub struct MultiStore {
    stores: Vec<Arc<dyn Backend>>,
    /// Feeds the background writer of the stores after the first.
    jobs: Option<Mutex<Sender<Job>>>,
    writer: Option<JoinHandle<()>>,
    /// Stores that have already reported an error (reported once each).
    warned: Mutex<Vec<bool>>,
}

impl MultiStore {
    /// The stores in lookup order.
    pub fn new(stores: Vec<Arc<dyn Backend>>) -> Self {
        let (jobs, writer) = if stores.len() > 1 {
            let (tx, rx) = channel::<Job>();
            let rest: Vec<Arc<dyn Backend>> = stores[1..].to_vec();
            let handle = std::thread::spawn(move || {
                let mut warned = vec![false; rest.len()];
                for job in rx {
                    match job {
                        Job::Put(k, v) => {
                            for (s, w) in rest.iter().zip(warned.iter_mut()) {
                                if let Err(e) = s.put(&k, &v) {
                                    if !*w {
                                        eprintln!("mnemo: warning: {e}");
                                        *w = true;
                                    }
                                }
                            }
                        }
                        Job::Flush(done) => {
                            for s in &rest {
                                let _ = s.flush();
                            }
                            let _ = done.send(());
                        }
                    }
                }
            });
            (Some(Mutex::new(tx)), Some(handle))
        } else {
            (None, None)
        };
        let n = stores.len();
        MultiStore {
            stores,
            jobs,
            writer,
            warned: Mutex::new(vec![false; n]),
        }
    }

    /// How many stores are in use.
    pub fn len(&self) -> usize {
        self.stores.len()
    }

    /// Whether no store is in use.
    pub fn is_empty(&self) -> bool {
        self.stores.is_empty()
    }

    fn warn_once(&self, i: usize, e: &StoreError) {
        let mut warned = self.warned.lock().unwrap_or_else(|p| p.into_inner());
        if !warned[i] {
            eprintln!("mnemo: warning: {e}");
            warned[i] = true;
        }
    }
}

/// Opens every store `specs` names. A store that cannot be opened (an
/// unreachable Redis, a damaged file) is left out and its error returned
/// beside the others, for the caller to report: the run goes on without it.
pub fn open_all(specs: &[String]) -> (MultiStore, Vec<StoreError>) {
    let mut stores: Vec<Arc<dyn Backend>> = Vec::new();
    let mut errors = Vec::new();
    for spec in specs {
        match open(spec) {
            Ok(s) => stores.push(Arc::from(s)),
            Err(e) => errors.push(e),
        }
    }
    (MultiStore::new(stores), errors)
}

impl Backend for MultiStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        for (i, s) in self.stores.iter().enumerate() {
            match s.get(key) {
                Ok(Some(v)) => {
                    // Bring the answer to the nearest store for next time.
                    if i > 0 {
                        if let Err(e) = self.stores[0].put(key, &v) {
                            self.warn_once(0, &e);
                        }
                    }
                    return Ok(Some(v));
                }
                Ok(None) => {}
                Err(e) => self.warn_once(i, &e),
            }
        }
        Ok(None)
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        if let Some(first) = self.stores.first() {
            if let Err(e) = first.put(key, value) {
                self.warn_once(0, &e);
            }
        }
        if let Some(jobs) = &self.jobs {
            let jobs = jobs.lock().unwrap_or_else(|p| p.into_inner());
            let _ = jobs.send(Job::Put(key.to_vec(), value.to_vec()));
        }
        Ok(())
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Entries, StoreError> {
        let mut seen = std::collections::BTreeMap::new();
        for (i, s) in self.stores.iter().enumerate() {
            match s.scan_prefix(prefix) {
                Ok(entries) => {
                    for (k, v) in entries {
                        seen.entry(k).or_insert(v);
                    }
                }
                Err(e) => self.warn_once(i, &e),
            }
        }
        Ok(seen.into_iter().collect())
    }

    fn describe(&self) -> String {
        let names: Vec<String> = self.stores.iter().map(|s| s.describe()).collect();
        names.join(", ")
    }

    fn flush(&self) -> Result<(), StoreError> {
        if let Some(first) = self.stores.first() {
            first.flush()?;
        }
        if let Some(jobs) = &self.jobs {
            let (tx, rx) = channel();
            let sent = jobs
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .send(Job::Flush(tx));
            if sent.is_ok() {
                let _ = rx.recv();
            }
        }
        Ok(())
    }
}

impl Drop for MultiStore {
    fn drop(&mut self) {
        let _ = self.flush();
        // Closing the channel ends the writer.
        self.jobs = None;
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{MemoryStore, SqliteStore};
    use super::*;

    #[test]
    fn looks_up_in_order_and_writes_everywhere() {
        let a: Arc<dyn Backend> = Arc::new(MemoryStore::default());
        let b: Arc<dyn Backend> = Arc::new(MemoryStore::default());
        b.put(b"Eonly-b", b"from b").unwrap();
        b.put(b"Eboth", b"b's").unwrap();
        a.put(b"Eboth", b"a's").unwrap();
        let m = MultiStore::new(vec![a.clone(), b.clone()]);
        assert_eq!(m.get(b"Eboth").unwrap().as_deref(), Some(&b"a's"[..]));
        assert_eq!(m.get(b"Eonly-b").unwrap().as_deref(), Some(&b"from b"[..]));
        // The hit in the second store was copied to the first.
        assert_eq!(a.get(b"Eonly-b").unwrap().as_deref(), Some(&b"from b"[..]));
        m.put(b"Enew", b"v").unwrap();
        assert_eq!(a.get(b"Enew").unwrap().as_deref(), Some(&b"v"[..]));
        m.flush().unwrap();
        assert_eq!(b.get(b"Enew").unwrap().as_deref(), Some(&b"v"[..]));
        assert_eq!(m.scan_prefix(b"E").unwrap().len(), 3);
        super::super::tests::round_trips(&MultiStore::new(vec![Arc::new(MemoryStore::default())]));
    }

    #[test]
    fn a_store_that_cannot_open_is_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let bad = dir.path().join("bad.db");
        std::fs::write(&bad, b"not a database at all, not even close....").unwrap();
        let good = dir.path().join("good.db");
        let (m, errors) = open_all(&[
            "redis://127.0.0.1:1".to_string(),
            bad.display().to_string(),
            good.display().to_string(),
        ]);
        assert_eq!(m.len(), 1);
        assert_eq!(errors.len(), 2);
        assert!(matches!(errors[0], StoreError::Unreachable { .. }));
        assert!(matches!(errors[1], StoreError::Corrupt { .. }));
        m.put(b"Ek", b"v").unwrap();
        drop(m);
        let reopened = SqliteStore::open(&good).unwrap();
        assert_eq!(reopened.get(b"Ek").unwrap().as_deref(), Some(&b"v"[..]));
    }

    #[test]
    fn background_writes_reach_redis() {
        let Some(server) = super::super::redis::LocalServer::start() else {
            return;
        };
        let (m, errors) = open_all(&["memory".to_string(), server.url.clone()]);
        assert!(errors.is_empty());
        for i in 0..50u8 {
            m.put(&[b'E', i], &[i]).unwrap();
        }
        drop(m);
        let r = super::super::RedisStore::connect(&server.url).unwrap();
        assert_eq!(r.scan_prefix(b"E").unwrap().len(), 50);
    }
}
