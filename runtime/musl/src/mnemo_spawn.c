/* What would make a process, over a model that makes none: a fork fails
 * with EAGAIN (mnemo_syscall.c), and so does the one the replay lets the
 * native program make, where glibc answers. The answers are glibc's
 * there. posix_spawn and popen, over musl's __clone, fail with EAGAIN, as
 * a clone does. system(NULL) runs "exit 0" to learn whether a shell
 * exists, and says none does when it cannot; a command gives the status
 * of a shell that exited with 127 (as POSIX has a shell that could not be
 * run), where musl's gives -1. system is a cancellation point, as both
 * libraries' are. */
#include "pthread_impl.h"

#include <errno.h>
#include <stdlib.h>

int __clone(int (*func)(void *), void *stack, int flags, void *arg, ...) {
  (void)func, (void)stack, (void)flags, (void)arg;
  return -EAGAIN;
}

int system(const char *cmd) {
  pthread_testcancel();
  if (!cmd)
    return 0;
  errno = EAGAIN;
  return 127 << 8;
}
