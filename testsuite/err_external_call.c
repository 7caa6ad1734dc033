/* A call to a function that is declared but defined nowhere (kind external)
 * on one side of a branch; the other side completes.
 * expect-completed: 1
 * expect-error: external 14 1
 * expect-tests: 2
 */
#include <klee/klee.h>

int mystery(int v);

int main(void) {
  int v = klee_range(0, 10, "v");
  if (v > 5)
    return mystery(v);
  return 0;
}
