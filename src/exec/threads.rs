//! The threads of a path's process, as the kernel's part of them: each
//! thread is a stack of frames over the one address space, and one runs at
//! a time, until it waits on a futex, yields or exits (the runtime's
//! pthreads make those system calls, `runtime/musl/src/mnemo_thread.c`).
//! Then the next thread able to run does, in the order of their ids after
//! the one that stopped: a schedule a real machine could give, the same
//! each time the path runs, so a trie-guided re-run and a parallel worker
//! meet the same threads at the same places. A thread that waits with a
//! time limit is woken by its timeout only when no thread can run or the
//! only one that can spins, yields in a loop included (time passes only
//! then), and when none can run
//! and none has a limit, the threads wait for ever: the path ends blocked.
//!
//! A thread that takes [`PREEMPT_AFTER`] branches without stopping is
//! stopped at its next branch as if it yielded (a spin on a flag another
//! thread sets, a spin lock another holds, would otherwise never end), but
//! never inside the runtime's own code (or a C library function it
//! called), whose model of the kernel relies on running uninterrupted up
//! to a stop point; the program's code it calls (a thread's function,
//! `main`, a signal handler) is preemptible. The count is the path's,
//! so every run of the path stops the thread at the same branch.
//!
//! A state with one thread carries nothing of this (`State::threads` is
//! `None` until the first `clone`).

use std::mem;
use std::sync::Arc;

use super::end::{EarlyReason, ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow};
use super::memory::AllocKind;
use super::state::{function_at, Frame, State};
use super::value::Value;
use crate::ir::{Const, ConstId, FuncId, Module, Reg};

/// The id of the thread a process starts with (its process id too): not
/// 1, which natively is always init's, a process the program may name
/// (`kill 1`) but not signal. The runtime's `MNEMO_PID`
/// (`runtime/include/mnemo/model.h`) is the same.
pub const MAIN_THREAD: u32 = 1000;

/// The process id of the program's parent (`MNEMO_PARENT_PID`): a process
/// of another user, as the replay's is (run by root, it runs each test as
/// nobody); neither init nor 0, which a program may take for being
/// orphaned or the kernel's child.
pub const PARENT_PROCESS: u32 = 999;

/// What a `futex(2)` operation the runtime's pthreads use does:
/// `FUTEX_PRIVATE_FLAG` and `FUTEX_CLOCK_REALTIME` change nothing of it
/// (one process, no clock), and a bitset wait or wake is a plain one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FutexOp {
    Wait,
    Wake,
    /// `FUTEX_REQUEUE` and `FUTEX_CMP_REQUEUE` (the runtime compares).
    Requeue,
}

impl FutexOp {
    fn of(op: u64) -> Option<FutexOp> {
        match op & !(128 | 256) {
            0 | 9 => Some(FutexOp::Wait),
            1 | 10 => Some(FutexOp::Wake),
            3 | 4 => Some(FutexOp::Requeue),
            _ => None,
        }
    }
}

const EINTR: i64 = 4;
const ETIMEDOUT: i64 = 110;
const ENOSYS: i64 = 38;

/// The threads of a process with more than one, but for the running
/// thread's stack, which is the state's own (`State::stack`).
#[derive(Clone, Debug)]
pub struct Threads {
    running: u32,
    next_id: u32,
    /// The threads not running, by id.
    parked: Vec<Parked>,
    /// The running thread's copies of the thread-local globals, where it
    /// is not the main thread (whose copies are the globals themselves).
    tls: Option<Arc<[u64]>>,
    /// Set by a system call that stops the running thread; the switch is
    /// made once the call's result is in its frame (`Executor::switch_thread`).
    pending: Option<Stop>,
    /// Branches the running thread has taken since it last stopped.
    branches: u32,
}

/// Branches a thread takes without stopping before it is preempted.
const PREEMPT_AFTER: u32 = 1 << 14;

/// What preemption needs of the module: where the runtime keeps the
/// running thread's descriptor (`__mnemo_tp`, which a thread sets itself
/// as it comes back from a stop point), the runtime's function a
/// preempted thread goes on through instead (`__mnemo_resume`, which sets
/// it back, delivers the signals sent meanwhile and acts on an
/// asynchronous cancellation), and whose code each function is.
#[derive(Debug)]
pub(super) struct Preemption {
    thread_pointer: Option<u64>,
    resume: Option<FuncId>,
    code: Vec<Code>,
}

