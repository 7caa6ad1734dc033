/* A loop over a symbolic bound with an error deep inside: --max-depth 10
 * stops short of it, so the only outcomes are completed and early paths.
 * mnemo-args: --max-depth 10
 * expect-completed: 10
 * expect-early: max-depth 1
 * expect-tests: 11
 */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  unsigned n = (unsigned)klee_int("n");
  unsigned i = 0;
  while (i < n) {
    i++;
    assert(i != 20);
  }
  return (int)(i & 0xff);
}
