/* mnemo's replacement for musl's x86_64 system-call stubs: instead of the
 * `syscall` instruction, every system call is a call to one function that
 * the engine implements over its model of the process (files, memory,
 * exit). Argument widths are musl's: each argument a long. */
#define __SYSCALL_LL_E(x) (x)
#define __SYSCALL_LL_O(x) (x)

long __mnemo_syscall(long n, long a, long b, long c, long d, long e, long f);

static __inline long __syscall0(long n) {
  return __mnemo_syscall(n, 0, 0, 0, 0, 0, 0);
}

static __inline long __syscall1(long n, long a) {
  return __mnemo_syscall(n, a, 0, 0, 0, 0, 0);
}

static __inline long __syscall2(long n, long a, long b) {
  return __mnemo_syscall(n, a, b, 0, 0, 0, 0);
}

static __inline long __syscall3(long n, long a, long b, long c) {
  return __mnemo_syscall(n, a, b, c, 0, 0, 0);
}

static __inline long __syscall4(long n, long a, long b, long c, long d) {
  return __mnemo_syscall(n, a, b, c, d, 0, 0);
}

static __inline long __syscall5(long n, long a, long b, long c, long d,
                                long e) {
  return __mnemo_syscall(n, a, b, c, d, e, 0);
}

static __inline long __syscall6(long n, long a, long b, long c, long d, long e,
                                long f) {
  return __mnemo_syscall(n, a, b, c, d, e, f);
}
