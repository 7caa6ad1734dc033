//! One native run of a test's program: spawned in its scratch directory
//! with the test's arguments and stdin (a pipe or a terminal), optionally
//! as another user and chrooted into the model's file system, waited for
//! up to a limit, its output kept.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::classify::Termination;
use super::inject::{self, Traced};
use super::posix::StreamType;
use super::replay::{
    ReplayOptions, EARLY_TEST_ENV, KTEST_FD_ENV, NO_SLEEP_ENV, ONE_PROCESS_ENV, POSIX_OBJECTS_ENV,
    USER_ENV,
};
use crate::exec::{MAX_OBJECT, STDOUT_LIMIT};

mod seccomp;

/// Room for a program's own mappings beside one object as large as the
/// engine models: the address-space limit of a replay in the model's root.
const ADDRESS_SPACE_HEADROOM: u64 = 1 << 30;

/// The descriptors a program has: the model's table holds 64
/// (`MNEMO_FDS` in the runtime's `mnemo/model.h`), and a replay holds the
/// program to as many, so that one that keeps opening files runs out
/// where the engine's did. sharutils' option file that loads itself
/// ended in EMFILE in the engine and overflowed the stack natively, at
/// 1,024 descriptors.
pub(crate) const MODEL_DESCRIPTORS: u64 = 64;

/// ASan's options for a replay: no leak reports (the engine has no notion
/// of leaks), and null from malloc for a request past the machine's memory
/// or past the largest object the engine models, as the engine gives,
/// rather than a report.
pub(crate) fn asan_options() -> String {
    format!(
        "detect_leaks=0:abort_on_error=0:allocator_may_return_null=1:max_allocation_size_mb={}",
        MAX_OBJECT >> 20
    )
}

/// The most of a program's stderr kept: its end, where reports are.
const STDERR_KEEP: usize = 64 * 1024;

/// What one native run gets: its command line, directory and input.
pub(crate) struct NativeRun<'a> {
    pub(crate) binary: &'a Path,
    /// `argv[0]` as the engine gave it (the test's first recorded argument).
    pub(crate) arg0: OsString,
    pub(crate) args: Vec<OsString>,
    pub(crate) cwd: &'a Path,
    /// The test, where the program reads it (`KTEST_FILE`, or a descriptor
    /// in the model's root).
    pub(crate) ktest: Option<&'a Path>,
    pub(crate) posix_objects: usize,
    /// Whether the program is given `ASAN_OPTIONS`.
    pub(crate) asan_options: bool,
    pub(crate) stdin: Stdin,
    /// The program's environment, as the test's `--env` options gave it.
    pub(crate) vars: Vec<(OsString, OsString)>,
    /// The replay's own variables, after the program's.
    pub(crate) env: &'a [(OsString, OsString)],
    pub(crate) run_as: Option<(u32, u32)>,
    /// A directory to chroot into first; `cwd` is then a path inside it.
    /// `binary` and `ktest` stay outside: the program is executed from a
    /// descriptor and reads the test from one, so that a listing of `/`
    /// finds only what the engine's model has there.
    pub(crate) root: Option<&'a Path>,
    /// Whether the program links the replay library, which holds it to the
    /// engine's model before main when asked: SIGPIPE ignored (as the
    /// engine starts the program, so a write to a pipe with no reader,
    /// stdout past [`STDOUT_LIMIT`], fails with `EPIPE` there), sleeps that take
    /// no time and one process. One that does not is held so between its
    /// fork and exec, which costs the replay a copy of its own address
    /// space for each test.
    pub(crate) links_replay_library: bool,
    /// The system calls the run fails, where the test fails any.
    pub(crate) traced: Option<Traced>,
    /// What stdout is: a pipe, or a terminal where `--sym-stdout`'s status
    /// says character device (the model makes it no regular file).
    pub(crate) stdout: StreamType,
}

/// Where a native run's stdin comes from.
pub(crate) enum Stdin {
    /// Nothing: the program reads end of file at once.
    Empty,
    /// These bytes, through a pipe.
    Pipe(Vec<u8>),
    /// These bytes, typed into a terminal.
    Terminal(Vec<u8>),
    /// These bytes, in a file of their own outside the working directory
    /// (one the program can seek in).
    File(Vec<u8>),
}

