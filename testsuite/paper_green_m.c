/* Green (FSE 2012) Fig. 2: m(x, y) negates negative inputs, then classifies;
 * 2 x 2 sign cases times 3 outcomes = 12 paths, all feasible.
 * expect-completed: 12
 * expect-tests: 12
 */
#include <klee/klee.h>

int m(int x, int y) {
  if (x < 0)
    x = -x;
  if (y < 0)
    y = -y;
  if (x < 10)
    return 1;
  else if (9 < y)
    return -1;
  else
    return 0;
}

int main(void) {
  /* Bounded so that -x never overflows. */
  int x = klee_range(-1000, 1000, "x");
  int y = klee_range(-1000, 1000, "y");
  return m(x, y) + 1;
}
