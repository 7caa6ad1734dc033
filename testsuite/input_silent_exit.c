/* klee_silent_exit ends a path without a test; exit() from a nested call
 * and main's return both complete (with their exit codes).
 * expect-completed: 3
 * expect-tests: 3
 */
#include <stdlib.h>
#include <klee/klee.h>

static void check(int v) {
  if (v == 3)
    exit(7);
}

int main(void) {
  int v = klee_range(0, 6, "v");
  if (v == 0)
    klee_silent_exit(0);
  check(v);
  if (v > 4)
    return 2;
  return 0;
}
