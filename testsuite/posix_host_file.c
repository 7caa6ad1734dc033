/* A host file named with --file is read as it is on the host, and cannot
 * be opened for writing (EROFS); a file not named does not exist. The one
 * symbolic argument character equals the file's first one or not: 2 paths.
 * mnemo-args: --file testsuite/data/greeting.txt
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  FILE *f = fopen("testsuite/data/greeting.txt", "r");
  char line[32];
  assert(f && fgets(line, sizeof line, f) && strcmp(line, "hello\n") == 0);
  assert(fopen("testsuite/data/greeting.txt", "w") == NULL && errno == EROFS);
  assert(fopen("testsuite/posix_host_file.c", "r") == NULL && errno == ENOENT);
  if (argv[1][0] == line[0]) {
    puts("same");
    return 1;
  }
  return 0;
}
