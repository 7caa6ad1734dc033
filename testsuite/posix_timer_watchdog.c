/* A watchdog: alarm() set before two threads take two mutexes. Taken in
 * the same order, both finish and the process exits 0 before the alarm.
 * Taken in opposite orders (a barrier makes sure each holds its first,
 * natively too), they wait for ever; time passes then, the alarm's
 * handler reports the deadlock and exits 3, as natively a second later.
 * A POSIX timer would come the same way; without any timer the path
 * would end blocked.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both_hold;
static int opposite;

static void on_alarm(int s) {
  (void)s;
  static const char msg[] = "watchdog: deadlock\n";
  write(1, msg, sizeof msg - 1);
  _exit(3);
}

static void *second(void *arg) {
  (void)arg;
  pthread_mutex_t *first = opposite ? &b : &a, *then = opposite ? &a : &b;
  pthread_mutex_lock(first);
  if (opposite)
    pthread_barrier_wait(&both_hold);
  pthread_mutex_lock(then);
  pthread_mutex_unlock(then);
  pthread_mutex_unlock(first);
  return 0;
}

int main(void) {
  char c;
  klee_make_symbolic(&c, 1, "c");
  opposite = c == 'o';
  signal(SIGALRM, on_alarm);
  alarm(1);
  pthread_barrier_init(&both_hold, 0, 2);
  pthread_t t;
  pthread_create(&t, 0, second, 0);
  pthread_mutex_lock(&a);
  if (opposite)
    pthread_barrier_wait(&both_hold);
  pthread_mutex_lock(&b);
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
  pthread_join(t, 0);
  printf("done\n");
  return 0;
}
