/* Nonlinear and signed: a Euclid on two symbolic signed chars, whose
 * remainders C takes on ints (each operand sign-extended), and a
 * quotient of each step folded into a checksum. */
#include <assert.h>
#include <klee/klee.h>

static signed char gcd(signed char a, signed char b, int *sum) {
  if (b == 0)
    return a;
  *sum += a / b;
  return gcd(b, a % b, sum);
}

int main(void) {
  signed char a, b;
  int sum = 0;
  klee_make_symbolic(&a, sizeof a, "a");
  klee_make_symbolic(&b, sizeof b, "b");
  signed char g = gcd(a, b, &sum);
  if (g != 0 && a != -128 && b != -128)
    assert(a % g == 0 && b % g == 0);
  return (sum & 3) == 1;
}
