//! The system calls of the C library the programs link (musl reaches the
//! kernel through one function, `__mnemo_syscall`), implemented over the
//! engine's model of the process: output goes where the program's output
//! goes, exit ends the path, and any call not modelled ends its path with
//! an error that names it.

use std::io::Write;

use super::end::{EarlyReason, ErrorKind, PathEnd};
use super::executor::{Exec, Executor, Flow};
use super::state::State;
use super::threads::{MAIN_THREAD, PARENT_PROCESS};
use super::value::{Byte, Value};

/// Linux x86-64 system-call numbers (`SYS_*`), 0 to 334, space-separated in
/// order: the names errors and statistics use.
const NAMES_LOW: &str = concat!(
    "read write open close stat fstat lstat poll lseek mmap mprotect munmap brk ",
    "rt_sigaction rt_sigprocmask rt_sigreturn ioctl pread64 pwrite64 readv writev access ",
    "pipe select sched_yield mremap msync mincore madvise shmget shmat shmctl dup dup2 ",
    "pause nanosleep getitimer alarm setitimer getpid sendfile socket connect accept ",
    "sendto recvfrom sendmsg recvmsg shutdown bind listen getsockname getpeername ",
    "socketpair setsockopt getsockopt clone fork vfork execve exit wait4 kill uname semget ",
    "semop semctl shmdt msgget msgsnd msgrcv msgctl fcntl flock fsync fdatasync truncate ",
    "ftruncate getdents getcwd chdir fchdir rename mkdir rmdir creat link unlink symlink ",
    "readlink chmod fchmod chown fchown lchown umask gettimeofday getrlimit getrusage ",
    "sysinfo times ptrace getuid syslog getgid setuid setgid geteuid getegid setpgid ",
    "getppid getpgrp setsid setreuid setregid getgroups setgroups setresuid getresuid ",
    "setresgid getresgid getpgid setfsuid setfsgid getsid capget capset rt_sigpending ",
    "rt_sigtimedwait rt_sigqueueinfo rt_sigsuspend sigaltstack utime mknod uselib ",
    "personality ustat statfs fstatfs sysfs getpriority setpriority sched_setparam ",
    "sched_getparam sched_setscheduler sched_getscheduler sched_get_priority_max ",
    "sched_get_priority_min sched_rr_get_interval mlock munlock mlockall munlockall ",
    "vhangup modify_ldt pivot_root _sysctl prctl arch_prctl adjtimex setrlimit chroot sync ",
    "acct settimeofday mount umount2 swapon swapoff reboot sethostname setdomainname iopl ",
    "ioperm create_module init_module delete_module get_kernel_syms query_module quotactl ",
    "nfsservctl getpmsg putpmsg afs_syscall tuxcall security gettid readahead setxattr ",
    "lsetxattr fsetxattr getxattr lgetxattr fgetxattr listxattr llistxattr flistxattr ",
    "removexattr lremovexattr fremovexattr tkill time futex sched_setaffinity ",
    "sched_getaffinity set_thread_area io_setup io_destroy io_getevents io_submit ",
    "io_cancel get_thread_area lookup_dcookie epoll_create epoll_ctl_old epoll_wait_old ",
    "remap_file_pages getdents64 set_tid_address restart_syscall semtimedop fadvise64 ",
    "timer_create timer_settime timer_gettime timer_getoverrun timer_delete clock_settime ",
    "clock_gettime clock_getres clock_nanosleep exit_group epoll_wait epoll_ctl tgkill ",
    "utimes vserver mbind set_mempolicy get_mempolicy mq_open mq_unlink mq_timedsend ",
    "mq_timedreceive mq_notify mq_getsetattr kexec_load waitid add_key request_key keyctl ",
    "ioprio_set ioprio_get inotify_init inotify_add_watch inotify_rm_watch migrate_pages ",
    "openat mkdirat mknodat fchownat futimesat newfstatat unlinkat renameat linkat ",
    "symlinkat readlinkat fchmodat faccessat pselect6 ppoll unshare set_robust_list ",
    "get_robust_list splice tee sync_file_range vmsplice move_pages utimensat epoll_pwait ",
    "signalfd timerfd_create eventfd fallocate timerfd_settime timerfd_gettime accept4 ",
    "signalfd4 eventfd2 epoll_create1 dup3 pipe2 inotify_init1 preadv pwritev ",
    "rt_tgsigqueueinfo perf_event_open recvmmsg fanotify_init fanotify_mark prlimit64 ",
    "name_to_handle_at open_by_handle_at clock_adjtime syncfs sendmmsg setns getcpu ",
    "process_vm_readv process_vm_writev kcmp finit_module sched_setattr sched_getattr ",
    "renameat2 seccomp getrandom memfd_create kexec_file_load bpf execveat userfaultfd ",
    "membarrier mlock2 copy_file_range preadv2 pwritev2 pkey_mprotect pkey_alloc pkey_free ",
    "statx io_pgetevents rseq ",
);