/// Whose code a function is, for preemption.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Code {
    /// The program's: preemptible.
    Program,
    /// The C library's (musl): preemptible where the program called it,
    /// not where the runtime's kernel did.
    Library,
    /// The runtime's model of the kernel (its `mnemo_*.c` files).
    Kernel,
}

impl Preemption {
    /// `runtime_files` says which of the module's files are the runtime's
    /// (musl's and its own); `global_addrs` where each global lies.
    pub(super) fn new(module: &Module, runtime_files: &[bool], global_addrs: &[u64]) -> Self {
        let file_code: Vec<Code> = module
            .files
            .iter()
            .zip(runtime_files)
            .map(|(name, runtime)| match name.rsplit('/').next() {
                _ if !*runtime => Code::Program,
                Some(file) if file.starts_with("mnemo_") => Code::Kernel,
                _ => Code::Library,
            })
            .collect();
        Preemption {
            thread_pointer: module
                .globals
                .iter()
                .position(|g| g.name == "__mnemo_tp")
                .map(|i| global_addrs[i]),
            resume: module
                .func_by_name("__mnemo_resume")
                .filter(|f| module.func(*f).body.is_some()),
            code: module
                .functions
                .iter()
                .map(|f| f.loc.map_or(Code::Program, |l| file_code[l.file.index()]))
                .collect(),
        }
    }

    /// Whether a thread with these frames may be preempted: the innermost
    /// frame that is not the C library's is the program's (the kernel's
    /// below it, if any, called the program and waits for it to return).
    fn allows(&self, stack: &[Frame]) -> bool {
        stack
            .iter()
            .rev()
            .map(|f| self.code[f.func.index()])
            .find(|c| *c != Code::Library)
            != Some(Code::Kernel)
    }
}

/// A thread that is not running, with its stack: shared by the paths a
/// fork makes, as nothing changes it until the thread runs again.
#[derive(Clone, Debug)]
struct Parked {
    id: u32,
    stack: Arc<Vec<Frame>>,
    tls: Option<Arc<[u64]>>,
    waits: Option<Wait>,
    /// The runtime's thread pointer to give back as the thread goes on,
    /// where it was preempted rather than stopped at a system call.
    thread_pointer: Option<u64>,
}

/// A futex wait: the address, whether it has a time limit, and the
/// register that gets the wait's result (`-ETIMEDOUT` if the limit ends it).
#[derive(Clone, Copy, Debug)]
struct Wait {
    key: u64,
    timed: bool,
    result: Option<Reg>,
}

/// Why the running thread stops.
#[derive(Clone, Copy, Debug)]
enum Stop {
    Yield,
    Wait(Wait),
    Exit,
    /// Preempted at a branch, with the runtime's thread pointer then.
    Preempt(u64),
}

impl State {
    /// The running thread's id (`gettid`).
    pub fn thread_id(&self) -> u32 {
        self.threads.as_ref().map_or(MAIN_THREAD, |t| t.running)
    }

    /// The running thread's copies of the thread-local globals; `None` in
    /// the main thread, whose copies are the globals themselves.
    pub fn thread_locals(&self) -> Option<&Arc<[u64]>> {
        self.threads.as_ref().and_then(|t| t.tls.as_ref())
    }
}

impl Threads {
    /// Makes up to `n` threads waiting on `key` able to run, the
    /// longest-parked first (lowest id); how many.
    fn wake(&mut self, key: u64, n: u64) -> u64 {
        let mut woken = 0;
        for p in &mut self.parked {
            if woken == n {
                break;
            }
            if p.waits.is_some_and(|w| w.key == key) {
                p.waits = None;
                woken += 1;
            }
        }
        woken
    }

    /// Moves up to `n` threads waiting on `from` to wait on `to`.
    fn requeue(&mut self, from: u64, to: u64, n: u64) -> u64 {
        let mut moved = 0;
        for w in self.parked.iter_mut().filter_map(|p| p.waits.as_mut()) {
            if moved == n {
                break;
            }
            if w.key == from {
                w.key = to;
                moved += 1;
            }
        }
        moved
    }

