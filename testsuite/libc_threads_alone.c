/* What a program asks of threads with none but its own, which libraries
 * written for several threads do on one: pthread_once and C11's
 * call_once run their routine once, a key holds the thread's value and
 * its destructor runs when pthread_exit ends the last thread, read-write
 * and spin locks and C11 mutexes are taken and given back, attributes
 * keep what is set, and pthread_self is itself. pthread_exit ends the
 * process with status 0 after the destructor, which prints. Each answer
 * that is not POSIX's exits with its own status.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <pthread.h>
#include <stdio.h>
#include <threads.h>

static int inits, c11_inits;
static void init(void) { inits++; }
static void c11_init(void) { c11_inits++; }
static void release(void *v) { printf("released %d\n", *(int *)v); }

int main(void) {
  static pthread_once_t once = PTHREAD_ONCE_INIT;
  static once_flag c11_once = ONCE_FLAG_INIT;
  pthread_once(&once, init);
  pthread_once(&once, init);
  call_once(&c11_once, c11_init);
  call_once(&c11_once, c11_init);
  if (inits != 1 || c11_inits != 1)
    return 1;

  static int value = 42;
  pthread_key_t key;
  if (pthread_key_create(&key, release) != 0 || pthread_getspecific(key) != NULL)
    return 2;
  if (pthread_setspecific(key, &value) != 0 || pthread_getspecific(key) != &value)
    return 3;
  tss_t slot;
  if (tss_create(&slot, 0) != thrd_success || tss_set(slot, &value) != thrd_success ||
      tss_get(slot) != &value)
    return 4;

  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  if (pthread_rwlock_rdlock(&rw) || pthread_rwlock_tryrdlock(&rw) ||
      pthread_rwlock_unlock(&rw) || pthread_rwlock_unlock(&rw))
    return 5;
  if (pthread_rwlock_wrlock(&rw) || pthread_rwlock_tryrdlock(&rw) == 0 ||
      pthread_rwlock_unlock(&rw))
    return 6;
  pthread_spinlock_t spin;
  if (pthread_spin_init(&spin, 0) || pthread_spin_lock(&spin) ||
      pthread_spin_trylock(&spin) == 0 || pthread_spin_unlock(&spin))
    return 7;
  mtx_t m;
  if (mtx_init(&m, mtx_plain) != thrd_success || mtx_lock(&m) != thrd_success ||
      mtx_unlock(&m) != thrd_success)
    return 8;

  pthread_attr_t attr;
  int state;
  if (pthread_attr_init(&attr) ||
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) ||
      pthread_attr_getdetachstate(&attr, &state) || state != PTHREAD_CREATE_DETACHED ||
      pthread_attr_destroy(&attr))
    return 9;
  if (!pthread_equal(pthread_self(), pthread_self()))
    return 10;
  fflush(stdout);
  pthread_exit(0);
}
