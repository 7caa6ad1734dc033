/* Threads that spin: the main thread spins on a flag a thread it made
 * sets, and on a spin lock that thread holds across a sleep. Neither
 * spin makes a system call, so the spinning thread is preempted for the
 * other to go on, as a kernel would; without it the path never ends. A
 * thread whose cancellation is asynchronous, spinning for ever, is
 * cancelled. A thread waiting with a time limit times out while another
 * spins for it (time passes), and while another calls sched_yield in a
 * loop for it (no other thread can run, so each yield goes on at once:
 * a spin too, which without that never ended). The input decides the
 * value passed through the flag, and so the last line.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <klee/klee.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static atomic_int ready, value;
static pthread_spinlock_t lock;
static int in_lock;

static void *producer(void *arg) {
  atomic_store(&value, *(int *)arg);
  atomic_store(&ready, 1);
  pthread_spin_lock(&lock);
  atomic_store(&ready, 2);
  usleep(1000);
  in_lock = 7;
  pthread_spin_unlock(&lock);
  return 0;
}

static void *spinner(void *arg) {
  (void)arg;
  pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, 0);
  atomic_store(&ready, 3);
  for (;;)
    ;
  return 0;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *waiter(void *arg) {
  (void)arg;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 5;
  pthread_mutex_lock(&mu);
  int r = pthread_cond_timedwait(&never, &mu, &until);
  pthread_mutex_unlock(&mu);
  atomic_store(&ready, r == ETIMEDOUT ? 4 : 5);
  return 0;
}

int main(void) {
  int input;
  klee_make_symbolic(&input, sizeof input, "input");
  int v = input > 10 ? 11 : 3;
  pthread_t t;
  pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
  pthread_create(&t, 0, producer, &v);
  while (atomic_load(&ready) != 2)
    ;
  pthread_spin_lock(&lock);
  printf("in lock %d\n", in_lock);
  pthread_spin_unlock(&lock);
  pthread_join(t, 0);
  void *result;
  pthread_create(&t, 0, spinner, 0);
  while (atomic_load(&ready) != 3)
    ;
  pthread_cancel(t);
  pthread_join(t, &result);
  printf("spinner cancelled %d\n", result == PTHREAD_CANCELED);
  pthread_create(&t, 0, waiter, 0);
  while (atomic_load(&ready) == 3)
    ;
  pthread_join(t, 0);
  printf("timed out %d\n", atomic_load(&ready) == 4);
  // Yields that find no other thread able to run are a spin too.
  atomic_store(&ready, 3);
  pthread_create(&t, 0, waiter, 0);
  while (atomic_load(&ready) == 3)
    sched_yield();
  pthread_join(t, 0);
  printf("timed out while yielding %d\n", atomic_load(&ready) == 4);
  printf("value %d\n", atomic_load(&value));
  return atomic_load(&value) > 10;
}
