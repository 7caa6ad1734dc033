/* A read of a heap block after free on one branch (use-after-free), and a
 * correct use before free on the other.
 * expect-completed: 1
 * expect-error: use-after-free 16 1
 * expect-tests: 2
 */
#include <stdlib.h>
#include <klee/klee.h>

int main(void) {
  int x = klee_int("x");
  int *p = malloc(sizeof(int));
  *p = 7;
  if (x > 100) {
    free(p);
    return *p;
  }
  int v = *p;
  free(p);
  return v;
}
