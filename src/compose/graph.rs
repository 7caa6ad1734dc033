//! The module's call graph and the bottom-up order summaries are built in
//! (the paper's Algorithm 1): callees before callers, a cycle of calls as
//! one component.

use crate::ir::{Callee, Const, FuncId, Inst, Module};

/// The call graph of a module: for each function (by `FuncId`), the
/// functions it may call. A call through a pointer may call any function
/// whose address the module takes and whose signature fits the call.
pub struct CallGraph {
    callees: Vec<Vec<FuncId>>,
}

/// A strongly connected component of the call graph: one function, or the
/// functions of a cycle of calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Component {
    /// Its functions, in `FuncId` order.
    pub funcs: Vec<FuncId>,
    /// Whether a function of it calls itself or another of it.
    pub recursive: bool,
}

impl CallGraph {
    /// The call graph of `module`.
    pub fn of(module: &Module) -> CallGraph {
        let mut taken = vec![false; module.functions.len()];
        for c in &module.consts {
            if let Const::FuncAddr(f) = c {
                if let Some(t) = taken.get_mut(f.index()) {
                    *t = true;
                }
            }
        }
        let callees = module
            .functions
            .iter()
            .map(|f| {
                let mut out: Vec<FuncId> = Vec::new();
                let Some(body) = &f.body else { return out };
                for inst in &body.insts {
                    let Inst::Call {
                        callee,
                        args,
                        ret_width,
                        ..
                    } = inst
                    else {
                        continue;
                    };
                    match callee {
                        Callee::Direct(g) => out.push(*g),
                        Callee::Indirect(_) => {
                            for (i, g) in module.functions.iter().enumerate() {
                                let fits = g.ret_width == *ret_width
                                    && if g.is_vararg {
                                        args.len() >= g.params.len()
                                    } else {
                                        args.len() == g.params.len()
                                    }
                                    && g.params.iter().zip(args).all(|(w, a)| *w == a.width);
                                if taken[i] && fits {
                                    out.push(FuncId(i as u32));
                                }
                            }
                        }
                    }
                }
                out.sort();
                out.dedup();
                out
            })
            .collect();
        CallGraph { callees }
    }

    /// The functions `f` may call directly.
    pub fn callees(&self, f: FuncId) -> &[FuncId] {
        &self.callees[f.index()]
    }

    /// The functions reachable from `from` (itself included), in `FuncId`
    /// order.
    pub fn reachable(&self, from: FuncId) -> Vec<FuncId> {
        let mut seen = vec![false; self.callees.len()];
        let mut stack = vec![from];
        seen[from.index()] = true;
        while let Some(f) = stack.pop() {
            for &g in self.callees(f) {
                if !std::mem::replace(&mut seen[g.index()], true) {
                    stack.push(g);
                }
            }
        }
        (0..seen.len())
            .filter(|&i| seen[i])
            .map(|i| FuncId(i as u32))
            .collect()
    }