    /// The parked thread to run next: the first able to run after the
    /// running thread in id order, else (time passing) the first whose
    /// wait has a limit, which then gets `-ETIMEDOUT`; `None` if every
    /// thread waits for ever. A thread `preempted` (parked already) goes
    /// on only after that: time passes while it spins.
    fn next(&self, preempted: bool) -> Option<(usize, bool)> {
        let after = self.parked.partition_point(|p| p.id <= self.running);
        let order = (after..self.parked.len()).chain(0..after);
        let (mut timed, mut spinning) = (None, None);
        for i in order {
            match self.parked[i].waits {
                None if preempted && self.parked[i].id == self.running => spinning = Some(i),
                None => return Some((i, false)),
                Some(w) if w.timed && timed.is_none() => timed = Some(i),
                Some(_) => {}
            }
        }
        timed.map(|i| (i, true)).or(spinning.map(|i| (i, false)))
    }
}

impl Executor {
    /// `clone(start, arg)`, as the runtime's `pthread_create` makes it: a
    /// new thread that will call `start(arg)` (which never returns); its id.
    pub(super) fn thread_create(&mut self, state: &mut State, start: u64, arg: Value) -> Exec<i64> {
        if self.summarising {
            return Err(self.error(
                state,
                ErrorKind::Unsupported,
                "a thread made by a function summarised alone",
            ));
        }
        let Some(func) = function_at(start, self.module.functions.len()) else {
            return Err(self.error(
                state,
                ErrorKind::External,
                format!("clone of {start:#x}, which is not a function"),
            ));
        };
        let id = state
            .threads
            .as_ref()
            .map_or(MAIN_THREAD + 1, |t| t.next_id);
        let tls = self.thread_locals(state, id)?;
        let own = mem::take(&mut state.stack);
        let made = self.push_frame(state, func, vec![arg], &[], None, None);
        let stack = mem::replace(&mut state.stack, own);
        made?;
        let threads = state.threads.get_or_insert_with(|| {
            Box::new(Threads {
                running: MAIN_THREAD,
                next_id: MAIN_THREAD + 1,
                parked: Vec::new(),
                tls: None,
                pending: None,
                branches: 0,
            })
        });
        threads.next_id += 1;
        threads.parked.push(Parked {
            id,
            stack: Arc::new(stack),
            tls,
            waits: None,
            thread_pointer: None,
        });
        Ok(i64::from(id))
    }

    /// A new thread's copies of the thread-local globals, each as the
    /// program starts it (its initializer): `None` where there are none.
    fn thread_locals(&mut self, state: &mut State, id: u32) -> Exec<Option<Arc<[u64]>>> {
        if self.tls_globals.is_empty() {
            return Ok(None);
        }
        let mut copies = Vec::with_capacity(self.tls_globals.len());
        for i in self.tls_globals.clone() {
            let g = &self.module.globals[i];
            let name: Arc<str> = format!("{} (thread {id})", g.name).into();
            let addr = self.allocate(state, g.size, AllocKind::Global, name)?;
            if let Some(object) = state.memory.state_mut(addr) {
                *object = self.global_contents(i);
            }
            copies.push(addr);
        }
        Ok(Some(copies.into()))
    }

    /// Makes the constants that hold a thread-local global's address hold
    /// the running thread's copy's (see `tls_in_consts`).
    pub(super) fn use_thread_locals(&mut self, state: &State) {
        let tls = state.thread_locals().cloned();
        let same = match (&tls, &self.tls_in_consts) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        if same {
            return;
        }
        for c in self.tls_consts.clone() {
            self.consts[c.index()] = self.eval_const_in(c, tls.as_deref());
        }
        self.tls_in_consts = tls;
    }

    /// `futex(addr, op, val, timeout or val2, addr2)`. The runtime compares
    /// the word with `val` before a wait, so a wait here always waits.
    pub(super) fn futex(&mut self, state: &mut State, args: [u64; 5]) -> Exec<i64> {
        let [addr, op, val, timeout, addr2] = args;
        let Some(threads) = state.threads.as_mut().filter(|t| !t.parked.is_empty()) else {
            // No other thread can wake this one: a wait with a limit ends
            // at once, one without waits for ever.
            return match FutexOp::of(op) {
                Some(FutexOp::Wait) if timeout != 0 => Ok(-ETIMEDOUT),
                Some(FutexOp::Wait) => Err(Flow::End(PathEnd::Early(EarlyReason::Blocked))),
                Some(FutexOp::Wake | FutexOp::Requeue) => Ok(0),
                None => Ok(-ENOSYS),
            };
        };
        Ok(match FutexOp::of(op) {
            Some(FutexOp::Wait) => {
                threads.pending = Some(Stop::Wait(Wait {
                    key: addr,
                    timed: timeout != 0,
                    result: None,
                }));
                0
            }
            Some(FutexOp::Wake) => threads.wake(addr, val) as i64,
            Some(FutexOp::Requeue) => {
                let woken = threads.wake(addr, val);
                (woken + threads.requeue(addr, addr2, timeout)) as i64
            }
            None => -ENOSYS,
        })
    }

