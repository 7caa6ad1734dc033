/* Threads run one at a time, each until it waits, yields, sleeps or
 * exits, over musl's own mutexes, condition variables, barriers,
 * semaphores, once and keys: a producer and a consumer share a bounded
 * queue under a mutex and a condition (the consumer, made first, waits
 * for the first item); three threads meet at a barrier twice; two race
 * to one pthread_once; a key's destructor runs at a thread's exit; a C11
 * thread's int result comes back through thrd_join; a thread spun on with
 * sched_yield sets a flag; a detached thread posts a semaphore; each
 * thread has its own errno, id and pthread_self. A condition's timed wait
 * times out when no other thread can run, joining oneself is EDEADLK and
 * an error-checking mutex locked twice EDEADLK, as glibc gives them. The
 * two input bytes the producer queues, each 0..3, decide whether the
 * consumer's sum passes 12 and which digits it prints.
 * expect-completed: 4
 * expect-tests: 4
 */
#define _GNU_SOURCE
#include <klee/klee.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>
#include <errno.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int queue[4], head, tail, done;
static char trail[64]; static int tl;
static void note(char c) { pthread_mutex_lock(&mu); if (tl < 63) trail[tl++] = c; pthread_mutex_unlock(&mu); }

static void *producer(void *arg) {
  const char *in = arg;
  for (int i = 0; i < 6; i++) {
    pthread_mutex_lock(&mu);
    while (tail - head == 4) pthread_cond_wait(&cv, &mu);
    queue[tail++ % 4] = in[i % 2];
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu); done = 1; pthread_cond_broadcast(&cv); pthread_mutex_unlock(&mu);
  return (void *)6;
}
static void *consumer(void *arg) {
  long sum = 0;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (head == tail && !done) pthread_cond_wait(&cv, &mu);
    if (head == tail && done) { pthread_mutex_unlock(&mu); break; }
    sum += queue[head++ % 4];
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  *(long *)arg = sum;
  return 0;
}
static sem_t sem; static pthread_barrier_t bar; static int phase[3];
static void *barrier_worker(void *arg) {
  int i = (int)(long)arg;
  phase[i] = 1;
  pthread_barrier_wait(&bar);
  int seen = phase[0] + phase[1] + phase[2];
  pthread_barrier_wait(&bar);
  phase[i] = seen + i;
  sem_post(&sem);
  return 0;
}
static pthread_once_t once = PTHREAD_ONCE_INIT; static int inits;
static void init(void) { inits++; }
static void *onceler(void *arg) { (void)arg; pthread_once(&once, init); note('o'); return 0; }
static pthread_key_t key; static int dtors;
static void dtor(void *p) { dtors += *(int *)p; }
static void *keyed(void *arg) { pthread_setspecific(key, arg); note('k'); return 0; }
static int c11(void *arg) { note('c'); return *(int *)arg + 1; }
static volatile int flag;
static void *setter(void *arg) { (void)arg; flag = 1; note('s'); return 0; }
static sem_t left;
static void *detached(void *arg) { (void)arg; note('d'); sem_post(&left); return 0; }
static pthread_t main_thread;
static void *own_errno(void *arg) {
  (void)arg;
  errno = EDOM;
  sched_yield(); /* main sets its own meanwhile */
  return (void *)(long)(errno == EDOM && !pthread_equal(pthread_self(), main_thread) &&
                        gettid() != getpid());
}

int main(void) {
  char in[2];
  klee_make_symbolic(in, sizeof in, "in");
  klee_assume(in[0] >= 0 & in[0] < 4 & in[1] >= 0 & in[1] < 4);
  pthread_t p, c; long sum = -1; void *r;
  pthread_create(&c, 0, consumer, &sum);
  pthread_create(&p, 0, producer, in);
  pthread_join(p, &r); pthread_join(c, 0);
  printf("sum %ld made %ld\n", sum, (long)r);
  if (sum > 12) puts("big"); else puts("small");

  sem_init(&sem, 0, 0); pthread_barrier_init(&bar, 0, 3);
  pthread_t b[3];
  for (long i = 0; i < 3; i++) pthread_create(&b[i], 0, barrier_worker, (void *)i);
  for (int i = 0; i < 3; i++) sem_wait(&sem);
  for (int i = 0; i < 3; i++) pthread_join(b[i], 0);
  printf("phases %d %d %d\n", phase[0], phase[1], phase[2]);

  pthread_t o[2]; for (int i = 0; i < 2; i++) pthread_create(&o[i], 0, onceler, 0);
  for (int i = 0; i < 2; i++) pthread_join(o[i], 0);
  pthread_key_create(&key, dtor); int seven = 7; pthread_t k; pthread_create(&k, 0, keyed, &seven); pthread_join(k, 0);
  thrd_t t; int v = 41, res; thrd_create(&t, c11, &v); thrd_join(t, &res);
  pthread_t s; pthread_create(&s, 0, setter, 0); while (!flag) sched_yield(); pthread_join(s, 0);
  pthread_t d; pthread_attr_t at; pthread_attr_init(&at); pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
  sem_init(&left, 0, 0); pthread_create(&d, &at, detached, 0); sem_wait(&left);
  printf("inits %d dtors %d c11 %d flag %d\n", inits, dtors, res, flag);
  main_thread = pthread_self();
  pthread_t e; pthread_create(&e, 0, own_errno, 0); errno = ERANGE; usleep(10);
  void *own; pthread_join(e, &own);
  printf("errno %d own %ld\n", errno == ERANGE, (long)own);
  printf("join self %d\n", pthread_join(pthread_self(), 0) == EDEADLK);
  pthread_mutex_lock(&mu);
  struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts); ts.tv_sec += 1;
  printf("timedwait %d\n", pthread_cond_timedwait(&cv, &mu, &ts) == ETIMEDOUT);
  pthread_mutex_unlock(&mu);
  pthread_mutex_t rm; pthread_mutexattr_t ma; pthread_mutexattr_init(&ma); pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_init(&rm, &ma); pthread_mutex_lock(&rm); printf("relock %d\n", pthread_mutex_lock(&rm) == EDEADLK);
  trail[tl] = 0; printf("trail %zu\n", strlen(trail));
  return 0;
}
