/* seq: prints the numbers from FIRST (1 when omitted) to LAST, one a line;
 * -s SEP separates them with SEP instead of newlines. Numbers are small
 * decimal integers; anything else is an error.
 * program-args: --sym-args 1 3 2
 * expect-completed: 108
 * expect-tests: 108
 */
#include <stdio.h>
#include <string.h>

/* A one-digit number, or -1. */
static int number(const char *s) {
  if (s[0] < '0' || s[0] > '9' || s[1] != '\0')
    return -1;
  return s[0] - '0';
}

int main(int argc, char **argv) {
  const char *sep = "\n";
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "-s") == 0) {
    sep = argv[i + 1];
    i += 2;
  }
  int operands = argc - i;
  if (operands < 1 || operands > 2) {
    fputs("usage: seq [-s SEP] [FIRST] LAST\n", stderr);
    return 1;
  }
  int first = operands == 2 ? number(argv[i]) : 1;
  int last = number(argv[argc - 1]);
  if (first < 0 || last < 0) {
    fputs("seq: invalid number\n", stderr);
    return 1;
  }
  for (int n = first; n <= last; n++) {
    if (n > first)
      fputs(sep, stdout);
    printf("%d", n);
  }
  if (first <= last)
    putchar('\n');
  return 0;
}
