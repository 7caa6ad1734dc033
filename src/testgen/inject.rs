//! Failure injection in a native replay (`--max-fail N`, `--fd-fail`): the
//! system calls the engine's model failed, failed again in the native
//! program. The model (`runtime/musl/src/mnemo_fail.c`) counts each
//! family's system calls from `main` on and fails the one a symbolic index
//! names; the replay lets the program run to `main` (a breakpoint there),
//! follows its system calls with ptrace from then on, counts them the same
//! way, and makes the named call return the model's error without letting
//! it reach the kernel. What the program does before `main` (the dynamic
//! loader reading its libraries, a sanitizer reading its maps, the replay
//! library reading the test) is not counted, as the model has none of it;
//! a program without the symbol (stripped) cannot be replayed so.
//!
//! The same stop at `main` gives the program the arguments an exec cannot:
//! a symbolic argument whose bytes after its first NUL are not all NUL,
//! which the path read (`argv[1][1]` where `argv[1][0]` is NUL). The
//! program is started with a placeholder as long as the model's buffer,
//! and the buffer's bytes are written over it at `main`, so that the
//! native program reads what the engine's did.

use std::io;
use std::process::Child;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::Duration;

use object::{Object, ObjectSymbol};

use super::classify::Termination;

/// The families of calls that may fail, by the names of their indices in a
/// test, in the order the runtime makes them (KLEE's).
pub const FAMILIES: [&str; 5] = [
    "read_fail",
    "write_fail",
    "close_fail",
    "ftruncate_fail",
    "getcwd_fail",
];
const GETCWD: usize = 4;

/// The system calls a test fails, as its objects say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failures {
    /// How many calls may fail in all (`--max-fail`).
    pub max: u32,
    /// For each family of [`FAMILIES`], the number (from 1) of the call
    /// that fails; any other value fails none.
    pub index: [i32; 5],
}

impl Failures {
    /// A test that fails no call.
    pub const NONE: Failures = Failures {
        max: 0,
        index: [0; 5],
    };

    /// Whether the test fails a call at all: most tests of a run with
    /// failures fail none, and replay without being traced.
    pub fn any(&self) -> bool {
        self.max > 0 && self.index.iter().any(|&i| i > 0)
    }
}

/// The error a failed call of `family` returns, and its name: the
/// runtime's (EIO; ENOENT for getcwd, whose directory was removed).
fn error_of(family: usize) -> (i32, &'static str) {
    match family {
        GETCWD => (libc::ENOENT, "ENOENT"),
        _ => (libc::EIO, "EIO"),
    }
}

impl std::fmt::Display for Failures {
    /// The calls that fail, as "read 2 (EIO), getcwd 1 (ENOENT)".
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for (k, &index) in self.index.iter().enumerate().filter(|(_, &i)| i > 0) {
            let family = FAMILIES[k].trim_end_matches("_fail");
            let error = error_of(k).1;
            let sep = if first { "" } else { ", " };
            write!(f, "{sep}{family} {index} ({error})")?;
            first = false;
        }
        Ok(())
    }
}

/// The family of x86-64 system call `nr`, as the runtime's `family_of`.
fn family_of(nr: i64) -> Option<usize> {
    match nr {
        libc::SYS_read
        | libc::SYS_readv
        | libc::SYS_pread64
        | libc::SYS_preadv
        | libc::SYS_preadv2 => Some(0),
        libc::SYS_write
        | libc::SYS_writev
        | libc::SYS_pwrite64
        | libc::SYS_pwritev
        | libc::SYS_pwritev2 => Some(1),
        libc::SYS_close => Some(2),
        libc::SYS_ftruncate => Some(3),
        libc::SYS_getcwd => Some(GETCWD),
        _ => None,
    }
}

/// The counts of one replay, as the model keeps them.
struct Counter {
    left: u32,
    calls: [u32; 5],
    index: [i32; 5],
}

impl Counter {
    fn new(failures: &Failures) -> Counter {
        Counter {
            left: failures.max,
            calls: [0; 5],
            index: failures.index,
        }
    }

