//! Functions the engine implements itself: what must touch the engine's
//! own state (memory allocation, symbolic inputs, path termination, output).
//! Everything else of the C library is C code in `runtime/`.

use super::access::MAX_OBJECT;
use super::end::{ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow};
use super::klee_api::KleeCall;
use super::memory::{AllocKind, MemoryObject, ObjectState};
use super::state::{Answer, State};
use super::ubsan::UbsanCheck;
use super::value::{Byte, Value};
use crate::expr;

/// A native function, chosen once per declared function when the executor
/// is created, so calls never look names up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Native {
    Malloc,
    Calloc,
    Realloc,
    /// `aligned_alloc` and `memalign` (alignment, size): a heap block at a
    /// multiple of the alignment (musl's `posix_memalign` calls it).
    AlignedAlloc,
    Free,
    Exit,
    Abort,
    AssertFail,
    Write,
    MakeSymbolic,
    Assume,
    Range,
    Int,
    ReportError,
    SilentExit,
    Warning,
    IsSymbolic,
    /// `mnemo_example`: a value without constraining the path (runtime output).
    Example,
    /// `mnemo_bytes_left`: how many bytes of its object lie from a pointer
    /// on (0 for a symbolic pointer or one into no object), so the runtime
    /// can read a symbolic string to its object's end without forking on
    /// where it ends.
    BytesLeft,
    /// `__VERIFIER_nondet_*`: a fresh symbolic value of the return width;
    /// `boolean` ones are constrained to 0 or 1.
    Nondet {
        boolean: bool,
    },
    ReachError,
    /// `__mnemo_kernel`: a system call the runtime's model of files
    /// leaves to the engine (`syscalls`).
    Syscall,
    /// `__mnemo_host_file`: a host file `--file` names, for the model of files.
    HostFile,
    /// `setjmp`, `_setjmp`, `sigsetjmp` (`jumps`); `sig` where a second
    /// argument says whether to keep the signal mask.
    SetJmp {
        sig: bool,
    },
    /// `longjmp`, `_longjmp`, `siglongjmp` (`jumps`).
    LongJmp,
    /// The rest of klee.h, which only harnesses call (`klee_api`).
    Klee(KleeCall),
    /// `__ubsan_handle_*`: a check `-fsanitize=` compiled in failed (`ubsan`).
    Ubsan(UbsanCheck),
}

impl Native {
    pub fn by_name(name: &str) -> Option<Native> {
        Some(match name {
            // musl's own code allocates through its internal names.
            "malloc" | "__libc_malloc" => Native::Malloc,
            "calloc" | "__libc_calloc" => Native::Calloc,
            "realloc" => Native::Realloc,
            "aligned_alloc" | "memalign" => Native::AlignedAlloc,
            "free" | "__libc_free" => Native::Free,
            "exit" | "_exit" | "_Exit" => Native::Exit,
            "abort" | "klee_abort" => Native::Abort,
            "__assert_fail" => Native::AssertFail,
            "write" => Native::Write,
            "klee_make_symbolic" => Native::MakeSymbolic,
            "klee_assume" | "__VERIFIER_assume" => Native::Assume,
            "klee_range" => Native::Range,
            "klee_int" => Native::Int,
            "klee_report_error" => Native::ReportError,
            "klee_silent_exit" => Native::SilentExit,
            "klee_warning" => Native::Warning,
            "klee_is_symbolic" => Native::IsSymbolic,
            "mnemo_example" => Native::Example,
            "mnemo_bytes_left" => Native::BytesLeft,
            "reach_error" | "__VERIFIER_error" => Native::ReachError,
            "__mnemo_kernel" => Native::Syscall,
            "__mnemo_host_file" => Native::HostFile,
            "setjmp" | "_setjmp" => Native::SetJmp { sig: false },
            "sigsetjmp" | "__sigsetjmp" => Native::SetJmp { sig: true },
            "longjmp" | "_longjmp" | "siglongjmp" => Native::LongJmp,
            n if n.starts_with("__VERIFIER_nondet_") => Native::Nondet {
                boolean: n.ends_with("bool") || n.ends_with("_Bool"),
            },
            n if n.starts_with("__ubsan_handle_") => Native::Ubsan(UbsanCheck::by_name(n)?),
            n => Native::Klee(KleeCall::by_name(n)?),
        })
    }
}

