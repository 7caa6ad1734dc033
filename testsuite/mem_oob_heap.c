/* Out-of-bounds accesses to a heap block: a concrete write one past the end
 * and a symbolic-index read that may fall one past the end.
 * expect-completed: 1
 * expect-error: ptr 19 1
 * expect-error: ptr 20 1
 * expect-tests: 3
 */
#include <stdlib.h>
#include <klee/klee.h>

int main(void) {
  int *p = malloc(5 * sizeof(int));
  for (int k = 0; k < 5; k++)
    p[k] = k * k;
  int sel = klee_range(0, 2, "sel");
  unsigned i = (unsigned)klee_range(0, 6, "i");
  int past = 5;
  if (sel)
    p[past] = 1;
  int v = p[i];
  free(p);
  return v;
}
