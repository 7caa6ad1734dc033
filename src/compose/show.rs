//! `mnemo summary show`: a function's summary as a tree of choices, each
//! path ending in its leaf (how it ended, and its path condition over the
//! parameters `@paramN`).

use std::fmt::Write as _;
use std::path::Path;

use super::store::{self, Stored, SummaryFileError};
use super::summary::{Choice, LeafEnd, Summary};
use crate::exec::lazy::{Assumed, HeapCondition, HeapEvent, InputKind, PointerOrigin};

/// Why there is nothing to show.
#[derive(Debug, thiserror::Error)]
pub enum ShowError {
    #[error("no summary of `{function}` in {dir} (run `mnemo run --compose --memo {dir}` first)")]
    Missing { function: String, dir: String },
    #[error("cannot list the summaries in {dir}: {error}")]
    List { dir: String, error: std::io::Error },
    #[error(transparent)]
    File(#[from] SummaryFileError),
}

/// The text of the newest summary of `function` in `memo_dir`.
pub fn show(memo_dir: &Path, function: &str) -> Result<String, ShowError> {
    let dir = store::summaries_dir(memo_dir).display().to_string();
    let files = match store::files_of(memo_dir, function) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(error) => return Err(ShowError::List { dir, error }),
    };
    let Some(newest) = files.first() else {
        return Err(ShowError::Missing {
            function: function.to_string(),
            dir: memo_dir.display().to_string(),
        });
    };
    Ok(match store::load(newest)? {
        Stored::Refused(why) => format!("`{function}` has no summary: {why}\n"),
        Stored::Summary(s) => render(&s),
    })
}

/// A summary as text.
pub fn render(s: &Summary) -> String {
    let mut out = String::new();
    let params: Vec<String> = s.params.iter().map(|w| format!("i{w}")).collect();
    let _ = writeln!(
        out,
        "summary of `{}`({}) key {:016x}, bound {}: {} paths",
        s.function,
        params.join(", "),
        s.key,
        s.bound,
        s.leaves.len()
    );
    // Leaves are sorted by their choices: a shared prefix is printed once.
    let mut previous: &[Choice] = &[];
    for (i, leaf) in s.leaves.iter().enumerate() {
        let common = previous
            .iter()
            .zip(&leaf.choices)
            .take_while(|(a, b)| a == b)
            .count();
        for (depth, c) in leaf.choices.iter().enumerate().skip(common) {
            let infeasible: Vec<String> = c
                .feasible
                .iter()
                .enumerate()
                .filter(|(_, f)| !**f)
                .map(|(k, _)| k.to_string())
                .collect();
            let unsat = if infeasible.is_empty() {
                String::new()
            } else {
                format!(" (unsat: {})", infeasible.join(","))
            };
            let _ = writeln!(
                out,
                "{:indent$}{}:{} site {} -> {} of {}{unsat}",
                "",
                c.function,
                c.line,
                c.site,
                c.taken,
                c.feasible.len(),
                indent = 2 * depth
            );
        }
        let end = match &leaf.end {
            LeafEnd::Completed => "completed".to_string(),
            LeafEnd::Silent => "silent".to_string(),
            LeafEnd::Bound => "bound reached".to_string(),
            LeafEnd::Error { kind, line } => format!("error {kind} at line {line}"),
        };
        let cond: Vec<String> = leaf.condition.iter().map(|e| format!("{e:?}")).collect();
        let _ = writeln!(
            out,
            "{:indent$}leaf {i}: {end}; condition [{}]",
            "",
            cond.join(", "),
            indent = 2 * leaf.choices.len()
        );
        if !leaf.heap.is_empty() {
            let _ = writeln!(
                out,
                "{:indent$}  heap [{}]",
                "",
                heap_text(&leaf.heap),
                indent = 2 * leaf.choices.len()
            );
        }
        previous = &leaf.choices;
    }
    out
}

/// A heap condition as text: each assumption in order, each object with
/// the bytes the path touched (`*` where it wrote).
fn heap_text(heap: &HeapCondition) -> String {
    let mut parts = Vec::new();
    let mut next = 0usize;
    let object = |k: usize| {
        let o = &heap.objects[k];
        let w = if o.written { "*" } else { "" };
        match &o.kind {
            InputKind::Lazy => format!("#{k} ({} bytes{w})", o.extent),
            InputKind::Global { name, .. } => format!("#{k} global {name}{w}"),
        }
    };
    for e in &heap.events {
        match e {
            HeapEvent::Global => {
                parts.push(object(next));
                next += 1;
            }
            HeapEvent::Pointer {
                origin, assumed, ..
            } => {
                let from = match origin {
                    PointerOrigin::Param(i) => format!("@param{i}"),
                    PointerOrigin::Field { object, offset } => format!("#{object}+{offset}"),
                };
                let to = match assumed {
                    Assumed::Null => "null".to_string(),
                    Assumed::Alias(m) => format!("= #{m}"),
                    Assumed::Fresh => {
                        next += 1;
                        format!("-> {}", object(next - 1))
                    }
                };
                parts.push(format!("{from} {to}"));
            }
        }
    }
    parts.join(", ")
}
