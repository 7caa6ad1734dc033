/* A symbolic length with more values than one fork lists (16): the last
 * alternative stands for the other values and forks again over them, so
 * every length is explored. n is 0..44 and buf holds 40 bytes: n = 0..40
 * fit (41 completed, over three forks of 16, 16 and 9 values), n = 41..44
 * run past buf (1 ptr error at the memset). The return does not branch.
 * expect-completed: 41
 * expect-error: ptr 16 1
 * expect-tests: 42
 */
#include <string.h>
#include <klee/klee.h>

int main(void) {
  unsigned n = klee_range(0, 45, "n");
  char buf[40];
  memset(buf, 'q', n);
  return n ? buf[n - 1] : 0;
}
