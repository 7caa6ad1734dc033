/* A pointer chosen from a table at a symbolic index may be NULL: the
 * dereference forks into a null error and the one object it may point to.
 * expect-completed: 1
 * expect-error: null 15 1
 * expect-tests: 2
 */
#include <stddef.h>
#include <klee/klee.h>

int main(void) {
  int value = 5;
  int *table[2] = {&value, NULL};
  int k = klee_range(0, 2, "k");
  int *p = table[k];
  return *p;
}