/// The most bytes typed into a terminal before the program starts: what
/// its input queue takes. A program reads them and then the end of input;
/// more are typed while it runs, and it may find the end before them.
const TERMINAL_QUEUE: usize = 4000;

/// How a native run ended, with what it wrote.
pub(crate) struct NativeResult {
    pub(crate) termination: Termination,
    /// The end of stderr.
    pub(crate) stderr: String,
    /// Stdout, as far as it was read (up to [`STDOUT_LIMIT`]).
    pub(crate) stdout: Vec<u8>,
}

/// Reads a pipe on a thread (so a chatty program cannot block on a full
/// pipe while we wait for it), to its end or until `limit` bytes, when it
/// closes it as the engine's model of stdout does; keeps what `keep`
/// selects.
fn drain<R: Read + Send + 'static>(
    mut pipe: R,
    limit: usize,
    keep: fn(&mut Vec<u8>, &[u8]),
) -> thread::JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut kept = Vec::new();
        let mut left = limit;
        let mut chunk = [0u8; 8192];
        while left > 0 {
            let want = chunk.len().min(left);
            match pipe.read(&mut chunk[..want]) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    left -= n;
                    keep(&mut kept, &chunk[..n]);
                }
            }
        }
        kept
    })
}

fn keep_end(kept: &mut Vec<u8>, chunk: &[u8]) {
    kept.extend_from_slice(chunk);
    if kept.len() > 2 * STDERR_KEEP {
        kept.drain(..kept.len() - STDERR_KEEP);
    }
}

