/* head -n: prints the first lines of a file or of standard input (10 by
 * default); "-n N" or "-N" sets the count. A count that is not a number is
 * an error (exit 1), and so is a file that is a directory (the symbolic
 * file may be one).
 * program-args: --sym-args 0 3 2 --sym-files 1 3 --sym-stdin 3
 * expect-completed: 277
 * expect-tests: 277
 */
#include <stdio.h>
#include <string.h>

/* Parses a count of at most two digits; -1 when `s` is not one. */
static int parse_count(const char *s) {
  int n = 0, digits = 0;
  for (; *s; s++, digits++) {
    if (*s < '0' || *s > '9' || digits == 2)
      return -1;
    n = n * 10 + (*s - '0');
  }
  return digits ? n : -1;
}

int main(int argc, char **argv) {
  int count = 10, i = 1;
  if (i < argc && strcmp(argv[i], "-n") == 0) {
    if (i + 1 >= argc) {
      fputs("head: option requires an argument -- 'n'\n", stderr);
      return 1;
    }
    count = parse_count(argv[i + 1]);
    i += 2;
  } else if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
    count = parse_count(argv[i] + 1);
    i++;
  }
  if (count < 0) {
    fputs("head: invalid number of lines\n", stderr);
    return 1;
  }
  FILE *in = stdin;
  if (i < argc && (in = fopen(argv[i], "r")) == NULL) {
    fprintf(stderr, "head: cannot open '%s' for reading\n", argv[i]);
    return 1;
  }
  int c;
  while (count > 0 && (c = getc(in)) != EOF) {
    putchar(c);
    if (c == '\n')
      count--;
  }
  return 0;
}
