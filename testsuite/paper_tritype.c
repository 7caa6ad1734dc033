/* Triangle classification (TriTyp): invalid sides, triangle inequality,
 * equilateral, isosceles (three ways), scalene.
 * expect-completed: 11
 * expect-tests: 11
 */
#include <klee/klee.h>

enum { INVALID, SCALENE, ISOSCELES, EQUILATERAL };

int tritype(int a, int b, int c) {
  if (a <= 0 || b <= 0 || c <= 0)
    return INVALID;
  if (a + b <= c || a + c <= b || b + c <= a)
    return INVALID;
  if (a == b && b == c)
    return EQUILATERAL;
  if (a == b || b == c || a == c)
    return ISOSCELES;
  return SCALENE;
}

int main(void) {
  int a = klee_range(-4, 16, "a");
  int b = klee_range(-4, 16, "b");
  int c = klee_range(-4, 16, "c");
  return tritype(a, b, c);
}
