/* The real interval timer expires where the process would otherwise wait
 * for ever: alarm(1) then pause() runs SIGALRM's handler and pause fails
 * with EINTR, as natively after a second; alarm gives back the seconds
 * left of the one before (the clock stands still, so all of them), and
 * setitimer the timer it replaces (none once it rang); sigsuspend with an
 * empty mask is woken the same way. A blocked signal stays pending even
 * while its action ignores it, until an action that ignores it is set.
 * With the input byte 'x', SIGALRM's default action, set before the last
 * alarm, kills the process: that path ends early (signalled 14), and its
 * native run dies by SIGALRM.
 * expect-completed: 1
 * expect-early: signalled 1
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <errno.h>
static volatile int rings;
static void ring(int s) { (void)s; rings++; }
int main(void) {
  char c; klee_make_symbolic(&c, 1, "c");
  struct sigaction sa; memset(&sa, 0, sizeof sa); sa.sa_handler = ring; sigaction(SIGALRM, &sa, 0);
  printf("first %u\n", alarm(1));
  printf("again %u\n", alarm(1));
  int r = pause();
  printf("pause %d %d rings %d\n", r, errno == EINTR, rings);
  struct itimerval it = {{0, 0}, {0, 0}}, old; setitimer(ITIMER_REAL, &it, &old);
  printf("left %ld\n", (long)old.it_value.tv_sec);
  sigset_t m; sigemptyset(&m); sigaddset(&m, SIGUSR1); sigprocmask(SIG_BLOCK, &m, 0);
  signal(SIGUSR1, SIG_IGN); raise(SIGUSR1);
  sigset_t p; sigpending(&p); printf("pending ignored %d\n", sigismember(&p, SIGUSR1));
  signal(SIGUSR1, SIG_DFL); raise(SIGUSR1); sigpending(&p); printf("pending %d\n", sigismember(&p, SIGUSR1));
  signal(SIGUSR1, SIG_IGN); sigpending(&p); printf("after ign %d\n", sigismember(&p, SIGUSR1));
  sigset_t none; sigemptyset(&none);
  alarm(1);
  r = sigsuspend(&none);
  printf("suspend %d rings %d\n", r, rings);
  if (c == 'x') {
    signal(SIGALRM, SIG_DFL);
    alarm(1);
    pause(); /* killed by SIGALRM */
  }
  return 0;
}
