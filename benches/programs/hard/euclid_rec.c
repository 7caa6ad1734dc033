/* Nonlinear: a recursive Euclid on two symbolic bytes, a chain of
 * remainders up to a dozen deep (C promotes the bytes to int first). */
#include <assert.h>
#include <klee/klee.h>

static unsigned char gcd(unsigned char a, unsigned char b) {
  if (b == 0)
    return a;
  return gcd(b, a % b);
}

int main(void) {
  unsigned char a, b;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  unsigned char g = gcd(a, b);
  if (a > 0 && b > 0)
    assert(a % g == 0 && b % g == 0);
  return g > 1;
}
