//! `mnemo trie show|stats|dot`: a trie as text, as counts, as Graphviz.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::trie::{End, NodeId, Trie};
use crate::exec::Answer;

/// The counts `mnemo trie stats` prints (and `stats.json` reports).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TrieCounts {
    pub nodes: u64,
    /// Leaves by how they ended: `completed`, `error`, `max-depth`
    /// (boundary), other early reasons, `silent`.
    pub leaves: BTreeMap<String, u64>,
    /// Infeasible alternatives of recorded choice points (the paper's
    /// unsatisfiable nodes).
    pub unsat: u64,
    /// Alternatives whose feasibility no run could decide in its solver
    /// time (see `Answer::Undecided`).
    pub undecided: u64,
    /// Tests the trie keeps.
    pub tests: u64,
    /// Decisions on the longest path.
    pub max_level: u64,
}

/// Counts a trie.
pub fn counts(trie: &Trie) -> TrieCounts {
    let order = trie.preorder();
    let mut c = TrieCounts {
        nodes: order.len() as u64,
        ..TrieCounts::default()
    };
    let mut level = vec![0u64; trie.arena_len()];
    for id in order {
        let n = trie.node(id);
        if let Some(p) = n.parent {
            level[id.index()] = level[p.index()] + 1;
        }
        c.max_level = c.max_level.max(level[id.index()]);
        if let Some(p) = &n.point {
            c.unsat += p
                .alts
                .iter()
                .filter(|a| a.answer == Answer::Infeasible)
                .count() as u64;
            c.undecided += p.undecided() as u64;
        }
        if let Some(e) = &n.end {
            *c.leaves.entry(leaf_kind(e)).or_default() += 1;
        }
        c.tests += n.test.is_some() as u64 + n.kept.len() as u64;
    }
    c
}

fn leaf_kind(e: &End) -> String {
    match e {
        End::Completed => "completed".into(),
        End::Error { .. } => "error".into(),
        End::Early { reason } => reason.clone(),
        End::Silent => "silent".into(),
    }
}

/// The text of `mnemo trie stats`.
pub fn stats_text(trie: &Trie, file_bytes: Option<u64>) -> String {
    let c = counts(trie);
    let mut s = String::new();
    let r = &trie.recorded;
    let _ = writeln!(s, "program:     {} (entry {})", r.program, r.entry);
    let _ = writeln!(s, "depth bound: {}", r.bound_text());
    let _ = writeln!(s, "nodes:       {}", c.nodes);
    for (k, v) in &c.leaves {
        let _ = writeln!(s, "leaves {k:<12} {v}");
    }
    let _ = writeln!(s, "unsat:       {}", c.unsat);
    if c.undecided > 0 {
        let _ = writeln!(s, "undecided:   {}", c.undecided);
    }
    let _ = writeln!(s, "tests kept:  {}", c.tests);
    let _ = writeln!(s, "longest path: {} decisions", c.max_level);
    if let Some(b) = file_bytes {
        let _ = writeln!(s, "file:        {b} bytes");
    }
    s
}

fn label(trie: &Trie, id: NodeId) -> String {
    let n = trie.node(id);
    let mut s = match n.parent.and_then(|p| trie.node(p).point.as_ref()) {
        Some(p) => {
            let payload = p.alts[n.via as usize].payload;
            let mut l = format!("{}:{} -> {}", trie.func_name(p), p.site, n.via);
            // Branch alternatives carry 0 and switch ones their index;
            // anything else is an address (or the error side).
            if payload != n.via as u64 && payload != 0 {
                if payload == crate::exec::NO_TARGET {
                    l.push_str(" (no target)");
                } else if payload == crate::exec::UNLISTED {
                    l.push_str(" (the rest)");
                } else if payload & crate::exec::FIXED_ADDRESS != 0 {
                    let base = payload & !crate::exec::FIXED_ADDRESS;
                    let _ = write!(l, " ({base:#x}, at one address)");
                } else {
                    let _ = write!(l, " ({payload:#x})");
                }
            }
            if p.line != 0 {
                let _ = write!(l, " [line {}]", p.line);
            }
            l
        }
        None => "root".to_string(),
    };
    if let Some(e) = &n.end {
        let _ = write!(s, ": {}", e.describe());
    }
    if !n.kept.is_empty() {
        let _ = write!(s, " ({} tests kept)", n.kept.len());
    }
    s
}

/// The text of `mnemo trie show`: one node a line, indented by level, with
/// each infeasible alternative as an `unsat` line and each undecided one as
/// an `undecided` line.
pub fn show_text(trie: &Trie) -> String {
    let mut s = String::new();
    let mut stack = vec![(NodeId::ROOT, 0usize)];
    while let Some((id, depth)) = stack.pop() {
        let _ = writeln!(s, "{}{}", "  ".repeat(depth), label(trie, id));
        let n = trie.node(id);
        if let Some(p) = &n.point {
            for (i, a) in p.alts.iter().enumerate() {
                if let Some(what) = untaken(a.answer) {
                    let _ = writeln!(
                        s,
                        "{}{}:{} -> {}: {what}",
                        "  ".repeat(depth + 1),
                        trie.func_name(p),
                        p.site,
                        i
                    );
                }
            }
        }
        for c in n.children.iter().rev() {
            stack.push((*c, depth + 1));
        }
    }
    s
}

/// What an alternative no path took is called: `None` for a feasible one.
fn untaken(answer: Answer) -> Option<&'static str> {
    match answer {
        Answer::Feasible => None,
        Answer::Infeasible => Some("unsat"),
        Answer::Undecided => Some("undecided"),
    }
}

/// The trie in Graphviz's dot language.
pub fn dot_text(trie: &Trie) -> String {
    let mut s = String::from("digraph trie {\n  node [shape=box, fontname=\"monospace\"];\n");
    let mut unsat = 0usize;
    for id in trie.preorder() {
        let n = trie.node(id);
        let (text, style) = match &n.end {
            Some(End::Completed) => ("completed".to_string(), ", color=darkgreen"),
            Some(End::Error { kind, line }) => (format!("{kind} (line {line})"), ", color=red"),
            Some(e @ End::Early { .. }) if e.is_boundary() => {
                ("boundary".to_string(), ", style=dashed")
            }
            Some(End::Early { reason }) => (reason.clone(), ", style=dotted"),
            Some(End::Silent) => ("silent".to_string(), ", color=gray"),
            None => (
                n.point
                    .as_ref()
                    .map(|p| format!("{}:{}", trie.func_name(p), p.site))
                    .unwrap_or_default(),
                "",
            ),
        };
        let _ = writeln!(
            s,
            "  n{} [label=\"{}\"{style}];",
            id.0,
            text.replace('"', "'")
        );
        if let Some(parent) = n.parent {
            let _ = writeln!(s, "  n{} -> n{} [label=\"{}\"];", parent.0, id.0, n.via);
        }
        if let Some(p) = &n.point {
            for (i, a) in p.alts.iter().enumerate() {
                let Some(what) = untaken(a.answer) else {
                    continue;
                };
                let _ = writeln!(s, "  u{unsat} [label=\"{what}\", color=gray];");
                let _ = writeln!(s, "  n{} -> u{unsat} [label=\"{i}\"];", id.0);
                unsat += 1;
            }
        }
    }
    s.push_str("}\n");
    s
}