    /// The components reachable from `from`, callees before callers
    /// (Tarjan's algorithm, whose components come out in that order).
    pub fn bottom_up(&self, from: FuncId) -> Vec<Component> {
        const UNSEEN: u32 = u32::MAX;
        let n = self.callees.len();
        let mut index = vec![UNSEEN; n];
        let mut low = vec![0u32; n];
        let mut on_stack = vec![false; n];
        let mut stack: Vec<FuncId> = Vec::new();
        let mut next = 0u32;
        let mut out = Vec::new();
        // Each frame: a function and how many of its callees were visited.
        let mut work: Vec<(FuncId, usize)> = vec![(from, 0)];
        index[from.index()] = next;
        low[from.index()] = next;
        next += 1;
        stack.push(from);
        on_stack[from.index()] = true;
        while let Some(&mut (f, ref mut i)) = work.last_mut() {
            if let Some(&g) = self.callees(f).get(*i) {
                *i += 1;
                if index[g.index()] == UNSEEN {
                    index[g.index()] = next;
                    low[g.index()] = next;
                    next += 1;
                    stack.push(g);
                    on_stack[g.index()] = true;
                    work.push((g, 0));
                } else if on_stack[g.index()] {
                    low[f.index()] = low[f.index()].min(index[g.index()]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent.index()] = low[parent.index()].min(low[f.index()]);
            }
            if low[f.index()] == index[f.index()] {
                let mut funcs = Vec::new();
                while let Some(g) = stack.pop() {
                    on_stack[g.index()] = false;
                    funcs.push(g);
                    if g == f {
                        break;
                    }
                }
                funcs.sort();
                let recursive = funcs.len() > 1 || self.callees(f).contains(&f);
                out.push(Component { funcs, recursive });
            }
        }
        out
    }
}

/// Whether a function has a branch that may fork (conditional, switch,
/// indirect): one without has a single path through its own code, and a
/// summary of it would save nothing (the paper's `containsCondStmt`).
pub fn has_branch(module: &Module, f: FuncId) -> bool {
    module
        .func(f)
        .body
        .as_ref()
        .is_some_and(|b| b.insts.iter().any(|i| !i.alternative_blocks().is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::testutil::load_c;

    fn id(m: &Module, name: &str) -> FuncId {
        m.func_by_name(name).expect("function")
    }

    fn names(m: &Module, c: &Component) -> Vec<String> {
        let mut v: Vec<String> = c.funcs.iter().map(|f| m.func(*f).name.clone()).collect();
        v.sort();
        v
    }

    #[test]
    fn leaves_come_before_their_callers_and_cycles_are_one_component() {
        let Some(m) = load_c(
            "int leaf(int x) { return x > 0 ? x : -x; }\n\
             int even(int n);\n\
             int odd(int n) { return n == 0 ? 0 : even(n - 1); }\n\
             int even(int n) { return n == 0 ? 1 : odd(n - 1); }\n\
             int self_rec(int n) { return n <= 0 ? 0 : 1 + self_rec(n - 1); }\n\
             int mid(int x) { return leaf(x) + even(x); }\n\
             int unused(int x) { return leaf(x); }\n\
             int main(void) { return mid(3) + self_rec(2); }\n",
        ) else {
            return;
        };
        let g = CallGraph::of(&m);
        let order = g.bottom_up(id(&m, "main"));
        let pos = |name: &str| {
            order
                .iter()
                .position(|c| c.funcs.contains(&id(&m, name)))
                .unwrap_or_else(|| panic!("{name} is not in the order"))
        };
        assert!(pos("leaf") < pos("mid"));
        assert!(pos("even") < pos("mid"));
        assert!(pos("mid") < pos("main"));
        assert!(pos("self_rec") < pos("main"));
        assert_eq!(pos("odd"), pos("even"));
        let cycle = &order[pos("odd")];
        assert_eq!(names(&m, cycle), ["even", "odd"]);
        assert!(cycle.recursive);
        assert!(order[pos("self_rec")].recursive);
        assert!(!order[pos("leaf")].recursive);
        assert!(order.iter().all(|c| !c.funcs.contains(&id(&m, "unused"))));
        assert_eq!(order.len(), 5);
    }

    #[test]
    fn a_call_through_a_pointer_may_call_each_taken_function_of_its_type() {
        let Some(m) = load_c(
            "int inc(int x) { return x + 1; }\n\
             int dec(int x) { return x - 1; }\n\
             int two(int x, int y) { return x + y; }\n\
             int (*pick(int c))(int) { return c ? inc : dec; }\n\
             int apply(int c, int x) { return pick(c)(x); }\n\
             int main(void) { return apply(1, 2) + two(1, 2); }\n",
        ) else {
            return;
        };
        let g = CallGraph::of(&m);
        let callees: Vec<&str> = g
            .callees(id(&m, "apply"))
            .iter()
            .map(|f| m.func(*f).name.as_str())
            .collect();
        assert!(callees.contains(&"inc") && callees.contains(&"dec"));
        assert!(callees.contains(&"pick"));
        assert!(!callees.contains(&"two"), "two is not of the call's type");
        let reach = g.reachable(id(&m, "apply"));
        assert!(reach.contains(&id(&m, "inc")));
        assert!(!reach.contains(&id(&m, "main")));
    }

    #[test]
    fn only_functions_with_a_condition_have_branches() {
        let Some(m) = load_c(
            "int straight(int x) { return x * 2 + 1; }\n\
             int cond(int x) { if (x > 3) return 1; return 0; }\n\
             int sw(int x) { switch (x) { case 1: return 5; case 2: return 7; } return 0; }\n",
        ) else {
            return;
        };
        assert!(!has_branch(&m, id(&m, "straight")));
        assert!(has_branch(&m, id(&m, "cond")));
        assert!(has_branch(&m, id(&m, "sw")));
    }
}
