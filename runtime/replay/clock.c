/*
 * The model's clock in a native run: every clock reads MNEMO_TIME and
 * none moves, as in the engine, so that a test of a program that prints
 * the date or the time (`date`, `pr`'s page headers, a log line) prints
 * what the engine predicted. Defined in the program, these take the place
 * of the C library's functions, and of a sanitizer's interceptors of
 * them, for the program's own calls. Sleeps already take no time (the
 * seccomp filter of replay.c).
 */
#define _GNU_SOURCE
#include <sys/time.h>
#include <time.h>

#include "mnemo/model.h"

time_t time(time_t *t) {
  if (t != NULL)
    *t = MNEMO_TIME;
  return MNEMO_TIME;
}

/* glibc declares `tv` non-null, so it is not checked. */
int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
  (void)tz;
  tv->tv_sec = MNEMO_TIME;
  tv->tv_usec = 0;
  return 0;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
  (void)clock;
  ts->tv_sec = MNEMO_TIME;
  ts->tv_nsec = 0;
  return 0;
}

int timespec_get(struct timespec *ts, int base) {
  if (base != TIME_UTC)
    return 0;
  ts->tv_sec = MNEMO_TIME;
  ts->tv_nsec = 0;
  return base;
}
