/* Euclid's gcd by subtraction on inputs in [1, 8]: one path per sequence of
 * subtraction decisions, i.e. per coprime pair (a', b') with a', b' <= 8.
 * expect-completed: 43
 * expect-tests: 43
 */
#include <assert.h>
#include <klee/klee.h>

unsigned gcd(unsigned a, unsigned b) {
  while (a != b) {
    if (a > b)
      a -= b;
    else
      b -= a;
  }
  return a;
}

int main(void) {
  unsigned a = (unsigned)klee_range(1, 9, "a");
  unsigned b = (unsigned)klee_range(1, 9, "b");
  unsigned g = gcd(a, b);
  /* Holds on every path, so it adds no path. */
  assert(a % g == 0);
  assert(b % g == 0);
  return (int)g;
}