/// Runs the replay binary once and waits for it, up to `timeout`.
pub(crate) fn run_one(run: NativeRun<'_>, timeout: Duration) -> std::io::Result<NativeResult> {
    static INHERITED: std::sync::Once = std::sync::Once::new();
    INHERITED.call_once(keep_inherited_descriptors);
    let (stdin, feed, terminal) = match run.stdin {
        Stdin::Empty => (Stdio::null(), None, None),
        Stdin::Pipe(bytes) => (Stdio::piped(), Some(bytes), None),
        Stdin::Terminal(mut bytes) => {
            let mut pty = super::pty::open_raw()?;
            let now = bytes.len().min(TERMINAL_QUEUE);
            pty.master.write_all(&bytes[..now])?;
            bytes.drain(..now);
            (Stdio::from(pty.slave), Some(bytes), Some(pty.master))
        }
        Stdin::File(bytes) => {
            // Unnamed, so that it is gone with the run whatever happens.
            let mut file = tempfile::tempfile()?;
            file.write_all(&bytes)?;
            file.seek(SeekFrom::Start(0))?;
            (Stdio::from(file), None, None)
        }
    };
    // Stdout as its status says: a terminal where the model answered
    // `isatty(1)` with yes, else a pipe read as the engine's reader reads it.
    let (stdout_to, terminal_out) = match run.stdout {
        StreamType::Terminal => {
            let pty = super::pty::open_raw()?;
            (Stdio::from(pty.slave), Some(pty.master))
        }
        StreamType::Pipe | StreamType::File => (Stdio::piped(), None),
    };
    let mut command = Command::new(run.binary);
    // A group of its own keeps `kill(0, sig)` to the program, as the
    // model's reaches no other process: in the replay's group it would
    // reach the replay and whatever started it.
    command.process_group(0);
    // Who changes the user: a program linked with the replay library does
    // it itself, once it has read its test, so that std spawns it as it
    // is, with no hook; otherwise the child does it before its exec (std,
    // or `enter` in the model's root).
    let (user_by_library, user_by_child) = match run.run_as {
        Some(user) if run.links_replay_library && run.root.is_none() => (Some(user), None),
        user => (None, user),
    };
    match run.root {
        None => {
            if let Some((uid, gid)) = user_by_child {
                // Run as root, std also drops the supplementary groups.
                command.uid(uid).gid(gid);
            }
            command.current_dir(run.cwd);
        }
        Some(root) => {
            // std changes the user before its own pre_exec hooks run, and
            // chroot needs root: this hook does all three, in order.
            let root = c_path(root)?;
            let cwd = c_path(run.cwd)?;
            let run_as = user_by_child;
            // SAFETY: the hook only makes system calls (no allocation, no
            // locks), as is allowed between fork and exec.
            unsafe {
                command.pre_exec(move || enter(&root, &cwd, run_as));
            }
        }
    }
    // The engine's fork fails with EAGAIN, and so must the program's
    // ([`no_other_process`]): held so after the user is changed (std
    // changes it before the hooks), so that where it comes to a limit of
    // one process the change itself is not refused. A program linked with
    // the replay library holds itself, with no hook: without one, std
    // spawns it without first copying mnemo's address space (a sixth of
    // a replay's time).
    let as_root = run
        .run_as
        .map_or_else(ReplayOptions::caller_is_root, |(uid, _)| uid == 0);
    // The replay's variables for the program, given only where it reads
    // them: the engine's program sees none of them.
    let mut test_vars: Vec<(&str, OsString)> = Vec::new();
    let mut ktest_file = None;
    // Another user may have no way to the test or the program: where the
    // child changes user, both are opened here and given to it.
    let given = run.root.is_some() || user_by_child.is_some();
    if let Some((uid, gid)) = user_by_library {
        test_vars.push((USER_ENV, format!("{uid}:{gid}").into()));
    }
    if let Some(ktest) = run.ktest {
        if given {
            let file = File::open(ktest)?;
            test_vars.push((KTEST_FD_ENV, file.as_raw_fd().to_string().into()));
            ktest_file = Some(file);
        } else {
            test_vars.push(("KTEST_FILE", ktest.into()));
        }
        test_vars.push((POSIX_OBJECTS_ENV, run.posix_objects.to_string().into()));
    }
    if run.asan_options {
        test_vars.push(("ASAN_OPTIONS", asan_options().into()));
    }
    // What the replay library is asked to do before main.
    let mut held = Vec::new();
    if run.links_replay_library {
        held.push(NO_SLEEP_ENV);
        held.push(ONE_PROCESS_ENV);
        if run.traced.is_some() {
            held.push(EARLY_TEST_ENV);
        }
    } else {
        // SAFETY: the hook only makes system calls on data of its own, as
        // is allowed between fork and exec.
        unsafe {
            command.pre_exec(move || no_other_process(as_root));
        }
        // SAFETY: the hooks only make system calls on data of their own,
        // as is allowed between fork and exec.
        unsafe {
            command
                .pre_exec(|| set_limit(libc::RLIMIT_NOFILE, MODEL_DESCRIPTORS, MODEL_DESCRIPTORS));
            command.pre_exec(ignore_sigpipe);
            command.pre_exec(sleeps_take_no_time);
            command.pre_exec(die_with_the_replay);
        }
    }
    if run.traced.is_some() {
        // Last, so that the program is followed from its exec on.
        // SAFETY: the hook only makes a system call.
        unsafe {
            command.pre_exec(inject::be_traced);
        }
    }
    command
        .arg0(&run.arg0)
        .args(&run.args)
        // The engine's programs run with no environment but what `--env`
        // gives: natively, `printenv HOME` or a locale from LANG would
        // answer otherwise.
        .env_clear()
        .envs(run.vars.iter().map(|(k, v)| (k, v)))
        .envs(test_vars)
        .envs(held.iter().map(|name| (name, "1")))
        .envs(run.env.iter().map(|(k, v)| (k, v)))
        .stdin(stdin)
        .stdout(stdout_to)
        .stderr(Stdio::piped());
    if given {
        let exec = ExecOutside::new(run.binary, &run.arg0, &command, ktest_file)?;
        // Last, after the chroot and every other hook.
        // SAFETY: the hook only makes system calls, on data made before
        // the fork.
        unsafe {
            command.pre_exec(move || exec.exec());
        }
    }
    let mut child = command
        .spawn()
        .map_err(|e| match &run.traced {
            // The hook's error is the likelier one: the machine may forbid
            // ptrace (a container's seccomp profile).
            Some(_) => std::io::Error::new(
                e.kind(),
                format!("{e} (a replay that fails system calls, or gives an argument bytes after its NUL, traces the program with ptrace)"),
            ),
            None => e,
        })?;
    let exited = Arc::new(AtomicBool::new(false));
    // A program that stops reading early closes the pipe: the write error
    // that follows is expected, not a failure of the replay.
    let on_terminal = terminal.is_some();
    let sink: Option<Box<dyn Write + Send>> = match terminal {
        Some(master) => Some(Box::new(master)),
        None => child
            .stdin
            .take()
            .map(|p| Box::new(p) as Box<dyn Write + Send>),
    };
    // A terminal stays open until the program ends: once its other end
    // closes, a read gives EIO rather than the end of input.
    let feeder = sink.zip(feed).map(|(mut sink, bytes)| {
        let exited = Arc::clone(&exited);
        thread::spawn(move || {
            let _ = sink.write_all(&bytes);
            while on_terminal && !exited.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(5));
            }
        })
    });
    let stderr = child.stderr.take().map(|p| drain(p, usize::MAX, keep_end));
    // The command holds the terminal's other end: the program's alone now,
    // so that reading it ends when the program closes it.
    drop(command);
    let stdout = match terminal_out {
        Some(master) => Some(drain(master, STDOUT_LIMIT, Vec::extend_from_slice)),
        None => child.stdout.take().map(|p| {
            shrink_pipe(&p);
            drain(p, STDOUT_LIMIT, Vec::extend_from_slice)
        }),
    };
    let termination = match &run.traced {
        Some(traced) => inject::wait_traced(&mut child, timeout, traced)?,
        None => wait_for(&mut child, timeout)?,
    };
    exited.store(true, Ordering::Relaxed);
    if let Some(h) = feeder {
        let _ = h.join();
    }
    let mut err = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    if err.len() > STDERR_KEEP {
        err.drain(..err.len() - STDERR_KEEP);
    }
    let stdout = stdout.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(NativeResult {
        termination,
        stderr: String::from_utf8_lossy(&err).into_owned(),
        stdout,
    })
}

