/* Shifts by symbolic amounts: a 32-bit left shift and a 64-bit right shift
 * that may reach the width (overshift), and a masked amount that cannot.
 * expect-completed: 1
 * expect-error: overshift 16 1
 * expect-error: overshift 17 1
 * expect-tests: 3
 */
#include <stdint.h>
#include <klee/klee.h>

int main(void) {
  int s = klee_range(0, 40, "s");
  int t = klee_range(0, 65, "t");
  uint32_t x = 0x80000001u;
  uint64_t y = 0xf000000000000000ull;
  uint32_t a = x << s;
  uint64_t b = y >> t;
  uint32_t c = x >> (s & 31);
  if (a == 0)
    return 1;
  return (int)((b ^ c) & 1);
}
