//! Building a function's summary: bounded symbolic execution of the
//! function alone, on fresh symbolic parameters, with nothing else in
//! memory: the memory it reaches through pointer parameters and globals is
//! made as it reaches it (`exec::lazy`), each path keeping what it assumed
//! of it. A path that reaches anything the summary could not carry to a
//! call site (a symbolic pointer into memory, a fresh input, a value fixed
//! by the solver, the summary's limits) leaves the function without a
//! summary, for that reason: its calls are executed as usual. A path that
//! reaches the depth bound is a leaf of its own (`LeafEnd::Bound`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::summary::{param_array, param_value, reads_only_inputs, Choice, Leaf, LeafEnd, Summary};
use super::Fallback;
use crate::exec::lazy::{InputKind, InputRefusal};
use crate::exec::{EarlyReason, ErrorKind, ExecConfig, Executor, PathEnd, State, Step, Symbolic};
use crate::ir::{FuncId, Module};
use crate::stop::StopRequest;

/// Instructions the paths of one summary may execute in all.
const MAX_INSTRUCTIONS: u64 = 2_000_000;
/// Paths one summary may have.
const MAX_LEAVES: usize = 4096;
/// Paths cut by the depth bound one summary may have. A function that walks
/// a list it is passed, or recurses on a parameter, reaches the bound on one
/// path or a few, which calls on short lists or small values rule out; one
/// whose paths multiply down to the bound would take its whole tree to
/// build, and a call would rarely rule all of its cut paths out.
const MAX_BOUND_LEAVES: usize = 16;
/// Queries one summary may ask: a function whose paths fix its inputs
/// early and then run long with one feasible way at each choice (a
/// recursion over a constrained value) stays below the depth bound for a
/// long time, asking cheap questions all the way.
const MAX_QUERIES: u64 = 20_000;
/// Of those, the ones that may reach Z3.
const MAX_Z3_CALLS: u64 = 500;
/// The work each Z3 call of a summary may take, in milliseconds at the
/// nominal rates of `solver::limit`: a query past it leaves the function
/// without a summary (`hard-query`). These limits count work, not time,
/// so that whether a function has a summary, and which calls a run
/// composes, is the same however busy the machine is.
const CALL_WORK_MS: u64 = 200;
/// The wall-clock time one summary may take all the same: a backstop for
/// work none of the limits above counts (evaluating conditions that have
/// grown large), reached by no function of the testsuite or the benches.
const BACKSTOP: Duration = Duration::from_secs(20);
/// Bumped whenever what a summary holds, or when a function is refused
/// one, changes: the summaries kept under the older rules are built again.
pub(super) const RULES: u32 = 2;

/// Builds summaries with one executor (its solver's counters are the
/// summaries' cost).
pub struct Builder {
    executor: Executor,
    bound: u32,
}

impl Builder {
    /// A builder whose paths run as `config` says, to depth `bound`,
    /// building nothing past `deadline`.
    pub fn new(
        module: Arc<Module>,
        config: &ExecConfig,
        bound: u32,
        deadline: Option<Instant>,
    ) -> Builder {
        let config = ExecConfig {
            max_depth: Some(bound),
            show_output: false,
            strict_guide: false,
            // A summary holds every path of its function.
            max_site_fork_share: None,
            max_forks: None,
            seeds: Vec::new(),
            only_seed: false,
            seeding_until: None,
            ..config.clone()
        };
        let mut executor = Executor::new(module, config);
        executor.summarising = true;
        executor.solver.cap_every_call(CALL_WORK_MS);
        executor.set_deadline(deadline);
        Builder { executor, bound }
    }

    /// The executor's solver counters.
    pub fn solver_stats(&self) -> crate::solver::SolverStats {
        self.executor.solver_stats()
    }

    /// Lets the summaries being built compose the calls of functions
    /// summarised before them (callees come first, Algorithm 1).
    pub(crate) fn set_composer(&mut self, c: Arc<dyn crate::exec::CallComposer>) {
        self.executor.set_composer(c);
    }

