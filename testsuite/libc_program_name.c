/* The program's name as musl's startup sets it from argv[0], which a run
 * does not execute: program_invocation_name is argv[0] and
 * program_invocation_short_name its last component, which err() and
 * warn() print before their message and gnulib's getprogname() returns
 * (usage messages print it). Both are printed, so the replay compares them
 * with the native run's; a name that is not argv[0]'s exits 1.
 * expect-completed: 1
 * expect-tests: 1
 */
#define _GNU_SOURCE
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 1 || !program_invocation_name || !program_invocation_short_name)
    return 1;
  printf("%s %s\n", program_invocation_name, program_invocation_short_name);
  const char *slash = strrchr(argv[0], '/');
  if (strcmp(program_invocation_name, argv[0]) != 0 ||
      strcmp(program_invocation_short_name, slash ? slash + 1 : argv[0]) != 0)
    return 1;
  warnx("the name is %s", program_invocation_short_name);
  return 0;
}
