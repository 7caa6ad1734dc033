/* Overflow-checking builtins on symbolic operands and abs()/labs(): each
 * overflow test forks once. The program tests the sign of x first, so any
 * branch inside the library's abs is decided: 2 x 2 x (2 signs x 3).
 * expect-completed: 24
 * expect-tests: 24
 */
#include <stdlib.h>
#include <klee/klee.h>

int main(void) {
  int a = klee_int("a");
  int b = klee_int("b");
  unsigned m = (unsigned)klee_int("m");
  int x = klee_range(-50, 50, "x");
  int r = 0, sum;
  unsigned prod;
  if (__builtin_add_overflow(a, b, &sum))
    r |= 1;
  if (__builtin_mul_overflow(m, 3u, &prod))
    r |= 2;
  if (x < 0)
    r |= 16;
  if (abs(x) > 10)
    r |= 4;
  if (labs((long)x) == 7)
    r |= 8;
  return r;
}
