/* What would make a process, over a model that makes none: a fork fails
 * with EAGAIN (mnemo_syscall.c), and so does the one the replay lets the
 * native program make, where glibc answers. The answers are glibc's
 * there. system(NULL) runs "exit 0" to learn whether a shell
 * exists, and says none does when it cannot; a command gives the status
 * of a shell that exited with 127 (as POSIX has a shell that could not be
 * run), where musl's gives -1. system is a cancellation point, as both
 * libraries' are. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

int system(const char *cmd) {
  pthread_testcancel();
  if (!cmd)
    return 0;
  errno = EAGAIN;
  return 127 << 8;
}
