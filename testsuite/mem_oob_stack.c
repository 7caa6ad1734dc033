/* Out-of-bounds accesses to a stack array: a write at a concrete index one
 * past the end, and a read at a symbolic index that may be one past the end.
 * expect-completed: 1
 * expect-error: ptr 16 1
 * expect-error: ptr 17 1
 * expect-tests: 3
 */
#include <klee/klee.h>

int main(void) {
  int a[5] = {1, 2, 3, 4, 5};
  int sel = klee_range(0, 2, "sel");
  int i = klee_range(0, 6, "i");
  int past = 5;
  if (sel)
    a[past] = 9;
  return a[i];
}
