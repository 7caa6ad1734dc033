/* Out-of-bounds accesses to global arrays: a symbolic-index write that may
 * run one past the end of an int array, and a symbolic read of a char
 * table that stays in bounds (no error, one path).
 * expect-completed: 1
 * expect-error: ptr 16 1
 * expect-tests: 2
 */
#include <klee/klee.h>

int counters[5];
const char digits[] = "0123456789";

int main(void) {
  int i = klee_range(0, 6, "i");
  int d = klee_range(0, 10, "d");
  counters[i] = 1;
  int sum = 0;
  for (int k = 0; k < 5; k++)
    sum += counters[k];
  return sum + (digits[d] - '0');
}
