//! The trie of an earlier run that a run follows (`--memo`, `--resume`):
//! loading it, planning over it, and setting aside one that is damaged or
//! no longer fits the program, so that nothing an earlier run learned is
//! overwritten unseen.

use std::path::{Path, PathBuf};

use crate::ir::Module;
use crate::memo::heuristic::{HeuristicKind, Reach, Targets};
use crate::memo::journal::journal_path;
use crate::memo::{self, NodeId, Plan, Recorded, Trie, TrieFileError};

use super::RunConfig;

/// Moves a trie that no longer fits this run to `PATH.old`, so that the
/// run's own trie does not overwrite it (replacing the one an earlier run
/// put there: only damaged files are kept under numbered names).
fn retire(path: &Path) -> std::io::Result<PathBuf> {
    let to = crate::files::with_suffix(path, ".old");
    std::fs::rename(path, &to).map(|_| to)
}

/// Where a trie file set aside went, for a message.
fn kept_as(kept: std::io::Result<PathBuf>) -> String {
    match kept {
        Ok(to) => format!("the file is kept as {}", to.display()),
        Err(e) => format!("it could not be moved aside ({e}), and will be replaced"),
    }
}

/// Refuses a memo directory that cannot be one, before anything runs: a
/// file where the directory should be would fail only when the trie is
/// saved, after the whole run.
pub fn check_memo_dir(dir: &Path) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => anyhow::bail!(
            "the memo directory {} is a file, not a directory; name a directory (it is created if missing)",
            dir.display()
        ),
        _ => Ok(()),
    }
}

/// The trie of an earlier run, if this run should follow one.
pub(super) fn earlier_trie(config: &RunConfig, trie_file: &Path) -> anyhow::Result<Option<Trie>> {
    if config.memo_dir.is_none() && !config.resume {
        return Ok(None);
    }
    match memo::file::load(trie_file) {
        Ok(t) => Ok(Some(t)),
        Err(TrieFileError::Io { error, .. })
            if error.kind() == std::io::ErrorKind::NotFound && !config.resume =>
        {
            Ok(None)
        }
        Err(e) if config.resume => Err(anyhow::anyhow!("nothing to resume: {e}")),
        // A file that cannot be read (permissions, a directory in its
        // place) is not damaged: it is neither moved nor replaced.
        Err(e @ TrieFileError::Io { .. }) => Err(e.into()),
        // The checkpoints after the trie file was last written whole are
        // lost, not the file itself.
        Err(e @ TrieFileError::Body { .. }) if e.path() == journal_path(trie_file) => {
            let kept = kept_as(crate::files::keep_aside(e.path(), "bad"));
            eprintln!(
                "mnemo: warning: cannot use the latest checkpoints: {e}; going on from the trie file ({kept})"
            );
            earlier_trie(config, trie_file)
        }
        Err(e) => {
            let kept = kept_as(crate::files::keep_aside(trie_file, "bad"));
            eprintln!("mnemo: warning: cannot use the trie: {e}; exploring from scratch ({kept})");
            Ok(None)
        }
    }
}

/// Plans a run over an earlier trie; a trie that does not fit is reported
/// and set aside, and the run starts afresh.
pub(super) fn plan_over(
    config: &RunConfig,
    old: Trie,
    targets: Option<&Targets>,
    module: &Module,
    now: &Recorded,
    trie_file: &Path,
) -> anyhow::Result<Option<Plan>> {
    let changed = old.recorded.changed_functions(module);
    let mut reach = targets.map(|t| Reach::new(module, t));
    let heuristic = config.heuristic;
    let mut select = |trie: &Trie, boundary: Vec<NodeId>| -> Vec<NodeId> {
        let Some(reach) = reach.as_mut() else {
            return boundary;
        };
        let chosen = match heuristic {
            // Refused before the run: they act at composed calls.
            HeuristicKind::H1 | HeuristicKind::H2 => boundary.clone(),
            HeuristicKind::Reachability => reach.reachable(trie, &boundary),
            HeuristicKind::Counter => match reach.counter(trie, &boundary) {
                Some(((f, site), chosen)) => {
                    eprintln!("mnemo: counter heuristic: counting choice site {site} of `{f}`");
                    chosen
                }
                None => {
                    eprintln!(
                        "mnemo: counter heuristic: no recorded choice site leads to a target; every boundary node is explored"
                    );
                    boundary.clone()
                }
            },
        };
        eprintln!(
            "mnemo: {} heuristic: {} of {} boundary nodes explored",
            heuristic.as_str(),
            chosen.len(),
            boundary.len()
        );
        chosen
    };
    match Plan::new(
        old,
        now,
        changed,
        config.compress,
        config.retry_undecided,
        &mut select,
    ) {
        Ok(plan) => Ok(Some(plan)),
        Err(e) if config.resume => Err(anyhow::anyhow!(
            "cannot resume from {}: {e}",
            trie_file.display()
        )),
        Err(e) => {
            let kept = kept_as(retire(trie_file));
            eprintln!(
                "mnemo: warning: {} does not fit this run: {e}; exploring from scratch ({kept})",
                trie_file.display(),
            );
            Ok(None)
        }
    }
}
