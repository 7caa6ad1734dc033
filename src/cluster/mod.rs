//! One run on many machines through Redis (`mnemo run --cluster URL`,
//! `mnemo worker URL`): the coordinator cuts the run into shards (as
//! `mnemo partition` does) and puts them on a Redis stream read by a
//! consumer group; workers on any machine claim them, explore below each
//! candidate, and send each candidate's subtree back on a second stream;
//! the coordinator grafts them into one trie and one set of tests (as
//! `mnemo merge` does).
//!
//! Nothing is lost when a process dies. A worker keeps the shard it claimed
//! pending in the group until it is done, and touches it while it works: a
//! shard left untouched for a lease (its worker was killed, its machine
//! lost) is claimed by another worker (`XAUTOCLAIM`), which skips the
//! candidates already explored. The coordinator keeps nothing of its own:
//! restarted, it reads the plan, the results stream and the trie it saved,
//! and goes on. When the stream runs dry while a worker is idle, a busy
//! worker splits the candidates it has not started off its shard and
//! requeues them. A candidate explored twice (a lease that expired on a
//! worker that was slow, not dead) is joined once: both runs found the same.

pub mod coordinator;
pub mod queue;
pub mod worker;

use thiserror::Error;

pub use coordinator::coordinate;
pub use worker::{work, WorkerConfig, WorkerReport};

/// A run's place on a Redis server: `redis://HOST:PORT/NAME`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunUrl {
    /// The server, as the Redis client and the solver store take it.
    pub server: String,
    /// The run's name: every key of the run is under it.
    pub name: String,
}

/// Why a cluster run cannot go on.
#[derive(Debug, Error)]
pub enum ClusterError {
    #[error("`{url}` does not name a cluster run: write redis://HOST:PORT/NAME (NAME: letters, digits, `.`, `_` or `-`)")]
    BadUrl { url: String },
    #[error("cannot reach the Redis server of {url}: {reason}")]
    Unreachable { url: String, reason: String },
    #[error("the Redis server of {url} failed while {doing}: {reason}")]
    Redis {
        url: String,
        doing: String,
        reason: String,
    },
    #[error("{url} holds a damaged {what}: {detail}")]
    Damaged {
        url: String,
        what: &'static str,
        detail: String,
    },
}

impl RunUrl {
    pub fn parse(url: &str) -> Result<RunUrl, ClusterError> {
        let bad = || ClusterError::BadUrl {
            url: url.to_string(),
        };
        let rest = url
            .strip_prefix("redis://")
            .or_else(|| url.strip_prefix("rediss://"))
            .ok_or_else(bad)?;
        let (authority, name) = rest.split_once('/').ok_or_else(bad)?;
        let fine = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
        if authority.is_empty() || name.is_empty() || !name.chars().all(fine) {
            return Err(bad());
        }
        let scheme = &url[..url.len() - rest.len()];
        Ok(RunUrl {
            server: format!("{scheme}{authority}"),
            name: name.to_string(),
        })
    }

    /// The Redis key of one of the run's things.
    pub fn key(&self, what: &str) -> String {
        format!("mnemo:run:{}:{what}", self.name)
    }
}

impl std::fmt::Display for RunUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.server, self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_a_server_and_a_run() {
        let u = RunUrl::parse("redis://h.example:6379/run-42").unwrap();
        assert_eq!(u.server, "redis://h.example:6379");
        assert_eq!(u.name, "run-42");
        assert_eq!(u.key("work"), "mnemo:run:run-42:work");
        assert_eq!(u.to_string(), "redis://h.example:6379/run-42");
        for bad in [
            "redis://h:1",
            "redis://h:1/",
            "redis:///x",
            "http://h:1/x",
            "redis://h:1/a/b",
            "redis://h:1/a b",
        ] {
            assert!(
                matches!(RunUrl::parse(bad), Err(ClusterError::BadUrl { .. })),
                "{bad}"
            );
        }
    }
}