impl Executor {
    pub(crate) fn call_native(
        &mut self,
        state: &mut State,
        native: Native,
        name: &str,
        args: &[Value],
        ret_width: Option<u32>,
    ) -> Exec<Option<Value>> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::concrete(0, 64));
        let ptr = |v: u64| Some(Value::concrete(v as u128, 64));
        match native {
            Native::Malloc => {
                let size = self.heap_size(state, &arg(0), None)?;
                Ok(ptr(self.heap_alloc(state, size, "malloc")?))
            }
            Native::Calloc => {
                let size = self.heap_size(state, &arg(0), Some(&arg(1)))?;
                Ok(ptr(self.heap_alloc(state, size, "calloc")?))
            }
            Native::AlignedAlloc => {
                let align = self.concretize(state, &arg(0))? as u64;
                let size = self.heap_size(state, &arg(1), None)?;
                if !align.is_power_of_two() {
                    return Ok(ptr(0));
                }
                // Heap addresses only grow: moving the next one up to the
                // alignment aligns the block, and the gap holds nothing.
                state.next_heap = state.next_heap.next_multiple_of(align.max(16));
                Ok(ptr(self.heap_alloc(state, size, "aligned_alloc")?))
            }
            Native::Realloc => {
                let old = self.concretize(state, &arg(0))? as u64;
                let size = self.heap_size(state, &arg(1), None)?;
                if old == 0 {
                    return Ok(ptr(self.heap_alloc(state, size, "realloc")?));
                }
                let (old_size, contents) = match state.memory.get(old) {
                    Some(e) if e.object.kind == AllocKind::Heap => (e.object.size, e.state.clone()),
                    _ => return Err(self.bad_free(state, old, "realloc")),
                };
                let new = self.heap_alloc(state, size, "realloc")?;
                if new == 0 {
                    // As realloc fails natively: the old block stays.
                    return Ok(ptr(0));
                }
                let dst = state.memory.state_mut(new).expect("just allocated");
                for i in 0..old_size.min(size) {
                    dst.set_byte(i, contents.byte(i));
                }
                state.memory.remove(old);
                Ok(ptr(new))
            }
            Native::Free => {
                let p = self.concretize(state, &arg(0))? as u64;
                if p == 0 {
                    return Ok(None);
                }
                match state.memory.get(p) {
                    Some(e) if e.object.kind == AllocKind::Heap => {
                        state.memory.remove(p);
                        Ok(None)
                    }
                    _ => Err(self.bad_free(state, p, "free")),
                }
            }
            Native::Exit => Err(Flow::End(PathEnd::Completed { status: arg(0) })),
            Native::Abort => Err(self.error(state, ErrorKind::Abort, format!("{name}() called"))),
            Native::AssertFail => {
                let what = self.read_c_string(state, &arg(0))?;
                Err(self.error(state, ErrorKind::Assert, format!("ASSERTION FAIL: {what}")))
            }
            Native::Write => {
                // With no C library to set errno, a failed write gives -1.
                let n = self.write_fd(state, &arg(0), &arg(1), &arg(2))?.max(-1);
                Ok(Some(Value::concrete(
                    n as u64 as u128,
                    ret_width.unwrap_or(64),
                )))
            }
            Native::MakeSymbolic => {
                let addr = self.concretize(state, &arg(0))? as u64;
                let size = self.concretize(state, &arg(1))? as u64;
                let label = self.read_c_string(state, &arg(2))?;
                let Some(e) = state.memory.find(addr) else {
                    return Err(self.error(
                        state,
                        ErrorKind::User,
                        format!("klee_make_symbolic on {addr:#x}, which is in no object"),
                    ));
                };
                let (base, obj_size) = (e.object.address, e.object.size);
                if addr - base + size > obj_size || size > u32::MAX as u64 {
                    return Err(self.error(
                        state,
                        ErrorKind::User,
                        format!("klee_make_symbolic of {size} bytes at offset {} of a {obj_size}-byte object", addr - base),
                    ));
                }
                let array = self.new_symbolic(state, &label, size as u32);
                state
                    .memory
                    .state_mut(base)
                    .expect("live")
                    .make_symbolic(addr - base, &array);
                Ok(None)
            }
            Native::Assume => {
                // A `klee_assume` no input of the path meets is a mistake
                // of the harness, which KLEE reports as a user error (with
                // a test, showing the path that reached it) unless told
                // `--silent-klee-assume`; SV-COMP defines its
                // `__VERIFIER_assume` to end such a path silently.
                let silent = self.config.silent_assume || name == "__VERIFIER_assume";
                let cond = match &arg(0) {
                    Value::Concrete { bits, .. } if bits.get() != 0 => return Ok(None),
                    Value::Concrete { .. } if silent => return Err(Flow::End(PathEnd::Silent)),
                    Value::Concrete { .. } => return Err(self.invalid_assume(state)),
                    Value::Symbolic(e) => expr::ne(e, &expr::constant(0, e.width())),
                };
                let site = self.call_site(state);
                match self.assume_point(state, site, &cond) {
                    // Only where the solver showed it false: one that ran
                    // out of time is left undecided, silently.
                    Err(Flow::End(PathEnd::Silent))
                        if !silent
                            && state.stopped_at.as_ref().is_some_and(|p| {
                                p.alts.iter().all(|a| a.answer == Answer::Infeasible)
                            }) =>
                    {
                        Err(self.invalid_assume(state))
                    }
                    r => r.map(|()| None),
                }
            }
            Native::Range => {
                let lo = self.concretize(state, &arg(0))? as u32 as i32;
                let hi = self.concretize(state, &arg(1))? as u32 as i32;
                let name = self.read_c_string(state, &arg(2))?;
                if hi <= lo {
                    return Err(self.error(
                        state,
                        ErrorKind::User,
                        format!("klee_range({lo}, {hi}): empty range"),
                    ));
                }
                let v = self.symbolic_int(state, &name, 32);
                // Inputs that satisfy the path keep doing so with the new
                // one at `lo` (else it would read as 0, maybe out of range).
                if let (Some(h), Some(s)) = (state.hint.as_mut(), state.symbolics.last()) {
                    std::sync::Arc::make_mut(h).set(&s.array, (lo as u32).to_le_bytes().to_vec());
                }
                let e = v.to_expr();
                let lo_e = expr::constant(lo as u32 as u128, 32);
                let hi_e = expr::constant(hi as u32 as u128, 32);
                state.add_constraint(expr::and(&expr::sle(&lo_e, &e), &expr::slt(&e, &hi_e)));
                Ok(Some(v))
            }
            Native::Int => {
                let name = self.read_c_string(state, &arg(0))?;
                Ok(Some(self.symbolic_int(state, &name, 32)))
            }
            Native::ReportError => {
                let msg = self.read_c_string(state, &arg(2))?;
                Err(self.error(state, ErrorKind::User, msg))
            }
            Native::SilentExit => Err(Flow::End(PathEnd::Silent)),
            Native::Warning => {
                let msg = self.read_c_string(state, &arg(0))?;
                eprintln!("mnemo: warning: {msg}");
                Ok(None)
            }
            Native::IsSymbolic => {
                let w = ret_width.unwrap_or(32);
                Ok(Some(Value::concrete(
                    matches!(arg(0), Value::Symbolic(_)) as u128,
                    w,
                )))
            }
            Native::Example => {
                let v = arg(0);
                let w = v.width();
                Ok(Some(Value::concrete(self.example(state, &v)?, w)))
            }
            Native::BytesLeft => {
                let left = match arg(0) {
                    Value::Concrete { bits, .. } => {
                        let addr = bits.get() as u64;
                        state
                            .memory
                            .find(addr)
                            .map_or(0, |e| e.object.size - (addr - e.object.address))
                    }
                    Value::Symbolic(_) => 0,
                };
                Ok(Some(Value::concrete(
                    u128::from(left),
                    ret_width.unwrap_or(64),
                )))
            }
            Native::Nondet { boolean } => {
                let Some(w) = ret_width else {
                    return Err(self.error(
                        state,
                        ErrorKind::External,
                        format!("{name} returns nothing"),
                    ));
                };
                let v = self.symbolic_int(state, name, w.div_ceil(8) * 8);
                if boolean {
                    let e = v.to_expr();
                    state.add_constraint(expr::ule(&e, &expr::constant(1, e.width())));
                }
                Ok(Some(self.resize(&v, w, false)))
            }
            Native::ReachError => {
                Err(self.error(state, ErrorKind::Reach, format!("{name}() reached")))
            }
            Native::Klee(call) => self.klee_call(state, call, args, ret_width),
            Native::Ubsan(check) => self.ubsan_check(state, check, args),
            Native::Syscall => self.system_call(state, args),
            Native::HostFile => self.host_file(state, args),
            // They move the program counter, so `call` runs them itself.
            Native::SetJmp { .. } | Native::LongJmp => Err(self.error(
                state,
                ErrorKind::External,
                format!("{name} is not called as a function here"),
            )),
        }
    }

    /// A heap block, or 0 (null) past the largest object mnemo models: a
    /// request that large (`sort -S 1P`) fails natively too, and the
    /// program goes on with the null it gets.
    /// The bytes a heap allocation of `n` (times `m`, for calloc) gets: a
    /// symbolic size forks over its values (see `allocation_size`), one
    /// too large for any object giving the null a huge concrete one gives.
    fn heap_size(&mut self, state: &mut State, n: &Value, m: Option<&Value>) -> Exec<u64> {
        let wide = |v: &Value| expr::zext(&v.to_expr(), 128);
        let total = match m {
            None => match n {
                Value::Concrete { bits, .. } => return Ok(bits.get() as u64),
                Value::Symbolic(_) => wide(n),
            },
            // Exact in 128 bits: a product that overflows a size_t is too
            // large, as calloc finds it.
            Some(m) => expr::mul(&wide(n), &wide(m)),
        };
        let site = self.call_site(state);
        self.allocation_size(state, site, &total)
    }

    fn heap_alloc(&mut self, state: &mut State, size: u64, what: &str) -> Exec<u64> {
        if size > MAX_OBJECT {
            return Ok(0);
        }
        self.allocate(state, size, AllocKind::Heap, what.into())
    }

    fn bad_free(&self, state: &State, p: u64, what: &str) -> Flow {
        if state.memory.find_freed(p).is_some_and(|o| o.address == p) {
            return self.error(
                state,
                ErrorKind::DoubleFree,
                format!("{what} of {p:#x}, already freed"),
            );
        }
        let desc = match state.memory.find(p) {
            Some(e) => format!(
                "{what} of {p:#x}, inside `{}`, which is not a heap block",
                e.object.name
            ),
            None => format!("{what} of {p:#x}, which is not a heap block"),
        };
        self.error(state, ErrorKind::InvalidFree, desc)
    }

    /// A fresh symbolic integer of `width` bits (a multiple of 8), one input.
    pub(super) fn symbolic_int(&mut self, state: &mut State, name: &str, width: u32) -> Value {
        let bytes = width / 8;
        let array = self.new_symbolic(state, name, bytes);
        let list = expr::UpdateList::new(array);
        let mut acc: Option<expr::ExprRef> = None;
        for i in 0..bytes {
            let b = expr::read(&list, &expr::constant(i as u128, 64));
            acc = Some(match acc {
                None => b,
                Some(lo) => expr::concat(&b, &lo),
            });
        }
        Value::from_expr(acc.expect("at least one byte"))
    }

    /// The bytes of memory at `addr`, symbolic ones as they are.
    pub(super) fn read_raw_bytes(&mut self, state: &State, addr: u64, n: u64) -> Exec<Vec<Byte>> {
        let mut out = Vec::with_capacity(n as usize);
        let end = addr.saturating_add(n);
        let mut a = addr;
        // Object by object: a write of a MiB (`yes`) looks each up once.
        while a < end {
            let Some(e) = state.memory.find(a) else {
                return Err(self.error(
                    state,
                    ErrorKind::Ptr,
                    format!("output read from {a:#x}, which is in no object"),
                ));
            };
            // `find` gave the object holding `a`: at least a byte of it.
            let offset = a - e.object.address;
            let span = (end - a).min(e.object.size - offset);
            out.extend(
                e.state
                    .bytes_at(&Value::concrete(u128::from(offset), 64), span),
            );
            a += span;
        }
        Ok(out)
    }

    /// A new object of the path holding `bytes` (a runtime object, as argv's
    /// are); gives its address.
    pub(super) fn allocate_bytes(
        &mut self,
        state: &mut State,
        bytes: &[u8],
        name: &str,
        read_only: bool,
    ) -> Exec<u64> {
        let size = bytes.len() as u64;
        self.check_allocation(state, size, name)?;
        let addr = state.reserve(size, false);
        state.memory.insert(
            MemoryObject {
                address: addr,
                size,
                kind: AllocKind::Runtime,
                name: name.into(),
                site: None,
                read_only,
            },
            ObjectState::from_bytes(bytes.to_vec()),
        );
        Ok(addr)
    }
}

