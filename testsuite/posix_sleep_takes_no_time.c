/* Time does not pass in the model: a sleep returns at once. The replay
 * answers the program's sleeps at once too, so the test of a sleep of a
 * day exits as the engine said rather than at the replay's time limit.
 * An argument 's' sleeps, by each of the C library's ways, and exits 3;
 * any other exits 0. 2 paths.
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  if (argv[1][0] != 's')
    return 0;
  struct timespec day = {24 * 60 * 60, 0};
  if (sleep(24 * 60 * 60) != 0 || nanosleep(&day, 0) != 0 ||
      clock_nanosleep(CLOCK_MONOTONIC, 0, &day, 0) != 0 || usleep(999999) != 0)
    return 4;
  return 3;
}