    /// Counts system call `nr`: the errno it fails with, if it fails.
    fn call(&mut self, nr: i64) -> Option<i32> {
        if self.left == 0 {
            return None;
        }
        let family = family_of(nr)?;
        self.calls[family] += 1;
        if i64::from(self.index[family]) != i64::from(self.calls[family]) {
            return None;
        }
        self.left -= 1;
        Some(error_of(family).0)
    }

    /// Whether a call of the test is still to fail.
    fn pending(&self) -> bool {
        self.left > 0
            && self
                .index
                .iter()
                .zip(self.calls)
                .any(|(&i, n)| i64::from(i) > i64::from(n))
    }
}

/// The hook between fork and exec of a replay that fails calls: the
/// program stops at its exec for the replay to follow it.
pub(crate) fn be_traced() -> io::Result<()> {
    // SAFETY: PTRACE_TRACEME takes no pointers.
    if unsafe { libc::ptrace(libc::PTRACE_TRACEME, 0, 0, 0) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Waits for a child spawned with [`be_traced`] to end, failing the calls
/// of `failures`, or kills it at `timeout`. As `native::wait_for` does, it
/// reaps the child only after the deadline can no longer kill it, so that
/// the kill never reaches another process that took its pid.
pub(crate) fn wait_traced(
    child: &mut Child,
    timeout: Duration,
    traced: &Traced,
) -> io::Result<Termination> {
    let pid = child.id() as libc::pid_t;
    let (finished, ended) = mpsc::channel::<()>();
    let deadline = thread::spawn(move || {
        let late = matches!(ended.recv_timeout(timeout), Err(RecvTimeoutError::Timeout));
        if late {
            // SAFETY: the child is not reaped before this thread is joined.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        late
    });
    let followed = follow(pid, traced);
    if followed.is_err() {
        // Left in a stop of ptrace's, it would only wait for its deadline.
        // SAFETY: the child is not reaped yet.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    // Detached, or already ended: wait for the end, leaving it unreaped.
    let waited = loop {
        match wait_event(pid, libc::WEXITED) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => break other.map(|_| ()),
        }
    };
    let _ = finished.send(());
    let timed_out = deadline.join().unwrap_or(false);
    let status = child.wait()?;
    followed?;
    waited?;
    Ok(if timed_out {
        Termination::TimedOut
    } else {
        Termination::from_status(status)
    })
}

/// What `waitid` saw of the child, left for a later wait to take.
enum Event {
    Exited,
    /// Stopped, with `waitpid`'s status (now taken).
    Stopped(i32),
}

fn wait_event(pid: libc::pid_t, which: libc::c_int) -> io::Result<Event> {
    // SAFETY: waitid writes the structure it is given.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: as above; the pid is our unreaped child.
    let rc = unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            which | libc::WNOWAIT,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    if matches!(
        info.si_code,
        libc::CLD_EXITED | libc::CLD_KILLED | libc::CLD_DUMPED
    ) {
        return Ok(Event::Exited);
    }
    let mut status = 0;
    // SAFETY: waitpid writes the status it is given; the child is stopped,
    // so this takes the stop and not its end.
    if unsafe { libc::waitpid(pid, &mut status, libc::__WALL) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(Event::Stopped(status))
}

/// The next stop of the traced child: its status, or `None` once it ended.
fn next_stop(pid: libc::pid_t) -> io::Result<Option<i32>> {
    loop {
        match wait_event(pid, libc::WEXITED | libc::WSTOPPED) {
            Ok(Event::Exited) => return Ok(None),
            Ok(Event::Stopped(status)) => return Ok(Some(status)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

fn request(what: libc::c_uint, pid: libc::pid_t, addr: u64, data: u64) -> io::Result<i64> {
    // PEEKTEXT answers in its return value, where -1 is a word like any
    // other: errno tells.
    // SAFETY: errno is this thread's.
    unsafe { *libc::__errno_location() = 0 };
    // SAFETY: the requests made here pass plain words, or the address of
    // a register structure that outlives the call.
    let rc = unsafe { libc::ptrace(what, pid, addr, data) };
    if rc == -1 {
        let e = io::Error::last_os_error();
        if e.raw_os_error() != Some(0) {
            return Err(e);
        }
    }
    Ok(rc)
}

fn registers(pid: libc::pid_t) -> io::Result<libc::user_regs_struct> {
    // SAFETY: a plain structure of integers.
    let mut regs: libc::user_regs_struct = unsafe { std::mem::zeroed() };
    request(
        libc::PTRACE_GETREGS,
        pid,
        0,
        &mut regs as *mut libc::user_regs_struct as u64,
    )?;
    Ok(regs)
}

fn set_registers(pid: libc::pid_t, regs: &libc::user_regs_struct) -> io::Result<()> {
    request(
        libc::PTRACE_SETREGS,
        pid,
        0,
        regs as *const libc::user_regs_struct as u64,
    )
    .map(drop)
}

/// The signal a stop with `status` passes on to the program when it goes
/// on: none for a stop of ptrace's own, and none for a stop signal (the
/// engine delivers no signals, and a stopped replay would only wait for
/// its deadline).
fn signal_to_pass(status: i32) -> u64 {
    let sig = libc::WSTOPSIG(status);
    match sig {
        libc::SIGTRAP | libc::SIGSTOP | libc::SIGTSTP | libc::SIGTTIN | libc::SIGTTOU => 0,
        s => s as u64,
    }
}

/// Follows the child from its exec to its end, or until no call of the
/// test is left to fail (it is then detached and runs on untraced).
fn follow(pid: libc::pid_t, traced: &Traced) -> io::Result<()> {
    // The stop at the exec.
    if next_stop(pid)?.is_none() {
        return Ok(());
    }
    let options = libc::PTRACE_O_TRACESYSGOOD | libc::PTRACE_O_EXITKILL;
    request(libc::PTRACE_SETOPTIONS, pid, 0, options as u64)?;
    if !run_to(pid, main_address(pid, traced.main)?)? {
        return Ok(());
    }
    lay_out_arguments(pid, &traced.arg_buffers)?;
    let mut counter = Counter::new(&traced.failures);
    let mut entering = true;
    let mut failing: Option<i32> = None;
    let mut pass = 0;
    loop {
        if !counter.pending() && failing.is_none() {
            return request(libc::PTRACE_DETACH, pid, 0, pass).map(drop);
        }
        request(libc::PTRACE_SYSCALL, pid, 0, pass)?;
        let Some(status) = next_stop(pid)? else {
            return Ok(());
        };
        pass = 0;
        if libc::WSTOPSIG(status) != libc::SIGTRAP | 0x80 {
            pass = signal_to_pass(status);
            continue;
        }
        let mut regs = registers(pid)?;
        if entering {
            if let Some(errno) = counter.call(regs.orig_rax as i64) {
                // No such call: the kernel makes none, and its exit stop
                // gets the error.
                regs.orig_rax = u64::MAX;
                set_registers(pid, &regs)?;
                failing = Some(errno);
            }
        } else if let Some(errno) = failing.take() {
            regs.rax = (-i64::from(errno)) as u64;
            set_registers(pid, &regs)?;
        }
        entering = !entering;
    }
}

/// Runs the child to a breakpoint at `main`: whether it got there (rather
/// than ending first).
fn run_to(pid: libc::pid_t, main: u64) -> io::Result<bool> {
    let word = request(libc::PTRACE_PEEKTEXT, pid, main, 0)? as u64;
    let int3 = (word & !0xff) | 0xcc;
    request(libc::PTRACE_POKETEXT, pid, main, int3)?;
    let mut pass = 0;
    loop {
        request(libc::PTRACE_CONT, pid, 0, pass)?;
        let Some(status) = next_stop(pid)? else {
            return Ok(false);
        };
        pass = signal_to_pass(status);
        if libc::WSTOPSIG(status) != libc::SIGTRAP {
            continue;
        }
        let mut regs = registers(pid)?;
        if regs.rip == main + 1 {
            request(libc::PTRACE_POKETEXT, pid, main, word)?;
            regs.rip = main;
            set_registers(pid, &regs)?;
            return Ok(true);
        }
    }
}

/// Writes each argument's buffer over its placeholder, the child stopped
/// at the start of `main`: `argv` is its second parameter (`rsi`), and
/// `arg_buffers` number the arguments after `argv[0]`.
fn lay_out_arguments(pid: libc::pid_t, arg_buffers: &[(usize, Vec<u8>)]) -> io::Result<()> {
    if arg_buffers.is_empty() {
        return Ok(());
    }
    let argv = registers(pid)?.rsi;
    for (place, buffer) in arg_buffers {
        let slot = argv.wrapping_add(8 * (*place as u64 + 1));
        let at = request(libc::PTRACE_PEEKDATA, pid, slot, 0)? as u64;
        // Word by word, the bytes past the buffer's end kept as they are.
        for (k, chunk) in buffer.chunks(8).enumerate() {
            let addr = at.wrapping_add(8 * k as u64);
            let mut word = (request(libc::PTRACE_PEEKDATA, pid, addr, 0)? as u64).to_ne_bytes();
            word[..chunk.len()].copy_from_slice(chunk);
            request(libc::PTRACE_POKEDATA, pid, addr, u64::from_ne_bytes(word))?;
        }
    }
    Ok(())
}

/// A traced replay: the calls it fails (none, where it only lays out
/// arguments), the arguments it lays out at `main`, and where `main` is.
pub(crate) struct Traced {
    pub(crate) failures: Failures,
    pub(crate) arg_buffers: Vec<(usize, Vec<u8>)>,
    pub(crate) main: MainSymbol,
}

/// The address of `main` in a program image, and its entry point, as the
/// image places them.
#[derive(Clone, Copy)]
pub(crate) struct MainSymbol {
    main: u64,
    entry: u64,
}

impl MainSymbol {
    /// `None` for an image without the symbol (stripped), whose calls
    /// cannot be counted as the model counts them.
    pub(crate) fn of(image: &[u8]) -> Option<MainSymbol> {
        let file = object::File::parse(image).ok()?;
        let main = file
            .symbols()
            .chain(file.dynamic_symbols())
            .find(|s| s.name() == Ok("main") && s.is_definition())?
            .address();
        Some(MainSymbol {
            main,
            entry: file.entry(),
        })
    }
}

/// Where the child's `main` is loaded: its image's symbol moved by as much
/// as the kernel moved the entry point (`AT_ENTRY`), which places a
/// position-independent program.
fn main_address(pid: libc::pid_t, symbol: MainSymbol) -> io::Result<u64> {
    let auxv = std::fs::read(format!("/proc/{pid}/auxv"))?;
    let loaded = auxv
        .chunks_exact(16)
        .find_map(|pair| {
            let word = |k: usize| u64::from_ne_bytes(pair[k..k + 8].try_into().unwrap_or([0; 8]));
            (word(0) == libc::AT_ENTRY).then(|| word(8))
        })
        .ok_or_else(|| io::Error::other("the program's auxiliary vector has no AT_ENTRY"))?;
    Ok(symbol.main.wrapping_add(loaded.wrapping_sub(symbol.entry)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_family_counts_its_own_calls() {
        let failures = Failures {
            max: 2,
            index: [2, 0, 1, 0, 0],
        };
        assert!(failures.any());
        let mut c = Counter::new(&failures);
        assert_eq!(c.call(libc::SYS_read), None);
        assert_eq!(c.call(libc::SYS_write), None);
        assert_eq!(c.call(libc::SYS_close), Some(libc::EIO));
        assert_eq!(c.call(libc::SYS_getpid), None);
        assert!(c.pending(), "the second read is still to fail");
        assert_eq!(
            c.call(libc::SYS_readv),
            Some(libc::EIO),
            "stdio reads with readv"
        );
        assert!(!c.pending());
        assert_eq!(c.call(libc::SYS_close), None);
    }

    #[test]
    fn the_budget_bounds_the_failures() {
        let mut c = Counter::new(&Failures {
            max: 1,
            index: [0, 1, 0, 0, 1],
        });
        assert_eq!(c.call(libc::SYS_getcwd), Some(libc::ENOENT));
        assert_eq!(c.call(libc::SYS_write), None, "the one failure is spent");
        assert!(!c.pending());
        let none = Failures {
            max: 1,
            index: [0, -3, 0, 0, 0],
        };
        assert!(!none.any());
        let two = Failures {
            max: 2,
            index: [2, 0, 0, 0, 1],
        };
        assert_eq!(two.to_string(), "read 2 (EIO), getcwd 1 (ENOENT)");
    }
}
