/* KLEE's --sym-args: from none to two symbolic arguments of up to two
 * characters each, expanded before main; an argument starting with '-'
 * is counted. n_args takes 0, 1 or 2 (3 ways), and each argument is a dash
 * or not: 1 + 2 + 4 = 7 paths.
 * program-args: --sym-args 0 2 2
 * expect-completed: 7
 * expect-tests: 7
 */
#include <stdio.h>

int main(int argc, char **argv) {
  int dashes = 0;
  for (int i = 1; i < argc; i++)
    if (argv[i][0] == '-')
      dashes++;
  printf("%d %d\n", argc, dashes);
  return dashes;
}
