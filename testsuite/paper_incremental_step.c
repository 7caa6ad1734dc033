/* Incremental solving study (VSTTE 2014) Fig. 1: step(a, b); main asserts the
 * result is not 1, which fails on the two a < 0 paths.
 * expect-completed: 4
 * expect-error: assert 24 2
 * expect-tests: 6
 */
#include <assert.h>
#include <klee/klee.h>

int step(int a, int b) {
  if (a < 0)
    b = a + b;
  if (b < 1)
    b = 2;
  else
    b = 3;
  return a + b;
}

int main(void) {
  int a = klee_range(-100, 100, "a");
  int b = klee_range(-100, 100, "b");
  int r = step(a, b);
  assert(r != 1);
  return 0;
}
