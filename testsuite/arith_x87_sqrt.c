/* The x87's square root, which clang emits as `llvm.sqrt.f80` for
 * sqrtl where errno need not be set: correctly rounded to 64 bits of
 * mantissa as fsqrt rounds it, for normals, denormals, the largest
 * value, a root rounded down, zeros, infinity and a negative (a NaN).
 * The replay compares every result's bits natively. The input byte
 * picks which of two values goes last: two paths.
 * cc-args: -O2 -fno-math-errno
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void show(long double x) {
  long double r = __builtin_sqrtl(x);
  unsigned char b[10];
  memcpy(b, &r, sizeof b);
  printf("%04x_", b[9] << 8 | b[8]);
  for (int i = 7; i >= 0; i--)
    printf("%02x", b[i]);
  printf("\n");
}

int main(void) {
  unsigned char c;
  klee_make_symbolic(&c, 1, "c");
  static volatile long double xs[] = {2.0L,    3.0L, 0.5L, 1e-4940L, 1.18e4932L, 1.0L + 0x1p-63L,
                                      4.0L - 0x1p-61L, -0.0L, INFINITY};
  for (unsigned i = 0; i < sizeof xs / sizeof xs[0]; i++)
    show(xs[i]);
  volatile long double negative = -1.0L;
  printf("negative: nan %d\n", isnan(__builtin_sqrtl(negative)));
  if (c > 100) {
    printf("large\n");
    show(10.0L);
  } else {
    show(123456789.0L);
  }
  return 0;
}
