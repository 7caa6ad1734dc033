/* Symbolic pointers that may point into one of several objects: one loaded
 * from a table of addresses at a symbolic index (3 objects), one computed
 * arithmetically from a symbolic flag (2 objects). Each access forks once
 * per object; the branches after it are then decided. 3 x 2 paths.
 * expect-completed: 6
 * expect-tests: 6
 */
#include <stdint.h>
#include <klee/klee.h>

int a = 1, b = 2, c = 3;

int main(void) {
  int x = 10, y = 20;
  int *ptrs[3] = {&a, &b, &c};
  int k = klee_range(0, 3, "k");
  int s = klee_range(0, 2, "s");
  int *p = ptrs[k];
  *p = 42;
  uintptr_t m = (uintptr_t)(s == 0);
  int *q = (int *)(m * (uintptr_t)&x + (1 - m) * (uintptr_t)&y);
  *q += 1;
  int r = 0;
  if (a == 42)
    r += 1;
  if (b == 42)
    r += 2;
  if (c == 42)
    r += 4;
  if (x == 11)
    r += 8;
  return r;
}
