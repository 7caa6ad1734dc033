/* Nonlinear: integer square root by bisection, each probe comparing mid*mid
 * with the symbolic input. */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  unsigned short x;
  klee_make_symbolic(&x, sizeof x, "x");
  unsigned lo = 0, hi = 256;
  while (hi - lo > 1) {
    unsigned mid = (lo + hi) / 2;
    if (mid * mid <= x)
      lo = mid;
    else
      hi = mid;
  }
  assert(lo * lo <= x && (lo + 1) * (lo + 1) > x);
  return lo;
}
