/*
 * Linked into every program of the gcov build. The bench kills a replay
 * that runs past its time limit, and a killed process writes no coverage
 * data: the lines that `yes`, `tail -f` or `sleep 30` ran before the kill
 * would count as never run. With $MNEMO_GCOV_FLUSH_MS set, a thread writes
 * the data that many milliseconds after the start, before the kill, and
 * clears the counters so that a program that exits normally afterwards
 * adds the rest when it writes the data again at exit.
 *
 * The variable is removed from the environment at start, so `env` and
 * `printenv` print what they would without it.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

/* libgcov's, linked by --coverage. */
void __gcov_dump(void);
void __gcov_reset(void);

static long flush_ms;

static void *flush_later(void *unused) {
  struct timespec left = {flush_ms / 1000, (flush_ms % 1000) * 1000000L};
  (void)unused;
  while (nanosleep(&left, &left) != 0)
    ;
  __gcov_dump();
  __gcov_reset();
  return NULL;
}

__attribute__((constructor)) static void start_flush_timer(void) {
  const char *text = getenv("MNEMO_GCOV_FLUSH_MS");
  pthread_t thread;
  if (text == NULL)
    return;
  flush_ms = strtol(text, NULL, 10);
  unsetenv("MNEMO_GCOV_FLUSH_MS");
  if (flush_ms > 0 && pthread_create(&thread, NULL, flush_later, NULL) == 0)
    pthread_detach(thread);
}
