/* Several asserts, plain and through klee_assert, failing on different
 * paths; an assert that always holds adds no path.
 * expect-completed: 2
 * expect-error: assert 16 1
 * expect-error: assert 17 1
 * expect-error: assert 19 1
 * expect-tests: 5
 */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  int a = klee_range(0, 10, "a");
  int b = klee_range(0, 10, "b");
  assert(a + b >= 0);
  assert(a != 3);
  klee_assert(b < 9);
  if (a > b)
    assert(a - b < 8);
  return 0;
}
