/* A signal the process sends itself is discarded where the kernel would
 * discard it: its action is SIG_IGN, or the default one and that ignores
 * it (SIGCHLD, SIGWINCH). raise() and pthread_kill() go through tkill
 * to the one thread.
 * The path goes on past each, and exits 0, as the native run does; a
 * signal it does not ignore would end the path as `signalled`.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void) {
  if (signal(SIGUSR1, SIG_IGN) == SIG_ERR)
    return 1;
  if (raise(SIGUSR1) != 0 || kill(getpid(), SIGUSR1) != 0)
    return 2;
  if (raise(SIGCHLD) != 0 || raise(SIGWINCH) != 0)
    return 3;
  if (pthread_kill(pthread_self(), SIGUSR1) != 0)
    return 5;
  if (kill(getpid(), 0) != 0)
    return 4;
  printf("still here\n");
  return 0;
}
