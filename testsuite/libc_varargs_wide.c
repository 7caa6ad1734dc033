/* Variadic arguments go where the x86-64 convention puts them and the
 * callee's va_arg looks: integers and doubles in the registers' save
 * area, in order within each class, and the rest, a long double, on the
 * stack. An int, then an __int128 built from a symbolic input (clang
 * passes it as two 64-bit halves, in two registers; read as one 16 bytes
 * from a multiple of 16 it would be misplaced), a double, an int, a long
 * double, then more doubles and ints than there are registers left. The
 * input's first byte is 'z' or not: two paths, each printing what the
 * callee read.
 * program-args: --sym-arg 1
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdarg.h>
#include <stdio.h>

static int check(int n, ...) {
  va_list ap;
  va_start(ap, n);
  int tag = va_arg(ap, int);
  __int128 wide = va_arg(ap, __int128);
  double d = va_arg(ap, double);
  int middle = va_arg(ap, int);
  long double last = va_arg(ap, long double);
  double sum = 0;
  long total = 0;
  for (int i = 0; i < n; i++) {
    sum += va_arg(ap, double);
    total += va_arg(ap, long);
  }
  va_end(ap);
  int high = (int)(wide >> 64);
  int low = (int)(wide & 0xff);
  printf("%d %d %g %d %Lg %g %ld\n", tag, high, d, middle, last, sum, total);
  return low == 'z' && high == 7 && middle == 9 && last == 2.5L;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 1;
  __int128 wide = ((__int128)7 << 64) | (unsigned char)argv[1][0];
  return check(9, 1, wide, 0.5, 9, 2.5L, 1.0, 1L, 2.0, 2L, 3.0, 3L, 4.0, 4L,
               5.0, 5L, 6.0, 6L, 7.0, 7L, 8.0, 8L, 9.0, 9L)
             ? 0
             : 3;
}