    /// Ends thread `tid`'s wait, if it waits: its futex call fails with
    /// `EINTR` (a cancellation request, which its cancellation point then
    /// acts on).
    pub(super) fn thread_interrupt(state: &mut State, tid: u64) {
        let Some(threads) = state.threads.as_mut() else {
            return;
        };
        let Some(p) = threads.parked.iter_mut().find(|p| u64::from(p.id) == tid) else {
            return;
        };
        let Some(w) = p.waits.take() else {
            return;
        };
        let frames = Arc::make_mut(&mut p.stack);
        if let (Some(r), Some(fr)) = (w.result, frames.last_mut()) {
            let width = fr.regs.get(r).width();
            fr.regs
                .set(r, Value::concrete((-EINTR) as u64 as u128, width));
        }
    }

    /// `sched_yield`: the next thread able to run runs.
    pub(super) fn thread_yield(state: &mut State) {
        if let Some(t) = state.threads.as_mut().filter(|t| !t.parked.is_empty()) {
            t.pending = Some(Stop::Yield);
        }
    }

    /// `exit` (the thread's, not `exit_group`): whether another thread
    /// goes on; the last thread's exit is the process's.
    pub(super) fn thread_exit(state: &mut State) -> bool {
        match state.threads.as_mut().filter(|t| !t.parked.is_empty()) {
            Some(t) => {
                t.pending = Some(Stop::Exit);
                true
            }
            None => false,
        }
    }

    /// Whether a system call stopped the running thread.
    pub(super) fn thread_stopped(state: &State) -> bool {
        state.threads.as_ref().is_some_and(|t| t.pending.is_some())
    }

    /// Stops the running thread as its system call asked, `result` being
    /// the register its call's result went to, and runs the next.
    pub(super) fn switch_thread(&mut self, state: &mut State, result: Option<Reg>) -> Exec<()> {
        let Some(threads) = state.threads.as_mut() else {
            return Ok(());
        };
        let Some(stop) = threads.pending.take() else {
            return Ok(());
        };
        let me = threads.running;
        let branches = mem::take(&mut threads.branches);
        let at = threads.parked.partition_point(|p| p.id < me);
        let waits = match stop {
            Stop::Wait(w) => Some(Wait { result, ..w }),
            Stop::Yield | Stop::Preempt(_) => None,
            // The exiting thread waits for ever: it is only chosen when
            // nothing else can run, and then nothing can.
            Stop::Exit => Some(Wait {
                key: u64::MAX,
                timed: false,
                result: None,
            }),
        };
        threads.parked.insert(
            at,
            Parked {
                id: me,
                stack: Arc::default(),
                tls: None,
                waits,
                thread_pointer: match stop {
                    Stop::Preempt(tp) => Some(tp),
                    _ => None,
                },
            },
        );
        let Some((next, timed_out)) = threads.next(matches!(stop, Stop::Preempt(_))) else {
            threads.parked.remove(at);
            return Err(Flow::End(PathEnd::Early(EarlyReason::Blocked)));
        };
        let mut parked = threads.parked.remove(next);
        threads.running = parked.id;
        // A thread that yields with no other able to run goes on as if it
        // had not stopped: a loop of yields waiting for a thread whose
        // wait has a time limit is a spin, preempted in time for that
        // wait to time out, as natively the limit passes while it yields.
        if matches!(stop, Stop::Yield) && parked.id == me {
            threads.branches = branches;
        }
        // The next is this thread again only where it yielded or its wait
        // timed out with no other able to run: its frames stay.
        if parked.id != me {
            let next_stack = Arc::unwrap_or_clone(mem::take(&mut parked.stack));
            state.memory.park_stack();
            let allocas = next_stack.iter().flat_map(|f| f.allocas.iter().copied());
            state.memory.unpark_stack(allocas);
            let own_stack = mem::replace(&mut state.stack, next_stack);
            let own_tls = mem::replace(&mut threads.tls, parked.tls.take());
            if let Stop::Exit = stop {
                threads.parked.retain(|p| p.id != me);
                let freed = own_stack.iter().flat_map(|f| f.allocas.iter());
                for a in freed.chain(own_tls.iter().flat_map(|t| t.iter())) {
                    state.memory.remove(*a);
                }
            } else {
                let own = threads
                    .parked
                    .iter_mut()
                    .find(|p| p.id == me)
                    .expect("parked above");
                own.stack = Arc::new(own_stack);
                own.tls = own_tls;
            }
            // A replay of a callee's recorded paths follows one thread.
            state.composing = None;
        }
        if !self.tls_consts.is_empty() {
            self.use_thread_locals(state);
        }
        if let (Some(tp), Some(resume)) = (parked.thread_pointer, self.preemption.resume) {
            let tp = Value::concrete(u128::from(tp), 64);
            self.push_frame(state, resume, vec![tp], &[], None, None)?;
        }
        if timed_out {
            if let Some(w) = parked.waits.and_then(|w| w.result) {
                let fr = state.frame_mut();
                let width = fr.regs.get(w).width();
                fr.regs
                    .set(w, Value::concrete((-ETIMEDOUT) as u64 as u128, width));
            }
        }
        Ok(())
    }
}

