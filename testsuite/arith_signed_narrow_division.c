/* Signed division and remainder of promoted chars, and of constants by a
 * sign-extended 64-bit divisor, which the engine does at narrow widths:
 * every branch below is feasible only where the narrow operation keeps
 * C's value. -128 / -1 on promoted chars is 128 (at eight bits it would
 * overflow to -128), -128 % -1 is 0, and a divisor past the dividend's
 * magnitude leaves it whole. Four prefixes (q == 128 forces the next
 * test true), each with four ends of the divisor tests: 16 paths.
 * expect-completed: 16
 * expect-tests: 16
 */
#include <stdint.h>
#include <klee/klee.h>

int main(void) {
  signed char a, b;
  short s;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  klee_make_symbolic(&s, sizeof s, "s");
  klee_assume(b != 0);
  int q = a / b;
  int r = a % b;
  int out = 0;
  if (q == 128)
    out |= 1;
  if (r == 0 && a < 0)
    out |= 2;
  int64_t d = s;
  if (d != 0) {
    /* |s| > 100 */
    if (-100 % d == -100)
      out |= 4;
    /* s in [-100, -51] */
    if (100 / d == -1)
      out |= 8;
  }
  return out;
}
