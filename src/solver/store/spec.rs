//! A `--store` value read into what it names, before anything is opened:
//! reading a spec touches no file and no network, so a bad one is refused
//! with a message rather than turned into a file of that name.

use std::fmt;
use std::path::PathBuf;

use super::StoreError;

/// What a `--store` (or `$MNEMO_STORE`) value names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreSpec {
    /// `none`: the run keeps no answers across runs.
    Off,
    /// `memory`: answers last as long as the run.
    Memory,
    /// `redis://HOST:PORT` (any URL the Redis client reads).
    Redis(String),
    /// Anything else: the embedded store in this file.
    File(PathBuf),
}

const REDIS_SCHEME: &str = "redis://";

impl StoreSpec {
    /// Reads a spec. An empty one is refused: SQLite would take an empty
    /// file name for a private temporary database, which keeps nothing.
    /// A Redis URL is checked here, so that a malformed one is named as
    /// such rather than reported as an unreachable server.
    pub fn parse(spec: &str) -> Result<StoreSpec, StoreError> {
        let bad = |reason: String| StoreError::BadSpec {
            spec: spec.to_string(),
            reason,
        };
        match spec {
            "" => Err(bad("it is empty".to_string())),
            "none" => Ok(StoreSpec::Off),
            "memory" => Ok(StoreSpec::Memory),
            _ if spec.starts_with(REDIS_SCHEME) => {
                redis::IntoConnectionInfo::into_connection_info(spec)
                    .map_err(|e| bad(format!("not a Redis URL: {e}")))?;
                Ok(StoreSpec::Redis(spec.to_string()))
            }
            _ if spec.contains('\0') => Err(bad("a file name holds no NUL byte".to_string())),
            _ => Ok(StoreSpec::File(PathBuf::from(spec))),
        }
    }
}

/// The spec as it is written on the command line: parsing it gives the
/// same spec back.
impl fmt::Display for StoreSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreSpec::Off => f.write_str("none"),
            StoreSpec::Memory => f.write_str("memory"),
            StoreSpec::Redis(url) => f.write_str(url),
            StoreSpec::File(path) => write!(f, "{}", path.display()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_kind() {
        assert_eq!(StoreSpec::parse("none").unwrap(), StoreSpec::Off);
        assert_eq!(StoreSpec::parse("memory").unwrap(), StoreSpec::Memory);
        assert_eq!(
            StoreSpec::parse("redis://127.0.0.1:6379").unwrap(),
            StoreSpec::Redis("redis://127.0.0.1:6379".into())
        );
        assert_eq!(
            StoreSpec::parse("dir/solver.db").unwrap(),
            StoreSpec::File("dir/solver.db".into())
        );
        // A file that happens to be called like a keyword is reached by a
        // path that is not the bare keyword.
        assert_eq!(
            StoreSpec::parse("./memory").unwrap(),
            StoreSpec::File("./memory".into())
        );
    }

    #[test]
    fn refuses_empty_specs_and_malformed_urls() {
        for spec in ["", "redis://:notaport", "redis://[::1", "a\0b"] {
            let err = StoreSpec::parse(spec).unwrap_err();
            assert!(matches!(err, StoreError::BadSpec { .. }), "{spec:?}: {err}");
        }
    }

    #[test]
    fn printing_a_spec_gives_it_back() {
        for spec in ["none", "memory", "redis://h:1/2", "a b/c.db"] {
            let parsed = StoreSpec::parse(spec).unwrap();
            assert_eq!(parsed.to_string(), spec);
            assert_eq!(StoreSpec::parse(&parsed.to_string()).unwrap(), parsed);
        }
    }
}
