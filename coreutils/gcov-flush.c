/*
 * Linked into every program of the gcov build. The bench kills a replay
 * that runs past its time limit, and a killed process writes no coverage
 * data: the lines that `tail -f` ran before the kill would count as never
 * run. With $MNEMO_GCOV_FLUSH_MS set, a thread writes the data that many
 * milliseconds after the start, before the kill, and clears the counters
 * so that a program that exits normally afterwards adds the rest when it
 * writes the data again at exit.
 *
 * The variable is removed from the environment at start, so `env` and
 * `printenv` print what they would without it, and so is $GCOV_PREFIX,
 * which the bench sets for each tool: libgcov reads it when it writes the
 * data, so it is put back just before each write.
 *
 * libgcov writes the data again at exit, from a destructor; two writes at
 * once corrupt the process (one that exits just as the thread writes).
 * An atexit handler, which runs before the destructors, takes the lock the
 * thread writes under and keeps it: the exit waits for a write under way,
 * and no write starts after it.
 */
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <time.h>

/* libgcov's, linked by --coverage. */
void __gcov_dump(void);
void __gcov_reset(void);

static long flush_ms;
static pthread_mutex_t writing = PTHREAD_MUTEX_INITIALIZER;
/* $GCOV_PREFIX as the program was started with it (NULL: not set). */
static char *prefix;

static void restore_prefix(void) {
  if (prefix != NULL)
    setenv("GCOV_PREFIX", prefix, 1);
}

/* The machine's monotonic clock, asked of the kernel: the program's
 * clock_gettime is the model's (runtime/replay/clock.c is linked in too),
 * which never moves. */
static void monotonic(struct timespec *ts) { syscall(SYS_clock_gettime, CLOCK_MONOTONIC, ts); }

/* The wait is poll's: the replay answers nanosleep and clock_nanosleep at
 * once, as the engine's model does, and a sleep would flush at the start. */
static void *flush_later(void *unused) {
  struct timespec now, end;
  (void)unused;
  monotonic(&end);
  end.tv_sec += flush_ms / 1000;
  end.tv_nsec += (flush_ms % 1000) * 1000000L;
  for (;;) {
    monotonic(&now);
    long left_ms = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
    if (left_ms <= 0)
      break;
    poll(NULL, 0, left_ms);
  }
  pthread_mutex_lock(&writing);
  /* A second before the replay's kill: the program is past what it
   * prints, or will not get to it. */
  restore_prefix();
  __gcov_dump();
  __gcov_reset();
  pthread_mutex_unlock(&writing);
  return NULL;
}

/* At exit, before libgcov's destructor writes the data, and after the
 * program's own exit handlers (registered later, run earlier). */
static void stop_flushing(void) {
  pthread_mutex_lock(&writing);
  restore_prefix();
}

/* A child of fork has no flush thread, and a lock its parent's thread
 * held would stop its exit. */
static void forked(void) { pthread_mutex_init(&writing, NULL); }

/* A replay holds the program to one process, so that a fork fails as
 * it does in the engine: with a seccomp filter that lets threads be made,
 * or, where the machine allows none, for a user other than root with a
 * limit of one process of its own (RLIMIT_NPROC), where a thread counts
 * as one: the replay's hard limit leaves room for this thread, the soft
 * limit is raised for its start and put back after, and a fork still
 * fails. */
static void start_thread(void) {
  pthread_t thread;
  struct rlimit limit;
  int raised = getrlimit(RLIMIT_NPROC, &limit) == 0 && limit.rlim_cur < limit.rlim_max;
  if (raised) {
    limit.rlim_cur++;
    raised = setrlimit(RLIMIT_NPROC, &limit) == 0;
  }
  if (pthread_create(&thread, NULL, flush_later, NULL) == 0)
    pthread_detach(thread);
  if (raised) {
    limit.rlim_cur--;
    setrlimit(RLIMIT_NPROC, &limit);
  }
}

__attribute__((constructor)) static void start_flush_timer(void) {
  const char *text = getenv("MNEMO_GCOV_FLUSH_MS");
  const char *given = getenv("GCOV_PREFIX");
  if (given != NULL && (prefix = strdup(given)) != NULL)
    unsetenv("GCOV_PREFIX");
  if (text != NULL) {
    flush_ms = strtol(text, NULL, 10);
    unsetenv("MNEMO_GCOV_FLUSH_MS");
  }
  if ((prefix != NULL || flush_ms > 0) && atexit(stop_flushing) != 0) {
    /* No handler to put it back: the data goes where it would have. */
    restore_prefix();
    return;
  }
  if (flush_ms <= 0 || pthread_atfork(NULL, NULL, forked) != 0)
    return;
  start_thread();
}
