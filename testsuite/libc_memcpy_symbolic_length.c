/* memcpy and memmove with a symbolic length fork once per length that
 * fits, as KLEE's byte loop does; lengths that run past an object are one
 * out-of-bounds error path.
 * n is 0..5 and both arrays hold 4 bytes: n = 0..4 copy (5 paths), n = 5
 * runs past both (1 ptr error at the memcpy). dst[2] becomes 'c' for
 * n >= 3: the assert fails for n = 3 and n = 4 (2 errors). The 3 paths
 * left (n = 0, 1, 2) each fork over k = 0..2 at the overlapping memmove
 * (k + 1 <= 8 always fits): 9 completed. The return compares without a
 * branch.
 * expect-completed: 9
 * expect-error: assert 23 2
 * expect-error: ptr 22 1
 * expect-tests: 12
 */
#include <assert.h>
#include <string.h>
#include <klee/klee.h>

int main(void) {
  unsigned n = klee_range(0, 6, "n");
  char src[4] = "abc", dst[4] = "xyz";
  memcpy(dst, src, n);
  assert(dst[2] != 'c');
  char buf[8] = "abcdefg";
  unsigned k = klee_range(0, 3, "k");
  memmove(buf + 1, buf, k); /* k = 2 gives "aabdefg" */
  return buf[2] == 'b';
}
