/* C's rounding functions and their kin, which clang compiles to LLVM's
 * intrinsics (llvm.floor, ceil, trunc, round, rint, nearbyint, copysign,
 * minnum, maxnum, fma, and sqrt without errno) rather than calls, for
 * float, double and long double, and over arrays, which -O2 vectorizes
 * into the same intrinsics on two lanes: halves and negative halves
 * (round takes ties away from zero, rint to even), NaN and infinities,
 * fmin/fmax with a NaN (it gives way) and with +0 and -0 (the first is
 * kept), fma rounding once where a product and a sum round twice. The
 * replay compares every line natively. A symbolic byte decides a branch,
 * then is rounded, which fixes it to one value: two paths.
 * cc-args: -O2 -fno-math-errno
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <math.h>
#include <stdio.h>

static volatile double values[] = {2.5, -2.5, 3.5, -0.5, 0.49999999999999994, 1e300,
                                   -0.0, INFINITY, -INFINITY, NAN, 4503599627370497.0};

static double xs[8], ys[8];

int main(void) {
  for (unsigned i = 0; i < sizeof values / sizeof *values; i++) {
    double x = values[i];
    float f = (float)x;
    long double l = x;
    printf("%g: %g %g %g %g %g %g | %g %g %g %g | %Lg %Lg %Lg %Lg %Lg\n", x, floor(x),
           ceil(x), trunc(x), round(x), rint(x), nearbyint(x), floorf(f), ceilf(f),
           roundf(f), rintf(f), floorl(l), ceill(l), truncl(l), roundl(l), rintl(l));
    printf("  copysign %g %g %Lg sqrt %g %g\n", copysign(3.0, x), copysignf(-1.0f, f),
           copysignl(2.0L, l), sqrt(x), sqrtf(f));
  }
  volatile double zero = 0.0, nz = -0.0, nan = NAN, one = 1.0;
  printf("fmin %g %g %g %g fmax %g %g %g %Lg\n", fmin(zero, nz), fmin(nz, zero), fmin(nan, one),
         fmin(one, nan), fmax(zero, nz), fmax(nz, zero), fmax(nan, nan),
         fminl((long double)one, (long double)nan));
  volatile double a = 1.0 + 0x1p-52, b = 1.0 - 0x1p-52, c = -1.0;
  printf("fma %a unfused %a fmaf %a fmal %a\n", fma(a, b, c), a * b + c,
         fmaf((float)a, 3.0f, 1.0f), (double)fmal(a, b, c));
  for (int i = 0; i < 8; i++)
    xs[i] = values[i] * 1.5;
  for (int i = 0; i < 8; i++)
    ys[i] = floor(xs[i]) + ceil(xs[i]) * 10 + round(xs[i]) * 100 + fmax(xs[i], 1.0);
  for (int i = 0; i < 8; i++)
    printf("%g ", ys[i]);
  putchar('\n');
  char ch;
  klee_make_symbolic(&ch, sizeof ch, "ch");
  if (ch > 'm')
    puts("past m");
  else
    puts("up to m");
  printf("%g\n", floor(ch / 4.0));
  return 0;
}
