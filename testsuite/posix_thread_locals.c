/* Each thread has its own copy of each thread-local variable, starting
 * from the variable's initializer whatever the main thread wrote to its
 * own: a thread's writes reach neither the main thread's copy nor
 * another's, the copies have different addresses, and a pointer to one
 * thread's copy reaches that copy from any thread, while it lives. The
 * input byte decides how much the first worker adds to its counter,
 * which its result reports.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>

static _Thread_local int counter = 5;
static __thread char name[8] = "main";
static int *seen[3];
static sem_t ready, go;
static unsigned char step;

static void *worker(void *arg) {
  int i = (int)(long)arg;
  int first = counter;
  counter += i == 1 ? step : 100;
  name[0] = (char)('0' + i);
  seen[i] = &counter;
  sem_post(&ready);
  sem_wait(&go); /* main reads this thread's copy meanwhile */
  return (void *)(long)(first * 1000 + counter);
}

int main(void) {
  klee_make_symbolic(&step, sizeof step, "step");
  counter = 7;
  seen[0] = &counter;
  pthread_t t[2];
  for (long i = 1; i <= 2; i++)
    pthread_create(&t[i - 1], 0, worker, (void *)i);
  sem_wait(&ready);
  sem_wait(&ready);
  printf("distinct %d %d %d\n", seen[0] != seen[1], seen[1] != seen[2], seen[0] != seen[2]);
  printf("second's %d\n", *seen[2]);
  sem_post(&go);
  sem_post(&go);
  void *r[2];
  pthread_join(t[0], &r[0]);
  pthread_join(t[1], &r[1]);
  printf("main %d %s\n", counter, name);
  printf("second %ld\n", (long)r[1]);
  if ((long)r[0] % 1000 > 200)
    printf("first past 200\n");
  else
    printf("first %ld\n", (long)r[0]);
  return 0;
}
