/* long double is x87's 80-bit format, as in a native build: its size,
 * precision and limits, arithmetic, fmodl, conversions to and from
 * integers, float and double, comparisons with NaN and infinity, the NaN
 * that 0/0 makes, sqrtl, printf's %Lf, %Le and %Lg, strtold, a struct
 * holding one, and long doubles passed to a variadic function after an
 * odd number of 8-byte arguments (the ABI looks for each at a multiple of
 * 16). The replay compares every line natively. The input's first byte
 * decides a branch, then meets a float operation, which fixes it to one
 * value: two paths.
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct reading {
  char tag;
  long double value;
  int count;
};

static long double weighted(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long double s = 0;
  for (int i = 0; i < n; i++) {
    int k = va_arg(ap, int);
    s += k * va_arg(ap, long double);
  }
  va_end(ap);
  return s;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  long double third = 1.0L / 3;
  printf("%zu %zu %d %d %d\n", sizeof(long double), _Alignof(long double),
         LDBL_MANT_DIG, LDBL_MAX_EXP, third * 3 == 1);
  printf("%.25Lf\n%.20Le\n%Lg\n", third, third, third);
  printf("%Lg %Lg %Lg\n", LDBL_MAX, LDBL_MIN, LDBL_EPSILON);

  /* A double holds fewer digits: the round trip loses some. */
  double d = third;
  float f = third;
  printf("%.20f %.10f %d %d\n", d, f, (long double)d == third,
         (long double)f < third);

  /* 2^64 - 1 is exact in 64 bits of mantissa, not in a double's 53. */
  long double big = 18446744073709551615.0L;
  unsigned long long u = big;
  long long s = -big / 4;
  printf("%llu %lld %.1Lf %d\n", u, s, (long double)u, (double)big == big);
  __int128 wide = (__int128)big * 4;
  printf("%.1Lf %d\n", (long double)wide, (long double)(wide + 1) == wide);

  volatile long double ten = 10.5L, three = 3;
  printf("%Lf %Lf %Lf\n", fmodl(ten, three), (long double)fmod(ten, three),
         ten - 0.25L);
  printf("%.21Lg %.21Lg\n", strtold("0.1", 0), strtold("-1e4000", 0));

  struct reading r = {'x', 2.5L, 3};
  printf("%c %Lg %d %zu %zu\n", r.tag, r.value, r.count, sizeof r,
         __builtin_offsetof(struct reading, count));
  printf("%.18Lg\n", weighted(3, 1, third, 2, 1.5L, 3, -0.25L));

  long double nan = NAN, inf = INFINITY;
  printf("%d %d %d %d %Lf %Lf\n", nan == nan, nan != nan, inf > LDBL_MAX,
         isnan(nan), inf, -inf);
  printf("%d %d %Lg\n", signbit(-0.0L) != 0, isinf(inf * 2), sqrtl(2));
  /* 0/0 is the x87's negative NaN, and stays so through arithmetic and
   * conversion. */
  volatile long double zero = 0;
  long double none = zero / zero;
  printf("%Lf %f %Lf %d\n", none, (double)none, none * -1 + 1,
         signbit(none) != 0);

  unsigned char c = argv[1][0];
  if (c == 'q')
    printf("q: %.20Lg\n", (long double)c / 7);
  else
    printf("other: %.20Lg\n", -(long double)c / 7);
  return 0;
}
