/* expand: copies standard input to standard output with every tab replaced
 * by the spaces up to the next tab stop (every 8 columns, or every N with
 * -t N, 1 <= N <= 9). A backspace moves the column back by one.
 * program-args: --sym-args 0 2 2 --sym-stdin 3
 * expect-completed: 423
 * expect-tests: 423
 */
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  int width = 8;
  if (argc == 3 && strcmp(argv[1], "-t") == 0) {
    if (argv[2][0] < '1' || argv[2][0] > '9' || argv[2][1] != '\0') {
      fputs("expand: tab size must be a digit from 1 to 9\n", stderr);
      return 1;
    }
    width = argv[2][0] - '0';
  } else if (argc != 1) {
    fputs("usage: expand [-t N]\n", stderr);
    return 1;
  }
  int column = 0, c;
  while ((c = getchar()) != EOF) {
    if (c == '\t') {
      do
        putchar(' ');
      while (++column % width != 0);
    } else if (c == '\b') {
      putchar(c);
      if (column > 0)
        column--;
    } else {
      putchar(c);
      column = c == '\n' ? 0 : column + 1;
    }
  }
  return 0;
}
