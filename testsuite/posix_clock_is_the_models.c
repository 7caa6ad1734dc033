/* Every clock reads the model's time (2024-01-01 00:00 UTC) and none
 * moves. The replay library gives the native run the same clock, so the
 * test of a program that prints the date, the time or an elapsed time
 * prints what the engine predicted. An argument 'd' prints them and
 * exits 3; any other exits 0. 2 paths.
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  if (argv[1][0] != 'd')
    return 0;
  time_t now = time(NULL);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  struct timespec real, mono, utc;
  clock_gettime(CLOCK_REALTIME, &real);
  clock_gettime(CLOCK_MONOTONIC, &mono);
  timespec_get(&utc, TIME_UTC);
  char date[64];
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", gmtime(&now));
  printf("%s\n%lld %lld.%06ld %lld.%09ld %lld.%09ld\n", date, (long long)now,
         (long long)tv.tv_sec, (long)tv.tv_usec, (long long)real.tv_sec,
         real.tv_nsec, (long long)utc.tv_sec, utc.tv_nsec);
  struct timespec later;
  clock_gettime(CLOCK_MONOTONIC, &later);
  printf("elapsed %lld\n", (long long)(later.tv_sec - mono.tv_sec));
  return 3;
}
