/* Rational numbers (after the Rational subject of Qiu et al., ICSE 2015):
 * a rational is a pair of ints passed and returned by value; simplify
 * divides both by their gcd (Euclid's by subtraction, at most 3 steps) and
 * puts the sign on the numerator. The driver `main` simplifies two
 * symbolic rationals and compares them.
 * -DSEED=1|2|3 seeds an error on gcd's first, a middle or its last path. */
#include <klee/klee.h>
#ifndef SEED
#define SEED 0
#endif
void reach_error(void);

struct rational {
  int num;
  int den;
};

int abs_int(int x) {
  if (x < 0)
    return -x;
  return x;
}

int gcd(int a, int b) {
  a = abs_int(a);
  b = abs_int(b);
  if (a == 0 || b == 0) {
    if (SEED == 1) reach_error();
    return a + b;
  }
  /* Euclid's by subtraction, at most 3 steps (then 1: the driver's
   * operands that need more are coprime). */
  for (int i = 0; i < 3; i++) {
    if (a == b) {
      if (SEED == 2 && i == 1) reach_error();
      return a;
    }
    if (a > b)
      a = a - b;
    else
      b = b - a;
  }
  if (SEED == 3) reach_error();
  return 1;
}

struct rational simplify(struct rational r) {
  int g = gcd(r.num, r.den);
  if (g == 0)
    return r;
  r.num = r.num / g;
  r.den = r.den / g;
  if (r.den < 0) {
    r.num = -r.num;
    r.den = -r.den;
  }
  return r;
}

int main(void) {
  int same = 0;
  struct rational first = {0, 1};
  for (int i = 0; i < 2; i++) {
    struct rational r;
    r.num = klee_range(-4, 5, "num");
    r.den = klee_range(1, 5, "den");
    struct rational s = simplify(r);
    if (i == 0)
      first = s;
    else if (s.num == first.num && s.den == first.den)
      same++;
  }
  return same;
}
