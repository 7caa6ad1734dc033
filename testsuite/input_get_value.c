/* klee_get_value_* gives a value the path allows and fixes the path to it,
 * as the native replay (which returns its argument) must agree: a branch
 * on the value after has one feasible side. x < 5 forks (2 paths); on
 * each, x is fixed and no branch after forks, whatever value was picked.
 * The float input is fixed by its bits, then compared concretely.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <string.h>
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 10, "x");
  long long big = klee_int("big");
  float f;
  klee_make_symbolic(&f, sizeof f, "f");
  int low = 0;
  if (x < 5)
    low = 1;
  int v = klee_get_value_i32(x);
  if (x != v)
    return 90; /* infeasible: x is v now */
  if (klee_is_symbolic(v))
    return 91; /* v is a constant */
  if (low != (v < 5))
    return 92; /* the value is one of the path's */
  long long w = klee_get_valuell(big * 3);
  if (big * 3 != w)
    return 93;
  float g = klee_get_valuef(f);
  unsigned fb, gb;
  memcpy(&fb, &f, sizeof fb);
  memcpy(&gb, &g, sizeof gb);
  if (fb != gb)
    return 94; /* f's bits are fixed too */
  double d = klee_get_valued(g * 2.0);
  if (klee_get_value_i64(x) != x || klee_get_valuel(x) != x)
    return 95;
  return (v & 7) + (d > 1.0 ? 8 : 0);
}
