//! Calls and returns: pushing and popping frames, calling defined functions
//! and natives, and resolving the function a pointer names. They share a
//! file because a call and its return must agree on the frame (the register
//! the result goes to, the call site, the allocas freed on return).

use super::access::MAX_TARGET_FORKS;
use super::choices::{by_target, recorded_conditions, MAX_POINTER_TARGETS};
use super::end::{EarlyReason, ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow, NO_TARGET, UNLISTED};
use super::memory::{AllocKind, MemoryObject, ObjectState};
use super::natives::Native;
use super::state::{function_address, function_at, Frame, Registers, State, NULL_PAGE};
use super::value::Value;
use super::value_fork::is_value;
use super::varargs::{self, Varargs};
use crate::expr::{self, ExprRef};
use crate::ir::{Arg, BinOp, BlockId, Callee, FuncId, InstId, Module, Reg, SiteId};

impl Executor {
    pub(crate) fn push_frame(
        &mut self,
        state: &mut State,
        func: FuncId,
        args: Vec<Value>,
        abi: &[Arg],
        ret_dst: Option<Reg>,
        call_site: Option<InstId>,
    ) -> Exec<()> {
        let module = self.module.clone();
        let f = module.func(func);
        let Some(body) = &f.body else {
            return Err(self.error(
                state,
                ErrorKind::External,
                format!("no body for `{}`", f.name),
            ));
        };
        if state.stack.len() >= self.config.max_stack_frames as usize {
            return Err(Flow::End(PathEnd::Early(EarlyReason::MaxStack)));
        }
        let mut regs: Vec<Value> = body
            .reg_widths
            .iter()
            .map(|w| Value::concrete(0, (*w).max(1)))
            .collect();
        let nparams = f.params.len();
        for (i, a) in args.iter().take(nparams).enumerate() {
            regs[i] = a.clone();
        }
        let mut vararg_area = None;
        if f.is_vararg {
            let classes: Vec<varargs::Class> = args
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let a = abi.get(i);
                    let sse = a.is_some_and(|a| a.sse);
                    varargs::Class::of(v.width(), sse, a.and_then(|a| a.byval))
                })
                .collect();
            let layout = varargs::lay_out(&classes, nparams);
            let size = layout.size;
            self.check_allocation(state, size, "varargs")?;
            let addr = state.reserve(size, true);
            let mut obj = ObjectState::zeroed(size);
            // A struct passed by value travels as its bytes, copied once
            // the area is in memory.
            let mut by_value = Vec::new();
            for &(off, i) in &layout.places {
                let a = &args[i];
                if let Some(b) = abi.get(i).and_then(|a| a.byval) {
                    by_value.push((off, i, b.size));
                    continue;
                }
                let bytes = a.width().div_ceil(8);
                let v = if !a.width().is_multiple_of(8) {
                    self.resize(a, bytes * 8, false)
                } else {
                    a.clone()
                };
                obj.write(off, bytes, &v);
            }
            state.memory.insert(
                MemoryObject {
                    address: addr,
                    size,
                    kind: AllocKind::Stack,
                    name: format!("varargs of {}", f.name).into(),
                    site: None,
                    read_only: false,
                },
                obj,
            );
            for (off, i, n) in by_value {
                let to = Value::concrete(u128::from(addr + off), 64);
                if let Err(e) = self.copy_memory(state, &to, &args[i], n) {
                    state.memory.remove(addr);
                    return Err(e);
                }
            }
            vararg_area = Some(Varargs {
                area: addr,
                gp_offset: layout.gp_offset,
                fp_offset: layout.fp_offset,
            });
        }
        let entry = body.block(BlockId(0)).body_start;
        self.enter_block(state, func, BlockId(0));
        state.push_frame(Frame {
            func,
            regs: Registers::new(regs),
            pc: entry,
            entered_by: None,
            allocas: vararg_area.map(|v| v.area).into_iter().collect(),
            ret_dst,
            call_site,
            varargs: vararg_area,
        });
        Ok(())
    }

    /// Returns from the current frame with an optional value.
    pub(crate) fn return_from(&mut self, state: &mut State, value: Option<Value>) -> Exec<()> {
        let frame = state.stack.pop().expect("a running state has a frame");
        for a in &frame.allocas {
            state.memory.remove(*a);
        }
        Executor::leave_replay(state);
        match state.stack.last_mut() {
            None => {
                let status = value.unwrap_or(Value::concrete(0, 32));
                // With the C library linked, returning from the entry
                // function is exit(status), as after main: the atexit
                // handlers run and stdio's buffers are written. A function
                // summarised alone just returns: its caller goes on.
                let exit = self
                    .libc_exit
                    .filter(|e| *e != frame.func && !self.summarising);
                match exit {
                    Some(exit) => self.push_frame(state, exit, vec![status], &[], None, None),
                    None => Err(Flow::End(PathEnd::Completed { status })),
                }
            }
            Some(caller) => {
                if let (Some(dst), Some(v)) = (frame.ret_dst, value) {
                    caller.regs.set(dst, v);
                }
                let (f, pc) = (caller.func, caller.pc);
                if let Some(b) = self
                    .module
                    .func(f)
                    .body
                    .as_ref()
                    .and_then(|b| b.block_of.get(pc.index()))
                {
                    self.enter_block(state, f, *b);
                }
                Ok(())
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn call(
        &mut self,
        module: &Module,
        state: &mut State,
        dst: Option<Reg>,
        ret_width: Option<u32>,
        callee: Callee,
        args: &[Arg],
        site: SiteId,
    ) -> Exec<()> {
        let target = match callee {
            Callee::Direct(f) => f,
            Callee::Indirect(op) => {
                let p = self.operand(state.frame(), op);
                self.resolve_function(state, &p, site, 0)?
            }
        };
        let f = module.func(target);
        let mut values: Vec<Value> = args
            .iter()
            .map(|a| self.operand(state.frame(), a.value))
            .collect();
        let pc = state.frame().pc;
        if f.body.is_some() {
            if values.len() < f.params.len() || (!f.is_vararg && values.len() != f.params.len()) {
                return Err(self.error(
                    state,
                    ErrorKind::BadCall,
                    format!(
                        "call of `{}` with {} arguments; it takes {}",
                        f.name,
                        values.len(),
                        f.params.len()
                    ),
                ));
            }
            // A call through a symbolic pointer forked over its targets
            // already; its children re-execute it with that alternative.
            let concrete_target = match callee {
                Callee::Direct(_) => true,
                Callee::Indirect(op) => self.operand(state.frame(), op).as_concrete().is_some(),
            };
            // The parameters passed by value point at the callee's copies
            // (a variadic callee's other arguments are copied into its
            // area), before a summary is asked about them.
            let named = if f.is_vararg {
                f.params.len()
            } else {
                args.len()
            };
            let depth = state.stack.len();
            let copies = self.copy_by_value(state, &f.name, &args[..named], &mut values)?;
            // A summary's globals are the main thread's: a thread with its
            // own thread-local globals runs its callees itself.
            let composable = concrete_target && state.thread_locals().is_none();
            if let Some(c) = self.composer.clone().filter(|_| composable) {
                if c.at_call(self, state, target, &values, dst, site)? {
                    Self::give_copies(state, depth, copies);
                    return Ok(());
                }
            }
            state.frame_mut().pc = InstId(pc.0 + 1);
            // Only a variadic callee asks where its arguments travel.
            let abi = if f.is_vararg { args } else { &[] };
            self.push_frame(state, target, values, abi, dst, Some(pc))?;
            Self::give_copies(state, depth, copies);
            return Ok(());
        }
        let Some(native) = self.natives[target.index()] else {
            self.unsupported_externals.insert(f.name.clone());
            return Err(self.error(
                state,
                ErrorKind::External,
                format!("unsupported external call {}", f.name),
            ));
        };
        match native {
            Native::SetJmp { sig } => return self.set_jump(state, &values, dst, pc, sig),
            Native::LongJmp => return self.long_jump(state, &values),
            _ => {}
        }
        let result = self.call_native(state, native, &f.name, &values, ret_width)?;
        let fr = state.frame_mut();
        if let (Some(d), Some(v)) = (dst, result) {
            fr.regs.set(d, v);
        }
        fr.pc = InstId(pc.0 + 1);
        if Executor::thread_stopped(state) {
            return self.switch_thread(state, dst);
        }
        Ok(())
    }

    /// Copies each argument of `args` passed by value (`byval`) into a
    /// fresh stack object and points its value there: the callee's writes
    /// to its parameter must not reach the caller's object. The copies'
    /// addresses, for the callee's frame to free.
    fn copy_by_value(
        &mut self,
        state: &mut State,
        callee: &str,
        args: &[Arg],
        values: &mut [Value],
    ) -> Exec<Vec<u64>> {
        let mut copies = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let Some(b) = a.byval else { continue };
            let name: std::sync::Arc<str> = format!("argument {} of {callee}", i + 1).into();
            let made = self.allocate(state, b.size, AllocKind::Stack, name);
            let copied = made.and_then(|addr| {
                copies.push(addr);
                let to = Value::concrete(u128::from(addr), 64);
                self.copy_memory(state, &to, &values[i], b.size)?;
                values[i] = to;
                Ok(())
            });
            if let Err(e) = copied {
                for addr in copies {
                    state.memory.remove(addr);
                }
                return Err(e);
            }
        }
        Ok(copies)
    }

    /// Hands the copies of a call's by-value arguments to the callee's
    /// frame, pushed above `depth`, which frees them when it returns; with
    /// no frame (a summary answered for the call) they go now.
    fn give_copies(state: &mut State, depth: usize, copies: Vec<u64>) {
        if copies.is_empty() {
            return;
        }
        if state.stack.len() > depth {
            state.stack[depth].allocas.extend(copies);
        } else {
            for addr in copies {
                state.memory.remove(addr);
            }
        }
    }

    /// The function a pointer calls, forking over the functions a symbolic
    /// pointer may name (a null or non-function target is an error path);
    /// `forks`: earlier forks of this call that left functions unlisted.
    fn resolve_function(
        &mut self,
        state: &mut State,
        p: &Value,
        site: SiteId,
        forks: u32,
    ) -> Exec<FuncId> {
        let nfuncs = self.module.functions.len();
        let addr = match p {
            Value::Concrete { bits, .. } => bits.get() as u64,
            Value::Symbolic(e) => {
                let e = e.clone();
                let payload = self.choose_target(
                    state,
                    site,
                    |ex, st| ex.function_targets(st, &e, nfuncs),
                    |_, payloads| Ok(target_conditions(&e, payloads)),
                )?;
                if payload == UNLISTED {
                    // None of the functions found: the next ones.
                    if forks + 1 >= MAX_TARGET_FORKS {
                        return Err(Flow::End(PathEnd::Early(EarlyReason::MaxTargets)));
                    }
                    return self.resolve_function(state, p, site, forks + 1);
                }
                if payload == NO_TARGET {
                    self.example(state, p)? as u64
                } else {
                    payload
                }
            }
        };
        match function_at(addr, nfuncs) {
            Some(f) => Ok(f),
            None if addr < NULL_PAGE => Err(self.error(
                state,
                ErrorKind::Null,
                "call through a null function pointer",
            )),
            None => Err(self.error(
                state,
                ErrorKind::BadCall,
                format!("call through {addr:#x}, which is not a function"),
            )),
        }
    }

    /// The functions a symbolic pointer may name, one alternative each, then
    /// the error alternative if it may also be anything else; past
    /// `MAX_POINTER_TARGETS` of them, `UNLISTED` instead, whose side
    /// looks for the next ones.
    fn function_targets(
        &mut self,
        state: &State,
        e: &ExprRef,
        nfuncs: usize,
    ) -> Exec<(Vec<ExprRef>, Vec<u64>)> {
        let span = expr::constant(16 * nfuncs as u128, 64);
        let off = expr::sub(e, &expr::constant(function_address(FuncId(0)) as u128, 64));
        let aligned = expr::eq(
            &expr::binary(BinOp::And, &off, &expr::constant(15, 64)),
            &expr::constant(0, 64),
        );
        let is_function = expr::and(&expr::ult(&off, &span), &aligned);
        let (mut payloads, all) =
            self.distinct_values(state, e, &is_function, MAX_POINTER_TARGETS)?;
        // Anything else: a null or non-function pointer (the fork checks it
        // is feasible), or more functions.
        payloads.push(if all { NO_TARGET } else { UNLISTED });
        Ok(by_target(target_conditions(e, &payloads), payloads))
    }
}

/// The conditions of a call's alternatives: `e` is the function's address,
/// or none of them for `NO_TARGET` and `UNLISTED`.
fn target_conditions(e: &ExprRef, payloads: &[u64]) -> Vec<ExprRef> {
    match recorded_conditions(payloads, |v| Some(is_value(e, v))) {
        Ok(conds) => conds,
        Err(_) => unreachable!("every payload has a condition"),
    }
}