impl Executor {
    /// Counts a branch the running thread is about to take; past
    /// [`PREEMPT_AFTER`] since it last stopped, and outside the runtime's
    /// kernel, the thread is preempted before it (the branch runs when it
    /// goes on): whether it was.
    pub(super) fn preempted(&mut self, state: &mut State) -> Exec<bool> {
        let Some(threads) = state.threads.as_mut().filter(|t| !t.parked.is_empty()) else {
            return Ok(false);
        };
        threads.branches += 1;
        if threads.branches < PREEMPT_AFTER || !self.preemption.allows(&state.stack) {
            return Ok(false);
        }
        // Only where the runtime can take the thread back.
        let (Some(_), Some(tp)) = (self.preemption.resume, self.thread_pointer(state)) else {
            return Ok(false);
        };
        if let Some(threads) = state.threads.as_mut() {
            threads.pending = Some(Stop::Preempt(tp));
        }
        self.switch_thread(state, None)?;
        Ok(true)
    }

    /// The runtime's thread pointer (`__mnemo_tp`): the running thread's
    /// descriptor.
    fn thread_pointer(&self, state: &State) -> Option<u64> {
        let at = self.preemption.thread_pointer?;
        let entry = state.memory.find(at)?;
        match entry.state.read(at - entry.object.address, 8, 64) {
            Value::Concrete { bits, .. } => Some(bits.get() as u64),
            Value::Symbolic(_) => None,
        }
    }
}

