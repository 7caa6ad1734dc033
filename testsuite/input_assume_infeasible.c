/* A klee_assume that contradicts the path ends that path silently, with no
 * test; only the other side of the branch completes.
 * expect-completed: 1
 * expect-tests: 1
 */
#include <klee/klee.h>

int main(void) {
  int x = klee_range(0, 100, "x");
  if (x > 50) {
    klee_assume(x < 10);
    return 1;
  }
  return 0;
}
