/* A program that reads its stdin to the end, whether stdin is a terminal
 * (the symbolic status says character device) or not: 2 paths. The native
 * replay types a terminal's bytes into a pseudo-terminal before the
 * program starts, and a read past them finds the end of input (0), as in
 * the model, not the EIO of a terminal that hung up; a program that kept
 * the terminal's other end open would still see its input end.
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
  long r;
  while ((r = read(0, &c, 1)) == 1)
    n++;
  printf("%s: %d bytes, then %ld\n", terminal ? "terminal" : "pipe", n, r);
  return 0;
}
