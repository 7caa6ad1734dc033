//! The rest of KLEE's klee.h: functions a test harness calls to look at or
//! steer its own exploration (a value the path allows, a preference for
//! its test's inputs, a check of memory, printing). The native replay
//! library (`runtime/replay`) implements the same functions for a native
//! run, where each must agree with what the engine did on the path.

use std::sync::Arc;

use super::end::{ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow};
use super::memory::AllocKind;
use super::state::{State, FUNCTION_BASE, GLOBAL_BASE, HEAP_BASE, NULL_PAGE};
use super::value::Value;
use crate::expr::{self, ExprRef};
use crate::ir::semantics::{mask, to_signed};

/// A klee.h function beyond inputs, assumptions and path ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KleeCall {
    /// `klee_get_value_i32`, `_i64`, `klee_get_valuel`, `ll`, `f`, `d`: a
    /// value the path allows, to which the path is then fixed, so that a
    /// native replay, which returns its argument, goes on as the engine did.
    GetValue,
    /// `klee_prefer_cex(object, condition)`: a condition for the path's
    /// test, kept as far as the path allows (see `test_model`).
    PreferCex,
    /// `klee_print_expr(message, value)`: the value's expression.
    PrintExpr,
    /// `klee_print_range(name, value)`: the values the path allows it.
    PrintRange,
    /// `klee_get_obj_size(pointer)`: the size of the object it points into.
    GetObjSize,
    /// `klee_check_memory_access(address, size)`: an error unless the bytes
    /// lie in one live object.
    CheckMemoryAccess,
    /// `klee_is_replay()`: 0 here, 1 in the native replay.
    IsReplay,
    /// `klee_stack_trace()`: the path's call stack, on stderr.
    StackTrace,
    /// `klee_open_merge`, `klee_close_merge`: KLEE's hints for merging
    /// states, an optimization only, so ignoring them is exact.
    MergeHint,
    /// `klee_warning_once(message)`: a warning, once for each message (by
    /// each worker of a parallel run).
    WarningOnce,
    /// `klee_choose(n)`: an input called `klee_choose` below `n`. KLEE's
    /// runtime makes the input and ends the path silently where it is `n`
    /// or more: the same tests as the input kept below `n`.
    Choose,
    /// `klee_mark_global(object)`: KLEE's mark that an object is a global,
    /// which changes only KLEE's messages; nothing to do.
    MarkGlobal,
    /// `klee_define_fixed_object(address, size)`: a zeroed object at an
    /// address the program names (a device's registers), below the heap
    /// and clear of the functions and every object.
    DefineFixedObject,
    /// `klee_set_forking(enable)`: with 0, the path forks no more (until
    /// asked again): at a branch it takes the first way its condition
    /// allows, as KLEE's takes one way.
    SetForking,
}

impl KleeCall {
    /// The function a declared name stands for, if it is one of these.
    pub fn by_name(name: &str) -> Option<KleeCall> {
        Some(match name {
            "klee_get_value_i32" | "klee_get_value_i64" | "klee_get_valuel"
            | "klee_get_valuell" | "klee_get_valuef" | "klee_get_valued" => KleeCall::GetValue,
            "klee_prefer_cex" | "klee_posix_prefer_cex" => KleeCall::PreferCex,
            "klee_print_expr" => KleeCall::PrintExpr,
            "klee_print_range" => KleeCall::PrintRange,
            "klee_get_obj_size" => KleeCall::GetObjSize,
            "klee_check_memory_access" => KleeCall::CheckMemoryAccess,
            "klee_is_replay" => KleeCall::IsReplay,
            "klee_stack_trace" => KleeCall::StackTrace,
            "klee_open_merge" | "klee_close_merge" => KleeCall::MergeHint,
            "klee_warning_once" => KleeCall::WarningOnce,
            "klee_choose" => KleeCall::Choose,
            "klee_mark_global" => KleeCall::MarkGlobal,
            "klee_define_fixed_object" => KleeCall::DefineFixedObject,
            "klee_set_forking" => KleeCall::SetForking,
            _ => return None,
        })
    }
}