/// Makes stdout's pipe as small as the kernel allows. Once the reader has
/// taken [`STDOUT_LIMIT`] bytes and closed it, what the program had already
/// written into the pipe is lost without an error, where the engine gives
/// `EPIPE`; the smaller the pipe, the fewer such bytes (a page, at most).
fn shrink_pipe(pipe: &impl AsRawFd) {
    // SAFETY: fcntl on a descriptor we own; the kernel rounds the size up
    // to a page, and a failure leaves the pipe as it was, only a wider
    // margin.
    unsafe {
        libc::fcntl(pipe.as_raw_fd(), libc::F_SETPIPE_SZ, 0);
    }
}

/// Waits for `child` to end, or kills it at `timeout`. A thread blocks until
/// the child is done, leaving it unreaped (`WNOWAIT`): until it is reaped
/// here its pid cannot be reused, so the kill at the deadline reaches the
/// child whatever happened in between. Most programs end within a few
/// milliseconds, and a project's thousands of tests replay at the speed
/// this wait notices the end.
fn wait_for(child: &mut Child, timeout: Duration) -> std::io::Result<Termination> {
    let pid = child.id();
    let (done, ended) = mpsc::channel();
    let waiter = thread::spawn(move || {
        // SAFETY: waitid writes the structure it is given.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: as above; the pid is our unreaped child.
            let rc =
                unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
            if rc == 0 || std::io::Error::last_os_error().kind() != ErrorKind::Interrupted {
                break;
            }
        }
        let _ = done.send(());
    });
    let timed_out = matches!(ended.recv_timeout(timeout), Err(RecvTimeoutError::Timeout));
    if timed_out {
        // The child may have ended just now: it is still ours to kill.
        let _ = child.kill();
    }
    let status = child.wait()?;
    if !timed_out {
        // It has sent, so it is done. (After a timeout it is left to end
        // on its own: the pid it waits on may be another child's by now.)
        let _ = waiter.join();
    }
    Ok(if timed_out {
        Termination::TimedOut
    } else {
        Termination::from_status(status)
    })
}

/// A program and its test, open outside the model's root (or by the
/// replay's user, where the program runs as another), with the arguments
/// and environment its command gives: the last hook before exec executes
/// the program from its descriptor, once the child is chrooted,
/// and leaves the test's descriptor open across the exec.
struct ExecOutside {
    program: File,
    test: Option<File>,
    /// What `argv` and `envp` point into.
    _strings: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
}

