//! The store that lives as long as the process: for `--store memory` and
//! for tests.

use super::{Backend, Entries, StoreError};
use parking_lot::Mutex;
use std::collections::BTreeMap;

/// An in-memory [`Backend`]; nothing survives the run.
#[derive(Default)]
pub struct MemoryStore {
    entries: Mutex<BTreeMap<Vec<u8>, Vec<u8>>>,
}

impl Backend for MemoryStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self.entries.lock().get(key).cloned())
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.entries.lock().insert(key.to_vec(), value.to_vec());
        Ok(())
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Entries, StoreError> {
        Ok(self
            .entries
            .lock()
            .range(prefix.to_vec()..)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }

    fn describe(&self) -> String {
        "memory".to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trips() {
        super::super::tests::round_trips(&super::MemoryStore::default());
    }
}
