//! A live progress line on a terminal; silent when stderr is not one.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

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

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
