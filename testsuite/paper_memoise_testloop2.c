/* Memoise Fig. 9: testLoop2(x, y), two loops over symbolic bounds; errors at
 * c == 100 and at p == 50 && c == 2 lie beyond the depth bound.
 * mnemo-args: --max-depth 8
 * expect-completed: 28
 * expect-early: max-depth 9
 * expect-tests: 37
 */
/* Leaving loop 1 with c = k costs k+1 forks and loop 2 with p = j costs j+1:
 * completed = #{k+j+2 <= 8} = 28; one early path per k in 0..7 plus the one
 * still in loop 1. */
#include <assert.h>
#include <klee/klee.h>

void testLoop2(int x, int y) {
  int c = 0, p = 0;
  while (1) {
    if (x <= 0)
      break;
    if (c == 100)
      assert(0 && "error 1");
    c = c + 1;
    x = x - 1;
  }
  while (1) {
    if (y <= 0)
      break;
    if (p == 50 && c == 2)
      assert(0 && "error 2");
    p = p + 1;
    y = y - 1;
  }
}

int main(void) {
  int x = klee_int("x");
  int y = klee_int("y");
  testLoop2(x, y);
  return 0;
}