impl Executor {
    /// The user error of a `klee_assume` the path cannot meet (KLEE's
    /// words, so that scripts reading `.err` files find them).
    fn invalid_assume(&self, state: &State) -> Flow {
        self.error(
            state,
            ErrorKind::User,
            "invalid klee_assume call (provably false)",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Native;
    use crate::ir::archive::Archive;
    use crate::testgen::Toolchain;

    /// Every symbol the runtime's C library needs and does not define is
    /// the engine's (or `main`, the program's): a musl function calling
    /// one that is neither would end its paths as an unsupported external
    /// call, as popen's `__libc_malloc` once did. `pthread_cancel`, which
    /// only musl's asynchronous I/O and message queue notifications call
    /// (each on a thread of its own, which a run cannot make), is the one
    /// exception.
    #[test]
    fn every_symbol_the_runtime_leaves_undefined_is_the_engine_s() {
        let tc = Toolchain::find().expect("the runtime is built before the tests");
        let dir = tc.runtime_bitcode().expect("the runtime's C library");
        let archive = Archive::open(&dir).expect("its index");
        let missing: Vec<&str> = archive
            .unresolved()
            .into_iter()
            .filter(|s| !["main", "pthread_cancel"].contains(s) && Native::by_name(s).is_none())
            .collect();
        assert!(missing.is_empty(), "needed and nowhere: {missing:?}");
    }
}
