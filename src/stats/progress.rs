//! A live progress line on a terminal; silent when stderr is not one.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::parallel::WorkerLine;

/// The progress display of a run.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    pub fn new(quiet: bool) -> Progress {
        if quiet || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        Progress { bar: Some(bar) }
    }

    pub fn update(&self, paths: u64, pending: usize, instructions: u64, queries: u64) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{paths} paths done, {pending} pending, {instructions} instructions, {queries} queries"
            ));
        }
    }

    /// The counts of a parallel run: the sums, then each worker's paths
    /// done and pending.
    pub fn update_workers(&self, workers: &[WorkerLine]) {
        if let Some(bar) = &self.bar {
            let sum = |f: fn(&WorkerLine) -> u64| workers.iter().map(f).sum::<u64>();
            let each: Vec<String> = workers
                .iter()
                .enumerate()
                .map(|(i, w)| format!("#{i} {}/{}", w.ended, w.pending))
                .collect();
            bar.set_message(format!(
                "{} paths done, {} pending, {} instructions, {} queries; workers (done/pending): {}",
                sum(|w| w.ended),
                sum(|w| w.pending),
                sum(|w| w.instructions),
                sum(|w| w.queries),
                each.join(" ")
            ));
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
