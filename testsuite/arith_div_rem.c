/* Division and remainder by symbolic divisors: each may be zero (one
 * div-by-zero path each); a divisor forced non-zero does not fork, and a
 * constant divisor is never checked.
 * expect-completed: 2
 * expect-error: div-by-zero 18 1
 * expect-error: div-by-zero 19 1
 * expect-tests: 4
 */
#include <stdint.h>
#include <klee/klee.h>

int main(void) {
  int a = klee_range(0, 1000, "a");
  int b = klee_int("b");
  int c = klee_int("c");
  uint64_t d;
  klee_make_symbolic(&d, sizeof d, "d");
  int q = a / b;
  int r = a % c;
  uint64_t big = (uint64_t)a * 1000003u;
  uint64_t uq = big / (d | 1);
  int t = a / 7 + a % 3;
  if (r == 0)
    return (q + t) & 1;
  return (int)(uq & 3);
}
