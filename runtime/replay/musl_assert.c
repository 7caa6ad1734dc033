/*
 * A failed assert in a project's program (`mnemo cc-project`, linked with
 * musl): reported as musl reports it, then stderr flushed before the
 * abort, as glibc does. musl leaves the report in stderr's buffer where
 * the program gave stderr one (patch does, with setbuf), and abort() ends
 * the process without writing it: the replay could then not tell the
 * failed assertion the engine predicted from a bare abort().
 *
 * In libmnemo-model.a alone: a program the replay compiles itself is
 * linked with glibc, whose own report is already flushed.
 */
#include <stdio.h>
#include <stdlib.h>

_Noreturn void __assert_fail(const char *expr, const char *file, int line, const char *func) {
  fprintf(stderr, "Assertion failed: %s (%s: %s: %d)\n", expr, file, func, line);
  fflush(stderr);
  abort();
}
