/* Overflow-checking builtins on symbolic operands and abs()/labs(): each
 * overflow test forks once. The program tests x < 0 first; musl's abs tests
 * x > 0, which splits zero from the positive values: 2 x 2 x (3 negative,
 * 1 zero, 3 positive).
 * expect-completed: 28
 * expect-tests: 28
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
