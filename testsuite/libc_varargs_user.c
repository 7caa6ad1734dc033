/* A program-defined variadic function (va_start/va_arg/va_copy) receiving
 * symbolic ints, a string and a 64-bit value; one branch on the sum.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <stdarg.h>
#include <string.h>
#include <klee/klee.h>

static long long total(int n, ...) {
  va_list ap, again;
  va_start(ap, n);
  va_copy(again, ap);
  long long s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, int);
  const char *tag = va_arg(ap, const char *);
  s += (long long)strlen(tag);
  s += va_arg(ap, long long);
  /* The copy restarts at the first variadic argument. */
  s -= va_arg(again, int);
  va_end(again);
  va_end(ap);
  return s;
}

int main(void) {
  int a = klee_range(0, 10, "a");
  int b = klee_range(0, 10, "b");
  long long s = total(3, a, b, 5, "four", 1LL << 40, 99);
  if (s - (1LL << 40) > 15)
    return 1;
  return 0;
}
