/* Symbolic stdin read through musl's stdio (getchar): three bytes, each a
 * newline or not (2^3 = 8 paths), then the end of the input.
 * program-args: --sym-stdin 3
 * expect-completed: 8
 * expect-tests: 8
 */
#include <stdio.h>

int main(void) {
  int c, lines = 0;
  while ((c = getchar()) != EOF)
    if (c == '\n')
      lines++;
  printf("%d lines\n", lines);
  return lines;
}
