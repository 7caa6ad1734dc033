/* Floating point on a symbolic value fixes the value to one the path
 * allows, as KLEE does, and the path goes on with it: each side of a
 * symbolic branch taken before the first float operation keeps its own
 * value. x < 50 or not (2 paths); on each, x becomes one number and the
 * float comparisons after it are concrete.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>

int main(void) {
  double scale = 0.5 * 4.0;
  int x = klee_range(0, 100, "x");
  if (scale != 2.0)
    return 9;
  if (x < 50)
    return (double)x * scale < 100.0 ? 0 : 1;
  if ((double)x * scale >= 100.0)
    return 2;
  return 3;
}
