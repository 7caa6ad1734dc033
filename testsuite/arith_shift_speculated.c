/* At -O2 clang computes the shift of `b < 32 ? a >> b : 0` before the
 * test and lets a select choose: with b out of range the shift's value is
 * poison in LLVM, which the select discards, and there is no error, as
 * the C program shifts only in range. A shift the program does unguarded
 * still fails. At -O2 the tests on the results are selects too: one path
 * that ends, and one that overshifts at the unguarded shift.
 * cc-args: -O2
 * expect-completed: 1
 * expect-error: overshift 22 1
 * expect-tests: 2
 */
#include <klee/klee.h>

int main(void) {
  unsigned a = klee_int("a");
  unsigned b = klee_int("b");
  unsigned s = b < 32 ? a >> b : 0;
  int code = 0;
  if (s > 5)
    code |= 1;
  /* Unguarded: b & 63 may be 32 or more. */
  if ((a << (b & 63)) == 8)
    code |= 2;
  return code;
}
