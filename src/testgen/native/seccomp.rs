//! The seccomp filters a native replay holds a program with: classic BPF
//! programs over the system call's `struct seccomp_data`, made without
//! allocating, as they are installed between fork and exec.

/// `AUDIT_ARCH_X86_64`: the architecture seccomp reports for a 64-bit
/// x86 system call.
const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;

/// The checks of the filter that holds a program to itself, as the
/// engine's is (see `no_other_process`): it makes no other process,
/// signals none, and opens no socket. `parent` is the process that starts
/// it.
///
/// In the engine's model the program is the machine's one process of its
/// user: `kill(-1, sig)` reaches no one and returns 0, `kill(1, sig)` and
/// a signal to the parent are refused with EPERM. Natively, as root, the
/// first would reach every process of the machine, the replay among them.
/// The model's machine has no network either: `socket` of any family
/// fails with EAFNOSUPPORT (`runtime/musl/src/mnemo_syscall.c`), where
/// natively a name lookup would ask the machine's resolver, or, in the
/// model's root, which has no `/etc/resolv.conf`, wait ten seconds for
/// one on the loopback.
pub(super) const fn no_process(parent: u32) -> [libc::sock_filter; 18] {
    // The first argument's low word (`struct seccomp_data`: the call's
    // number, the architecture, the instruction pointer, then the
    // arguments): clone's flags, kill's pid (an int).
    const ARG0: u32 = 16;
    [
        jump_if(libc::SYS_socket as u32, 16, 0),
        jump_if(libc::SYS_fork as u32, 11, 0),
        jump_if(libc::SYS_vfork as u32, 10, 0),
        jump_if(libc::SYS_clone3 as u32, 10, 0),
        jump_if(libc::SYS_kill as u32, 3, 0),
        jump_if(libc::SYS_clone as u32, 0, 6),
        load(ARG0),
        bpf(
            libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K,
            libc::CLONE_THREAD as u32,
            4,
            5,
        ),
        // kill
        load(ARG0),
        jump_if(-1i32 as u32, 6, 0),
        jump_if(1, 4, 0),
        jump_if(parent, 3, 0),
        ret(libc::SECCOMP_RET_ALLOW),
        ret(libc::SECCOMP_RET_ERRNO | libc::EAGAIN as u32),
        ret(libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        ret(libc::SECCOMP_RET_ERRNO | libc::EPERM as u32),
        // An errno of 0: the call returns 0.
        ret(libc::SECCOMP_RET_ERRNO),
        ret(libc::SECCOMP_RET_ERRNO | libc::EAFNOSUPPORT as u32),
    ]
}

/// The checks of the filter that answers a program's sleeps at once, as
/// the model's clock does not move (see `sleeps_take_no_time`).
pub(super) const NO_SLEEP: [libc::sock_filter; 4] = [
    jump_if(libc::SYS_nanosleep as u32, 2, 0),
    jump_if(libc::SYS_clock_nanosleep as u32, 1, 0),
    ret(libc::SECCOMP_RET_ALLOW),
    // An errno of 0: the call returns 0.
    ret(libc::SECCOMP_RET_ERRNO),
];

/// A classic BPF instruction.
const fn bpf(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

/// Loads the word at `offset` in the system call's `struct seccomp_data`.
const fn load(offset: u32) -> libc::sock_filter {
    bpf(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset, 0, 0)
}

/// Skips `jt` instructions if the word loaded is `k`, else `jf`.
const fn jump_if(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    bpf(libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K, k, jt, jf)
}

/// Gives the system call the action `k`.
const fn ret(k: u32) -> libc::sock_filter {
    bpf(libc::BPF_RET | libc::BPF_K, k, 0, 0)
}

/// The most instructions a filter has.
const MAX_FILTER: usize = 24;

/// A seccomp filter of `checks` on each call of 64-bit x86, whose number
/// they find loaded; calls of other architectures go to the first of them
/// that allows. The instructions and how many there are; `None` if none
/// allows or they are too many. No allocation: this runs between fork and
/// exec.
fn filter(checks: &[libc::sock_filter]) -> Option<([libc::sock_filter; MAX_FILTER], usize)> {
    let allow = ret(libc::SECCOMP_RET_ALLOW);
    let to_allow = checks
        .iter()
        .position(|i| (i.code, i.k) == (allow.code, allow.k))?;
    // `struct seccomp_data`: the call's number, then the architecture.
    let start = [
        load(4),
        jump_if(AUDIT_ARCH_X86_64, 0, u8::try_from(to_allow + 1).ok()?),
        load(0),
    ];
    let len = start.len() + checks.len();
    if len > MAX_FILTER {
        return None;
    }
    let mut filter = [allow; MAX_FILTER];
    filter[..start.len()].copy_from_slice(&start);
    filter[start.len()..len].copy_from_slice(checks);
    Some((filter, len))
}

/// Installs the [`filter`] of `checks` on this process and those it execs
/// (filters stack: a call any of them refuses is refused); whether it
/// could.
pub(super) fn install(checks: &[libc::sock_filter]) -> bool {
    let Some((mut filter, len)) = filter(checks) else {
        return false;
    };
    let program = libc::sock_fprog {
        len: len as u16,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: prctl with plain integers, and a filter program that outlives
    // the call (the kernel copies it).
    unsafe {
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0
            && libc::prctl(
                libc::PR_SET_SECCOMP,
                libc::SECCOMP_MODE_FILTER,
                &program as *const libc::sock_fprog,
            ) == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `AUDIT_ARCH_I386`: a 32-bit x86 call, whose numbers differ.
    const AUDIT_ARCH_I386: u32 = 0x4000_0003;

    /// What `filter` does with a call: runs its instructions, as the
    /// kernel would, on the call's `struct seccomp_data`.
    fn action(filter: &[libc::sock_filter], arch: u32, nr: i64, arg0: u64) -> u32 {
        let mut data = [0u8; 64];
        data[0..4].copy_from_slice(&(nr as u32).to_le_bytes());
        data[4..8].copy_from_slice(&arch.to_le_bytes());
        data[16..24].copy_from_slice(&arg0.to_le_bytes());
        let (mut pc, mut acc) = (0, 0u32);
        loop {
            let i = filter[pc];
            let code = u32::from(i.code);
            pc += 1;
            match code {
                c if c == libc::BPF_LD | libc::BPF_W | libc::BPF_ABS => {
                    let at = i.k as usize;
                    acc = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
                }
                c if c == libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K => {
                    pc += usize::from(if acc == i.k { i.jt } else { i.jf });
                }
                c if c == libc::BPF_JMP | libc::BPF_JSET | libc::BPF_K => {
                    pc += usize::from(if acc & i.k != 0 { i.jt } else { i.jf });
                }
                c if c == libc::BPF_RET | libc::BPF_K => return i.k,
                c => panic!("instruction {c:#x}"),
            }
        }
    }

    #[test]
    fn the_filters_refuse_processes_and_sockets_answer_sleeps_and_let_the_rest_be() {
        let parent = 4242;
        let (no_process, len) = filter(&no_process(parent)).unwrap();
        let no_process = &no_process[..len];
        let allow = libc::SECCOMP_RET_ALLOW;
        let refused = |errno: i32| libc::SECCOMP_RET_ERRNO | errno as u32;
        let x86_64 = |nr, arg0| action(no_process, AUDIT_ARCH_X86_64, nr, arg0);
        let child = libc::SIGCHLD as u64;
        let thread = (libc::CLONE_VM | libc::CLONE_FS | libc::CLONE_FILES)
            | libc::CLONE_SIGHAND
            | libc::CLONE_THREAD
            | libc::CLONE_SYSVSEM;
        assert_eq!(x86_64(libc::SYS_fork, 0), refused(libc::EAGAIN));
        assert_eq!(x86_64(libc::SYS_vfork, 0), refused(libc::EAGAIN));
        assert_eq!(x86_64(libc::SYS_clone3, 0), refused(libc::ENOSYS));
        assert_eq!(x86_64(libc::SYS_clone, child), refused(libc::EAGAIN));
        // posix_spawn's child shares the memory, but is a process.
        let spawned = (libc::CLONE_VM | libc::CLONE_VFORK) as u64 | child;
        assert_eq!(x86_64(libc::SYS_clone, spawned), refused(libc::EAGAIN));
        assert_eq!(x86_64(libc::SYS_clone, thread as u64), allow);
        // The flags' high word is not read: a thread's are in the low.
        assert_eq!(x86_64(libc::SYS_clone, thread as u64 | 1 << 40), allow);
        assert_eq!(x86_64(libc::SYS_read, 0), allow);
        for family in [libc::AF_UNIX, libc::AF_INET, libc::AF_INET6] {
            let socket = x86_64(libc::SYS_socket, family as u64);
            assert_eq!(socket, refused(libc::EAFNOSUPPORT), "{family}");
        }
        assert_eq!(x86_64(libc::SYS_nanosleep, 0), allow);
        // kill: every other process (-1) is reached by no one, and neither
        // init nor the parent may be signalled; the program itself, its
        // group (0) and any other pid are the kernel's to answer.
        let pid = |p: i32| u64::from(p as u32);
        assert_eq!(x86_64(libc::SYS_kill, pid(-1)), libc::SECCOMP_RET_ERRNO);
        assert_eq!(x86_64(libc::SYS_kill, pid(1)), refused(libc::EPERM));
        assert_eq!(x86_64(libc::SYS_kill, pid(4242)), refused(libc::EPERM));
        for other in [0, 4243, -4243, -2, 2] {
            assert_eq!(x86_64(libc::SYS_kill, pid(other)), allow, "{other}");
        }
        // A pid is an int: the high word is not read.
        assert_eq!(
            x86_64(libc::SYS_kill, pid(-1) | 1 << 40),
            libc::SECCOMP_RET_ERRNO
        );
        // Another architecture's call of the same number is another call.
        assert_eq!(
            action(no_process, AUDIT_ARCH_I386, libc::SYS_fork, 0),
            allow
        );

        let (no_sleep, len) = filter(&NO_SLEEP).unwrap();
        let no_sleep = &no_sleep[..len];
        let returns_0 = libc::SECCOMP_RET_ERRNO;
        for call in [libc::SYS_nanosleep, libc::SYS_clock_nanosleep] {
            assert_eq!(action(no_sleep, AUDIT_ARCH_X86_64, call, 0), returns_0);
            assert_eq!(action(no_sleep, AUDIT_ARCH_I386, call, 0), allow);
        }
        assert_eq!(
            action(no_sleep, AUDIT_ARCH_X86_64, libc::SYS_fork, 0),
            allow
        );
    }

    #[test]
    fn a_filter_with_nothing_that_allows_or_too_long_is_not_made() {
        assert!(filter(&[ret(libc::SECCOMP_RET_ERRNO)]).is_none());
        let long = [ret(libc::SECCOMP_RET_ALLOW); MAX_FILTER];
        assert!(filter(&long).is_none());
        assert!(filter(&long[..MAX_FILTER - 3]).is_some());
    }
}
