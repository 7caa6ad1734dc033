//! `mnemo regress OLD NEW --memo DIR`: regression analysis (Memoise
//! §4.1.2). The trie recorded on the old version is marked with the nodes
//! the changes impact; only their subtrees are explored again, on the new
//! version, and the tests of every other path are kept. The merged trie,
//! complete for the new version, is saved under the new version's name.

use std::fmt;
use std::path::Path;
use std::time::Instant;

use anyhow::Context;

use crate::memo::impact::Diff;
use crate::memo::mark::undecided_nodes;
use crate::memo::{self, Marks, Plan, Recorded};
use crate::run::{check_memo_dir, execute, load_program, program_key, Memo, RunConfig};
use crate::stats::RunStats;
use crate::stop::StopRequest;

/// What `mnemo regress` found and did.
#[derive(Clone, Debug)]
pub struct RegressReport {
    /// Functions changed, added or removed.
    pub changed_functions: Vec<String>,
    /// Whether globals or functions moved, so recorded addresses were not
    /// trusted.
    pub layout_changed: bool,
    /// The impacted nodes, each as the decisions leading to it.
    pub impacted: Vec<String>,
    /// The run on the new version.
    pub stats: RunStats,
}

impl fmt::Display for RegressReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changed_functions.is_empty() {
            writeln!(f, "changed functions: none")?;
        } else {
            writeln!(
                f,
                "changed functions: {}",
                self.changed_functions.join(", ")
            )?;
        }
        if self.layout_changed {
            writeln!(
                f,
                "the layout of globals or functions changed: memory and call forks are redone"
            )?;
        }
        writeln!(f, "impacted nodes: {}", self.impacted.len())?;
        for n in &self.impacted {
            writeln!(f, "  [{n}]")?;
        }
        writeln!(
            f,
            "re-explored paths: {}; reused tests: {}; solver queries: {}",
            self.stats.memo.recorded_paths, self.stats.memo.kept_tests, self.stats.solver.queries
        )
    }
}

/// Regression analysis from `old_program`'s trie to `config.program`.
pub fn regress(
    config: &RunConfig,
    old_program: &Path,
    stop: &StopRequest,
) -> anyhow::Result<RegressReport> {
    let start = Instant::now();
    let memo_dir = config.memo_dir();
    check_memo_dir(&memo_dir)?;
    let (_, old_module) = load_program(old_program, config.link_runtime, config.optimize)?;
    let (toolchain, new_module) =
        load_program(&config.program, config.link_runtime, config.optimize)?;
    let old_file = memo::trie_path(&memo_dir, &program_key(old_program));
    let mut trie = memo::file::load(&old_file).with_context(|| {
        format!(
            "no trie of {} to start from (`mnemo run --memo {}` on it records one)",
            old_program.display(),
            memo_dir.display()
        )
    })?;
    let stale = trie.recorded.changed_functions(&old_module);
    if !stale.is_empty() {
        anyhow::bail!(
            "{} was not recorded on {} (functions that differ: {})",
            old_file.display(),
            old_program.display(),
            stale.join(", ")
        );
    }
    let was = &trie.recorded;
    if was.entry != config.entry || was.args != config.program_args {
        anyhow::bail!(
            "{} was recorded for entry `{}` with arguments {:?}; regress runs the new version the same way",
            old_file.display(),
            was.entry,
            was.args
        );
    }
    if config.max_depth.is_some_and(|d| Some(d) != was.max_depth) {
        anyhow::bail!(
            "{} was recorded with depth bound {}; regress keeps it (deepen afterwards with `mnemo run --memo`)",
            old_file.display(),
            was.bound_text()
        );
    }
    let max_depth = was.max_depth;
    let diff = Diff::new(&old_module, &new_module);
    let impacted = diff.impacted(&trie);
    let impacted_text = impacted.iter().map(|id| trie.path_text(*id)).collect();
    diff.renumber(&mut trie);
    let key = program_key(&config.program);
    let now = Recorded::of(
        &new_module,
        &key,
        &config.entry,
        &config.program_args,
        max_depth,
    );
    // With compression the run's trie is merged back with the complete one,
    // since a regression trie must be complete for the next change.
    let complete = config.compress.then(|| trie.clone());
    // Outside the impacted subtrees the new version runs as the old one
    // did, so what its solver left undecided there is still to ask.
    let retries = match config.retry_undecided {
        true => undecided_nodes(&trie, &Marks::new(&trie, &impacted)),
        false => Vec::new(),
    };
    let plan = Plan::with_candidates(trie, &now, &impacted, &retries, true, config.compress);
    let complete_with = complete.map(|t| (t, plan.marks.clone()));
    let stats = execute(
        config,
        &toolchain,
        new_module,
        Memo {
            plan: Some(plan),
            now,
            trie_file: memo::trie_path(&memo_dir, &key),
            load_s: start.elapsed().as_secs_f64(),
            max_depth,
            watch: Vec::new(),
            complete_with,
            started: start,
        },
        stop,
    )?;
    Ok(RegressReport {
        changed_functions: diff.changed_functions.clone(),
        layout_changed: diff.layout_changed,
        impacted: impacted_text,
        stats,
    })
}
