/* A ?: between constants compiles to a select, which does not fork; the
 * same choice between computed values compiles to a branch, which does.
 * expect-completed: 4
 * expect-tests: 4
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_range(-10, 10, "x");
  int y = klee_range(-10, 10, "y");
  int sign = x < 0 ? -1 : 1;
  int mag = y < 0 ? -y : y;
  if (sign * mag > 5)
    return 1;
  return 0;
}
