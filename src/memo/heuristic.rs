//! Memoise's two heuristics for a deeper run (§4.1.3): of the boundary
//! nodes a deeper bound would explore, keep those most likely to reach
//! code the user names as a target (a source line or a function).
//!
//! - **Reachability**: only boundary nodes from whose choice point a target
//!   is reachable in the interprocedural CFG are explored.
//! - **Counter**: the choice site nearest to a target (the recorded branch
//!   with an alternative closest to it) is chosen, and the boundary paths
//!   that took it most often are explored.
//!
//! The CFG is walked context-insensitively: a call enters its callee, a
//! return goes back after every call of its function, an indirect call may
//! enter any function.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use thiserror::Error;

use super::trie::{NodeId, Trie, TriePoint};
use crate::ir::{BlockId, Callee, FuncId, Inst, InstId, Module};

/// Which heuristic directs a run at its targets: `Reachability` and
/// `Counter` select the boundary nodes of a deeper memoized run; `H1` and
/// `H2` are the compositional run's (`--compose`, ICSE 2015 §IV-E), applied
/// where a call is composed from a summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HeuristicKind {
    Reachability,
    Counter,
    /// A summary's paths that end in an error are checked first at a call;
    /// one feasible there ends the caller's path with that error, without
    /// replaying the callee, and the call's other paths are not explored.
    H1,
    /// Only the summary's paths that lead to a target are kept at a call.
    H2,
}

impl HeuristicKind {
    /// Whether it is a heuristic of compositional runs.
    pub fn is_compositional(self) -> bool {
        matches!(self, HeuristicKind::H1 | HeuristicKind::H2)
    }

    /// Its name on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            HeuristicKind::Reachability => "reachability",
            HeuristicKind::Counter => "counter",
            HeuristicKind::H1 => "h1",
            HeuristicKind::H2 => "h2",
        }
    }
}

/// A target that names nothing in the program.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum TargetError {
    #[error("target `{0}`: no function of that name, and not FILE:LINE")]
    NoFunction(String),
    #[error("target `{0}`: no instruction of the program is on that line")]
    NoLine(String),
}

/// Where in the program the targets are.
#[derive(Clone, Debug, Default)]
pub struct Targets {
    insts: FxHashSet<(FuncId, InstId)>,
}

impl Targets {
    /// Parses `FILE:LINE` (a file named by its path's ending) or a function
    /// name, for each spec.
    pub fn parse(module: &Module, specs: &[String]) -> Result<Targets, TargetError> {
        let mut insts = FxHashSet::default();
        for spec in specs {
            let line_spec = spec
                .rsplit_once(':')
                .and_then(|(f, l)| l.parse::<u32>().ok().map(|l| (f, l)));
            match line_spec {
                Some((file, line)) => {
                    let before = insts.len();
                    for (fi, f) in module.functions.iter().enumerate() {
                        let Some(body) = &f.body else { continue };
                        for (ii, loc) in body.locs.iter().enumerate() {
                            let Some(l) = loc else { continue };
                            if l.line == line && module.files[l.file.index()].ends_with(file) {
                                insts.insert((FuncId(fi as u32), InstId(ii as u32)));
                            }
                        }
                    }
                    if insts.len() == before {
                        return Err(TargetError::NoLine(spec.clone()));
                    }
                }
                None => {
                    let f = module
                        .func_by_name(spec)
                        .filter(|f| module.func(*f).body.is_some())
                        .ok_or_else(|| TargetError::NoFunction(spec.clone()))?;
                    insts.insert((f, InstId(0)));
                }
            }
        }
        Ok(Targets { insts })
    }

    /// The target instructions.
    pub fn instructions(&self) -> Vec<(FuncId, InstId)> {
        let mut v: Vec<_> = self.insts.iter().copied().collect();
        v.sort();
        v
    }
}

/// Forward reachability of targets in a program's interprocedural CFG.
pub struct Reach<'m> {
    module: &'m Module,
    targets: Targets,
    sites: FxHashMap<(FuncId, u32), InstId>,
    callers: Vec<Vec<(FuncId, InstId)>>,
    defined: Vec<FuncId>,
    cache: FxHashMap<Vec<(FuncId, InstId)>, Option<u32>>,
}

