/* A computed goto through a table whose last entry is null: a symbolic
 * k goes to each of the two labels, and to the null entry, an error at
 * the jump (natively a SEGV at address 0).
 * expect-completed: 2
 * expect-error: null 15 1
 * expect-tests: 3
 */
#include <klee/klee.h>

int main(void) {
  static void *const table[] = {&&low, &&high, 0};
  unsigned k = klee_range(0, 3, "k");
  int r = 0;
  if (k < 3)
    goto *table[k];
  return 1;
low:
  r = 10;
  return r - 10;
high:
  r = 20;
  return r - 20;
}
