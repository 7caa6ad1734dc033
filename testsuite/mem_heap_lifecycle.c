/* calloc zero-fills, realloc keeps the prefix, memcpy/memset/memmove move
 * bytes: every assert holds, and the symbolic index stays in bounds, so
 * there is one path per outcome of the single branch.
 * expect-completed: 2
 * expect-tests: 2
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <klee/klee.h>

int main(void) {
  int i = klee_range(0, 4, "i");
  int *p = calloc(4, sizeof(int));
  assert(p[i] == 0);
  for (int k = 0; k < 4; k++)
    p[k] = 10 + k;
  p = realloc(p, 8 * sizeof(int));
  memset(p + 4, 0xff, 4 * sizeof(int));
  assert(p[i] == 10 + i);
  assert(p[i + 4] == -1);
  int q[8];
  memcpy(q, p, sizeof q);
  memmove(q + 1, q, 3 * sizeof(int));
  int r = q[i + 1];
  free(p);
  if (r > 11)
    return 1;
  return 0;
}
