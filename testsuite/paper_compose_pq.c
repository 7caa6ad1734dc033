/* CompoSE (ICSE 2015) Fig. 1: q(a, b) calls p with arguments for which p's
 * x == y test is infeasible, so q has 2 paths; p called directly has 3.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <klee/klee.h>

int p(int x, int y) {
  if (x > y)
    x--;
  else
    y++;
  if (x == y)
    return x;
  else
    return y;
}

int q(int a, int b) {
  if (a > b)
    return p(a + 1, b - 10);
  else
    return p(b + 1, a - 10);
}

int main(void) {
  int a = klee_range(-100, 100, "a");
  int b = klee_range(-100, 100, "b");
  int c = klee_range(-100, 100, "c");
  int d = klee_range(-100, 100, "d");
  int r = q(a, b) + p(c, d);
  return r & 0xff;
}