// SAFETY: the pointers point into `_strings`, which is owned alongside them
// and never changed: the buffers do not move when the structure does.
unsafe impl Send for ExecOutside {}
// SAFETY: as above; the hook only reads them.
unsafe impl Sync for ExecOutside {}

impl ExecOutside {
    /// `binary` with `arg0` and `command`'s arguments and environment (it
    /// clears the machine's).
    fn new(
        binary: &Path,
        arg0: &OsString,
        command: &Command,
        test: Option<File>,
    ) -> std::io::Result<Self> {
        let c = |bytes: &[u8]| {
            CString::new(bytes).map_err(|_| {
                std::io::Error::new(
                    ErrorKind::InvalidInput,
                    "a NUL byte in an argument or variable",
                )
            })
        };
        let program = File::open(binary)?;
        let mut args = vec![c(arg0.as_bytes())?];
        for arg in command.get_args() {
            args.push(c(arg.as_bytes())?);
        }
        let mut vars = Vec::new();
        for (name, value) in command.get_envs() {
            if let Some(value) = value {
                vars.push(c(&[name.as_bytes(), b"=", value.as_bytes()].concat())?);
            }
        }
        let pointers = |strings: &[CString]| {
            let mut p: Vec<_> = strings.iter().map(|s| s.as_ptr()).collect();
            p.push(std::ptr::null());
            p
        };
        let (argv, envp) = (pointers(&args), pointers(&vars));
        args.extend(vars);
        Ok(ExecOutside {
            program,
            test,
            _strings: args,
            argv,
            envp,
        })
    }

    /// In the child: executes the program; returns only on failure.
    fn exec(&self) -> std::io::Result<()> {
        // SAFETY: fcntl and execveat on descriptors we own, with
        // NUL-terminated arrays of NUL-terminated strings.
        unsafe {
            if let Some(test) = &self.test {
                if libc::fcntl(test.as_raw_fd(), libc::F_SETFD, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            libc::syscall(
                libc::SYS_execveat,
                self.program.as_raw_fd(),
                c"".as_ptr(),
                self.argv.as_ptr(),
                self.envp.as_ptr(),
                libc::AT_EMPTY_PATH,
            );
        }
        Err(std::io::Error::last_os_error())
    }
}

/// `path` for a system call.
pub(crate) fn c_path(path: &Path) -> std::io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::other(format!("{}: a NUL in the path", path.display())))
}

/// The machine's names as the model's `uname` gives them (the runtime's
/// `sys_uname`): a replay in the model's root takes them too, where the
/// machine lets it have names of its own.
const MODEL_NODENAME: &[u8] = b"mnemo";
const MODEL_DOMAINNAME: &[u8] = b"(none)";

/// In the child: take the model's host names and its one processor, chroot
/// to `root`, go to `cwd` inside it, and become `run_as` with no
/// supplementary groups.
fn enter(root: &CString, cwd: &CString, run_as: Option<(u32, u32)>) -> std::io::Result<()> {
    let check = |rc: libc::c_int| {
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    };
    // SAFETY: each call gets NUL-terminated paths, byte strings with their
    // lengths, or plain integers.
    unsafe {
        // Names of its own (`ls --hyperlink` writes the host's name): a
        // machine that gives none (a container without the right) runs the
        // test under its own, and only that output differs.
        if libc::unshare(libc::CLONE_NEWUTS) == 0 {
            check(libc::sethostname(
                MODEL_NODENAME.as_ptr().cast(),
                MODEL_NODENAME.len(),
            ))?;
            check(libc::setdomainname(
                MODEL_DOMAINNAME.as_ptr().cast(),
                MODEL_DOMAINNAME.len(),
            ))?;
        }
        // The model's machine has one processor (the runtime's
        // `sys_getaffinity`): `nproc` counts those it may run on. The one it
        // runs on now, so that replays at once stay spread out.
        let mut one = std::mem::zeroed::<libc::cpu_set_t>();
        libc::CPU_SET(usize::try_from(libc::sched_getcpu()).unwrap_or(0), &mut one);
        check(libc::sched_setaffinity(
            0,
            std::mem::size_of_val(&one),
            &one,
        ))?;
        // The program in the model's root is linked statically, without
        // ASan (which needs far more address space): an address-space limit
        // makes a request past the engine's largest object fail as it does
        // in the engine, whatever the machine's memory and overcommit.
        let address_space = MAX_OBJECT + ADDRESS_SPACE_HEADROOM;
        set_limit(libc::RLIMIT_AS, address_space, address_space)?;
        check(libc::chroot(root.as_ptr()))?;
        check(libc::chdir(cwd.as_ptr()))?;
        if let Some((uid, gid)) = run_as {
            check(libc::setgroups(0, std::ptr::null()))?;
            check(libc::setgid(gid))?;
            check(libc::setuid(uid))?;
        }
    }
    Ok(())
}