/// Why an object of `size` bytes cannot be placed at `at`, if it cannot:
/// the null page, the functions' addresses and everything from the heap up
/// are the engine's, and objects may not overlap.
fn fixed_object_clash(state: &State, at: u64, size: u64) -> Option<String> {
    let Some(end) = at.checked_add(size.max(1)) else {
        return Some("it would wrap around the address space".to_string());
    };
    if at < NULL_PAGE {
        return Some("the null page holds no object".to_string());
    }
    if at < GLOBAL_BASE && end > FUNCTION_BASE {
        return Some(format!(
            "{FUNCTION_BASE:#x}..{GLOBAL_BASE:#x} holds the functions' addresses"
        ));
    }
    if end > HEAP_BASE {
        return Some(format!("{HEAP_BASE:#x} and above is the engine's"));
    }
    let clash = state
        .memory
        .find(at)
        .or_else(|| state.memory.objects_from(at).next())
        .filter(|e| e.object.address < end)?;
    Some(format!(
        "it overlaps {} at {:#x} ({} bytes)",
        clash.object.name, clash.object.address, clash.object.size
    ))
}

/// The widest symbolic `klee_print_range` argument whose bounds are
/// searched for: each bound costs a query per bit.
const MAX_RANGE_WIDTH: u32 = 64;

