/* A heap block freed twice when the symbolic flag is set (double-free).
 * expect-completed: 1
 * expect-error: double-free 12 1
 * expect-tests: 2
 */
#include <stdlib.h>
#include <klee/klee.h>

static void release(char *buf, int again) {
  free(buf);
  if (again)
    free(buf);
}

int main(void) {
  int again = klee_range(0, 2, "again");
  char *buf = malloc(16);
  buf[0] = 'a';
  release(buf, again);
  return 0;
}
