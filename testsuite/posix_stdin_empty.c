/* Without --sym-stdin, stdin is empty: read gives 0 at once, and isatty is
 * false for every standard descriptor; a concrete argument mixed with a
 * symbolic one of one character, which is 'v' or not (2 paths).
 * program-args: -n --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
  char buf[4];
  assert(argc == 3 && strcmp(argv[1], "-n") == 0);
  assert(read(0, buf, sizeof buf) == 0);
  assert(!isatty(0) && !isatty(1) && !isatty(2));
  if (argv[2][0] == 'v') {
    puts("verbose");
    return 1;
  }
  return 0;
}
