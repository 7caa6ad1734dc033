/* klee_set_forking(0): the path forks no more, each branch going the
 * first way its path allows (the true one here), until
 * klee_set_forking(1). The loop's 8 branches on the byte's bits take one
 * way each, which fixes the byte (255): the branch on its value after
 * forks nowhere. The comparisons on the next
 * input fork again: 4 paths, one failing the assertion.
 * expect-completed: 3
 * expect-error: assert 28 1
 * expect-tests: 4
 */
#include <assert.h>
#include <klee/klee.h>

int main(void) {
  unsigned char b = (unsigned char)klee_int("b");
  int ones = 0;
  klee_set_forking(0);
  for (int i = 0; i < 8; i++)
    if (b & (1u << i))
      ones++;
  klee_set_forking(1);
  if (b == 77)
    return 5;
  int c = klee_int("c");
  if (c > 10)
    return ones;
  if (c < -10)
    assert(c != -11);
  return 0;
}