impl Executor {
    pub(super) fn klee_call(
        &mut self,
        state: &mut State,
        call: KleeCall,
        args: &[Value],
        ret_width: Option<u32>,
    ) -> Exec<Option<Value>> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::concrete(0, 64));
        match call {
            KleeCall::GetValue => {
                let v = arg(0);
                let width = ret_width.unwrap_or(v.width());
                Ok(Some(Value::concrete(self.concretize(state, &v)?, width)))
            }
            KleeCall::Choose => {
                let n = arg(0).to_expr();
                let x = self.symbolic_int(state, "klee_choose", n.width()).to_expr();
                let below = expr::ult(&x, &n);
                if below.is_false() {
                    return Err(Flow::End(PathEnd::Silent));
                }
                if n.is_const() {
                    // Always possible: the input is fresh, and 0 keeps the
                    // path's known inputs satisfying it.
                    state.add_constraint(below);
                } else {
                    let site = self.call_site(state);
                    self.assume_point(state, site, &below)?;
                }
                Ok(Some(Value::from_expr(x)))
            }
            KleeCall::MarkGlobal => Ok(None),
            KleeCall::SetForking => {
                state.forking_off = self.concretize(state, &arg(0))? == 0;
                Ok(None)
            }
            KleeCall::DefineFixedObject => {
                let at = self.concretize(state, &arg(0))? as u64;
                let size = self.concretize(state, &arg(1))? as u64;
                if let Some(why) = fixed_object_clash(state, at, size) {
                    return Err(self.error(
                        state,
                        ErrorKind::User,
                        format!("klee_define_fixed_object({at:#x}, {size}): {why}"),
                    ));
                }
                self.check_allocation(state, size, "klee_define_fixed_object")?;
                Self::place(
                    state,
                    at,
                    size,
                    AllocKind::Global,
                    Arc::from("fixed object"),
                );
                Ok(None)
            }
            KleeCall::PreferCex => {
                // A constant condition either holds for every test or for
                // none: nothing to prefer.
                if let Value::Symbolic(e) = arg(1) {
                    let cond = match e.width() {
                        1 => e,
                        w => expr::ne(&e, &expr::constant(0, w)),
                    };
                    Arc::make_mut(&mut state.preferences).push(cond);
                }
                Ok(None)
            }
            KleeCall::PrintExpr => {
                let msg = self.read_c_string(state, &arg(0))?;
                match args.get(1) {
                    Some(v) => eprintln!("mnemo: {msg}: {:?}", v.to_expr()),
                    None => eprintln!("mnemo: {msg}"),
                }
                Ok(None)
            }
            KleeCall::PrintRange => {
                let name = self.read_c_string(state, &arg(0))?;
                let text = self.range_text(state, &arg(1));
                eprintln!("mnemo: {name}: {text}");
                Ok(None)
            }
            KleeCall::GetObjSize => {
                let p = self.concretize(state, &arg(0))? as u64;
                let Some(size) = state.memory.find(p).map(|e| e.object.size) else {
                    let kind = if p < NULL_PAGE {
                        ErrorKind::Null
                    } else {
                        ErrorKind::Ptr
                    };
                    return Err(self.error(
                        state,
                        kind,
                        format!("klee_get_obj_size({p:#x}): the pointer is in no object"),
                    ));
                };
                Ok(Some(Value::concrete(size.into(), ret_width.unwrap_or(64))))
            }
            KleeCall::CheckMemoryAccess => {
                let a = self.concretize(state, &arg(0))?;
                let n = self.concretize(state, &arg(1))? as u64;
                // Checked as an access of those bytes would be.
                if n > 0 {
                    self.resolve(state, &Value::concrete(a, 64), n, None)?;
                }
                Ok(None)
            }
            KleeCall::IsReplay => Ok(Some(Value::concrete(0, ret_width.unwrap_or(32)))),
            KleeCall::StackTrace => {
                let mut text = String::from("mnemo: stack trace:");
                for (i, frame) in self.stack_trace(state).iter().enumerate() {
                    let at = self.module.describe_loc(frame.loc);
                    text.push_str(&format!("\n  #{i} {} at {at}", frame.function));
                }
                eprintln!("{text}");
                Ok(None)
            }
            KleeCall::MergeHint => Ok(None),
            KleeCall::WarningOnce => {
                let msg = self.read_c_string(state, &arg(0))?;
                if self.config.shared.first_saying(&msg) {
                    eprintln!("mnemo: warning: {msg}");
                }
                Ok(None)
            }
        }
    }

    /// What `klee_print_range` says of `v`: its value if it has one, else its
    /// expression and the (signed) bounds the path allows it. The bounds are
    /// searched for by the solver, so a path replayed from a trie (which
    /// asks none) gives the expression alone, as does a failed query.
    fn range_text(&mut self, state: &State, v: &Value) -> String {
        let w = v.width();
        let e = match v {
            Value::Concrete { bits, .. } => return to_signed(bits.get(), w).to_string(),
            Value::Symbolic(e) => e.clone(),
        };
        if state.guide.is_some() || w > MAX_RANGE_WIDTH {
            return format!("{e:?}");
        }
        match self.signed_bounds(state, &e) {
            Ok((lo, hi)) if lo == hi => format!("{e:?} == {lo}"),
            Ok((lo, hi)) => format!("{e:?} in [{lo}, {hi}]"),
            Err(_) => format!("{e:?}"),
        }
    }

    /// The least and greatest signed values `e` may take on the path, each
    /// by binary search over its width.
    fn signed_bounds(&mut self, state: &State, e: &ExprRef) -> Exec<(i128, i128)> {
        let w = e.width();
        let c = |x: i128| expr::constant(x as u128 & mask(w), w);
        let v = to_signed(self.example(state, &Value::Symbolic(e.clone()))?, w);
        let (mut lo, mut hi) = (-(1i128 << (w - 1)), v);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.may_be_true(state, &expr::sle(e, &c(mid)))? {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        let least = lo;
        let (mut lo, mut hi) = (v, (1i128 << (w - 1)) - 1);
        while lo < hi {
            let mid = lo + (hi - lo + 1) / 2;
            if self.may_be_true(state, &expr::sge(e, &c(mid)))? {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        Ok((least, lo))
    }
}
