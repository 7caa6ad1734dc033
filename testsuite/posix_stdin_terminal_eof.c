/* A program that reads its stdin to the end, whether stdin is a terminal
 * (the symbolic status says character device) or not: 2 paths. The native
 * replay gives a terminal's bytes through a pseudo-terminal that hangs up
 * once they are read; a program that kept the terminal's other end open
 * would never see its input end.
 * program-args: --sym-stdin 3
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdio.h>
#include <unistd.h>

int main(void) {
  char c;
  int n = 0;
  int terminal = isatty(0);
  while (read(0, &c, 1) == 1)
    n++;
  printf("%s: %d bytes\n", terminal ? "terminal" : "pipe", n);
  return 0;
}
