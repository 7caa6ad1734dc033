/* abort() on one side of a symbolic branch (kind abort).
 * expect-completed: 1
 * expect-error: abort 11 1
 * expect-tests: 2
 */
#include <stdlib.h>
#include <klee/klee.h>

static void validate(int level) {
  if (level > 7)
    abort();
}

int main(void) {
  int level = klee_range(0, 10, "level");
  validate(level);
  return level;
}
