//! `setjmp` and `longjmp` (and their `sig` and `_` forms): a non-local
//! return to a frame still on the stack.
//!
//! `setjmp` writes into the `jmp_buf` where it was called from: the depth
//! of the calling frame, its function and the call instruction, behind a
//! tag. `longjmp` reads them back, pops the frames above (releasing their
//! stack objects, as returns would) and resumes after that call with the
//! value given (1 for 0). Registers of the resumed frame keep the values
//! they have at the jump; at `-O0` locals live in memory, so the program
//! sees what C promises it (volatile locals as last written).
//!
//! `sigsetjmp(env, savemask)` with a mask to keep has the runtime save
//! the running thread's signal mask into `env` (`__mnemo_sigjmp_save`,
//! called as `sigsetjmp` returns 0) and marks the buffer, and a jump to a
//! marked buffer has the runtime restore it as `sigsetjmp` returns again
//! (`__mnemo_sigjmp_restore`), as musl's `sigsetjmp` does on its way out:
//! a handler left by a jump unblocks its signal, whichever of `longjmp`
//! and `siglongjmp` made it (both C libraries restore a kept mask).

use super::end::ErrorKind;
use super::executor::{Exec, Executor};
use super::state::State;
use super::value::Value;
use crate::expr;
use crate::ir::{FuncId, Inst, InstId, Reg};

/// Marks a `jmp_buf` that `setjmp` filled ("mnemojmp", little-endian).
const TAG: u64 = u64::from_le_bytes(*b"mnemojmp");
/// The words `setjmp` writes: tag, depth, function, call instruction and
/// whether the runtime kept the signal mask (musl's `jmp_buf` has 25, of
/// which the mask takes the last 17, and glibc's 25 as well).
const WORDS: u64 = 5;
/// The runtime's functions that keep and restore the signal mask
/// (`runtime/musl/src/mnemo_jumps.c`), linked wherever `sigsetjmp` is
/// called.
const SAVE_MASK: &str = "__mnemo_sigjmp_save";
const RESTORE_MASK: &str = "__mnemo_sigjmp_restore";

impl Executor {
    /// `setjmp(env)` called by the instruction at `pc` of the current
    /// frame: records where to come back to and returns 0 into `dst`.
    /// With `sig`, `sigsetjmp(env, savemask)`: a mask to keep is saved by
    /// the runtime, which the call goes on through.
    pub(super) fn set_jump(
        &mut self,
        state: &mut State,
        args: &[Value],
        dst: Option<Reg>,
        pc: InstId,
        sig: bool,
    ) -> Exec<()> {
        let env = self.jump_buffer(state, args, "setjmp")?;
        let save = match args.get(1).filter(|_| sig) {
            Some(savemask) if self.concretize(state, savemask)? != 0 => {
                self.runtime_function(SAVE_MASK)
            }
            _ => None,
        };
        let fr = state.frame();
        let words = [
            TAG,
            state.stack.len() as u64,
            u64::from(fr.func.0),
            u64::from(pc.0),
            u64::from(save.is_some()),
        ];
        for (i, w) in words.iter().enumerate() {
            let at = Value::concrete(u128::from(env + 8 * i as u64), 64);
            self.store(state, &at, 8, &Value::concrete(u128::from(*w), 64), None)?;
        }
        let fr = state.frame_mut();
        if let Some(d) = dst {
            let width = fr.regs.get(d).width();
            fr.regs.set(d, Value::concrete(0, width));
        }
        fr.pc = InstId(pc.0 + 1);
        self.call_runtime(state, save, env)
    }

    /// The runtime's function `name`, where the program linked it.
    fn runtime_function(&self, name: &str) -> Option<FuncId> {
        self.module
            .func_by_name(name)
            .filter(|f| self.module.func(*f).body.is_some())
    }

    /// Calls `f(env)` from the current frame, which goes on where it is
    /// once `f` returns.
    fn call_runtime(&mut self, state: &mut State, f: Option<FuncId>, env: u64) -> Exec<()> {
        match f {
            Some(f) => {
                let env = Value::concrete(u128::from(env), 64);
                self.push_frame(state, f, vec![env], &[], None, None)
            }
            None => Ok(()),
        }
    }

    /// `longjmp(env, val)`: back to where `setjmp` filled `env`, whose
    /// frame must still be on the stack.
    pub(super) fn long_jump(&mut self, state: &mut State, args: &[Value]) -> Exec<()> {
        let env = self.jump_buffer(state, args, "longjmp")?;
        let mut words = [0u64; WORDS as usize];
        for (i, w) in words.iter_mut().enumerate() {
            let at = Value::concrete(u128::from(env + 8 * i as u64), 64);
            let v = self.load(state, &at, 8, 64, None)?;
            *w = self.concretize(state, &v)? as u64;
        }
        let [tag, depth, func, pc, kept_mask] = words;
        let depth = usize::try_from(depth).unwrap_or(usize::MAX);
        let live = tag == TAG
            && depth >= 1
            && depth <= state.stack.len()
            && u64::from(state.stack[depth - 1].func.0) == func;
        let call = live
            .then(|| {
                let f = FuncId(func as u32);
                let body = self.module.func(f).body.as_ref()?;
                match body.insts.get(usize::try_from(pc).ok()?)? {
                    Inst::Call { dst, .. } => Some((f, InstId(pc as u32), *dst)),
                    _ => None,
                }
            })
            .flatten();
        let Some((f, pc, dst)) = call else {
            return Err(self.error(
                state,
                ErrorKind::BadCall,
                format!("longjmp to {env:#x}, which no setjmp of a live frame filled"),
            ));
        };
        let value = args.get(1).cloned().unwrap_or(Value::concrete(1, 32));
        // longjmp(env, 0) makes setjmp return 1.
        let value = match &value {
            Value::Concrete { bits, width } if bits.get() == 0 => Value::concrete(1, *width),
            Value::Concrete { .. } => value,
            Value::Symbolic(e) => {
                let w = e.width();
                let zero = expr::eq(e, &expr::constant(0, w));
                Value::from_expr(expr::select(&zero, &expr::constant(1, w), e))
            }
        };
        while state.stack.len() > depth {
            let frame = state.stack.pop().expect("deeper than the target");
            for a in &frame.allocas {
                state.memory.remove(*a);
            }
            Executor::leave_replay(state);
        }
        let fr = state.frame_mut();
        if let Some(d) = dst {
            let width = fr.regs.get(d).width();
            fr.regs.set(d, self.resize(&value, width, false));
        }
        let next = InstId(pc.0 + 1);
        state.frame_mut().pc = next;
        let block = self
            .module
            .func(f)
            .body
            .as_ref()
            .and_then(|b| b.block_of.get(next.index()).copied());
        if let Some(b) = block {
            self.enter_block(state, f, b);
        }
        let restore = (kept_mask != 0)
            .then(|| self.runtime_function(RESTORE_MASK))
            .flatten();
        self.call_runtime(state, restore, env)
    }

    /// The address of the `jmp_buf` argument, concrete.
    fn jump_buffer(&mut self, state: &mut State, args: &[Value], what: &str) -> Exec<u64> {
        match args.first() {
            Some(v) => Ok(self.concretize(state, v)? as u64),
            None => Err(self.error(
                state,
                ErrorKind::BadCall,
                format!("{what} called without its jmp_buf"),
            )),
        }
    }
}
