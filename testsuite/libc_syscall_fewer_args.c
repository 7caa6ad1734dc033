/* musl's syscall() reads six variadic arguments whatever the caller
 * passed; gnulib's renameatu passes five and getpid passes none. On x86-64
 * the missing ones come from registers or the stack and nothing faults, so
 * neither may the engine. One symbolic byte picks one of two calls whose
 * answers are known: 2 paths, no error.
 * expect-completed: 2
 * expect-tests: 2
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <klee/klee.h>

int main(void) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  if (c == 'r') {
    /* Renaming a name that does not exist fails, natively and in the model. */
    long r = syscall(SYS_renameat2, AT_FDCWD, "mnemo-no-such-file", AT_FDCWD,
                     "mnemo-no-such-file-2", 1 /* RENAME_NOREPLACE */);
    return r == -1 ? 0 : 1;
  }
  return syscall(SYS_getpid) > 0 ? 0 : 1;
}
