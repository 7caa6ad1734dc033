/* __builtin_trap() is llvm.trap, an `abort` (as KLEE reports it), where
 * the native program's ud2 raises SIGILL. Built with -fsanitize-trap, the
 * checks clang adds trap instead of calling a handler: the trap names the
 * check that failed but not its operands, so each ends its path with its
 * check's kind (an overflow, an index out of bounds), and natively the
 * same SIGILL.
 * cc-args: -fsanitize=signed-integer-overflow,bounds -fsanitize-trap=signed-integer-overflow,bounds
 * expect-completed: 1
 * expect-error: abort 20 1
 * expect-error: overflow 21 1
 * expect-error: ptr 22 1
 * expect-tests: 4
 */
#include <klee/klee.h>

int main(void) {
  int a = klee_int("a");
  int t[4] = {1, 2, 3, 4};
  if (a == 3)
    __builtin_trap();
  int x = a + 1;
  return t[x & 7];
}
