//! What a cluster run keeps on its Redis server, and the commands that
//! read and write it. Under `mnemo:run:NAME:`:
//! - `plan`: the [`Plan`], written last when the run is set up (workers
//!   wait for it) in the same transaction as everything else;
//! - `module`: the program's bitcode, for machines that do not have it;
//! - `work`: a stream of shards, read by the consumer group `workers`;
//! - `results`: a stream of explored subtrees ([`Subtree`]), each of the
//!   candidates one worker's run explored;
//! - `finished`: the set of candidates explored, so that a reclaimed
//!   shard skips them;
//! - `idle`: idle workers, each scored by when it last looked for work;
//! - `done`: set when the coordinator has joined every subtree.

use std::path::PathBuf;
use std::time::Duration;

use redis::streams::{StreamAutoClaimOptions, StreamReadOptions, StreamReadReply};
use redis::Commands;
use serde::{Deserialize, Serialize};

use super::{ClusterError, RunUrl};
use crate::stats::RunStats;

/// The consumer group of the workers.
const GROUP: &str = "workers";
const MAGIC: &[u8; 16] = b"mnemo clusterrun";
/// Bumped whenever the plan's or a subtree's layout changes. Version 2: a
/// subtree names every candidate its run explored. Version 3: an
/// alternative may be undecided (version 2's plans read as they are).
/// Version 4: the retry nodes follow the plan (earlier plans have none).
const VERSION: u32 = 4;
/// How long connecting may take before the server counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one reply may take: a blocking read waits a second at most,
/// but a large trie takes a while to send.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// A worker counts as idle for this long after it last found no work.
const IDLE_FOR_MS: u64 = 3000;

/// A path from the root of a trie: (function, choice site, alternative).
pub type TriePath = Vec<(String, u32, u32)>;

/// How the run was set up, for workers and for a coordinator restarted.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Plan {
    /// The hash that names the partition the shards belong to.
    pub partition: String,
    /// The hash of the trie it was cut from (saved by the coordinator).
    pub trie: String,
    pub module_hash: String,
    /// The program as the coordinator was given it: workers keep its file
    /// name, which names the run's trie.
    pub program: PathBuf,
    /// Every candidate to explore, by its path from the root.
    pub candidates: Vec<TriePath>,
    /// Every node whose undecided alternatives are asked about again
    /// (`--retry-undecided`), by its path; encoded after the rest.
    #[serde(skip)]
    pub retries: Vec<TriePath>,
}

/// What one run of a worker explored, as it sends it back: the subtrees
/// below some of a shard's candidates, or what it learned at its retry
/// nodes.
pub struct Subtree {
    /// The candidates it explored, or the retry nodes it asked again at.
    pub paths: Vec<TriePath>,
    /// The trie file's bytes of the run that explored them.
    pub trie: Vec<u8>,
    /// The run's `stats.json`.
    pub stats: RunStats,
    pub worker: String,
}

/// A shard taken off the work stream.
pub struct Claimed {
    pub id: String,
    pub shard: Vec<u8>,
}

/// A connection to the run's keys.
pub struct Queue {
    pub url: RunUrl,
    conn: redis::Connection,
}

impl Queue {
    pub fn connect(url: &RunUrl) -> Result<Queue, ClusterError> {
        let unreachable = |e: redis::RedisError| ClusterError::Unreachable {
            url: url.to_string(),
            reason: e.to_string(),
        };
        let client = redis::Client::open(url.server.as_str()).map_err(unreachable)?;
        let mut conn = client
            .get_connection_with_timeout(CONNECT_TIMEOUT)
            .map_err(unreachable)?;
        conn.set_read_timeout(Some(READ_TIMEOUT))
            .and_then(|_| conn.set_write_timeout(Some(READ_TIMEOUT)))
            .map_err(unreachable)?;
        redis::cmd("PING")
            .query::<String>(&mut conn)
            .map_err(unreachable)?;
        Ok(Queue {
            url: url.clone(),
            conn,
        })
    }