/// The numbers from 424 on.
const NAMES_HIGH: &[(i64, &str)] = &[
    (424, "pidfd_send_signal"),
    (425, "io_uring_setup"),
    (426, "io_uring_enter"),
    (427, "io_uring_register"),
    (428, "open_tree"),
    (429, "move_mount"),
    (430, "fsopen"),
    (431, "fsconfig"),
    (432, "fsmount"),
    (433, "fspick"),
    (434, "pidfd_open"),
    (435, "clone3"),
    (436, "close_range"),
    (437, "openat2"),
    (438, "pidfd_getfd"),
    (439, "faccessat2"),
    (440, "process_madvise"),
    (441, "epoll_pwait2"),
    (442, "mount_setattr"),
    (444, "landlock_create_ruleset"),
    (445, "landlock_add_rule"),
    (446, "landlock_restrict_self"),
];

/// The name of system call `n`, if it has one.
pub fn name(n: i64) -> Option<&'static str> {
    if n >= 0 {
        if let Some(name) = NAMES_LOW
            .split(' ')
            .nth(n as usize)
            .filter(|s| !s.is_empty())
        {
            return Some(name);
        }
    }
    NAMES_HIGH.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)
}

/// `errno` values the engine returns (negated, as the kernel does).
const ENOMEM: i64 = 12;
const EPIPE: i64 = 32;

/// How much of a path's stdout is read: stdout is a pipe whose reader
/// closes it after this many bytes, natively (the replay) as in the engine.
/// A program that writes for ever (`yes`) then fails with `EPIPE` and ends,
/// in both, rather than running into the engine's memory limit and the
/// replay's time limit; both start the program with SIGPIPE ignored.
pub const STDOUT_LIMIT: usize = 1 << 20;

/// The system calls the engine answers itself; the runtime's model of
/// files (`runtime/musl/src/mnemo_syscall.c`) answers the calls on
/// descriptors, paths and memory and passes the rest here.
mod nr {
    pub const WRITE: i64 = 1;
    pub const BRK: i64 = 12;
    pub const SCHED_YIELD: i64 = 24;
    pub const GETPID: i64 = 39;
    pub const CLONE: i64 = 56;
    pub const EXIT: i64 = 60;
    pub const KILL: i64 = 62;
    pub const GETUID: i64 = 102;
    pub const GETGID: i64 = 104;
    pub const GETEUID: i64 = 107;
    pub const GETEGID: i64 = 108;
    pub const GETPPID: i64 = 110;
    pub const GETTID: i64 = 186;
    pub const TKILL: i64 = 200;
    pub const FUTEX: i64 = 202;
    pub const SET_TID_ADDRESS: i64 = 218;
    pub const EXIT_GROUP: i64 = 231;
}

/// The user and group the program runs as: an unprivileged user who owns
/// the program's files and no other, as the model's permission checks
/// have it and as a replay run by root runs the tests (nobody, nogroup).
/// Root's id here would tell a program it may write anything (`cp -a`
/// would report the ownership it cannot keep, `mv` would not ask before
/// replacing what it may not write), where the replay may not.
pub const NOBODY: u32 = 65534;