impl<'m> Reach<'m> {
    pub fn new(module: &'m Module, targets: &Targets) -> Reach<'m> {
        let targets = targets.clone();
        let mut sites = FxHashMap::default();
        let mut callers = vec![Vec::new(); module.functions.len()];
        let mut defined = Vec::new();
        for (fi, f) in module.functions.iter().enumerate() {
            let Some(body) = &f.body else { continue };
            let fid = FuncId(fi as u32);
            defined.push(fid);
            for (ii, inst) in body.insts.iter().enumerate() {
                if let Some(s) = inst.site() {
                    sites.insert((fid, s.0), InstId(ii as u32));
                }
                if let Inst::Call {
                    callee: Callee::Direct(g),
                    ..
                } = inst
                {
                    callers[g.index()].push((fid, InstId(ii as u32)));
                }
            }
        }
        Reach {
            module,
            targets,
            sites,
            callers,
            defined,
            cache: FxHashMap::default(),
        }
    }

    /// The instruction of a trie point in this program.
    fn point_inst(&self, trie: &Trie, p: &TriePoint) -> Option<(FuncId, InstId)> {
        let f = self.module.func_by_name(trie.func_name(p))?;
        Some((f, *self.sites.get(&(f, p.site))?))
    }

    /// Where execution goes on after alternative `alt` of the choice point
    /// at `at`.
    fn after(&self, at: (FuncId, InstId), alt: usize) -> Vec<(FuncId, InstId)> {
        let (f, i) = at;
        let Some(body) = &self.module.func(f).body else {
            return Vec::new();
        };
        let start = |b: BlockId| (f, body.block(b).first);
        let inst = &body.insts[i.index()];
        match inst {
            Inst::CondBr { .. } | Inst::Switch { .. } | Inst::IndirectBr { .. } => inst
                .alternative_blocks()
                .get(alt)
                .map(|b| vec![start(*b)])
                .unwrap_or_default(),
            Inst::Call {
                callee: Callee::Indirect(_),
                ..
            } => {
                let mut v: Vec<_> = self.defined.iter().map(|g| (*g, InstId(0))).collect();
                v.push((f, InstId(i.0 + 1)));
                v
            }
            _ => vec![(f, InstId(i.0 + 1))],
        }
    }

    /// Blocks walked from `starts` until a target, breadth first (`None`:
    /// no target is reachable).
    fn distance(&mut self, starts: Vec<(FuncId, InstId)>) -> Option<u32> {
        if let Some(d) = self.cache.get(&starts) {
            return *d;
        }
        let m = self.module;
        let mut seen: FxHashSet<(FuncId, InstId)> = FxHashSet::default();
        let mut work: VecDeque<((FuncId, InstId), u32)> = starts.iter().map(|s| (*s, 0)).collect();
        let mut found = None;
        'scan: while let Some(((f, start), d)) = work.pop_front() {
            if !seen.insert((f, start)) {
                continue;
            }
            let Some(body) = &m.func(f).body else {
                continue;
            };
            for i in start.index()..body.insts.len() {
                let id = InstId(i as u32);
                if self.targets.insts.contains(&(f, id)) {
                    found = Some(d);
                    break 'scan;
                }
                match &body.insts[i] {
                    Inst::Call { callee, .. } => match callee {
                        Callee::Direct(g) if m.func(*g).body.is_some() => {
                            work.push_back(((*g, InstId(0)), d + 1));
                        }
                        Callee::Direct(_) => {}
                        Callee::Indirect(_) => {
                            work.extend(self.defined.iter().map(|g| ((*g, InstId(0)), d + 1)));
                        }
                    },
                    Inst::Ret { .. } => {
                        work.extend(
                            self.callers[f.index()]
                                .iter()
                                .map(|(c, at)| ((*c, InstId(at.0 + 1)), d + 1)),
                        );
                        continue 'scan;
                    }
                    Inst::Unreachable => continue 'scan,
                    inst => {
                        let succ = inst.successors();
                        if !succ.is_empty() {
                            work.extend(succ.iter().map(|b| ((f, body.block(*b).first), d + 1)));
                            continue 'scan;
                        }
                    }
                }
            }
        }
        self.cache.insert(starts, found);
        found
    }

    /// Distance from a recorded point to a target over its feasible
    /// alternatives, each on its own.
    fn point_distances(&mut self, trie: &Trie, p: &TriePoint) -> Vec<Option<u32>> {
        let Some(at) = self.point_inst(trie, p) else {
            return vec![None; p.alts.len()];
        };
        (0..p.alts.len())
            .map(|i| {
                if p.alts[i].feasible() {
                    self.distance(self.after(at, i))
                } else {
                    None
                }
            })
            .collect()
    }

    /// The reachability heuristic: the boundary nodes from which a target
    /// is reachable.
    pub fn reachable(&mut self, trie: &Trie, boundary: &[NodeId]) -> Vec<NodeId> {
        boundary
            .iter()
            .copied()
            .filter(|id| {
                trie.node(*id)
                    .point
                    .as_ref()
                    .is_some_and(|p| self.point_distances(trie, p).iter().any(|d| d.is_some()))
            })
            .collect()
    }

    /// The counter heuristic: the recorded choice site with an alternative
    /// nearest to a target, and the boundary nodes whose paths took it most
    /// often. `None` when no recorded site leads to a target.
    pub fn counter(
        &mut self,
        trie: &Trie,
        boundary: &[NodeId],
    ) -> Option<((String, u32), Vec<NodeId>)> {
        let mut best: Option<(u32, (String, u32))> = None;
        let mut seen = FxHashSet::default();
        for id in trie.preorder() {
            let Some(p) = &trie.node(id).point else {
                continue;
            };
            let key = (trie.func_name(p).to_string(), p.site);
            if !seen.insert(key.clone()) {
                continue;
            }
            if let Some(d) = self.point_distances(trie, p).into_iter().flatten().min() {
                if best.as_ref().is_none_or(|(bd, bk)| (d, &key) < (*bd, bk)) {
                    best = Some((d, key));
                }
            }
        }
        let (_, site) = best?;
        let count = |id: NodeId| {
            trie.path_to(id)
                .iter()
                .filter(|(f, s, _)| *f == site.0 && *s == site.1)
                .count()
        };
        let max = boundary.iter().map(|id| count(*id)).max()?;
        let chosen = boundary
            .iter()
            .copied()
            .filter(|id| count(*id) == max)
            .collect();
        Some((site, chosen))
    }
}
