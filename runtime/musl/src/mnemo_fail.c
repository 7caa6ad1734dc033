/* KLEE's failure injection (`--max-fail N`, `--fd-fail` for 1): up to N
 * system calls of the program fail. Each family of calls counts its calls
 * from main on, and fails the one whose number (from 1) its symbolic
 * index holds, so that every path through the program forks at each such
 * call into the one where it succeeds and the one where it fails. The
 * families and their objects are KLEE's (read_fail, write_fail,
 * close_fail, ftruncate_fail, getcwd_fail). They are counted as system
 * calls, what musl makes of the program's calls (stdio reads with readv),
 * so that mnemo's replay, which counts the native program's system calls,
 * fails the same one; and they fail as the kernel's do: EIO, and ENOENT
 * for getcwd (the working directory was removed). KLEE's getcwd fails
 * with ERANGE, which the kernel gives only for a buffer too small: glibc's
 * getcwd(NULL, 0), whose buffer is large enough, asserts on it. */
#include "mnemo_fs.h"

#include <errno.h>
#include <sys/syscall.h>

struct mnemo_failures __mnemo_failures;

static int family_of(long n) {
  switch (n) {
  case SYS_read:
  case SYS_readv:
  case SYS_pread64:
  case SYS_preadv:
  case SYS_preadv2: return MNEMO_FAIL_READ;
  case SYS_write:
  case SYS_writev:
  case SYS_pwrite64:
  case SYS_pwritev:
  case SYS_pwritev2: return MNEMO_FAIL_WRITE;
  case SYS_close: return MNEMO_FAIL_CLOSE;
  case SYS_ftruncate: return MNEMO_FAIL_FTRUNCATE;
  case SYS_getcwd: return MNEMO_FAIL_GETCWD;
  default: return -1;
  }
}

void __mnemo_failures_start(unsigned max) {
  static const char *const names[MNEMO_FAIL_FAMILIES] = {
      "read_fail", "write_fail", "close_fail", "ftruncate_fail", "getcwd_fail"};
  __mnemo_failures.left = max;
  for (int k = 0; k < MNEMO_FAIL_FAMILIES; k++) {
    int *index = &__mnemo_failures.index[k];
    klee_make_symbolic(index, sizeof *index, names[k]);
    /* A test whose path failed no call of the family says 0, a number no
     * call has, rather than any the path did not reach: its replay then
     * fails no call the native program makes beyond the engine's (its
     * C library's and its coverage runtime's own). */
    klee_prefer_cex(index, *index == 0);
  }
}

long __mnemo_injected(long n) {
  int family = family_of(n);
  if (family < 0)
    return 0;
  unsigned call = ++__mnemo_failures.calls[family];
  if (__mnemo_failures.index[family] != (int)call)
    return 0;
  __mnemo_failures.left--;
  return family == MNEMO_FAIL_GETCWD ? -ENOENT : -EIO;
}
