/* sigwait and sigtimedwait take a pending signal of their set, the
 * lowest first, without its handler running: one raised while blocked,
 * one another thread sends (the waiter waits while it runs), and the
 * real timer's SIGALRM, which comes where nothing else can run. A time
 * limit with nothing to come gives EAGAIN. The input byte decides
 * whether a second raise happens first, which the next sigwait takes.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int handled;
static void handler(int s) {
  (void)s;
  handled++;
}

static void *sender(void *arg) {
  pthread_kill(*(pthread_t *)arg, SIGUSR2);
  return 0;
}

int main(void) {
  char c;
  klee_make_symbolic(&c, 1, "c");
  signal(SIGUSR1, handler);
  signal(SIGUSR2, handler);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  sigaddset(&set, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &set, 0);
  int sig;
  raise(SIGUSR2);
  raise(SIGUSR1);
  sigwait(&set, &sig);
  printf("first %d\n", sig == SIGUSR1);
  sigwait(&set, &sig);
  printf("second %d\n", sig == SIGUSR2);
  pthread_t self = pthread_self(), t;
  pthread_create(&t, 0, sender, &self);
  siginfo_t info;
  sig = sigwaitinfo(&set, &info);
  printf("from thread %d\n", sig == SIGUSR2);
  pthread_join(t, 0);
  alarm(1);
  sigwait(&set, &sig);
  printf("alarm %d\n", sig == SIGALRM);
  struct timespec limit = {0, 1000};
  printf("timed %d %d\n", sigtimedwait(&set, &info, &limit), errno == EAGAIN);
  if (c == 'r')
    raise(SIGUSR2);
  sig = sigtimedwait(&set, &info, &limit);
  printf("last %d handled %d\n", sig == SIGUSR2, handled);
  return 0;
}
