/* klee_range, klee_int and klee_assume: assumptions prune without forking,
 * so only the program's branches over the remaining values count.
 * expect-completed: 4
 * expect-tests: 4
 */
#include <klee/klee.h>

int main(void) {
  int r = klee_range(10, 20, "r");
  int i = klee_int("i");
  klee_assume(i >= 0);
  klee_assume(i < 3);
  int sum = r + i;
  if (sum < 12)
    return 1; /* r in {10, 11} */
  if (sum >= 21)
    return 2; /* r == 19 and i == 2 */
  if (i == 1)
    return 3;
  return 4;
}
