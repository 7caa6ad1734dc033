//! Heuristic H2's question: which of a summary's paths lead to a target
//! (ICSE 2015 §IV-E keeps only those at a call).
//!
//! A summary keeps each path's choices, not every instruction it ran, so
//! the answer is read off the control-flow graph between them: a path
//! reaches a target of its function when the target lies between two of
//! its consecutive choices there (reachable from the alternative taken at
//! the first, and the second reachable from it), before its first choice
//! or after its last. Branches on concrete values are not choices, so this
//! may keep a path that does not reach the target; it drops one that does
//! only when the function's choices of several activations interleave
//! (recursion). A path that ends in an error on a target's line, or makes
//! a choice inside another function from which a target is reachable, is
//! kept; calling such a function counts as reaching the target.

use rustc_hash::FxHashSet;

use super::graph::CallGraph;
use super::summary::{Leaf, LeafEnd, Summary};
use crate::ir::{BlockId, Body, Callee, FuncId, Inst, InstId, Module};

/// Where the targets are, seen from each function.
pub struct TargetReach {
    /// For each function: whether a target is reachable from its entry
    /// through calls (itself included).
    reaches: Vec<bool>,
    /// For each function: its instructions that are targets, or calls of a
    /// function from which one is reachable.
    points: Vec<Vec<InstId>>,
    /// Source lines of the target instructions.
    lines: FxHashSet<u32>,
}

impl TargetReach {
    /// The reach of `targets` (instructions) in `module`.
    pub fn new(module: &Module, graph: &CallGraph, targets: &[(FuncId, InstId)]) -> TargetReach {
        let n = module.functions.len();
        let mut holds = vec![false; n];
        let mut lines = FxHashSet::default();
        for &(f, i) in targets {
            holds[f.index()] = true;
            let loc = module.func(f).body.as_ref().and_then(|b| b.locs[i.index()]);
            if let Some(l) = loc {
                lines.insert(l.line);
            }
        }
        let reaches: Vec<bool> = (0..n)
            .map(|f| {
                graph
                    .reachable(FuncId(f as u32))
                    .iter()
                    .any(|g| holds[g.index()])
            })
            .collect();
        let points = module
            .functions
            .iter()
            .enumerate()
            .map(|(fi, f)| {
                let Some(body) = &f.body else {
                    return Vec::new();
                };
                let fid = FuncId(fi as u32);
                let calls_reaching = |inst: &Inst| match inst {
                    Inst::Call {
                        callee: Callee::Direct(g),
                        ..
                    } => reaches[g.index()],
                    // The graph resolved the call to every function of a
                    // fitting type whose address is taken.
                    Inst::Call {
                        callee: Callee::Indirect(_),
                        ..
                    } => graph
                        .callees(fid)
                        .iter()
                        .any(|g| reaches[g.index()] && *g != fid),
                    _ => false,
                };
                (0..body.insts.len())
                    .map(|i| InstId(i as u32))
                    .filter(|&i| {
                        targets.contains(&(fid, i)) || calls_reaching(&body.insts[i.index()])
                    })
                    .collect()
            })
            .collect();
        TargetReach {
            reaches,
            points,
            lines,
        }
    }

    /// For each path of `summary` (the summary of `func`), whether it may
    /// lead to a target. When no target is reachable from `func`, every path
    /// may: the targets lie after the call, wherever it returns.
    pub fn paths_kept(&self, module: &Module, func: FuncId, summary: &Summary) -> Vec<bool> {
        if !self.reaches[func.index()] {
            return vec![true; summary.leaves.len()];
        }
        summary
            .leaves
            .iter()
            .map(|leaf| self.leaf_reaches(module, func, leaf))
            .collect()
    }

    fn leaf_reaches(&self, module: &Module, func: FuncId, leaf: &Leaf) -> bool {
        if let LeafEnd::Error { line, .. } = &leaf.end {
            if self.lines.contains(line) {
                return true;
            }
        }
        let name = module.func(func).name.as_str();
        let enters_reaching = leaf.choices.iter().any(|c| {
            c.function != name
                && module
                    .func_by_name(&c.function)
                    .is_some_and(|g| self.reaches[g.index()])
        });
        if enters_reaching {
            return true;
        }
        let Some(body) = &module.func(func).body else {
            return true;
        };
        let points = &self.points[func.index()];
        // The stretches between the function's own choices: from the entry
        // or the alternative taken, to the next choice or the end.
        let mut from = vec![InstId(0)];
        let mut stretches: Vec<(Vec<InstId>, Option<InstId>)> = Vec::new();
        for c in leaf.choices.iter().filter(|c| c.function == name) {
            let Some(at) = site_inst(body, c.site) else {
                // A choice this body does not have: the summary is of
                // another version; nothing can be said against the path.
                return true;
            };
            stretches.push((std::mem::take(&mut from), Some(at)));
            from = after(body, at, c.taken as usize);
        }
        stretches.push((from, None));
        stretches.iter().any(|(starts, end)| {
            points.iter().any(|&p| {
                starts.iter().any(|&s| reaches_inst(body, s, p))
                    && end.is_none_or(|e| reaches_inst(body, p, e))
            })
        })
    }
}

