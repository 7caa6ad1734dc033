/* __builtin_unreachable reached on one value (kind unreachable).
 * expect-completed: 2
 * expect-error: unreachable 16 1
 * expect-tests: 3
 */
#include <klee/klee.h>

static int parity_name(int v) {
  switch (v & 3) {
  case 0:
  case 2:
    return 'e';
  case 1:
    return 'o';
  default:
    __builtin_unreachable();
  }
}

int main(void) {
  int v = klee_range(0, 8, "v");
  return parity_name(v);
}
