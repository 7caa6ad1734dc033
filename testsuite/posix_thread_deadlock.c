/* Two threads each holding the mutex the other waits for (a semaphore
 * makes sure they do, natively too) wait for ever: when no thread can
 * run and none waits with a time limit, the path ends blocked, and the
 * native run hangs. Otherwise main leaves with
 * pthread_exit and the process goes on until its last thread ends, which
 * exits it with status 0 (stdio's buffer written then); its
 * line says whether the input passes 100.
 * expect-completed: 2
 * expect-early: blocked 1
 * expect-tests: 3
 */
#include <klee/klee.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int x;
static sem_t got_b;

static void *other(void *arg) {
  pthread_mutex_lock(&b);
  sem_post(&got_b);
  pthread_mutex_lock(&a);
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
  return arg;
}

static void *late(void *arg) {
  (void)arg;
  printf("late %d\n", x > 100);
  return 0;
}

int main(void) {
  klee_make_symbolic(&x, sizeof x, "x");
  pthread_t t;
  if (x == 3) {
    sem_init(&got_b, 0, 0);
    pthread_mutex_lock(&a);
    pthread_create(&t, 0, other, 0);
    sem_wait(&got_b);
    pthread_mutex_lock(&b);
    puts("never");
    return 1;
  }
  puts("main leaves");
  pthread_create(&t, 0, late, 0);
  pthread_exit(0);
}