/// The instruction of choice site `site` in `body`.
fn site_inst(body: &Body, site: u32) -> Option<InstId> {
    body.insts
        .iter()
        .position(|i| i.site().is_some_and(|s| s.0 == site))
        .map(|i| InstId(i as u32))
}

/// Where control goes after alternative `alt` of the choice at `at`.
fn after(body: &Body, at: InstId, alt: usize) -> Vec<InstId> {
    let first = |b: BlockId| body.block(b).first;
    let inst = body.inst(at);
    match inst {
        Inst::CondBr { .. } | Inst::Switch { .. } | Inst::IndirectBr { .. } => inst
            .alternative_blocks()
            .get(alt)
            .map(|b| vec![first(*b)])
            .unwrap_or_default(),
        // A check, a memory access or a call goes on with the next
        // instruction (or ends the path, which reaches nothing further).
        _ => vec![InstId(at.0 + 1)],
    }
}

/// Whether `to` may run after `from` (or is `from`) within one activation
/// of the function.
fn reaches_inst(body: &Body, from: InstId, to: InstId) -> bool {
    let (bf, bt) = (body.block_of[from.index()], body.block_of[to.index()]);
    if bf == bt && to.0 >= from.0 {
        return true;
    }
    let mut seen = vec![false; body.blocks.len()];
    let mut work = body.successors(bf);
    while let Some(b) = work.pop() {
        if b == bt {
            return true;
        }
        if !std::mem::replace(&mut seen[b.index()], true) {
            work.extend(body.successors(b));
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::Builder;
    use crate::exec::ExecConfig;
    use crate::ir::testutil::load_c;
    use std::sync::Arc;

    const SOURCE: &str = "void reach_error(void);\n\
        int f(int x, int y) {\n\
          if (x > 3) {\n\
            if (y == 2)\n\
              reach_error();\n\
            return 1;\n\
          }\n\
          return 0;\n\
        }\n\
        int g(int x) { if (x < 0) return 0; return f(x, x); }\n\
        int main(void) { return g(1); }\n";

    /// The instructions on `line`, as `Targets` would find them.
    fn on_line(m: &Module, line: u32) -> Vec<(FuncId, InstId)> {
        let mut v = Vec::new();
        for (fi, f) in m.functions.iter().enumerate() {
            let Some(body) = &f.body else { continue };
            for (ii, loc) in body.locs.iter().enumerate() {
                if loc.is_some_and(|l| l.line == line) {
                    v.push((FuncId(fi as u32), InstId(ii as u32)));
                }
            }
        }
        v
    }

    /// For each path of `f`'s summary (by how it ends), whether it is kept
    /// for a target on `line`.
    fn kept(line: u32) -> Option<Vec<(String, bool)>> {
        kept_to(line, 32)
    }

    /// [`kept`] for a summary built to depth `bound`.
    fn kept_to(line: u32, bound: u32) -> Option<Vec<(String, bool)>> {
        let m = Arc::new(load_c(SOURCE)?);
        let f = m.func_by_name("f").expect("f");
        let summary = Builder::new(m.clone(), &ExecConfig::default(), bound, None)
            .build(f, 0, &Default::default())
            .expect("f is summarised");
        let reach = TargetReach::new(&m, &CallGraph::of(&m), &on_line(&m, line));
        let keep = reach.paths_kept(&m, f, &summary);
        let mut v: Vec<(String, bool)> = summary
            .leaves
            .iter()
            .zip(keep)
            .map(|(l, k)| {
                let c: Vec<u32> = l.choices.iter().map(|c| c.taken).collect();
                (format!("{:?}{c:?}", l.end), k)
            })
            .collect();
        v.sort();
        Some(v)
    }

    #[test]
    fn an_error_target_keeps_the_path_that_ends_there() {
        let Some(v) = kept(5) else { return };
        assert_eq!(v.iter().filter(|(_, k)| *k).count(), 1, "{v:?}");
        assert!(
            v.iter().any(|(end, k)| *k && end.starts_with("Error")),
            "{v:?}"
        );
    }

    #[test]
    fn a_statement_target_keeps_the_paths_through_it() {
        // `return 1;`: both paths with x > 3 pass it (the error one is kept
        // as its choices cannot tell), the path with x <= 3 does not.
        let Some(v) = kept(6) else { return };
        assert_eq!(v.iter().filter(|(_, k)| !*k).count(), 1, "{v:?}");
        assert!(
            v.iter().any(|(end, k)| !*k && end.starts_with("Completed")),
            "{v:?}"
        );
    }

    #[test]
    fn a_path_cut_by_the_bound_is_kept_for_what_lies_below_it() {
        // To depth 1, the path with x > 3 is cut at `y == 2`: the error
        // below it may lie on it (what the path runs after its last choice
        // is all that choice can reach); the path with x <= 3 cannot.
        let Some(v) = kept_to(5, 1) else { return };
        assert_eq!(v.len(), 2, "{v:?}");
        assert!(v.iter().any(|(end, k)| *k && end == "Bound[0]"), "{v:?}");
        assert!(
            v.iter().any(|(end, k)| !*k && end.starts_with("Completed")),
            "{v:?}"
        );
    }

    #[test]
    fn a_target_the_function_cannot_reach_keeps_every_path() {
        // A line of main: f returns there whatever path it took.
        let Some(v) = kept(11) else { return };
        assert!(v.iter().all(|(_, k)| *k), "{v:?}");
    }
}