    /// Whether the globals a stored summary's paths read are this module's:
    /// the same name at the same address and of the same size, and a
    /// read-only one with the same contents (a summary is reused by other
    /// programs, whose globals are laid out otherwise).
    pub fn globals_match(&self, summary: &Summary) -> bool {
        summary
            .leaves
            .iter()
            .flat_map(|l| &l.heap.objects)
            .all(|o| match &o.kind {
                InputKind::Lazy => true,
                InputKind::Global {
                    name,
                    address,
                    size,
                    read_only,
                    contents,
                } => {
                    self.executor.global_contents_hash(name)
                        == Some((*address, *size, *read_only, *contents))
                }
            })
    }

    /// The summary of `func`, or why it has none (`stopped` once `stop`
    /// asks the run to end).
    pub fn build(
        &mut self,
        func: FuncId,
        key: u64,
        stop: &StopRequest,
    ) -> Result<Summary, Fallback> {
        let module = self.executor.module().clone();
        let f = module.func(func);
        if f.is_vararg {
            return Err(Fallback::Variadic);
        }
        let args: Vec<_> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, w)| param_value(i, *w))
            .collect();
        let symbolics = f
            .params
            .iter()
            .enumerate()
            .map(|(i, w)| Symbolic {
                name: format!("param{i}").into(),
                array: param_array(i, *w),
            })
            .collect();
        let fixed_before = self.executor.replay.fixed;
        let initial = self
            .executor
            .function_state(func, args, symbolics)
            .map_err(|_| Fallback::Bounded)?;
        let start_instructions = self.executor.instructions;
        let (start_queries, start_z3) = self.executor.solver.calls();
        let started = Instant::now();
        let mut pending = vec![initial];
        let mut leaves = Vec::new();
        let mut bound_leaves = 0;
        while let Some(mut state) = pending.pop() {
            let end = loop {
                if self.executor.solver.at_deadline()
                    || stop.reason().is_some()
                    || started.elapsed() > BACKSTOP
                {
                    return Err(Fallback::Stopped);
                }
                match self.executor.step(&mut state) {
                    Step::Yield => {}
                    Step::Forked(children) => pending.extend(children),
                    Step::Ended(end) => break end,
                }
                let (queries, z3) = self.executor.solver.calls();
                if self.executor.instructions - start_instructions > MAX_INSTRUCTIONS
                    || queries - start_queries > MAX_QUERIES
                    || z3 - start_z3 > MAX_Z3_CALLS
                {
                    return Err(Fallback::Bounded);
                }
                // A probe past its work left the path to follow its model,
                // its inputs fixed to the model's values: the alternatives
                // it could not decide would be missing from the summary.
                if !state.pinned.is_empty() {
                    return Err(Fallback::HardQuery);
                }
            };
            // Memory the summary cannot carry may have been concretized
            // first: the memory is the reason.
            if let Some(why) = state.inputs.as_ref().and_then(|h| h.refused) {
                return Err(match why {
                    InputRefusal::SymbolicPointer => Fallback::SymbolicPointer,
                    InputRefusal::Bound => Fallback::InputBound,
                });
            }
            if self.executor.replay.fixed != fixed_before {
                return Err(Fallback::FixesValues);
            }
            if !state.pinned.is_empty() {
                return Err(Fallback::HardQuery);
            }
            let leaf = self.leaf(&module, &state, end, f.params.len())?;
            if leaf.end == LeafEnd::Bound {
                bound_leaves += 1;
            }
            leaves.push(leaf);
            if leaves.len() > MAX_LEAVES || bound_leaves > MAX_BOUND_LEAVES {
                return Err(Fallback::Bounded);
            }
        }
        // Leaves in the order of their choices, whatever order the paths
        // ran in, so that a summary is the same wherever it is built.
        leaves.sort_by(|a: &Leaf, b: &Leaf| {
            let key = |l: &Leaf| l.choices.iter().map(|c| c.taken).collect::<Vec<_>>();
            key(a).cmp(&key(b)).then_with(|| a.heap.cmp(&b.heap))
        });
        Ok(Summary {
            function: f.name.clone(),
            key,
            bound: self.bound,
            params: f.params.clone(),
            leaves,
        })
    }

    /// The leaf of a path that ended, or why the path cannot be one.
    fn leaf(
        &self,
        module: &Module,
        state: &State,
        end: PathEnd,
        params: usize,
    ) -> Result<Leaf, Fallback> {
        let end = match end {
            PathEnd::Completed { .. } => LeafEnd::Completed,
            PathEnd::Silent => LeafEnd::Silent,
            PathEnd::Early(EarlyReason::MaxDepth) => LeafEnd::Bound,
            PathEnd::Early(EarlyReason::MaxTime) => return Err(Fallback::Stopped),
            PathEnd::Early(_) | PathEnd::Pruned => return Err(Fallback::Bounded),
            // Memory errors are the callee's own: on its own objects, or
            // on an input as assumed (a null pointer), which a call
            // meets the same way wherever the heap check lets it replay.
            PathEnd::Error(e) => match e.kind {
                ErrorKind::External | ErrorKind::Unsupported => return Err(Fallback::Environment),
                // A query past its work (`CALL_WORK_MS`).
                ErrorKind::Solver => return Err(Fallback::HardQuery),
                kind => LeafEnd::Error {
                    kind: kind.as_str().to_string(),
                    line: e.loc.map_or(0, |l| l.line),
                },
            },
        };
        if state.symbolics.len() != params {
            return Err(Fallback::MakesInputs);
        }
        let heap = state
            .inputs
            .as_ref()
            .map(|h| h.condition.clone())
            .unwrap_or_default();
        if !state
            .constraints
            .iter()
            .all(|c| reads_only_inputs(c, params, &heap))
        {
            return Err(Fallback::MakesInputs);
        }
        let choices = state
            .path
            .iter()
            .map(|d| Choice {
                function: module.func(d.point.func).name.clone(),
                site: d.point.site.0,
                line: d.point.line,
                taken: d.taken,
                feasible: d.point.alts.iter().map(|a| a.feasible()).collect(),
            })
            .collect();
        Ok(Leaf {
            choices,
            end,
            condition: (*state.constraints).clone(),
            heap,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::testutil::load_c;

    /// `hard` asks for the two prime factors of a 128-bit number, past any
    /// summary's work on one query; `easy` asks nothing hard.
    const SOURCE: &str = "int hard(unsigned long x, unsigned long y) {\n\
          unsigned __int128 n = ((unsigned __int128)0xffffffffffffff72UL << 64) | 0x1321;\n\
          if (((unsigned __int128)x * y == n) & (x > 1) & (y > 1))\n\
            return 1;\n\
          return 0;\n\
        }\n\
        int easy(int x) { if (x > 3) return 1; return 0; }\n\
        int main(void) { return hard(3, 5) + easy(0); }\n";

    fn build(
        name: &str,
        until: (Option<Instant>, &StopRequest),
    ) -> Option<Result<Summary, Fallback>> {
        let m = Arc::new(load_c(SOURCE)?);
        let f = m.func_by_name(name)?;
        Some(Builder::new(m, &ExecConfig::default(), 32, until.0).build(f, 0, until.1))
    }

    #[test]
    fn a_query_past_its_work_leaves_the_function_without_a_summary() {
        // A path going on with its model's side alone would make a summary
        // without the side it could not decide.
        let go_on = StopRequest::default();
        let Some(hard) = build("hard", (None, &go_on)) else {
            return;
        };
        assert_eq!(hard.err(), Some(Fallback::HardQuery));
        let easy = build("easy", (None, &go_on))
            .expect("built")
            .expect("summarised");
        assert_eq!(easy.leaves.len(), 2);
    }

    #[test]
    fn no_summary_is_built_past_the_deadline_or_once_the_run_is_stopped() {
        let go_on = StopRequest::default();
        let Some(late) = build("easy", (Some(Instant::now()), &go_on)) else {
            return;
        };
        assert_eq!(late.err(), Some(Fallback::Stopped));
        let stop = StopRequest::default();
        stop.interrupt();
        let stopped = build("easy", (None, &stop)).expect("built");
        assert_eq!(stopped.err(), Some(Fallback::Stopped));
    }
}
