/* Floating point on a symbolic value is unsupported: the path ends with an
 * unsupported error at the first such instruction; concrete floating point
 * on the path before it is fine.
 * expect-completed: 0
 * expect-error: unsupported 15 1
 * expect-tests: 1
 */
#include <klee/klee.h>

int main(void) {
  double scale = 0.5 * 4.0;
  int x = klee_range(0, 100, "x");
  if (scale != 2.0)
    return 9;
  if ((double)x * scale > 3.0)
    return 1;
  return 0;
}
