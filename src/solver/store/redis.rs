//! A Redis server as a store: `--store redis://HOST:PORT`, shared by
//! mnemo processes on several machines.
//!
//! Keys are written in hex under `mnemo:`, so that a prefix scan is a
//! plain `SCAN MATCH` pattern whatever bytes the key holds.

use super::{seal, unseal, Backend, Entries, StoreError};
use parking_lot::Mutex;
use std::time::Duration;

/// How long connecting, reading or writing may take before the server
/// counts as unreachable.
const TIMEOUT: Duration = Duration::from_secs(2);

/// A [`Backend`] on a Redis server.
pub struct RedisStore {
    url: String,
    conn: Mutex<redis::Connection>,
}

impl RedisStore {
    /// Connects to the server `url` names (`redis://HOST:PORT`).
    pub fn connect(url: &str) -> Result<Self, StoreError> {
        let unreachable = |reason: String| StoreError::Unreachable {
            store: url.to_string(),
            reason,
        };
        let client = redis::Client::open(url).map_err(|e| unreachable(e.to_string()))?;
        let mut conn = client
            .get_connection_with_timeout(TIMEOUT)
            .map_err(|e| unreachable(e.to_string()))?;
        conn.set_read_timeout(Some(TIMEOUT))
            .and_then(|_| conn.set_write_timeout(Some(TIMEOUT)))
            .map_err(|e| unreachable(e.to_string()))?;
        redis::cmd("PING")
            .query::<String>(&mut conn)
            .map_err(|e| unreachable(e.to_string()))?;
        Ok(RedisStore {
            url: url.to_string(),
            conn: Mutex::new(conn),
        })
    }

    fn error(&self, e: redis::RedisError) -> StoreError {
        StoreError::Io {
            store: self.describe(),
            reason: e.to_string(),
        }
    }
}

pub(crate) fn redis_key(key: &[u8]) -> String {
    let mut out = String::with_capacity(6 + 2 * key.len());
    out.push_str("mnemo:");
    for b in key {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// The key `redis_key` holds, if it is one `redis_key` writes. Only its
/// lowercase hex digits are read: `from_str_radix` would also take a sign
/// or capitals, and so read keys mnemo never wrote as one of its own.
pub(crate) fn key_of(redis_key: &[u8]) -> Option<Vec<u8>> {
    let hex = redis_key.strip_prefix(b"mnemo:")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    hex.chunks(2)
        .map(|c| Some((digit(c[0])? << 4) | digit(c[1])?))
        .collect()
}

impl Backend for RedisStore {
    fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let sealed: Option<Vec<u8>> = redis::cmd("GET")
            .arg(redis_key(key))
            .query(&mut *self.conn.lock())
            .map_err(|e| self.error(e))?;
        sealed.map(|s| unseal(self, key, &s)).transpose()
    }

    fn put(&self, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        redis::cmd("SET")
            .arg(redis_key(key))
            .arg(seal(key, value))
            .query::<()>(&mut *self.conn.lock())
            .map_err(|e| self.error(e))
    }

    fn scan_prefix(&self, prefix: &[u8]) -> Result<Entries, StoreError> {
        let pattern = format!("{}*", redis_key(prefix));
        let mut conn = self.conn.lock();
        let mut keys: Vec<Vec<u8>> = Vec::new();
        let mut cursor: u64 = 0;
        loop {
            let (next, batch): (u64, Vec<Vec<u8>>) = redis::cmd("SCAN")
                .arg(cursor)
                .arg("MATCH")
                .arg(&pattern)
                .arg("COUNT")
                .arg(1000)
                .query(&mut *conn)
                .map_err(|e| self.error(e))?;
            keys.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        keys.sort();
        keys.dedup();
        let mut out = Vec::with_capacity(keys.len());
        for chunk in keys.chunks(500) {
            let values: Vec<Option<Vec<u8>>> = redis::cmd("MGET")
                .arg(chunk)
                .query(&mut *conn)
                .map_err(|e| self.error(e))?;
            for (rk, v) in chunk.iter().zip(values) {
                let (Some(key), Some(sealed)) = (key_of(rk), v) else {
                    continue;
                };
                if let Ok(value) = unseal(self, &key, &sealed) {
                    out.push((key, value));
                }
            }
        }
        Ok(out)
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}

/// A `redis-server` child process on a free loopback port, stopped when
/// dropped: for tests and benchmarks that need a server of their own.
pub struct LocalServer {
    child: std::process::Child,
    pub url: String,
}

impl LocalServer {
    /// Starts a server, or `None` (with a note) when `redis-server` is not
    /// installed or does not come up.
    pub fn start() -> Option<LocalServer> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let child = match std::process::Command::new("redis-server")
            .args([
                "--port",
                &port.to_string(),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ])
            .stdout(std::process::Stdio::null())
            .spawn()
        {
            Ok(c) => c,
            Err(_) => {
                eprintln!("note: redis-server is not installed; Redis tests skipped");
                return None;
            }
        };
        let mut server = LocalServer {
            child,
            url: format!("redis://127.0.0.1:{port}"),
        };
        for _ in 0..100 {
            if RedisStore::connect(&server.url).is_ok() {
                return Some(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                eprintln!("note: redis-server ended at once ({status})");
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        eprintln!("note: redis-server did not start on port {port}");
        None
    }
}

impl Drop for LocalServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_on_a_real_server() {
        let Some(server) = LocalServer::start() else {
            return;
        };
        let store = RedisStore::connect(&server.url).unwrap();
        super::super::tests::round_trips(&store);
        // A second client (another mnemo process) sees the same entries.
        let other = RedisStore::connect(&server.url).unwrap();
        assert_eq!(other.get(b"Ea").unwrap().as_deref(), Some(&b"two"[..]));
    }

    #[test]
    fn an_unreachable_server_is_an_error_without_hanging() {
        let start = std::time::Instant::now();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let err = RedisStore::connect(&format!("redis://127.0.0.1:{port}"))
            .err()
            .unwrap();
        assert!(matches!(err, StoreError::Unreachable { .. }), "{err}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn hex_keys_round_trip() {
        let key = b"\x00E*?[]\xff";
        assert_eq!(key_of(redis_key(key).as_bytes()).unwrap(), key);
    }

    /// Found by the `store` fuzz target: capitals and a `+` sign were read
    /// as hex digits, so a key mnemo never wrote passed for one of its own.
    #[test]
    fn keys_mnemo_did_not_write_are_not_read() {
        for key in [
            &b"mnemo:C314"[..],
            b"mnemo:83+4",
            b"mnemo:+f",
            b"mnemo:0g",
            b"mnemo:7D",
        ] {
            assert_eq!(key_of(key), None, "{}", String::from_utf8_lossy(key));
        }
        assert_eq!(key_of(b"mnemo:c314"), Some(vec![0xc3, 0x14]));
    }
}
