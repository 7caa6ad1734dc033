/* Converting a float to an integer it does not fit: C leaves it
 * undefined and LLVM makes it poison, but a program printing it prints
 * what x86-64's instructions give, the same at -O0 and -O2, and the
 * engine gives the same: NaN, infinities and values past the range of
 * float, double and long double, to signed and unsigned integers of 8,
 * 16, 32 and 64 bits (SSE converts at 32 or 64 bits and keeps the low
 * ones, the x87 at 16, 32 or 64; an unsigned conversion converts signed
 * at the next width up, and to 64 bits twice). The replay compares every
 * line natively. A symbolic byte picks how many values are printed: two
 * paths.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <klee/klee.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>

static volatile double doubles[] = {NAN, -NAN, INFINITY, -INFINITY, 1e20, -1e20,
                                    5e9, -5e9, -1.0, 300.0, -300.0, 40000.0,
                                    70000.0, 1.8446744073709552e19, 9.3e18,
                                    4294967296.0, -0.5};
static volatile float floats[] = {NAN, INFINITY, -INFINITY, 1e20f, -1e20f,
                                  5e9f, -1.0f, 300.0f, 40000.0f, 9.3e18f};
static volatile long double longs[] = {NAN, INFINITY, -INFINITY, 1e20L, -1e20L,
                                       5e9L, -3e9L, -1.0L, 300.0L, 40000.0L,
                                       -40000.0L, 70000.0L, 9.3e18L, 1.9e19L};

#define N(a) (sizeof a / sizeof *a)
#define SHOW(tag, fmt, x)                                                      \
  printf("%s " fmt ": i8 %d u8 %u i16 %d u16 %u i32 %d u32 %u i64 %lld u64 "    \
         "%llu\n",                                                             \
         tag, x, (int8_t)x, (uint8_t)x, (int16_t)x, (uint16_t)x, (int32_t)x,  \
         (uint32_t)x, (long long)x, (unsigned long long)x)

int main(void) {
  char c;
  klee_make_symbolic(&c, sizeof c, "c");
  unsigned skip = 0;
  if (c == 'a') {
    puts("from the fourth");
    skip = 3;
  }
  for (unsigned i = skip; i < N(doubles); i++) {
    double x = doubles[i];
    SHOW("double", "%g", x);
  }
  for (unsigned i = skip; i < N(floats); i++) {
    float x = floats[i];
    SHOW("float", "%g", x);
  }
  for (unsigned i = skip; i < N(longs); i++) {
    long double x = longs[i];
    SHOW("long double", "%Lg", x);
  }
  return 0;
}
