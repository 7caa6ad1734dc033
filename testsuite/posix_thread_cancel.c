/* Deferred cancellation: a thread waiting on a condition for ever is
 * cancelled (its wait ends, the wait takes the mutex back, the cleanup
 * handler pushed runs and unlocks it, and its join gives
 * PTHREAD_CANCELED); a thread that disabled cancellation goes past
 * cancellation points (sem_wait, usleep) and is cancelled at pthread_testcancel
 * once it enables it again; pthread_exit runs the handlers pushed, newest
 * first. The input decides the last line.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <unistd.h>
#include <errno.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cleaned, reached;
static sem_t started, requested;
static void cleanup(void *arg) { cleaned += *(int *)arg; pthread_mutex_unlock(&mu); }
static void *waiter(void *arg) {
  pthread_mutex_lock(&mu);
  pthread_cleanup_push(cleanup, arg);
  for (;;) pthread_cond_wait(&cv, &mu);   /* only cancellation ends it */
  pthread_cleanup_pop(0);
  return 0;
}
static void *masked(void *arg) {
  (void)arg;
  int old;
  pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
  sem_post(&started);
  sem_wait(&requested);   /* disabled: the request waits */
  usleep(1);
  reached = 1;
  pthread_setcancelstate(old, 0);
  pthread_testcancel();   /* acted on here */
  reached = 2;
  return 0;
}
static void *exits(void *arg) {
  pthread_cleanup_push(cleanup, arg);
  pthread_mutex_lock(&mu);
  pthread_exit((void *)7);  /* runs the handler, which unlocks */
  pthread_cleanup_pop(0);
  return 0;
}
int main(void) {
  int x; klee_make_symbolic(&x, sizeof x, "x");
  int one = 1, ten = 10;
  pthread_t w, m, e; void *r;
  pthread_create(&w, 0, waiter, &one);
  sched_yield();                       /* the waiter waits */
  pthread_cancel(w);
  pthread_join(w, &r);
  printf("waiter %d cleaned %d\n", r == PTHREAD_CANCELED, cleaned);
  sem_init(&started, 0, 0);
  sem_init(&requested, 0, 0);
  pthread_create(&m, 0, masked, 0);
  sem_wait(&started);
  pthread_cancel(m);
  sem_post(&requested);
  pthread_join(m, &r);
  printf("masked %d reached %d\n", r == PTHREAD_CANCELED, reached);
  pthread_create(&e, 0, exits, &ten);
  pthread_join(e, &r);
  printf("exits %ld cleaned %d lock %d\n", (long)r, cleaned, pthread_mutex_trylock(&mu));
  if (x > 5) puts("more"); else puts("less");
  return 0;
}
