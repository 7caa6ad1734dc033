/* Stdout is a pipe whose reader takes the first MiB and closes it, in the
 * engine as in the replay: a program that writes for ever (as `yes` does)
 * sees its write fail with EPIPE, no SIGPIPE being delivered, and ends.
 * Writes of 3000 bytes do not divide the MiB: the last one that fits is
 * cut short. An argument 'q' prints one line instead. 2 paths, and the
 * replay finds the same MiB of output and the same exit.
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char line[3000];
  if (argc < 2)
    return 1;
  if (argv[1][0] == 'q') {
    puts("q");
    return 0;
  }
  memset(line, 'y', sizeof line);
  for (unsigned i = 0; i < sizeof line; i += 100)
    line[i] = '\n';
  for (;;) {
    long n = write(1, line, sizeof line);
    if (n < 0)
      return errno == EPIPE ? 3 : 4;
    if (n == 0)
      return 5;
  }
}
