/* Memoise Fig. 8: testLoop1(x); the loop forks once per iteration on x <= 0,
 * error 1 when c reaches 50 inside the loop, error 2 after it when c == 30.
 * expect-completed: 50
 * expect-error: assert 19 1
 * expect-error: assert 25 1
 * expect-tests: 52
 */
/* Exits with c = 0..50 (51 paths, c == 30 of them fails error 2); x >= 51
 * reaches c == 50 with x still positive: error 1. */
#include <assert.h>
#include <klee/klee.h>

int testLoop1(int x) {
  int c = 0, p = 0;
  while (1) {
    if (x <= 0)
      break;
    if (c == 50)
      assert(0 && "error 1");
    c = c + 1;
    p = p + c;
    x = x - 1;
  }
  if (c == 30)
    assert(0 && "error 2");
  return p;
}

int main(void) {
  int x = klee_int("x");
  testLoop1(x);
  return 0;
}