/// Holds the program to itself, as the engine's is: a `fork`, `vfork`, or
/// `clone` of a process fails with EAGAIN, while a thread
/// (`CLONE_THREAD`) is made, `kill` reaches no other process, and
/// `socket` fails, as the model's machine has no network (see
/// [`seccomp::no_process`]). A seccomp filter does it, for root too, and
/// `clone3`, whose flags are behind a pointer the filter cannot follow,
/// fails with ENOSYS, on which the C library makes the same call with
/// `clone`. Where the machine allows no filter, a user other than root is
/// held to one process of its own (`RLIMIT_NPROC`), which also refuses its
/// threads; the hard limit leaves room for one thread more, which a
/// build's own instrumentation may raise its soft limit to start (the
/// coreutils bench's coverage flush, `gcov-flush.c`). Its sockets are
/// then made.
fn no_other_process(as_root: bool) -> std::io::Result<()> {
    // SAFETY: getppid cannot fail.
    let parent = unsafe { libc::getppid() } as u32;
    if seccomp::install(&seccomp::no_process(parent)) || as_root {
        return Ok(());
    }
    set_limit(libc::RLIMIT_NPROC, 1, 2)
}

/// Has the kernel kill the child when the replay's thread that started it
/// ends first: in a group of its own, the program is out of reach of the
/// terminal's ^C that ended the replay, and a test that loops would run
/// on. Set after the user is changed, which clears it.
fn die_with_the_replay() -> std::io::Result<()> {
    // SAFETY: prctl with plain integers.
    if unsafe { libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Ignores SIGPIPE in the child; an ignored signal stays so through exec.
fn ignore_sigpipe() -> std::io::Result<()> {
    // SAFETY: setting a disposition is a plain system call.
    if unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) } == libc::SIG_ERR {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Makes `nanosleep` and `clock_nanosleep` return 0 at once, as the model's
/// do (its clock does not move): a test of `sleep 1000000` exits 0 natively
/// as the engine said, rather than running into the replay's time limit.
/// A seccomp filter answers the two calls without making them; where the
/// machine allows no filter, sleeps take their time.
fn sleeps_take_no_time() -> std::io::Result<()> {
    seccomp::install(&seccomp::NO_SLEEP);
    Ok(())
}

/// Marks the descriptors past stderr that mnemo inherited (a shell's or a
/// build tool's) close-on-exec: the engine's program has none of them,
/// and one of the descriptors the model has would be taken natively
/// (the model's 64 counted one fewer under a shell that kept descriptor
/// 10 open). Where /proc is not there they stay.
fn keep_inherited_descriptors() {
    let Ok(dir) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = dir
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|&fd| fd > 2)
        .collect();
    for fd in fds {
        // SAFETY: fcntl on a descriptor number changes only its flags (the
        // directory's own, gone by now, fails harmlessly).
        unsafe {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}

/// Sets the soft and hard limits of `resource` (a system call only, as is
/// allowed between fork and exec).
fn set_limit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads the structure it is given.
    match unsafe { libc::setrlimit(resource, &limit) } {
        0 => Ok(()),
        _ => Err(std::io::Error::last_os_error()),
    }
}

/// Makes everything in `dir`, but not `dir` itself, belong to `uid` and
/// `gid`.
pub(crate) fn give_contents_to(dir: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        std::os::unix::fs::lchown(&path, Some(uid), Some(gid))?;
        if path.is_dir() && !path.is_symlink() {
            give_contents_to(&path, uid, gid)?;
        }
    }
    Ok(())
}