/// The constants whose values hold the address of a thread-local global:
/// such a value is the running thread's.
pub(super) fn thread_local_constants(module: &Module) -> Vec<ConstId> {
    fn holds(m: &Module, id: ConstId, memo: &mut [Option<bool>]) -> bool {
        if let Some(known) = memo[id.index()] {
            return known;
        }
        let mut any = |ids: &[ConstId]| ids.iter().any(|c| holds(m, *c, memo));
        let found = match m.constant(id) {
            Const::GlobalAddr { global, .. } => m.global(*global).thread_local,
            Const::Cast { value, .. } => any(&[*value]),
            Const::Binary { lhs, rhs, .. } | Const::ICmp { lhs, rhs, .. } => any(&[*lhs, *rhs]),
            Const::Select {
                cond,
                then_val,
                else_val,
            } => any(&[*cond, *then_val, *else_val]),
            Const::Aggregate { parts, .. } => {
                let ids: Vec<ConstId> = parts.iter().map(|(_, c)| *c).collect();
                any(&ids)
            }
            Const::Int { .. }
            | Const::Undef { .. }
            | Const::Null
            | Const::FuncAddr(_)
            | Const::BlockAddr { .. } => false,
        };
        memo[id.index()] = Some(found);
        found
    }
    let mut memo = vec![None; module.consts.len()];
    (0..module.consts.len() as u32)
        .map(ConstId)
        .filter(|c| holds(module, *c, &mut memo))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parked(id: u32, waits: Option<(u64, bool)>) -> Parked {
        Parked {
            id,
            stack: Arc::default(),
            tls: None,
            thread_pointer: None,
            waits: waits.map(|(key, timed)| Wait {
                key,
                timed,
                result: None,
            }),
        }
    }

    fn threads(running: u32, parked: Vec<Parked>) -> Threads {
        Threads {
            running,
            next_id: 10,
            parked,
            tls: None,
            pending: None,
            branches: 0,
        }
    }

    fn frames(funcs: &[u32]) -> Vec<Frame> {
        funcs
            .iter()
            .map(|f| Frame {
                func: FuncId(*f),
                regs: crate::exec::state::Registers::new(Vec::new()),
                pc: crate::ir::InstId(0),
                entered_by: None,
                allocas: Vec::new(),
                ret_dst: None,
                call_site: None,
                varargs: None,
            })
            .collect()
    }

    #[test]
    fn a_thread_is_preempted_in_the_program_not_in_the_kernel_it_called() {
        // Functions 0..3: the kernel's thread start, the program's thread
        // function, a C library function, a kernel system call.
        let p = Preemption {
            thread_pointer: None,
            resume: None,
            code: vec![Code::Kernel, Code::Program, Code::Library, Code::Kernel],
        };
        // The program, called by the kernel's thread start.
        assert!(p.allows(&frames(&[0, 1])));
        // A library function the program called (a spin lock).
        assert!(p.allows(&frames(&[0, 1, 2])));
        // In a system call, or a library function it called (a copy).
        assert!(!p.allows(&frames(&[0, 1, 3])));
        assert!(!p.allows(&frames(&[0, 1, 3, 2])));
        // The program again, called back from the kernel (a handler).
        assert!(p.allows(&frames(&[0, 1, 3, 2, 1])));
    }

    #[test]
    fn the_next_thread_is_the_first_able_to_run_after_the_running_one() {
        let t = threads(
            3,
            vec![
                parked(1, None),
                parked(2, None),
                parked(4, Some((8, false))),
            ],
        );
        // 4 waits, so the order wraps round to 1.
        assert_eq!(t.next(false), Some((0, false)));
        let t = threads(1, vec![parked(2, Some((8, false))), parked(3, None)]);
        assert_eq!(t.next(false), Some((1, false)));
    }

    #[test]
    fn a_preempted_thread_lets_time_pass_for_a_timed_wait() {
        // Thread 1, preempted (parked with the others), and 2 waiting
        // with a limit: 1 would go on, but spinning it lets time pass.
        let t = threads(1, vec![parked(1, None), parked(2, Some((8, true)))]);
        assert_eq!(t.next(false), Some((0, false)));
        assert_eq!(t.next(true), Some((1, true)));
        // Another able to run goes first either way; with none, 1 goes on.
        let t = threads(1, vec![parked(1, None), parked(3, None)]);
        assert_eq!(t.next(true), Some((1, false)));
        let t = threads(1, vec![parked(1, None), parked(2, Some((8, false)))]);
        assert_eq!(t.next(true), Some((0, false)));
    }

    #[test]
    fn time_passes_only_when_no_thread_can_run() {
        let t = threads(
            1,
            vec![parked(2, Some((8, false))), parked(3, Some((9, true)))],
        );
        assert_eq!(t.next(false), Some((1, true)));
        let t = threads(1, vec![parked(2, Some((8, false)))]);
        assert_eq!(t.next(false), None);
    }

    #[test]
    fn a_wake_frees_the_waiters_on_its_word_in_id_order() {
        let mut t = threads(
            1,
            vec![
                parked(2, Some((8, false))),
                parked(3, Some((9, false))),
                parked(4, Some((8, true))),
            ],
        );
        assert_eq!(t.wake(8, 1), 1);
        assert!(t.parked[0].waits.is_none());
        assert!(t.parked[2].waits.is_some());
        assert_eq!(t.wake(8, 5), 1);
        assert_eq!(t.wake(7, 5), 0);
        // A requeue moves the waiters to the other word without waking them.
        assert_eq!(t.requeue(9, 12, 1), 1);
        assert_eq!(t.wake(9, 1), 0);
        assert_eq!(t.wake(12, 1), 1);
    }
}
