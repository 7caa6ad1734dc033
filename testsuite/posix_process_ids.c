/* The ids a process sees: its own (its main thread's too), neither init's
 * nor its parent's; init's, which exists and which the model's user
 * (nobody) may not signal, natively as in the model (a replay run by
 * root as root holds it so too). A signal sent to the process by its id, to its main thread
 * by the process's and the thread's ids, or by pthread_kill reaches the
 * handler; the input byte decides which way.
 * expect-completed: 4
 * expect-tests: 4
 */
#include <errno.h>
#include <klee/klee.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile int handled;

static void on_signal(int s) {
  (void)s;
  handled++;
}

int main(void) {
  char how;
  klee_make_symbolic(&how, 1, "how");
  pid_t self = getpid();
  if (self == 1 || getppid() == self || getppid() == 1 || syscall(SYS_gettid) != self)
    return 1;
  if (getpgid(0) != getpgrp() || getsid(0) != getsid(self))
    return 2;
  /* init: there, and not nobody's to signal. */
  if (kill(1, 0) != -1 || errno != EPERM)
    return 3;
  signal(SIGUSR1, on_signal);
  if (how == 'p')
    kill(self, SIGUSR1);
  else if (how == 't')
    syscall(SYS_tgkill, self, self, SIGUSR1);
  else if (how == 'k')
    pthread_kill(pthread_self(), SIGUSR1);
  else
    return printf("no signal\n"), 4;
  printf("handled %d\n", handled);
  return handled == 1 ? 0 : 5;
}
