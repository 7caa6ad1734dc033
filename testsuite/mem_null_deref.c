/* Loads through a null pointer and through a null struct pointer plus a
 * field offset (both kind null), on two symbolic branches.
 * expect-completed: 1
 * expect-error: null 22 1
 * expect-error: null 24 1
 * expect-tests: 3
 */
#include <stddef.h>
#include <klee/klee.h>

struct pair {
  int first;
  int second;
};

int main(void) {
  int x = klee_range(0, 3, "x");
  int *p = NULL;
  struct pair *s = NULL;
  struct pair local = {1, 2};
  if (x == 0)
    return *p;
  if (x == 1)
    return s->second;
  s = &local;
  return s->second;
}
