/* C's complex multiplication and division: clang computes a product
 * inline and calls __muldc3 (__mulsc3 for float) when both its parts come
 * out NaN, and calls __divdc3 (__divsc3) for every quotient. Those are the
 * compiler's runtime functions, not libc's; mnemo's runtime has them, with
 * Annex G's rules for infinite operands, as the native build's runtime
 * does. One path per case of k, each printing its result (a NaN as `nan`,
 * its sign being the hardware's) and exiting 0 where Annex G's answer
 * came out, 1 otherwise.
 * expect-completed: 8
 * expect-tests: 8
 */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <klee/klee.h>

/* Parts set one by one: CMPLX is C11's, and glibc's header gives it to
 * clang not at all; `re + im * I` would make an infinite part's product
 * with I's zero real part NaN. */
static double complex make(double re, double im) {
  double complex z;
  ((double *)&z)[0] = re;
  ((double *)&z)[1] = im;
  return z;
}

static float complex makef(float re, float im) {
  float complex z;
  ((float *)&z)[0] = re;
  ((float *)&z)[1] = im;
  return z;
}

static void show(double re, double im) {
  if (isnan(re))
    printf("nan ");
  else
    printf("%g ", re);
  if (isnan(im))
    printf("nan\n");
  else
    printf("%g\n", im);
}

int main(void) {
  int k = klee_range(0, 8, "k");
  double complex z;
  float complex f;
  int ok;
  switch (k) {
  case 0: /* finite: the inline product, no call */
    z = (1.0 + 2.0 * I) * (3.0 + 4.0 * I);
    ok = creal(z) == -5.0 && cimag(z) == 10.0;
    break;
  case 1: { /* inf * (1 + 0i): inline both parts NaN, Annex G gives inf */
    double complex a = make(INFINITY, NAN), b = make(1.0, 0.0);
    z = a * b;
    ok = isinf(creal(z)) && creal(z) > 0;
    break;
  }
  case 2: { /* no infinite operand, but an overflowing partial product
               and a NaN: both parts NaN inline, infinite under Annex G */
    double complex a = make(1e300, 1e300), b = make(1e300, NAN);
    z = a * b;
    ok = isinf(creal(z)) && isinf(cimag(z));
    break;
  }
  case 3: /* exact quotient */
    z = (4.0 + 2.0 * I) / (1.0 + 1.0 * I);
    ok = creal(z) == 3.0 && cimag(z) == -1.0;
    break;
  case 4: { /* by zero: infinite, as the numerator's signs say */
    double complex a = make(1.0, -2.0), b = make(0.0, 0.0);
    z = a / b;
    ok = isinf(creal(z)) && creal(z) > 0 && isinf(cimag(z)) && cimag(z) < 0;
    break;
  }
  case 5: { /* finite over infinite: zero */
    double complex a = make(3.0, 4.0), b = make(INFINITY, 0.0);
    z = a / b;
    ok = creal(z) == 0.0 && cimag(z) == 0.0;
    break;
  }
  case 6: { /* float: case 2 in float's range, through __mulsc3 */
    float complex a = makef(1e30f, 1e30f), b = makef(1e30f, NAN);
    f = a * b;
    z = f;
    ok = isinf(crealf(f)) && isinf(cimagf(f));
    break;
  }
  default: { /* float quotient, scaled: 2^100 / 2^100 in float */
    float complex a = makef(0x1p100f, 0x1p100f), b = makef(0x1p100f, 0.0f);
    f = a / b;
    z = f;
    ok = crealf(f) == 1.0f && cimagf(f) == 1.0f;
    break;
  }
  }
  show(creal(z), cimag(z));
  return ok ? 0 : 1;
}
