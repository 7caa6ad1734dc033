/* cat -n: copies its files (or standard input when none is named, or for
 * "-") to standard output; -n numbers every line, -b only the non-blank
 * ones. A file that cannot be opened is reported and skipped, and the exit
 * status is then 1, as is a file that is a directory (the symbolic file
 * may be one), which cannot be read.
 * program-args: --sym-args 0 2 2 --sym-files 1 3 --sym-stdin 3
 * expect-completed: 614
 * expect-tests: 614
 */
#include <stdio.h>
#include <string.h>

static int number_all, number_nonblank;
static unsigned long line_no;
static int at_line_start = 1;

static void copy(FILE *in) {
  int c;
  while ((c = getc(in)) != EOF) {
    if (at_line_start && (number_all || (number_nonblank && c != '\n')))
      printf("%6lu\t", ++line_no);
    putchar(c);
    at_line_start = c == '\n';
  }
}

int main(int argc, char **argv) {
  int i = 1, status = 0, files = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
    if (strcmp(argv[i], "-n") == 0)
      number_all = 1;
    else if (strcmp(argv[i], "-b") == 0)
      number_nonblank = 1;
    else {
      fprintf(stderr, "cat: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  if (number_nonblank)
    number_all = 0;
  for (; i < argc; i++, files++) {
    if (strcmp(argv[i], "-") == 0) {
      copy(stdin);
      continue;
    }
    FILE *f = fopen(argv[i], "r");
    if (f == NULL) {
      fprintf(stderr, "cat: %s: cannot open\n", argv[i]);
      status = 1;
      continue;
    }
    copy(f);
    fclose(f);
  }
  if (files == 0)
    copy(stdin);
  return status;
}