    fn failed(&self, doing: &str) -> impl Fn(redis::RedisError) -> ClusterError + '_ {
        let doing = doing.to_string();
        move |e| ClusterError::Redis {
            url: self.url.to_string(),
            doing: doing.clone(),
            reason: e.to_string(),
        }
    }

    fn damaged(&self, what: &'static str, detail: impl ToString) -> ClusterError {
        ClusterError::Damaged {
            url: self.url.to_string(),
            what,
            detail: detail.to_string(),
        }
    }

    /// The run's plan, if it was set up.
    pub fn plan(&mut self) -> Result<Option<Plan>, ClusterError> {
        let bytes: Option<Vec<u8>> = self
            .conn
            .get(self.url.key("plan"))
            .map_err(self.failed("reading the plan"))?;
        bytes
            .map(|b| {
                let body = crate::files::unframe(&b, MAGIC, 2..=VERSION)
                    .map_err(|e| self.damaged("plan", format!("{e:?}")))?;
                let (mut plan, retries): (Plan, _) =
                    crate::files::head_and_tail(body).map_err(|e| self.damaged("plan", e))?;
                plan.retries = retries;
                Ok(plan)
            })
            .transpose()
    }

    /// Sets the run up from scratch, in one transaction: whatever an
    /// earlier run of the name left is replaced.
    pub fn publish(
        &mut self,
        plan: &Plan,
        module: &[u8],
        shards: &[Vec<u8>],
    ) -> Result<(), ClusterError> {
        let k = |w: &str| self.url.key(w);
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.del(&[k("work"), k("results"), k("finished"), k("idle"), k("done")])
            .ignore();
        pipe.set(k("module"), module).ignore();
        pipe.xgroup_create_mkstream(k("work"), GROUP, "$").ignore();
        for s in shards {
            pipe.xadd(k("work"), "*", &[("shard", s.as_slice())])
                .ignore();
        }
        let body = crate::files::with_tail(plan, &plan.retries);
        pipe.set(k("plan"), crate::files::frame(MAGIC, VERSION, &body))
            .ignore();
        pipe.query::<()>(&mut self.conn)
            .map_err(self.failed("setting the run up"))
    }

    /// The program's bitcode.
    pub fn module(&mut self) -> Result<Vec<u8>, ClusterError> {
        let bytes: Option<Vec<u8>> = self
            .conn
            .get(self.url.key("module"))
            .map_err(self.failed("reading the program"))?;
        bytes.ok_or_else(|| self.damaged("run", "its plan names no program"))
    }

    /// A shard whose worker has not touched it for `lease` (a worker that
    /// died), now `consumer`'s.
    pub fn reclaim(
        &mut self,
        consumer: &str,
        lease: Duration,
    ) -> Result<Option<Claimed>, ClusterError> {
        let reply: redis::streams::StreamAutoClaimReply = self
            .conn
            .xautoclaim_options(
                self.url.key("work"),
                GROUP,
                consumer,
                lease.as_millis() as u64,
                "0-0",
                StreamAutoClaimOptions::default().count(1),
            )
            .map_err(self.failed("reclaiming work"))?;
        reply
            .claimed
            .into_iter()
            .next()
            .map(|e| self.claimed(e))
            .transpose()
    }

    /// A shard no worker has taken yet, waiting for one up to `block`.
    pub fn take(
        &mut self,
        consumer: &str,
        block: Duration,
    ) -> Result<Option<Claimed>, ClusterError> {
        let options = StreamReadOptions::default()
            .group(GROUP, consumer)
            .count(1)
            .block(block.as_millis() as usize);
        let reply: Option<StreamReadReply> = self
            .conn
            .xread_options(&[self.url.key("work")], &[">"], &options)
            .map_err(self.failed("taking work"))?;
        let entry = reply.and_then(|r| r.keys.into_iter().next()?.ids.into_iter().next());
        entry.map(|e| self.claimed(e)).transpose()
    }

    fn claimed(&self, e: redis::streams::StreamId) -> Result<Claimed, ClusterError> {
        let shard: Vec<u8> = e
            .get("shard")
            .ok_or_else(|| self.damaged("work entry", format!("{} holds no shard", e.id)))?;
        Ok(Claimed { id: e.id, shard })
    }

    /// Tells the group `consumer` still works on `id`: its lease starts
    /// again.
    pub fn touch(&mut self, consumer: &str, id: &str) -> Result<(), ClusterError> {
        redis::cmd("XCLAIM")
            .arg(self.url.key("work"))
            .arg(GROUP)
            .arg(consumer)
            .arg(0)
            .arg(id)
            .arg("JUSTID")
            .query::<redis::Value>(&mut self.conn)
            .map(drop)
            .map_err(self.failed("renewing a lease"))
    }

    /// The shard `id` is done with.
    pub fn ack(&mut self, id: &str) -> Result<(), ClusterError> {
        self.conn
            .xack::<_, _, _, ()>(self.url.key("work"), GROUP, &[id])
            .map_err(self.failed("acknowledging work"))
    }

    /// Puts a shard split off a larger one on the work stream.
    pub fn requeue(&mut self, shard: &[u8]) -> Result<(), ClusterError> {
        self.conn
            .xadd::<_, _, _, _, ()>(self.url.key("work"), "*", &[("shard", shard)])
            .map_err(self.failed("requeueing work"))
    }

    /// Whether the stream has run dry: every shard on it was delivered.
    pub fn dry(&mut self) -> Result<bool, ClusterError> {
        let info: redis::streams::StreamInfoGroupsReply = self
            .conn
            .xinfo_groups(self.url.key("work"))
            .map_err(self.failed("reading the work stream"))?;
        Ok(info
            .groups
            .iter()
            .find(|g| g.name == GROUP)
            .is_some_and(|g| g.lag == Some(0)))
    }

    /// The server's clock in milliseconds: workers on several machines
    /// compare times on one clock.
    fn now_ms(&mut self) -> Result<u64, ClusterError> {
        let (s, us): (u64, u64) = redis::cmd("TIME")
            .query(&mut self.conn)
            .map_err(self.failed("reading the clock"))?;
        Ok(s * 1000 + us / 1000)
    }

    /// Marks `consumer` idle (it found no work) or busy.
    pub fn set_idle(&mut self, consumer: &str, idle: bool) -> Result<(), ClusterError> {
        let key = self.url.key("idle");
        if idle {
            let now = self.now_ms()?;
            self.conn.zadd::<_, _, _, ()>(key, consumer, now)
        } else {
            self.conn.zrem::<_, _, ()>(key, consumer)
        }
        .map_err(self.failed("marking a worker idle"))
    }

    /// How many workers found no work lately.
    pub fn idle_workers(&mut self) -> Result<usize, ClusterError> {
        let since = self.now_ms()?.saturating_sub(IDLE_FOR_MS);
        self.conn
            .zcount(self.url.key("idle"), since, "+inf")
            .map_err(self.failed("counting idle workers"))
    }

    /// Whether the candidate at `path` was explored already.
    pub fn finished(&mut self, path: &TriePath) -> Result<bool, ClusterError> {
        self.conn
            .sismember(self.url.key("finished"), path_key(path))
            .map_err(self.failed("reading the explored candidates"))
    }

    /// Sends a run's subtrees back, and marks their candidates explored.
    pub fn send(&mut self, s: &Subtree) -> Result<(), ClusterError> {
        let paths = bincode::serialize(&s.paths).expect("paths serialize");
        let stats = serde_json::to_vec(&s.stats).expect("statistics serialize");
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.xadd(
            self.url.key("results"),
            "*",
            &[
                ("paths", paths.as_slice()),
                ("trie", s.trie.as_slice()),
                ("stats", stats.as_slice()),
                ("worker", s.worker.as_bytes()),
            ],
        )
        .ignore();
        for path in &s.paths {
            pipe.sadd(self.url.key("finished"), path_key(path)).ignore();
        }
        pipe.query::<()>(&mut self.conn)
            .map_err(self.failed("sending results"))
    }

    /// The subtrees sent after the entry `after` ("0" for all), waiting up
    /// to `block` for one; and the id of the last one read.
    pub fn results(
        &mut self,
        after: &str,
        block: Duration,
    ) -> Result<(Vec<Subtree>, String), ClusterError> {
        let options = StreamReadOptions::default()
            .count(64)
            .block(block.as_millis() as usize);
        let reply: Option<StreamReadReply> = self
            .conn
            .xread_options(&[self.url.key("results")], &[after], &options)
            .map_err(self.failed("reading results"))?;
        let mut last = after.to_string();
        let mut out = Vec::new();
        for e in reply.into_iter().flat_map(|r| r.keys).flat_map(|k| k.ids) {
            let bad = |what: &str| self.damaged("result", format!("{} holds no {what}", e.id));
            let paths: Vec<u8> = e.get("paths").ok_or_else(|| bad("paths"))?;
            let stats: Vec<u8> = e.get("stats").ok_or_else(|| bad("statistics"))?;
            out.push(Subtree {
                paths: bincode::deserialize(&paths).map_err(|_| bad("readable paths"))?,
                trie: e.get("trie").ok_or_else(|| bad("trie"))?,
                stats: serde_json::from_slice(&stats).map_err(|_| bad("readable statistics"))?,
                worker: e.get("worker").ok_or_else(|| bad("worker"))?,
            });
            last = e.id;
        }
        Ok((out, last))
    }

    /// Marks the run joined: workers leave.
    pub fn set_done(&mut self) -> Result<(), ClusterError> {
        self.conn
            .set::<_, _, ()>(self.url.key("done"), 1)
            .map_err(self.failed("ending the run"))
    }

    pub fn is_done(&mut self) -> Result<bool, ClusterError> {
        self.conn
            .exists(self.url.key("done"))
            .map_err(self.failed("reading the run's state"))
    }
}

/// A candidate's name in the `finished` set.
fn path_key(path: &TriePath) -> Vec<u8> {
    bincode::serialize(path).expect("a path serializes")
}