impl Executor {
    /// `__mnemo_kernel(n, a, b, c, d, e, f)`: the result the kernel would
    /// return (a negated errno on failure), or the end of the path.
    pub(crate) fn system_call(&mut self, state: &mut State, args: &[Value]) -> Exec<Option<Value>> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::concrete(0, 64));
        let n = self.concretize(state, &arg(0))? as u64 as i64;
        let result: i64 = match n {
            // The model passes on writes to stdout and stderr only.
            nr::WRITE => self.write_fd(state, &arg(1), &arg(2), &arg(3))?,
            // The engine allocates (malloc is native); musl's own heap is
            // not linked.
            nr::BRK => -ENOMEM,
            nr::GETPID => i64::from(MAIN_THREAD),
            nr::SET_TID_ADDRESS => i64::from(state.thread_id()),
            nr::GETTID => i64::from(state.thread_id()),
            nr::CLONE => {
                let start = self.concretize(state, &arg(1))? as u64;
                self.thread_create(state, start, arg(2))?
            }
            nr::FUTEX => {
                let mut a = [0u64; 5];
                for (i, slot) in a.iter_mut().enumerate() {
                    *slot = self.concretize(state, &arg(i + 1))? as u64;
                }
                self.futex(state, a)?
            }
            // The runtime's pthread_cancel: the other thread's wait ends.
            nr::TKILL => {
                let tid = self.concretize(state, &arg(1))? as u64;
                Executor::thread_interrupt(state, tid);
                0
            }
            nr::SCHED_YIELD => {
                Executor::thread_yield(state);
                0
            }
            // A thread's exit, not the process's, while another goes on.
            nr::EXIT if Executor::thread_exit(state) => 0,
            nr::GETPPID => i64::from(PARENT_PROCESS),
            nr::GETUID | nr::GETGID | nr::GETEUID | nr::GETEGID => i64::from(NOBODY),
            // The runtime asks for this when a signal the process sent
            // itself takes its default action: the process ends, killed.
            nr::KILL => {
                let signal = self.concretize(state, &arg(2))? as u8;
                return Err(Flow::End(PathEnd::Early(EarlyReason::Signalled(signal))));
            }
            nr::EXIT | nr::EXIT_GROUP => {
                let status = arg(1);
                return Err(Flow::End(PathEnd::Completed { status }));
            }
            _ => {
                let name = name(n).unwrap_or("unknown");
                self.unsupported_syscalls.insert(format!("{n} ({name})"));
                return Err(self.error(
                    state,
                    ErrorKind::External,
                    format!("unsupported system call {n} ({name})"),
                ));
            }
        };
        Ok(Some(Value::concrete(result as u64 as u128, 64)))
    }

    /// `write(fd, buf, len)` to the path's output: the bytes are kept with
    /// the path (stdout for fd 1, stderr for any other), and shown with
    /// `--show-output`; gives how many were written, or `-EPIPE` once
    /// stdout's reader has taken [`STDOUT_LIMIT`] bytes.
    pub(super) fn write_fd(
        &mut self,
        state: &mut State,
        fd: &Value,
        buf: &Value,
        len: &Value,
    ) -> Exec<i64> {
        let fd = self.concretize(state, fd)? as u64;
        let buf = self.concretize(state, buf)? as u64;
        let mut len = self.concretize(state, len)? as u64;
        if fd == 1 && len > 0 {
            // As a pipe's write: what fits before the reader closes, then
            // the error.
            let room = STDOUT_LIMIT.saturating_sub(state.stdout.len()) as u64;
            if room == 0 {
                return Ok(-EPIPE);
            }
            len = len.min(room);
        }
        let bytes = self.read_raw_bytes(state, buf, len)?;
        if self.config.show_output {
            let mut shown = Vec::with_capacity(bytes.len());
            for b in &bytes {
                shown.push(match b {
                    Byte::Concrete(v) => *v,
                    Byte::Symbolic(x) => self.example(state, &Value::Symbolic(x.clone()))? as u8,
                });
            }
            let _ = match fd {
                2 => std::io::stderr().write_all(&shown),
                _ => std::io::stdout().write_all(&shown),
            };
        }
        let kept = if fd == 1 {
            &mut state.stdout
        } else {
            &mut state.stderr
        };
        kept.push(bytes);
        Ok(len as i64)
    }

    /// `__mnemo_host_file(index, &path, &contents, &stat)`: the `index`-th
    /// host file `--file` names, as new objects of the path (its name and
    /// its bytes, read only) and its status; gives its size, or -1 past the
    /// last one.
    pub(crate) fn host_file(&mut self, state: &mut State, args: &[Value]) -> Exec<Option<Value>> {
        let arg = |i: usize| args.get(i).cloned().unwrap_or(Value::concrete(0, 64));
        let index = self.concretize(state, &arg(0))? as u64 as i64;
        let Some(file) = usize::try_from(index)
            .ok()
            .and_then(|i| self.config.host_files.get(i))
            .cloned()
        else {
            return Ok(Some(Value::concrete(u64::MAX as u128, 64)));
        };
        let (path_out, contents_out, stat_out) = (
            self.concretize(state, &arg(1))? as u64,
            self.concretize(state, &arg(2))? as u64,
            self.concretize(state, &arg(3))? as u64,
        );
        let mut name = file.path.as_bytes().to_vec();
        name.push(0);
        let path = self.allocate_bytes(state, &name, "host file path", false)?;
        let contents = self.allocate_bytes(state, &file.contents, &file.path, true)?;
        let ptr = |v: u64| Value::concrete(v as u128, 64);
        self.store(state, &ptr(path_out), 8, &ptr(path), None)?;
        self.store(state, &ptr(contents_out), 8, &ptr(contents), None)?;
        for (i, b) in file.stat().iter().enumerate() {
            let at = ptr(stat_out + i as u64);
            self.store(state, &at, 1, &Value::concrete(*b as u128, 8), None)?;
        }
        Ok(Some(ptr(file.contents.len() as u64)))
    }
}

#[cfg(test)]
mod tests {
    use super::name;

    #[test]
    fn system_calls_are_named_by_their_numbers() {
        assert_eq!(name(0), Some("read"));
        assert_eq!(name(1), Some("write"));
        assert_eq!(name(231), Some("exit_group"));
        assert_eq!(name(334), Some("rseq"));
        assert_eq!(name(435), Some("clone3"));
        assert_eq!(name(-1), None);
        assert_eq!(name(400), None);
        assert_eq!(name(100_000), None);
    }
}
