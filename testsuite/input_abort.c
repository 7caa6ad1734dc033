/* klee_abort() ends its path with an error of kind abort, from inside a
 * call; natively it is abort(). level > 6 or not (2 paths).
 * expect-completed: 1
 * expect-error: abort 11 1
 * expect-tests: 2
 */
#include <klee/klee.h>

static int check(int level) {
  if (level > 6)
    klee_abort();
  return level;
}

int main(void) {
  int level = klee_range(0, 10, "level");
  return check(level);
}
