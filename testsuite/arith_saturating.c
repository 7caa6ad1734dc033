/* Clamped arithmetic, which clang -O2 makes into LLVM's saturating
 * intrinsics (llvm.uadd.sat.i32, llvm.sadd.sat.i8, llvm.ssub.sat.i8):
 * each clamped result is compared with its bound, and each comparison
 * can go both ways, so the program ends in five ways, all replaying
 * natively from the -O2 build.
 * cc-args: -O2
 * expect-completed: 5
 * expect-tests: 5
 */
#include <klee/klee.h>
#include <limits.h>
#include <stdlib.h>

static unsigned add_clamped(unsigned a, unsigned b) {
  unsigned s = a + b;
  return s < a ? UINT_MAX : s;
}
static signed char sadd_clamped(signed char a, signed char b) {
  int s = a + b;
  return s > SCHAR_MAX ? SCHAR_MAX : s < SCHAR_MIN ? SCHAR_MIN : s;
}
static signed char ssub_clamped(signed char a, signed char b) {
  int s = a - b;
  return s > SCHAR_MAX ? SCHAR_MAX : s < SCHAR_MIN ? SCHAR_MIN : s;
}

int main(void) {
  unsigned a = klee_int("a"), b = klee_int("b");
  signed char c, d;
  klee_make_symbolic(&c, 1, "c");
  klee_make_symbolic(&d, 1, "d");
  /* exit(), not return: returns of constants would merge into a select. */
  if (add_clamped(a, b) == UINT_MAX)
    exit(1);
  if (sadd_clamped(c, d) == SCHAR_MAX)
    exit(2);
  if (sadd_clamped(c, d) == SCHAR_MIN)
    exit(3);
  if (ssub_clamped(c, d) == SCHAR_MIN)
    exit(4);
  return 0;
}
