/* Built with clang's -fsanitize= checks for integer arithmetic, the
 * program reports each overflow through a __ubsan_handle_* call: the path
 * ends there with `overflow` (as KLEE's --ubsan-runtime ends it), where
 * unchecked code wraps. One handler serves a divisor of zero and the least
 * int divided by -1, and one a shift's exponent and its base: the path
 * forks between the two. The native replay, built with the same flags and
 * never recovering, stops at the same check.
 * cc-args: -fsanitize=signed-integer-overflow,shift,integer-divide-by-zero
 * expect-completed: 5
 * expect-error: overflow 28 1
 * expect-error: overflow 31 1
 * expect-error: div-by-zero 34 1
 * expect-error: overflow 34 1
 * expect-error: overflow 37 1
 * expect-error: overshift 40 1
 * expect-error: overflow 40 1
 * expect-tests: 12
 */
#include <klee/klee.h>

int main(void) {
  int op = klee_range(0, 5, "op");
  int a = klee_int("a");
  int b = klee_int("b");
  int r;
  switch (op) {
  case 0:
    r = a + b;
    break;
  case 1:
    r = a * b;
    break;
  case 2:
    r = a / b;
    break;
  case 3:
    r = -a;
    break;
  default:
    r = a << b;
    break;
  }
  return r & 1;
}
